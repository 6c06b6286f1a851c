"""The claim kinds' decision functions: every verdict is reachable, boundaries are where they are stated."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from crlrepro.claims.spec import config_at, point_name, range_points, trains_ranges
from crlrepro.claims.verdicts import (
    CLAIM_COLUMNS,
    CLAIM_NOT_APPLICABLE,
    CONTRADICTED,
    FAILED,
    INCONCLUSIVE,
    NOT_COMPARABLE,
    POWER,
    REPRODUCED,
    SEED_PLAN_LIMIT,
    VERIFIED,
    Decision,
    Paired,
    any_of_claims,
    check_claims_table,
    claim,
    claims_frame,
    decide_association,
    decide_bound,
    decide_directions,
    decide_equivalence,
    decide_identity,
    decide_rate,
    decide_value,
    detectable_difference,
    direction_claims,
    every_step_claims,
    holm,
    holm_interval_levels,
    over_unreported_ranges,
    paired_by_seed,
    paired_t_power,
    reported_rounding,
    seed_interval,
    seeds_for_power,
    value_claim,
)

# seed_interval -------------------------------------------------------------------------------------


def test_seed_interval_is_the_student_t_interval():
    values = np.array([1.0, 2.0, 4.0])
    mean, low, high = seed_interval(values)
    half = stats.t.ppf(0.975, 2) * values.std(ddof=1) / np.sqrt(3)
    assert mean == pytest.approx(7 / 3) and low == pytest.approx(7 / 3 - half) and high == pytest.approx(7 / 3 + half)
    assert high - low == pytest.approx(2 * 4.303 * np.std(values, ddof=1) / np.sqrt(3), rel=1e-3)
    # a narrower level gives a narrower interval
    assert seed_interval(values, level=0.5)[2] < high


def test_a_single_seed_has_no_interval_and_none_has_no_mean():
    mean, low, high = seed_interval([0.3])
    assert mean == 0.3 and np.isnan(low) and np.isnan(high)
    assert all(np.isnan(seed_interval([])))
    assert seed_interval([2.0, 2.0]) == (2.0, 2.0, 2.0)


# holm ----------------------------------------------------------------------------------------------


def test_holm_matches_the_step_down_definition():
    p = np.array([0.01, 0.04, 0.03, 0.005])
    # sorted: 0.005·4 = 0.02, 0.01·3 = 0.03, 0.03·2 = 0.06, 0.04·1 = 0.04 → monotone: 0.02, 0.03, 0.06, 0.06
    np.testing.assert_allclose(holm(p), [0.03, 0.06, 0.06, 0.02])
    np.testing.assert_allclose(holm([0.6, 0.9]), [1.0, 1.0])  # capped at 1
    np.testing.assert_allclose(holm([0.2]), [0.2])


# reported_rounding ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value, half_unit",
    [(0.4902, 5e-5), (6.165e-6, 5e-10), (0.97, 5e-3), (8, 0.5), (36.72, 5e-3), (1e-5, 5e-6), (-0.25, 5e-3), (120.0, 0.5)],
)
def test_reported_rounding_is_half_the_last_digit(value, half_unit):
    assert reported_rounding(value) == pytest.approx(half_unit)


# value ---------------------------------------------------------------------------------------------


def test_value_reproduced_when_the_paper_lies_in_the_interval():
    d = decide_value(1.0, 0.9, 1.1, 1.05)
    assert d.verdict == REPRODUCED and "inside" in d.reason and "half-width 0.1" in d.power


def test_value_contradicted_outside_the_interval_and_its_rounding():
    assert decide_value(1.0, 0.9, 1.1, 1.2).verdict == CONTRADICTED
    assert decide_value(1.0, 0.9, 1.1, 0.8).verdict == CONTRADICTED
    # the paper's rounding widens the interval on both sides
    assert decide_value(1.0, 0.9, 1.1, 1.15, rounding=0.05).verdict == REPRODUCED
    assert decide_value(1.0, 0.9, 1.1, 0.85, rounding=0.05).verdict == REPRODUCED
    assert decide_value(1.0, 0.9, 1.1, 1.16, rounding=0.05).verdict == CONTRADICTED
    # the ends of the interval count as inside
    assert decide_value(1.0, 0.9, 1.1, 1.1).verdict == REPRODUCED
    assert decide_value(1.0, 0.9, 1.1, 0.9).verdict == REPRODUCED


def test_value_inconclusive_when_the_interval_is_as_wide_as_the_value():
    assert decide_value(1.0, -1.0, 3.0, 1.5).verdict == INCONCLUSIVE
    assert decide_value(1.0, 0.0, 2.0, 1.0).verdict == INCONCLUSIVE  # half-width == |paper|
    assert decide_value(1.0, 0.01, 1.99, 1.0).verdict == REPRODUCED
    assert decide_value(-1.0, -1.99, -0.01, -1.0).verdict == REPRODUCED  # |paper| for negative values
    d = decide_value(1.0, np.nan, np.nan, 1.0)
    assert d.verdict == INCONCLUSIVE and d.power == "no interval"


def test_value_not_comparable_names_the_key_or_the_missing_number():
    d = decide_value(1.0, 0.9, 1.1, 1.0, mismatched=("approximation.epochs: 5 here, 20 in the paper",))
    assert d.verdict == NOT_COMPARABLE and "approximation.epochs" in d.reason
    assert decide_value(1.0, 0.9, 1.1, None).verdict == NOT_COMPARABLE
    assert decide_value(1.0, 0.9, 1.1, np.nan).verdict == NOT_COMPARABLE
    assert "2.00% of the paper's value" in decide_value(5.0, 4.9, 5.1, 5.0).power


# bound ---------------------------------------------------------------------------------------------


def test_bound_reproduced_contradicted_inconclusive():
    ok = decide_bound([0.1, 0.2], [0.3, 0.4], trivial_max=0.35)
    assert ok.verdict == REPRODUCED and "1 of 2" in ok.power and "0.3333" in ok.power
    bad = decide_bound([0.1, 0.5], [0.3, 0.4], trivial_max=1.0)
    assert bad.verdict == CONTRADICTED and "1 of 2" in bad.reason and "1.25" in bad.reason
    empty = decide_bound([0.1, 0.2], [0.5, 0.6], trivial_max=0.5)  # bound ≥ trivial max everywhere
    assert empty.verdict == INCONCLUSIVE and "says nothing" in empty.reason
    assert decide_bound([], [], trivial_max=1.0).verdict == INCONCLUSIVE


def test_bound_equality_holds_and_slack_forgives_numerical_error():
    assert decide_bound([0.3], [0.3], trivial_max=1.0).verdict == REPRODUCED
    assert decide_bound([0.3001], [0.3], trivial_max=1.0).verdict == CONTRADICTED
    assert decide_bound([0.3001], [0.3], trivial_max=1.0, slack=1e-3).verdict == REPRODUCED
    assert decide_bound([0.3], [0.0], trivial_max=1.0).verdict == CONTRADICTED  # a zero bound gives an infinite ratio


# rate ----------------------------------------------------------------------------------------------


def test_two_sided_rate_needs_alternatives_and_tells_them_apart():
    with pytest.raises(ValueError, match="alternatives"):
        decide_rate(-1.0, -1.2, -0.8, -1.0)
    assert decide_rate(-1.0, -1.2, -0.8, -1.0, alternatives=(-0.5,)).verdict == REPRODUCED
    faster = decide_rate(-1.0, -1.2, -0.8, -0.5, alternatives=(-1.0,))
    assert faster.verdict == CONTRADICTED  # and the reason says the interval holds the competing rate instead
    assert faster.reason == "the predicted -0.5 lies outside the interval [-1.2, -0.8], which holds the competing rate(s) -1"
    neither = decide_rate(-2.0, -2.2, -1.8, -0.5, alternatives=(-1.0, -1.8))  # the end of the interval counts
    assert neither.reason == "the predicted -0.5 lies outside the interval [-2.2, -1.8], which holds the competing rate(s) -1.8"
    alone = decide_rate(-2.0, -2.2, -1.9, -0.5, alternatives=(-1.0, -1.8))
    assert alone.verdict == CONTRADICTED and alone.reason == "the predicted -0.5 lies outside the interval [-2.2, -1.9]"
    wide = decide_rate(-0.8, -1.2, -0.4, -1.0, alternatives=(-0.5,))
    assert wide.verdict == INCONCLUSIVE and "-0.5" in wide.reason and "half-width 0.4" in wide.power
    assert decide_rate(-1.0, -1.0, -0.5, -1.0, alternatives=(-0.5,)).verdict == INCONCLUSIVE  # ends included


def test_one_sided_rates():
    assert decide_rate(-1.5, -1.8, -1.2, -1.0, side="at_most").verdict == REPRODUCED
    assert decide_rate(-1.5, -1.8, -1.0, -1.0, side="at_most").verdict == REPRODUCED  # at the bound
    assert decide_rate(-0.5, -0.8, -0.2, -1.0, side="at_most").verdict == CONTRADICTED
    assert decide_rate(-1.0, -1.2, -0.8, -1.0, side="at_most").verdict == INCONCLUSIVE
    assert decide_rate(-1.0, -1.0, -0.8, -1.0, side="at_most").verdict == INCONCLUSIVE  # low == bound: not above
    assert decide_rate(0.7, 0.6, 0.8, 0.5, side="at_least").verdict == REPRODUCED
    assert decide_rate(0.7, 0.5, 0.8, 0.5, side="at_least").verdict == REPRODUCED
    assert decide_rate(0.3, 0.2, 0.4, 0.5, side="at_least").verdict == CONTRADICTED
    assert decide_rate(0.3, 0.2, 0.5, 0.5, side="at_least").verdict == INCONCLUSIVE  # high == bound: not below
    assert decide_rate(0.5, 0.4, 0.6, 0.5, side="at_least").verdict == INCONCLUSIVE
    with pytest.raises(ValueError, match="side"):
        decide_rate(0.5, 0.4, 0.6, 0.5, side="below")
    assert decide_rate(np.nan, np.nan, np.nan, 0.5, side="at_least").verdict == INCONCLUSIVE


def test_a_prediction_with_an_interval_is_met_at_its_far_end():
    kw = dict(side="at_least", predicted_low=0.6, predicted_high=0.7)
    assert decide_rate(0.8, 0.65, 0.9, 0.65, **kw).verdict == INCONCLUSIVE  # would pass against the point 0.65
    assert decide_rate(0.8, 0.7, 0.9, 0.65, **kw).verdict == REPRODUCED
    assert decide_rate(0.5, 0.4, 0.65, 0.65, **kw).verdict == INCONCLUSIVE  # would fail against 0.65... reaches 0.6
    assert decide_rate(0.5, 0.4, 0.59, 0.65, **kw).verdict == CONTRADICTED
    kw = dict(side="at_most", predicted_low=-1.1, predicted_high=-0.9)
    assert decide_rate(-1.2, -1.3, -1.0, -1.0, **kw).verdict == INCONCLUSIVE
    assert decide_rate(-1.2, -1.3, -1.1, -1.0, **kw).verdict == REPRODUCED
    assert decide_rate(-0.5, -0.95, -0.4, -1.0, **kw).verdict == INCONCLUSIVE
    assert decide_rate(-0.5, -0.85, -0.4, -1.0, **kw).verdict == CONTRADICTED


# direction -----------------------------------------------------------------------------------------


def test_paired_p_values_are_one_sided_t_tests():
    d = np.array([0.5, 1.0, 1.5, 0.8])
    better, worse = Paired("x", d).p_values()
    t = d.mean() / (d.std(ddof=1) / 2)
    assert better == pytest.approx(stats.t.sf(t, 3)) and worse == pytest.approx(stats.t.cdf(t, 3))
    assert better + worse == pytest.approx(1.0)
    # no spread: the exact sign test, 2^-n
    assert Paired("x", np.array([1.0, 1.0])).p_values() == (0.25, 1.0)
    assert Paired("x", np.array([-1.0, -1.0, -1.0])).p_values() == (1.0, 0.125)
    assert Paired("x", np.array([0.0, 0.0])).p_values() == (1.0, 1.0)
    assert all(np.isnan(Paired("x", np.array([1.0])).p_values()))


def test_directions_reproduced_contradicted_inconclusive():
    up, down, noise = (
        Paired(k, v)
        for k, v in (
            ("up", np.array([1.0, 1.2, 0.9, 1.1, 1.05])),
            ("down", np.array([-1.0, -1.2, -0.9, -1.1, -1.05])),
            ("noise", np.array([0.5, -0.4, 0.3, -0.6, 0.1])),
        )
    )
    verdicts = [d.verdict for d in decide_directions([up, down, noise])]
    assert verdicts == [REPRODUCED, CONTRADICTED, INCONCLUSIVE]
    single = decide_directions([Paired("one", np.array([3.0]))])[0]
    assert single.verdict == INCONCLUSIVE and single.power == "no interval"


def test_holm_makes_a_family_stricter_than_one_test():
    # p ≈ 0.02 alone: below α = 0.025; in a family of 4 with nothing else significant, Holm needs p < 0.00625.
    d = np.array([0.3, 0.1, 0.25, 0.05, 0.2])
    alone = decide_directions([Paired("d", d)])[0]
    p = Paired("d", d).p_values()[0]
    assert 0.00625 < p < 0.025 and alone.verdict == REPRODUCED
    null = [Paired(f"n{i}", np.array([0.1, -0.1, 0.05, -0.05, 0.0]) * (i + 1)) for i in range(3)]
    in_family = decide_directions([Paired("d", d), *null])[0]
    assert in_family.verdict == INCONCLUSIVE and "Holm family of 4" in in_family.power
    smallest = stats.t.ppf(1 - 0.025 / 4, 4) * d.std(ddof=1) / np.sqrt(5)
    assert f"{smallest:.4g}" in in_family.power


def test_directions_at_the_level_boundary():
    # differences whose one-sided p is just above / below α = 0.025 (t quantile of 4 degrees of freedom)
    t_crit = stats.t.ppf(0.975, 4)
    base = np.array([-1.0, -0.5, 0.0, 0.5, 1.0])
    sd = base.std(ddof=1)
    above = base + t_crit * sd / np.sqrt(5) * 1.01
    below = base + t_crit * sd / np.sqrt(5) * 0.99
    assert decide_directions([Paired("a", above)])[0].verdict == REPRODUCED
    assert decide_directions([Paired("b", below)])[0].verdict == INCONCLUSIVE
    assert decide_directions([Paired("c", -above)])[0].verdict == CONTRADICTED
    assert decide_directions([Paired("d", -below)])[0].verdict == INCONCLUSIVE
    assert decide_directions([Paired("a", above)], level=0.99)[0].verdict == INCONCLUSIVE


# identity ------------------------------------------------------------------------------------------


def test_identity_verified_or_failed():
    assert decide_identity(1e-12, 1e-9).verdict == VERIFIED
    assert decide_identity(1e-9, 1e-9).verdict == VERIFIED
    assert decide_identity(2e-9, 1e-9).verdict == FAILED
    assert decide_identity(np.nan, 1e-9).verdict == FAILED


# rows ----------------------------------------------------------------------------------------------


def test_a_claim_row_refuses_a_verdict_its_kind_cannot_give():
    with pytest.raises(ValueError, match="identity"):
        claim("C5", "C5.x", "x", "identity", Decision(REPRODUCED, "r", "p"), measured=1.0)
    with pytest.raises(ValueError, match="value"):
        claim("A1", "A1.x", "x", "value", Decision(VERIFIED, "r", "p"), measured=1.0)
    row = claim("A1", "A1.x", "x", "value", Decision(REPRODUCED, "r", "p"), measured=1, low=None, paper=2)
    assert np.isnan(row.ci_low) and row.paper_value == 2.0 and isinstance(row.measured, float)


def test_claims_table_is_checked_when_read_back():
    rows = [claim("A1", "A1.x", "x", "value", Decision(REPRODUCED, "r", "p"), measured=1.0)]
    table = claims_frame(rows)
    assert list(table.columns) == CLAIM_COLUMNS and check_claims_table(table) is table
    with pytest.raises(ValueError, match="columns"):
        check_claims_table(table.drop(columns="power"))
    with pytest.raises(ValueError, match="unknown kind"):
        check_claims_table(table.assign(kind="hunch"))
    with pytest.raises(ValueError, match="not one of"):
        check_claims_table(table.assign(verdict="not reproduced"))
    with pytest.raises(ValueError, match="not one of"):
        check_claims_table(table.assign(kind="identity"))


class _Spec:
    key, statement, kind, unreported = "r2_f", "R²", "value", ("lcgm.noise_x",)


def test_value_claim_applies_the_papers_rounding_and_names_unreported_keys():
    # 0.97 is reported to two decimals: ±0.005, so an interval reaching 0.9651 holds it and one ending at 0.9649 does not
    row = value_claim("A3", _Spec, "", "R²", 0.964, 0.962, 0.9651, 0.97, mismatched=(), tolerance="t")
    assert row.verdict == REPRODUCED and "lcgm.noise_x" in row.reason
    row = value_claim("A3", _Spec, "", "R²", 0.964, 0.962, 0.9649, 0.97, mismatched=(), tolerance="t")
    assert row.verdict == CONTRADICTED and row.claim_id == "A3.r2_f"
    row = value_claim("A3", _Spec, ".x", "R²", 0.9, 0.8, 1.0, None, mismatched=(), tolerance="t")
    assert row.verdict == NOT_COMPARABLE and "lcgm.noise_x" not in row.reason and row.claim_id == "A3.r2_f.x"


def test_paired_by_seed_pairs_matching_seeds_only():
    a = pd.Series([1.0, 2.0, 3.0, np.nan], index=[0, 1, 2, 3])
    b = pd.Series([0.5, 0.5, 1.0], index=[2, 0, 1])
    np.testing.assert_allclose(paired_by_seed(a, b, "a-b").differences, [0.5, 1.0, 2.5])
    # in seed order whatever the order of either, NaN on either side dropped; a repeated seed pairs with nothing
    b = pd.Series([np.nan, 0.5, 4.0, 1.0], index=[1, 2, 3, 0])
    np.testing.assert_array_equal(paired_by_seed(b, a, "b-a").differences, [0.0, -2.5])
    with pytest.raises(ValueError, match=r"S1\.x: seeds \[2\] appear more than once"):
        paired_by_seed(a, pd.Series([1.0, 2.0], index=[2, 2]), "S1.x")


def test_direction_claims_report_the_interval_of_the_differences():
    rows = direction_claims("S3", [("S3.x", "u > l", Paired("u-l", np.array([1.0, 1.2, 0.9])))])
    mean, low, high = seed_interval([1.0, 1.2, 0.9])
    assert rows[0].measured == mean and rows[0].ci_low == low and rows[0].ci_high == high and rows[0].kind == "direction"
    assert rows[0].verdict == REPRODUCED and "Holm over 1" in rows[0].tolerance


def test_any_of_claims_needs_one_comparison_for_and_all_against():
    strong = Paired("good", np.array([1.0, 1.1, 0.9, 1.05, 0.95]))
    bad = Paired("bad", -strong.differences)
    flat = Paired("flat", np.array([0.1, -0.1, 0.05, -0.05, 0.0]))
    rows = any_of_claims("S1", [("S1.a", "a", [flat, strong]), ("S1.b", "b", [bad, bad]), ("S1.c", "c", [bad, flat])])
    assert [r.verdict for r in rows] == [REPRODUCED, CONTRADICTED, INCONCLUSIVE]
    assert "shown: good" in rows[0].claim and rows[0].measured == pytest.approx(1.0)
    assert "shown: flat" in rows[2].claim
    assert "Holm over 6" in rows[0].tolerance and "good: reproduced" in rows[0].reason


def test_decisions_and_rows_are_immutable():
    import dataclasses

    for obj in (
        Decision(REPRODUCED, "r", "p"),
        Paired("x", np.array([1.0])),
        claim("A1", "A1.x", "x", "value", Decision(REPRODUCED, "r", "p"), measured=1.0),
    ):
        with pytest.raises(dataclasses.FrozenInstanceError):
            obj.label = "changed"


def test_bound_with_a_zero_bound_and_a_zero_quantity():
    d = decide_bound([0.0], [0.0], trivial_max=1.0)
    assert d.verdict == REPRODUCED and "tightest quantity/bound inf" in d.power


def test_two_sided_rate_interval_ends_count_as_inside():
    assert decide_rate(-1.0, -1.0, -0.8, -1.0, alternatives=(-0.5,)).verdict == REPRODUCED
    assert decide_rate(-0.9, -1.0, -0.8, -0.8, alternatives=(-0.3,)).verdict == REPRODUCED
    assert decide_rate(-0.8, -1.0, -0.4, -0.5, alternatives=(-1.0,)).verdict == INCONCLUSIVE


def test_two_seeds_are_enough_for_a_direction_and_ties_need_six():
    d = decide_directions([Paired("two", np.array([1.0, 1.1]))])[0]
    assert d.verdict == REPRODUCED and "2 seeds" in d.power and "smallest significant difference" in d.power
    tied = decide_directions([Paired("ties", np.full(5, 0.002))])[0]  # sign test: 1/32 > 0.025
    assert tied.verdict == INCONCLUSIVE and "exact sign test" in tied.power
    assert decide_directions([Paired("ties", np.full(6, 0.002))])[0].verdict == REPRODUCED  # 1/64


def test_any_of_claims_ignores_an_empty_comparison_when_reporting_the_largest():
    strong = Paired("good", np.array([1.0, 1.1, 0.9, 1.05, 0.95]))
    rows = any_of_claims("S1", [("S1.a", "a", [Paired("empty", np.array([])), strong])])
    assert "shown: good" in rows[0].claim and rows[0].verdict == REPRODUCED


def test_family_level_is_bonferroni():
    from crlrepro.claims.verdicts import family_level

    assert family_level(1) == pytest.approx(0.95) and family_level(4) == pytest.approx(1 - 0.05 / 4)
    assert family_level(0) == pytest.approx(0.95)


def test_a_contradicted_group_shows_its_strongest_reverse():
    weak = Paired("weak", -np.array([0.30, 0.35, 0.28, 0.32, 0.31]))
    strong = Paired("strong", -np.array([1.0, 1.1, 0.9, 1.05, 0.95]))
    row = any_of_claims("C4", [("C4.x", "x", [weak, strong])])[0]
    assert row.verdict == CONTRADICTED and "shown: strong" in row.claim


def test_paired_t_power_matches_a_simulation_and_the_sign_test():
    rng = np.random.default_rng(0)
    n, effect, sd, alpha = 6, 0.8, 1.0, 0.025
    d = rng.normal(effect, sd, size=(40_000, n))
    t = d.mean(axis=1) / (d.std(axis=1, ddof=1) / np.sqrt(n))
    simulated = float((t > stats.t.ppf(1 - alpha, n - 1)).mean())
    assert paired_t_power(effect, sd, n, alpha) == pytest.approx(simulated, abs=0.01)
    assert paired_t_power(0.0, sd, n, alpha) == pytest.approx(alpha)  # no effect: the level itself
    assert paired_t_power(effect, sd, 1, alpha) == 0.0
    assert paired_t_power(0.3, 0.0, 6, alpha) == 1.0 and paired_t_power(0.3, 0.0, 5, alpha) == 0.0  # 2^-6 < .025 < 2^-5
    assert paired_t_power(-0.3, 0.0, 9, alpha) == 0.0 and paired_t_power(0.0, 0.0, 9, alpha) == 0.0
    assert paired_t_power(0.3, 0.0, 5, 2.0**-5) == 0.0 and paired_t_power(0.3, 0.0, 6, 2.0**-5) == 1.0  # 2^-n < α, strictly


def test_paired_t_power_and_the_t_intervals_are_scipys_public_functions_to_the_last_bit():
    """paired_t_power, seed_interval and the p-values call scipy's per-distribution functions for speed: they must give
    the public functions' numbers exactly (a scipy upgrade that changes one shows here)."""
    rng = np.random.default_rng(0)
    for _ in range(400):
        n, alpha = int(rng.integers(2, 400)), float(rng.choice([0.025, 0.05, 0.025 / 17, 1e-6, 0.4]))
        effect, sd = float(rng.normal() * 10.0 ** rng.integers(-4, 2)), float(10.0 ** rng.uniform(-6, 2))
        public = stats.nct.sf(stats.t.ppf(1 - alpha, n - 1), n - 1, effect * np.sqrt(n) / sd)
        assert paired_t_power(effect, sd, n, alpha) == public, (effect, sd, n, alpha)
        values = rng.normal(size=int(rng.integers(2, 30)))
        half = stats.t.ppf(0.975, values.size - 1) * values.std(ddof=1) / np.sqrt(values.size)
        assert seed_interval(values) == (values.mean(), values.mean() - half, values.mean() + half)
        t = values.mean() / (values.std(ddof=1) / np.sqrt(values.size))
        assert Paired("d", values).p_values() == (stats.t.sf(t, values.size - 1), stats.t.cdf(t, values.size - 1))


