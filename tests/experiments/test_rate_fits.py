"""Rates with a floor (crlrepro.experiments.rate_fits): c + a·x^(−r) recovered from noisy seeds, the asymptotic window
found by the χ² rule, and a sweep that never reaches the form reported as such."""

import numpy as np
import pandas as pd
import pytest

from crlrepro.experiments.rate_fits import floor_power_fit, floor_rate, gap_rate_table

XS = np.array([1, 2, 4, 8, 16, 32, 64], dtype=float)


def runs(curve, seeds=10, noise=0.03, seed=0, axis="m"):
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        [
            {axis: x, "seed": s, "gap": y * np.exp(noise * rng.standard_normal())}
            for s in range(seeds)
            for x, y in zip(XS, curve(XS), strict=True)
        ]
    )


@pytest.mark.parametrize("c, a, r", [(0.0, 1.0, 1.0), (0.004, 2.0, 0.5), (0.02, 1.0, 1.5)])
def test_an_exact_curve_is_recovered(c, a, r):
    fit = floor_power_fit(XS, c + a * XS ** (-r))
    assert fit["rate"] == pytest.approx(r, abs=1e-4) and fit["floor"] == pytest.approx(c, abs=1e-6) and fit["rms_log"] < 1e-5


def test_the_interval_covers_the_rate_and_a_pre_asymptotic_head_is_dropped():
    rng = np.random.default_rng(3)
    fit = floor_rate(runs(lambda x: 0.003 + 1.2 / x), "m", "gap", 300, rng)
    assert fit["fits"] and fit["window_from"] == 1 and fit["rate_low"] < 1.0 < fit["rate_high"]
    # a head that falls far faster than the tail: the window starts where the form holds
    head = {1.0: 40.0, 2.0: 6.0}
    fit = floor_rate(runs(lambda x: np.array([head.get(v, 0.003 + 1.2 / v) for v in x])), "m", "gap", 300, rng)
    assert fit["fits"] and fit["window_from"] >= 4 and fit["rate_low"] < 1.0 < fit["rate_high"]


def test_a_sweep_that_never_takes_the_form_says_so():
    rng = np.random.default_rng(4)
    plunge = {1.0: 4.0, 2.0: 3.7, 4.0: 3.4, 8.0: 2.9, 16.0: 2.2, 32.0: 0.9, 64.0: 0.08}  # SSCRL-like: flat, then a cliff
    fit = floor_rate(runs(lambda x: np.array([plunge[v] for v in x]), noise=0.02), "m", "gap", 50, rng)
    assert not fit["fits"] and fit["points"] == 4 and fit["fit_p"] < 0.05


def test_the_table_starts_sscrl_at_m_2_and_refuses_bad_input():
    table = pd.concat([runs(lambda x: 0.003 + 1.2 / x).assign(regime=regime, sweep="m", n=1024) for regime in ("scrl", "sscrl")])
    out = gap_rate_table(table, {"m": {"scrl": 1.0, "sscrl": 0.5}}, 50, seed=0).set_index("regime")
    assert out.loc["scrl", "fit_from"] == 1 and out.loc["sscrl", "fit_from"] == 2 and out.loc["sscrl", "predicted"] == 0.5
    with pytest.raises(ValueError, match="at least 4 points"):
        floor_power_fit(XS[:3], XS[:3])
    with pytest.raises(ValueError, match="> 0"):
        floor_power_fit(XS, -XS)
    with pytest.raises(ValueError, match="missing"):
        floor_rate(runs(lambda x: 1 / x).iloc[1:], "m", "gap", 10, np.random.default_rng(0))


def test_a_sweep_too_short_for_the_form_gets_a_row_without_a_fit():
    table = runs(lambda x: 1 / x).query("m <= 4").assign(regime="scrl", sweep="m", n=1024)
    out = gap_rate_table(table, {"m": {"scrl": 1.0}}, 10, seed=0).iloc[0]
    assert not out["fits"] and out["points"] == 3 and np.isnan(out["rate"])
