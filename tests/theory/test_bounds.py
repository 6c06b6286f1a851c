"""Paper 1: the OCE identity (Lemma 4.2), the calibration bound, and the retrieval metrics."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import logsumexp

from crlrepro.learning.metrics import auc_criterion, recall_at_k
from crlrepro.theory.bounds import (
    calibration_bound,
    log_mean_exp,
    oce_identity_table,
    oce_log_mean_exp,
    oce_objective,
)
from crlrepro.theory.gmm import LatentClassGMM
from crlrepro.theory.oracles import bayes_auc, retrieval_auc
from crlrepro.theory.stability import oce_replace_one_change, oce_stability_bound, oce_stability_table


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.floats(-50, 50, allow_nan=False), min_size=1, max_size=300),
    st.floats(0.01, 10.0),
)
def test_oce_identity_holds_for_random_deltas(deltas, tau):
    lhs = log_mean_exp(deltas, tau)
    rhs, mu_star = oce_log_mean_exp(deltas, tau)
    assert rhs == pytest.approx(lhs, rel=1e-9, abs=1e-9)
    # μ* minimises the objective: nudging it either way does not go lower
    for step in (1e-3, -1e-3):
        assert oce_objective(mu_star + step, deltas, tau) >= oce_objective(mu_star, deltas, tau) - 1e-12


def test_log_mean_exp_closed_forms_and_stability():
    assert log_mean_exp([0.0, 0.0, 0.0], 0.7) == pytest.approx(0.0, abs=1e-15)
    assert log_mean_exp([2.0], 0.1) == pytest.approx(2.0)
    # exp(1000/0.01) overflows any direct evaluation
    assert log_mean_exp([1000.0, 1000.0], 0.01) == pytest.approx(1000.0)
    with pytest.raises(ValueError, match="tau"):
        log_mean_exp([1.0], -1.0)


def test_oce_table_has_every_setting():
    table = oce_identity_table([1, 8], [0.1, 1.0], 2.0, 0)
    assert len(table) == 4 and (table["abs_diff"] < 1e-12).all()
    assert (table["max_abs_delta"] <= 4.0).all() and (table["mu_star"].abs() <= 4.0).all()


@pytest.mark.parametrize("tau", [0.05, 0.5, 3.0])
def test_oce_constraint_is_free_for_bounded_scores_and_binds_beyond_them(tau):
    rng = np.random.default_rng(1)
    bound = 1.5
    deltas = rng.uniform(-bound, bound, 64) - rng.uniform(-bound, bound)  # |Δ| ≤ 2B
    value, mu = oce_log_mean_exp(deltas, tau, score_bound=bound)
    assert value == pytest.approx(log_mean_exp(deltas, tau), abs=1e-10) and abs(mu) <= 2 * bound
    # scores beyond their bound (every Δ shifted by 5 > 2B = 3): the constrained minimum is no longer the log-mean-exp
    wide = deltas + 5.0
    value, mu = oce_log_mean_exp(wide, tau, score_bound=bound)
    assert value > log_mean_exp(wide, tau) + 1e-3 and mu == pytest.approx(2 * bound, abs=1e-6)


@pytest.mark.parametrize(("m", "tau", "bound"), [(1, 0.5, 1.0), (2, 0.3, 0.7), (4, 1.0, 2.0), (40, 2.5, 0.4)])
def test_oce_replace_one_change_is_the_sup_found_by_brute_force(m, tau, bound):
    """Every sample on a grid of [−2B, 2B]^m (small m) and every replacement of one Δ: the largest move of the
    minimiser found by the numerical OCE minimisation equals the closed form, which the strong-convexity bound holds."""
    import itertools

    grid = np.linspace(-2 * bound, 2 * bound, 4)
    mu = lambda d: oce_log_mean_exp(np.asarray(d), tau, score_bound=bound)[1]  # noqa: E731
    samples = itertools.product(grid, repeat=m) if m <= 4 else [np.full(m, grid[0])]
    largest = max(abs(mu(s) - mu(np.r_[new, s[1:]])) for s in samples for new in grid)
    exact = float(oce_replace_one_change(m, tau, bound))
    assert largest == pytest.approx(exact, rel=1e-6, abs=1e-6)  # the minimiser found numerically: to ~√ε
    assert exact <= float(oce_stability_bound(m, tau, bound)) and exact <= tau * np.expm1(4 * bound / tau) / m


def test_oce_stability_is_order_one_over_m_with_its_limit_and_finite_for_large_4b_over_tau():
    ms = np.array([10**6, 10**7, 10**8])
    change = oce_replace_one_change(ms, 1.0, 0.5)  # e^{4B/τ} = e^2 ≪ m: the 1/m regime
    np.testing.assert_allclose(ms * change, np.expm1(2.0), rtol=1e-5)
    np.testing.assert_allclose(oce_stability_bound(ms, 1.0, 0.5) * ms, np.e**2 * np.expm1(2.0), rtol=1e-12)
    # 4B/τ = 400: e^{400} overflows a direct evaluation; the change is finite (≈ 4B − τ log m), the bound is +∞
    assert float(oce_replace_one_change(16, 0.01, 1.0)) == pytest.approx(4.0 - 0.01 * np.log(16), rel=1e-12)
    assert np.isinf(oce_stability_bound(16, 0.01, 1.0))
    for bad in ({"m": 0}, {"m": 2.5}, {"tau": 0.0}, {"score_bound": -1.0}):
        args = {"m": 4, "tau": 1.0, "score_bound": 1.0} | bad
        with pytest.raises(ValueError, match=next(iter(bad))):
            oce_replace_one_change(**args)


def test_oce_stability_table_search_agrees_with_the_closed_form():
    table = oce_stability_table([1, 3, 256], [0.1, 2.0], 2.0, 0, random_samples=16)
    assert len(table) == 6
    np.testing.assert_allclose(table["searched_change"], table["worst_change"], rtol=1e-12)
    assert (table["worst_change"] <= table["stability_bound"]).all() and (table["worst_change"] <= 8.0).all()
    np.testing.assert_allclose(table["m_times_change"], table["m"] * table["worst_change"])


def test_calibration_bound():
    np.testing.assert_allclose(calibration_bound([0.0, 0.25, 1.0], 0.5), [0.0, 1.0, 2.0])


def test_auc_criterion_counts_ties_half():
    assert auc_criterion([2.0, 1.0, 0.0, 5.0], [1.0, 1.0, 3.0, 4.0]) == pytest.approx((1 + 0.5 + 0 + 1) / 4)


def test_recall_at_k():
    scores = np.array([[3.0, 1.0, 2.0], [5.0, 4.0, 0.0], [1.0, 1.0, 1.0]])
    # query 0: match best; query 1: match 2nd; query 2: all tied, counted as not retrieved at k=1
    assert recall_at_k(scores, 1) == pytest.approx(1 / 3)
    assert recall_at_k(scores, 2) == pytest.approx(2 / 3)
    assert recall_at_k(scores, 3) == pytest.approx(1.0)


@pytest.mark.parametrize(
    "gmm",
    [
        LatentClassGMM([0.5, 0.5], [1.2, -1.2], [1.0, 1.0], [1.2, -1.2], [1.0, 1.0]),
        LatentClassGMM([0.2, 0.5, 0.3], [2.0, -1.0, 0.3], [0.5, 1.5, 1.0], [-1.0, 0.4, 3.0], [2.0, 0.7, 1.2]),
    ],
    ids=["paper", "skewed"],
)
def test_bayes_auc_quadrature_matches_monte_carlo_and_dominates_other_scores(gmm):
    e_star = bayes_auc(gmm, 200, 1000)
    rng = np.random.default_rng(1)
    x, y, _ = gmm.sample(200_000, rng)
    _, y_neg, _ = gmm.sample(200_000, rng)

    log_px = gmm.log_posterior_x(x) - np.log(gmm.weights)
    wins = auc_criterion(logsumexp(log_px + gmm.log_posterior_y(y), 1), logsumexp(log_px + gmm.log_posterior_y(y_neg), 1))
    stderr = 0.5 / np.sqrt(200_000)
    assert abs(e_star - wins) < 4 * stderr
    # Fisher consistency (Lemma 3.3): no score ranks better than τ·PMI
    other = retrieval_auc(lambda a, b: np.outer(a, b), gmm, 200, 1000)
    assert other < e_star
    # A strictly increasing transform of the Bayes score has the same AUC (up to the O(h²)
    # interpolation of the score on the inner grid)
    assert retrieval_auc(lambda a, b: np.tanh(gmm.pmi(a, b)), gmm, 200, 1000) == pytest.approx(e_star, abs=1e-5)


# -- paper 2, Sec. 3: the approximation bound's constant -------------------------------------------------------

from crlrepro.theory.bounds import approximation_bound_constant, density_ratio_bound, score_sup_norm  # noqa: E402
from crlrepro.theory.oracles import excess_contrastive_risk, l2_distance_to_bayes_score  # noqa: E402


def test_density_ratio_bound_is_the_sup_of_r(paper_gmm, skewed_gmm):
    # paper 2's GMM: r = 1 + tanh(1.2x) tanh(1.2y) < 2, approached as x, y → ±∞ together
    assert density_ratio_bound(paper_gmm) == pytest.approx(2.0, abs=1e-9)
    alpha = density_ratio_bound(skewed_gmm)
    assert 1.0 < alpha <= 1.0 / skewed_gmm.weights.min() + 1e-12


def test_sup_norm_tells_bounded_scores_from_growing_ones(paper_gmm):
    bounded, ok = score_sup_norm(lambda x, y: 0.7 * np.tanh(np.add.outer(x, y)), paper_gmm)
    assert ok and bounded == pytest.approx(0.7, rel=1e-9)
    grows, ok = score_sup_norm(lambda x, y: np.multiply.outer(x, y), paper_gmm)
    assert not ok and grows > 100


def test_approximation_bound_constant_closed_form_and_small_b_limit():
    tau, alpha, b = 0.5, 2.0, 1.5
    a = 2 * b / tau
    t = np.linspace(0, 1, 200001)
    integral = np.trapezoid((1 - t) * np.exp(a * t), t)
    assert approximation_bound_constant(alpha, b, tau) == pytest.approx(tau * alpha * integral, rel=1e-8)
    assert approximation_bound_constant(alpha, 1e-9, tau) == pytest.approx(tau * alpha / 2, rel=1e-8)
    assert approximation_bound_constant(alpha, np.inf, tau) == np.inf
    for bad in ({"alpha": 0.5}, {"score_bound": -1.0}, {"tau": 0.0}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            approximation_bound_constant(**{"alpha": alpha, "score_bound": b, "tau": tau, **bad})


@pytest.mark.parametrize("tau", [0.3, 1.0])
def test_the_taylor_bound_holds_for_bounded_scores_and_is_not_loose_by_orders(paper_gmm, skewed_gmm, tau):
    """L(s) − L* ≤ C(α, B, τ)·‖s̃ − τP̃MI‖²/τ² for random bounded scores on two mixtures; C/(α e^{2B/τ}) is the
    only slack, so halving the constant must fail for some score near s* (the constant is not padded)."""
    rng = np.random.default_rng(0)
    for gmm in (paper_gmm, skewed_gmm):
        grid, alpha = gmm.grid(160), density_ratio_bound(gmm)
        for _ in range(6):
            c = rng.normal(size=4)
            b = rng.uniform(0.2, 1.5)

            def score(x, y, c=c, b=b):
                return b * np.tanh(
                    c[0] * np.add.outer(x, 0 * y) * np.add.outer(0 * x, y)
                    + c[1] * np.add.outer(x, 0 * y)
                    + c[2] * np.add.outer(0 * x, y)
                    + c[3]
                )

            excess = excess_contrastive_risk(score, grid, tau)
            distance = l2_distance_to_bayes_score(score, grid, tau)
            assert excess <= approximation_bound_constant(alpha, b, tau) * distance**2 / tau**2 + 1e-12
    # to leading order near s*, L(s* + εh) − L* = (ε²/2τ) E_x Var_{p(·|x)} h, and on a nearly independent mixture
    # Var_{p(·|x)} h → E_{P_Y} h̃², while α = 2 (attained only at infinity): the constant's B → 0 limit τα/2 is then
    # exactly α = 2 times the leading term, not more (a constant padded by another factor 2 would fail here)
    weak = LatentClassGMM(np.array([0.5, 0.5]), np.array([0.05, -0.05]), np.ones(2), np.array([0.05, -0.05]), np.ones(2))
    grid, alpha = weak.grid(160), density_ratio_bound(weak)
    assert alpha == pytest.approx(2.0, abs=1e-9)  # r = 1 + tanh(0.05x) tanh(0.05y) → 2 only far beyond any box
    score = lambda x, y: tau * weak.pmi(x, y) + 1e-3 * np.tanh(np.multiply.outer(x, y))  # noqa: E731
    leading = approximation_bound_constant(alpha, 0.0, tau) * l2_distance_to_bayes_score(score, grid, tau) ** 2 / tau**2
    assert excess_contrastive_risk(score, grid, tau) / leading == pytest.approx(1 / alpha, abs=0.02)