def test_a_level_outside_0_1_is_refused_and_one_that_rounds_away_gives_no_power():
    """(Apart from the comparison above, which is slow: the mutation check meets this fast test first.)"""
    assert paired_t_power(1.0, 1.0, 5, 1e-17) == 0.0  # 1 − α rounds to 1: nothing exceeds t = ∞ (public sf: 0)
    for alpha in (0.0, 1.0, -0.1, 1.5):
        with pytest.raises(ValueError, match="alpha must lie strictly between 0 and 1"):
            paired_t_power(1.0, 1.0, 5, alpha)
    for level in (0.0, 1.0, -1.0):  # the ends too: a 0 % interval is a point, a 100 % one the whole line
        with pytest.raises(ValueError, match="level must lie strictly between 0 and 1"):
            seed_interval([1.0, 2.0, 3.0], level)
    assert np.isnan(seed_interval([1.0, 2.0, 3.0], np.nan)[1])  # a NaN level (no Holm step) gives no interval


def test_seeds_for_power_is_the_first_count_that_reaches_it():
    alpha = 0.025
    assert seeds_for_power(1.0, 1.0, alpha) == 10  # d = 1σ at one-sided 2.5 %: 10 pairs (the textbook 80 % plan)
    for effect, sd, a in ((0.5, 1.0, alpha), (0.2, 0.1, alpha / 7), (3.0, 2.0, alpha / 2)):
        n = seeds_for_power(effect, sd, a)
        assert paired_t_power(effect, sd, n, a) >= POWER > paired_t_power(effect, sd, n - 1, a)
    assert seeds_for_power(0.0, 1.0, alpha) is None and seeds_for_power(-1.0, 1.0, alpha) is None
    assert seeds_for_power(np.nan, 1.0, alpha) is None and seeds_for_power(1.0, np.nan, alpha) is None
    assert seeds_for_power(0.3, 0.0, alpha) == 6  # no spread: the sign test's 2^-6 < 0.025
    assert seeds_for_power(0.01, 1.0, alpha) is None  # ~78,000 pairs: past the plan's limit
    assert seeds_for_power(0.01, 1.0, alpha, limit=100_000) > 50_000


