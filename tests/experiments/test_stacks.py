"""Trainings run as stacks (crlrepro.experiments.approximation.train_two_tower_stack): a member's numbers depend on its
own seed, D and data, not on the stack it ran in, up to the rounding of batched matmuls."""

from dataclasses import replace

import numpy as np
import pytest
import torch

from crlrepro.experiments.approximation import gmm_pairs, lcgm_pairs, train_two_tower, train_two_tower_stack
from crlrepro.learning.networks import TwoTower, TwoTowerEnsemble, numpy_score
from crlrepro.learning.train import TrainSettings
from crlrepro.theory.gmm import LatentClassGMM
from crlrepro.theory.lcgm import LatentClassModel

SETTINGS = TrainSettings(epochs=2, batch_size=64, learning_rate=3e-3, weight_decay=1e-4, seed=0)
GMM = LatentClassGMM([0.5, 0.5], [1.2, -1.2], [1.0, 1.0], [1.2, -1.2], [1.0, 1.0])
SETTING = {"classes": 3, "dim_x": 4, "dim_y": 4, "noise_x": 0.5, "noise_y": 1.5, "separation": 3.0, "mean_seed": 0}
LCGM = LatentClassModel.from_config(SETTING)


def _weights(model: TwoTower) -> np.ndarray:
    return np.concatenate([v.detach().numpy().ravel() for v in model.state_dict().values()])


def _centred_score(model: TwoTower, dim_x: int, dim_y: int) -> np.ndarray:
    """s(x, y) − mean over y of s(x, ·) on fixed points: the score as InfoNCE sees it. The loss is blind to an x-only
    shift (e.g. g's output bias b adds f(x)ᵀb to every score of x), so AdamW moves such directions by steps whose sign
    is rounding noise; they differ between two trainings of one member while everything the loss sees agrees."""
    rng = np.random.default_rng(0)
    scores = numpy_score(model)(rng.normal(size=(9, dim_x)) * 2, rng.normal(size=(11, dim_y)) * 2)
    return scores - scores.mean(axis=1, keepdims=True)


def _agree(a: TwoTower, b: TwoTower) -> None:
    """Two trainings of one member: the same centred score to float32 rounding (not to the bit)."""
    assert a.architecture == b.architecture
    shape = a.architecture["dim_x"], a.architecture["dim_y"]
    np.testing.assert_allclose(_centred_score(a, *shape), _centred_score(b, *shape), rtol=1e-3, atol=1e-4)


def test_a2_seed_alone_and_inside_a_stack_of_five_agree():
    seeds = [7, 1, 4, 9, 2]
    stack = train_two_tower_stack([gmm_pairs(GMM, s, 512, fresh=True) for s in seeds], [2] * 5, seeds, 0.5, SETTINGS, hidden=16)
    alone, history = train_two_tower(*gmm_pairs(GMM, 4, 512, True)(0), 2, 0.5, replace(SETTINGS, seed=4), hidden=16,
                                     resample=gmm_pairs(GMM, 4, 512, True))  # fmt: skip
    _agree(alone, stack[2][0])
    assert [h["loss"] for h in history] == pytest.approx([h["loss"] for h in stack[2][1]], rel=1e-5, abs=1e-6)
    # the members are five trainings, not one repeated
    assert len({round(float(_weights(m)[0]), 6) for m, _ in stack}) == 5


def test_a3_models_of_several_d_and_settings_in_one_padded_stack_agree_with_each_alone():
    other = LatentClassModel.from_config({**SETTING, "noise_y": 3.0})
    members = [(LCGM, 2), (LCGM, 5), (other, 3), (other, 5)]
    pairs = [lcgm_pairs(model, 11, 256) for model, _ in members]
    stack = train_two_tower_stack(pairs, [d for _, d in members], [11] * 4, 0.5, SETTINGS, hidden=16)
    for (_, dim), data, (trained, history) in zip(members, pairs, stack, strict=True):
        alone, alone_history = train_two_tower(*data, dim, 0.5, replace(SETTINGS, seed=11), hidden=16)
        assert trained.architecture["dim"] == dim
        _agree(alone, trained)
        assert [h["loss"] for h in history] == pytest.approx([h["loss"] for h in alone_history], rel=1e-5, abs=1e-6)


def test_a_padded_members_extra_columns_stay_exactly_zero_and_its_score_ignores_them():
    torch.manual_seed(0)
    small, wide = TwoTower(1, 1, 2, hidden=8, layers=2), TwoTower(1, 1, 6, hidden=8, layers=2)
    stack = TwoTowerEnsemble([small, wide])
    x, y = torch.randn(2, 32, 1), torch.randn(2, 32, 1)
    optimiser = torch.optim.AdamW(stack.parameters(), lr=1e-2, weight_decay=0.1)
    for _ in range(5):
        fx, gy = stack(x, y)
        optimiser.zero_grad()
        (fx @ gy.transpose(-2, -1)).logsumexp(-1).sum().backward()
        optimiser.step()
    assert stack.weights[-1][0, :, :, 2:].abs().max() == 0 and stack.biases[-1][0, :, :, 2:].abs().max() == 0
    assert stack.weights[-1][1, :, :, 2:].abs().max() > 0  # the wide member trains all of its six
    fx, gy = stack(x, y)
    member = stack.member(0)
    assert member.architecture["dim"] == 2
    torch.testing.assert_close(member.score_matrix(x[0], y[0]), (fx @ gy.transpose(-2, -1))[0].detach(), rtol=1e-5, atol=1e-6)


def test_members_of_another_architecture_are_refused_naming_it():
    with pytest.raises(ValueError, match="except the output dimension"):
        TwoTowerEnsemble([TwoTower(1, 1, 2, hidden=8), TwoTower(1, 1, 2, hidden=16)])


def test_the_agreement_check_tells_two_seeds_apart():
    """_agree is a real check: two seeds' models are not the same training."""
    a = train_two_tower(*gmm_pairs(GMM, 1, 512), 2, 0.5, replace(SETTINGS, seed=1), hidden=16)[0]
    b = train_two_tower(*gmm_pairs(GMM, 1, 512), 2, 0.5, replace(SETTINGS, seed=2), hidden=16)[0]
    with pytest.raises(AssertionError):
        _agree(a, b)
