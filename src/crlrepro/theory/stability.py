"""The step of paper 1's Lemma 4.3: the uniform stability of the minimiser of Lemma 4.2's OCE objective.

The lemma bounds the inner term of the supervised contrastive risk by O(1/m) through algorithmic stability
(Bousquet–Elisseeff): the per-anchor problem min_{|μ| ≤ 2B} (1/m) Σ_j [τ e^{(Δ_j − μ)/τ} + μ] is strongly convex, so
replacing one of its m negatives moves its minimiser μ* = τ log (1/m) Σ_j e^{Δ_j/τ} by O(1/m). Here are that bound, the
exact worst case it bounds, and a table of both with a numerical search for the worst case.
"""

from __future__ import annotations

import numpy as np

from crlrepro.theory.numerics import check_temperature, log_sum_exp

__all__ = ["oce_replace_one_change", "oce_stability_bound", "oce_stability_table"]


def _log_expm1(a):
    """log(e^a − 1) for a > 0 without overflow: a + log(1 − e^{−a})."""
    a = np.asarray(a, dtype=float)
    return a + np.log(-np.expm1(-a))


def _check_stability_setting(m, tau, score_bound):
    m = np.asarray(m)
    if not np.issubdtype(m.dtype, np.integer) or np.any(m < 1):
        raise ValueError(f"the number of negatives m must be integers ≥ 1, got {m!r}")
    bound = float(score_bound)
    if not np.isfinite(bound) or bound <= 0:
        raise ValueError(f"score_bound must be a finite number > 0, got {score_bound!r}")
    return m.astype(float), check_temperature(tau), bound


def oce_replace_one_change(m, tau: float, score_bound: float):
    """The exact worst case of how far the minimiser of Lemma 4.2's objective moves when one of m negatives is replaced
    (its uniform stability), over every sample with |Δ_j| ≤ 2B:

        sup_{S, S'} |μ*(S) − μ*(S')| = τ log(1 + (e^{4B/τ} − 1)/m),   μ*(S) = τ log (1/m) Σ_j e^{Δ_j/τ}.

    Replacing Δ_1 by Δ_1' changes μ* by τ log((R + e^{Δ_1'/τ}) / (R + e^{Δ_1/τ})), R the other m − 1 terms' sum:
    largest for Δ_1 = −2B, Δ_1' = 2B and R smallest, (m − 1) e^{−2B/τ}. It is at most τ(e^{4B/τ} − 1)/m, an O(1/m)
    that it approaches from below once m ≫ e^{4B/τ}. Computed in log space (finite for any 4B/τ); vectorised over m."""
    m, tau, bound = _check_stability_setting(m, tau, score_bound)
    return tau * np.logaddexp(0.0, _log_expm1(4.0 * bound / tau) - np.log(m))


def oce_stability_bound(m, tau: float, score_bound: float):
    """The uniform-stability bound of the step of paper 1's Lemma 4.3 (Bousquet–Elisseeff): the objective
    F_S(μ) = (1/m) Σ_j ℓ(μ; Δ_j), ℓ(μ; Δ) = τ e^{(Δ − μ)/τ} + μ, is λ-strongly convex on |μ| ≤ 2B with
    λ = min ℓ'' = e^{−4B/τ}/τ, and replacing one Δ changes F_S' by at most G/m, G = max_{Δ, Δ'} |ℓ'(μ; Δ) − ℓ'(μ; Δ')|
    = e^{4B/τ} − 1 at μ ≥ −2B; so

        |μ*(S) − μ*(S')| ≤ G / (λ m) = τ e^{4B/τ} (e^{4B/τ} − 1) / m.

    Vectorised over m; returns +∞ where the constant overflows float64 (4B/τ > ~354)."""
    m, tau, bound = _check_stability_setting(m, tau, score_bound)
    a = 4.0 * bound / tau
    with np.errstate(over="ignore"):
        return np.exp(np.log(tau) + a + _log_expm1(a) - np.log(m))


def oce_stability_table(ms, taus, score_bound: float, seed: int, random_samples: int = 64):
    """The step of Lemma 4.3 at every (m, τ): the exact worst-case replace-one change of the OCE minimiser
    (:func:`oce_replace_one_change`), the same sup searched numerically over samples, and the strong-convexity bound
    (:func:`oce_stability_bound`). The search takes, for each k = 0..m−1 of the other m − 1 negatives at −2B (the
    rest at 2B), every replacement Δ_1 → Δ_1' on a 9-point grid of [−2B, 2B], and ``random_samples`` samples drawn
    uniformly (replacing their first Δ by a uniform draw): a closed form that missed the worst case would show a
    larger searched change. Also m · change, whose limit is τ(e^{4B/τ} − 1)."""
    import pandas as pd

    rng = np.random.default_rng(seed)
    bound = float(score_bound)
    grid = np.linspace(-2.0 * bound, 2.0 * bound, 9)
    rows = []
    for m in ms:
        for tau in taus:
            m, tau = int(m), float(tau)
            exact = float(oce_replace_one_change(m, tau, bound))
            k = np.arange(m, dtype=float)  # the others at −2B; m − 1 − k at 2B; log of their sum R:
            with np.errstate(divide="ignore"):
                log_rest = np.logaddexp(np.log(k) - 2 * bound / tau, np.log(m - 1 - k) + 2 * bound / tau)
            before = np.logaddexp(log_rest[:, None, None], grid[None, :, None] / tau)
            after = np.logaddexp(log_rest[:, None, None], grid[None, None, :] / tau)
            searched = float(np.max(tau * np.abs(after - before)))
            draws = rng.uniform(-2.0 * bound, 2.0 * bound, size=(random_samples, m + 1))
            log_rest = log_sum_exp(draws[:, 1:m] / tau, axis=1)  # m = 1: no other negative, an empty sum (−∞)
            change = tau * np.abs(np.logaddexp(log_rest, draws[:, m] / tau) - np.logaddexp(log_rest, draws[:, 0] / tau))
            rows.append(
                {
                    "m": m,
                    "tau": tau,
                    "score_bound": bound,
                    "worst_change": exact,
                    "searched_change": max(searched, float(change.max())),
                    "stability_bound": float(oce_stability_bound(m, tau, bound)),
                    "m_times_change": m * exact,
                    "limit_m_times_change": float(tau * np.expm1(4.0 * bound / tau)),
                }
            )
    return pd.DataFrame(rows)
