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
    "MAX_RATE",
    "MIN_WINDOW",
    "trained_from",
    "TRAINED_AUC_SHARE",
    "TRAINED_SEED_SHARE",
    "AUC_RATES_NOT_APPLICABLE",
    "FIRST_POINT",
    "GAP_RATES_NOT_APPLICABLE",
    "floor_power_fit",
    "floor_power_fits",
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
MAX_RATE = 8.0  # the fit's upper bound on r: a curve that falls faster than x^(−8) over the sweep has hit its floor
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


_LOWER, _UPPER = np.array([0.0, 0.0, 0.0]), np.array([np.inf, np.inf, MAX_RATE])
_STARTS = (0.5, 1.0, 2.0)
# The default scale's 342 bootstrap fits took at most 212 iterations (median 19). Where the cost is flat to about 1e-6
# along r toward its bound 8 (one outlying first point fitted by a steep term), steps stay tiny and a fit can reach this
# cap short of the bound (scipy's solver also stopped short there, at other r); such a fit is then refitted with r held
# at the bound, and the lower of the two kept.
_MAX_ITERATIONS = 2000


def floor_power_fits(x, y) -> dict:
    """Least squares of log y on log(c + a·x^(−r)) over c, a ≥ 0 and 0 ≤ r ≤ 8 for each row of ``y`` (problems ×
    points, all against the points ``x``), from starts r = ½, 1, 2 (the best kept, the first of equals): arrays
    c (floor), a (amplitude), r (rate), rms_log (the root mean square log residual: 0.1, the fit is off by about 10 %
    at a typical point) and cost (half the sum of squared log residuals).

    Every problem and start is solved at once by a projected Levenberg–Marquardt iteration: the Gauss–Newton system
    (JᵀJ + λ·diag JᵀJ) δ = −Jᵀρ on the parameters not held at a bound, the step clipped into the box, kept where it
    lowers the cost (λ shrinks) and refused where not (λ grows), until the cost stops falling (relative change
    ≤ 1e−14) or the step vanishes. A fit still descending after 2000 iterations (a valley flat toward r = 8) is
    refitted over c and a with r held at 8, and that fit kept where its cost is lower. The amplitude is solved as
    A = a·x₀^(−r) with x₀ the points' geometric mean, which straightens the valley along which a and r trade off
    (a·x^(−r) = A·(x/x₀)^(−r)), and reported as a. Jacobian of log(c + A·u^(−r)), u = x/x₀:
    (1, u^(−r), −A·u^(−r)·log u) / (c + A·u^(−r)), 0 where the model is clamped at the
    smallest float."""
    x = np.asarray(x, dtype=float)
    y = np.atleast_2d(np.asarray(y, dtype=float))
    if x.size < 4:
        raise ValueError(f"a rate with a floor has 3 parameters: it needs at least 4 points, got {x.size}")
    if y.shape[1] != x.size:
        raise ValueError(f"{y.shape[1]} values per problem for {x.size} points")
    if not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
        raise ValueError("a rate with a floor needs finite x and y: got NaN or inf")
    if np.any(y <= 0) or np.any(x <= 0):
        raise ValueError("a rate with a floor is fitted in logs: x and y must be > 0")
    problems = y.shape[0]
    x0 = float(np.exp(np.mean(np.log(x))))
    log_u = np.log(x / x0)
    low = y.min(axis=1)
    theta = np.concatenate(  # start-major: rows [k·problems, (k+1)·problems) start from _STARTS[k]
        [
            np.column_stack(
                [0.5 * low, np.maximum(y[:, np.argmin(x)] - 0.5 * low, low) * (x.min() / x0) ** r0, np.full(problems, r0)]
            )
            for r0 in _STARTS
        ]
    )
    log_y = np.tile(np.log(y), (len(_STARTS), 1))

    theta, residual, cost, capped = _levenberg_marquardt(theta, log_y, log_u, hold_rate=False)
    if capped.any():  # stopped in a valley flat toward the bound: the fit with r held at the bound, where it is lower
        rows = np.flatnonzero(capped)
        probe = theta[rows].copy()
        probe[:, 2] = MAX_RATE
        probe, probe_residual, probe_cost, _ = _levenberg_marquardt(probe, log_y[rows], log_u, hold_rate=True)
        lower = probe_cost < cost[rows]
        theta[rows[lower]], residual[rows[lower]], cost[rows[lower]] = probe[lower], probe_residual[lower], probe_cost[lower]
    costs = cost.reshape(len(_STARTS), problems)
    best = np.argmin(costs, axis=0), np.arange(problems)
    fitted = theta.reshape(len(_STARTS), problems, 3)[best]
    rms = np.sqrt(np.mean(residual.reshape(len(_STARTS), problems, -1)[best] ** 2, axis=1))
    return {
        "floor": fitted[:, 0],
        "amplitude": fitted[:, 1] * x0 ** fitted[:, 2],
        "rate": fitted[:, 2],
        "rms_log": rms,
        "cost": costs[best],
    }


