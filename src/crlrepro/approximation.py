"""Paper 2's two-tower experiments: learn s(x, y) = f(x)ᵀg(y) with InfoNCE and measure how well it
approximates τ·PMI (A2 on the 1-D GMM, A3 on the latent-class generative model)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import torch

from crlrepro.gmm import LatentClassGMM
from crlrepro.losses import info_nce_in_batch
from crlrepro.networks import TwoTower, numpy_score
from crlrepro.oracles import excess_contrastive_risk, l2_distance_to_bayes_score
from crlrepro.spectral import operator_svd, truncated_score
from crlrepro.train import TrainSettings, seed_everything, train


def in_batch_info_nce(tau: float):
    """batch_loss for :func:`crlrepro.train.train`: SSCRL with the batch's other positives as negatives."""

    def batch_loss(model, batch, rng):
        x, y = batch
        return info_nce_in_batch(*model(x, y), tau)

    return batch_loss


def train_two_tower(x: np.ndarray, y: np.ndarray, dim: int, tau: float, settings: TrainSettings, *,
                    hidden: int = 128, layers: int = 3, checkpoint=None, fingerprint: str = "") -> tuple[TwoTower, list]:
    """Fit a two-tower MLP (f, g: ``layers`` ReLU layers, width ``hidden``, output D) with in-batch
    InfoNCE at temperature τ on the pairs (x_i, y_i)."""
    x = torch.as_tensor(np.asarray(x, np.float32).reshape(len(x), -1))
    y = torch.as_tensor(np.asarray(y, np.float32).reshape(len(y), -1))
    seed_everything(settings.seed)
    model = TwoTower(x.shape[1], y.shape[1], dim, hidden=hidden, layers=layers)
    history = train(model, in_batch_info_nce(tau), [x, y], settings, checkpoint=checkpoint, fingerprint=fingerprint)
    return model.cpu(), history


def gmm_two_tower_run(gmm: LatentClassGMM, dim: int, seed: int, tau: float, samples: int, settings: TrainSettings,
                      nodes: int, hidden: int = 128, layers: int = 3, checkpoint=None, fingerprint: str = "") -> dict:
    """A2, one (D, seed): train on ``samples`` pairs from the GMM, then evaluate by quadrature the
    population excess risk L(s_w) − L* and the shift-removed L2 distance to τ·PMI."""
    x, y, _ = gmm.sample(samples, np.random.default_rng(seed))
    settings = replace(settings, seed=seed)
    model, history = train_two_tower(x, y, dim, tau, settings, hidden=hidden, layers=layers,
                                     checkpoint=checkpoint, fingerprint=fingerprint)
    grid = gmm.grid(nodes)
    score = numpy_score(model)
    return {
        "D": dim,
        "seed": seed,
        "excess_risk": excess_contrastive_risk(score, grid, tau),
        "l2_distance": l2_distance_to_bayes_score(score, grid, tau),
        "final_train_loss": history[-1]["loss"],
    }


def spectral_truncation_metrics(gmm: LatentClassGMM, dims, tau: float, nodes: int) -> list[dict]:
    """The same two metrics for the spectral truncation s_D, so MLP and s_D compare like with like."""
    grid = gmm.grid(nodes)
    system = operator_svd(gmm.pmi, grid.x, grid.y)
    rows = []
    for d in dims:
        s_d = truncated_score(system, int(d), tau)
        rows.append({"D": int(d), "excess_risk": excess_contrastive_risk(s_d, grid, tau),
                     "l2_distance": l2_distance_to_bayes_score(s_d, grid, tau)})
    return rows
