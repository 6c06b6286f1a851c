"""Numerical primitives shared by the quadrature code (NumPy, float64).

The log-sum-exp is the one place where sums of exponentials are taken: shifted by the maximum,

    log Σ_j e^{a_j} = M + log Σ_j e^{a_j − M},    M = max_j a_j,

every term is in (0, 1] and one of them is 1, so the sum neither overflows nor underflows to 0 and the result is
exact to rounding for any finite a. A slice whose entries are all −∞, or none, gives −∞ (an empty sum); one holding +∞
gives +∞; NaN propagates. It is scipy.special.logsumexp's value for real input without its weights, at about a
quarter of its cost on the arrays of the quadrature rules (its array-API dispatch dominates there).
"""

from __future__ import annotations

import numpy as np

__all__ = ["check_temperature", "log_sum_exp", "loglog_slope"]


def log_sum_exp(a, axis=None, keepdims: bool = False) -> np.ndarray:
    """log Σ e^{a} over ``axis`` (None: all entries), max-shifted (module docstring)."""
    a = np.asarray(a, dtype=float)
    shift = np.max(a, axis=axis, keepdims=True, initial=-np.inf)  # an empty slice: −∞, its sum 0, its log −∞
    shift = np.where(np.isfinite(shift), shift, 0.0)  # ±∞ or NaN maxima: the unshifted sum gives ∓∞/∞/NaN itself
    with np.errstate(divide="ignore", over="ignore"):  # log 0 = −∞ (only −∞ or nothing); e^large beside a +∞: ∞
        out = np.log(np.sum(np.exp(a - shift), axis=axis, keepdims=True)) + shift
    return out if keepdims else np.squeeze(out, axis=axis)[()]  # [()]: a NumPy scalar for a full reduction


def loglog_slope(x, y) -> np.ndarray:
    """Least-squares slope β of log y = α + β log x along the last axis,

        β = Σ_k (u_k − ū)(v_k − v̄) / Σ_k (u_k − ū)²,   u = log x, v = log y,

    for one curve or a stack of them (leading axes broadcast, e.g. bootstrap resamples)."""
    u, v = np.log(np.asarray(x, dtype=float)), np.log(np.asarray(y, dtype=float))
    u = u - u.mean(axis=-1, keepdims=True)
    v = v - v.mean(axis=-1, keepdims=True)
    return np.sum(u * v, axis=-1) / np.sum(u * u, axis=-1)


def check_temperature(tau: float) -> float:
    """The temperature τ of a contrastive loss or oracle as a float, refused unless finite and > 0 (every L = τ·… and
    every exp(s/τ) needs it): the one check, for the NumPy oracles and the torch losses alike."""
    tau = float(tau)
    if not np.isfinite(tau) or tau <= 0:
        raise ValueError(f"temperature tau must be a finite number > 0, got {tau!r}")
    return tau
