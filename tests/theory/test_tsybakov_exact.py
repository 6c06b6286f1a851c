"""The exact CDF of the density-ratio gap (crlrepro.theory.tsybakov.gap_cdf and friends) against independent checks: a
factorised quadrature on paper 2's mixture, Monte Carlo on it and on paper 1's asymmetric mixture, and the
elementary properties of a CDF and of its log-log slope."""

import numpy as np
import pytest
from scipy.special import ndtr

from crlrepro.theory import gap_cdf as gap_cdf_module
from crlrepro.theory import tsybakov
from crlrepro.theory.gmm import LatentClassGMM
from crlrepro.theory.numerics import loglog_slope
from crlrepro.theory.tsybakov import density_ratio_gaps, gap_cdf, gap_cdf_local_slope, gap_density, window_slope, windows_matching

PAPER = LatentClassGMM(np.array([0.5, 0.5]), np.array([1.2, -1.2]), np.ones(2), np.array([1.2, -1.2]), np.ones(2))
# Paper 1's mixture: y-means in another order than the x-means, r(x, ·) with one or two critical points.
FOUR = LatentClassGMM(
    np.full(4, 0.25), np.array([-3.0, -1.0, 1.0, 3.0]), np.ones(4), np.array([-1.0, 3.0, -3.0, 1.0]), np.ones(4)
)

# one worker computes this module's shared fixtures (pytest-xdist, --dist loadgroup)
pytestmark = pytest.mark.xdist_group("test_tsybakov_exact")
T_REFERENCE = np.array([1e-9, 1e-7, 1e-5, 1e-3, 1e-1, 0.5, 1.0])


# -- an independent reference on paper 2's mixture -------------------------------------------------------------
#
# There p(z=1|v) = (1 + tanh(A v))/2 for either view (A = 1.2), so r(x, y) = 1 + tanh(Ax) tanh(Ay) and
# |r(x, y) − r(x, y')| = |tanh(Ax)| |B − B'|, B = tanh(AY). Given x, y ~ p(·|x) mixes the two components with
# weights p(z|x); by the symmetry y → −y both components give the same law of |B − B'| against Y' ~ P_Y, that of
# two independent draws from P_Y. Hence
#
#     F(t) = ∫ p(x) G(t / |tanh(Ax)|) dx,   G(s) = P(|B − B'| ≤ s),  B, B' iid,
#
# and G(s) = ∫ p(y') P_Y([y' − d₋, y' + d₊]) dy' with the exact offsets of the interval where |B − b(y')| ≤ s:
# d₊ = (log1p(s/(1+β)) − log1p(−s/(1−β)))/(2A), d₋ the mirror image (β = tanh(Ay'); ∞ past the asymptote).
# Both integrals are Gauss–Legendre, graded in the log of the distance to the points where an offset becomes
# infinite (y' = ±artanh(1 − s)/A) and to x₂ = artanh(t/2)/A (where s = 2, beyond which G = 1). Refining every
# rule changes the result by < 3e-10 relative at the thresholds T_REFERENCE.

A = 1.2


def _gl(n):
    t, w = np.polynomial.legendre.leggauss(n)
    return (t + 1.0) / 2.0, w / 2.0


def _density(y):
    return 0.5 * (np.exp(-0.5 * (y - A) ** 2) + np.exp(-0.5 * (y + A) ** 2)) / np.sqrt(2.0 * np.pi)


def _mass(a, b):
    """P_Y([a, b]), a ≤ b: Gauss–Legendre on the density when short, tail-side normal CDFs otherwise."""
    out = np.zeros(a.shape)
    short = (b - a) < 0.5
    theta, w = _gl(12)
    out[short] = (b - a)[short] * (_density(a[short, None] + (b - a)[short, None] * theta) @ w)
    for m in (A, -A):
        za, zb = a[~short] - m, b[~short] - m
        out[~short] += 0.5 * np.where(za > 0, ndtr(-za) - ndtr(-zb), ndtr(zb) - ndtr(za))
    return out


