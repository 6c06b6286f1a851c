"""Paper 1, Thm 3.4 (calibration, C2): the contrastive excess risk controls the retrieval regret,

    E* − E(s) ≤ √( (2/τ) · (L(s) − L*) ),

checked on checkpoints along trainings, with both sides computed by quadrature on the GMM:
L(s) − L* by :func:`crlrepro.theory.oracles.excess_contrastive_risk` and E(s), E* by
:func:`crlrepro.theory.oracles.retrieval_auc` on one and the same rule (so their difference carries no
rule-to-rule error). The exponent r of E* − E(s) ≈ C (L(s) − L*)^r is fitted in log-log; the bound
says r ≥ ½ near the optimum, and under a Tsybakov noise exponent μ the faster (μ+1)/(μ+2).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from crlrepro.theory.bounds import calibration_bound
from crlrepro.theory.gmm import LatentClassGMM
from crlrepro.theory.numerics import loglog_slope
from crlrepro.theory.oracles import bayes_auc, excess_contrastive_risk, retrieval_auc

__all__ = [
    "FAMILY_FIT_NOT_APPLICABLE",
    "calibration_table",
    "calibration_trajectories",
    "family_exponents",
    "fit_calibration_exponent",
    "PERTURBATIONS",
    "perturbed_bayes_score",
    "score_family_table",
]

if TYPE_CHECKING:
    from crlrepro.learning.train import TrainSettings


def calibration_trajectories(
    gmm: LatentClassGMM,
    dim: int,
    seeds,
    tau: float,
    samples: int,
    settings: TrainSettings,
    *,
    hidden: int,
    layers: int,
    nodes: int,
    inner_nodes: int,
    stack: int | None = None,
) -> list[pd.DataFrame]:
    """Train one two-tower model per seed (A2's recipe: in-batch InfoNCE on ``samples`` GMM pairs drawn with that
    seed; in stacks of at most ``stack`` seeds, :func:`crlrepro.experiments.approximation.train_two_tower_stack`) and
    measure every checkpoint of each, from the initialisation (epoch 0) to the last epoch: L(s) − L* and E(s). One table
    per seed."""
    # torch is imported here, not at the top: the rules that only analyse these trajectories stay torch-free
    from crlrepro.experiments.approximation import gmm_pairs, train_two_tower_stack
    from crlrepro.learning.networks import numpy_score

    seeds = [int(seed) for seed in seeds]
    grid = gmm.grid(nodes)
    rows = [[] for _ in seeds]

    def measure(epoch, models):
        for k, model in models.items():
            score = numpy_score(model)
            rows[k].append(
                {
                    "checkpoint": int(epoch),
                    "excess_loss": excess_contrastive_risk(score, grid, tau),
                    "auc": retrieval_auc(score, gmm, nodes, inner_nodes),
                }
            )

    train_two_tower_stack(
        [gmm_pairs(gmm, seed, samples) for seed in seeds],
        [dim] * len(seeds),
        seeds,
        tau,
        settings,
        hidden=hidden,
        layers=layers,
        stack=stack,
        on_epoch=measure,
    )
    tables = []
    for seed, member_rows in zip(seeds, rows, strict=True):
        table = pd.DataFrame(member_rows)
        table.insert(0, "model", f"D{dim}_seed{seed}")
        table.insert(1, "D", int(dim))
        table.insert(2, "seed", int(seed))
        tables.append(table)
    return tables


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


def fit_calibration_exponent(
    excess_loss,
    excess_auc,
    bootstrap: int,
    rng: np.random.Generator,
    *,
    floor: float = 0.0,
    eligible=None,
    groups=None,
    level: float = 0.95,
) -> dict:
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
    return {
        "exponent": float(slope),
        "log_constant": float(intercept),
        "low": float(low),
        "high": float(high),
        "resampled": "models" if groups is not None else "checkpoints",
        "points_used": int(used.sum()),
        "points_excluded": int((~used).sum()),
        "floor": float(floor),
    }


# Perturbation directions h of the Bayes score s_ε = τ (PMI + ε h): smooth functions that change the ranking of the
# candidates y for a query x (an x-only h changes neither the ranking nor the contrastive loss).
PERTURBATIONS = {
    "sin_x_times_y": ("sin(x)·y", lambda x, y: np.sin(x)[:, None] * y[None, :]),
    "half_y_squared": ("y²/2", lambda x, y: np.zeros(np.shape(x))[:, None] + 0.5 * y[None, :] ** 2),
}


def perturbed_bayes_score(gmm: LatentClassGMM, tau: float, epsilon: float, direction: str):
    """s_ε(x, y) = τ (PMI(x, y) + ε h(x, y)), h = PERTURBATIONS[direction]: a family that reaches the Bayes score
    as ε → 0, with L(s_ε) − L* = O(ε²) for smooth h."""
    if direction not in PERTURBATIONS:
        raise ValueError(f"unknown perturbation {direction!r}; known: {sorted(PERTURBATIONS)}")
    if not np.isfinite(epsilon):
        raise ValueError(f"epsilon must be finite, got {epsilon!r}")
    h = PERTURBATIONS[direction][1]

    def score(x, y):
        x, y = np.atleast_1d(np.asarray(x, dtype=float)), np.atleast_1d(np.asarray(y, dtype=float))
        return tau * (gmm.pmi(x, y) + epsilon * h(x, y))

    return score


def score_family_table(
    gmm: LatentClassGMM, tau: float, *, dims, epsilons, perturbations, nodes: int, inner_nodes: int
) -> pd.DataFrame:
    """Families of scores that approach the Bayes score, each member measured like a checkpoint (L(s) − L* and E(s)
    on one quadrature rule): the spectral truncations s_D (D in ``dims``, one SVD of the PMI operator on the rule's
    grid; family "truncation") and the perturbed Bayes scores s_ε (ε in ``epsilons``, one family per direction in
    ``perturbations``, named "perturbed:<direction>"). Columns: model (family), parameter (D or ε), excess_loss, auc,
    unique (False for a truncation that splits a degenerate singular space: SingularSystem.truncation_is_unique;
    family_exponents leaves those out)."""
    from crlrepro.theory.spectral import operator_svd, truncated_score

    dims, epsilons = list(dims), list(epsilons)
    unknown = [p for p in perturbations if p not in PERTURBATIONS]
    if unknown:
        raise ValueError(f"unknown perturbation(s) {unknown}; known: {sorted(PERTURBATIONS)}")
    if any(isinstance(d, bool) or int(d) != d or d < 1 for d in dims):
        raise ValueError(f"truncation dims must be integers >= 1, got {dims}")
    if any(not (np.isfinite(e) and e > 0) for e in epsilons):
        raise ValueError(f"perturbation sizes epsilon must be finite and > 0, got {epsilons}")
    grid = gmm.grid(nodes)
    members = []
    if dims:
        system = operator_svd(gmm.pmi, grid.x, grid.y)
        members += [
            ("truncation", float(d), truncated_score(system, int(d), tau), system.truncation_is_unique(int(d))) for d in dims
        ]
    members += [
        (f"perturbed:{p}", float(e), perturbed_bayes_score(gmm, tau, float(e), p), True) for p in perturbations for e in epsilons
    ]
    rows = [
        {
            "model": name,
            "parameter": parameter,
            "excess_loss": excess_contrastive_risk(score, grid, tau),
            "auc": retrieval_auc(score, gmm, nodes, inner_nodes),
            "unique": unique,
        }
        for name, parameter, score, unique in members
    ]
    return pd.DataFrame(rows, columns=["model", "parameter", "excess_loss", "auc", "unique"])


# A family whose usable members are too few to fit has no exponent (crlrepro.runtime.artifacts.nonfinite_problems).
FAMILY_FIT_NOT_APPLICABLE = ("exponent", "low", "high", "excess_min", "excess_max")


def family_exponents(table: pd.DataFrame, *, tail: int, max_relative_error: float) -> pd.DataFrame:
    """The exponent r of E* − E(s) ≈ C (L − L*)^r at the end of each family nearest the Bayes score.

    A bound regret ≤ C·excess^κ with a free constant C holds on any finite set of scores, so only its limit as
    the excess → 0 can be tested: per family, the ``tail`` members with the smallest excess among the usable ones
    (informative, unique (score_family_table), regret > 0 and known to within ``max_relative_error`` of itself:
    column ``regret_error``, the change of the regret between two quadrature rules) give the least-squares slope of
    log regret on log excess,
    and ``low``/``high`` are the smallest and largest local slopes between consecutive members of that tail,

        r_j = (log R_{j+1} − log R_j) / (log X_{j+1} − log X_j),

    a sensitivity range, not a confidence interval (the members are deterministic). A family with fewer than 3
    usable members gets NaN."""
    if int(tail) != tail or tail < 3:
        raise ValueError(f"tail must be an integer >= 3 (a slope and a range), got {tail!r}")
    if not (np.isfinite(max_relative_error) and max_relative_error > 0):
        raise ValueError(f"max_relative_error must be finite and > 0, got {max_relative_error!r}")
    rows = []
    for name, members in table.groupby("model", sort=False):
        # a truncation inside a degenerate singular space (unique False) is not a well-defined score
        usable = members["informative"] & members["unique"] & (members["excess_auc"] > 0) & (members["excess_loss"] > 0)
        usable &= members["regret_error"] <= max_relative_error * members["excess_auc"]
        chosen = members[usable].sort_values("excess_loss").head(int(tail))
        row = {
            "model": name,
            "exponent": np.nan,
            "low": np.nan,
            "high": np.nan,
            "points_used": len(chosen),
            "usable": int(usable.sum()),
            "excess_min": np.nan,
            "excess_max": np.nan,
        }
        if len(chosen) >= 3:
            x, y = np.log(chosen["excess_loss"].to_numpy()), np.log(chosen["excess_auc"].to_numpy())
            local = np.diff(y) / np.diff(x)
            row.update(
                exponent=float(loglog_slope(np.exp(x), np.exp(y))),
                low=float(local.min()),
                high=float(local.max()),
                excess_min=float(np.exp(x[0])),
                excess_max=float(np.exp(x[-1])),
            )
        rows.append(row)
    return pd.DataFrame(rows)
