"""The Bayes retrieval AUC E* by piecewise quadrature (crlrepro.theory.bayes_ranking) against independent checks:
Monte Carlo, the second-order trapezoid rule of crlrepro.theory.oracles, a literal sorted-ranks computation of A(x)
and closed forms."""

import numpy as np
import pytest
from scipy.special import ndtr

from crlrepro.theory.bayes_ranking import bayes_auc_piecewise, conditional_auc, monotone_auc, ranking_breakpoints
from crlrepro.theory.gmm import LatentClassGMM
from crlrepro.theory.oracles import bayes_auc
from crlrepro.theory.quadrature import SUPPORT_HALF_WIDTH

# one worker computes this module's shared fixtures (pytest-xdist, --dist loadgroup)
pytestmark = pytest.mark.xdist_group("test_bayes_ranking")

PAPER = LatentClassGMM([0.5, 0.5], [1.2, -1.2], [1.0, 1.0], [1.2, -1.2], [1.0, 1.0])
# Paper 1's non-monotone mixture: the Bayes ranking of y is not monotone in y for most x.
FOUR = LatentClassGMM([0.25] * 4, [-3.0, -1.0, 1.0, 3.0], [1.0] * 4, [-1.0, 3.0, -3.0, 1.0], [1.0] * 4)
# Unequal variances and weights; both tails of y go to the widest component, so h_x has critical points.
THREE = LatentClassGMM([0.3, 0.45, 0.25], [-2.0, 0.5, 2.5], [1.0, 0.8, 1.3], [-1.5, 0.3, 2.0], [0.7, 1.0, 1.4])
TWO_UNEQUAL = LatentClassGMM([0.35, 0.65], [1.0, -0.8], [0.9, 1.2], [0.8, -0.5], [0.6, 1.5])


@pytest.fixture(scope="module")
def estimates():
    """E* of the named mixtures at 32 and 64 nodes, computed once for the module."""
    return {
        name: {n: bayes_auc_piecewise(g, n) for n in (32, 64)}
        for name, g in {"paper": PAPER, "four": FOUR, "three": THREE, "two": TWO_UNEQUAL}.items()
    }


def monte_carlo_auc(gmm, pairs, seed):
    """E* ≈ mean of 1{PMI(x,y) > PMI(x,y')} + ½ 1{=} over independent (x, y) ~ p, y' ~ P_Y, with its standard error."""
    rng = np.random.default_rng(seed)
    x, y, _ = gmm.sample(pairs, rng)
    _, y_negative, _ = gmm.sample(pairs, rng)
    positive, negative = gmm.pmi_pairs(x, y), gmm.pmi_pairs(x, y_negative)
    wins = (positive > negative) + 0.5 * (positive == negative)
    return wins.mean(), wins.std(ddof=1) / np.sqrt(pairs)


def sorted_ranks_auc(gmm, x, points):
    """A(x) = Σ_i w_i h_i F_i literally: trapezoid weights of P_Y on an equispaced grid, h = e^{PMI}, and
    F_i = P_Y(h < h_i) + ½ P_Y(h = h_i) read off the sorted values (O(Δ²) accurate)."""
    lo = np.min(gmm.mean_y - SUPPORT_HALF_WIDTH * gmm.std_y)
    hi = np.max(gmm.mean_y + SUPPORT_HALF_WIDTH * gmm.std_y)
    y = np.linspace(lo, hi, points)
    w = np.exp(gmm.log_marginal_y(y)) * (y[1] - y[0])
    w[[0, -1]] *= 0.5
    out = []
    for value in np.atleast_1d(x):
        h = np.exp(gmm.pmi(np.array([value]), y)[0])
        order = np.argsort(h, kind="stable")
        h_sorted, w_sorted = h[order], w[order]
        cumulative = np.concatenate([[0.0], np.cumsum(w_sorted)])
        below = cumulative[np.searchsorted(h_sorted, h_sorted, side="left")]
        tied = cumulative[np.searchsorted(h_sorted, h_sorted, side="right")] - below
        out.append(np.sum(w_sorted * h_sorted * (below + 0.5 * tied)))
    return np.array(out)


def test_paper_mixture(estimates):
    breakpoints = ranking_breakpoints(PAPER)
    assert breakpoints.shape == (1,) and abs(breakpoints[0]) < 1e-12  # p(z|x) = π only at x = 0
    values = [estimates["paper"][32], estimates["paper"][64], bayes_auc_piecewise(PAPER, 128)]
    assert max(values) - min(values) <= 1e-10
    assert abs(values[1] - 0.6752037) < 5e-8
    assert abs(values[1] - bayes_auc(PAPER, 400, 2000)) < 3e-5  # the old rule is second order: 1.6e-5 off here


def test_non_monotone_four_component_mixture(estimates):
    values = [estimates["four"][32], estimates["four"][64], bayes_auc_piecewise(FOUR, 128)]
    assert max(values) - min(values) <= 1e-10
    value = values[1]
    mean, stderr = monte_carlo_auc(FOUR, 2_000_000, seed=11)
    assert abs(value - mean) < 4 * stderr
    assert abs(value - bayes_auc(FOUR, 400, 2000)) < 1e-4
    monotone = monotone_auc(FOUR, 32)
    assert monotone["best_monotone"] < value - 0.05  # no score monotone in y comes close
    assert monotone["xy"] < 0.5 and monotone["xy"] + monotone["minus_xy"] == pytest.approx(1.0, abs=1e-12)
    assert monotone["best_monotone"] >= max(monotone["xy"], monotone["minus_xy"])


