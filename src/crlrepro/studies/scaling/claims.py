"""The claims of C3, C4: its result tables turned into claim rows (:class:`crlrepro.claims.verdicts.Claim`)
whose kinds and comparability keys come from the study's entry (:mod:`crlrepro.studies.scaling`).
"""

from __future__ import annotations

from dataclasses import replace
from itertools import pairwise

import numpy as np
import pandas as pd

from crlrepro.claims.verdicts import (
    CONTRADICTED,
    INCONCLUSIVE,
    NOT_COMPARABLE,
    REPRODUCED,
    Claim,
    Decision,
    any_of_claims,
    claim,
    decide_equivalence,
    decide_rate,
    direction_claims,
    every_step_claims,
    few_seed_bootstrap,
    paired_by_seed,
)
from crlrepro.experiments.rate_fits import FIRST_POINT, MAX_RATE, MIN_WINDOW, TRAINED_AUC_SHARE, TRAINED_SEED_SHARE
from crlrepro.learning.metrics import plateau_approach_rate
from crlrepro.studies.scaling import STUDY

__all__ = ["c3_claims", "c4_claims", "gap_rate_claim", "marginal_gain_claim", "rate_difference_claims", "recall_step_claims"]


def _in_batch_claims(fit, reference: dict) -> list[Claim]:
    """In-batch negatives at n = ∞ (a batch of m + 1 pairs, each anchor's negatives the other m positives):
    two-sided against SCRL's m^{-1} (``fit.predicted``, derived in crlrepro.experiments.generalization), and one-sided against
    the m^{-1/2} the paper's SSCRL bound allows (the paper files CLIP's in-batch negatives under SSCRL)."""
    spec_of = STUDY.experiment("C3").claim
    where = (
        f"n = ∞ (batches of m + 1 pairs, their means averaged), m = {fit.fit_from}..{fit.fit_to}; "
        "log-log slope of the family's sup"
    )
    bound = float(reference["slope_m"]["sscrl"])
    law, within = spec_of("inbatch_rate"), spec_of("inbatch_within_sscrl")
    return [
        claim(
            "C3",
            f"C3.{law.key}",
            f"{law.statement}: slope in m = {fit.predicted:g} ({where})",
            "rate",
            decide_rate(fit.slope, fit.low, fit.high, fit.predicted, alternatives=(bound,)),
            measured=fit.slope,
            low=fit.low,
            high=fit.high,
            tolerance=f"two-sided against SSCRL's {bound:g} (bootstrap over batches)",
        ),
        claim(
            "C3",
            f"C3.{within.key}",
            f"{within.statement}: slope in m ≤ {bound:g} ({where})",
            "rate",
            decide_rate(fit.slope, fit.low, fit.high, bound, side="at_most"),
            measured=fit.slope,
            low=fit.low,
            high=fit.high,
            paper=bound,
            tolerance="one-sided: the interval at or below the exponent (bootstrap over batches)",
        ),
    ]