def test_detectable_difference_has_the_planned_power():
    for n, a in ((2, 0.025), (3, 0.025), (5, 0.025 / 6), (30, 0.025)):
        e = detectable_difference(1.0, n, a)
        assert paired_t_power(e, 1.0, n, a) == pytest.approx(POWER, abs=1e-6)
        assert detectable_difference(2.0, n, a) == pytest.approx(2 * e)
    assert np.isnan(detectable_difference(1.0, 1, 0.025)) and np.isnan(detectable_difference(0.0, 5, 0.025))


def test_an_undecided_direction_says_how_many_seeds_would_decide_it():
    undecided, decided = decide_directions(
        [Paired("a", np.array([0.1, -0.05, 0.2, 0.0, 0.05])), Paired("b", np.array([1.0, 1.1, 0.9, 1.2, 1.0]))]
    )
    assert undecided.verdict == INCONCLUSIVE and decided.verdict == REPRODUCED
    sd = np.std([0.1, -0.05, 0.2, 0.0, 0.05], ddof=1)
    needed = seeds_for_power(0.06, sd, 0.025 / 2)
    assert f"{needed} seeds would give 80% power to decide it (claim) at the observed difference 0.06" in undecided.power
    assert f"80% power at {detectable_difference(sd, 5, 0.025 / 2):.4g} (5 seeds, Holm family of 2)" in undecided.power
    assert "would give" not in decided.power
    (reverse,) = decide_directions([Paired("r", np.array([-0.1, 0.05, -0.2, 0.0, -0.05]))])
    assert reverse.verdict == INCONCLUSIVE and "(reverse) at the observed difference -0.06" in reverse.power
    (flat,) = decide_directions([Paired("f", np.array([0.1, -0.1, 0.2, -0.2]))])
    assert "the observed difference is 0: no number of seeds is planned" in flat.power
    (tiny,) = decide_directions([Paired("t", np.array([0.001, -1.0, 1.0, 0.003]))])
    assert f"no number of seeds up to {SEED_PLAN_LIMIT} gives 80% power" in tiny.power


def test_an_undecided_rate_says_how_much_more_data_would_decide_it():
    two = decide_rate(-0.4, -0.7, -0.1, -0.5, alternatives=(-0.25,))
    z = stats.norm.ppf(0.975)
    factor = ((z + stats.norm.ppf(0.8)) * 0.3 / z / 0.15) ** 2  # half-width 0.3, nearest competitor 0.15 away
    assert two.verdict == INCONCLUSIVE and f"about {factor:.3g}× the seeds or samples" in two.power
    one = decide_rate(0.45, 0.3, 0.6, 0.5, side="at_least")
    assert one.verdict == INCONCLUSIVE and f"about {((z + stats.norm.ppf(0.8)) * 0.15 / z / 0.05) ** 2:.3g}×" in one.power
    near = decide_rate(-0.4, -0.7, -0.1, -0.5, alternatives=(-0.25, -0.6))  # the nearest competitor, 0.15 away, decides
    assert f"about {factor:.3g}× the seeds or samples" in near.power
    on = decide_rate(0.5, 0.3, 0.7, 0.5, side="at_most")
    assert "no sample size decides" in on.power
    assert "×" not in decide_rate(0.2, 0.1, 0.3, 0.5, side="at_most").power  # decided: no plan


