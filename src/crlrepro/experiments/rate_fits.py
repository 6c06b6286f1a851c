"""Rates with a floor (paper 1, Thm 4.5): the trained model's gap |L(ŵ) − L̂_S(ŵ)| is bounded by an inner term in m
and an outer term in n, O(1/m + 1/√n) under SCRL and O(1/√m + 1/√n) under SSCRL. Along a sweep of m at fixed n the
outer term is a constant c, so the gap is read as

    |gap|(x) ≈ c + a·x^(−r),     c, a ≥ 0,

and the rate r, not the slope of log |gap| on log x (which the floor c bends toward 0), is compared with the bound's
exponent. The fit minimises the squared log residuals of the seed means (the gap spans orders of magnitude), from
several starts, on the sweep's asymptotic window (the longest tail the form fits, by a χ² test stated in advance);
its interval resamples the seeds (one draw of seeds for every point, so a seed's runs stay together).
"""

from __future__ import annotations

import numpy as np

__all__ = ["FIRST_POINT", "GAP_RATES_NOT_APPLICABLE", "floor_power_fit", "floor_rate", "gap_rate_table"]

# Where each sweep's fit starts: SSCRL at m = 2, since at m = 1 every anchor shares one negative (the paper's
# in-batch pool of one), a different objective rather than a point of the rate.
FIRST_POINT = {("sscrl", "m"): 2}
_MAX_RATE = 8.0  # the fit's upper bound on r: a curve that falls faster than x^(−8) over the sweep has hit its floor
# Empty cells mean "not applicable": the exponent of a sweep the theory gives none for; the fit of a sweep with fewer
# than 4 points or 1 seed (3 parameters and a goodness of fit need more).
GAP_RATES_NOT_APPLICABLE = (
    "predicted",
    "floor",
    "amplitude",
    "rate",
    "rms_log",
    "rate_low",
    "rate_high",
    "chi2",
    "fit_p",
    "window_from",
)


def floor_power_fit(x, y) -> dict:
    """Least squares of log y on log(c + a·x^(−r)) over c, a ≥ 0 and 0 ≤ r ≤ 8, from starts r = ½, 1, 2 (the best
    kept). Returns c (floor), a (amplitude), r (rate) and rms_log, the root mean square log residual (0.1: the fit
    is off by about 10 % at a typical point)."""
    from scipy.optimize import least_squares

    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if x.size < 4:
        raise ValueError(f"a rate with a floor has 3 parameters: it needs at least 4 points, got {x.size}")
    if np.any(y <= 0) or np.any(x <= 0):
        raise ValueError("a rate with a floor is fitted in logs: x and y must be > 0")
    log_y = np.log(y)

    def residuals(theta):
        c, a, r = theta
        return np.log(np.maximum(c + a * x ** (-r), np.finfo(float).tiny)) - log_y

    best = None
    for r0 in (0.5, 1.0, 2.0):
        c0 = 0.5 * float(y.min())
        a0 = max(float(y[np.argmin(x)]) - c0, float(y.min())) * float(x.min()) ** r0
        fit = least_squares(residuals, [c0, a0, r0], bounds=([0.0, 0.0, 0.0], [np.inf, np.inf, _MAX_RATE]), x_scale="jac")
        if best is None or fit.cost < best.cost:
            best = fit
    c, a, r = (float(v) for v in best.x)
    return {"floor": c, "amplitude": a, "rate": r, "rms_log": float(np.sqrt(np.mean(best.fun**2)))}


def _misfit(xs, values, fit) -> tuple[float, float]:
    """χ² of the fit's log residuals in units of each point's standard error of log mean (seed spread / (mean √seeds)),
    and its p-value on points − 3 degrees of freedom."""
    from scipy import stats

    mean = values.mean(axis=0)
    se = values.std(axis=0, ddof=1) / (mean * np.sqrt(values.shape[0]))
    model = fit["floor"] + fit["amplitude"] * xs ** (-fit["rate"])
    chi2 = float(np.sum(((np.log(model) - np.log(mean)) / np.maximum(se, np.finfo(float).tiny)) ** 2))
    return chi2, float(stats.chi2.sf(chi2, xs.size - 3))