def c3_claims(
    deviation_slopes: pd.DataFrame,
    slopes: pd.DataFrame,
    table: pd.DataFrame,
    reference: dict,
    e_star: float | None = None,
    gap_rates: pd.DataFrame | None = None,
    rate_margin: float = 0.0,
    rate_differences: pd.DataFrame | None = None,
    m_free_margin: float | None = None,
    auc_rates: pd.DataFrame | None = None,
) -> list[Claim]:
    """C3, three layers of Thm 4.5 and Sec. 5:

    * the mechanism at fixed scores (``deviation_slopes``, :func:`crlrepro.experiments.generalization.deviation_rates`):
      the family's supremum of the inner term's deviation decays as m^{-1} under SCRL and m^{-1/2} under
      SSCRL, the outer term's as n^{-1/2}; ``rate`` claims tested two-sided, each against the other rate;
      in-batch negatives against SCRL's m^{-1} (two-sided) and the paper's SSCRL bound (one-sided);
    * the trained model's gap |L(ŵ) − L̂_S(ŵ)| (``gap_rates``, :func:`crlrepro.experiments.rate_fits.gap_rate_table`):
      the theorem bounds it from above by c + a·x^(−e), so its rate r with the floor, on the sweep's asymptotic
      window, is tested one-sided, r ≥ e·(1 − ``rate_margin``) (:func:`gap_rate_claim`); without ``gap_rates``, the
      log-log slope of ``slopes`` one-sided;
    * the rates compared (``rate_differences``, :func:`crlrepro.experiments.rate_fits.rate_difference_table`): the
      n-rates at two values of m agree within ``m_free_margin`` (the outer term does not depend on m), and SCRL's
      m-rate exceeds SSCRL's (:func:`rate_difference_claims`);
    * the marginal gains (``auc_rates``, :func:`crlrepro.experiments.rate_fits.auc_deficit_rate_table`): the AUC's
      approach to its plateau in m at the bound's rate (:func:`marginal_gain_claim`);
    * the downstream curves (``table``): AUC and recall@1 higher at the largest m than at the smallest and
      at the largest n than at the smallest, per regime, and (with the Bayes AUC ``e_star``) SCRL approaching E*
      faster in m than SSCRL: the rate r of E* − AUC(m) ≈ b·m^(−r) per seed
      (:func:`crlrepro.learning.metrics.plateau_approach_rate`), SCRL minus SSCRL; seed-paired, one Holm family."""
    spec_of = STUDY.experiment("C3").claim
    rows = []
    for fit in deviation_slopes[deviation_slopes["score"] == "sup"].itertuples():
        if fit.regime == "inbatch":
            rows += _in_batch_claims(fit, reference)
            continue
        key = "inner_rate" if fit.axis == "m" else "outer_rate"
        spec = spec_of(key)
        other = -1.0 if fit.predicted == -0.5 else -0.5  # each rate told apart from the other regime's
        where = (
            f"n = ∞ (anchors integrated), m = {fit.fit_from}..{fit.fit_to}"
            if fit.axis == "m"
            else f"m = ∞ (negatives integrated), n = {fit.fit_from}..{fit.fit_to}"
        )
        name = fit.regime.upper() if fit.regime != "both" else "SCRL and SSCRL"
        rows.append(
            claim(
                "C3",
                f"C3.{key}.{fit.regime}",
                f"{name}: {spec.statement}, slope in {fit.axis} = {fit.predicted:g} ({where}; log-log slope of the family's sup)",
                "rate",
                decide_rate(fit.slope, fit.low, fit.high, fit.predicted, alternatives=(other,)),
                measured=fit.slope,
                low=fit.low,
                high=fit.high,
                paper=fit.predicted,
                tolerance=f"two-sided against {other:g} (bootstrap over draws)",
            )
        )
    rate = spec_of("gap_rate")
    if gap_rates is not None:
        rows += [gap_rate_claim(fit, rate_margin) for fit in gap_rates.itertuples()]
    if rate_differences is not None:
        rows += rate_difference_claims(rate_differences, m_free_margin)
    if auc_rates is not None:
        rows += [marginal_gain_claim(fit) for fit in auc_rates.itertuples()]
    for fit in slopes[(slopes["quantity"] == "gap") & (gap_rates is None)].itertuples():
        predicted = float(reference[f"slope_{fit.axis}"][fit.regime])
        sweep = table[(table["regime"] == fit.regime) & (table["sweep"] == fit.axis)]
        fixed = "n" if fit.axis == "m" else "m"
        rows.append(
            claim(
                "C3",
                f"C3.{rate.key}.{fit.regime}.{fit.axis}",
                f"{fit.regime.upper()}: {rate.statement}, slope in {fit.axis} ≤ {predicted:g} "
                f"({fit.axis} = {int(sweep[fit.axis].min())}..{int(sweep[fit.axis].max())}, {fixed} = "
                f"{int(sweep[fixed].iloc[0])}; log-log slope of the seed mean)",
                "rate",
                decide_rate(fit.slope, fit.low, fit.high, predicted, side="at_most"),
                measured=fit.slope,
                low=fit.low,
                high=fit.high,
                paper=predicted,
                tolerance="one-sided: the interval at or below the exponent (seed bootstrap)",
            )
        )
    family, rates = [], {}
    for (regime, sweep), runs in table.groupby(["regime", "sweep"], sort=True):
        lo, hi = runs[sweep].min(), runs[sweep].max()
        for metric, name in (("auc", "AUC"), ("recall_at_1", "recall@1")):
            by_seed = {v: runs.loc[runs[sweep] == v].set_index("seed")[metric] for v in (lo, hi)}
            spec = spec_of(f"{'auc' if metric == 'auc' else 'recall'}_grows_with_{sweep}")
            paired = paired_by_seed(by_seed[hi], by_seed[lo], f"{sweep}{hi}-{sweep}{lo}")
            family.append(
                (
                    f"C3.{spec.key}.{regime}",
                    f"{regime.upper()}: {spec.statement}: {name} at {sweep}={hi} minus {sweep}={lo} (paired by seed)",
                    paired,
                )
            )
        if sweep == "m" and e_star is not None:
            rates[regime] = pd.Series(
                {seed: plateau_approach_rate(g["m"], g["auc"], e_star) for seed, g in runs.groupby("seed")}, dtype=float
            )
    if {"scrl", "sscrl"} <= set(rates):
        spec = spec_of("scrl_steeper_in_m")
        ms = sorted(table.loc[table["sweep"] == "m", "m"].unique())
        family.append(
            (
                f"C3.{spec.key}",
                f"{spec.statement}: r of E* − AUC(m) ≈ b·m^(−r) (E* = {e_star:.4g}, m = "
                f"{ms[0]}..{ms[-1]}), SCRL minus SSCRL (paired by seed; a seed whose AUC reaches E* has no r)",
                paired_by_seed(rates["scrl"], rates["sscrl"], "r_scrl-r_sscrl"),
            )
        )
    return rows + direction_claims("C3", family) + recall_step_claims(table)