def test_monotone_auc_closed_forms():
    for gmm in (FOUR, THREE, TWO_UNEQUAL):
        # E(x·y) = Σ_k π_k [B_k P(x_k > 0) + (1 − B_k) P(x_k < 0)], B_k = P(Y_k > Y'), Y_k ~ N(μy_k, σy_k²), Y' ~ P_Y.
        gap = (gmm.mean_y[:, None] - gmm.mean_y[None, :]) / np.hypot(gmm.std_y[:, None], gmm.std_y[None, :])
        win = ndtr(gap) @ gmm.weights
        positive = ndtr(gmm.mean_x / gmm.std_x)
        closed = np.sum(gmm.weights * (win * positive + (1 - win) * (1 - positive)))
        assert monotone_auc(gmm, 32)["xy"] == pytest.approx(closed, abs=1e-12)
    # For paper 2's mixture the Bayes ranking is monotone in y, so the best monotone score is Bayes.
    paper = monotone_auc(PAPER, 32)
    assert paper["best_monotone"] == pytest.approx(bayes_auc_piecewise(PAPER, 32), abs=1e-12)
    assert paper["xy"] == pytest.approx(paper["best_monotone"], abs=1e-12)


@pytest.mark.parametrize("name, gmm, seed", [("three", THREE, 5), ("two", TWO_UNEQUAL, 6)])
def test_unequal_variances(estimates, name, gmm, seed):
    # h_x is not monotone in y (both tails go to the widest y component): the case the splitting is for.
    h = np.exp(gmm.pmi(np.array([0.3]), np.linspace(-6, 6, 2001))[0])
    assert np.any(np.diff(np.sign(np.diff(h))) != 0)
    assert abs(estimates[name][32] - estimates[name][64]) <= 1e-9
    mean, stderr = monte_carlo_auc(gmm, 2_000_000, seed=seed)
    assert abs(estimates[name][64] - mean) < 4 * stderr


def test_conditional_auc_against_sorted_ranks():
    # x = −0.66 is next to a near-birth of two critical points of h_x (a hard case for the y rule).
    for gmm, xs in ((THREE, [-2.0, -0.66, 0.3, 1.5]), (FOUR, [-1.7, 0.4, 2.2]), (TWO_UNEQUAL, [-1.0, 0.9])):
        assert np.allclose(conditional_auc(gmm, xs, 48), sorted_ranks_auc(gmm, xs, 200_001), rtol=0, atol=1e-9)


def test_uninformative_x_ties_every_pair():
    # At x = 0 on the symmetric mixture p(z|x) = π, h_x ≡ 1: every pair is tied and A = ½.
    assert abs(conditional_auc(PAPER, [0.0], 32)[0] - 0.5) <= 1e-15
    assert np.all(conditional_auc(PAPER, [-2.0, -0.1, 0.1, 2.0], 32) > 0.5)
    # With identical y components no y says anything about z: h_x ≡ 1 for every x, and E* = ½.
    blind = LatentClassGMM([0.3, 0.3, 0.4], [1.0, -1.0, 0.0], [1.0, 1.0, 2.0], [0.5] * 3, [1.0] * 3)
    assert np.allclose(conditional_auc(blind, [-3.0, 0.0, 2.0], 16), 0.5, rtol=0, atol=1e-15)
    assert bayes_auc_piecewise(blind, 16) == pytest.approx(0.5, abs=1e-15)


def test_relabelling_components_leaves_e_star_unchanged(estimates):
    assert abs(bayes_auc_piecewise(FOUR.permuted([2, 0, 3, 1]), 32) - estimates["four"][32]) <= 1e-12
    assert abs(bayes_auc_piecewise(THREE.permuted([1, 2, 0]), 32) - estimates["three"][32]) <= 1e-12


def test_random_mixtures_converge():
    rng = np.random.default_rng(2024)
    for k in (2, 3, 4):
        gmm = LatentClassGMM(
            rng.dirichlet(np.full(k, 3.0)),
            rng.uniform(-3, 3, k),
            rng.uniform(0.5, 1.5, k),
            rng.uniform(-3, 3, k),
            rng.uniform(0.5, 1.5, k),
        )
        coarse, fine = bayes_auc_piecewise(gmm, 32), bayes_auc_piecewise(gmm, 64)
        assert abs(coarse - fine) <= 1e-8, (k, coarse, fine)
        assert 0.5 <= fine < 1.0


def test_rejects_too_few_nodes():
    for nodes in (1, 0, 2.5):
        with pytest.raises(ValueError, match="nodes"):
            bayes_auc_piecewise(PAPER, nodes)
    with pytest.raises(ValueError, match="nodes"):
        conditional_auc(PAPER, [0.0], 1)
    with pytest.raises(ValueError, match="nodes"):
        monotone_auc(PAPER, 1)
