"""Metrics on samples: linear-probe R², the held-out contrastive excess risk, and the elbow rule."""

from __future__ import annotations

import numpy as np

from crlrepro.theory.numerics import loglog_slope

__all__ = [
    "auc_criterion",
    "elbow_by_relative_gain",
    "held_out_excess_risk",
    "in_batch_contrastive_loss",
    "linear_probe_r2",
    "plateau_approach_rate",
    "recall_at_k",
]


def plateau_approach_rate(m, values, plateau: float) -> float:
    """The rate r at which a curve rising to ``plateau`` approaches it, from the fit

        values(m) ≈ plateau − b · m^(−r),   i.e.   r = −β of log(plateau − values) = α + β log m

    (:func:`loglog_slope`): C3 reads "SCRL gains more steeply with m than SSCRL" (paper 1, Sec. 5) as a faster
    approach of the retrieval AUC to its plateau, the Bayes AUC E*. NaN with fewer than two distinct m, or where a
    value reaches the plateau (no gap left to fit)."""
    m, values = np.asarray(m, dtype=float), np.asarray(values, dtype=float)
    gap = plateau - values
    if np.unique(m).size < 2 or not np.all(gap > 0):
        return float("nan")
    return float(-loglog_slope(m, gap))


def linear_probe_r2(train_features, train_targets, test_features, test_targets) -> float:
    """R² on held-out data of the least-squares affine map features → targets, averaged uniformly
    over the target's columns: 1 − Σ‖t − t̂‖² / Σ‖t − t̄‖² per column."""
    from sklearn.linear_model import LinearRegression  # imported here: a second of start-up for every job otherwise
    from sklearn.metrics import r2_score

    probe = LinearRegression().fit(train_features, train_targets)
    return float(r2_score(test_targets, probe.predict(test_features), multioutput="uniform_average"))


def in_batch_contrastive_loss(scores: np.ndarray, tau: float) -> float:
    """(1/n) Σ_i τ log (1/(n−1)) Σ_{j≠i} exp((S_ij − S_ii)/τ) for a score matrix S of n held-out pairs
    (pair i on the diagonal, the other n − 1 positives as negatives), computed by
    crlrepro.learning.losses.log_mean_exp_loss in float64."""
    import torch  # here, not at the top: the analysis and figure rules that use this module's other metrics stay torch-free

    from crlrepro.learning.losses import log_mean_exp_loss

    scores = torch.as_tensor(np.asarray(scores, dtype=np.float64))
    off_diagonal = ~torch.eye(scores.shape[0], dtype=torch.bool)
    return float(log_mean_exp_loss(scores.diagonal(), scores, tau, mask=off_diagonal))


def held_out_excess_risk(scores: np.ndarray, bayes_scores: np.ndarray, tau: float) -> float:
    """Monte-Carlo excess contrastive risk on held-out pairs: L̂(s) − L̂(τ·PMI) with the same pairs
    and negatives for both (a paired difference, so most sampling noise cancels)."""
    return in_batch_contrastive_loss(scores, tau) - in_batch_contrastive_loss(bayes_scores, tau)


def elbow_by_relative_gain(dims, risk, tolerance: float = 0.05) -> int:
    """The smallest D whose risk is within ``tolerance`` of the total gain from the smallest D:

        elbow = min { D : risk(D) − min_D' risk(D') ≤ tolerance · (risk(D_1) − min_D' risk(D')) },

    i.e. beyond the elbow, larger D recovers less than ``tolerance`` of what the sweep gains."""
    dims, risk = np.asarray(dims), np.asarray(risk, dtype=float)
    if dims.size != risk.size or dims.size < 2:
        raise ValueError(f"need matching dims and risks, at least two; got {dims.size} and {risk.size}")
    order = np.argsort(dims)
    dims, risk = dims[order], risk[order]
    best = risk.min()
    within = risk - best <= tolerance * (risk[0] - best)
    return int(dims[np.argmax(within)])


def auc_criterion(positive_scores, negative_scores) -> float:
    """E(s) on samples (paper 1, Sec. 3): the share of pairs i where the positive outranks its negative,
    ties counting ½: mean_i ( 1[s(x_i, y_i) > s(x_i, y'_i)] + ½ 1[s(x_i, y_i) = s(x_i, y'_i)] )."""
    pos, neg = np.asarray(positive_scores, dtype=float), np.asarray(negative_scores, dtype=float)
    if pos.shape != neg.shape:
        raise ValueError(f"positive and negative scores need the same shape, got {pos.shape} and {neg.shape}")
    return float(np.mean((pos > neg) + 0.5 * (pos == neg)))


def recall_at_k(scores: np.ndarray, k: int = 1) -> float:
    """Recall@k over a gallery: row i scores query x_i against gallery items y_1..y_n, the match of x_i
    being y_i; the share of queries whose match is among their k highest scores (ties counted
    against the query: a match tied with the k-th score is not retrieved)."""
    scores = np.asarray(scores, dtype=float)
    if scores.ndim != 2 or scores.shape[0] != scores.shape[1]:
        raise ValueError(f"need a square query × gallery score matrix, got shape {scores.shape}")
    if not 1 <= k <= scores.shape[1]:
        raise ValueError(f"k must be in 1..{scores.shape[1]}, got {k}")
    match = np.diag(scores)[:, None]
    outranking = np.sum((scores > match) | ((scores == match) & ~np.eye(len(scores), dtype=bool)), axis=1)
    return float(np.mean(outranking < k))