def recall_step_claims(table: pd.DataFrame) -> list[Claim]:
    """``C3.recall_rises_every_step_m.<regime>``: Sec. 5's "recall@1 rises monotonically as m grows", as recall@1
    higher at each consecutive step of the m sweep (from the regime's first point: SSCRL from m = 2), seed-paired,
    every step of both regimes one Holm family (:func:`crlrepro.claims.verdicts.every_step_claims`)."""
    spec = STUDY.experiment("C3").claim("recall_rises_every_step_m")
    groups = []
    for regime, runs in table[table["sweep"] == "m"].groupby("regime", sort=True):
        runs = runs[runs["m"] >= FIRST_POINT.get((regime, "m"), 0)]
        by_m = {m: g.set_index("seed")["recall_at_1"] for m, g in runs.groupby("m")}
        steps = [paired_by_seed(by_m[b], by_m[a], f"m={b}−m={a}") for a, b in pairwise(sorted(by_m))]
        if steps:
            groups.append(
                (f"C3.{spec.key}.{regime}", f"{regime.upper()}: {spec.statement} (m = {min(by_m)}..{max(by_m)})", steps)
            )
    return every_step_claims("C3", groups) if groups else []


def gap_rate_claim(fit, margin_share: float) -> Claim:
    """One sweep's C3.gap_rate row from a row of :func:`crlrepro.experiments.rate_fits.gap_rate_table`: the rate r of
    |gap| ≈ c + a·x^(−r) on the asymptotic window against the bound's exponent e, one-sided with the margin
    δ = e·``margin_share`` (:func:`crlrepro.claims.verdicts.decide_rate`, ``at_least``), on the table's interval at its
    family's Bonferroni level (``level``: the gap-rate rows are tested together). Where no tail of the sweep of
    :data:`~crlrepro.experiments.rate_fits.MIN_WINDOW` or more points fits the form (χ² at 5 %), the sweep is
    pre-asymptotic throughout and the row is inconclusive, with no measured rate or interval (:func:`_tested`); a sweep
    that did not train where it is read gets :func:`_untrained`'s decision."""
    spec = STUDY.experiment("C3").claim("gap_rate")
    exponent = float(fit.predicted)
    fixed = "n" if fit.axis == "m" else "m"
    sweep = getattr(fit, "sweep", fit.axis)  # n2: the n sweep at the second m
    at = f"{fixed} = {int(fit.fixed)}" if hasattr(fit, "fixed") else f"fixed {fixed}"
    where = (
        f"{fit.axis} = {fit.window_from:g}..{fit.fit_to} of the sweep's {fit.fit_from}..{fit.fit_to}, {fit.seeds} seeds; "
        f"floor c = {fit.floor:.3g}, rms log residual {fit.rms_log:.3g}, χ² p = {fit.fit_p:.3g}"
    )
    tested = False
    untrained = _untrained(fit.axis, getattr(fit, "trained_from", fit.fit_from), fit.fit_from, fit.points, fit.seeds)
    if untrained is not None:
        decision = untrained
        where = f"{fit.axis} = {fit.fit_from}..{fit.fit_to}, {fit.seeds} seeds"
    elif not fit.points >= MIN_WINDOW or not fit.seeds >= 2:
        decision = Decision(
            INCONCLUSIVE,
            f"{fit.points} points and {fit.seeds} seed(s): a rate with a floor (3 parameters) and its goodness of fit "
            f"need at least {MIN_WINDOW} points and 2 seeds",
            f"{fit.seeds} seeds, {fit.points} points",
        )
        where = f"{fit.axis} = {fit.fit_from}..{fit.fit_to}, {fit.seeds} seeds"
    elif not bool(fit.fits):
        decision = _pre_asymptotic(fit, f"c + a·{fit.axis}^(−r)", ", and a rate read from it would describe its transient")
    else:
        decision = decide_rate(
            fit.rate,
            fit.rate_low,
            fit.rate_high,
            exponent,
            side="at_least",
            margin=exponent * margin_share,
            noise=f"a bootstrap over {fit.seeds} seeds",
            level=float(fit.level),
        )
        decision = _at_the_box(_caveated(decision, fit.seeds, fit.level), fit.rate_low, fit.rate_high)
        tested = True
    measured, low, high = _tested(fit.rate, fit.rate_low, fit.rate_high, tested=tested)
    return claim(
        "C3",
        f"C3.gap_rate.{fit.regime}.{sweep}",
        f"{fit.regime.upper()}: {spec.statement}, r in {fit.axis} ≥ {exponent:g} at {at} ({where})",
        "rate",
        decision,
        measured=measured,
        low=low,
        high=high,
        paper=exponent,
        tolerance=f"one-sided, margin {margin_share:g} × the exponent declared in advance (seed bootstrap of the fit; "
        f"interval at {fit.level:.4g}, Bonferroni over the gap-rate rows)",
    )


