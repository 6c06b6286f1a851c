"""Claim kinds and their verdicts: every row of the summary is a test with one decision function.

=========  =======================================================  ==========================================
kind       what is tested                                           verdicts
=========  =======================================================  ==========================================
value      a reported number against our interval (our numerical    reproduced / contradicted / inconclusive /
           error or the seed interval), widened by the paper's      not comparable
           rounding; only when every key it depends on matches
bound      a theorem's inequality q ≤ b at measured points, and     reproduced / contradicted / inconclusive
           how informative it was (b below q's trivial maximum)
rate       a predicted exponent against a fitted slope with its     reproduced / contradicted / inconclusive
           interval: two-sided, or one-sided for a bound
direction  a comparison fixed in advance, a seed-paired             reproduced / contradicted / inconclusive
           difference; a family is Holm-corrected
identity   mathematics or our own self-consistency                  verified / failed
=========  =======================================================  ==========================================

``contradicted`` means the interval excludes the claim; ``inconclusive`` means it cannot decide and
the reason says why; identities are ``verified``, never counted as reproductions. Every decision
also returns its power: how small an error or effect the measurement could have seen.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, replace

import numpy as np
import pandas as pd
from scipy import optimize, special, stats

from crlrepro.theory.levels import LEVEL, family_level

__all__ = [
    "few_seed_bootstrap",
    "RANGES_NOT_TRAINED",
    "UNREPORTED_DECIDES",
    "any_of_claims",
    "every_step_claims",
    "check_claims_table",
    "Claim",
    "claim",
    "CLAIM_COLUMNS",
    "CLAIM_NOT_APPLICABLE",
    "claims_frame",
    "decide_association",
    "decision_of",
    "decide_bound",
    "decide_directions",
    "decide_equivalence",
    "decide_identity",
    "decide_rate",
    "decide_value",
    "Decision",
    "detectable_difference",
    "direction_claims",
    "family_level",
    "holm",
    "holm_interval_levels",
    "KINDS",
    "LEVEL",
    "Paired",
    "paired_by_seed",
    "paired_t_power",
    "POWER",
    "reported_rounding",
    "seed_interval",
    "seed_standard_error",
    "SEED_PLAN_LIMIT",
    "seeds_for_power",
    "SIDES",
    "over_unreported_ranges",
    "value_claim",
    "VERDICTS",
    "VERDICTS_OF_KIND",
    "FRAGILE",
    "STABLE",
    "STABLE_MARGIN",
    "STABILITY_COLUMNS",
    "MARGIN_SEARCH",
    "crossing_margin",
    "interval_margin",
    "is_fragile",
    "first_moved",
    "leave_one_seed_out",
    "normal_standard_error",
    "stability_text",
]

REPRODUCED, CONTRADICTED, INCONCLUSIVE, NOT_COMPARABLE = "reproduced", "contradicted", "inconclusive", "not comparable"
# The openings of the reasons of rows left not comparable by what the paper does not report, read back by the summary's
# "not decided, because" columns (crlrepro.studies.summary.undecided_reason): the rule for unreported settings with
# range points this scale does not train, and an unreported setting or definition that moves the verdict.
RANGES_NOT_TRAINED = (
    "by the rule for unreported settings a verdict must hold over the declared range of every key the paper leaves "
    "open, and this scale trains no other point of them"
)
UNREPORTED_DECIDES = "an unreported setting decides it"
VERIFIED, FAILED = "verified", "failed"
VERDICTS = (REPRODUCED, CONTRADICTED, INCONCLUSIVE, NOT_COMPARABLE, VERIFIED, FAILED)
KINDS = ("value", "bound", "rate", "direction", "identity")
VERDICTS_OF_KIND = {kind: (REPRODUCED, CONTRADICTED, INCONCLUSIVE, NOT_COMPARABLE) for kind in KINDS[:-1]}
VERDICTS_OF_KIND["identity"] = (VERIFIED, FAILED)


# The stability rule (docs/claims.md, "Stable and fragile verdicts"), declared before any result and the same for every
# row: a verdict is stable when its test statistic lies at least STABLE_MARGIN of its own errors from every threshold
# that would change the verdict (standard errors for a seeded row, the reported numerical error for a deterministic
# one) and, for a row decided on seeds, no verdict with one seed left out differs. Else it is fragile: a last-bit
# difference of another machine, or one seed more or less, may move it. The margin, 3, lies above the largest move of
# a claim row's margin measured between two machines' kernels at the default scale: 2.5 standard errors (S2's cosine
# against dot; median over 39 rows 0.09), AVX2 native against ATEN_CPU_CAPABILITY=default on the same CPU,
# 2026-12-07 (docs/claims.md): a row at 3 or more keeps its verdict under such a move.
STABLE_MARGIN = 3.0
STABLE, FRAGILE = "stable", "fragile"


@dataclass(frozen=True)
class Decision:
    """What a decision function returns: the verdict word, its one-line reason, and the power; with what the
    stability rule reads (:func:`stability_text`): ``margin``, the distance of the test statistic from the nearest
    threshold that changes the verdict, in ``unit`` ("standard errors" or "numerical errors"; NaN where none was
    measured, ∞ where no measurement could change it, as for a row with no interval); ``left_out``, the leave-one-seed-
    out check of a seeded row: None where it was not run, "" where every verdict with one seed left out agrees, else
    the first that does not ("without seed 3: inconclusive")."""

    verdict: str
    reason: str
    power: str
    margin: float = np.nan
    unit: str = ""
    left_out: str | None = None


@dataclass(frozen=True)
class Claim:
    """One row of a claims table (and of ``results/summary.csv``); ``margin`` is the stability margin where finite
    (NaN where none was measured or none applies, or where no measurement could move the verdict: ``stability`` says
    which)."""

    experiment: str
    claim_id: str
    claim: str
    kind: str
    paper_value: float
    measured: float
    ci_low: float
    ci_high: float
    tolerance: str
    power: str
    verdict: str
    reason: str
    margin: float = np.nan
    stability: str = ""


CLAIM_COLUMNS = list(Claim.__dataclass_fields__)


def stability_text(decision: Decision, kind: str) -> str:
    """The ``stability`` cell of a row under the rule of :data:`STABLE_MARGIN`: "" for an identity or a row not
    comparable (no measurement decides those against the paper); ``"fragile: …"`` when the margin is below
    STABLE_MARGIN or a leave-one-seed-out verdict differs (each failing part named); ``"stable: …"`` otherwise, naming
    what was checked; ``"unmeasured: …"`` when the row's decision reports no margin."""
    if kind == "identity" or decision.verdict in (NOT_COMPARABLE, VERIFIED, FAILED):
        return ""
    margin, fragile, held = float(decision.margin), [], []
    if np.isnan(margin):
        said = "no margin measured"
    elif np.isinf(margin):
        said = _NOTHING_MOVES
    elif margin == MARGIN_SEARCH and decision.unit == "standard errors":  # the direction rows' search found no move
        said = f"margin ≥ {MARGIN_SEARCH:g} standard errors"
    else:
        said = f"margin {margin:.3g} {decision.unit or 'errors'}"
    if not np.isnan(margin) and margin < STABLE_MARGIN:
        fragile.append(f"{said} (< {STABLE_MARGIN:g})")
    else:
        held.append(said)
    if decision.left_out:
        fragile.append(decision.left_out)
    elif decision.left_out == "":
        held.append(_LEFT_OUT_AGREES)
    if fragile:
        return f"{FRAGILE}: " + "; ".join(fragile)
    if np.isnan(margin):
        return "unmeasured: " + "; ".join(held)
    return f"{STABLE}: " + "; ".join(held)


def is_fragile(stability) -> bool:
    """Whether a ``stability`` cell (of a summary read back, where an older one may have none) says fragile."""
    return isinstance(stability, str) and stability.strip().lower().startswith(FRAGILE)


def interval_margin(low: float, high: float, thresholds, standard_error: float) -> float:
    """The margin of an interval decision: the verdict changes when an end of [low, high] crosses a threshold, so

        margin = min over thresholds T and ends e ∈ {low, high} of |e − T| / standard_error

    (∞ with no threshold, NaN without a finite interval or a positive error): :func:`crossing_margin` over every
    (end, threshold) pair, thresholds that are None or not finite left out."""
    if not np.isfinite([low, high]).all():
        return np.nan
    thresholds = [float(t) for t in thresholds if t is not None and np.isfinite(t)]
    return crossing_margin([(end, t) for t in thresholds for end in (low, high)], standard_error)


def crossing_margin(pairs, error: float) -> float:
    """The margin of a verdict that moves when an interval end e crosses a threshold T, for any of ``pairs`` (e, T):

        margin = min over pairs of |e − T| / error

    (∞ with no pair; NaN without a positive finite error or with a non-finite end or threshold)."""
    pairs = list(pairs)
    if not (np.isfinite(error) and error > 0):
        return np.nan
    if not pairs:
        return np.inf
    values = np.array(pairs, dtype=float)
    if not np.isfinite(values).all():
        return np.nan
    return float(np.abs(values[:, 0] - values[:, 1]).min() / error)


