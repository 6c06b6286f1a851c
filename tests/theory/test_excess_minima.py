"""The best rank-D excess risk min_s L(s) − L* (crlrepro.theory.rank_d_excess.rank_d_excess_fit): its gradient, that no
nearby or competing rank-D score beats it, and the table's shape series, on paper 2's mixture and on a skewed one."""

import numpy as np
import pytest

from crlrepro.theory.gmm import LatentClassGMM
from crlrepro.theory.oracles import excess_contrastive_risk
from crlrepro.theory.rank_d_excess import _excess_objective, excess_minima_table, rank_d_excess_fit
from crlrepro.theory.spectral import operator_svd, truncated_score

# one worker computes this module's shared fixtures (pytest-xdist, --dist loadgroup)
pytestmark = pytest.mark.xdist_group("test_excess_minima")

NODES = 120


@pytest.fixture(scope="module", params=["paper", "skewed"])
def case(request):
    if request.param == "paper":
        gmm, tau = LatentClassGMM([0.5, 0.5], [1.2, -1.2], [1.0, 1.0], [1.2, -1.2], [1.0, 1.0]), 0.5
    else:
        gmm, tau = LatentClassGMM([0.2, 0.5, 0.3], [2.0, -1.0, 0.3], [0.5, 1.5, 1.0], [-1.0, 0.4, 3.0], [2.0, 0.7, 1.2]), 0.8
    return gmm, gmm.grid(NODES), tau


def test_the_gradient_is_the_objectives_own(case):
    gmm, grid, tau = case
    rng = np.random.default_rng(1)
    dim = 2
    theta = 0.1 * rng.standard_normal((len(grid.x) + len(grid.y)) * dim)
    scale_x = rng.uniform(0.5, 2.0, (len(grid.x), 1))
    scale_y = rng.uniform(0.5, 2.0, (len(grid.y), 1))
    value, gradient = _excess_objective(theta, grid, tau, dim, scale_x, scale_y)
    f = theta[: len(grid.x) * dim].reshape(-1, dim) * scale_x
    g = theta[len(grid.x) * dim :].reshape(-1, dim) * scale_y
    assert value == pytest.approx(excess_contrastive_risk(lambda x, y: f @ g.T, grid, tau), rel=1e-9, abs=1e-13)
    direction = rng.standard_normal(theta.size)
    step = 1e-6
    numeric = (
        _excess_objective(theta + step * direction, grid, tau, dim, scale_x, scale_y)[0]
        - _excess_objective(theta - step * direction, grid, tau, dim, scale_x, scale_y)[0]
    ) / (2 * step)
    assert numeric == pytest.approx(gradient @ direction, rel=1e-5)


@pytest.mark.parametrize("dim", [1, 2, 3])
def test_no_nearby_or_competing_rank_d_score_beats_the_minimum(case, dim):
    gmm, grid, tau = case
    fit = rank_d_excess_fit(grid, tau, dim, starts=3, seed=dim)
    assert fit.definition == "excess" and fit.start_values.size == 3
    system = operator_svd(gmm.pmi, grid.x, grid.y)
    truncation = excess_contrastive_risk(truncated_score(system, dim, tau), grid, tau)
    assert fit.value <= truncation * (1 + 1e-9)  # the truncation is a rank-D score, and the first start
    assert fit.value == pytest.approx(excess_contrastive_risk(fit.score, grid, tau), rel=1e-12)
    rng = np.random.default_rng(dim)
    for _ in range(10):  # ± smooth perturbations of the minimiser stay rank D and do not go lower
        f = fit.f + 1e-3 * np.abs(fit.f).max() * rng.standard_normal(fit.f.shape)
        g = fit.g + 1e-3 * np.abs(fit.g).max() * rng.standard_normal(fit.g.shape)
        assert excess_contrastive_risk(lambda x, y, f=f, g=g: f @ g.T, grid, tau) >= fit.value * (1 - 1e-9)
    if dim > 1:  # one rank more can only help: the rank-(D−1) minimum is a rank-D score
        assert fit.value <= rank_d_excess_fit(grid, tau, dim - 1, starts=1).value * (1 + 1e-9)


def test_the_paper_mixtures_rank_one_minimum_is_a_quarter_of_the_truncations():
    """On paper 2's mixture the truncation is far from the loss's optimum at D = 1 (it minimises the L2 distance): the
    minimum is 0.26 of L(s_1) − L*, and every start finds the same value (quadrature converged at 120 nodes)."""
    gmm = LatentClassGMM([0.5, 0.5], [1.2, -1.2], [1.0, 1.0], [1.2, -1.2], [1.0, 1.0])
    table = excess_minima_table(gmm, 0.5, [1], NODES, shape_dims=4, starts=3).set_index("D")
    assert table.loc[1, "minimum"] / table.loc[1, "truncation_excess"] == pytest.approx(0.261, abs=0.001)
    assert table.loc[1, "best_share"] == 1.0 and table.loc[1, "quadrature_error"] < 1e-10
    assert list(table.index) == [1, 2, 3, 4] and table.loc[2:, "minimum"].isna().all()
    assert table["truncation_ratio"].between(0.05, 0.25).all() and table["resolved"].all()
    assert table["zero_excess"].nunique() == 1 and table["zero_excess"].iloc[0] > table["truncation_excess"].max()


def test_the_table_refuses_a_d_beyond_its_eigenvalues():
    gmm = LatentClassGMM([0.5, 0.5], [1.2, -1.2], [1.0, 1.0], [1.2, -1.2], [1.0, 1.0])
    with pytest.raises(ValueError, match="raise nodes"):
        excess_minima_table(gmm, 0.5, [1], 16, shape_dims=20)
