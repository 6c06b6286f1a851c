import numpy as np
import pytest
from scipy.special import logsumexp

from crlrepro.numerics import log_sum_exp


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