def floor_rate(
    runs, axis: str, value: str, bootstrap: int, rng: np.random.Generator, level: float = 0.95, fit_level: float = 0.05
) -> dict:
    """:func:`floor_power_fit` of mean_seeds |value| against ``axis`` (runs: one row per point and seed) on the sweep's
    asymptotic window, with a percentile interval for r from ``bootstrap`` resamplings of the seeds (the same seeds at
    every point).

    The window, by a rule fixed in advance: the longest tail of the sweep (its largest values of ``axis``, at least 4
    points) on which the form passes a χ² goodness-of-fit test at ``fit_level`` (log residuals against each point's
    seed standard error, points − 3 degrees of freedom); the smallest values are dropped one at a time. Where no tail
    passes, ``fits`` is False and the columns describe the 4-point tail (the sweep is pre-asymptotic throughout)."""
    pivot = runs.pivot_table(index="seed", columns=axis, values=value, aggfunc="first").abs()
    if pivot.isna().any().any():
        raise ValueError(f"every seed needs a run at every {axis}: {pivot.isna().sum().sum()} missing")
    if pivot.shape[0] < 2:
        raise ValueError(f"a goodness of fit needs the seeds' spread: at least 2 seeds, got {pivot.shape[0]}")
    all_x, all_values = pivot.columns.to_numpy(dtype=float), pivot.to_numpy(dtype=float)
    for start in range(0, max(all_x.size - 3, 1)):
        xs, values = all_x[start:], all_values[:, start:]
        point = floor_power_fit(xs, values.mean(axis=0))
        chi2, p = _misfit(xs, values, point)
        if p >= fit_level:
            break
    draws = rng.integers(0, values.shape[0], size=(int(bootstrap), values.shape[0]))
    rates = np.array([floor_power_fit(xs, values[d].mean(axis=0))["rate"] for d in draws])
    low, high = np.quantile(rates, [(1 - level) / 2, (1 + level) / 2])
    return {
        **point,
        "rate_low": float(low),
        "rate_high": float(high),
        "chi2": chi2,
        "fit_p": p,
        "fits": bool(p >= fit_level),
        "window_from": int(xs[0]),
        "points": int(xs.size),
        "seeds": int(values.shape[0]),
    }


def gap_rate_table(table, predicted: dict, bootstrap: int, seed: int):
    """Per regime and sweep of the scaling table (:func:`crlrepro.experiments.generalization.sweep_rows`): the rate of
    the gap with its floor (:func:`floor_rate`) from the sweep's first point (:data:`FIRST_POINT`), beside the bound's
    exponent ``predicted`` {"m": {regime: exponent}, "n": {regime: exponent}} (a positive rate: 1 for 1/m)."""
    import pandas as pd

    rng = np.random.default_rng(seed)
    rows = []
    for (regime, sweep), runs in table.groupby(["regime", "sweep"], sort=True):
        first = FIRST_POINT.get((regime, sweep), 0)
        used = runs[runs[sweep] >= first]
        points, seeds = int(used[sweep].nunique()), int(used["seed"].nunique())
        if points >= 4 and seeds >= 2:
            fit = floor_rate(used, sweep, "gap", bootstrap, rng)
        else:  # too short a sweep (or one seed): no rate with a floor can be read; the claim says so
            fit = dict.fromkeys(GAP_RATES_NOT_APPLICABLE[1:], np.nan) | {"fits": False, "points": points, "seeds": seeds}
        rows.append(
            {
                "regime": regime,
                "axis": sweep,
                "fit_from": int(used[sweep].min()),
                "fit_to": int(used[sweep].max()),
                **fit,
                "predicted": float(predicted.get(sweep, {}).get(regime, np.nan)),
            }
        )
    return pd.DataFrame(rows)