def _graded(c, length, sign, log_parts, lin_parts, n_log, n_lin, depth=1e-15):
    """Nodes and weights on [c, c + sign·length] (one row per c): uniform in log(distance to c) up to min(1, length),
    then linear."""
    near = np.minimum(length, 1.0)
    theta, w = _gl(n_log)
    x1, x2 = np.log(depth * np.maximum(near, 1e-300)), np.log(np.maximum(near, 1e-300))
    frac = ((np.arange(log_parts)[:, None] + theta) / log_parts).ravel()
    xi = x1[:, None] + (x2 - x1)[:, None] * frac
    points = [c[:, None] + sign * np.exp(xi)]
    weights = [(x2 - x1)[:, None] * np.tile(w, log_parts) / log_parts * np.exp(xi)]
    theta, w = _gl(n_lin)
    frac = ((np.arange(lin_parts)[:, None] + theta) / lin_parts).ravel()
    rest = length - near
    points.append(c[:, None] + sign * (near[:, None] + rest[:, None] * frac))
    weights.append(rest[:, None] * np.tile(w, lin_parts) / lin_parts)
    return np.concatenate(points, 1), np.concatenate(weights, 1)


def reference_g(s, log_parts=18, lin_parts=24, n_log=8, n_lin=12):
    """G(s) = P(|tanh(AY) − tanh(AY')| ≤ s), Y, Y' iid P_Y, for s in (0, 2)."""
    ys = np.arctanh(1.0 - s) / A
    c1, c2 = np.minimum(ys, -ys), np.maximum(ys, -ys)
    mid = (c1 + c2) / 2.0
    rule = (log_parts, lin_parts, n_log, n_lin)
    pieces = [
        _graded(c1, c1 + 12.0, -1.0, *rule),
        _graded(c1, mid - c1, 1.0, *rule),
        _graded(c2, c2 - mid, -1.0, *rule),
        _graded(c2, 12.0 - c2, 1.0, *rule),
    ]
    y = np.concatenate([p[0] for p in pieces], 1)
    wy = np.concatenate([p[1] for p in pieces], 1)
    z = A * y
    e = np.exp(-2.0 * np.abs(z))
    one_minus = np.where(z > 0, 2.0 * e / (1.0 + e), 1.0 - np.tanh(z))  # 1 − β without cancellation
    one_plus = np.where(z < 0, 2.0 * e / (1.0 + e), 1.0 + np.tanh(z))
    ss = s[:, None] * np.ones_like(y)
    with np.errstate(divide="ignore", invalid="ignore"):
        up = np.where(ss < one_minus, (np.log1p(ss / one_plus) - np.log1p(-ss / one_minus)) / (2.0 * A), np.inf)
        down = np.where(ss < one_plus, (np.log1p(ss / one_minus) - np.log1p(-ss / one_plus)) / (2.0 * A), np.inf)
    a, b = np.maximum(y - down, -40.0).ravel(), np.minimum(y + up, 40.0).ravel()
    return np.sum(wy * _density(y) * _mass(a, b).reshape(y.shape), 1)


def reference_cdf(t, x_log_parts=20, n_x=12):
    """F(t) = P(|X| ≤ x₂) + 2 ∫_{x₂}^∞ p(x) G(t / tanh(A x)) dx, x₂ = artanh(t/2)/A."""
    out = []
    theta, w = _gl(n_x)
    for tt in np.atleast_1d(t):
        if tt >= 2.0:
            out.append(1.0)
            continue
        x2 = np.arctanh(tt / 2.0) / A
        inner = _mass(np.array([-x2]), np.array([x2]))[0]
        xs, wx = _graded(np.array([x2]), np.array([x2]), 1.0, x_log_parts, 0, n_x, 2, depth=1e-16)
        k = int(np.ceil(np.log(12.0 / (2.0 * x2)) / 0.5))
        u = np.log(2.0 * x2) + np.log(12.0 / (2.0 * x2)) * ((np.arange(k)[:, None] + theta) / k).ravel()
        x = np.concatenate([xs[0], np.exp(u)])
        wts = np.concatenate([wx[0], np.tile(w, k) / k * np.log(12.0 / (2.0 * x2)) * np.exp(u)])
        s = tt / np.tanh(A * x)
        g = np.ones(x.size)
        g[s < 2.0] = reference_g(s[s < 2.0])
        out.append(inner + 2.0 * np.sum(wts * _density(x) * g))
    return np.array(out)


