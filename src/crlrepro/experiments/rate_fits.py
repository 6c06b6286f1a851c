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

from crlrepro.theory.levels import family_level

__all__ = [
    "auc_deficit_rate_table",
    "MIN_WINDOW",
    "trained_from",
    "TRAINED_AUC_SHARE",
    "TRAINED_SEED_SHARE",
    "AUC_RATES_NOT_APPLICABLE",
    "FIRST_POINT",
    "GAP_RATES_NOT_APPLICABLE",
    "floor_power_fit",
    "floor_rate",
    "gap_rate_table",
    "rate_difference",
    "rate_difference_table",
    "RATE_DIFFERENCES_NOT_APPLICABLE",
    "SWEEP_AXIS",
]

# Where each sweep's fit starts: SSCRL at m = 2, since at m = 1 every anchor shares one negative (the paper's
# in-batch pool of one), a different objective rather than a point of the rate.
FIRST_POINT = {("sscrl", "m"): 2}
_MAX_RATE = 8.0  # the fit's upper bound on r: a curve that falls faster than x^(−8) over the sweep has hit its floor
# The shortest window a rate with a floor is read on: 3 parameters, and a χ² on at least 3 degrees of freedom. On 4
# points (1 degree of freedom) the test passed nearly any smooth fall: an exponential, a flat curve of untrained models,
# a training transition (the recipe's SSCRL m sweep, where the share of seeds that trained rose from 1/7 to all).
MIN_WINDOW = 6
# A point of a sweep is read only where its models trained: at least TRAINED_SEED_SHARE of its seeds reach an AUC of
# ½ + TRAINED_AUC_SHARE·(E* − ½) (most of the way from chance to the Bayes AUC). Where some seeds are stuck near chance
# the seed mean of the gap tracks the share that trained, not the rate the bound describes.
TRAINED_SEED_SHARE = 0.9
TRAINED_AUC_SHARE = 0.8
# Empty cells mean "not applicable": the exponent of a sweep the theory gives none for; the fit of a sweep with fewer
# than MIN_WINDOW (trained) points or 1 seed (3 parameters and a goodness of fit need more); where the sweep trained.
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
    "trained_from",
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

    log_x, tiny = np.log(x), np.finfo(float).tiny

    def residuals(theta):
        c, a, r = theta
        return np.log(np.maximum(c + a * np.exp(-r * log_x), tiny)) - log_y

    def jacobian(theta):
        """∂/∂(c, a, r) of log(c + a·x^(−r)) = (1, x^(−r), −a·x^(−r)·log x) / (c + a·x^(−r)); 0 where clamped."""
        c, a, r = theta
        power = np.exp(-r * log_x)
        model = c + a * power
        inverse = np.where(model > tiny, 1.0 / np.maximum(model, tiny), 0.0)
        return np.column_stack([inverse, power * inverse, -a * power * log_x * inverse])

    best = None
    for r0 in (0.5, 1.0, 2.0):
        c0 = 0.5 * float(y.min())
        a0 = max(float(y[np.argmin(x)]) - c0, float(y.min())) * float(x.min()) ** r0
        fit = least_squares(
            residuals, [c0, a0, r0], jac=jacobian, bounds=([0.0, 0.0, 0.0], [np.inf, np.inf, _MAX_RATE]), x_scale="jac"
        )
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


def _window(all_x: np.ndarray, all_values: np.ndarray, fit_level: float):
    """The window rule of :func:`floor_rate` on a sweep (``all_x`` its points, ``all_values`` seeds × points): the
    window's points, the seeds' values on it, the fit of their means, its χ² and p-value."""
    for start in range(0, max(all_x.size - MIN_WINDOW + 1, 1)):
        xs, values = all_x[start:], all_values[:, start:]
        point = floor_power_fit(xs, values.mean(axis=0))
        chi2, p = _misfit(xs, values, point)
        if p >= fit_level:
            break
    return xs, values, point, chi2, p


