import numpy as np
import pytest
from scipy.special import logsumexp

from crlrepro.theory.numerics import log_sum_exp


@pytest.mark.parametrize("axis", [None, 0, 1, 2, -1, (0, 2)])
@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("scale", [1.0, 50.0, 1e3])
def test_log_sum_exp_matches_scipy(axis, keepdims, scale):
    a = np.random.default_rng(0).normal(size=(5, 7, 3)) * scale
    ours, theirs = log_sum_exp(a, axis=axis, keepdims=keepdims), logsumexp(a, axis=axis, keepdims=keepdims)
    assert np.shape(ours) == np.shape(theirs)
    np.testing.assert_allclose(ours, theirs, rtol=1e-14, atol=0)


def test_log_sum_exp_is_finite_where_the_plain_formula_overflows_or_underflows():
    a = np.array([[1000.0, 1000.0], [-1000.0, -1000.0 + np.log(3.0)]])
    with np.errstate(over="ignore", divide="ignore"):
        assert not np.isfinite(np.log(np.exp(a).sum(axis=1))).any()  # what the shift avoids
    np.testing.assert_allclose(log_sum_exp(a, axis=1), [1000.0 + np.log(2.0), -1000.0 + np.log(4.0)], rtol=1e-15)


def test_log_sum_exp_of_infinities_and_nan():
    a = np.array([[-np.inf, -np.inf], [np.inf, 1.0], [np.nan, 1.0], [-np.inf, 2.0]])
    out = log_sum_exp(a, axis=1)
    assert out[0] == -np.inf and out[1] == np.inf and np.isnan(out[2]) and out[3] == 2.0
    assert isinstance(log_sum_exp(np.arange(3.0)), np.floating)
    assert log_sum_exp(np.zeros((2, 0)), axis=1).tolist() == [-np.inf, -np.inf]  # empty sums, as scipy's
    with np.errstate(all="raise"):  # +∞ beside large finite entries: ∞, without a floating-point warning
        assert log_sum_exp(np.array([np.inf, 1e3])) == np.inf  # a full reduction is a scalar, as scipy's


def test_gmm_pmi_is_the_literal_log_sum_exp_even_where_the_factorised_sum_underflows():
    """LatentClassGMM.pmi's matrix-product form, checked entry by entry against the definition
    log Σ_k p(k|x) p(k|y) / π_k (scipy's logsumexp of the log posteriors), from the bulk to tails where the
    factorised sum underflows to 0 and must be recomputed, and NaN inputs staying NaN."""
    from scipy.special import logsumexp

    from crlrepro.theory.gmm import LatentClassGMM

    gmm = LatentClassGMM([0.25] * 4, [-3.0, -1.0, 1.0, 3.0], [1.0] * 4, [-1.0, 3.0, -3.0, 1.0], [1.0] * 4)
    x = np.array([-400.0, -80.0, -3.0, 0.0, 2.5, 90.0, 420.0])
    y = np.array([-410.0, -1.0, 0.5, 3.0, 85.0, 400.0])
    got = gmm.pmi(x, y)
    a = gmm.log_posterior_x(x) - np.log(gmm.weights)[None, :]
    b = gmm.log_posterior_y(y)
    literal = logsumexp(a[:, None, :] + b[None, :, :], axis=2)
    assert np.all(np.isfinite(got)) and got.min() < -700  # some entries are in the recomputed tail
    np.testing.assert_allclose(got, literal, rtol=1e-12, atol=1e-12)
    with_nan = gmm.pmi(np.array([np.nan, 0.0]), y)
    assert np.isnan(with_nan[0]).all() and np.isfinite(with_nan[1]).all()
    assert gmm.pmi(np.empty(0), y).shape == (0, y.size)
