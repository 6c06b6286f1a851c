"""Quantities of paper 1's bounds: the OCE rewrite of the log-mean-exp loss (Lemma 4.2) and the
calibration bound (Thm 3.4)."""

from __future__ import annotations

import numpy as np
from scipy.optimize import minimize_scalar
from scipy.special import logsumexp


def _check(deltas, tau):
    deltas = np.asarray(deltas, dtype=float)
    if deltas.ndim != 1 or deltas.size < 1 or not np.all(np.isfinite(deltas)):
        raise ValueError(f"deltas must be a non-empty finite 1-D array, got shape {deltas.shape}")
    tau = float(tau)
    if not np.isfinite(tau) or tau <= 0:
        raise ValueError(f"temperature tau must be a finite number > 0, got {tau!r}")
    return deltas, tau


def log_mean_exp(deltas, tau: float) -> float:
    """τ log (1/m) Σ_j exp(Δ_j/τ): the inner term of the contrastive loss, Δ_j = s(x, y'_j) − s(x, y)."""
    deltas, tau = _check(deltas, tau)
    return float(tau * (logsumexp(deltas / tau) - np.log(deltas.size)))


def oce_objective(mu: float, deltas, tau: float) -> float:
    """(τ/m) Σ_j exp((Δ_j − μ)/τ) + μ, strictly convex in μ (evaluated in log space)."""
    deltas, tau = _check(deltas, tau)
    return float(tau * np.exp(logsumexp((deltas - mu) / tau) - np.log(deltas.size)) + mu)


def oce_log_mean_exp(deltas, tau: float, score_bound: float | None = None) -> tuple[float, float]:
    """The right-hand side of paper 1, Lemma 4.2,

        τ log (1/m) Σ_j exp(Δ_j/τ) = min_{|μ| ≤ 2B} [ (τ/m) Σ_j exp((Δ_j − μ)/τ) + μ ] − τ,

    computed by minimising over μ numerically, not by substituting the closed form. With ``score_bound``
    B (scores |s| ≤ B, so |Δ| ≤ 2B) the bounded Brent search runs over the lemma's |μ| ≤ 2B; without it, on
    [max Δ − τ log m, max Δ], which holds the unconstrained minimiser (the objective's derivative
    1 − (1/m) Σ_j e^{(Δ_j − μ)/τ} is ≤ 0 at the left end and ≥ 0 at the right) and on which every exponent
    is at most log m, so the objective stays finite. Returns (value, μ*)."""
    deltas, tau = _check(deltas, tau)
    if score_bound is not None:
        bound = float(score_bound)
        if not np.isfinite(bound) or bound <= 0:
            raise ValueError(f"score_bound must be a finite number > 0, got {score_bound!r}")
        lo, hi = -2.0 * bound, 2.0 * bound
    else:
        hi = float(deltas.max())
        lo = hi - tau * np.log(deltas.size)
        if hi - lo < 1e-300:  # m = 1: the minimiser is Δ_1 itself
            return oce_objective(hi, deltas, tau) - tau, hi
    scale = max(hi - lo, tau)
    result = minimize_scalar(oce_objective, bounds=(lo, hi), args=(deltas, tau), method="bounded",
                             options={"xatol": 1e-12 * scale, "maxiter": 500})
    return float(result.fun) - tau, float(result.x)


def calibration_bound(excess_loss, tau: float):
    """Paper 1, Thm 3.4: E* − E(s) ≤ √( (2/τ) · (L(s) − L*) )."""
    return np.sqrt(2.0 / float(tau) * np.maximum(np.asarray(excess_loss, dtype=float), 0.0))


def oce_identity_table(ms, taus, score_bound: float, seed: int):
    """C5: both sides of Lemma 4.2 at every (m, τ) for bounded scores, as the lemma assumes: s(x, y) and
    s(x, y'_j) drawn uniformly from [−B, B] (B = ``score_bound``), Δ_j = s(x, y'_j) − s(x, y), and the
    right-hand side minimised over |μ| ≤ 2B; also the minimiser μ* and the closed form τ log mean e^{Δ/τ}."""
    import pandas as pd

    rng = np.random.default_rng(seed)
    bound = float(score_bound)
    rows = []
    for m in ms:
        for tau in taus:
            positive, negatives = rng.uniform(-bound, bound), rng.uniform(-bound, bound, size=int(m))
            deltas = negatives - positive
            lhs = log_mean_exp(deltas, tau)
            rhs, mu_star = oce_log_mean_exp(deltas, tau, score_bound=bound)
            rows.append({"m": int(m), "tau": float(tau), "score_bound": bound, "lhs": lhs, "rhs": rhs,
                         "abs_diff": abs(lhs - rhs), "mu_star": mu_star, "mu_closed_form": lhs,
                         "max_abs_delta": float(np.abs(deltas).max())})
    return pd.DataFrame(rows)
