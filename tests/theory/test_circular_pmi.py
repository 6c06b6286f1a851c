"""The polynomial-decay distribution (crlrepro.theory.circular_pmi): a joint law with uniform marginals, its PMI
operator's spectrum exactly the one constructed, the truncation table, and the window's rate."""

import numpy as np
import pytest

from crlrepro.theory.circular_pmi import CircularPMI, polynomial_decay_table, window_rate
from crlrepro.theory.spectral import operator_svd


@pytest.mark.parametrize("gamma, amplitude, modes", [(3.0, 0.5, 24), (2.2, 0.3, 17), (5.0, 0.9, 8)])
def test_a_joint_law_with_uniform_marginals_and_the_spectrum_it_was_built_with(gamma, amplitude, modes):
    model = CircularPMI(gamma, amplitude, modes)
    grid = model.grid(16 * modes)  # e^k is not band-limited: its sums converge geometrically in the nodes
    joint = grid.joint_weights()
    assert joint.sum() == pytest.approx(1.0, abs=1e-10)
    np.testing.assert_allclose(joint.sum(axis=1) / grid.x.weights, 1.0, atol=1e-10)  # p(x) uniform, exactly on the rule
    np.testing.assert_allclose(joint.sum(axis=0) / grid.y.weights, 1.0, atol=1e-10)
    svd = operator_svd(model.pmi, grid.x, grid.y)
    exact = model.eigenvalues()
    np.testing.assert_allclose(np.sort(svd.eigenvalues)[::-1][: exact.size], exact, rtol=1e-9, atol=1e-13)
    a2 = amplitude**2 * np.arange(1, modes + 1) ** -gamma
    assert sorted(a2.tolist() * 2) == pytest.approx(sorted(exact[exact != model.log_normaliser() ** 2]))


def test_the_pmi_is_the_kernel_of_the_difference_and_bad_models_are_refused():
    model = CircularPMI(3.0, 0.5, 6)
    x, y = np.array([0.1, 0.7]), np.array([0.05, 0.3, 0.95])
    direct = 2 * sum(0.5 * j**-1.5 * np.cos(2 * np.pi * j * np.subtract.outer(x, y)) for j in range(1, 7))
    np.testing.assert_allclose(model.pmi(x, y), direct - model.log_normaliser(), atol=1e-13)
    t = np.linspace(0, 1, 20001)
    z = np.trapezoid(np.exp(model.kernel(t)), t)
    assert model.log_normaliser() == pytest.approx(np.log(z), abs=1e-8)
    for bad, match in (((1.0, 0.5, 6), "gamma"), ((3.0, 0.0, 6), "amplitude"), ((3.0, 0.5, 0), "modes")):
        with pytest.raises(ValueError, match=match):
            CircularPMI(*bad)
    with pytest.raises(ValueError, match="2 × modes"):
        model.grid(12)


def test_the_truncation_table_and_its_rate():
    table = polynomial_decay_table([3.0], 0.5, 24, 0.5, [2, 4, 8, 16], 128)
    np.testing.assert_allclose(table["tail_sum"], table["tail_exact"], rtol=1e-9)
    assert (table["trunc_excess_risk"] > 0).all() and table["trunc_excess_risk"].is_monotonic_decreasing
    assert np.allclose(table["trunc_excess_coarse"], table["trunc_excess_risk"], rtol=2e-2)  # 64 vs 128 nodes
    rate = window_rate(table, 3.0, [4, 16])
    assert rate["dims"] == [4, 8, 16] and rate["low"] <= rate["slope"] <= rate["high"] and rate["predicted"] == -2.0
    assert -2.6 < rate["slope"] < -1.0
    with pytest.raises(ValueError, match="a slope needs 2"):
        window_rate(table, 3.0, [16, 64])