_TRAINED = f"at least {TRAINED_SEED_SHARE:.0%} of seeds at AUC ≥ ½ + {TRAINED_AUC_SHARE:g}·(E* − ½)"  # rate_fits.trained_from


def _untrained(axis: str, trained_from, fit_from, points, seeds) -> Decision | None:
    """The decision of a rate row whose sweep did not train where it is read (:func:`crlrepro.experiments.rate_fits.
    trained_from`), or None: not comparable where its last point did not train (an untrained model's gap is not the
    rate the bound describes, and more seeds would not change that); inconclusive where the trained tail is shorter than
    :data:`~crlrepro.experiments.rate_fits.MIN_WINDOW`."""
    if not np.isfinite(trained_from):
        return Decision(
            NOT_COMPARABLE,
            f"the models did not train at the sweep's largest {axis} ({_TRAINED}): the gap and AUC of untrained models "
            f"are not the rates the bound describes",
            f"{seeds} seeds; more seeds would not change it, training that learns in this regime would",
        )
    if trained_from > fit_from and points < MIN_WINDOW:
        return Decision(
            INCONCLUSIVE,
            f"the models trained ({_TRAINED}) only from {axis} = {trained_from:g}: {points} point{'' if points == 1 else 's'}, "
            f"and a rate with a floor and its goodness of fit need {MIN_WINDOW}",
            f"{seeds} seeds; a sweep with {MIN_WINDOW} or more trained points would decide it",
        )
    return None