def test_a_one_sided_rate_at_its_bound_needs_a_margin_declared_in_advance():
    """A true exponent equal to the bound: without a margin the interval straddles it at any sample size, and the row
    says so (no seed plan); with a margin δ it is a non-inferiority test, decided either way."""
    on = decide_rate(0.662, 0.61, 0.71, 0.662, side="at_least")
    assert on.verdict == "inconclusive" and "no sample size decides" in on.power

    # "on the bound" is within 1e-3 of it, relative (absolute 1e-15 at a bound of 0); beyond, the power plans seeds
    def on_bound(slope, predicted):
        return "no sample size decides" in decide_rate(slope, predicted - 1, predicted + 1, predicted, side="at_least").power

    assert on_bound(2.0015, 2.0) and not on_bound(2.0021, 2.0)
    assert on_bound(0.0, 0.0) and not on_bound(1.05e-15, 0.0)
    assert decide_rate(0.662, 0.61, 0.71, 0.662, side="at_least", margin=0.08).verdict == "reproduced"
    below = decide_rate(0.45, 0.40, 0.50, 0.662, side="at_least", margin=0.08)
    assert below.verdict == "contradicted" and "margin 0.08" in below.reason and "margin 0.08" in below.power
    assert decide_rate(0.55, 0.50, 0.60, 0.662, side="at_least", margin=0.08).verdict == "inconclusive"
    assert decide_rate(-0.97, -1.05, -0.93, -1.0, side="at_most", margin=0.1).verdict == "reproduced"
    assert decide_rate(-0.7, -0.8, -0.6, -1.0, side="at_most", margin=0.1).verdict == "contradicted"
    # reproduced by the margin alone (the interval reaches past the bound itself): the reason says so, on either side
    only = "reproduced only within the margin"
    assert only in decide_rate(0.662, 0.61, 0.71, 0.662, side="at_least", margin=0.08).reason
    assert only not in decide_rate(0.7, 0.662, 0.75, 0.662, side="at_least", margin=0.08).reason  # on the bound: met
    assert only in decide_rate(-0.97, -1.05, -0.93, -1.0, side="at_most", margin=0.1).reason
    assert only not in decide_rate(-1.1, -1.2, -1.0, -1.0, side="at_most", margin=0.1).reason
    assert only not in decide_rate(0.7, 0.662, 0.75, 0.662, side="at_least").reason
    assert only not in decide_rate(-1.05, -1.1, -1.01, -1.0, side="at_most").reason  # no margin: nothing to be within
    # the reason names the bound, its margin and the level tested, and a bound known to a range by both of its ends
    met = decide_rate(0.7, 0.65, 0.75, 0.662, side="at_least", margin=0.08)
    assert "lies at or above the bound's 0.662 less its margin 0.08, 0.582" in met.reason
    straddles = decide_rate(0.6, 0.55, 0.65, 0.662, side="at_least", margin=0.08)
    assert straddles.reason == "the interval [0.55, 0.65] straddles the bound's 0.662 less its margin 0.08, 0.582"
    ranged = decide_rate(0.66, 0.6, 0.7, 0.662, side="at_least", predicted_low=0.662, predicted_high=0.667)
    assert ranged.reason == "the interval [0.6, 0.7] straddles the bound's range [0.662, 0.667]"
    ranged = decide_rate(0.6, 0.55, 0.65, 0.662, side="at_least", predicted_low=0.662, predicted_high=0.667, margin=0.08)
    assert ranged.reason == "the interval [0.55, 0.65] straddles the bound's range [0.662, 0.667] less its margin 0.08"
    with pytest.raises(ValueError, match="margin"):
        decide_rate(0.6, 0.5, 0.7, 0.5, side="at_least", margin=-0.1)
    with pytest.raises(ValueError, match="one-sided"):
        decide_rate(0.6, 0.5, 0.7, 0.5, alternatives=(1.0,), margin=0.1)


def test_an_association_is_decided_by_its_interval_on_the_claimed_side():
    from crlrepro.claims.verdicts import decide_association

    x = np.arange(12.0)
    noise = np.array([0.3, -0.2, 0.5, -0.4, 0.1, 0.0, -0.3, 0.2, 0.4, -0.1, -0.5, 0.25])
    assert decide_association(x, -x + noise, sign=-1).verdict == REPRODUCED
    assert decide_association(x, x + noise, sign=-1).verdict == CONTRADICTED
    assert decide_association(x, x + noise, sign=1).verdict == REPRODUCED
    assert decide_association(x, -x + noise, sign=1).verdict == CONTRADICTED
    weak = decide_association(x, np.array([3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8.0]), sign=-1)
    assert weak.verdict == INCONCLUSIVE and "contains 0" in weak.reason and "points give 80% power" in weak.power
    # the interval: Fisher z with Fieller–Hartley–Pearson's variance 1.06/(n − 3)
    rho = stats.spearmanr(x, x + 3 * noise).statistic
    half = stats.norm.ppf(0.975) * np.sqrt(1.06 / 9)
    low = np.tanh(np.arctanh(rho) - half)
    assert f"[{low:.4g}," in decide_association(x, x + 3 * noise, sign=1).reason
    assert decide_association(x[:3], x[:3], sign=1).verdict == INCONCLUSIVE  # too few points
    assert "without variation" in decide_association(x, np.ones(12), sign=1).reason
    assert decide_association([1, 2, np.nan, 4, 5], [5, 4, 3, 2, np.inf], sign=-1).reason.startswith("3 points")
    with pytest.raises(ValueError, match="sign"):
        decide_association(x, x, sign=0)


def test_equivalence_within_a_declared_margin():
    """Both ends inside ±δ: reproduced (ends on the margin count as inside); wholly outside on either side:
    contradicted; crossing it: inconclusive with a plan, saying when the estimate itself lies outside."""
    assert decide_equivalence(0.0, -0.2, 0.2, 0.25).verdict == REPRODUCED
    assert decide_equivalence(0.0, -0.25, 0.25, 0.25).verdict == REPRODUCED
    assert decide_equivalence(0.1, -0.05, 0.26, 0.25).verdict == INCONCLUSIVE
    assert decide_equivalence(-0.1, -0.26, 0.05, 0.25).verdict == INCONCLUSIVE
    assert decide_equivalence(0.5, 0.3, 0.7, 0.25).verdict == CONTRADICTED
    assert decide_equivalence(-0.5, -0.7, -0.3, 0.25).verdict == CONTRADICTED
    assert decide_equivalence(0.3, 0.25, 0.35, 0.25).verdict == INCONCLUSIVE  # touches the margin from outside
    near = decide_equivalence(0.05, -0.3, 0.4, 0.25)
    assert "crosses the margin ±0.25" in near.reason and "× the seeds" in near.power and "outside" not in near.power
    assert "excludes 0" not in near.reason  # [-0.3, 0.4] holds 0
    off_zero = decide_equivalence(0.2, 0.05, 0.35, 0.25)
    assert off_zero.verdict == INCONCLUSIVE and "(it excludes 0: a difference, not shown" in off_zero.reason
    assert "excludes 0" not in decide_equivalence(0.2, 0.0, 0.35, 0.25).reason  # an end on 0 does not exclude it
    assert "excludes 0" not in decide_equivalence(-0.2, -0.35, 0.0, 0.25).reason
    assert "excludes 0" in decide_equivalence(-0.2, -0.35, -0.01, 0.25).reason
    far = decide_equivalence(0.3, -0.1, 0.7, 0.25)
    assert far.verdict == INCONCLUSIVE and "lies on or outside the margin" in far.power
    assert decide_equivalence(np.nan, -0.1, 0.1, 0.25).verdict == INCONCLUSIVE
    assert "margin ±0.25 declared in advance" in decide_equivalence(0.0, -0.2, 0.2, 0.25).power
    for bad in (0.0, -0.1, np.nan):
        with pytest.raises(ValueError, match="margin > 0"):
            decide_equivalence(0.0, -0.1, 0.1, bad)


def test_a_value_decided_at_one_point_of_its_declared_ranges_is_not_comparable():
    """The rule for unreported settings: a verdict stands only where every open key's declared range is the configured
    value alone; any other point (not trained), a configured value outside its range, or a key with no declared range
    makes the row not comparable, naming them and keeping the verdict at the configured point."""
    decided = Decision(CONTRADICTED, "the paper's 1 lies outside [2, 3]", "seeds")
    keys = ("training.learning_rate", "training.weight_decay")
    single = {
        "training.learning_rate": {"configured": 1e-3, "range": [1e-3]},
        "training.weight_decay": {"configured": 0.0, "range": [0.0]},
    }
    assert over_unreported_ranges(decided, keys, single) == decided
    wide = {**single, "training.learning_rate": {"configured": 1e-3, "range": [3e-4, 1e-3, 3e-3]}}
    out = over_unreported_ranges(decided, keys, wide)
    assert out.verdict == NOT_COMPARABLE and "where it is contradicted: the paper's 1" in out.reason
    assert out.reason.startswith("by the rule for unreported settings")  # the reason leads with what decided it
    assert "training.learning_rate ∈ [0.0003, 0.001, 0.003]" in out.reason and "weight_decay" not in out.reason
    outside = {**single, "training.weight_decay": {"configured": 0.5, "range": [0.0]}}
    assert over_unreported_ranges(decided, keys, outside).verdict == NOT_COMPARABLE
    missing = over_unreported_ranges(decided, keys, {"training.learning_rate": single["training.learning_rate"]})
    assert missing.verdict == NOT_COMPARABLE and "training.weight_decay: no range declared" in missing.reason
    reproduced = Decision(REPRODUCED, "inside", "seeds")
    assert over_unreported_ranges(reproduced, keys, wide).verdict == NOT_COMPARABLE
    assert over_unreported_ranges(reproduced, (), wide) == reproduced  # no open key: nothing to range over
    undecided = Decision(INCONCLUSIVE, "wide", "seeds")
    assert over_unreported_ranges(undecided, keys, wide).verdict == NOT_COMPARABLE
    assert over_unreported_ranges(undecided, keys, single) == undecided
    apart = Decision(NOT_COMPARABLE, "setting differs", "seeds")
    assert over_unreported_ranges(apart, keys, wide) == apart