def _levenberg_marquardt(theta, log_y, log_u, hold_rate: bool):
    """The projected Levenberg–Marquardt iteration of :func:`floor_power_fits` on every row of ``theta`` (c, A, r)
    against its row of ``log_y``, with r held where ``hold_rate``: the rows' parameters, log residuals and costs, and
    which rows were still descending at the iteration cap."""
    tiny = np.finfo(float).tiny
    theta = theta.copy()

    def terms(th):
        power = np.exp(-th[:, 2:3] * log_u)
        return th[:, 0:1] + th[:, 1:2] * power, power

    def residuals(th, rows):
        residual = np.log(np.maximum(terms(th)[0], tiny)) - log_y[rows]
        return residual, 0.5 * np.sum(residual * residual, axis=1)

    residual, cost = residuals(theta, np.arange(theta.shape[0]))
    damping = np.full(theta.shape[0], 1e-3)
    active = np.ones(theta.shape[0], dtype=bool)
    identity = np.eye(3)
    for _ in range(_MAX_ITERATIONS):
        rows = np.flatnonzero(active)
        if rows.size == 0:
            break
        th = theta[rows]
        model, power = terms(th)
        inverse = np.where(model > tiny, 1.0 / np.maximum(model, tiny), 0.0)
        jac = np.stack([inverse, power * inverse, -th[:, 1:2] * power * log_u * inverse], axis=2)
        gradient = np.einsum("pni,pn->pi", jac, residual[rows])
        hessian = np.einsum("pni,pnj->pij", jac, jac)
        free = ~(((th <= _LOWER) & (gradient > 0)) | ((th >= _UPPER) & (gradient < 0)))
        if hold_rate:
            free[:, 2] = False
        scale = np.diagonal(hessian, axis1=1, axis2=2)
        scale = np.maximum(scale, 1e-12 * scale.max(axis=1, keepdims=True) + tiny)
        system = hessian + damping[rows, None, None] * scale[:, :, None] * identity
        system = np.where(free[:, :, None] & free[:, None, :], system, scale[:, :, None] * identity)
        step = np.linalg.solve(system, np.where(free, -gradient, 0.0)[..., None])[..., 0]
        trial = np.clip(th + step, _LOWER, _UPPER)
        trial_residual, trial_cost = residuals(trial, rows)
        better = trial_cost < cost[rows]
        done = better & (cost[rows] - trial_cost <= 1e-14 * cost[rows])
        done |= better & np.all(np.abs(trial - th) <= 1e-13 * np.abs(th), axis=1)
        kept = rows[better]
        theta[kept], residual[kept], cost[kept] = trial[better], trial_residual[better], trial_cost[better]
        damping[rows] = np.where(better, np.maximum(damping[rows] * 0.3, 1e-15), damping[rows] * 10.0)
        active[rows[done | (damping[rows] > 1e16)]] = False
    return theta, residual, cost, active


def floor_power_fit(x, y) -> dict:
    """:func:`floor_power_fits` of one curve ``y`` against ``x``: c (floor), a (amplitude), r (rate) and rms_log as
    floats."""
    fit = floor_power_fits(x, np.asarray(y, dtype=float)[None, :])
    return {name: float(fit[name][0]) for name in ("floor", "amplitude", "rate", "rms_log")}


def _misfits(xs, values, fit) -> tuple[np.ndarray, np.ndarray]:
    """χ² of each fit's log residuals (``values``: problems × seeds × points, ``fit``: :func:`floor_power_fits` of
    their seed means) in units of each point's standard error of log mean (seed spread / (mean √seeds)), and its
    p-value on points − 3 degrees of freedom."""
    from scipy import stats

    mean = values.mean(axis=1)
    se = values.std(axis=1, ddof=1) / (mean * np.sqrt(values.shape[1]))
    model = fit["floor"][:, None] + fit["amplitude"][:, None] * xs ** (-fit["rate"][:, None])
    with np.errstate(over="ignore"):  # a seed resampled into every slot has no spread: χ² is then inf, p 0
        chi2 = np.sum(((np.log(model) - np.log(mean)) / np.maximum(se, np.finfo(float).tiny)) ** 2, axis=1)
    return chi2, stats.chi2.sf(chi2, xs.size - 3)


def _windows(all_x: np.ndarray, all_values: np.ndarray, fit_level: float) -> dict:
    """The window rule of :func:`floor_rate` on a sweep (``all_x`` its points) for each of several resamplings at once
    (``all_values``: resamplings × seeds × points): the longest tail, at least :data:`MIN_WINDOW` points, whose fit
    passes the χ² test at ``fit_level``, else the shortest. Arrays: start (the window's first index), floor, amplitude,
    rate, rms_log, chi2, p."""
    count = all_values.shape[0]
    chosen = {name: np.full(count, np.nan) for name in ("floor", "amplitude", "rate", "rms_log", "chi2", "p")}
    chosen["start"] = np.zeros(count, dtype=int)
    pending = np.arange(count)
    starts = range(0, max(all_x.size - MIN_WINDOW + 1, 1))
    for start in starts:
        xs, values = all_x[start:], all_values[pending][:, :, start:]
        fit = floor_power_fits(xs, values.mean(axis=1))
        chi2, p = _misfits(xs, values, fit)
        settled = (p >= fit_level) | (start == starts[-1])
        for name in ("floor", "amplitude", "rate", "rms_log"):
            chosen[name][pending[settled]] = fit[name][settled]
        chosen["chi2"][pending[settled]], chosen["p"][pending[settled]] = chi2[settled], p[settled]
        chosen["start"][pending[settled]] = start
        pending = pending[~settled]
        if pending.size == 0:
            break
    return chosen


def _window(all_x: np.ndarray, all_values: np.ndarray, fit_level: float):
    """:func:`_windows` on the sweep's own seeds (``all_values``: seeds × points): the window's points, the seeds'
    values on it, the fit of their means, its χ² and p-value."""
    chosen = _windows(all_x, all_values[None], fit_level)
    start = int(chosen["start"][0])
    point = {name: float(chosen[name][0]) for name in ("floor", "amplitude", "rate", "rms_log")}
    return all_x[start:], all_values[:, start:], point, float(chosen["chi2"][0]), float(chosen["p"][0])


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
    rates = _windows(all_x, all_values[draws], fit_level)["rate"]
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
    differences = _windows(x_a, all_a[draws], fit_level)["rate"] - _windows(x_b, all_b[draws], fit_level)["rate"]
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