def normal_standard_error(low: float, high: float, level: float = LEVEL) -> float:
    """The standard error of an interval at two-sided ``level`` read as normal: (high − low) / (2 z_{(1+level)/2})."""
    return float((high - low) / (2 * stats.norm.ppf((1 + level) / 2)))


def claim(
    experiment: str,
    claim_id: str,
    statement: str,
    kind: str,
    decision: Decision,
    *,
    measured: float,
    low: float = np.nan,
    high: float = np.nan,
    paper: float = np.nan,
    tolerance: str = "",
) -> Claim:
    """A claim row from a decision (checks that the verdict is one its kind may give)."""
    if decision.verdict not in VERDICTS_OF_KIND[kind]:
        raise ValueError(f"{claim_id}: verdict {decision.verdict!r} is not one of a {kind} claim's {VERDICTS_OF_KIND[kind]}")
    return Claim(
        experiment,
        claim_id,
        statement,
        kind,
        _number(paper),
        _number(measured),
        _number(low),
        _number(high),
        tolerance,
        decision.power,
        decision.verdict,
        decision.reason,
        # a stored margin is a finite number (an artifact holds no ∞): ∞ is in the text, "no measurement could move it"
        float(decision.margin) if stability_text(decision, kind) and np.isfinite(decision.margin) else np.nan,
        stability_text(decision, kind),
    )


# Columns of a claims table where an empty cell means "not applicable": no paper number, no measurement (a row that
# is not comparable), no interval (a deterministic or single-seed value), no stability (an identity, a row not comparable).
CLAIM_NOT_APPLICABLE = ("paper_value", "measured", "ci_low", "ci_high", "margin", "stability")
# The columns a claims table written before the stability rule lacks (read back, they are added as not applicable).
STABILITY_COLUMNS = ("margin", "stability")


_UNIT = re.compile(r"margin \S+ ([a-z][a-z ]*?)(?: \(|;|$)")
_LEFT_OUT_AGREES = "every verdict with one seed left out agrees"
_NOTHING_MOVES = "no measurement could move it"


def decision_of(row) -> Decision:
    """The decision a claim row records (a :class:`Claim` or a row of a claims table): its verdict, reason, power,
    margin, and the unit and leave-one-seed-out check its ``stability`` text names (:func:`stability_text`)."""
    margin = getattr(row, "margin", np.nan)
    text = getattr(row, "stability", "")
    text = text if isinstance(text, str) else ""
    if _NOTHING_MOVES in text:
        margin = np.inf
    unit = _UNIT.search(text)
    moved = [part for part in text.partition(": ")[2].split("; ") if part.startswith("without ")]
    left_out = moved[0] if moved else ("" if _LEFT_OUT_AGREES in text else None)
    return Decision(
        row.verdict,
        row.reason,
        row.power,
        float(margin) if margin is not None else np.nan,
        unit.group(1) if unit else "",
        left_out,
    )


def claims_frame(claims: list[Claim]) -> pd.DataFrame:
    """Claim rows as a table with exactly CLAIM_COLUMNS."""
    return pd.DataFrame([asdict(c) for c in claims], columns=CLAIM_COLUMNS)