def test_a_value_over_its_trained_range_points_holds_only_where_every_point_agrees():
    """Over trained points (one open key varied at a time): reproduced only if reproduced at every point, contradicted
    only if contradicted at every one; any disagreement, or a point not comparable, is not comparable, with the span
    of the measured value and the key that moves it most. A point left untrained still blocks the verdict."""
    keys = ("training.learning_rate", "training.weight_decay")
    ranges = {
        "training.learning_rate": {"configured": 1e-3, "range": [3e-4, 1e-3, 3e-3]},
        "training.weight_decay": {"configured": 0.01, "range": [0.0, 0.01]},
    }
    points = [("training.learning_rate", 3e-4), ("training.learning_rate", 3e-3), ("training.weight_decay", 0.0)]
    reproduced, contradicted = Decision(REPRODUCED, "inside", "seeds"), Decision(CONTRADICTED, "outside", "seeds")

    def over(configured, verdicts, values=(0.5, 0.6, 0.7), measured=0.55):
        at_points = {point: (verdict, value) for point, verdict, value in zip(points, verdicts, values, strict=True)}
        return over_unreported_ranges(configured, keys, ranges, at_points, measured)

    every = over(reproduced, [reproduced] * 3)
    assert every.verdict == REPRODUCED and "at all 4 points" in every.reason and "[0.5, 0.7]" in every.reason
    assert over(contradicted, [contradicted] * 3).verdict == CONTRADICTED
    wide = Decision(INCONCLUSIVE, "wide", "seeds")
    assert over(wide, [wide] * 3).verdict == INCONCLUSIVE  # undecided everywhere: the verdict every point shares
    # one point disagreeing, at the configured point or elsewhere, leaves the row undecided
    for configured, verdicts in (
        (reproduced, [reproduced, contradicted, reproduced]),
        (contradicted, [contradicted, contradicted, reproduced]),
        (reproduced, [reproduced, wide, reproduced]),
        (wide, [wide, wide, contradicted]),
        (contradicted, [reproduced] * 3),
    ):
        assert over(configured, verdicts).verdict == NOT_COMPARABLE
    moved = over(reproduced, [reproduced, contradicted, reproduced], values=(0.5, 0.9, 0.56), measured=0.55)
    assert "moved most by training.learning_rate (from 0.5 at 0.0003 to 0.9 at 0.003)" in moved.reason
    low = over(reproduced, [reproduced, contradicted, reproduced], values=(0.6, 0.9, 0.56), measured=0.1)
    assert "moved most by training.learning_rate (from 0.1 at 0.001 to 0.9 at 0.003)" in low.reason  # the configured point
    # the ends are the smallest and largest measured values, wherever they sit in the key's range
    reversed_ = over(reproduced, [reproduced, contradicted, reproduced], values=(0.9, 0.6, 0.56), measured=0.1)
    assert "moved most by training.learning_rate (from 0.1 at 0.001 to 0.9 at 0.0003)" in reversed_.reason
    # a key whose values are not all finite moves nothing that can be measured: the finite key is named
    unmeasured = over(reproduced, [reproduced, contradicted, reproduced], values=(np.nan, 0.6, 0.7), measured=0.55)
    assert "moved most by training.weight_decay" in unmeasured.reason
    assert "spans [0.5, 0.9]" in moved.reason and "reproduced at 3, contradicted at 1" in moved.reason
    by_decay = over(reproduced, [reproduced, contradicted, reproduced], values=(0.55, 0.56, 2.0), measured=0.55)
    assert "moved most by training.weight_decay" in by_decay.reason
    blocked = over(reproduced, [reproduced, Decision(NOT_COMPARABLE, "diverged", "seeds"), reproduced])
    assert blocked.verdict == NOT_COMPARABLE and "not comparable at training.learning_rate = 0.003: diverged" in blocked.reason
    # a point not trained: no verdict, whatever the others say
    partial = over_unreported_ranges(reproduced, keys, ranges, {points[0]: (reproduced, 0.5), points[1]: (reproduced, 0.6)})
    assert partial.verdict == NOT_COMPARABLE and "not trained: [0.0]" in partial.reason
    assert "train_unreported_ranges: true" in partial.reason


def test_train_unreported_ranges_is_all_none_or_the_experiments_it_lists():
    assert trains_ranges({"train_unreported_ranges": True}, "A2") and trains_ranges({"train_unreported_ranges": True}, "A3")
    assert not trains_ranges({"train_unreported_ranges": False}, "A3") and not trains_ranges({}, "A3")
    listed = {"train_unreported_ranges": ["A3"]}
    assert trains_ranges(listed, "A3") and not trains_ranges(listed, "A2")
    assert not trains_ranges({"train_unreported_ranges": []}, "A3")


def test_range_points_are_one_key_at_a_time_and_named_uniquely():
    ranges = {
        "training.learning_rate": {"configured": 1e-3, "range": [3e-4, 1e-3, 3e-3]},
        "approximation.fresh_pairs": {"configured": True, "range": [True, False]},
        "approximation.train_samples": {"configured": 5, "range": [100, 200]},
    }
    points = range_points(ranges)
    assert points == [
        ("approximation.fresh_pairs", False),
        ("approximation.train_samples", 100),
        ("approximation.train_samples", 200),
        ("training.learning_rate", 3e-4),
        ("training.learning_rate", 3e-3),
    ]
    names = [point_name(*point) for point in points]
    assert names[0] == "approximation.fresh_pairs=false" and names[3] == "training.learning_rate=0.0003"
    assert len(set(names)) == len(names)
    config = {"training": {"learning_rate": 1e-3, "batch_size": 512}, "tau": 0.5}
    moved = config_at(config, "training.learning_rate", 3e-3)
    assert moved == {"training": {"learning_rate": 3e-3, "batch_size": 512}, "tau": 0.5}
    assert config["training"]["learning_rate"] == 1e-3  # the run's own config is untouched
    with pytest.raises(KeyError, match="training.learning_rat"):
        config_at(config, "training.learning_rat", 1.0)


def test_every_step_claims_need_every_step_and_fall_on_any_reverse():
    """An intersection–union group: reproduced only if every comparison is, contradicted if any one's reverse holds,
    else inconclusive; the shown comparison is the weakest on the claim's side (or the strongest reverse)."""
    up, flat, down = (
        Paired(label, np.array([d + 0.01 * k for k in range(-3, 4)])) for label, d in (("up", 0.5), ("flat", 0.0), ("down", -0.5))
    )
    strong = Paired("strong", np.array([1.0 + 0.01 * k for k in range(-3, 4)]))

    def verdict(*comparisons):
        (row,) = every_step_claims("X", [("X.steps", "rises at every step", list(comparisons))])
        return row

    both = verdict(strong, up)
    assert both.verdict == REPRODUCED and "shown: up" in both.claim and both.reason.startswith("up: reproduced")
    assert "; strong: reproduced" in both.reason  # then the others
    assert verdict(up, flat).verdict == INCONCLUSIVE and verdict(up, flat).reason.startswith("flat: inconclusive")
    fell = verdict(up, down, strong)
    assert fell.verdict == CONTRADICTED and fell.reason.startswith("down: contradicted") and fell.measured < 0
    assert "every one must hold" in fell.tolerance and "Holm over 3" in fell.tolerance


def test_equivalence_edges_and_its_plan():
    """The interval on the margin counts as inside; one just beyond it is outside; the plan uses the half-width and the
    distance of the estimate to the margin."""
    assert decide_equivalence(0.3, 0.25 + 1e-9, 0.4, 0.25).verdict == CONTRADICTED
    assert decide_equivalence(-0.3, -0.4, -0.25 - 1e-9, 0.25).verdict == CONTRADICTED
    assert decide_equivalence(-0.3, -0.4, -0.25, 0.25).verdict == INCONCLUSIVE
    near = decide_equivalence(0.05, -0.3, 0.4, 0.25)
    assert "interval half-width 0.35" in near.power
    z = stats.norm.ppf(0.975)
    factor = ((z + stats.norm.ppf(0.8)) * 0.35 / z / 0.2) ** 2
    assert f"about {factor:.3g}×" in near.power
    on = decide_equivalence(0.25, -0.1, 0.6, 0.25)
    assert "lies on or outside the margin" in on.power


def test_association_edges():
    """Spearman's ρ: fewer than four points or a constant variable decide nothing; the claimed sign either way."""
    x = np.arange(10.0)
    up = decide_association(x, x + np.sin(x), sign=1)
    assert up.verdict == REPRODUCED and "positive" in up.reason
    assert decide_association(x, -x - np.sin(x), sign=1).verdict == CONTRADICTED
    assert decide_association(x, -x - np.sin(x), sign=-1).verdict == REPRODUCED
    three = decide_association(x[:3], x[:3], sign=1)
    assert three.verdict == INCONCLUSIVE and three.reason == "3 points: no rank correlation"
    four = decide_association(x[:4], x[:4], sign=1)
    assert "no rank correlation" not in four.reason
    flat = decide_association(x, np.ones(10), sign=1)
    assert flat.verdict == INCONCLUSIVE and "10 points without variation" in flat.reason
    noisy = decide_association(x[:6], np.array([1.0, 3.0, 2.0, 5.0, 4.0, 0.0]), sign=1)
    assert noisy.verdict == INCONCLUSIVE and "points give 80% power at ρ" in noisy.power


def _family(rng, size: int) -> list[Paired]:
    seeds = int(rng.integers(3, 11))
    return [Paired(f"c{i}", rng.normal(rng.normal(0, 0.6), 1.0, seeds)) for i in range(size)]


def _agrees(row) -> bool:
    """A direction row's verdict agrees with its own interval: reproduced iff it lies above 0, contradicted iff below."""
    above, below = row.ci_low > 0, row.ci_high < 0
    return {REPRODUCED: above, CONTRADICTED: below, INCONCLUSIVE: not above and not below}[row.verdict]


def test_every_direction_rows_interval_agrees_with_its_holm_verdict():
    """On 40 random families (1–6 comparisons, 3–10 seed pairs): each row's interval, at the level of the Holm step
    that decided it, lies above 0 exactly when the row is reproduced and below exactly when contradicted; for single
    comparisons, groups that need every one and groups that need any one alike."""
    rng = np.random.default_rng(7)
    for _ in range(40):
        family = _family(rng, int(rng.integers(1, 7)))
        rows = direction_claims("X", [(f"X.{i}", "s", c) for i, c in enumerate(family)])
        split = int(rng.integers(1, len(family) + 1))
        groups = [("X.a", "s", family[:split])] + ([("X.b", "s", family[split:])] if split < len(family) else [])
        rows += every_step_claims("X", groups) + any_of_claims("X", groups)
        assert all(_agrees(r) for r in rows), [(r.verdict, r.ci_low, r.ci_high, r.tolerance) for r in rows]


def test_a_comparison_holm_rejects_at_a_later_step_shows_that_steps_interval():
    """Six comparisons, one overwhelming and one with p between α/6 and α/5: Holm rejects both (the second at its
    second step, α/5), and the Bonferroni interval at 1 − α/6·2 would hold 0 beside a "reproduced"; the row's interval
    is at 1 − 2α/5 and lies above 0."""
    alpha = 0.025
    base = np.array([-1.0, 0.0, 1.0, -0.5, 0.5])  # sd 0.79, mean 0: shifted to a chosen one-sided p-value
    se = base.std(ddof=1) / np.sqrt(base.size)
    shift = lambda p: base + stats.t.isf(p, base.size - 1) * se  # noqa: E731
    family = [Paired("strong", shift(1e-6)), Paired("second", shift(0.0046))]
    family += [Paired(f"null{i}", shift(0.5 + 0.05 * i)) for i in range(4)]
    assert family[1].p_values()[0] == pytest.approx(0.0046)
    rows = direction_claims("X", [(f"X.{p.label}", "s", p) for p in family])
    second = rows[1]
    assert second.verdict == REPRODUCED and second.ci_low > 0
    assert "its Holm step's 0.99" in second.tolerance  # 1 − 2 · 0.025/5
    bonferroni = family[1].interval(1 - 2 * alpha / 6)
    assert bonferroni[1] < 0  # the old display: "reproduced" beside an interval holding 0
    levels = holm_interval_levels(family)
    assert levels[0] == pytest.approx(1 - 2 * alpha / 6) and levels[1] == pytest.approx(1 - 2 * alpha / 5)
    # the undecided ones: the claim side stopped at its third step (α/4), the reverse side at its first (α/6)
    assert rows[2].verdict == INCONCLUSIVE and levels[2] == pytest.approx(1 - 2 * alpha / 6)
    assert np.isnan(holm_interval_levels([Paired("one", np.array([0.3]))])[0])


