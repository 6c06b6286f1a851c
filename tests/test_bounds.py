"""Paper 1: the OCE identity (Lemma 4.2), the calibration bound, and the retrieval metrics."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scipy.special import logsumexp

from crlrepro.bounds import calibration_bound, log_mean_exp, oce_identity_table, oce_log_mean_exp, oce_objective
from crlrepro.gmm import LatentClassGMM
from crlrepro.metrics import auc_criterion, recall_at_k
from crlrepro.oracles import bayes_auc, retrieval_auc


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
