"""Training for paper 2's two-tower experiments: learn s(x, y) = f(x)ᵀg(y) with InfoNCE on the 1-D
GMM (A2) or the latent-class generative model (A3). Evaluation lives in crlrepro.experiments.evaluation, and
in separate workflow rules, so that changing a metric never retrains."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import torch

from crlrepro.learning.losses import info_nce_in_batch
from crlrepro.learning.networks import TwoTower
from crlrepro.learning.train import TrainSettings, seed_everything, train
from crlrepro.theory.gmm import LatentClassGMM
from crlrepro.theory.lcgm import LatentClassModel

__all__ = ["in_batch_info_nce", "train_gmm_two_tower", "train_lcgm_two_tower", "train_two_tower"]


def in_batch_info_nce(tau: float):
    """batch_loss for :func:`crlrepro.learning.train.train`: SSCRL with the batch's other positives as negatives."""

    def batch_loss(model, batch, rng):
        x, y = batch
        return info_nce_in_batch(*model(x, y), tau)

    return batch_loss


def _pairs(x, y) -> list[torch.Tensor]:
    return [torch.as_tensor(np.asarray(v, np.float32).reshape(len(v), -1)) for v in (x, y)]


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
    """Fit a two-tower MLP (f, g: ``layers`` ReLU layers, width ``hidden``, output D) with in-batch
    InfoNCE at temperature τ on the pairs (x_i, y_i), or, with ``resample`` (epoch -> (x, y)), on fresh pairs
    every epoch (x, y are then epoch 0's); ``on_epoch`` as in :func:`crlrepro.learning.train.train`."""
    data = _pairs(x, y) if resample is None else (lambda epoch: _pairs(*resample(epoch)))
    seed_everything(settings.seed)
    model = TwoTower(
        np.asarray(x).reshape(len(x), -1).shape[1], np.asarray(y).reshape(len(y), -1).shape[1], dim, hidden=hidden, layers=layers
    )
    history = train(
        model, in_batch_info_nce(tau), data, settings, checkpoint=checkpoint, fingerprint=fingerprint, on_epoch=on_epoch
    )
    return model.cpu(), history


def train_gmm_two_tower(
    gmm: LatentClassGMM, dim: int, seed: int, tau: float, samples: int, settings: TrainSettings, fresh: bool = False, **kwargs
) -> tuple[TwoTower, list]:
    """A2, one (D, seed): ``samples`` pairs from the GMM (generator seeded by ``seed``), then
    :func:`train_two_tower`; with ``fresh``, ``samples`` new pairs every epoch (generator seeded by (seed, epoch)),
    so the training sample's size stops being a floor on the excess risk."""

    def draw(epoch: int):
        rng = np.random.default_rng([seed, epoch]) if fresh else np.random.default_rng(seed)
        return gmm.sample(samples, rng)[:2]

    x, y = draw(0)
    return train_two_tower(x, y, dim, tau, replace(settings, seed=seed), resample=draw if fresh else None, **kwargs)


def train_lcgm_two_tower(
    lcgm: LatentClassModel, dim: int, seed: int, tau: float, samples: int, settings: TrainSettings, **kwargs
) -> tuple[TwoTower, list]:
    """A3, one (D, seed): ``samples`` LCGM pairs (generator seeded by ``seed``), then :func:`train_two_tower`."""
    x, y, _ = lcgm.sample(samples, np.random.default_rng(seed))
    return train_two_tower(x, y, dim, tau, replace(settings, seed=seed), **kwargs)
