"""The spectral solver against closed forms, invariances, and its convergence on unseen mixtures."""

from math import factorial

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from crlrepro.claims.reference import paper_values
from crlrepro.theory.gmm import LatentClassGMM
from crlrepro.theory.oracles import excess_contrastive_risk
from crlrepro.theory.quadrature import QuadratureRule, trapezoid_mixture
from crlrepro.theory.spectral import convergence_table, operator_svd, pmi_spectrum, truncated_score, truncation_table

STANDARD_NORMAL = trapezoid_mixture([1.0], [0.0], [1.0], 400)


def hermite(n, x):
    """Orthonormal Hermite polynomials in L2(N(0,1)): He_n(x)/√(n!)."""
    coef = np.zeros(n + 1)
    coef[n] = 1.0
    return np.polynomial.hermite_e.hermeval(x, coef) / np.sqrt(factorial(n))


def test_separable_kernel_of_known_rank():
    # k(x, y) = Σ_i s_i h_{n_i}(x) h_{m_i}(y): singular values s_i, rank 3, tail sums exact.
    s = np.array([2.0, 0.7, 0.05])
    left, right = (1, 0, 3), (2, 4, 1)

    def kernel(x, y):
        return sum(si * np.outer(hermite(a, x), hermite(b, y)) for si, a, b in zip(s, left, right, strict=True))

    system = operator_svd(kernel, STANDARD_NORMAL, STANDARD_NORMAL)
    np.testing.assert_allclose(system.singular_values[:3], s, rtol=1e-12)
    assert system.numerical_rank == 3
    assert system.tail_sum(1) == pytest.approx(0.7**2 + 0.05**2, rel=1e-12)
    assert system.tail_sum(3) == pytest.approx(0.0, abs=1e-24)
    # Singular functions are the Hermite polynomials (up to sign), evaluated off the grid.
    x = np.linspace(-3, 3, 13)
    for i, (a, b) in enumerate(zip(left, right, strict=True)):
        psi, phi = system.left_functions(x, 3)[:, i], system.right_functions(x, 3)[:, i]
        sign = np.sign(psi @ hermite(a, x))
        np.testing.assert_allclose(sign * psi, hermite(a, x), atol=1e-10)
        np.testing.assert_allclose(sign * phi, hermite(b, x), atol=1e-10)
    # Truncation beyond the rank is the kernel itself.
    np.testing.assert_allclose(system.truncation(5)(x, x), kernel(x, x), atol=1e-10)


@pytest.mark.parametrize("rho", [0.3, 0.6, 0.85])
def test_mehler_kernel_has_geometric_spectrum(rho):
    # The bivariate-normal density ratio Σ_n ρ^n h_n(x) h_n(y) (Mehler's formula): √λ_n = ρ^n,
    # an infinite-rank kernel with tail sum Σ_{i>D} λ_i = ρ^{2D} / (1 − ρ²).
    def kernel(x, y):
        x, y = x[:, None], y[None, :]
        q = (rho**2 * (x**2 + y**2) - 2 * rho * x * y) / (2 * (1 - rho**2))
        return np.exp(-q) / np.sqrt(1 - rho**2)

    # This kernel grows like exp(ρx²/(1+ρ)), far faster than any PMI, so its rule needs a wider
    # support than the ±10σ of the mixture rule.
    t = np.linspace(-30, 30, 1200)
    wide = QuadratureRule(t, np.exp(-(t**2) / 2) / np.exp(-(t**2) / 2).sum())
    system = operator_svd(kernel, wide, wide)
    np.testing.assert_allclose(system.singular_values[:8], rho ** np.arange(8), rtol=1e-9)
    for d in (1, 2, 4, 8):
        assert system.tail_sum(d) == pytest.approx(rho ** (2 * d) / (1 - rho**2), rel=1e-8)


def test_paper_table_1_columns_1_and_2(paper_gmm):
    reference = paper_values("A1")
    table = truncation_table(paper_gmm, 0.5, [1, 2, 4, 8], nodes=400).set_index("D")
    for quantity in ("tail_sum", "trunc_excess_risk"):
        for d, paper in reference[quantity].items():
            assert table.loc[d, quantity] == pytest.approx(paper, rel=1e-3), (quantity, d)


def spectrum_and_table(gmm, tau=0.5, nodes=300):
    return pmi_spectrum(gmm, nodes).eigenvalues[:12], truncation_table(gmm, tau, [1, 2, 3, 5], nodes)


def test_swapping_views_keeps_spectrum_and_risk_of_symmetric_truncation(skewed_gmm):
    eig, _ = spectrum_and_table(skewed_gmm)
    eig_swapped, _ = spectrum_and_table(skewed_gmm.swapped())
    np.testing.assert_allclose(eig_swapped, eig, rtol=1e-9, atol=1e-15)


def test_relabelling_components_changes_nothing(skewed_gmm):
    eig, table = spectrum_and_table(skewed_gmm)
    eig_p, table_p = spectrum_and_table(skewed_gmm.permuted([2, 0, 1]))
    np.testing.assert_allclose(eig_p, eig, rtol=1e-12, atol=1e-16)
    np.testing.assert_allclose(table_p.to_numpy(), table.to_numpy(), rtol=1e-10, atol=1e-16)