def test_a_rate_or_equivalence_power_names_the_noise_its_interval_comes_from():
    named = decide_rate(0.8, 0.4, 1.2, 1.0, side="at_least", noise="a bootstrap over 10 seeds")
    assert named.verdict == INCONCLUSIVE and named.power.startswith("interval half-width 0.4 from a bootstrap over 10 seeds")
    assert "seeds or samples of its interval (a bootstrap over 10 seeds)" in named.power
    assert "from" not in decide_rate(0.8, 0.4, 1.2, 1.0, side="at_least").power.split(";")[0]
    same = decide_equivalence(0.1, -0.3, 0.5, 0.25, noise="a seed-paired bootstrap over 5 seeds")
    assert same.power.startswith("interval half-width 0.4 from a seed-paired bootstrap over 5 seeds; margin ±0.25")


def test_an_undecided_two_sided_rate_plans_the_data_for_its_first_decision():
    """At the observed slope a narrower interval decides at the first of two events: its arm toward the prediction
    falls below the distance to it (contradicted), or its arm toward each competing rate it holds falls below the
    distance to that rate (reproduced). The plan is for the nearer one, each arm shrinking as 1/√n, at the interval's
    own level: a slope on the competing value is decided by leaving the prediction, not never; a slope near the
    competing value far from the prediction (the recipe's pilot of C3.marginal_gain_n.scrl, 0.97 [0.29, 1.44] at
    0.9875 against ½ and 1) needs about 3.7× the seeds, not the ~600× that telling 0.97 from 1 would."""

    def plan(arm, distance, level=0.95):
        z = stats.norm.ppf((1 + level) / 2)
        return f"about {((z + stats.norm.ppf(0.8)) / z * arm / distance) ** 2:.3g}× the seeds"

    on_it = decide_rate(0.5, 0.2, 1.2, 1.0, alternatives=(0.5,))
    assert on_it.verdict == INCONCLUSIVE and "no amount of data" not in on_it.power
    assert plan(0.7, 0.5) in on_it.power  # the upper arm, toward the prediction 1.0
    near = decide_rate(0.9666, 0.2934, 1.44, 0.5, alternatives=(1.0,), level=0.9875)
    assert near.verdict == INCONCLUSIVE and plan(0.9666 - 0.2934, 0.4666, 0.9875) in near.power
    assert "about 3.7" in near.power and "interval at 0.9875" in near.power
    # the lower arm, not the half-width: a skewed interval asks more where its long arm faces the decision
    assert plan(0.9666 - 0.2934, 0.4666, 0.9875) != plan((1.44 - 0.2934) / 2, 0.4666, 0.9875)
    # nearer the prediction than the competing rate: leaving the competing rate decides it first
    close = decide_rate(0.55, 0.2, 1.2, 0.5, alternatives=(1.0,))
    assert plan(0.65, 0.45) in close.power
    # several competing rates: a reproduced verdict must leave them all
    both = decide_rate(0.5, 0.1, 0.9, 0.5, alternatives=(0.3, 0.8))
    assert plan(0.4, 0.2) in both.power
    on_both = decide_rate(0.5, 0.1, 0.9, 0.5, alternatives=(0.5, 0.8))  # predicted == a competing rate: never decided
    assert "no amount of data is planned" in on_both.power


def test_a_few_seed_bootstrap_is_flagged_where_resamples_of_one_or_two_seeds_outweigh_its_tails():
    """few_seed_bootstrap's P₂ is the share of with-replacement resamples holding at most two distinct seeds (checked by
    enumerating every resample of k = 2..6 seeds); the caveat appears exactly where P₂ exceeds a tail's mass."""
    from itertools import product

    from crlrepro.claims.verdicts import few_seed_bootstrap

    for k in range(2, 7):
        two = sum(len(set(draw)) <= 2 for draw in product(range(k), repeat=k)) / k**k
        text = few_seed_bootstrap(k, 0.95)
        assert (text != "") == (two > 0.025)
        if text:
            assert f"are {two:.3g} of the bootstrap" in text and "tails (0.025 each)" in text
    assert few_seed_bootstrap(5, 1 - 0.05 / 6).startswith("; fragile: with 5 seeds")
    assert few_seed_bootstrap(8, 1 - 0.05 / 6) == "" and few_seed_bootstrap(22, 0.999) == ""
    assert few_seed_bootstrap(8, 0.9999) != ""  # a tail of 5e-5 is below the 8 seeds' 4.2e-4
    with pytest.raises(ValueError, match="at least 1 seed"):
        few_seed_bootstrap(0, 0.95)


# The stability rule -------------------------------------------------------------------------------------------------


def _at_t(t: float, n: int = 10, seed: int = 0) -> Paired:
    """Seed-paired differences whose t statistic is exactly ``t`` (n pairs, seeds 0..n−1)."""
    z = np.random.default_rng(seed).standard_normal(n)
    z = (z - z.mean()) / z.std(ddof=1)  # mean 0, sd 1
    return Paired("c", z + t / np.sqrt(n), tuple(range(n)))


def test_the_stability_rule_flags_a_row_at_its_threshold_and_passes_one_far_from_it():
    from crlrepro.claims.verdicts import STABLE_MARGIN, is_fragile, stability_text

    critical = stats.t.ppf(0.975, 9)  # a family of one: the one-sided test at 0.025
    near, far = decide_directions([_at_t(critical + 0.05)])[0], decide_directions([_at_t(critical + 6)])[0]
    assert near.verdict == far.verdict == REPRODUCED
    assert near.margin == pytest.approx(0.05, abs=1e-9) and far.margin == pytest.approx(6, abs=1e-9)
    said = stability_text(near, "direction")
    assert is_fragile(said) and f"margin 0.05 standard errors (< {STABLE_MARGIN:g})" in said
    assert stability_text(far, "direction").startswith("stable: margin 6 standard errors")
    assert "every verdict with one seed left out agrees" in stability_text(far, "direction")
    # a p-value just under its threshold: a rounding of another machine may move it, so it is not counted as decided
    assert near.margin < STABLE_MARGIN <= far.margin
    # an inconclusive row just short of its threshold is fragile too (another machine may decide it)
    short = decide_directions([_at_t(critical - 0.05)])[0]
    assert short.verdict == INCONCLUSIVE and is_fragile(stability_text(short, "direction"))


def test_leaving_one_seed_out_finds_the_seed_a_verdict_rests_on():
    from crlrepro.claims.verdicts import is_fragile, leave_one_seed_out, stability_text

    # nine small positive differences and one large: significant, but not without the large seed's pull? The reverse:
    # four equal differences and one outlier against them decide only with the outlier's seed left in or out
    d = np.array([1.0, 1.1, 0.9, 1.05, 0.95, -3.5])
    decision = decide_directions([Paired("c", d, (10, 11, 12, 13, 14, 15))])[0]
    words = dict(leave_one_seed_out([Paired("c", d, (10, 11, 12, 13, 14, 15))])[0])
    assert decision.verdict == INCONCLUSIVE and words["seed 15"] == REPRODUCED
    assert decision.left_out.startswith("without seed 15: reproduced")
    assert is_fragile(stability_text(decision, "direction"))
    # a row with no interval cannot be moved by a machine: stable
    single = decide_directions([Paired("c", np.array([1.0]), (0,))])[0]
    assert single.verdict == INCONCLUSIVE and stability_text(single, "direction").startswith("stable")


def test_every_interval_kind_reports_its_margin_in_its_errors():
    # a value against a quadrature interval: the paper's value 0.05 of the error (the half-width 0.01) inside its end
    inside = decide_value(1.0, 0.99, 1.01, 1.0095, rounding=0.0)
    assert inside.verdict == REPRODUCED and inside.margin == pytest.approx(0.05, rel=1e-6)
    assert inside.unit == "numerical errors"
    assert decide_value(1.0, 0.99, 1.01, 1.0, rounding=0.0).margin == pytest.approx(1.0, rel=1e-9)
    # a one-sided rate: its interval's low end 0.1 standard errors above the bound
    se = 0.2 / (2 * stats.norm.ppf(0.975))
    rate = decide_rate(1.1, 1.0 + 0.1 * se, 1.2 + 0.1 * se, 1.0, side="at_least")
    assert rate.verdict == REPRODUCED and rate.margin == pytest.approx(0.1, rel=1e-3)
    # equivalence: the interval's end 2 standard errors inside the margin
    se = 0.2 / (2 * stats.norm.ppf(0.975))
    eq = decide_equivalence(0.0, -0.1, 0.1, 0.1 + 2 * se)
    assert eq.verdict == REPRODUCED and eq.margin == pytest.approx(2, rel=1e-9)
    # a bound: the gap to the bound in numerical errors (the slack)
    bound = decide_bound([0.5, 0.7], [0.6, 0.705], 1.0, slack=0.01)
    assert bound.verdict == REPRODUCED and bound.margin == pytest.approx(1.5, rel=1e-9)


def test_a_group_moves_with_the_comparison_it_needs():
    critical = stats.t.ppf(1 - 0.025 / 2, 9)  # a Holm family of two, the strictest step
    strong, weak = _at_t(critical + 8, seed=1), _at_t(stats.t.ppf(0.975, 9) + 0.02, seed=2)
    every = every_step_claims("C3", [("C3.x", "every step", [strong, weak])])[0]
    anyone = any_of_claims("C3", [("C3.x", "any step", [strong, weak])])[0]
    assert every.verdict == anyone.verdict == REPRODUCED
    # every step must hold: the weak one decides its stability; any one suffices: the strong one does
    assert every.stability.startswith("fragile") and anyone.stability.startswith("stable")


def test_a_bound_over_trained_runs_measures_its_margin_in_the_runs_spread():
    quantity, bound = np.array([0.50, 0.60, 0.55]), np.array([0.70, 0.62, 0.80])
    by_runs = decide_bound(quantity, bound, 1.0, spread=0.04)
    assert by_runs.verdict == REPRODUCED and by_runs.unit == "run standard deviations"
    assert by_runs.margin == pytest.approx(0.02 / 0.04)  # the tightest run, half a spread from its bound: fragile
    assert np.isnan(decide_bound(quantity, bound, 1.0, spread=0.0).margin)