def _seed_table(runs, axis: str, value: str):
    """|value| with one row per seed and one column per value of ``axis``, every cell filled."""
    pivot = runs.pivot_table(index="seed", columns=axis, values=value, aggfunc="first").abs()
    if pivot.isna().any().any():
        raise ValueError(f"every seed needs a run at every {axis}: {pivot.isna().sum().sum()} missing")
    if pivot.shape[0] < 2:
        raise ValueError(f"a goodness of fit needs the seeds' spread: at least 2 seeds, got {pivot.shape[0]}")
    return pivot


def floor_rate(
    runs, axis: str, value: str, bootstrap: int, rng: np.random.Generator, level: float = 0.95, fit_level: float = 0.05
) -> dict:
    """:func:`floor_power_fit` of mean_seeds |value| against ``axis`` (runs: one row per point and seed) on the sweep's
    asymptotic window, with a percentile interval for r from ``bootstrap`` resamplings of the seeds (the same seeds at
    every point).

    The window, by a rule fixed in advance: the longest tail of the sweep (its largest values of ``axis``, at least
    :data:`MIN_WINDOW` points) on which the form passes a χ² goodness-of-fit test at ``fit_level`` (log residuals
    against each point's seed standard error, points − 3 degrees of freedom); the smallest values are dropped one at a
    time. Where no tail passes, ``fits`` is False and the columns describe the shortest tail (the sweep is
    pre-asymptotic throughout). The interval resamples the whole procedure: each resampling of the seeds chooses its
    own window by the same rule, so the interval holds the window's uncertainty as well as the fit's."""
    pivot = _seed_table(runs, axis, value)
    all_x, all_values = pivot.columns.to_numpy(dtype=float), pivot.to_numpy(dtype=float)
    xs, values, point, chi2, p = _window(all_x, all_values, fit_level)
    draws = rng.integers(0, values.shape[0], size=(int(bootstrap), values.shape[0]))
    rates = np.array([_window(all_x, all_values[d], fit_level)[2]["rate"] for d in draws])
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


def rate_difference(
    runs_a, runs_b, axis: str, value: str, bootstrap: int, rng: np.random.Generator, level: float = 0.95, fit_level: float = 0.05
) -> dict:
    """The difference r_a − r_b of two sweeps' rates with their floors (:func:`floor_rate`, each on its own asymptotic
    window), with a percentile interval from ``bootstrap`` resamplings of the seeds drawn once for both sweeps (paired
    by seed: the two sweeps must hold the same seeds), so what the seeds share cancels in the difference; each
    resampling chooses both windows anew by the rule."""
    pivot_a, pivot_b = _seed_table(runs_a, axis, value), _seed_table(runs_b, axis, value)
    if list(pivot_a.index) != list(pivot_b.index):
        raise ValueError(f"a difference paired by seed needs the same seeds: {list(pivot_a.index)} vs {list(pivot_b.index)}")
    x_a, all_a = pivot_a.columns.to_numpy(dtype=float), pivot_a.to_numpy(dtype=float)
    x_b, all_b = pivot_b.columns.to_numpy(dtype=float), pivot_b.to_numpy(dtype=float)
    xs_a, values_a, point_a, _, p_a = _window(x_a, all_a, fit_level)
    xs_b, values_b, point_b, _, p_b = _window(x_b, all_b, fit_level)
    draws = rng.integers(0, values_a.shape[0], size=(int(bootstrap), values_a.shape[0]))
    differences = np.array(
        [_window(x_a, all_a[d], fit_level)[2]["rate"] - _window(x_b, all_b[d], fit_level)[2]["rate"] for d in draws]
    )
    low, high = np.quantile(differences, [(1 - level) / 2, (1 + level) / 2])
    return {
        "rate_a": point_a["rate"],
        "rate_b": point_b["rate"],
        "difference": point_a["rate"] - point_b["rate"],
        "low": float(low),
        "high": float(high),
        "fits_a": bool(p_a >= fit_level),
        "fits_b": bool(p_b >= fit_level),
        "fit_p_a": float(p_a),
        "fit_p_b": float(p_b),
        "window_a": f"{int(xs_a[0])}..{int(xs_a[-1])}",
        "window_b": f"{int(xs_b[0])}..{int(xs_b[-1])}",
        "seeds": int(values_a.shape[0]),
    }