@pytest.fixture(scope="module")
def paper_cdf():
    """gap_cdf on paper 2's mixture at T_REFERENCE, computed once."""
    return gap_cdf(PAPER, T_REFERENCE)


def test_the_reference_rests_on_the_factorisation():
    rng = np.random.default_rng(3)
    x, y = rng.normal(0.0, 2.0, 50), rng.normal(0.0, 2.0, 50)
    np.testing.assert_allclose(np.exp(PAPER.pmi_pairs(x, y)), 1.0 + np.tanh(A * x) * np.tanh(A * y), rtol=1e-12)


def test_paper_mixture_matches_the_factorised_reference_to_seven_digits(paper_cdf):
    reference = reference_cdf(T_REFERENCE)
    np.testing.assert_allclose(paper_cdf, reference, rtol=1e-7, atol=0.0)


def test_paper_mixture_small_t_is_t_log_t(paper_cdf):
    # F ~ c t log(1/t): F/t grows like log(1/t) between 1e-9 and 1e-7, not like a constant.
    ratio = paper_cdf[:3] / T_REFERENCE[:3]
    assert ratio[0] > ratio[1] > ratio[2]
    logs = np.log(1.0 / T_REFERENCE[:3])
    assert np.polyfit(logs, ratio, 1)[0] > 0.1


# -- Monte Carlo --------------------------------------------------------------------------------------------------


def _check_against_monte_carlo(gmm, t, exact, samples, seed):
    gaps = np.sort(density_ratio_gaps(gmm, samples, np.random.default_rng(seed)))
    count = np.searchsorted(gaps, t, side="right")
    assert np.all(count >= 200), "choose t where the Monte-Carlo count is large enough"
    p = count / samples
    se = np.sqrt(exact * (1.0 - exact) / samples)
    assert np.all(np.abs(p - exact) <= 4.0 * se), (p, exact, se)


def test_paper_mixture_against_monte_carlo():
    t = np.array([3e-4, 3e-3, 3e-2, 0.2, 0.6, 1.2])
    _check_against_monte_carlo(PAPER, t, gap_cdf(PAPER, t), 1_000_000, seed=11)


def test_asymmetric_mixture_against_monte_carlo():
    t = np.array([0.02, 0.3])
    _check_against_monte_carlo(FOUR, t, gap_cdf(FOUR, t, nodes=12), 400_000, seed=12)


# -- properties of a CDF ----------------------------------------------------------------------------------------


def test_cdf_is_monotone_in_the_unit_interval_and_reaches_one():
    t = np.concatenate([np.geomspace(1e-9, 1.9, 12), [2.5, 10.0]])
    cdf = gap_cdf(PAPER, t)
    assert np.all((cdf >= 0.0) & (cdf <= 1.0))
    assert np.all(np.diff(cdf) >= 0.0)
    assert np.all(np.diff(cdf[:12]) > 0.0)  # strictly increasing below t = 2
    # On paper 2's mixture every gap is below 2 (|tanh| < 1 twice): F(t) = 1 from t = 2 on, and not before.
    np.testing.assert_allclose(cdf[-2:], 1.0, atol=1e-12)
    assert cdf[11] < 1.0 - 1e-6
    np.testing.assert_allclose(gap_cdf(FOUR, [50.0]), 1.0, atol=1e-12)


def test_scalar_threshold_gives_a_scalar():
    value = gap_cdf(PAPER, 0.1)
    assert np.shape(value) == ()
    assert value == pytest.approx(gap_cdf(PAPER, [0.1])[0], rel=1e-14)


# -- the local slope ------------------------------------------------------------------------------------------------


def test_local_slope_tends_to_one_from_below_like_one_minus_one_over_log():
    t = np.geomspace(1e-9, 1e-3, 7)
    slope = gap_cdf_local_slope(PAPER, t, method="density")
    assert 0.9 < slope[0] < 1.0
    assert np.all(np.diff(slope) < 0.0)  # rising as t decreases
    log_inverse = np.log(1.0 / t)
    # c t log(1/t) has slope 1 − 1/log(1/t); the constant term of F adds O(1/log²).
    assert np.all(np.abs(slope - (1.0 - 1.0 / log_inverse)) < 2.0 / log_inverse**2)