def test_holm_couples_the_margins_of_a_family():
    # B alone is undecided at Holm's first step; A just short of its own threshold: lifting A by a hair lets Holm
    # test B at the looser second step and decide it, so B's margin is A's distance, however far B is from its own
    df = 2
    a_t = stats.t.ppf(1 - 0.025 / 2, df) - 0.01
    a, b = _at_t(a_t, n=3, seed=3), _at_t(stats.t.ppf(1 - 0.025, df) + 0.5, n=3, seed=4)
    da, db = decide_directions([a, b])
    assert da.verdict == db.verdict == INCONCLUSIVE
    assert db.margin == pytest.approx(0.01, abs=1e-6) and da.margin == pytest.approx(0.01, abs=1e-6)
    # identical comparisons get the same margin, whichever is sorted first
    twin = decide_directions([_at_t(3.4, seed=5), _at_t(3.4, seed=6)])
    assert twin[0].margin == pytest.approx(twin[1].margin, abs=1e-9)
    # no spread: undecided is moved by any spread (margin 0); decided is not
    assert decide_directions([Paired("c", np.array([0.01, 0.01, 0.01]))])[0].margin == 0.0
    flat = decide_directions([Paired("c", np.full(8, 0.01))])[0]
    assert flat.verdict == REPRODUCED and flat.margin == np.inf


def test_each_verdict_is_moved_only_by_the_crossings_that_move_it():
    # a contradicted value: the paper's value far outside the interval; the width test does not move it
    assert decide_value(3.9, 2.9, 4.9, 1.0).margin == pytest.approx(1.9, rel=1e-9)
    # a contradicted two-sided rate: only the prediction re-entering moves it, not the competing rate inside
    se = 0.201 / (2 * stats.norm.ppf(0.975))
    assert decide_rate(1.1, 0.999, 1.2, 0.5, alternatives=(1.0,)).margin == pytest.approx(0.499 / se, rel=1e-9)
    # an undecided equivalence wider than the margin on one side only: reproduced needs that end to come in
    eq = decide_equivalence(0.2, -0.101, 0.5, 0.1)
    se = 0.601 / (2 * stats.norm.ppf(0.975))
    assert eq.verdict == INCONCLUSIVE and eq.margin == pytest.approx(min(0.4, 0.201) / se, rel=1e-9)


def test_the_stability_cell_reads_each_case_of_the_rule():
    from crlrepro.claims.verdicts import STABLE_MARGIN, is_fragile, stability_text

    def cell(margin, left_out=None, verdict=REPRODUCED, kind="direction", unit="standard errors"):
        return stability_text(Decision(verdict, "r", "p", margin, unit, left_out), kind)

    assert cell(0.5, kind="identity") == "" and cell(0.5, verdict=NOT_COMPARABLE) == ""
    assert cell(0.5, verdict=VERIFIED, kind="value") == "" and cell(0.5, verdict=FAILED, kind="value") == ""
    # the rule's edge: a margin of exactly STABLE_MARGIN is stable, just under it is fragile
    assert cell(STABLE_MARGIN) == f"stable: margin {STABLE_MARGIN:g} standard errors"
    assert cell(np.nextafter(STABLE_MARGIN, 0)) == f"fragile: margin {STABLE_MARGIN:g} standard errors (< {STABLE_MARGIN:g})"
    assert cell(4.0, unit="") == "stable: margin 4 errors"
    assert cell(np.inf) == "stable: no measurement could move it"
    assert cell(np.nan) == "unmeasured: no margin measured"
    assert cell(np.nan, "") == "unmeasured: no margin measured; every verdict with one seed left out agrees"
    assert cell(4.0, "") == "stable: margin 4 standard errors; every verdict with one seed left out agrees"
    assert cell(4.0, "without seed 2: inconclusive") == "fragile: without seed 2: inconclusive"
    both = cell(0.2, "without seed 2: inconclusive")
    assert both == f"fragile: margin 0.2 standard errors (< {STABLE_MARGIN:g}); without seed 2: inconclusive"
    assert cell(np.nan, "without seed 1: contradicted") == "fragile: without seed 1: contradicted"
    assert is_fragile(" Fragile: x") and not is_fragile("stable: x") and not is_fragile(np.nan) and not is_fragile("")


def test_crossing_and_interval_margins_and_the_seed_standard_error():
    from crlrepro.claims.verdicts import crossing_margin, interval_margin, normal_standard_error, seed_standard_error

    assert crossing_margin([(1.0, 1.5), (2.0, 2.1)], 0.05) == pytest.approx(2.0)
    assert crossing_margin([], 0.1) == np.inf
    assert np.isnan(crossing_margin([(1.0, 2.0)], 0.0)) and np.isnan(crossing_margin([(1.0, 2.0)], np.inf))
    assert np.isnan(crossing_margin([(np.nan, 2.0)], 1.0)) and np.isnan(crossing_margin([(1.0, -np.inf)], 1.0))
    assert interval_margin(0.0, 1.0, [1.25, -0.5, None, np.nan], 0.5) == pytest.approx(0.5)
    assert interval_margin(0.0, 1.0, [], 0.5) == np.inf and np.isnan(interval_margin(0.0, np.nan, [2.0], 0.5))
    assert np.isnan(interval_margin(0.0, 1.0, [2.0], -1.0))
    assert normal_standard_error(0.0, 2 * stats.norm.ppf(0.975)) == pytest.approx(1.0)
    assert normal_standard_error(0.0, 2 * stats.norm.ppf(0.95), level=0.9) == pytest.approx(1.0)
    assert seed_standard_error([1.0, 2.0, 3.0]) == pytest.approx(1.0 / np.sqrt(3))
    assert np.isnan(seed_standard_error([1.0]))


def test_a_row_read_back_gives_back_its_decision_and_an_older_table_is_read():
    from crlrepro.claims.verdicts import STABILITY_COLUMNS, decision_of

    row = claim(
        "A2", "A2.x", "s", "direction", Decision(REPRODUCED, "r", "p", 0.4, "standard errors", "without seed 3: x"), measured=1.0
    )
    back = decision_of(row)
    assert (back.margin, back.unit, back.left_out) == (0.4, "standard errors", "without seed 3: x")
    agrees = decision_of(
        claim("A2", "A2.x", "s", "direction", Decision(REPRODUCED, "r", "p", 4.0, "run standard deviations", ""), measured=1.0)
    )
    assert (agrees.unit, agrees.left_out) == ("run standard deviations", "")
    unmeasured = decision_of(claim("A2", "A2.x", "s", "direction", Decision(REPRODUCED, "r", "p"), measured=1.0))
    assert np.isnan(unmeasured.margin) and unmeasured.unit == "" and unmeasured.left_out is None
    table = claims_frame([row])
    older = table.drop(columns=list(STABILITY_COLUMNS))
    read = check_claims_table(older)
    assert list(read.columns) == CLAIM_COLUMNS and read["stability"].tolist() == [""] and read["margin"].isna().all()
    with pytest.raises(ValueError, match="has the columns"):
        check_claims_table(table.drop(columns=["margin"]))


def test_holm_on_rows_is_holm_on_each_row():
    from crlrepro.claims.verdicts import _holm_rows

    p = np.array([[0.01, 0.04, 0.03, np.nan], [0.5, 0.001, np.nan, 0.02], [np.nan] * 4])
    rows = _holm_rows(p)
    for i in range(2):
        finite = np.isfinite(p[i])
        assert rows[i, finite] == pytest.approx(holm(p[i, finite])) and np.isnan(rows[i, ~finite]).all()
    assert np.isnan(rows[2]).all()


def test_the_margins_of_bounds_rates_and_associations_follow_their_verdicts():
    # a bound violated at two points: it stays contradicted until the larger violation closes (in the slack)
    broken = decide_bound([0.5, 0.9, 0.75], [0.6, 0.7, 0.7], 1.0, slack=0.01)
    assert broken.verdict == CONTRADICTED and broken.margin == pytest.approx(19.0)
    # holding everywhere but informative nowhere: it moves when a point violates or one bound falls below 1
    idle = decide_bound([0.5, 1.0], [1.2, 1.03], 1.0, slack=0.01)
    assert idle.verdict == INCONCLUSIVE and idle.margin == pytest.approx(3.0)
    # reproduced at one informative point only: it moves when that point stops informing (0.1/0.01) or a gap closes
    lone = decide_bound([0.1, 0.2], [0.9, 1.5], 1.0, slack=0.01)
    assert lone.verdict == REPRODUCED and lone.margin == pytest.approx(10.0)
    # no slack: measured in float64 rounding, huge but finite
    assert 1e10 < decide_bound([0.5], [0.6], 1.0).margin < np.inf
    se = lambda low, high: (high - low) / (2 * stats.norm.ppf(0.975))  # noqa: E731
    # two-sided: reproduced moves when the prediction leaves or a competing rate enters
    two = decide_rate(0.5, 0.4, 0.6, 0.5, alternatives=(1.0, 0.7))
    assert two.verdict == REPRODUCED and two.margin == pytest.approx(0.1 / se(0.4, 0.6))
    # inconclusive: both competing rates inside must leave (the farther one counts), or the prediction leave
    both = decide_rate(0.5, 0.0, 1.2, 0.5, alternatives=(1.0, 0.9))
    assert both.verdict == INCONCLUSIVE and both.margin == pytest.approx(min(0.5, max(0.2, 0.3)) / se(0.0, 1.2))
    # one-sided at most: contradicted by the low end above the bound, reproduced by the high end below it
    above = decide_rate(2.0, 1.5, 2.5, 1.0, side="at_most")
    below = decide_rate(0.5, 0.2, 0.8, 1.0, side="at_most")
    straddles = decide_rate(1.0, 0.9, 1.4, 1.0, side="at_most")
    assert above.verdict == CONTRADICTED and above.margin == pytest.approx(0.5 / se(1.5, 2.5))
    assert below.verdict == REPRODUCED and below.margin == pytest.approx(0.2 / se(0.2, 0.8))
    assert straddles.verdict == INCONCLUSIVE and straddles.margin == pytest.approx(0.1 / se(0.9, 1.4))
    # at least, with a margin δ: the bound moves down by δ
    least = decide_rate(1.0, 0.9, 1.1, 1.0, side="at_least", margin=0.2)
    assert least.verdict == REPRODUCED and least.margin == pytest.approx(0.1 / se(0.9, 1.1))
    low_one = decide_rate(0.2, 0.1, 0.3, 1.0, side="at_least", margin=0.2)
    assert low_one.verdict == CONTRADICTED and low_one.margin == pytest.approx(0.5 / se(0.1, 0.3))
    # a deterministic rate in its numerical error
    exact = decide_rate(0.5, 0.49, 0.51, 1.0, side="at_most", standard_error=0.01)
    assert exact.margin == pytest.approx(49.0) and exact.unit == "numerical errors"
    # equivalence contradicted: the end beyond the margin must come back
    apart = decide_equivalence(1.0, 0.8, 1.2, 0.1)
    assert apart.verdict == CONTRADICTED and apart.margin == pytest.approx(0.7 / se(0.8, 1.2))
    # an association: the interval's near end from 0 in atanh ρ's standard error
    x = np.arange(20.0)
    y = -x + np.random.default_rng(0).normal(0, 4, 20)
    rho = decide_association(x, y, sign=-1)
    centre, error = np.arctanh(stats.spearmanr(x, y).statistic), np.sqrt(1.06 / 17)
    assert rho.verdict == REPRODUCED and rho.margin == pytest.approx(abs(centre) / error - stats.norm.ppf(0.975))