def _caveated(decision: Decision, seeds, level) -> Decision:
    """``decision`` where its seed bootstrap resolves the interval's tails; where it cannot
    (:func:`crlrepro.claims.verdicts.few_seed_bootstrap`: resamples of one or two seeds outweigh a tail), the interval
    says little beyond the seeds' range: a verdict on it becomes inconclusive, its reason keeping what the interval
    said, and the power says why."""
    caveat = few_seed_bootstrap(int(seeds), float(level))
    if not caveat:
        return decision
    if decision.verdict in (REPRODUCED, CONTRADICTED):
        reason = (
            f"{seeds} seeds cannot resolve the bootstrap's tails at {float(level):.4g}, so its interval decides nothing "
            f"({decision.verdict} on its own: {decision.reason})"
        )
        # too few seeds to resolve the tails: no machine's rounding decides it (margin ∞)
        return Decision(INCONCLUSIVE, reason, decision.power + caveat, np.inf)
    return replace(decision, power=decision.power + caveat)


def _at_the_box(decision: Decision, low, high) -> Decision:
    """``decision`` with its power saying where the rate's interval reaches the fit's box (r = 0 or
    :data:`crlrepro.experiments.rate_fits.MAX_RATE`): that end is the box's, not the data's, so the half-width it gives
    is a lower bound."""
    ends = (["lower end the fit's bound r = 0"] if float(low) <= 0.0 else []) + (
        [f"upper end the fit's bound r = {MAX_RATE:g}"] if float(high) >= MAX_RATE else []
    )
    if not ends:
        return decision
    box = f"the interval's {' and '.join(ends)}, not the data's: the half-width is a lower bound"
    return replace(decision, power=f"{decision.power}; {box}")


def _tested(value, low, high, *, tested) -> tuple[float, float, float]:
    """A rate row's measured value and interval where its fit was tested, and none (NaN) where it was not (too few
    points, a pre-asymptotic or saturated sweep): a rate read from a fit the goodness-of-fit rule rejects describes a
    transient, and its interval beside "inconclusive" could seem to decide what the row does not."""
    if not bool(tested):
        return np.nan, np.nan, np.nan
    return float(value), float(low), float(high)


def _pre_asymptotic(fit, form: str, coda: str = "") -> Decision:
    """The inconclusive decision of a floor fit (:func:`crlrepro.experiments.rate_fits.floor_rate`) none of whose tails
    passes the χ² rule: ``form`` the fitted curve, ``coda`` what the reason adds."""
    return Decision(
        INCONCLUSIVE,
        f"no tail of {MIN_WINDOW} or more points fits {form} (the last {MIN_WINDOW}: χ² p = {fit.fit_p:.2g} < 0.05): the "
        f"sweep is pre-asymptotic throughout{coda}",
        f"{fit.seeds} seeds, {fit.points} points; larger {fit.axis} would reach the asymptotic region",
    )


