"""crlrepro.theory.gap_cdf on its own: F(t) = P(|r(x,y) − r(x,y')| ≤ t) and its density, against closed forms,
Monte Carlo on mixtures the pipeline never uses, and each other; and its argument checks."""

import numpy as np
import pytest

from crlrepro.theory.gap_cdf import (
    check_quadrature,
    check_thresholds,
    gap_cdf,
    gap_cdf_and_density,
    gap_density,
    monotone_in_y,
)
from crlrepro.theory.gmm import LatentClassGMM
from crlrepro.theory.tsybakov import density_ratio_gaps

# Mixtures the pipeline never runs: three classes with unequal spreads, and two classes at unequal weights.
SKEWED = LatentClassGMM(
    weights=[0.2, 0.5, 0.3], mean_x=[-1.5, 0.2, 1.4], std_x=[0.7, 1.0, 0.8], mean_y=[-1.0, 0.5, 1.8], std_y=[0.9, 0.6, 1.1]
)
TWO = LatentClassGMM(weights=[0.35, 0.65], mean_x=[0.9, -0.6], std_x=[1.0, 1.0], mean_y=[1.1, -0.8], std_y=[1.0, 1.0])


@pytest.mark.parametrize(
    "bad, message",
    [
        (0.0, "finite and > 0"),
        (-1e-3, "finite and > 0"),
        (np.nan, "finite and > 0"),
        ([], "empty"),
        ([[1e-3]], "1-D"),
        ("t", "numbers"),
    ],
)
def test_thresholds_must_be_positive_finite_numbers(bad, message):
    with pytest.raises(ValueError, match=message):
        check_thresholds(bad)
    with pytest.raises(ValueError, match=message):
        gap_cdf(TWO, bad)


def test_quadrature_sizes_are_checked():
    assert check_quadrature(16, 8) == (16, 8)
    with pytest.raises(ValueError, match="mass_nodes"):
        check_quadrature(16, 1)
    with pytest.raises(ValueError, match="mass_nodes"):
        gap_cdf(TWO, 1e-3, mass_nodes=2.5)


def test_independent_views_have_no_gap():
    """y independent of x (every class has the same y law): r ≡ 1, so the gap is 0 and F(t) = 1 at every t > 0. Measured:
    this degenerate mixture (δ constant up to rounding, which the piece structure still splits) loses ~1.1e-6 of mass
    at t = 1e-6 and ~1.2e-7 at 1e-2, far above the ~1e-10 of a mixture whose views depend on each other: a known limit
    of the quadrature, bounded here so that it cannot grow unseen."""
    independent = LatentClassGMM(weights=[0.4, 0.6], mean_x=[-1.0, 1.0], std_x=[1.0, 1.0], mean_y=[0.3, 0.3], std_y=[1.0, 1.0])
    np.testing.assert_allclose(gap_cdf(independent, [1e-6, 1e-2, 1.0], nodes=8), 1.0, atol=2e-6)


def _monte_carlo_agrees(gmm, t, cdf, samples=400_000):
    gaps = density_ratio_gaps(gmm, samples, np.random.default_rng(3))
    empirical = (gaps[:, None] <= t[None, :]).mean(axis=0)
    standard_error = np.sqrt(np.maximum(empirical * (1 - empirical), 1e-6) / gaps.size)
    assert np.all(np.abs(cdf - empirical) <= 5 * standard_error + 1e-9), np.abs(cdf - empirical) / standard_error


def test_cdf_is_a_cdf_and_agrees_with_monte_carlo():
    t = np.geomspace(1e-3, 5.0, 9)
    cdf = gap_cdf(TWO, t, nodes=12)
    assert cdf.shape == t.shape and np.all((cdf >= 0) & (cdf <= 1)) and np.all(np.diff(cdf) >= -1e-12)
    _monte_carlo_agrees(TWO, t, cdf)
    assert gap_cdf(TWO, 1e3, nodes=12) == pytest.approx(1.0, abs=1e-9)  # beyond every gap (the rule's ~1e-10)
    assert np.shape(gap_cdf(TWO, 0.1, nodes=12)) == ()  # a scalar in, a scalar out


def test_a_mixture_whose_ratio_turns_in_y_agrees_with_monte_carlo():
    """Three classes with unequal spreads: r(x, ·) has interior critical points (the pieces and halvings of the
    quadrature), one threshold (each costs ~10 s here)."""
    t = np.array([0.3])
    _monte_carlo_agrees(SKEWED, t, gap_cdf(SKEWED, t, nodes=12))


def test_density_is_the_derivative_of_the_cdf_and_one_pass_gives_both():
    t = np.array([2e-3, 0.05, 0.5])
    cdf, density = gap_cdf_and_density(TWO, t, nodes=12)
    np.testing.assert_array_equal(cdf, gap_cdf(TWO, t, nodes=12))
    np.testing.assert_array_equal(density, gap_density(TWO, t, nodes=12))
    h = 1e-4 * t
    difference = (gap_cdf(TWO, t + h, nodes=12) - gap_cdf(TWO, t - h, nodes=12)) / (2 * h)
    np.testing.assert_allclose(density, difference, rtol=1e-4)


def test_monotone_in_y_tells_two_equal_spread_classes_from_a_mixture_with_critical_points():
    assert monotone_in_y(TWO)  # K = 2, equal σy: r(x, ·) monotone for every x
    assert not monotone_in_y(SKEWED)  # unequal σy: r(x, ·) turns inside the support for some x