def trained_from(runs, axis: str, e_star: float | None) -> float:
    """The smallest x of a sweep (runs: one row per point and seed, with its ``auc``) from which every point trained:
    at least :data:`TRAINED_SEED_SHARE` of its seeds reach AUC ≥ ½ + :data:`TRAINED_AUC_SHARE`·(E* − ½), E* =
    ``e_star`` the Bayes AUC. NaN where the sweep's last point did not train (no point is read); the sweep's first x
    where ``e_star`` is None (every point read)."""
    xs = sorted(runs[axis].unique())
    if e_star is None:
        return float(xs[0])
    threshold = 0.5 + TRAINED_AUC_SHARE * (float(e_star) - 0.5)
    share = runs.assign(trained=runs["auc"] >= threshold).groupby(axis)["trained"].mean()
    trained = [bool(share[x] >= TRAINED_SEED_SHARE) for x in xs]
    if not trained[-1]:
        return np.nan
    first = len(trained) - 1
    while first > 0 and trained[first - 1]:
        first -= 1
    return float(xs[first])


SWEEP_AXIS = {"m": "m", "n": "n", "n2": "n"}  # the axis each sweep varies; n2 is the n sweep at a second m


def gap_rate_table(table, predicted: dict, bootstrap: int, seed: int, e_star: float | None = None):
    """Per regime and sweep of the scaling table (:func:`crlrepro.experiments.generalization.sweep_rows`; sweeps m, n
    and n2, the n sweep at a second m): the rate of the gap with its floor (:func:`floor_rate`) from the sweep's first
    point (:data:`FIRST_POINT`), beside the bound's exponent ``predicted`` {"m": {regime: exponent}, "n": {regime:
    exponent}} (a positive rate: 1 for 1/m); ``fixed`` is the other coordinate's value. The m and n sweeps are fitted
    first, in (regime, sweep) order, so that a second n sweep leaves their resamplings as they were. The rows are
    one family (Thm 4.5's exponents, tested together): each interval at ``level`` = 1 − 0.05/rows (Bonferroni).
    With ``e_star`` (the Bayes AUC), only the sweep's points from :func:`trained_from` on are read (``trained_from``:
    NaN where its last point did not train)."""
    import pandas as pd

    rng = np.random.default_rng(seed)
    rows = []
    groups = sorted(table.groupby(["regime", "sweep"], sort=True), key=lambda group: group[0][1] == "n2")
    level = family_level(len(groups))
    for (regime, sweep), runs in groups:
        axis = SWEEP_AXIS[sweep]
        first = FIRST_POINT.get((regime, axis), 0)
        swept = runs[runs[axis] >= first]
        trained = trained_from(swept, axis, e_star)
        used = swept[swept[axis] >= trained] if np.isfinite(trained) else swept.iloc[:0]
        points, seeds = int(used[axis].nunique()), int(swept["seed"].nunique())
        if points >= MIN_WINDOW and seeds >= 2:
            fit = floor_rate(used, axis, "gap", bootstrap, rng, level=level)
        else:  # too short a sweep (or one seed): no rate with a floor can be read; the claim says so
            fit = dict.fromkeys(GAP_RATES_NOT_APPLICABLE[1:], np.nan) | {"fits": False, "points": points, "seeds": seeds}
        other = "n" if axis == "m" else "m"
        rows.append(
            {
                "regime": regime,
                "axis": axis,
                "sweep": sweep,
                "fixed": int(swept[other].iloc[0]),
                "fit_from": int(swept[axis].min()),
                "fit_to": int(swept[axis].max()),
                **fit,
                "trained_from": trained,
                "predicted": float(predicted.get(axis, {}).get(regime, np.nan)),
                "level": level,
            }
        )
    return pd.DataFrame(rows)


# Empty cells of the rate differences: a comparison whose sweeps are too short to fit (fewer than 4 points or 2 seeds).
RATE_DIFFERENCES_NOT_APPLICABLE = (
    "rate_a",
    "rate_b",
    "difference",
    "low",
    "high",
    "fit_p_a",
    "fit_p_b",
    "window_a",
    "window_b",
    "trained_from_a",
    "trained_from_b",
)