def marginal_gain_claim(fit) -> Claim:
    """``C3.marginal_gain.<regime>`` (the m sweep) or ``C3.marginal_gain_n.<regime>`` (the n sweep) from a row of
    :func:`crlrepro.experiments.rate_fits.auc_deficit_rate_table`: the AUC's deficit to the Bayes AUC falls to its
    floor as x^(−r), r tested two-sided against the bound's exponent (in m: 1 under SCRL, ½ under SSCRL, told apart
    from the other's; in n: ½, told apart from a 1/n law). The n rows read the marginal-gain design where the config
    declares one (``fit.sweep`` "gain": its own n and fresh seeds), and say so. Where the deficit to the sweep's
    largest x is seen at fewer than three x the curve has saturated and no rate is read: inconclusive, saying from
    which x and what would decide it (so too where a run reaches E*: nothing differs from the paper's setting, our data
    are too easy); where no tail fits the form, the sweep is pre-asymptotic: inconclusive. An inconclusive row shows no
    measured rate or interval (:func:`_tested`)."""
    axis = getattr(fit, "axis", "m")
    spec = STUDY.experiment("C3").claim("marginal_gain" if axis == "m" else "marginal_gain_n")
    fixed = "n" if axis == "m" else "m"
    exponent = float(fit.predicted)
    other = (0.5 if exponent == 1.0 else 1.0) if axis == "m" else 1.0
    design = getattr(fit, "sweep", axis) == "gain"  # the marginal-gain design: its own n and seeds (n_sweep.gain)
    where = f"{axis} = {fit.fit_from}..{fit.fit_to} at {fixed} = {fit.fixed}, {fit.seeds} seeds" + (
        " of the marginal-gain design (its own n and fresh seeds, declared before its run)" if design else ""
    )
    tested = False
    untrained = _untrained(axis, getattr(fit, "trained_from", fit.fit_from), fit.fit_from, fit.points, fit.seeds)
    if untrained is not None:
        decision = untrained
    elif bool(getattr(fit, "reaches_e_star", False)):
        decision = Decision(
            INCONCLUSIVE,
            "some run's AUC reaches the Bayes AUC E* (to the quadrature's error): there is no deficit left to follow a curve",
            f"{fit.seeds} seeds; harder data, whose AUC stays below E* over the sweep, would decide it",
        )
    elif not fit.detectable >= 3:
        saturated = "" if not np.isfinite(fit.saturated_from) else f", saturated from {axis} = {fit.saturated_from:g}"
        decision = Decision(
            INCONCLUSIVE,
            f"the AUC's deficit to {axis} = {fit.fit_to} stands above the seeds' noise at {fit.detectable} {axis}{saturated}: "
            f"the curve has reached its plateau, so there are no marginal gains left to follow a curve",
            f"{fit.seeds} seeds; denser {axis} between {fit.fit_from:g} and the plateau, or harder data, would show the approach",
        )
    elif not fit.points >= MIN_WINDOW or not fit.seeds >= 2:
        before = (
            "" if not np.isfinite(fit.saturated_from) else f" before the curve saturates (from {axis} = {fit.saturated_from:g})"
        )
        decision = Decision(
            INCONCLUSIVE,
            f"{fit.points} {axis} and {fit.seeds} seed(s){before}: a rate with a floor (3 parameters) and its goodness of "
            f"fit need at least {MIN_WINDOW} points and 2 seeds",
            f"{fit.seeds} seeds; more {axis} on the approach would decide it",
        )
    elif not bool(fit.fits):
        decision = _pre_asymptotic(fit, f"E* − AUC = c + a·{axis}^(−r)")
    else:
        decision = decide_rate(
            fit.rate,
            fit.rate_low,
            fit.rate_high,
            exponent,
            alternatives=(other,),
            noise=f"a bootstrap over {fit.seeds} seeds",
            level=float(fit.level),
        )
        decision = _at_the_box(_caveated(decision, fit.seeds, fit.level), fit.rate_low, fit.rate_high)
        where += f"; window {axis} ≥ {fit.window_from:g}, floor c = {fit.floor:.3g}"
        tested = True
    measured, low, high = _tested(fit.rate, fit.rate_low, fit.rate_high, tested=tested)
    return claim(
        "C3",
        f"C3.{spec.key}.{fit.regime}",
        f"{fit.regime.upper()}: {spec.statement}: r of E* − AUC({axis}) = c + a·{axis}^(−r) = {exponent:g} ({where})",
        "rate",
        decision,
        measured=measured,
        low=low,
        high=high,
        paper=exponent,
        tolerance=f"two-sided at {exponent:g}, told apart from {other:g} (seed bootstrap of the fit; interval at "
        f"{fit.level:.4g}, Bonferroni over the marginal-gain rows)",
    )


