"""Training for paper 2's two-tower experiments: learn s(x, y) = f(x)ᵀg(y) with InfoNCE on the 1-D
GMM (A2) or the latent-class generative model (A3). Evaluation lives in crlrepro.experiments.evaluation, and
in separate workflow rules, so that changing a metric never retrains."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np
import torch

from crlrepro.learning.losses import info_nce_in_batch
from crlrepro.learning.networks import TwoTower, TwoTowerEnsemble
from crlrepro.learning.train import TrainSettings, full_precision, seed_everything, train
from crlrepro.theory.gmm import LatentClassGMM
from crlrepro.theory.lcgm import LatentClassModel

__all__ = [
    "gmm_pairs",
    "in_batch_info_nce",
    "lcgm_pairs",
    "train_gmm_two_tower",
    "train_lcgm_two_tower",
    "train_two_tower",
    "train_two_tower_stack",
]


def in_batch_info_nce(tau: float):
    """batch_loss for :func:`crlrepro.learning.train.train`: SSCRL with the batch's other positives as negatives."""

    def batch_loss(model, batch, rng):
        x, y = batch
        towers, exact = full_precision(*model(x, y))  # the towers in the run's precision, the score matrix in float32
        with exact:
            return info_nce_in_batch(*towers, tau)

    return batch_loss


def _pairs(x, y) -> list[torch.Tensor]:
    return [torch.as_tensor(np.asarray(v, np.float32).reshape(len(v), -1)) for v in (x, y)]


Pairs = tuple[np.ndarray, np.ndarray]


def train_two_tower_stack(
    pairs: Sequence[Pairs | Callable[[int], Pairs]],
    dims: Sequence[int],
    seeds: Sequence[int],
    tau: float,
    settings: TrainSettings,
    *,
    hidden: int = 128,
    layers: int = 3,
    stack: int | None = None,
    checkpoint=None,
    fingerprint: str = "",
    on_epoch: Callable[[int, dict[int, TwoTower]], None] | None = None,
) -> list[tuple[TwoTower, list]]:
    """Fit M two-tower MLPs (f, g: ``layers`` ReLU layers, width ``hidden``) with in-batch InfoNCE at temperature τ,
    in stacks of at most ``stack`` members (all, by default) trained as one model
    (:class:`crlrepro.learning.networks.TwoTowerEnsemble`: all members of a stack in each matmul and optimiser step):
    member k has output dimension ``dims[k]``, is initialised under ``seeds[k]`` as it would be alone, shuffled by
    ``seeds[k]``'s generators, and trained on ``pairs[k]``, fixed arrays (x, y) or a function epoch -> (x, y) (fresh
    pairs every epoch; all members' of one size). A member's training thus depends on its own seed, D and data only:
    the stack it runs in changes its numbers by the rounding of batched matmuls (tests/experiments/test_stacks.py).
    A stack of several checkpoints to ``checkpoint`` with its index in the name (``D8.pt``: ``D8-0.pt``, ``D8-1.pt``).
    ``on_epoch(epoch, models)`` gets a stack's members as plain TwoTower models, {member index k: model}, with epoch 0
    before training (as in :func:`crlrepro.learning.train.train`). Returns each member's (model on the CPU, history),
    in order."""
    dims, seeds = [int(d) for d in dims], [int(s) for s in seeds]
    if not pairs or len(pairs) != len(dims) or len(dims) != len(seeds):
        raise ValueError(f"a stack needs one data set, D and seed per member; got {len(pairs)}, {len(dims)} and {len(seeds)}")
    size = len(seeds) if stack is None else int(stack)
    if size < 1:
        raise ValueError(f"{settings.name}: stack must be at least 1 member, got {stack!r}")
    resampled = [callable(p) for p in pairs]
    if any(resampled) and not all(resampled):
        raise ValueError("a stack's members are trained either all on fixed pairs or all on fresh pairs every epoch")
    groups = [list(range(start, min(start + size, len(seeds)))) for start in range(0, len(seeds), size)]
    trained = []
    for g, group in enumerate(groups):
        path = checkpoint
        if checkpoint is not None and len(groups) > 1:
            path = Path(checkpoint).with_name(f"{Path(checkpoint).stem}-{g}{Path(checkpoint).suffix}")
        trained += _train_stack(
            [pairs[k] for k in group],
            [dims[k] for k in group],
            [seeds[k] for k in group],
            group,
            tau,
            settings,
            hidden=hidden,
            layers=layers,
            checkpoint=path,
            fingerprint=f"{fingerprint}|stack {g} of {len(groups)}",
            on_epoch=on_epoch,
        )
    return trained


