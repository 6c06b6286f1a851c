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

The exact CDF F(t) and its density, by deterministic quadrature, are in :mod:`crlrepro.theory.gap_cdf`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from crlrepro.theory.bounds import calibration_exponent
from crlrepro.theory.gap_cdf import check_quadrature, check_thresholds, gap_cdf, gap_cdf_and_density, gap_density, monotone_in_y
from crlrepro.theory.gmm import LatentClassGMM
from crlrepro.theory.numerics import loglog_slope

# calibration_exponent (the exponent the condition buys), gap_cdf and gap_density are re-exported from their modules
__all__ = [
    "admissible_exponent",
    "calibration_exponent",
    "density_ratio_gaps",
    "exact_gap_curve",
    "fit_noise_exponent",
    "gap_cdf",
    "gap_cdf_local_slope",
    "gap_density",
    "monte_carlo_agreement",
    "small_t_exponent",
    "tsybakov_study",
    "window_slope",
    "windows_matching",
]


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


def fit_noise_exponent(
    gaps: np.ndarray, window, points: int, bootstrap: int, rng: np.random.Generator, level: float = 0.95
) -> dict:
    """μ̂ over ``window`` (fit log F̂(t) ≈ log c + μ log t) with a percentile bootstrap interval, and
    the implied rate (μ+1)/(μ+2)."""
    t = _log_grid(window, points)
    n = gaps.size
    counts = np.searchsorted(np.sort(gaps), t, side="right")
    if counts[0] < 10:
        raise ValueError(f"only {counts[0]} of {n} gaps fall below t_min = {t[0]:g}: raise tsybakov.samples or t_min")
    mu = float(loglog_slope(t, counts / n))
    bins = np.diff(np.concatenate([[0], counts, [n]]))  # gaps in (t_{j-1}, t_j], and above t_max
    resampled = rng.multinomial(n, bins / n, size=bootstrap)
    cdf = np.cumsum(resampled[:, :-1], axis=1) / n
    valid = (cdf > 0).all(axis=1)
    mus = loglog_slope(t, cdf[valid])
    lo, hi = np.quantile(mus, [(1 - level) / 2, (1 + level) / 2])
    return {
        "t_min": float(t[0]),
        "t_max": float(t[-1]),
        "mu_hat": mu,
        "log_c": _intercept(t, counts / n, mu),
        "ci_low": float(lo),
        "ci_high": float(hi),
        "rate": float(calibration_exponent(mu)),
        "rate_low": float(calibration_exponent(lo)),
        "rate_high": float(calibration_exponent(hi)),
        "gaps_below_t_min": int(counts[0]),
    }