def rate_difference_claims(differences: pd.DataFrame, m_free_margin: float | None) -> list[Claim]:
    """The rows of :func:`crlrepro.experiments.rate_fits.rate_difference_table`:

    * ``C3.outer_m_free.<regime>``: Thm 4.5's outer term does not depend on m, so the gap's rate in n is the same at
      the n sweep's m and at the second m: equivalence within ``m_free_margin`` (declared in advance;
      :func:`crlrepro.claims.verdicts.decide_equivalence`);
    * ``C3.inner_steeper``: the inner term falls as 1/m under SCRL and 1/√m under SSCRL, so SCRL's rate in m exceeds
      SSCRL's: the seed-paired difference > 0, one-sided.

    A comparison one of whose sweeps has no tail the form fits (χ² at 5 %) is inconclusive, with no measured
    difference or interval: that sweep is pre-asymptotic, and its rate would describe the transient."""
    if m_free_margin is None and (differences["comparison"] == "outer_m_free").any():
        raise ValueError("C3.outer_m_free needs its margin (consistency.scaling.m_free_margin)")
    rows = []
    for row in differences.itertuples():
        spec = STUDY.experiment("C3").claim(row.comparison)
        if row.comparison == "outer_m_free":
            what = f"{row.regimes.upper()}: {spec.statement}: r in n at m = {row.fixed_a} minus r in n at m = {row.fixed_b}"
            claim_id, paper, tolerance = f"C3.{spec.key}.{row.regimes}", 0.0, f"equivalence within ±{m_free_margin:g}"
        else:
            what = (
                f"{spec.statement}: r in m of SCRL minus r in m of SSCRL (n = {row.fixed_a}; the bound's exponents "
                "differ by ½, the row tests the sign)"
            )
            claim_id, paper, tolerance = f"C3.{spec.key}", np.nan, "one-sided: the difference > 0"
        windows = f"windows {row.window_a} and {row.window_b}, {row.seeds} seeds, paired by seed"
        tested = True  # unless the fits cannot be tested (below)
        starts = [getattr(row, name, 0.0) for name in ("trained_from_a", "trained_from_b")]  # 0.0: not recorded
        trained = f" (the models trained, {_TRAINED}, from {row.axis} = {starts[0]:g} and {starts[1]:g})"
        if not all(np.isfinite(starts)):
            decision = _untrained(row.axis, np.nan, 0, row.points, row.seeds)
            windows = f"{row.seeds} seeds"
            tested = False
        elif not row.points >= MIN_WINDOW or not row.seeds >= 2:
            decision = Decision(
                INCONCLUSIVE,
                f"{row.points} points and {row.seeds} seed(s){trained if any(starts) else ''}: a rate with a floor needs at "
                f"least {MIN_WINDOW} points and 2 seeds",
                f"{row.seeds} seeds, {row.points} points",
            )
            windows = f"{row.points} points, {row.seeds} seeds"
            tested = False
        elif not (bool(row.fits_a) and bool(row.fits_b)):
            unfit = " and ".join(
                w for w, fits, p in ((row.window_a, row.fits_a, row.fit_p_a), (row.window_b, row.fits_b, row.fit_p_b)) if not fits
            )
            decision = Decision(
                INCONCLUSIVE,
                f"no tail of {MIN_WINDOW} or more points fits c + a·{row.axis}^(−r) on the sweep of {unfit}: it is "
                "pre-asymptotic, "
                f"and a difference of rates would compare a transient",
                f"{row.seeds} seeds; larger {row.axis} would reach the asymptotic region",
            )
            tested = False
        elif row.comparison == "outer_m_free":
            decision = decide_equivalence(
                row.difference,
                row.low,
                row.high,
                m_free_margin,
                noise=f"a seed-paired bootstrap over {row.seeds} seeds",
                level=float(row.level),
            )
        else:
            decision = decide_rate(
                row.difference,
                row.low,
                row.high,
                0.0,
                side="at_least",
                noise=f"a seed-paired bootstrap over {row.seeds} seeds",
                level=float(row.level),
            )
        if tested:
            decision = _caveated(decision, row.seeds, row.level)
        measured, low, high = _tested(row.difference, row.low, row.high, tested=tested)
        rows.append(
            claim(
                "C3",
                claim_id,
                f"{what} ({windows})",
                "rate",
                decision,
                measured=measured,
                low=low,
                high=high,
                paper=paper,
                tolerance=f"{tolerance} (seed bootstrap of both fits; interval at {row.level:.4g}, Bonferroni over the "
                "rate comparisons)",
            )
        )
    return rows