def _train_stack(pairs, dims, seeds, indices, tau, settings, *, hidden, layers, checkpoint, fingerprint, on_epoch):
    """One stack of :func:`train_two_tower_stack`: its members are those numbered ``indices`` there."""
    first = [_pairs(*(p(0) if callable(p) else p)) for p in pairs]

    def stacked(tensors: list[list[torch.Tensor]]) -> list[torch.Tensor]:
        shapes = {tuple(t.shape for t in member) for member in tensors}
        if len(shapes) != 1:
            raise ValueError(f"a stack's members need data of one shape, got {sorted(map(str, shapes))}")
        return [torch.stack(view) for view in zip(*tensors, strict=True)]

    data = stacked(first) if not callable(pairs[0]) else (lambda epoch: stacked([_pairs(*p(epoch)) for p in pairs]))
    members = []
    for seed, dim in zip(seeds, dims, strict=True):  # each member's initialisation is the one it would get alone
        seed_everything(seed)
        members.append(TwoTower(first[0][0].shape[1], first[0][1].shape[1], dim, hidden=hidden, layers=layers))
    model = TwoTowerEnsemble(members)

    def each_epoch(epoch: int, stack: TwoTowerEnsemble) -> None:
        on_epoch(epoch, {index: stack.member(k) for k, index in enumerate(indices)})

    histories = train(
        model,
        in_batch_info_nce(tau),
        data,
        settings,
        checkpoint=checkpoint,
        fingerprint=fingerprint,
        on_epoch=None if on_epoch is None else each_epoch,
        members=seeds,
    )
    return [(model.member(k), history) for k, history in enumerate(histories)]


def train_two_tower(
    x: np.ndarray,
    y: np.ndarray,
    dim: int,
    tau: float,
    settings: TrainSettings,
    *,
    hidden: int = 128,
    layers: int = 3,
    checkpoint=None,
    fingerprint: str = "",
    on_epoch=None,
    resample=None,
) -> tuple[TwoTower, list]:
    """Fit one two-tower MLP on the pairs (x_i, y_i), or, with ``resample`` (epoch -> (x, y)), on fresh pairs every
    epoch (x, y are then epoch 0's): a stack of one (:func:`train_two_tower_stack`), seeded by ``settings.seed``;
    ``on_epoch(epoch, model)`` as in :func:`crlrepro.learning.train.train`."""
    each_epoch = None if on_epoch is None else (lambda epoch, models: on_epoch(epoch, models[0]))  # the stack's one
    ((model, history),) = train_two_tower_stack(
        [(x, y) if resample is None else resample],
        [dim],
        [settings.seed],
        tau,
        settings,
        hidden=hidden,
        layers=layers,
        checkpoint=checkpoint,
        fingerprint=fingerprint,
        on_epoch=each_epoch,
    )
    return model, history


def gmm_pairs(gmm: LatentClassGMM, seed: int, samples: int, fresh: bool = False) -> Pairs | Callable[[int], Pairs]:
    """A2's training pairs for one seed: ``samples`` pairs from the GMM (generator seeded by ``seed``), or with ``fresh``
    a function epoch -> ``samples`` new pairs (generator seeded by (seed, epoch)), so that the training sample's size
    stops being a floor on the excess risk."""
    if fresh:
        return lambda epoch: gmm.sample(samples, np.random.default_rng([seed, epoch]))[:2]
    return gmm.sample(samples, np.random.default_rng(seed))[:2]


def lcgm_pairs(lcgm: LatentClassModel, seed: int, samples: int) -> Pairs:
    """A3's training pairs for one seed: ``samples`` LCGM pairs (generator seeded by ``seed``)."""
    return lcgm.sample(samples, np.random.default_rng(seed))[:2]


def train_gmm_two_tower(
    gmm: LatentClassGMM, dim: int, seed: int, tau: float, samples: int, settings: TrainSettings, fresh: bool = False, **kwargs
) -> tuple[TwoTower, list]:
    """A2, one (D, seed): :func:`gmm_pairs`, then :func:`train_two_tower` (a stack of one)."""
    pairs = gmm_pairs(gmm, seed, samples, fresh)
    if fresh:
        return train_two_tower(*pairs(0), dim, tau, replace(settings, seed=seed), resample=pairs, **kwargs)
    return train_two_tower(*pairs, dim, tau, replace(settings, seed=seed), **kwargs)


def train_lcgm_two_tower(
    lcgm: LatentClassModel, dim: int, seed: int, tau: float, samples: int, settings: TrainSettings, **kwargs
) -> tuple[TwoTower, list]:
    """A3, one (D, seed): :func:`lcgm_pairs`, then :func:`train_two_tower` (a stack of one)."""
    return train_two_tower(*lcgm_pairs(lcgm, seed, samples), dim, tau, replace(settings, seed=seed), **kwargs)
