"""Paper 1, Thm 3.4 (calibration, C2): the contrastive excess risk controls the retrieval regret,

    E* − E(s) ≤ √( (2/τ) · (L(s) − L*) ),

checked on checkpoints along trainings, with both sides computed by quadrature on the GMM:
L(s) − L* by :func:`crlrepro.oracles.excess_contrastive_risk` and E(s), E* by
:func:`crlrepro.oracles.retrieval_auc` on one and the same rule (so their difference carries no
rule-to-rule error). The exponent r of E* − E(s) ≈ C (L(s) − L*)^r is fitted in log-log; the bound
says r ≥ ½ near the optimum, and under a Tsybakov noise exponent μ the faster (μ+1)/(μ+2).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from crlrepro.approximation import train_gmm_two_tower
from crlrepro.bounds import calibration_bound
from crlrepro.gmm import LatentClassGMM
from crlrepro.metrics import loglog_slope
from crlrepro.networks import numpy_score
from crlrepro.oracles import bayes_auc, excess_contrastive_risk, retrieval_auc
from crlrepro.train import TrainSettings


def calibration_trajectory(gmm: LatentClassGMM, dim: int, seed: int, tau: float, samples: int, settings: TrainSettings, *,
                           hidden: int, layers: int, nodes: int, inner_nodes: int) -> pd.DataFrame:
    """Train one two-tower model (A2's recipe: in-batch InfoNCE on ``samples`` GMM pairs) and measure
    every checkpoint, from the initialisation (epoch 0) to the last epoch: L(s) − L* and E(s)."""
    grid = gmm.grid(nodes)
    rows = []

    def measure(epoch, model):
        score = numpy_score(model)
        rows.append({"checkpoint": int(epoch), "excess_loss": excess_contrastive_risk(score, grid, tau),
                     "auc": retrieval_auc(score, gmm, nodes, inner_nodes)})

    train_gmm_two_tower(gmm, dim, seed, tau, samples, settings, hidden=hidden, layers=layers, on_epoch=measure)
    table = pd.DataFrame(rows)
    table.insert(0, "model", f"D{dim}_seed{seed}")
    table.insert(1, "D", int(dim))
    table.insert(2, "seed", int(seed))
    return table


def calibration_table(points: pd.DataFrame, gmm: LatentClassGMM, tau: float, *, nodes: int, inner_nodes: int) -> pd.DataFrame:
    """Add E*, the regret excess_auc = E* − E(s), the bound √(2/τ · excess_loss), their ratio, a
    ``violates`` flag (regret above the bound; never clipped) and an ``informative`` flag (bound below
    2E* − 1, the largest regret any score has: that of the reversed Bayes ranking, E = 1 − E*) to the
    checkpoints' measurements."""
    table = points.copy()
    table["E_star"] = bayes_auc(gmm, nodes, inner_nodes)
    table["excess_auc"] = table["E_star"] - table["auc"]
    table["bound"] = calibration_bound(table["excess_loss"], tau)
    with np.errstate(divide="ignore", invalid="ignore"):
        table["ratio"] = np.where(table["bound"] > 0, table["excess_auc"] / table["bound"], np.inf)
    table["violates"] = table["excess_auc"] > table["bound"]
    table["informative"] = table["bound"] < 2.0 * table["E_star"] - 1.0
    return table


def fit_calibration_exponent(excess_loss, excess_auc, bootstrap: int, rng: np.random.Generator, *,
                             floor: float = 0.0, eligible=None, groups=None, level: float = 0.95) -> dict:
    """Least-squares r in log(E* − E) = log C + r log(L − L*) over the ``eligible`` points (all by default;
    the pipeline passes the trained, informative checkpoints) with both sides above ``floor`` (smaller
    regrets are below the quadrature's resolution), with a percentile bootstrap interval. With ``groups``
    (e.g. the model each checkpoint belongs to) the bootstrap resamples whole groups: checkpoints of one
    training run are not independent, so resampling them one by one would make the interval too narrow."""
    loss, regret = np.asarray(excess_loss, dtype=float), np.asarray(excess_auc, dtype=float)
    eligible = np.ones(loss.shape, dtype=bool) if eligible is None else np.asarray(eligible, dtype=bool)
    used = eligible & (loss > floor) & (regret > floor)
    if used.sum() < 3:
        raise ValueError(f"need at least 3 checkpoints with both excesses above {floor:g} to fit an exponent, got {used.sum()}")
    x, y = loss[used], regret[used]
    slope = float(loglog_slope(x, y))
    intercept = float(np.mean(np.log(y)) - slope * np.mean(np.log(x)))
    if groups is None:
        picks = rng.integers(0, x.size, size=(bootstrap, x.size))
        with np.errstate(divide="ignore", invalid="ignore"):
            slopes = loglog_slope(x[picks], y[picks])  # a resample of one repeated point has no slope
    else:
        labels = np.asarray(groups)[used]
        members = [np.nonzero(labels == g)[0] for g in np.unique(labels)]
        slopes = np.empty(bootstrap)
        with np.errstate(divide="ignore", invalid="ignore"):
            for b, chosen in enumerate(rng.integers(0, len(members), size=(bootstrap, len(members)))):
                rows = np.concatenate([members[g] for g in chosen])
                slopes[b] = loglog_slope(x[rows], y[rows])
    slopes = slopes[np.isfinite(slopes)]
    low, high = np.quantile(slopes, [(1 - level) / 2, (1 + level) / 2])
    return {"exponent": float(slope), "log_constant": float(intercept), "low": float(low), "high": float(high),
            "resampled": "models" if groups is not None else "checkpoints",
            "points_used": int(used.sum()), "points_excluded": int((~used).sum()), "floor": float(floor)}