def check_claims_table(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` if it is a claims table (the columns, known kinds, each verdict one its kind may
    give), else ValueError naming what is wrong: a table read back from disk is checked before use. A table written
    before the stability rule (no ``margin`` and ``stability`` columns) is returned with them, not applicable."""
    if list(table.columns) == CLAIM_COLUMNS[: -len(STABILITY_COLUMNS)]:  # written before the stability rule
        table = table.assign(margin=np.nan, stability="")
    if list(table.columns) != CLAIM_COLUMNS:
        raise ValueError(f"a claims table has the columns {CLAIM_COLUMNS}, got {list(table.columns)}")
    for row in table.itertuples(index=False):
        if row.kind not in KINDS:
            raise ValueError(f"{row.claim_id}: unknown kind {row.kind!r}; use one of {KINDS}")
        if row.verdict not in VERDICTS_OF_KIND[row.kind]:
            raise ValueError(
                f"{row.claim_id}: verdict {row.verdict!r} is not one of a {row.kind} claim's {VERDICTS_OF_KIND[row.kind]}"
            )
    return table


def _number(value) -> float:
    return np.nan if value is None else float(value)


def _g(value: float) -> str:
    return f"{value:.4g}"


# Statistics ----------------------------------------------------------------------------------------


def seed_interval(values, level: float = LEVEL) -> tuple[float, float, float]:
    """Mean over seeds and its Student-t interval, mean ± t_{(1+level)/2, n−1} · sd/√n. With fewer
    than two seeds there is no interval: (mean, NaN, NaN)."""
    values = np.asarray(values, dtype=float)
    if values.size == 0:
        return np.nan, np.nan, np.nan
    mean = float(values.mean())
    if values.size < 2:
        return mean, np.nan, np.nan
    level = float(level)
    if level <= 0 or level >= 1:  # (a NaN level gives a NaN interval, as before)
        raise ValueError(f"an interval's level must lie strictly between 0 and 1, got {level!r}")
    half = float(special.stdtrit(values.size - 1, (1 + level) / 2) * values.std(ddof=1) / np.sqrt(values.size))
    return mean, mean - half, mean + half


def seed_standard_error(values) -> float:
    """The standard error of a mean over seeds, sd/√n (NaN with fewer than two seeds): the unit of a seed interval's
    stability margin (:func:`decide_value`'s ``standard_error``)."""
    values = np.asarray(values, dtype=float)
    return float(values.std(ddof=1) / np.sqrt(values.size)) if values.size >= 2 else np.nan


def few_seed_bootstrap(seeds: int, level: float) -> str:
    """What a percentile bootstrap over ``seeds`` seeds (resampled with replacement) at ``level`` cannot resolve, or "".

    A resample of k seeds drawn from k holds at most two distinct seeds with probability
    P₂ = (k + C(k, 2)·(2^k − 2)) / k^k (all k draws one seed, or exactly two seeds). Where P₂ exceeds a tail's mass
    (1 − level)/2, the interval's ends may be set by resamples that repeat one or two seeds, close to those seeds' own
    values: the interval then says little beyond the seeds' range, and a verdict on it is fragile. Returns that caveat
    (to append to a row's power), empty where the seeds resolve the tails."""
    from math import comb

    k = int(seeds)
    if k < 1 or not 0 < level < 1:
        raise ValueError(f"need at least 1 seed and a level in (0, 1), got {seeds!r} and {level!r}")
    two = (k + comb(k, 2) * (2**k - 2)) / float(k) ** k
    tail = (1 - level) / 2
    if two <= tail:
        return ""
    return (
        f"; fragile: with {k} seeds, resamples of one or two distinct seeds are {two:.3g} of the bootstrap, more than "
        f"its tails ({tail:.3g} each), so the interval's ends may rest on single seeds"
    )


def holm(p_values) -> np.ndarray:
    """Holm's step-down adjustment of a family of p-values: with p_(1) ≤ … ≤ p_(k),
    p̃_(i) = max_{j ≤ i} min(1, (k − j + 1) · p_(j)). Rejecting p̃ < α controls the family-wise error at α."""
    p = np.asarray(p_values, dtype=float)
    order = np.argsort(p, kind="stable")
    scaled = np.minimum(1.0, (p.size - np.arange(p.size)) * p[order])
    adjusted = np.empty_like(p)
    adjusted[order] = np.maximum.accumulate(scaled)
    return adjusted


def _holm_step_levels(p_values, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """Per hypothesis, whether Holm's procedure at family-wise level ``alpha`` rejects it (adjusted p < α, as
    :func:`decide_directions`), and the one-sided level of the Holm step that decided it (NaN p-values: not rejected,
    level NaN): α/(k − r + 1) for one rejected at rank r (p_(r) below it), and for one not rejected the level of the
    step where the procedure stopped, which its p-value, at least p_(stop), reaches."""
    p = np.asarray(p_values, dtype=float)
    levels, rejected = np.full(p.shape, np.nan), np.zeros(p.shape, dtype=bool)
    valid = np.flatnonzero(np.isfinite(p))
    if valid.size:
        order = valid[np.argsort(p[valid], kind="stable")]
        thresholds = alpha / (valid.size - np.arange(valid.size))
        prefix = holm(p[order]) < alpha  # a prefix of the order (adjusted p-values are non-decreasing)
        stop = int(np.argmin(prefix)) if not prefix.all() else valid.size
        levels[order] = np.where(np.arange(valid.size) < stop, thresholds, thresholds[min(stop, valid.size - 1)])
        rejected[order] = prefix
    return rejected, levels


def holm_interval_levels(family: list, level: float = LEVEL) -> np.ndarray:
    """The two-sided level of the interval shown for each comparison of a Holm family (:func:`decide_directions`), so
    that the interval agrees with the verdict: 1 − 2α_i, α_i the one-sided level of the Holm step that decided it. A
    reproduced comparison at rank r of the claims' order gets α/(k − r + 1), and its interval excludes 0 from below
    exactly when its p-value is under that level (the t-test's duality); a contradicted one the same on the reverse
    side; an undecided one the smaller of the two sides' stopping levels, so that its interval holds 0. (The
    Bonferroni level 1 − 2α/k of :func:`family_level` is the first step's: with it, a comparison Holm rejects at a
    later step could show an interval holding 0.) NaN for a comparison with fewer than two pairs."""
    alpha = (1 - level) / 2
    p = np.array([c.p_values() for c in family], dtype=float).reshape(len(family), 2)
    (decided_claim, claim_side), (decided_reverse, reverse_side) = (_holm_step_levels(p[:, i], alpha) for i in (0, 1))
    one_sided = np.where(decided_claim, claim_side, np.where(decided_reverse, reverse_side, np.fmin(claim_side, reverse_side)))
    return 1 - 2 * one_sided


POWER = 0.8  # the power a planned number of seeds (or samples) is sized for
SEED_PLAN_LIMIT = 1000  # past this many seeds a plan says "more than"  # pragma: no mutate


def paired_t_power(effect: float, sd: float, n: int, alpha: float) -> float:
    """Power of the one-sided paired t-test at level ``alpha`` with ``n`` seed pairs against a true mean
    difference ``effect`` with noise ``sd``: P[T > t_{1−α, n−1}] for T noncentral t with n − 1 degrees of freedom
    and noncentrality δ = effect·√n / sd. With sd = 0 the exact sign test: power 1 where 2^−n < α, else 0.
    (Computed as ``stats.nct.sf`` and ``stats.t.ppf`` compute it, through their per-distribution methods: the same
    numbers without the public methods' argument handling, whose per-call cost made the power searches below the
    slowest part of deciding the claims; they would check n ≥ 2, 0 < α < 1 and the support's end, as this does. Test:
    tests/claims/test_verdicts.py compares the two exactly.)"""
    alpha = float(alpha)
    if not 0 < alpha < 1:
        raise ValueError(f"a one-sided test's level alpha must lie strictly between 0 and 1, got {alpha!r}")
    if n < 2:
        return 0.0
    if sd == 0:
        return float(effect > 0 and 0.5**n < alpha)
    critical = special.stdtrit(n - 1, 1.0 - alpha)  # t_{1−α, n−1}
    if critical == np.inf:  # α below the rounding of 1 − α: no statistic exceeds it
        return 0.0
    return float(stats.nct._sf(critical, n - 1, float(effect) * np.sqrt(n) / float(sd)))


def seeds_for_power(effect: float, sd: float, alpha: float, power: float = POWER, limit: int = SEED_PLAN_LIMIT) -> int | None:
    """The smallest number of seed pairs n with :func:`paired_t_power` (effect, sd, n, alpha) ≥ ``power``: the seeds
    a one-sided paired t-test needs to detect a true difference of ``effect`` (the observed one, for a plan) at the
    observed noise ``sd``. None when ``limit`` seeds would not do (an effect of 0, or of the wrong sign, never is)."""
    if not (np.isfinite(effect) and np.isfinite(sd)):
        return None  # (an effect ≤ 0 has power ≤ alpha at any n: the limit's check below refuses it)
    if paired_t_power(effect, sd, limit, alpha) < power:  # pragma: no mutate (power is never exactly the target)
        return None
    low, high = 1, limit  # power grows with n: bisect for the first n that reaches it  # pragma: no mutate
    # enough halvings of [1, limit] (once the bracket is one wide, more change nothing); bounded, so it always ends
    for _ in range(int(limit).bit_length() + 1):  # pragma: no mutate
        middle = (low + high) // 2
        reached = paired_t_power(effect, sd, middle, alpha) >= power  # pragma: no mutate (never exactly equal)
        low, high = (low, middle) if reached else (middle, high)
    return high


def detectable_difference(sd: float, n: int, alpha: float, power: float = POWER) -> float:
    """The true mean difference the one-sided paired t-test with ``n`` pairs at level ``alpha`` detects with
    probability ``power`` at noise ``sd``: the effect e solving :func:`paired_t_power` (e, sd, n, alpha) = power
    (exact, by root finding on the noncentral t; about (t_{1−α} + t_{power}) · sd/√n for large n). NaN with fewer
    than two pairs or no spread."""
    if n < 2 or not sd > 0:
        return np.nan
    # a bracket [0, high] of the root: any high with enough power will do (the next three lines only search)
    high = sd / np.sqrt(n)  # pragma: no mutate
    # power → 1 as the effect grows: a few doublings bracket it; bounded, so it always ends
    for _ in range(64):  # pragma: no mutate
        if paired_t_power(high, sd, n, alpha) >= power:  # pragma: no mutate
            break
        high *= 2  # pragma: no mutate
    else:
        raise ValueError(f"no effect reaches power {power} with n = {n}, alpha = {alpha}")
    root = optimize.brentq(lambda e: paired_t_power(e, sd, n, alpha) - power, 0.0, high, xtol=1e-12 * high)  # pragma: no mutate
    return float(root)  # (the pragma: the root's precision)


def reported_rounding(value: float) -> float:
    """Half a unit in the last digit the paper reports (read from the shortest decimal form of the
    number as stored, e.g. 1.234e-1 → 5e-5, 0.25 → 5e-3): the paper's own rounding error."""
    mantissa, _, exponent = repr(abs(float(value))).partition("e")
    decimals = len(mantissa.partition(".")[2].rstrip("0"))
    return 0.5 * 10.0 ** (int(exponent or 0) - decimals)


# Decision functions, one per kind ------------------------------------------------------------------


def decide_value(
    measured: float,
    low: float,
    high: float,
    paper: float | None,
    *,
    rounding: float = 0.0,
    mismatched: tuple[str, ...] = (),
    standard_error: float | None = None,
) -> Decision:
    """``value``: the paper's number p against our interval [low, high] (our own numerical error, or
    the seed interval), widened by the paper's rounding r.

    not comparable when a key the claim depends on differs from the paper's setting (``mismatched``
    names them) or the paper gives no number; contradicted when p ∉ [low − r, high + r]; inconclusive
    when there is no interval or it is at least as wide as |p| (it could not tell p from 0 or 2p);
    otherwise reproduced.

    Margin (:func:`crossing_margin`): from the widened ends low − r and high + r to p, and (a verdict other than
    contradicted, p ≠ 0) from the half-width to |p|, in ``standard_error`` for a seed interval (sd/√n), else in the
    interval's own half-width (the numerical error it reports)."""
    finite = np.isfinite([measured, low, high]).all()
    half = (high - low) / 2 if finite else np.nan
    power = f"interval half-width {_g(half)}" if finite else "no interval"
    if mismatched:
        return Decision(NOT_COMPARABLE, "setting differs from the paper's: " + "; ".join(mismatched), power)
    if paper is None or not np.isfinite(paper):
        return Decision(NOT_COMPARABLE, "the paper reports no number for it", power)
    if not finite:
        return Decision(INCONCLUSIVE, "no interval (fewer than two seeds, or a value is missing)", power, np.inf)
    power += f" ({half / abs(paper):.2%} of the paper's value)" if paper else ""
    error, unit = (half, "numerical errors") if standard_error is None else (standard_error, "standard errors")
    # contradicted moves when p re-enters the widened interval; the others also when the width passes |p| (p ≠ 0)
    ends = crossing_margin([(low - rounding, paper), (high + rounding, paper)], error)
    width = crossing_margin([(half, abs(paper))], error) if paper else np.inf
    margin = ends if not low - rounding <= paper <= high + rounding else min(ends, width)
    if not low - rounding <= paper <= high + rounding:
        return Decision(
            CONTRADICTED,
            f"the paper's {_g(paper)} lies outside our interval [{_g(low)}, {_g(high)}] widened by its rounding {_g(rounding)}",
            power,
            margin,
            unit,
        )
    if half >= abs(paper):
        return Decision(
            INCONCLUSIVE, f"our interval [{_g(low)}, {_g(high)}] is as wide as the paper's value itself", power, margin, unit
        )
    return Decision(
        REPRODUCED,
        f"the paper's {_g(paper)} lies inside our interval [{_g(low)}, {_g(high)}] (± its rounding {_g(rounding)})",
        power,
        margin,
        unit,
    )


def decide_bound(quantity, bound, trivial_max: float, *, slack: float = 0.0, spread: float | None = None) -> Decision:
    """``bound``: a theorem's inequality quantity ≤ bound at every measured point.

    contradicted when any point violates it by more than ``slack`` (our numerical error); a point is
    informative when its bound is below ``trivial_max``, the level from which the inequality says
    nothing useful (e.g. what a trivial predictor attains); reproduced when it holds everywhere and at
    least one point is informative, else inconclusive. Power: the share of informative points and the
    tightest quantity/bound among them.

    Margin, in numerical errors e = ``slack`` (or, with no slack, the float64 rounding of the values): a reproduced
    verdict moves when any point's gap b + slack − q or every informative point's trivial_max − b closes, so its margin
    is min(min gap, max informativeness)/e; a contradicted one when every violation closes, max over violations;
    an inconclusive one when a point violates or one becomes informative. Where the points are trained runs, another
    machine moves each as another seed would: ``spread``, the standard deviation of the gap over the runs, is then
    the unit ("run standard deviations")."""
    quantity, bound = np.asarray(quantity, dtype=float), np.asarray(bound, dtype=float)
    if quantity.size == 0:
        return Decision(INCONCLUSIVE, "no measured points", "no points", np.inf)
    violated = quantity > bound + slack
    informative = bound < trivial_max
    with np.errstate(invalid="ignore", over="ignore"):
        scale = np.nanmax(np.abs(np.concatenate([quantity, bound])))
        error = slack if slack > 0 else 8 * np.finfo(float).eps * max(float(scale), np.finfo(float).tiny)
        if spread is not None:
            error = float(spread) if spread > 0 else np.nan  # no spread over runs: no margin measured
        gaps, informing = (bound + slack - quantity) / error, (trivial_max - bound) / error
    if not np.isfinite(error):
        margin = np.nan
    elif violated.any():
        margin = float(np.nanmax(-gaps[violated]))
    elif informative.any():
        margin = float(min(np.nanmin(gaps), np.nanmax(informing[informative])))
    else:
        margin = float(min(np.nanmin(gaps), np.nanmin(-informing)))
    unit = "numerical errors" if spread is None else "run standard deviations"
    ratio = np.divide(quantity, bound, out=np.full_like(quantity, np.inf), where=bound > 0)
    tightest = float(ratio[informative].max()) if informative.any() else np.nan
    power = f"informative at {int(informative.sum())} of {quantity.size} points; tightest quantity/bound {_g(tightest)}"
    if violated.any():
        return Decision(
            CONTRADICTED,
            f"violated at {int(violated.sum())} of {quantity.size} points "
            f"(worst quantity/bound {_g(float(ratio[violated].max()))})",
            power,
            margin,
            unit,
        )
    if not informative.any():
        return Decision(
            INCONCLUSIVE,
            f"holds at all {quantity.size} points, but the bound is at or above "
            f"{_g(trivial_max)} at every one: it says nothing there",
            power,
            margin,
            unit,
        )
    return Decision(
        REPRODUCED, f"holds at all {quantity.size} points, {int(informative.sum())} of them informative", power, margin, unit
    )


SIDES = ("two", "at_most", "at_least")


def decide_rate(
    slope: float,
    low: float,
    high: float,
    predicted: float,
    *,
    side: str = "two",
    predicted_low: float | None = None,
    predicted_high: float | None = None,
    alternatives: tuple[float, ...] = (),
    margin: float = 0.0,
    noise: str | None = None,
    level: float = LEVEL,
    standard_error: float | None = None,
) -> Decision:
    """``rate``: a fitted exponent (slope with interval [low, high]) against the theory's. ``noise`` names what the
    interval's width comes from (e.g. "a bootstrap over 10 seeds"); the power says it, and a plan multiplies it.
    ``level``: the interval's confidence level (a family's Bonferroni level), at which an undecided row's plan asks for
    its decision.

    two-sided (the theory predicts the rate): contradicted when the prediction lies outside the
    interval; inconclusive when a competing rate (``alternatives``, required) lies inside it too;
    reproduced otherwise. One-sided, where the theory only bounds the rate: ``at_most`` (slope ≤
    predicted, e.g. a bound on a decay) is contradicted when the whole interval lies above the
    prediction, reproduced when it lies at or below it, inconclusive when it straddles it; ``at_least``
    mirrors it. A prediction with its own interval (``predicted_low``, ``predicted_high``) is met
    conservatively at its far end.

    ``margin`` δ ≥ 0, for a one-sided test whose truth may sit on the bound (an exponent equal to the bound's, where
    no amount of data lifts the interval off it), declared before the run: the bound is tested as non-inferiority,
    ``at_least`` reproduced when the interval lies at or above predicted − δ and contradicted when it lies wholly below
    predicted − δ (``at_most`` mirrored); the reason and power name δ. Without one, an interval that straddles the
    bound at an observed slope within rounding of it says that no sample size decides it.

    Margin (:func:`crossing_margin`), for each verdict the crossings that move it: two-sided, the prediction entering
    (contradicted), the prediction leaving or a competing rate entering (reproduced), the prediction leaving or every
    competing rate inside leaving (inconclusive); one-sided ``at_least``, the upper end reaching the bound's low end
    (contradicted), the lower end leaving its high end (reproduced), either (inconclusive), ``at_most`` mirrored; in
    standard errors of the interval read as normal at ``level``, or in ``standard_error`` (a deterministic row's
    numerical error) where given."""
    if not margin >= 0:
        raise ValueError(f"margin must be ≥ 0, got {margin!r}")
    if margin and side == "two":
        raise ValueError("a margin is for a one-sided test (side 'at_least' or 'at_most')")
    if side not in SIDES:
        raise ValueError(f"side must be one of {SIDES}, got {side!r}")
    p_low = predicted if predicted_low is None else predicted_low
    p_high = predicted if predicted_high is None else predicted_high
    if side == "two" and not alternatives:
        raise ValueError("a two-sided rate needs the competing rates it must tell apart (alternatives)")
    if not np.isfinite([slope, low, high]).all():
        return Decision(INCONCLUSIVE, "no interval for the fitted exponent", "no interval", np.inf)
    error = normal_standard_error(low, high, level) if standard_error is None else float(standard_error)
    unit = "standard errors" if standard_error is None else "numerical errors"
    shifted = (margin if side == "at_most" else -margin) if margin else 0.0
    # (interval end, threshold) pairs whose crossing moves each verdict (one-sided: the bound moved by the margin)
    at_low, at_high = (low, p_high + shifted), (high, p_low + shifted)  # at_most: contradicted, reproduced
    contradicts, reproduces = (at_low, at_high) if side == "at_most" else ((high, p_low + shifted), (low, p_high + shifted))

    def decided(verdict: str, reason: str, power: str) -> Decision:  # every verdict below, with its margin
        if side == "two":
            to_predicted = crossing_margin([(low, predicted), (high, predicted)], error)
            if verdict == CONTRADICTED:
                moves = to_predicted
            elif verdict == REPRODUCED:
                moves = min(to_predicted, crossing_margin([(e, a) for a in alternatives for e in (low, high)], error))
            else:  # every competing rate inside must leave, or the prediction leave
                inside = [a for a in alternatives if low <= a <= high]
                moves = min(to_predicted, max(crossing_margin([(low, a), (high, a)], error) for a in inside))
        else:
            moves = crossing_margin(
                [contradicts]
                if verdict == CONTRADICTED
                else [reproduces]
                if verdict == REPRODUCED
                else [contradicts, reproduces],
                error,
            )
        return Decision(verdict, reason, power, moves, unit)

    power = f"interval half-width {_g((high - low) / 2)}" + (f" from {noise}" if noise else "")
    interval = f"[{_g(low)}, {_g(high)}]"
    if side == "two":
        inside = [a for a in alternatives if low <= a <= high]
        if not low <= predicted <= high:  # and what the interval holds instead, where it is a competing rate
            held = f", which holds the competing rate(s) {', '.join(_g(a) for a in inside)}" if inside else ""
            return decided(CONTRADICTED, f"the predicted {_g(predicted)} lies outside the interval {interval}{held}", power)
        if inside:
            return decided(
                INCONCLUSIVE,
                f"the interval {interval} holds the competing rate(s) {', '.join(_g(a) for a in inside)} as well",
                f"{power}; {_two_sided_plan(slope, low, high, predicted, inside, level, noise)}",
            )
        return decided(
            REPRODUCED,
            f"the interval {interval} holds {_g(predicted)} and excludes {', '.join(_g(a) for a in alternatives)}",
            power,
        )
    shift = 0.0
    if margin:
        power += f"; margin {_g(margin)} declared in advance"
        shift = margin if side == "at_most" else -margin
        p_low, p_high, predicted = p_low + shift, p_high + shift, predicted + shift
    # the reason names the bound and its margin, then the level tested (the bound moved by the margin)
    sign = "plus" if side == "at_most" else "less"
    bound = f"the bound's {{}} {sign} its margin {_g(margin)}, {{}}" if margin else "the bound's {}"

    def said(level: float) -> str:
        return bound.format(_g(level - shift), _g(level)) if margin else bound.format(_g(level))

    # reproduced by the margin alone: the interval reaches past the bound itself, and the reason says so
    within = ": reproduced only within the margin (the interval reaches past the bound itself)"
    if side == "at_most":
        if low > p_high:
            return decided(CONTRADICTED, f"the whole interval {interval} lies above {said(p_high)}", power)
        if high <= p_low:
            only = within if high > p_low - shift else ""
            return decided(REPRODUCED, f"the whole interval {interval} lies at or below {said(p_low)}{only}", power)
    else:
        if high < p_low:
            return decided(CONTRADICTED, f"the whole interval {interval} lies below {said(p_low)}", power)
        if low >= p_high:
            only = within if low < p_high - shift else ""
            return decided(REPRODUCED, f"the whole interval {interval} lies at or above {said(p_high)}{only}", power)
    distance = abs(slope - predicted)
    if not margin and distance <= 1e-3 * max(abs(predicted), 1e-12):
        plan = "the observed slope sits on the bound: no sample size decides a one-sided test there without a margin"
    else:
        plan = _rate_plan((high - low) / 2, distance, noise=noise)
    target = said(predicted)
    if p_low != p_high:  # a bound known to a range is met at its far end: name both ends
        ends = f"the bound's range [{_g(p_low - shift)}, {_g(p_high - shift)}]"
        target = f"{ends} {sign} its margin {_g(margin)}" if margin else ends
    return decided(INCONCLUSIVE, f"the interval {interval} straddles {target}", f"{power}; {plan}")


def _two_sided_plan(
    slope: float, low: float, high: float, predicted: float, inside, level: float, noise: str | None, power: float = POWER
) -> str:
    """For a two-sided rate whose interval holds the prediction and competing rates (``inside``): the data that give
    ``power`` to decide it at the observed slope, if each arm of the interval (slope − low, high − slope) shrinks as
    1/√n. It decides at the first of two events: the arm toward the prediction falls below the slope's distance to it
    (contradicted), or the arm toward each competing rate falls below the distance to that rate (reproduced). The plan
    (:func:`_rate_plan`) is for the deciding arm and distance, z at the interval's ``level``."""

    def arm_to(target: float) -> tuple[float, float]:
        arm, distance = (slope - low, slope - target) if target < slope else (high - slope, target - slope)
        return (arm / distance if distance > 0 else np.inf), arm, distance

    contradicted = arm_to(predicted)
    reproduced = max((arm_to(a) for a in inside), key=lambda pair: pair[0])  # every competing rate must be left
    ratio, arm, distance = min(contradicted, reproduced, key=lambda pair: pair[0])
    if not np.isfinite(ratio):
        distance = 0.0  # neither decision is reachable at this slope
    return _rate_plan(arm, distance, level, power, noise, shrinks=f"each arm ∝ 1/√n; interval at {level:.4g}")


def _rate_plan(
    half_width: float,
    distance: float,
    level: float = LEVEL,
    power: float = POWER,
    noise: str | None = None,
    shrinks: str = "half-width ∝ 1/√n",
) -> str:
    """For an undecided rate: how much more data would give ``power`` to decide it at the observed slope, if the
    interval's half-width h (or the arm that decides it: ``shrinks`` says which) shrinks as 1/√n (seeds or samples,
    whichever the interval is over: ``noise`` names it): the interval must reach
    (z_{(1+level)/2} + z_power) · h / z_{(1+level)/2} ≤ distance, i.e. n × (that / distance)²."""
    z = stats.norm.ppf((1 + level) / 2)
    if not distance > 0:
        return "the observed slope sits on the value to tell apart: no amount of data is planned"
    factor = ((z + stats.norm.ppf(power)) * half_width / z / distance) ** 2
    return (
        f"about {factor:.3g}× the seeds or samples of its interval ({noise or 'whichever it is over'}) would give "
        f"{power:.0%} power to decide it at the observed slope ({shrinks})"
    )


@dataclass(frozen=True)
class Paired:
    """Seed-paired differences ``better − worse`` of one comparison fixed in advance."""

    label: str
    differences: np.ndarray
    seeds: tuple = ()  # the seed of each difference, where known (:func:`paired_by_seed`)

    def without(self, seed) -> Paired:
        """These differences less the one of ``seed`` (its position, where the seeds are not known); unchanged where
        there is none."""
        d = np.asarray(self.differences, dtype=float)
        if self.seeds:
            keep = [i for i, s in enumerate(self.seeds) if s != seed]
            return Paired(self.label, d[keep], tuple(self.seeds[i] for i in keep))
        keep = [i for i in range(d.size) if i != seed]
        return Paired(self.label, d[keep])

    def interval(self, level: float = LEVEL) -> tuple[float, float, float]:
        return seed_interval(self.differences, level)

    def p_values(self) -> tuple[float, float]:
        """One-sided t-test p-values for mean > 0 (the claim) and mean < 0 (its reverse); NaN with
        fewer than two pairs. Identical differences (sd = 0, e.g. accuracies that move in steps of
        1/n_test) have no t statistic: they get the exact sign test, 2^−n on their side and 1 on the other."""
        d = np.asarray(self.differences, dtype=float)
        if d.size < 2:
            return np.nan, np.nan
        sd = d.std(ddof=1)
        if sd == 0:
            sign = 0.5**d.size
            return (sign if d.mean() > 0 else 1.0), (sign if d.mean() < 0 else 1.0)
        t = d.mean() / (sd / np.sqrt(d.size))
        return float(special.stdtr(d.size - 1, -t)), float(special.stdtr(d.size - 1, t))  # P[T > t], P[T < t]


def _verdict_words(family: list[Paired], level: float = LEVEL) -> list[str]:
    """The verdict of each comparison of a family as :func:`decide_directions` decides it, and nothing else."""
    alpha = (1 - level) / 2
    p = np.array([c.p_values() for c in family], dtype=float).reshape(len(family), 2)
    valid = np.isfinite(p[:, 0])
    adjusted = np.full_like(p, np.nan)
    if valid.any():
        adjusted[valid, 0], adjusted[valid, 1] = holm(p[valid, 0]), holm(p[valid, 1])
    return [REPRODUCED if b < alpha else CONTRADICTED if w < alpha else INCONCLUSIVE for b, w in adjusted]


def _left_out(family: list[Paired]) -> list[tuple[str, list[Paired]]]:
    """The family with one seed left out, for each seed it holds: (the seed's name, the comparisons without it). Seeds
    are named where every comparison knows its own, else by position."""
    if all(c.seeds for c in family):
        seeds = sorted({s for c in family for s in c.seeds})
        return [(f"seed {s}", [c.without(s) for c in family]) for s in seeds]
    size = max((np.asarray(c.differences).size for c in family), default=0)
    return [(f"seed pair #{i + 1}", [c.without(i) for c in family]) for i in range(size)]


def leave_one_seed_out(family: list[Paired], level: float = LEVEL) -> list[list[tuple[str, str]]]:
    """For each seed of a family, the verdict of each comparison with that seed left out of every comparison (the
    family decided again, Holm included): ``[[(seed, verdict), …] per comparison]``."""
    out: list[list[tuple[str, str]]] = [[] for _ in family]
    for name, reduced in _left_out(family):
        for i, word in enumerate(_verdict_words(reduced, level)):
            out[i].append((name, word))
    return out


def first_moved(verdict: str, left_out: list[tuple[str, str]]) -> str:
    """ "" where every leave-one-out verdict is ``verdict``, else the first that is not ("without seed 3: …") and how
    many do not."""
    moved = [(name, word) for name, word in left_out if word != verdict]
    if not moved:
        return ""
    name, word = moved[0]
    more = f" (and {len(moved) - 1} other seed(s))" if len(moved) > 1 else ""
    return f"without {name}: {word}{more}"


MARGIN_SEARCH = 10.0  # standard errors: the farthest shift of one comparison the direction rows' margin search tries


def _holm_rows(p: np.ndarray) -> np.ndarray:
    """:func:`holm` applied to each row of ``p`` over its finite entries (the others NaN)."""
    finite = np.isfinite(p)
    order = np.argsort(np.where(finite, p, np.inf), axis=1, kind="stable")
    ranked = np.take_along_axis(np.where(finite, p, np.inf), order, axis=1)
    count = finite.sum(axis=1, keepdims=True)
    counted = np.arange(p.shape[1]) < count
    scaled = np.where(counted, np.minimum(1.0, (count - np.arange(p.shape[1])) * np.where(counted, ranked, 0.0)), np.nan)
    adjusted = np.empty_like(scaled)
    np.put_along_axis(adjusted, order, np.fmax.accumulate(scaled, axis=1), axis=1)
    return np.where(finite, adjusted, np.nan)


def _words_moved_to(p: np.ndarray, j: int, df: int, t_values: np.ndarray, alpha: float) -> np.ndarray:
    """The verdict of each comparison (columns) of a family with one-sided p-values ``p`` (k × 2: claim, reverse) when
    comparison ``j``'s t statistic is each of ``t_values`` (rows), Holm-adjusted as :func:`decide_directions`."""
    claim_side = np.tile(p[:, 0], (t_values.size, 1))
    reverse_side = np.tile(p[:, 1], (t_values.size, 1))
    claim_side[:, j], reverse_side[:, j] = special.stdtr(df, -t_values), special.stdtr(df, t_values)
    better, worse = _holm_rows(claim_side), _holm_rows(reverse_side)
    return np.where(better < alpha, REPRODUCED, np.where(worse < alpha, CONTRADICTED, INCONCLUSIVE))


def _t_margins(family: list[Paired], level: float = LEVEL) -> np.ndarray:
    """Per comparison of a Holm family, its margin in standard errors: the smallest shift of the t statistic of any one
    comparison of the family (its own or another's: Holm couples them), up or down, that changes its verdict as
    :func:`decide_directions` decides it (adjusted one-sided p < α on either side). Holm's verdicts can change only
    where a p-value crosses a step level α/m or another p-value, so each comparison's t is tried just past each such
    edge within :data:`MARGIN_SEARCH` (a comparison no such shift moves: MARGIN_SEARCH, "at least"; one with no test,
    fewer than two pairs: ∞). A comparison with no spread (the
    exact sign test) is moved by any spread at all where undecided (margin 0) and by none where decided; non-finite
    differences: NaN."""
    alpha = (1 - level) / 2
    size = len(family)
    arrays = [np.asarray(c.differences, dtype=float) for c in family]
    p = np.array([c.p_values() for c in family], dtype=float).reshape(size, 2)
    words = np.array(_verdict_words(family, level), dtype=object)
    margins = np.full(size, np.inf)
    shiftable = []  # comparisons with a t statistic: (index, t, degrees of freedom)
    for i, d in enumerate(arrays):
        if d.size >= 2 and not np.isfinite(d).all():
            margins[i] = np.nan
        elif d.size >= 2 and d.std(ddof=1) == 0:
            margins[i] = 0.0 if words[i] == INCONCLUSIVE else np.inf
        elif d.size >= 2:
            shiftable.append((i, d.mean() / (d.std(ddof=1) / np.sqrt(d.size)), d.size - 1))
    # Holm's verdicts change only where comparison j's one-sided p-value crosses a step level α/m or another
    # comparison's p-value (on the claim's side or the reverse's): those are the only t_j where any verdict can move.
    levels = alpha / np.arange(1, size + 1)
    for j, t, df in shiftable:
        on_claim = np.concatenate([levels, np.delete(p[:, 0], j)])  # p_j = P[T > t]: t = −stdtrit(df, p)
        on_reverse = np.concatenate([levels, np.delete(p[:, 1], j)])  # reverse p_j = P[T < t]: t = stdtrit(df, p)
        edges = np.concatenate([-special.stdtrit(df, on_claim), special.stdtrit(df, on_reverse)])
        edges = np.unique(edges[np.isfinite(edges) & (np.abs(edges - t) <= MARGIN_SEARCH)])
        if not edges.size:
            continue
        # each edge crossed, a hair beyond it (away from t): the verdicts there
        beyond = edges + np.where(edges >= t, 1.0, -1.0) * 1e-9 * np.maximum(1.0, np.abs(edges))
        changed = _words_moved_to(p, j, df, beyond, alpha) != words.astype(str)[None, :]
        distance = np.abs(edges - t)
        for i in np.flatnonzero(changed.any(axis=0)):
            if not np.isnan(margins[i]):
                margins[i] = min(margins[i], float(distance[changed[:, i]].min()))
    # a comparison with a test that no shift up to the search's end moves: at least MARGIN_SEARCH (not ∞: a larger
    # shift would)
    for i, _, _ in shiftable:
        margins[i] = min(margins[i], MARGIN_SEARCH)
    return margins


def decide_directions(family: list[Paired], level: float = LEVEL) -> list[Decision]:
    """``direction``: each comparison of a family claims better − worse > 0, tested one-sided at
    α = (1 − level)/2 on seed-paired differences, Holm-corrected over the family (and, separately,
    for the reverse direction).

    reproduced when the claim's adjusted p < α; contradicted when the reverse's adjusted p < α;
    inconclusive otherwise (or with fewer than two pairs). Power: the smallest significant
    difference at the observed noise, t_{1−α/k, n−1} · sd/√n (Holm's strictest step; a true effect of
    that size is declared about half the time).

    Stability: each margin is :func:`_t_margins`'s, in standard errors; each comparison's leave-one-seed-out verdicts
    are the family decided again without each of its seeds (:func:`leave_one_seed_out`)."""
    alpha = (1 - level) / 2
    margins, left_out = _t_margins(family, level), leave_one_seed_out(family, level)
    p = np.array([c.p_values() for c in family], dtype=float).reshape(len(family), 2)
    valid = np.isfinite(p[:, 0])
    adjusted = np.full_like(p, np.nan)
    if valid.any():
        adjusted[valid, 0], adjusted[valid, 1] = holm(p[valid, 0]), holm(p[valid, 1])
    size = int(valid.sum())
    decisions = []
    for comparison, (better, worse), margin, dropped in zip(family, adjusted, margins, left_out, strict=True):
        d = np.asarray(comparison.differences, dtype=float)
        if d.size < 2:
            decisions.append(Decision(INCONCLUSIVE, f"{d.size} seed pair(s): no interval", "no interval", np.inf))
            continue
        sd = float(d.std(ddof=1))
        strictest = alpha / size
        smallest = special.stdtrit(d.size - 1, 1 - strictest) * sd / np.sqrt(d.size)
        power = (
            f"smallest significant difference at Holm's first step {_g(float(smallest))}, {POWER:.0%} power at "
            f"{_g(detectable_difference(sd, d.size, strictest))} ({d.size} seeds, Holm family of {size})"
            if smallest > 0
            else f"no spread: exact sign test ({d.size} seeds, Holm family of {size})"
        )
        if better < alpha:
            decision = Decision(REPRODUCED, f"Holm-adjusted p = {_g(better)} < {alpha:g}", power)
        elif worse < alpha:
            decision = Decision(CONTRADICTED, f"the reverse holds: Holm-adjusted p = {_g(worse)} < {alpha:g}", power)
        else:
            decision = Decision(
                INCONCLUSIVE,
                f"neither direction decided: Holm-adjusted p = {_g(better)} (claim), {_g(worse)} (reverse), α = {alpha:g}",
                f"{power}; {_seed_plan(float(d.mean()), sd, strictest)}",
            )
        moved = first_moved(decision.verdict, dropped)
        decisions.append(replace(decision, margin=float(margin), unit="standard errors", left_out=moved))
    return decisions


def _seed_plan(mean: float, sd: float, alpha: float) -> str:
    """For an undecided comparison: the seeds that give :data:`POWER` to decide it, in the direction the observed
    mean points, at the observed difference and noise and the family's strictest level (Holm's first step)."""
    needed = seeds_for_power(abs(mean), sd, alpha)
    side = "claim" if mean > 0 else "reverse"  # pragma: no mutate (mean = 0 plans nothing: needed is None)
    if needed is None:
        return (
            f"no number of seeds up to {SEED_PLAN_LIMIT} gives {POWER:.0%} power at the observed difference {_g(mean)}"
            if mean
            else "the observed difference is 0: no number of seeds is planned"
        )
    return f"{needed} seeds would give {POWER:.0%} power to decide it ({side}) at the observed difference {_g(mean)}"


def decide_association(x, y, *, sign: int, level: float = LEVEL, power: float = POWER) -> Decision:
    """``direction``: a monotone association between two measured quantities, "higher x goes with lower y" (``sign``
    −1) or with higher y (+1), over independent runs: Spearman's ρ with the interval

        tanh(atanh ρ ± z_{(1+level)/2} · √(1.06/(n − 3)))     (Fieller, Hartley and Pearson's variance for Spearman),

    reproduced when the interval lies wholly on the claimed side of 0, contradicted when wholly on the other,
    otherwise inconclusive (also with fewer than 4 points or no variation). Power: the interval's half-width and the
    points that give ``power`` to decide at the observed ρ, 3 + 1.06 ((z_α + z_power)/atanh|ρ|)²."""
    if sign not in (-1, 1):
        raise ValueError(f"sign must be -1 or +1, got {sign!r}")
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    keep = np.isfinite(x) & np.isfinite(y)
    x, y = x[keep], y[keep]
    n = int(x.size)
    if n < 4 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return Decision(
            INCONCLUSIVE, f"{n} points{' without variation' if n >= 4 else ''}: no rank correlation", f"{n} points", np.inf
        )
    rho = float(stats.spearmanr(x, y).statistic)
    z = stats.norm.ppf((1 + level) / 2)
    half = z * np.sqrt(1.06 / (n - 3))
    centre = float(np.arctanh(np.clip(rho, -0.999999, 0.999999)))
    low, high = float(np.tanh(centre - half)), float(np.tanh(centre + half))
    needed = 3 + 1.06 * ((z + stats.norm.ppf(power)) / abs(centre)) ** 2 if rho else np.inf
    plan = f"{int(np.ceil(needed))} points give {power:.0%} power at ρ = {_g(rho)}" if np.isfinite(needed) else "ρ = 0"
    said = f"Spearman ρ = {_g(rho)} [{_g(low)}, {_g(high)}] over {n} runs"
    text = f"{n} points; interval ±{_g(half)} in atanh ρ; {plan}"
    claimed, reverse = (high < 0, low > 0) if sign < 0 else (low > 0, high < 0)
    side = "negative" if sign < 0 else "positive"
    # margin: the ends' distance from 0 in atanh ρ, in its standard errors √(1.06/(n − 3))
    margin = interval_margin(centre - half, centre + half, [0.0], float(np.sqrt(1.06 / (n - 3))))
    if claimed:
        return Decision(REPRODUCED, f"{said}: {side}", text, margin, "standard errors")
    if reverse:
        return Decision(CONTRADICTED, f"{said}: the interval lies on the other side of 0", text, margin, "standard errors")
    return Decision(INCONCLUSIVE, f"{said}: the interval contains 0", text, margin, "standard errors")


def decide_equivalence(
    difference: float, low: float, high: float, margin: float, noise: str | None = None, level: float = LEVEL
) -> Decision:
    """Two quantities the paper says are equal (a difference d with interval [low, high]), tested for equivalence
    within a margin δ > 0 declared before the run (two one-sided tests at the interval's level; ``noise`` names what
    the interval's width comes from, as for :func:`decide_rate`):

        reproduced     −δ ≤ low and high ≤ δ (the whole interval within the margin),
        contradicted   low > δ or high < −δ (the whole interval outside it),
        inconclusive   otherwise, with how much more data would decide it at the observed difference.

    Stability margin (:func:`crossing_margin`): for each verdict the crossings of ±δ that move it, in standard errors
    of the interval read as normal at ``level``."""
    if not margin > 0:
        raise ValueError(f"an equivalence test needs a margin > 0, got {margin!r}")
    if not np.isfinite([difference, low, high]).all():
        return Decision(INCONCLUSIVE, "no interval for the difference", "no interval", np.inf)
    error = normal_standard_error(low, high, level)
    if -margin <= low and high <= margin:  # reproduced: moves when either end leaves ±δ
        moves = crossing_margin([(low, -margin), (high, margin)], error)
    elif low > margin or high < -margin:  # contradicted: moves when the end beyond ±δ comes back
        moves = crossing_margin([(low, margin)] if low > margin else [(high, -margin)], error)
    else:  # inconclusive: to reproduced every end outside must come in; to contradicted one end must cross the far side
        outside = [pair for pair, out in (((low, -margin), low < -margin), ((high, margin), high > margin)) if out]
        to_reproduced = max((crossing_margin([pair], error) for pair in outside), default=0.0)
        moves = min(to_reproduced, crossing_margin([(low, margin), (high, -margin)], error))
    stability = {"margin": moves, "unit": "standard errors"}
    interval = f"[{_g(low)}, {_g(high)}]"
    power = (
        f"interval half-width {_g((high - low) / 2)}{f' from {noise}' if noise else ''}; margin ±{_g(margin)} declared in advance"
    )
    if -margin <= low and high <= margin:
        return Decision(REPRODUCED, f"the whole interval {interval} lies within ±{_g(margin)}", power, **stability)
    if low > margin or high < -margin:
        return Decision(CONTRADICTED, f"the whole interval {interval} lies outside ±{_g(margin)}", power, **stability)
    distance = margin - abs(difference)  # > 0: the estimate lies within the margin, data would confirm it
    plan = _rate_plan((high - low) / 2, abs(distance), noise=noise)
    if distance <= 0:
        plan = f"the observed difference {_g(difference)} lies on or outside the margin; {plan}"
    # the interval may exclude 0 and still cross the margin: a difference shown, not shown to exceed the margin
    shown = "" if low <= 0 <= high else " (it excludes 0: a difference, not shown to be larger than the margin)"
    return Decision(
        INCONCLUSIVE, f"the interval {interval} crosses the margin ±{_g(margin)}{shown}", f"{power}; {plan}", **stability
    )


def decide_identity(error: float, tolerance: float) -> Decision:
    """``identity``: mathematics or our own self-consistency. verified when the error is at most the
    tolerance, failed otherwise (a missing error fails)."""
    power = f"tolerance {_g(tolerance)}"
    if np.isfinite(error) and error <= tolerance:
        return Decision(VERIFIED, f"error {_g(error)} ≤ {_g(tolerance)}", power)
    return Decision(FAILED, f"error {_g(error)} > {_g(tolerance)}", power)


# Builders shared by the papers' claims modules -----------------------------------------------------


def value_claim(
    experiment: str,
    spec,
    suffix: str,
    label: str,
    measured: float,
    low: float,
    high: float,
    paper: float | None,
    *,
    mismatched: tuple[str, ...],
    tolerance: str,
    ranges: dict | None = None,
    at_points: dict | None = None,
    standard_error: float | None = None,
) -> Claim:
    """A ``value`` claim of registry claim ``spec`` (:func:`decide_value` with the paper's rounding and, for a seed
    interval, its ``standard_error``);
    the keys the paper leaves unreported are named in the reason. With ``ranges`` ({key: {"configured": value,
    "range": [values]}}, the config's ``unreported_ranges``), the rule for unreported settings
    (:func:`over_unreported_ranges`), over ``at_points`` ({(key, value): (Decision, measured)}: this row decided the
    same way at each trained point of those ranges)."""
    paper = np.nan if paper is None else float(paper)
    rounding = reported_rounding(paper) if np.isfinite(paper) else 0.0
    decision = decide_value(measured, low, high, paper, rounding=rounding, mismatched=mismatched, standard_error=standard_error)
    if spec.unreported and decision.verdict != NOT_COMPARABLE:
        decision = replace(
            decision, reason=f"{decision.reason}; not reported by the paper, used as configured: {', '.join(spec.unreported)}"
        )
    if ranges is not None:
        decision = over_unreported_ranges(decision, spec.unreported, ranges, at_points, measured)
    return claim(
        experiment,
        f"{experiment}.{spec.key}{suffix}",
        label,
        "value",
        decision,
        measured=measured,
        low=low,
        high=high,
        paper=paper,
        tolerance=tolerance,
    )


def over_unreported_ranges(
    decision: Decision,
    unreported: tuple[str, ...],
    ranges: dict,
    at_points: dict | None = None,
    measured: float = np.nan,
) -> Decision:
    """The rule for unreported settings on a value decided at one point: a row whose setting the paper leaves open
    (``unreported`` keys) is reproduced only if reproduced at every point of the plausible ranges declared for those
    keys in advance (``ranges``: {key: {"configured": this run's value, "range": [values]}}), contradicted only if
    contradicted at every one, otherwise not comparable, with the span of the measured value and the key that moves
    it most. ``decision`` and ``measured`` are the row at the configured point; ``at_points`` ({(key, value):
    (Decision, measured)}) the same row decided the same way at each trained point, one open key varied at a time
    (:func:`crlrepro.claims.spec.range_points`; interactions between keys are not covered). Convergence at a point is
    whatever the row's own decision checks there. A point not trained (or a key with no declared range) leaves the
    row not comparable, naming them and the verdict at the configured point::

        verdict = v               if the row's verdict is v at every point (inconclusive everywhere: inconclusive)
                  not comparable  otherwise (with the span and the key that moves the value most)"""
    if decision.verdict == NOT_COMPARABLE or not unreported:
        return decision
    at_points = at_points or {}
    untrained, undeclared, judged = [], [], []
    for key in unreported:
        if key not in ranges:
            undeclared.append(key)
            continue
        configured, values = ranges[key]["configured"], list(ranges[key]["range"])
        if configured not in values:
            untrained.append(f"{key}: configured {configured!r}, outside its declared range {values}")
        missing = [value for value in values if value != configured and (key, value) not in at_points]
        if missing:
            untrained.append(f"{key} ∈ {values} (configured {configured!r}; not trained: {missing})")
        judged += [(key, value, *at_points[key, value]) for value in values if (key, value) in at_points]
    if untrained or undeclared:
        missing = "; ".join(untrained + [f"{key}: no range declared" for key in undeclared])
        return Decision(
            NOT_COMPARABLE,
            f"{RANGES_NOT_TRAINED} (train_unreported_ranges: true, or a list naming this experiment, in its config "
            f"trains them): {missing}. Measured at the configured point only, where it "
            f"is {decision.verdict}: {decision.reason}",
            decision.power,
        )
    if not judged:  # every open key's range is its configured value alone
        return decision
    return _over_points(decision, float(measured), judged, {key: ranges[key]["configured"] for key in ranges})


def _over_points(decision: Decision, measured: float, judged: list, configured: dict) -> Decision:
    """The verdict over the configured point (``decision``, ``measured``; ``configured``: {key: its configured value})
    and the trained points ``judged`` [(key, value, Decision, measured)]: the one verdict every point shares, else not
    comparable with the span and the key that moves the value most."""
    blocked = [(key, value, d) for key, value, d, _ in judged if d.verdict == NOT_COMPARABLE]
    if blocked:
        key, value, d = blocked[0]
        return Decision(NOT_COMPARABLE, f"not comparable at {key} = {value!r}: {d.reason}", decision.power)
    words = [decision.verdict] + [d.verdict for _, _, d, _ in judged]
    values = np.array([measured] + [m for *_, m in judged], dtype=float)
    span = f"the measured value spans [{np.nanmin(values):.4g}, {np.nanmax(values):.4g}]"
    points = f"{len(words)} points of the declared ranges (each open key varied alone, the others as configured)"
    if len(set(words)) == 1:  # it moves when any point's verdict moves: the least margin, the first seed that moves one
        every = [decision] + [d for _, _, d, _ in judged]
        moved = [d.left_out for d in every if d.left_out]
        left_out = moved[0] if moved else ("" if all(d.left_out == "" for d in every) else None)
        margins = np.array([d.margin for d in every], dtype=float)  # a point whose margin was not recorded: skipped
        return Decision(
            words[0],
            f"{words[0]} at all {points}; {span}; at the configured point: {decision.reason}",
            decision.power,
            float(np.nanmin(margins)) if not np.isnan(margins).all() else np.nan,
            decision.unit,
            left_out,
        )
    by_key: dict[str, list] = {}
    for key, value, _, m in judged:
        by_key.setdefault(key, [(measured, configured[key])]).append((float(m), value))
    moves = {key: np.ptp([m for m, _ in pts]) for key, pts in by_key.items()}
    key = max(moves, key=lambda k: moves[k] if np.isfinite(moves[k]) else -np.inf)
    low, high = min(by_key[key], key=lambda p: p[0]), max(by_key[key], key=lambda p: p[0])
    counts = ", ".join(f"{word} at {words.count(word)}" for word in dict.fromkeys(words))
    return Decision(
        NOT_COMPARABLE,
        f"{UNREPORTED_DECIDES}: the verdict changes over the {points}: {counts}; {span}, moved most by {key} (from "
        f"{low[0]:.4g} at {low[1]!r} to {high[0]:.4g} at {high[1]!r}); at the configured point it is {decision.verdict}: "
        f"{decision.reason}",
        decision.power,
    )


def direction_claims(experiment: str, family: list[tuple[str, str, Paired]]) -> list[Claim]:
    """``direction`` claims of one family: (claim id, statement, seed-paired differences) each, the
    family Holm-corrected together (:func:`decide_directions`); each interval at the level of the Holm step that
    decided it (:func:`holm_interval_levels`)."""
    decisions = decide_directions([paired for _, _, paired in family])
    levels = holm_interval_levels([paired for _, _, paired in family])
    rows = []
    for (claim_id, statement, paired), decision, level in zip(family, decisions, levels, strict=True):
        mean, low, high = paired.interval(level) if np.isfinite(level) else paired.interval()
        rows.append(
            claim(
                experiment,
                claim_id,
                statement,
                "direction",
                decision,
                measured=mean,
                low=low,
                high=high,
                tolerance=f"seed-paired one-sided t-test, Holm over {len(family)}; interval at {_step_level(level)}",
            )
        )
    return rows


def _step_level(level: float) -> str:
    return f"its Holm step's {level:.4g}" if np.isfinite(level) else "no level (fewer than two seed pairs)"


def paired_by_seed(values_a: pd.Series, values_b: pd.Series, label: str) -> Paired:
    """Seed-paired differences a − b of two Series indexed by seed (seeds with a value in both), in seed order, computed
    in float64 (values of a narrower type are converted first). A seed listed twice in either is a ValueError (it pairs
    with nothing in particular)."""
    for values in (values_a, values_b):
        if not values.index.is_unique:
            repeated = sorted(set(values.index[values.index.duplicated()].tolist()))
            raise ValueError(f"{label}: seeds {repeated} appear more than once, so they cannot be paired")
    # the seeds in both, sorted, and where each sits (numpy: a pandas join costs ~30× more, and this runs per comparison)
    _, at_a, at_b = np.intersect1d(values_a.index.to_numpy(), values_b.index.to_numpy(), assume_unique=True, return_indices=True)
    a, b = values_a.to_numpy(dtype=float)[at_a], values_b.to_numpy(dtype=float)[at_b]
    both = ~(np.isnan(a) | np.isnan(b))
    with np.errstate(invalid="ignore"):  # inf − inf is NaN, silently, as pandas' subtraction gives it
        return Paired(label, a[both] - b[both], tuple(values_a.index.to_numpy()[at_a][both].tolist()))


def every_step_claims(experiment: str, groups: list[tuple[str, str, list[Paired]]]) -> list[Claim]:
    """``direction`` claims that every comparison of a group goes the claimed way, e.g. "recall@1 rises at every step
    of m" (monotone): an intersection–union test. Every comparison of every group forms one Holm family. A group is
    reproduced when all of its comparisons are, contradicted when any one is (its reverse holds), else inconclusive;
    its measured value and interval (at its Holm step's level, :func:`holm_interval_levels`) are those of its decisive
    comparison, the weakest one on the claim's side (largest p; when contradicted, the strongest reverse), and its
    reason leads with that comparison."""

    def verdict_of(words: list[str]) -> str:
        return CONTRADICTED if CONTRADICTED in words else REPRODUCED if set(words) == {REPRODUCED} else INCONCLUSIVE

    def decisive_of(comparisons: list[Paired], verdict: str) -> int:
        # the weakest comparison on the claim's side (largest p; one with no p first): when the group is contradicted
        # it is the strongest reverse, a one-sided test's reverse p being 1 − its p
        p = np.array([c.p_values()[0] for c in comparisons], dtype=float)
        return int(np.argmax(np.where(np.isfinite(p), p, np.inf)))

    return _group_claims(experiment, groups, verdict_of, decisive_of, "every one must hold")


def any_of_claims(experiment: str, groups: list[tuple[str, str, list[Paired]]]) -> list[Claim]:
    """``direction`` claims that at least one comparison of a group goes the claimed way, e.g. "some
    λ/ν ≠ 1 beats InfoNCE" or "some interior split beats this extreme". Every comparison of every
    group forms one Holm family (so nothing is chosen after seeing the data). A group is reproduced
    when any of its comparisons is, contradicted when all of them are, else inconclusive; its
    measured value and interval (at its Holm step's level, :func:`holm_interval_levels`) are those of its decisive
    comparison: the one with the smallest p-value on the verdict's side (the reverse's when contradicted), and its
    reason leads with that comparison."""

    def verdict_of(words: list[str]) -> str:
        return REPRODUCED if REPRODUCED in words else CONTRADICTED if set(words) == {CONTRADICTED} else INCONCLUSIVE

    def decisive_of(comparisons: list[Paired], verdict: str) -> int:
        side = 1 if verdict == CONTRADICTED else 0
        p = np.array([c.p_values()[side] for c in comparisons], dtype=float)
        return int(np.argmin(np.where(np.isfinite(p), p, np.inf)))

    return _group_claims(experiment, groups, verdict_of, decisive_of, "any one suffices")


def _group_claims(experiment: str, groups: list, verdict_of, decisive_of, rule: str) -> list[Claim]:
    """The rows of groups of comparisons decided together (:func:`any_of_claims`, :func:`every_step_claims`): every
    comparison of every group one Holm family; a group's verdict from its comparisons' (``verdict_of``), its measured
    value, interval (at its Holm step's level, :func:`holm_interval_levels`) and power those of its decisive comparison
    (``decisive_of``), its reason that comparison's first, then the others in their order; ``rule`` says how the group
    combines them."""
    everything = [paired for _, _, comparisons in groups for paired in comparisons]
    decisions, levels = decide_directions(everything), holm_interval_levels(everything)
    dropped = [(name, _verdict_words(reduced)) for name, reduced in _left_out(everything)]
    size = len(decisions)
    rows, start = [], 0
    for claim_id, statement, comparisons in groups:
        mine, my_levels = decisions[start : start + len(comparisons)], levels[start : start + len(comparisons)]
        verdict = verdict_of([d.verdict for d in mine])
        moved = first_moved(verdict, [(name, verdict_of(words[start : start + len(comparisons)])) for name, words in dropped])
        start += len(comparisons)
        # the margin of the group: its weakest needed comparison, or its strongest where one alone decides it
        alone = [d.margin for d in mine if d.verdict == verdict and verdict in (REPRODUCED, CONTRADICTED)]
        one_decides = verdict_of([verdict] + [INCONCLUSIVE] * (len(mine) - 1)) == verdict if len(mine) > 1 else True
        margin = np.max(alone) if one_decides and alone else np.min([d.margin for d in mine])
        decisive = decisive_of(comparisons, verdict)
        order = [decisive, *(i for i in range(len(comparisons)) if i != decisive)]
        reason = "; ".join(f"{comparisons[i].label}: {mine[i].verdict} ({mine[i].reason})" for i in order)
        level = my_levels[decisive]
        mean, low, high = comparisons[decisive].interval(level) if np.isfinite(level) else comparisons[decisive].interval()
        rows.append(
            claim(
                experiment,
                claim_id,
                f"{statement} (shown: {comparisons[decisive].label})",
                "direction",
                Decision(verdict, reason, mine[decisive].power, float(margin), "standard errors", moved),
                measured=mean,
                low=low,
                high=high,
                tolerance=f"seed-paired one-sided t-tests, Holm over {size}; {rule}; interval at {_step_level(level)}",
            )
        )
    return rows