def test_a_value_in_standard_errors_and_a_paper_value_of_zero():
    value = decide_value(1.0, 0.9, 1.1, 1.03, rounding=0.005, standard_error=0.1 / 5.6)
    assert value.unit == "standard errors" and value.margin == pytest.approx(0.075 / (0.1 / 5.6))
    # a paper value of 0 has no width test (the half-width is never below |0|)
    zero = decide_value(0.0, -0.1, 0.1, 0.0)
    assert zero.verdict == INCONCLUSIVE and zero.margin == pytest.approx(1.0)


def test_a_row_over_unreported_ranges_moves_with_its_weakest_point():
    ranges = {"k": {"configured": 1, "range": [1, 2]}}
    configured = Decision(REPRODUCED, "r", "p", 3.0, "standard errors", "")
    weak = Decision(REPRODUCED, "r", "p", 0.4, "standard errors", "without seed 4: inconclusive")
    decision = over_unreported_ranges(configured, ("k",), ranges, {("k", 2): (weak, 1.0)}, 1.0)
    assert decision.verdict == REPRODUCED and decision.margin == 0.4 and decision.left_out.startswith("without seed 4")
    # a point whose margin was not recorded does not hide the others'
    unknown = Decision(REPRODUCED, "r", "p")
    kept = over_unreported_ranges(configured, ("k",), ranges, {("k", 2): (unknown, 1.0)}, 1.0)
    assert kept.margin == 3.0 and kept.left_out is None
    agree = over_unreported_ranges(configured, ("k",), ranges, {("k", 2): (configured, 1.0)}, 1.0)
    assert agree.left_out == ""


def test_a_group_that_one_seed_decides_is_fragile():
    strong = Paired("a", np.array([1.0, 1.1, 0.9, 1.05, 0.95, 1.02]), (0, 1, 2, 3, 4, 5))
    leaning = Paired("b", np.array([1.0, 1.1, 0.9, 1.05, 0.95, -3.5]), (0, 1, 2, 3, 4, 5))
    every = every_step_claims("C3", [("C3.x", "every step", [strong, leaning])])[0]
    assert every.verdict == INCONCLUSIVE and "without seed 5: reproduced" in every.stability
    anyone = any_of_claims("C3", [("C3.y", "any step", [strong, leaning])])[0]
    assert anyone.verdict == REPRODUCED and "every verdict with one seed left out agrees" in anyone.stability


def test_a_row_no_measurement_can_move_stores_no_infinite_margin():
    from crlrepro.claims.verdicts import decision_of
    from crlrepro.runtime.artifacts import nonfinite_problems

    row = claim("A2", "A2.x", "s", "direction", Decision(INCONCLUSIVE, "r", "p", np.inf), measured=1.0)
    assert np.isnan(row.margin) and row.stability == "stable: no measurement could move it"
    assert nonfinite_problems(claims_frame([row]), missing=CLAIM_NOT_APPLICABLE) == []
    assert decision_of(row).margin == np.inf


def test_a_direction_no_searched_shift_moves_reads_at_least_the_search():
    from crlrepro.claims.verdicts import MARGIN_SEARCH

    far = decide_directions([_at_t(40.0)])[0]
    assert far.verdict == REPRODUCED and far.margin == MARGIN_SEARCH
    assert far.reason and stability_of(far).startswith(f"stable: margin ≥ {MARGIN_SEARCH:g} standard errors")


def stability_of(decision):
    from crlrepro.claims.verdicts import stability_text

    return stability_text(decision, "direction")


def test_the_rules_constants_are_the_documented_ones():
    """docs/claims.md declares the rule; the code must hold the same numbers."""
    from pathlib import Path

    from crlrepro.claims.verdicts import MARGIN_SEARCH, STABLE_MARGIN

    text = (Path(__file__).parents[2] / "docs" / "claims.md").read_text()
    assert f"at least **{STABLE_MARGIN:g}** errors" in text and STABLE_MARGIN == 3
    assert f"searched up to {MARGIN_SEARCH:g} standard errors" in text and MARGIN_SEARCH == 10


def test_leave_one_seed_out_names_seeds_by_position_without_their_ids_and_counts_the_others():
    from crlrepro.claims.verdicts import first_moved, leave_one_seed_out

    d = np.array([1.0, 1.1, 0.9, 1.05, 0.95, -3.5])
    anonymous = leave_one_seed_out([Paired("c", d)])[0]
    assert [name for name, _ in anonymous] == [f"seed pair #{i}" for i in range(1, 7)]
    assert dict(anonymous)["seed pair #6"] == REPRODUCED and dict(anonymous)["seed pair #1"] == INCONCLUSIVE
    # a shorter comparison beside a longer one: each loses its own i-th pair, the short one nothing past its end
    short = leave_one_seed_out([Paired("a", d), Paired("b", d[:3])])
    assert len(short[0]) == len(short[1]) == 6
    moved = [("seed 1", "a"), ("seed 2", "x"), ("seed 3", "b"), ("seed 4", "c")]
    assert first_moved("x", moved) == "without seed 1: a (and 2 other seed(s))"
    assert first_moved("x", moved[:2]) == "without seed 1: a"
    assert first_moved("x", [("seed 2", "x")]) == ""


def test_a_comparison_of_two_pairs_has_a_margin_and_one_pair_has_none():
    two = decide_directions([Paired("c", np.array([1.0, 1.4]))])[0]
    assert two.verdict == INCONCLUSIVE and 0 < two.margin < np.inf
    assert decide_directions([Paired("c", np.array([1.0]))])[0].margin == np.inf
    flat = decide_directions([Paired("c", np.array([0.2, 0.2]))])[0]
    assert flat.verdict == INCONCLUSIVE and flat.margin == 0.0


def test_an_association_plans_its_points_and_measures_both_signs():
    x = np.arange(12.0)
    weak = decide_association(x, np.array([3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8.0]), sign=-1)
    rho = stats.spearmanr(x, np.array([3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8.0])).statistic
    z = stats.norm.ppf(0.975)
    needed = int(np.ceil(3 + 1.06 * ((z + stats.norm.ppf(0.8)) / abs(np.arctanh(rho))) ** 2))
    assert f"{needed} points give 80% power at ρ = {rho:.4g}" in weak.power
    up = decide_association(x, x + np.random.default_rng(1).normal(0, 3, 12), sign=1)
    r = stats.spearmanr(x, x + np.random.default_rng(1).normal(0, 3, 12)).statistic
    error = np.sqrt(1.06 / 9)
    assert up.verdict == REPRODUCED and up.margin == pytest.approx(np.arctanh(r) / error - z)
    assert weak.margin == pytest.approx(z - abs(np.arctanh(rho)) / error)


def test_equivalence_margins_on_each_side():
    se = lambda low, high: (high - low) / (2 * stats.norm.ppf(0.975))  # noqa: E731
    inside = decide_equivalence(0.0, -0.05, 0.08, 0.1)
    assert inside.verdict == REPRODUCED and inside.margin == pytest.approx(0.02 / se(-0.05, 0.08))
    below = decide_equivalence(-1.0, -1.2, -0.3, 0.1)
    assert below.verdict == CONTRADICTED and below.margin == pytest.approx(0.2 / se(-1.2, -0.3))
    left = decide_equivalence(-0.1, -0.3, 0.05, 0.1)  # only the low end outside: it alone must come in
    assert left.verdict == INCONCLUSIVE and left.margin == pytest.approx(min(0.2, 0.15) / se(-0.3, 0.05))
    far_left = decide_equivalence(-0.2, -0.6, 0.05, 0.1)
    assert far_left.verdict == INCONCLUSIVE and far_left.margin == pytest.approx(min(0.5, 0.15) / se(-0.6, 0.05))


def test_margins_follow_the_nearer_crossing_on_either_end():
    se = lambda low, high: (high - low) / (2 * stats.norm.ppf(0.975))  # noqa: E731
    # equivalence: reproduced with its low end nearer its edge; inconclusive with reproduced nearer than contradicted
    low_near = decide_equivalence(0.0, -0.09, 0.02, 0.1)
    assert low_near.verdict == REPRODUCED and low_near.margin == pytest.approx(0.01 / se(-0.09, 0.02))
    almost = decide_equivalence(0.0, -0.15, 0.09, 0.1)
    assert almost.verdict == INCONCLUSIVE and almost.margin == pytest.approx(0.05 / se(-0.15, 0.09))
    # a value whose paper number sits near the widened low end
    near_low = decide_value(1.0, 0.9, 1.1, 0.93, rounding=0.005, standard_error=0.01)
    assert near_low.margin == pytest.approx(3.5)


def test_a_groups_margin_is_its_weakest_needed_comparison():
    critical = stats.t.ppf(1 - 0.025 / 3, 9)
    strong, middle, weak = (_at_t(critical + shift, seed=s) for shift, s in ((9.0, 11), (5.0, 12), (1.5, 13)))
    groups = [("C3.x", "every step", [strong, middle, weak])]
    every = every_step_claims("C3", groups)[0]
    anyone = any_of_claims("C3", [("C3.y", "any step", [strong, middle, weak])])[0]
    margins = [d.margin for d in decide_directions([strong, middle, weak])]
    assert every.verdict == anyone.verdict == REPRODUCED
    assert every.margin == pytest.approx(min(margins)) and anyone.margin == pytest.approx(max(margins))
    assert min(margins) < max(margins)