def test_local_slope_methods_agree_with_a_difference_of_the_cdf():
    t = np.array([1e-8, 1e-4, 0.05, 0.7])
    by_density = gap_cdf_local_slope(PAPER, t, method="density")
    by_difference = gap_cdf_local_slope(PAPER, t, method="difference")
    np.testing.assert_allclose(by_difference, by_density, atol=1e-6)
    h = 1e-3
    shifted = np.log(gap_cdf(PAPER, np.concatenate([t * np.exp(h), t * np.exp(-h)])))
    central = (shifted[: t.size] - shifted[t.size :]) / (2.0 * h)
    np.testing.assert_allclose(central, by_density, atol=1e-5)


# -- window slopes ----------------------------------------------------------------------------------------------------


def test_window_slope_is_the_loglog_slope_of_the_exact_cdf():
    window = (1e-5, 1e-3)
    t = np.geomspace(*window, 5)
    expected = loglog_slope(t, gap_cdf(PAPER, t))
    assert window_slope(PAPER, window, 5) == pytest.approx(expected, rel=1e-12)
    assert 0.8 < expected < 1.0


def test_windows_matching_reports_every_window_with_its_slope():
    table = windows_matching(PAPER, 0.8789, 0.05, (1e-4, 1e-3), [1.0], points_per_decade=4)
    assert list(table.columns) == ["t_min", "t_max", "width", "points", "slope", "matches"]
    assert table["t_min"].tolist() == pytest.approx([1e-4, 10**-3.75, 10**-3.5, 10**-3.25, 1e-3])
    np.testing.assert_allclose(table["t_max"], table["t_min"] * 10.0)
    assert table["matches"].tolist() == (np.abs(table["slope"] - 0.8789) <= 0.05).tolist()
    for row in table.iloc[[0, -1]].itertuples():
        assert row.slope == pytest.approx(window_slope(PAPER, (row.t_min, row.t_max), row.points), rel=1e-12)
    assert table["slope"].is_monotonic_decreasing  # the exponent falls from ~0.93 toward larger t
    explicit = windows_matching(PAPER, 0.8789, 0.05, [1e-4], [1.0, 2.0], points_per_decade=4)
    assert explicit["points"].tolist() == [5, 9]


def test_windows_matching_reuses_known_values_and_computes_only_the_rest(monkeypatch):
    curve = tsybakov.exact_gap_curve(PAPER, 1e-4, 1e-3, 4)  # 5 of the 9 points the windows below need
    plain = windows_matching(PAPER, 0.8789, 0.05, [1e-4, 10**-3.5], [1.0], points_per_decade=4)
    asked = []
    original = tsybakov.gap_cdf
    monkeypatch.setattr(tsybakov, "gap_cdf", lambda gmm, t, **kw: asked.append(np.size(t)) or original(gmm, t, **kw))
    reused = windows_matching(PAPER, 0.8789, 0.05, [1e-4, 10**-3.5], [1.0], points_per_decade=4, known=curve)
    assert asked == [2]  # 10^-2.75 and 10^-2.5 only
    np.testing.assert_allclose(reused["slope"], plain["slope"], rtol=1e-12)
    # the known values are what the windows use: F(t) = t there gives slope 1 on the window they cover
    fake = windows_matching(PAPER, 0.8789, 0.05, [1e-4], [1.0], points_per_decade=4, known=curve.assign(cdf=curve["t"]))
    assert fake["slope"].tolist() == pytest.approx([1.0], abs=1e-12)
    with pytest.raises(ValueError, match="another quadrature rule"):  # values of a coarser rule are not reused
        windows_matching(PAPER, 0.8789, 0.05, [1e-4], [1.0], points_per_decade=4, known=curve, nodes=8)


# -- bad input ---------------------------------------------------------------------------------------------------------


@pytest.fixture
def no_work(monkeypatch):
    """Fail if any quadrature starts."""

    def refuse(*args, **kwargs):
        raise AssertionError("quadrature started before the input was checked")

    monkeypatch.setattr(gap_cdf_module, "_gap_cdf_and_density", refuse)
    monkeypatch.setattr(gap_cdf_module, "_x_landmarks", refuse)