def test_parseval_and_truncation_error_on_an_independent_grid(skewed_gmm):
    system = pmi_spectrum(skewed_gmm, 300)
    fine = skewed_gmm.grid(701)  # other nodes: checks the Nyström functions, not a discrete identity
    weights = fine.x.weights[:, None] * fine.y.weights[None, :]
    assert np.sum(system.eigenvalues) == pytest.approx(np.sum(weights * fine.log_ratio**2), rel=1e-10)
    for d in (1, 2, 4):
        residual = fine.log_ratio - system.truncation(d)(fine.x.nodes, fine.y.nodes)
        assert np.sum(weights * residual**2) == pytest.approx(system.tail_sum(d), rel=1e-7)
    psi = system.left_functions(fine.x.nodes, 4)
    np.testing.assert_allclose(psi.T @ (fine.x.weights[:, None] * psi), np.eye(4), atol=1e-9)


def test_truncated_score_is_tau_times_truncated_pmi(paper_gmm):
    system = pmi_spectrum(paper_gmm, 200)
    x = np.linspace(-2, 2, 5)
    np.testing.assert_allclose(truncated_score(system, 2, 0.3)(x, x), 0.3 * system.truncation(2)(x, x))


def test_excess_risk_decreases_to_zero_with_full_rank(paper_gmm):
    grid = paper_gmm.grid(200)
    system = pmi_spectrum(paper_gmm, 200)
    risks = [excess_contrastive_risk(truncated_score(system, d, 0.5), grid, 0.5) for d in (1, 2, 4, 8, 30)]
    assert all(r >= 0 for r in risks)
    assert risks[-1] < 1e-13


def test_dimension_must_be_a_positive_integer(paper_gmm):
    system = pmi_spectrum(paper_gmm, 100)
    for bad in (0, -1, 2.0, True):
        with pytest.raises(ValueError, match="integer >= 1"):
            system.tail_sum(bad)


def test_convergence_table_reaches_four_digits_on_a_skewed_mixture(skewed_gmm):
    table = convergence_table(skewed_gmm, 0.3, [1, 2, 4, 8], [100, 200, 400, 800])
    at_default = table[table["nodes"] == 400]
    assert (at_default["tail_sum_digits"] >= 4).all()
    assert (at_default["trunc_excess_risk_digits"] >= 4).all()
    # The study is honest: the coarsest rule is visibly not converged.
    assert (table[table["nodes"] == 100]["tail_sum_digits"] < 8).any()


mixtures = st.integers(2, 4).flatmap(
    lambda k: st.tuples(
        st.lists(st.floats(0.1, 1.0), min_size=k, max_size=k),
        st.lists(st.floats(-3, 3), min_size=k, max_size=k),
        st.lists(st.floats(0.5, 2.0), min_size=k, max_size=k),
        st.lists(st.floats(-3, 3), min_size=k, max_size=k),
        st.lists(st.floats(0.5, 2.0), min_size=k, max_size=k),
    )
)


@settings(max_examples=10, deadline=None)
@given(mixtures, st.floats(0.1, 2.0))
@example(([1.0, 1.0], [0.0, 0.0], [1.0, 1.0], [0.0, 0.0], [1.0, 1.0]), 1.0)  # independent views
# unequal variances: far out e^{s_8/τ} outgrows the density, so ±10σ gives L(s_8) − L* = 1.80e-6 (1.74e-6 at 800
# nodes: nodes alone look converged to 4 %), while the integral is 7.466e-6 (±14σ and ±18σ agree)
@example(
    (
        [0.7435, 1.0, 0.8292, 0.7477],
        [1.4025, -1.4426, 0.0, 2.0],
        [1.0, 0.5, 1.0, 1.0],
        [0.0, 0.0, 0.0, 0.0],
        [0.5, 1.25, 1.0, 1.0],
    ),
    1.0,
)
def test_four_digits_on_unseen_mixtures(params, tau):
    """The convergence study's reference (most nodes, widest support) has 4 digits against a finer rule on a
    wider support, and the default rule is within the study's reported error of it: where the default has not
    converged (the pinned mixture's D = 8), the study says so instead of hiding it."""
    raw_w, mx, sx, my, sy = params
    w = np.array(raw_w) / np.sum(raw_w)
    gmm = LatentClassGMM(w, mx, sx, my, sy)
    study = convergence_table(gmm, tau, [1, 2, 4, 8], [400, 800], (10.0, 14.0))
    default = study[(study["nodes"] == 400) & (study["half_width"] == 10.0)]
    reference = study[(study["nodes"] == 800) & (study["half_width"] == 14.0)]
    finer = truncation_table(gmm, tau, [1, 2, 4, 8], 1200, 18.0)
    lam1 = pmi_spectrum(gmm, 400).eigenvalues[0]
    for col in ("tail_sum", "trunc_excess_risk"):
        a, b, c = default[col].to_numpy(), reference[col].to_numpy(), finer[col].to_numpy()
        # 4 significant digits, unless the value itself is at the rounding floor of the problem.
        # (λ_1 = 0 when the components coincide: PMI ≡ 0 and every value is rounding noise.)
        floor = 1e-13 * lam1 + 1e-24
        ok = (np.abs(b - c) <= 1e-4 * np.abs(c)) | (np.abs(b - c) <= floor)
        assert ok.all(), (col, b, c)
        assert (np.abs(a - c) <= np.abs(a - b) + 1e-4 * np.abs(c) + floor).all(), (col, a, b, c)