def c4_claims(table: pd.DataFrame, fit: pd.DataFrame | None = None, *, fit_tolerance: float | None = None) -> list[Claim]:
    """C4 at a fixed budget N = n·m (anchor–negative pairs scored):

    * the paper's claim: neither extreme split is best: for each regime and each extreme (fewest and most
      negatives), some interior split has a higher AUC, seed-paired; all interior × extreme comparisons of
      both regimes form one Holm family (nothing chosen after seeing the data);
    * the split the regime's fit recommends (``fit``: :func:`crlrepro.experiments.generalization.budget_summary`, the grid
      split nearest m*) against each of its grid neighbours, AUC seed-paired, one Holm family. The fit (of the
      excess risks, not an argmax of the AUCs tested) chooses the split; it uses the same seeds, so the test is
      not fully independent of the choice, and where the fit misses the excess risks by more than
      ``fit_tolerance`` (rms relative) the shape describes nothing and its rows are ``inconclusive`` with no interval
      (nothing is tested, so no difference is shown beside the word)."""
    spec = STUDY.experiment("C4").claim("extreme_not_best")
    groups = []
    for regime, runs in table.groupby("regime", sort=True):
        by_seed = {int(m): g.set_index("seed")["auc"] for m, g in runs.groupby("m")}
        ms = sorted(by_seed)
        for end, name in ((ms[0], "fewest"), (ms[-1], "most")):
            comparisons = [paired_by_seed(by_seed[m], by_seed[end], f"m={m} − m={end}") for m in ms[1:-1]]
            if comparisons:
                groups.append(
                    (
                        f"C4.{spec.key}.{regime}.m{end}",
                        f"{regime.upper()}, N = {int(runs['n'].iloc[0] * runs['m'].iloc[0])}: "
                        f"the split with the {name} negatives (m = {end}) is beaten by an interior one (AUC)",
                        comparisons,
                    )
                )
    rows = any_of_claims("C4", groups)
    if fit is None:
        return rows
    if fit_tolerance is None:
        raise ValueError("testing the fit's recommended split needs fit_tolerance (consistency.budget.fit_tolerance)")
    spec = STUDY.experiment("C4").claim("recommended_beats_neighbours")
    family, unfit = [], []
    for row in fit.sort_values("regime").itertuples():
        runs = table[table["regime"] == row.regime]
        by_seed = {int(m): g.set_index("seed")["auc"] for m, g in runs.groupby("m")}
        ms = sorted(by_seed)
        if int(row.nearest_m) not in by_seed:  # the fit recommends no split (m* is NaN)
            unfit.append(
                (
                    f"C4.{spec.key}.{row.regime}",
                    f"{row.regime.upper()}: {spec.statement}: the fit {row.shape} recommends no split",
                    "the fit has no minimum (b, c ≤ 0): there is no split to test",
                )
            )
            continue
        k = ms.index(int(row.nearest_m))
        for other in [ms[i] for i in (k - 1, k + 1) if 0 <= i < len(ms)]:
            statement = (
                f"{row.regime.upper()}: {spec.statement}: the fit {row.shape} recommends m* = {row.recommended_m:.3g}, "
                f"nearest grid split m = {row.nearest_m}, against m = {other} (AUC, paired by seed)"
            )
            if row.relative_rms > fit_tolerance:  # a shape that does not describe the data recommends nothing
                unfit.append(
                    (
                        f"C4.{spec.key}.{row.regime}.m{other}",
                        statement,
                        f"the fit misses the excess risks by {row.relative_rms:.2f} (rms relative) > {fit_tolerance:g}: "
                        "the bound's shape does not describe these data, so its m* is no prediction to test (the AUC "
                        "difference is not tested, and no interval is shown)",
                    )
                )
            else:
                paired = paired_by_seed(by_seed[int(row.nearest_m)], by_seed[other], f"m={row.nearest_m} − m={other}")
                family.append((f"C4.{spec.key}.{row.regime}.m{other}", statement, paired))
    rows += direction_claims("C4", family)
    for claim_id, statement, reason in unfit:  # nothing tested: no difference shown beside the word
        rows.append(
            claim(
                "C4",
                claim_id,
                statement,
                "direction",
                Decision(INCONCLUSIVE, reason, f"fit rms {fit_tolerance:g} allowed"),
                measured=np.nan,
                tolerance=f"tested only where the fit's relative rms ≤ {fit_tolerance:g}",
            )
        )
    return rows