def tsybakov_study(
    gmm: LatentClassGMM, samples: int, seed: int, window, other_windows, points: int, bootstrap: int, cdf_points: int = 60
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A4 on one Monte-Carlo sample: the table (one row per fit window, the configured ``window``
    first) and the empirical CDF F̂(t) on a log grid spanning all windows (for the figure)."""
    rng = np.random.default_rng(seed)
    gaps = density_ratio_gaps(gmm, samples, rng)
    windows = [window, *other_windows]
    table = pd.DataFrame([fit_noise_exponent(gaps, w, points, bootstrap, rng) for w in windows])
    t = np.geomspace(min(w[0] for w in windows), max(w[1] for w in windows), cdf_points)
    cdf = pd.DataFrame({"t": t, "cdf": np.searchsorted(np.sort(gaps), t, side="right") / gaps.size})
    return table, cdf


# == the exact CDF of the gap by piecewise Gauss–Legendre quadrature ==========================================

_SLOPE_STEP = 0.05  # step in log t of the five-point difference of gap_cdf_local_slope


def _slope_method(gmm: LatentClassGMM, method: str) -> str:
    """The local-slope method to use: ``auto`` is ``density`` where r(x, ·) is monotone for every x (gap_cdf.monotone_in_y:
    F' is exact there, and one quadrature gives F and F'), else ``difference``."""
    if method not in ("auto", "difference", "density"):
        raise ValueError(f"method must be 'auto', 'difference' or 'density', got {method!r}")
    if method == "auto":
        return "density" if monotone_in_y(gmm) else "difference"
    return method


def gap_cdf_local_slope(
    gmm: LatentClassGMM, t, *, method: str = "auto", step: float = _SLOPE_STEP, nodes: int = 16, mass_nodes: int = 8
) -> np.ndarray:
    """The local exponent d log F / d log t at each t.

    method="difference": the five-point difference in u = log t with step h,

        d log F/du ≈ [−L(u+2h) + 8 L(u+h) − 8 L(u−h) + L(u−2h)] / (12 h),   L = log F (gap_cdf),

    truncation error h⁴ L⁽⁵⁾/30 and rounding ≈ 1.5 ε_F / h (ε_F the relative error of F): with h = 0.05 about
    1e-8 on paper 2's mixture and ~1e-4 where F is good to ~1e-6 (module docstring). method="density": t F'(t)/F(t)
    with F' from gap_density (exact to ~1e-8 on paper 2's mixture, from one quadrature instead of four; unreliable at
    small t where r(x, ·) has critical points). method="auto" (default): the density where r(x, ·) has none for any
    x (gap_cdf.monotone_in_y), else the difference."""
    arr = check_thresholds(t)
    nodes, mass_nodes = check_quadrature(nodes, mass_nodes)
    method = _slope_method(gmm, method)
    if method == "density":
        cdf, density = gap_cdf_and_density(gmm, arr, nodes=nodes, mass_nodes=mass_nodes)
        return (arr * density / cdf).reshape(np.shape(t))
    if not (np.isfinite(step) and 0 < step <= 1):
        raise ValueError(f"step must be in (0, 1] (natural log units), got {step!r}")
    shifts = np.array([2.0, 1.0, -1.0, -2.0]) * step
    log_cdf = np.log(gap_cdf(gmm, (arr[None, :] * np.exp(shifts)[:, None]).ravel(), nodes=nodes, mass_nodes=mass_nodes))
    log_cdf = log_cdf.reshape(4, arr.size)
    slope = (-log_cdf[0] + 8.0 * log_cdf[1] - 8.0 * log_cdf[2] + log_cdf[3]) / (12.0 * step)
    return slope.reshape(np.shape(t))


def window_slope(gmm: LatentClassGMM, window, points: int, *, nodes: int = 16, mass_nodes: int = 8) -> float:
    """The least-squares slope of log F(t) against log t at ``points`` log-spaced t in window = (t_min, t_max), F
    exact (gap_cdf): the estimator of fit_noise_exponent without sampling noise,

        μ(window) = Σ_k (u_k − ū)(v_k − v̄) / Σ_k (u_k − ū)²,   u_k = log t_k, v_k = log F(t_k)."""
    if int(points) != points or points < 2:
        raise ValueError(f"points must be an integer >= 2, got {points!r}")
    t = _log_grid(window, int(points))
    return float(loglog_slope(t, gap_cdf(gmm, t, nodes=nodes, mass_nodes=mass_nodes)))


def windows_matching(
    gmm: LatentClassGMM,
    target: float,
    tolerance: float,
    t_min,
    widths,
    *,
    points_per_decade: int = 8,
    t_min_per_decade: int = 4,
    nodes: int = 16,
    mass_nodes: int = 8,
    known: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """window_slope over the windows [t_min, t_min·10^w]: one row per (t_min, w) with t_min, t_max, width (decades),
    points, slope and matches = |slope − target| ≤ tolerance.

    t_min: the window starts, either explicit values (list or array) or a range given as a 2-tuple (lo, hi), expanded
    to t_min_per_decade log-spaced values per decade from lo to hi. widths: window widths in decades. A window of w
    decades is fitted on round(points_per_decade·w) + 1 log-spaced points (so with t_min on a grid of
    1/t_min_per_decade decades and points_per_decade a multiple of t_min_per_decade, the windows share their
    points); F is computed once on the union of all points. ``known``: F already computed by the same rule (columns t
    and cdf, e.g. exact_gap_curve's with the same nodes): a window point within 1e-9 decades of one of its t takes
    that value instead of a new quadrature."""
    if not (np.isfinite(target) and np.isfinite(tolerance) and tolerance >= 0):
        raise ValueError(f"target must be finite and tolerance finite and >= 0, got {target!r}, {tolerance!r}")
    if isinstance(t_min, tuple):
        if len(t_min) != 2 or not 0 < t_min[0] <= t_min[1]:
            raise ValueError(f"a t_min range must be (lo, hi) with 0 < lo <= hi, got {t_min!r}")
        decades = np.log10(t_min[1] / t_min[0])
        starts = t_min[0] * 10.0 ** (np.arange(int(np.floor(decades * t_min_per_decade + 1e-9)) + 1) / t_min_per_decade)
    else:
        starts = check_thresholds(t_min)
    widths = np.atleast_1d(np.asarray(widths, dtype=float))
    if widths.size == 0 or not np.all(np.isfinite(widths) & (widths > 0)):
        raise ValueError(f"widths must be positive decades, got {widths.tolist()}")
    if int(points_per_decade) != points_per_decade or points_per_decade < 1:
        raise ValueError(f"points_per_decade must be a positive integer, got {points_per_decade!r}")
    windows = [
        (s, w, np.geomspace(s, s * 10.0**w, max(2, int(round(points_per_decade * w)) + 1))) for s in starts for w in widths
    ]
    keys = np.concatenate([np.round(np.log10(grid) * 1e9) for _, _, grid in windows]).astype(np.int64)
    unique, first = np.unique(keys, return_index=True)
    values = np.concatenate([grid for _, _, grid in windows])[first]
    cdf = {}
    if known is not None:
        rule = known.attrs.get("quadrature", {"nodes": nodes, "mass_nodes": mass_nodes})
        if rule != {"nodes": nodes, "mass_nodes": mass_nodes}:
            raise ValueError(
                f"known values come from another quadrature rule ({rule}) than this scan's "
                f"(nodes={nodes}, mass_nodes={mass_nodes})"
            )
        known_t, known_cdf = check_thresholds(known["t"].to_numpy()), known["cdf"].to_numpy(dtype=float)
        cdf = dict(zip(np.round(np.log10(known_t) * 1e9).astype(np.int64).tolist(), known_cdf.tolist(), strict=True))
    missing = np.array([key not in cdf for key in unique.tolist()], dtype=bool)
    if missing.any():
        cdf |= dict(
            zip(unique[missing].tolist(), gap_cdf(gmm, values[missing], nodes=nodes, mass_nodes=mass_nodes).tolist(), strict=True)
        )
    rows = []
    for s, w, grid in windows:
        f = np.array([cdf[k] for k in np.round(np.log10(grid) * 1e9).astype(np.int64).tolist()])
        slope = float(loglog_slope(grid, f))
        rows.append(
            {
                "t_min": float(s),
                "t_max": float(grid[-1]),
                "width": float(w),
                "points": grid.size,
                "slope": slope,
                "matches": bool(abs(slope - target) <= tolerance),
            }
        )
    return pd.DataFrame(rows)


# == the exact curve, its check against Monte Carlo, and the small-t exponent ====================================


def exact_gap_curve(
    gmm: LatentClassGMM,
    t_min: float,
    t_max: float,
    points_per_decade: int,
    *,
    method: str = "auto",
    step: float = _SLOPE_STEP,
    nodes: int = 16,
    mass_nodes: int = 8,
) -> pd.DataFrame:
    """F(t) (gap_cdf) at points_per_decade log-spaced t per decade from t_min to t_max, with the local exponent

        μ(t) = d log F / d log t   (gap_cdf_local_slope: t F'/F where r(x, ·) is monotone for every x, else the
                                    five-point difference of log F with step ``step`` in log t; ``method`` as there),

    all from one call of the quadrature (the curve's points and, for the difference, their four shifts share its x
    structure). The method used is in the result's attrs["slope_method"]."""
    if not 0 < t_min < t_max:
        raise ValueError(f"an exact curve needs 0 < t_min < t_max, got [{t_min!r}, {t_max!r}]")
    if int(points_per_decade) != points_per_decade or points_per_decade < 1:
        raise ValueError(f"points_per_decade must be a positive integer, got {points_per_decade!r}")
    if not (np.isfinite(step) and 0 < step <= 1):
        raise ValueError(f"step must be in (0, 1] (natural log units), got {step!r}")
    method = _slope_method(gmm, method)
    count = int(round(np.log10(t_max / t_min) * points_per_decade)) + 1
    t = np.geomspace(t_min, t_max, max(count, 2))
    if method == "density":
        cdf, density = gap_cdf_and_density(gmm, t, nodes=nodes, mass_nodes=mass_nodes)
        slope = t * density / cdf
    else:
        shifts = np.array([0.0, 2.0, 1.0, -1.0, -2.0]) * step
        values = gap_cdf(gmm, (t[None, :] * np.exp(shifts)[:, None]).ravel(), nodes=nodes, mass_nodes=mass_nodes)
        log_f = np.log(values.reshape(5, t.size))
        cdf = np.exp(log_f[0])
        slope = (-log_f[1] + 8.0 * log_f[2] - 8.0 * log_f[3] + log_f[4]) / (12.0 * step)
    curve = pd.DataFrame({"t": t, "cdf": cdf, "local_slope": slope})
    curve.attrs["quadrature"] = {"nodes": nodes, "mass_nodes": mass_nodes}  # what windows_matching(known=) checks
    curve.attrs["slope_method"] = method
    return curve


def admissible_exponent(t, local_slope, decades: float = 2.0) -> dict:
    """The sharpest exponent of the condition, the small-t limit of the local slope,

        μ₀ = lim_{t→0} μ(t),   μ(t) = d log F / d log t:

    F(t) ≤ c t^μ for all t > 0 holds for every μ < μ₀ (F ≤ 1 bounds it away from 0, and near 0 the ratio F/t^μ
    stays bounded) and fails for every μ > μ₀ (F/t^μ grows without bound as t → 0); at μ = μ₀ it depends on the
    slowly varying factor (F ~ c t log(1/t) has μ₀ = 1 and fails at 1). A curve that stops at t_min > 0 does not
    reach the limit: μ(t) of F = c t^μ₀ L(t), L slowly varying, approaches μ₀ like 1/log(1/t) (μ(t) = 1 − 1/log(1/t)
    for F = t log(1/t)), so μ(t) is extrapolated to u = 1/log(1/t) → 0 by least-squares polynomials in u over the
    curve's smallest ``decades`` decades (t < 1). The estimate is the quadratic over those decades; the band is the
    range of the linear and quadratic fits over the smallest one decade and over ``decades`` (a fit needs two points
    more than its degree). Returns {"limit", "low", "high", "fits", "t_max"} (NaN when no fit has its points)."""
    t = np.asarray(t, dtype=float)
    slope = np.asarray(local_slope, dtype=float)
    if t.shape != slope.shape or t.ndim != 1:
        raise ValueError(f"t and local_slope must be 1-D of one length, got {t.shape} and {slope.shape}")
    if not (np.isfinite(decades) and decades > 0):
        raise ValueError(f"decades must be positive, got {decades!r}")
    keep = np.isfinite(t) & np.isfinite(slope) & (t > 0) & (t < 1)
    t, slope = t[keep], slope[keep]
    if t.size == 0:
        return {"limit": np.nan, "low": np.nan, "high": np.nan, "fits": 0, "t_max": np.nan}
    u = 1.0 / np.log(1.0 / t)
    estimates = {}
    for span in sorted({min(1.0, decades), decades}):
        inside = t <= t.min() * 10.0**span * (1 + 1e-9)
        for degree in (1, 2):
            if inside.sum() >= degree + 2:
                estimates[(span, degree)] = float(np.polynomial.polynomial.polyfit(u[inside], slope[inside], degree)[0])
    if not estimates:
        return {"limit": np.nan, "low": np.nan, "high": np.nan, "fits": 0, "t_max": np.nan}
    best = estimates.get((decades, 2), estimates[max(estimates)])
    values = list(estimates.values())
    return {
        "limit": best,
        "low": float(min(values)),
        "high": float(max(values)),
        "fits": len(values),
        "t_max": float(t.min() * 10.0**decades),
    }


def monte_carlo_agreement(exact: np.ndarray, empirical: np.ndarray, samples: int) -> np.ndarray:
    """z = (F̂(t) − F(t)) / √(F(t)(1 − F(t))/n) per threshold: the empirical CDF of n iid gaps against the exact F
    (binomial standard error; |z| ≲ 3 where the quadrature and the sampler agree)."""
    exact, empirical = np.asarray(exact, dtype=float), np.asarray(empirical, dtype=float)
    if exact.shape != empirical.shape:
        raise ValueError(f"exact and empirical CDFs need one shape, got {exact.shape} and {empirical.shape}")
    if int(samples) != samples or samples < 1:
        raise ValueError(f"samples must be a positive integer, got {samples!r}")
    with np.errstate(divide="ignore", invalid="ignore"):
        return (empirical - exact) / np.sqrt(exact * (1.0 - exact) / samples)


def small_t_exponent(gmm: LatentClassGMM, t_small: float, decades: float = 1.0, *, nodes: int = 16, mass_nodes: int = 8) -> dict:
    """The exponent of the condition at small t: the secant slope of the exact log F over [t_small, t_small·10^decades],

        μ_small = (log F(t₂) − log F(t₁)) / (log t₂ − log t₁),

    and the calibration exponent (μ_small+1)/(μ_small+2) it gives. The condition P(gap ≤ t) ≤ c t^μ for all t > 0
    holds exactly for the μ below liminf_{t→0} log F(t)/log t; where F ≈ c t log(1/t) (a zero of ‖d(x)‖, module
    docstring) the slope creeps up to 1 as 1 − 1/log(1/t), so μ_small is a lower estimate of that limit."""
    if not (np.isfinite(t_small) and t_small > 0 and np.isfinite(decades) and decades > 0):
        raise ValueError(f"t_small and decades must be positive, got {t_small!r}, {decades!r}")
    t = np.array([t_small, t_small * 10.0**decades])
    f = gap_cdf(gmm, t, nodes=nodes, mass_nodes=mass_nodes)
    mu = float(np.log(f[1] / f[0]) / np.log(t[1] / t[0]))
    return {
        "t_min": float(t[0]),
        "t_max": float(t[1]),
        "cdf_t_min": float(f[0]),
        "cdf_t_max": float(f[1]),
        "mu_small": mu,
        "rate": float(calibration_exponent(mu)),
    }
