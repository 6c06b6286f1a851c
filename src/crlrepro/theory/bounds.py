"""Quantities of paper 1's bounds: the OCE rewrite of the log-mean-exp loss (Lemma 4.2) and the
calibration bound (Thm 3.4)."""

from __future__ import annotations

import numpy as np

from crlrepro.theory.numerics import log_sum_exp

__all__ = [
    "approximation_bound_constant",
    "calibration_bound",
    "calibration_exponent",
    "density_ratio_bound",
    "log_mean_exp",
    "oce_identity_table",
    "oce_log_mean_exp",
    "oce_objective",
    "score_sup_norm",
]


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
    return float(tau * (log_sum_exp(deltas / tau) - np.log(deltas.size)))


def oce_objective(mu: float, deltas, tau: float) -> float:
    """(τ/m) Σ_j exp((Δ_j − μ)/τ) + μ, strictly convex in μ (evaluated in log space)."""
    deltas, tau = _check(deltas, tau)
    return float(tau * np.exp(log_sum_exp((deltas - mu) / tau) - np.log(deltas.size)) + mu)


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
    from scipy.optimize import minimize_scalar  # here: ~0.2 s of import that the many importers of this module skip

    scale = max(hi - lo, tau)
    result = minimize_scalar(
        oce_objective, bounds=(lo, hi), args=(deltas, tau), method="bounded", options={"xatol": 1e-12 * scale, "maxiter": 500}
    )
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
            rows.append(
                {
                    "m": int(m),
                    "tau": float(tau),
                    "score_bound": bound,
                    "lhs": lhs,
                    "rhs": rhs,
                    "abs_diff": abs(lhs - rhs),
                    "mu_star": mu_star,
                    "mu_closed_form": lhs,
                    "max_abs_delta": float(np.abs(deltas).max()),
                }
            )
    return pd.DataFrame(rows)


# -- Paper 2, Sec. 3: the excess risk of the best rank-D score against the spectral tail -----------------------
#
# The summary states inf_{s ∈ S_D} L(s) − L* ≲ Σ_{i>D} λ_i under p(x, y)/(p(x)p(y)) ≤ α and ‖s_D‖∞ ≤ B, proved by a
# second-order Taylor expansion of L along the segment from s* = τ·PMI to s_D, without the constant. We derive one
# (approximation_bound_constant) so that the inequality can be tested as an inequality.


def density_ratio_bound(gmm, nodes: int = 2001, span: float = 16.0) -> float:
    """α = sup_{x,y} r(x, y), r = p(x, y)/(p(x)p(y)) = Σ_k p(k|x) p(k|y)/π_k, over a box of ``span`` standard
    deviations beyond the outermost means and far points out to 10^6 scales (:func:`_probe_points`), where the
    posteriors reach their limits: the sup is often approached only at infinity (2 on paper 2's GMM, whatever
    its separation). r ≤ 1/min_k π_k always, so α is finite for every latent-class mixture."""
    return float(np.exp(np.max(gmm.pmi(_probe_points(gmm, "x", nodes, span), _probe_points(gmm, "y", nodes, span)))))


def _probe_points(gmm, view: str, nodes: int, span: float, far_decades: int = 6) -> np.ndarray:
    """``nodes`` equispaced points over the outermost means ± ``span`` standard deviations, and ±10^k scales
    (k = 2..``far_decades``, scale = the largest |mean| + standard deviation) beyond them."""
    means, stds = (gmm.mean_x, gmm.std_x) if view == "x" else (gmm.mean_y, gmm.std_y)
    box = np.linspace(means.min() - span * stds.max(), means.max() + span * stds.max(), int(nodes))
    far = (np.abs(means).max() + stds.max()) * 10.0 ** np.arange(2, far_decades + 1)
    return np.concatenate([-far[::-1], box, far])


def score_sup_norm(score, gmm, nodes: int = 801, span: float = 16.0) -> tuple[float, bool]:
    """B = sup_{x,y} |s(x, y)| over :func:`_probe_points` (a box of ``span`` standard deviations and far points out
    to 10^6 scales); returns (B, bounded), bounded = the points out to 10^6 scales raise the sup over those out to
    10^5 by at most 1e-6 (relative). A score that keeps growing (a ReLU network, τ·PMI or its truncations where
    the classes' tails cross) has no finite B: the bound's assumption fails for it."""
    near = np.abs(
        np.asarray(score(_probe_points(gmm, "x", nodes, span, 5), _probe_points(gmm, "y", nodes, span, 5)), dtype=float)
    ).max()
    outer = np.abs(
        np.asarray(score(_probe_points(gmm, "x", nodes, span), _probe_points(gmm, "y", nodes, span)), dtype=float)
    ).max()
    return float(outer), bool(outer <= near * (1 + 1e-6))


def approximation_bound_constant(alpha: float, score_bound: float, tau: float) -> float:
    """C with L(s) − L* ≤ C · ‖s̃ − τ·P̃MI‖²/τ² ≤ C · Σ_{i>D} λ_i for s = s_D (h̃: h centred in y under P_Y):

        C = τ α (e^a − 1 − a)/a²,   a = 2B/τ   (→ τα/2 as B → 0).

    Derivation. Along s_t = s* + t(s − s*), L''(t) = (1/τ) E_x Var_{q_t(·|x)} h, h = s − s*, with the tilted law
    q_t(y|x) ∝ e^{s_t(x,y)/τ} p(y); L'(0) = 0 because q_0 = p(·|x). With r ≤ α and |s| ≤ B, q_t/p ≤ α e^{2tB/τ}
    (numerator ≤ α^{1−t} e^{tB/τ}; Z_t ≥ e^{−tB/τ} E r^{1−t} ≥ e^{−tB/τ} α^{−t}), so Var_{q_t} h ≤ α e^{2tB/τ}
    E_{P_Y} h̃² and L(s) − L* = ∫_0^1 (1 − t) L''(t) dt ≤ (α/τ) ‖h̃‖² ∫_0^1 (1 − t) e^{2tB/τ} dt; for s_D,
    ‖h̃‖² ≤ ‖h‖² = τ² Σ_{i>D} λ_i. The paper's constant is not in the summary; this one is ours."""
    alpha, bound, tau = float(alpha), float(score_bound), float(tau)
    if not (np.isfinite(tau) and tau > 0):
        raise ValueError(f"temperature tau must be a finite number > 0, got {tau!r}")
    if not alpha >= 1:
        raise ValueError(f"alpha, a density-ratio bound, is at least 1 (E_{{P_Y}} r = 1), got {alpha!r}")
    if not bound >= 0:
        raise ValueError(f"score_bound, a sup-norm bound B, must be >= 0, got {score_bound!r}")
    a = 2.0 * bound / tau
    if not np.isfinite(a):
        return float("inf")
    factor = 0.5 + a / 6.0 + a * a / 24.0 if a < 1e-4 else np.expm1(a) / a / a - 1.0 / a
    return float(tau * alpha * factor)


def calibration_exponent(mu):
    """(μ+1)/(μ+2): the exponent of paper 2's accelerated calibration inequality under the density-ratio Tsybakov
    condition P(|r(x,y) − r(x,y')| ≤ t) ≤ c t^μ,

        E* − E(s) ≲ (L(s) − L*)^{(μ+1)/(μ+2)},

    from ½ (μ = 0, paper 1's Thm 3.4) toward 1 (μ → ∞)."""
    return (np.asarray(mu, dtype=float) + 1.0) / (np.asarray(mu, dtype=float) + 2.0)