def rate_difference_table(table, bootstrap: int, seed: int, e_star: float | None = None):
    """Thm 4.5's two comparisons of rates, each a seed-paired :func:`rate_difference` of the gap's rates with floors:

    * ``outer_m_free`` (per regime): the rate in n at the n sweep's m minus the rate in n at the second m (sweep n2):
      the outer term does not depend on m, so the two agree;
    * ``inner_steeper``: SCRL's rate in m minus SSCRL's (the m sweep, each regime from its :data:`FIRST_POINT`):
      1/m against 1/√m.

    One row per comparison the table's sweeps allow; sweeps of fewer than :data:`MIN_WINDOW` points (with ``e_star``,
    trained points: :func:`trained_from`, ``trained_from_a``/``_b``) or 2 seeds give a row without numbers (``points``
    says why). The rows are one family: each interval at ``level`` = 1 − 0.05/rows (Bonferroni)."""
    import pandas as pd

    rng = np.random.default_rng(seed)
    comparisons = []
    regimes = sorted(table["regime"].unique())
    for regime in regimes:
        if {"n", "n2"} <= set(table.loc[table["regime"] == regime, "sweep"]):
            comparisons.append(("outer_m_free", regime, "n", (regime, "n"), (regime, "n2")))
    if {"scrl", "sscrl"} <= set(regimes) and "m" in set(table["sweep"]):
        comparisons.append(("inner_steeper", "scrl−sscrl", "m", ("scrl", "m"), ("sscrl", "m")))
    rows = []
    level = family_level(len(comparisons))
    for name, label, axis, (regime_a, sweep_a), (regime_b, sweep_b) in comparisons:
        used, swept, trained = [], [], []
        for regime, sweep in ((regime_a, sweep_a), (regime_b, sweep_b)):
            runs = table[(table["regime"] == regime) & (table["sweep"] == sweep)]
            runs = runs[runs[axis] >= FIRST_POINT.get((regime, axis), 0)]
            start = trained_from(runs, axis, e_star)
            swept.append(runs)
            trained.append(start)
            used.append(runs[runs[axis] >= start] if np.isfinite(start) else runs.iloc[:0])
        points = min(int(u[axis].nunique()) for u in used)
        seeds = min(int(u["seed"].nunique()) for u in swept)
        other = "n" if axis == "m" else "m"
        row = {
            "comparison": name,
            "regimes": label,
            "axis": axis,
            "fixed_a": int(swept[0][other].iloc[0]),
            "fixed_b": int(swept[1][other].iloc[0]),
            "points": points,
            "trained_from_a": trained[0],
            "trained_from_b": trained[1],
            "level": level,
        }
        if points >= MIN_WINDOW and seeds >= 2:
            row |= rate_difference(used[0], used[1], axis, "gap", bootstrap, rng, level=level)
        else:
            empty = {key: np.nan for key in RATE_DIFFERENCES_NOT_APPLICABLE if key not in row}
            row |= empty | {"fits_a": False, "fits_b": False, "seeds": seeds}
        rows.append(row)
    return pd.DataFrame(rows)


# Empty cells of the AUC-deficit rates: the fit of a sweep that saturates before three m are left (or is too short).
AUC_RATES_NOT_APPLICABLE = GAP_RATES_NOT_APPLICABLE + ("saturated_from",)


