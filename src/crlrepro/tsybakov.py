"""The density-ratio Tsybakov low-noise condition (paper 2, Sec. 5.3):

    P( |r(x, y) − r(x, y')| ≤ t ) ≤ c · t^μ   for all t > 0,     r(x, y) = p(y|x)/p(y) = e^{PMI(x,y)},

under which the calibration E* − E(s) ≲ (L(s) − L*)^{(μ+1)/(μ+2)} improves on the distribution-free
exponent ½. Here (x, y) ~ p and y' ~ P_Y independently: the positive candidate against a random
negative one, the same pairs as the retrieval AUC E(s) of paper 1, whose margin the condition
controls.

μ is estimated by a least-squares line through log F̂(t) against log t at points spaced evenly in
log t over a window [t_min, t_max], F̂ the empirical CDF of the gaps. The slope depends on the
window (it approaches the small-t exponent only as t_min → 0), so the window is always reported.
The bootstrap resamples the Monte-Carlo gaps; since F̂ at the grid points depends on the sample
only through the counts between consecutive points, a resample is a multinomial draw of those
counts (exactly the nonparametric bootstrap, at a fraction of the cost).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from crlrepro.gmm import LatentClassGMM
from crlrepro.metrics import loglog_slope


def calibration_exponent(mu):
    """(μ+1)/(μ+2): the exponent of the fast calibration inequality under the condition."""
    return (np.asarray(mu, dtype=float) + 1.0) / (np.asarray(mu, dtype=float) + 2.0)


def density_ratio_gaps(gmm: LatentClassGMM, samples: int, rng: np.random.Generator) -> np.ndarray:
    """|r(x, y) − r(x, y')| for ``samples`` draws (x, y) ~ p, y' ~ P_Y, r = e^{PMI}."""
    x, y, _ = gmm.sample(samples, rng)
    _, y_neg, _ = gmm.sample(samples, rng)
    return np.abs(np.exp(gmm.pmi_pairs(x, y)) - np.exp(gmm.pmi_pairs(x, y_neg)))


def _log_grid(window, points: int) -> np.ndarray:
    t_min, t_max = window
    if not 0 < t_min < t_max:
        raise ValueError(f"a fit window needs 0 < t_min < t_max, got {window}")
    return np.geomspace(t_min, t_max, points)


def _intercept(t: np.ndarray, cdf: np.ndarray, slope: float) -> float:
    return float(np.mean(np.log(cdf)) - slope * np.mean(np.log(t)))


def fit_noise_exponent(gaps: np.ndarray, window, points: int, bootstrap: int, rng: np.random.Generator, level: float = 0.95) -> dict:
    """μ̂ over ``window`` (fit log F̂(t) ≈ log c + μ log t) with a percentile bootstrap interval, and
    the implied rate (μ+1)/(μ+2)."""
    t = _log_grid(window, points)
    n = gaps.size
    counts = np.searchsorted(np.sort(gaps), t, side="right")
    if counts[0] < 10:
        raise ValueError(
            f"only {counts[0]} of {n} gaps fall below t_min = {t[0]:g}: raise tsybakov.samples or t_min"
        )
    mu = float(loglog_slope(t, counts / n))
    bins = np.diff(np.concatenate([[0], counts, [n]]))  # gaps in (t_{j-1}, t_j], and above t_max
    resampled = rng.multinomial(n, bins / n, size=bootstrap)
    cdf = np.cumsum(resampled[:, :-1], axis=1) / n
    valid = (cdf > 0).all(axis=1)
    mus = loglog_slope(t, cdf[valid])
    lo, hi = np.quantile(mus, [(1 - level) / 2, (1 + level) / 2])
    return {
        "t_min": float(t[0]), "t_max": float(t[-1]), "mu_hat": mu, "log_c": _intercept(t, counts / n, mu), "ci_low": float(lo), "ci_high": float(hi),
        "rate": float(calibration_exponent(mu)), "rate_low": float(calibration_exponent(lo)),
        "rate_high": float(calibration_exponent(hi)), "gaps_below_t_min": int(counts[0]),
    }


def tsybakov_study(gmm: LatentClassGMM, samples: int, seed: int, window, other_windows, points: int,
                   bootstrap: int, cdf_points: int = 60) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A4 on one Monte-Carlo sample: the table (one row per fit window, the configured ``window``
    first) and the empirical CDF F̂(t) on a log grid spanning all windows (for the figure)."""
    rng = np.random.default_rng(seed)
    gaps = density_ratio_gaps(gmm, samples, rng)
    windows = [window, *other_windows]
    table = pd.DataFrame([fit_noise_exponent(gaps, w, points, bootstrap, rng) for w in windows])
    t = np.geomspace(min(w[0] for w in windows), max(w[1] for w in windows), cdf_points)
    cdf = pd.DataFrame({"t": t, "cdf": np.searchsorted(np.sort(gaps), t, side="right") / gaps.size})
    return table, cdf