@pytest.mark.parametrize(
    "bad, shown", [([0.1, 0.0], "0.0"), ([-1e-3], "-0.001"), ([np.nan, 0.1], "nan"), ([0.1, np.inf], "inf"), ([], "empty")]
)
def test_bad_thresholds_are_refused_before_any_work(no_work, bad, shown):
    for function in (gap_cdf, gap_density, gap_cdf_local_slope):
        with pytest.raises(ValueError, match=shown):
            function(PAPER, bad)


def test_bad_windows_and_options_are_refused(no_work):
    with pytest.raises(ValueError, match="t_min < t_max"):
        window_slope(PAPER, (1e-3, 1e-5), 9)
    with pytest.raises(ValueError, match="points"):
        window_slope(PAPER, (1e-5, 1e-3), 1)
    with pytest.raises(ValueError, match="widths"):
        windows_matching(PAPER, 0.88, 0.05, (1e-4, 1e-3), [0.0])
    with pytest.raises(ValueError, match="-0.5"):
        windows_matching(PAPER, 0.88, 0.05, [1e-4, -0.5], [1.0])
    with pytest.raises(ValueError, match="method"):
        gap_cdf_local_slope(PAPER, [0.1], method="spline")
    with pytest.raises(ValueError, match="nodes"):
        gap_cdf(PAPER, [0.1], nodes=1)


def test_the_ranking_is_monotone_in_y_only_where_no_x_gives_a_critical_point():
    assert gap_cdf_module.monotone_in_y(PAPER)  # K = 2, equal σy: q_1(y) is a logistic function of y
    # unequal σy: log q_1/q_2 is quadratic in y, so q_1 turns; paper 1's K = 4 mixture: PMI(x, ·) peaks inside
    unequal = LatentClassGMM(np.array([0.5, 0.5]), np.array([1.2, -1.2]), np.ones(2), np.array([1.2, -1.2]), np.array([1.0, 2.0]))
    paper1 = LatentClassGMM(
        np.full(4, 0.25), np.array([-3.0, -1.0, 1.0, 3.0]), np.ones(4), np.array([-1.0, 3.0, -3.0, 1.0]), np.ones(4)
    )
    assert not gap_cdf_module.monotone_in_y(unequal) and not gap_cdf_module.monotone_in_y(paper1)
    assert tsybakov._slope_method(PAPER, "auto") == "density"
    assert tsybakov._slope_method(unequal, "auto") == tsybakov._slope_method(PAPER, "difference") == "difference"


def test_exact_curve_slope_matches_the_local_slope_and_the_t_log_t_law():
    curve = tsybakov.exact_gap_curve(PAPER, 1e-9, 1e-7, 1)
    assert curve.attrs["slope_method"] == "density"  # auto: r(x, ·) is monotone for every x
    np.testing.assert_allclose(curve["t"], [1e-9, 1e-8, 1e-7])
    np.testing.assert_allclose(curve["cdf"], gap_cdf(PAPER, curve["t"].to_numpy()), rtol=1e-12)
    np.testing.assert_allclose(curve["local_slope"], gap_cdf_local_slope(PAPER, curve["t"].to_numpy()), rtol=1e-10)
    by_difference = tsybakov.exact_gap_curve(PAPER, 1e-9, 1e-7, 1, method="difference")
    assert by_difference.attrs["slope_method"] == "difference"
    np.testing.assert_allclose(by_difference["cdf"], curve["cdf"], rtol=1e-12)
    np.testing.assert_allclose(by_difference["local_slope"], curve["local_slope"], atol=1e-6)
    # F ≈ c t log(1/t): the local slope is 1 − 1/log(1/t) up to O(1/log²)
    law = 1.0 - 1.0 / np.log(1.0 / curve["t"])
    assert np.all(np.abs(curve["local_slope"] - law) < 0.01) and curve["local_slope"].is_monotonic_decreasing


def test_small_t_exponent_is_the_secant_of_the_exact_cdf():
    result = tsybakov.small_t_exponent(PAPER, 1e-9)
    f = gap_cdf(PAPER, np.array([1e-9, 1e-8]))
    assert result["mu_small"] == pytest.approx(np.log10(f[1] / f[0]), rel=1e-12)
    assert result["rate"] == pytest.approx((result["mu_small"] + 1) / (result["mu_small"] + 2))
    assert 0.94 < result["mu_small"] < 0.96  # between the local slopes at its two ends