def auc_deficit_rate_table(
    table, e_star: float, predicted: dict, bootstrap: int, seed: int, level: float = 0.95, sweeps: dict | None = None
):
    """Sec. 5's marginal gains, per regime and sweep axis: "marginal gains follow the 1/m curve" on the m sweep and
    "gains shrink as 1/√n" on the n sweep. The retrieval AUC approaches its plateau A∞ ≤ E* (the Bayes AUC ``e_star``,
    which no score exceeds) as A∞ − a·x^(−r), i.e. the deficit E* − AUC = c + a·x^(−r) with the floor c = E* − A∞ ≥ 0,
    the form of :func:`floor_rate` (asymptotic window by the χ² rule, seed bootstrap), beside ``predicted``
    {axis: {regime: exponent}} (an axis it leaves out is not fitted). ``sweeps`` {axis: sweep}: the rows of ``table``
    each axis reads (default: the sweep named after the axis; the n rows may read a design of their own, "gain"), named
    in the output's ``sweep`` column.

    Where the curve has saturated the rate describes nothing: the deficit to the largest x, AUC(x_max) − AUC(x), must
    stand above the seeds' noise (its one-sided lower confidence bound at ``level`` above 0, paired by seed) at three
    or more x for the fit to be made; ``detectable`` counts them and ``saturated_from`` is the smallest x from which
    it no longer does (every larger x below x_max is undetectable too), and the fit uses the x below it only (4 or
    more). ``reaches_e_star``: some run's AUC reaches E* (to the quadrature's error), so there is no deficit to fit.
    Only the sweep's points from :func:`trained_from` on are read (``trained_from``; NaN: its last point did not
    train), and a fit needs :data:`MIN_WINDOW` of them.
    The rows (one per regime and axis in ``predicted``) are one family: each rate's interval at ``fit_level`` =
    1 − 0.05/rows (Bonferroni)."""
    import pandas as pd
    from scipy import stats

    rng = np.random.default_rng(seed)
    rows = []
    sweeps = {"m": "m", "n": "n"} | dict(sweeps or {})
    family = [
        (axis, regime)
        for axis in ("m", "n")
        for regime in sorted(table.loc[table["sweep"] == sweeps[axis], "regime"].unique())
        if regime in predicted.get(axis, {})
    ]
    fit_level = family_level(len(family))
    for axis in ("m", "n"):
        for regime, runs in table[table["sweep"] == sweeps[axis]].groupby("regime", sort=True):
            if regime not in predicted.get(axis, {}):
                continue
            runs = runs[runs[axis] >= FIRST_POINT.get((regime, axis), 0)].assign(deficit=lambda t: e_star - t["auc"])
            swept_xs, swept_seeds = sorted(int(x) for x in runs[axis].unique()), runs["seed"].nunique()
            fixed = int(runs["m" if axis == "n" else "n"].iloc[0])
            trained = trained_from(runs, axis, e_star)
            runs = runs[runs[axis] >= trained] if np.isfinite(trained) else runs.iloc[:0]
            pivot = runs.pivot_table(index="seed", columns=axis, values="auc", aggfunc="first")
            xs = [int(x) for x in pivot.columns]
            detectable, saturated_from = 0, np.nan
            if pivot.shape[0] >= 2 and len(xs) >= 2:
                deficits = pivot[xs[-1]].to_numpy()[:, None] - pivot[xs[:-1]].to_numpy()
                mean, sd = deficits.mean(axis=0), deficits.std(axis=0, ddof=1)
                lower = mean - stats.t.ppf(level, deficits.shape[0] - 1) * sd / np.sqrt(deficits.shape[0])
                seen = lower > 0
                detectable = int(seen.sum())
                tail = [x for i, x in enumerate(xs[:-1]) if not seen[i:].any()]
                saturated_from = float(tail[0]) if tail else np.nan  # NaN: the deficit is seen up to x_max
            approach = runs[runs[axis] < saturated_from] if np.isfinite(saturated_from) else runs  # not the plateau
            # the sweep's seeds (every trained point has them all), also where none of its points trained
            points, seeds = int(approach[axis].nunique()), int(swept_seeds)
            reaches = bool((approach["deficit"] <= 0).any())  # an AUC at E* (to quadrature): no deficit to take the log of
            if detectable >= 3 and points >= MIN_WINDOW and seeds >= 2 and not reaches:
                fit = floor_rate(approach, axis, "deficit", bootstrap, rng, level=fit_level)
            else:
                fit = dict.fromkeys(GAP_RATES_NOT_APPLICABLE[1:], np.nan) | {"fits": False, "points": points, "seeds": seeds}
            rows.append(
                {
                    "regime": regime,
                    "axis": axis,
                    "sweep": sweeps[axis],
                    "fixed": fixed,
                    "fit_from": swept_xs[0],
                    "fit_to": swept_xs[-1],
                    **fit,
                    "trained_from": trained,
                    "detectable": detectable,
                    "saturated_from": saturated_from,
                    "reaches_e_star": reaches,
                    "predicted": float(predicted[axis][regime]),
                    "level": fit_level,
                }
            )
    return pd.DataFrame(rows)