def test_monte_carlo_agreement_is_a_binomial_z_score():
    z = tsybakov.monte_carlo_agreement(np.array([0.5, 0.1]), np.array([0.51, 0.1]), 10000)
    np.testing.assert_allclose(z, [0.01 / 0.005, 0.0])
    with pytest.raises(ValueError, match="one shape"):
        tsybakov.monte_carlo_agreement(np.array([0.5]), np.array([0.5, 0.1]), 10)
    with pytest.raises(ValueError, match="samples"):
        tsybakov.monte_carlo_agreement(np.array([0.5]), np.array([0.5]), 0)


def test_a_wrong_cdf_fails_the_monte_carlo_check():
    """The check can fail: the exact F of another mixture is far from this one's Monte Carlo."""
    rng = np.random.default_rng(0)
    gaps = density_ratio_gaps(PAPER, 200_000, rng)
    t = np.array([1e-3, 1e-2, 1e-1])
    empirical = np.searchsorted(np.sort(gaps), t, side="right") / gaps.size
    assert np.abs(tsybakov.monte_carlo_agreement(gap_cdf(PAPER, t), empirical, gaps.size)).max() < 4
    closer = LatentClassGMM(np.array([0.5, 0.5]), np.array([1.0, -1.0]), np.ones(2), np.array([1.2, -1.2]), np.ones(2))
    assert np.abs(tsybakov.monte_carlo_agreement(gap_cdf(closer, t), empirical, gaps.size)).max() > 10


def test_bad_curve_and_small_t_options_are_refused(no_work):
    with pytest.raises(ValueError, match="t_min < t_max"):
        tsybakov.exact_gap_curve(PAPER, 1.0, 1e-3, 2)
    with pytest.raises(ValueError, match="points_per_decade"):
        tsybakov.exact_gap_curve(PAPER, 1e-3, 1.0, 0)
    with pytest.raises(ValueError, match="positive"):
        tsybakov.small_t_exponent(PAPER, -1e-9)


@pytest.mark.parametrize("mu0, power", [(1.0, 1.0), (0.5, 2.0), (0.8789, 0.0), (1.3, -0.5)])
def test_admissible_exponent_extrapolates_the_local_slope_of_regularly_varying_cdfs(mu0, power):
    # F = t^μ₀ log(1/t)^p: μ(t) = μ₀ − p/log(1/t), which approaches μ₀ only logarithmically: at t = 1e-9 it is still
    # p/20.7 away, the extrapolation in 1/log(1/t) recovers μ₀
    t = np.geomspace(1e-9, 1.0, 37)
    slope = mu0 - power / np.log(1.0 / np.where(t < 1, t, 0.5))
    result = tsybakov.admissible_exponent(t, slope)
    assert result["limit"] == pytest.approx(mu0, abs=1e-9) and result["fits"] == 4
    assert result["low"] == pytest.approx(mu0, abs=1e-9) and result["high"] == pytest.approx(mu0, abs=1e-9)
    assert result["t_max"] == pytest.approx(1e-7)
    if power:
        assert abs(slope[0] - mu0) > 0.02  # the smallest t alone would be off


def test_admissible_exponent_of_the_papers_curve_is_one():
    t = np.geomspace(1e-9, 1e-7, 5)
    curve = tsybakov.exact_gap_curve(PAPER, 1e-9, 1e-7, 2)
    result = tsybakov.admissible_exponent(curve["t"], curve["local_slope"])
    assert result["limit"] == pytest.approx(1.0, abs=2e-3) and result["low"] <= result["limit"] <= result["high"]
    np.testing.assert_allclose(curve["t"], t)


def test_admissible_exponent_refuses_bad_input_and_says_when_it_cannot_fit():
    with pytest.raises(ValueError, match="one length"):
        tsybakov.admissible_exponent([1e-3, 1e-2], [0.9])
    with pytest.raises(ValueError, match="decades"):
        tsybakov.admissible_exponent([1e-3, 1e-2], [0.9, 0.9], decades=0)
    # two points below t = 1 (the point at 1 has no 1/log(1/t)): no fit has its points
    assert np.isnan(tsybakov.admissible_exponent([1e-3, 1e-2, 1.0], [0.9, 0.9, 0.5])["limit"])
