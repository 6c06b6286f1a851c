"""The PMI operator's spectrum from held-out samples (paper 2, Prop. 5.6): rank K with deterministic anchors, and the
floor rule that decides "rank K" for the nearly deterministic LCGM of the config."""

import dataclasses
from pathlib import Path

import numpy as np
import pytest
import yaml
from scipy.special import logsumexp
from threadpoolctl import threadpool_limits

from crlrepro.theory.gmm import LatentClassGMM
from crlrepro.theory.lcgm import (
    LatentClassModel,
    _held_out_marginals,
    deterministic_anchor_pmi,
    rank_k_evidence,
    sampled_kernel_spectrum,
    sampled_pmi_spectrum,
)
from crlrepro.theory.spectral import pmi_spectrum

# one worker computes this module's shared fixtures (pytest-xdist, --dist loadgroup)
pytestmark = pytest.mark.xdist_group("test_lcgm_spectrum")

CONFIG = yaml.safe_load((Path(__file__).resolve().parents[2] / "config.yaml").read_text())["lcgm"]
# A second model nothing was tuned on: fewer classes, lower dimension, another mean seed.
SMALL = dict(classes=5, dim_x=6, dim_y=6, noise_x=0.5, noise_y=2.0, separation=3.0, mean_seed=1)


@pytest.fixture(autouse=True)
def _one_blas_thread():
    # The machine is shared: one BLAS thread keeps these dense products fast and their timing stable.
    with threadpool_limits(limits=1):
        yield


@pytest.fixture(scope="module")
def config_model():
    return LatentClassModel.from_config(CONFIG)


def _pmi_kernel(model):
    return model.pmi


def test_factorised_pmi_equals_the_literal_log_sum_exp_even_where_the_sum_underflows(config_model):
    x, y = _held_out_marginals(config_model, 300, np.random.default_rng(0))
    x[:5] *= 40.0  # far-out points: for pairs of different classes Σ_k p(k|x) p(k|y)/π_k underflows (PMI < −745),
    y[:5] *= 1000.0  # so the matrix-product form gives −inf and the log-sum-exp fallback must take over
    a = config_model.log_posterior_x(x)
    b = config_model.log_posterior_y(y) - np.log(config_model.weights)[None, :]
    fast, slow = config_model.pmi(x, y, chunk=64), logsumexp(a[:, None, :] + b[None, :, :], axis=2)
    assert np.all(np.isfinite(fast))
    assert np.min(slow[:5, :5]) < -745.0  # the fallback was exercised
    np.testing.assert_allclose(fast, slow, rtol=1e-11, atol=1e-11)


def test_deterministic_anchor_pmi_is_the_noiseless_limit_of_the_model(config_model):
    sharp = dataclasses.replace(config_model, noise_x=config_model.noise_x / 4)  # max p(z|x) = 1 to double precision
    x, y = _held_out_marginals(sharp, 400, np.random.default_rng(1))
    np.testing.assert_allclose(deterministic_anchor_pmi(sharp, x, y), sharp.pmi(x, y), rtol=0, atol=1e-12)
    # ...while at the config's noise the two kernels differ where the anchors are uncertain.
    x, y = _held_out_marginals(config_model, 400, np.random.default_rng(1))
    assert np.max(np.abs(deterministic_anchor_pmi(config_model, x, y) - config_model.pmi(x, y))) > 1e-2


@pytest.mark.parametrize("lcgm", [CONFIG, SMALL], ids=["config-K8-d16", "K5-d6"])
def test_deterministic_anchor_kernel_has_exactly_rank_k(lcgm):
    model = LatentClassModel.from_config(lcgm)
    k = model.num_classes
    x, y = _held_out_marginals(model, 2000, np.random.default_rng(2))
    lam = sampled_kernel_spectrum(lambda a, b: deterministic_anchor_pmi(model, a, b), x, y, rank=2 * k).eigenvalues
    assert np.count_nonzero(lam > 1e-20 * lam[0]) == k
    assert lam[k - 1] > 1e-3 * lam[0]  # the K structural eigenvalues are far from rounding
    # The full spectrum (dense SVD, all n eigenvalues) on a smaller draw says the same.
    x, y = _held_out_marginals(model, 300, np.random.default_rng(3))
    lam = sampled_kernel_spectrum(lambda a, b: deterministic_anchor_pmi(model, a, b), x, y).eigenvalues
    assert lam.size == 300 and np.count_nonzero(lam > 1e-20 * lam[0]) == k


@pytest.mark.filterwarnings("error::RuntimeWarning")  # no "did not converge"
@pytest.mark.parametrize("factor", [1.0, 2.0])  # at 2× noise_x the spectrum decays slowly: several iterations needed
def test_subspace_iteration_equals_the_dense_svd(config_model, factor):
    model = dataclasses.replace(config_model, noise_x=factor * config_model.noise_x)
    x, y = _held_out_marginals(model, 400, np.random.default_rng(4))
    top = sampled_kernel_spectrum(_pmi_kernel(model), x, y, rank=16)
    full = sampled_kernel_spectrum(_pmi_kernel(model), x, y)
    np.testing.assert_allclose(top.eigenvalues, full.eigenvalues[:16], rtol=1e-9)
    np.testing.assert_allclose(top.standard_errors[:8], full.standard_errors[:8], rtol=1e-6)
    assert full.total == pytest.approx(full.eigenvalues.sum(), rel=1e-12)  # ‖M‖_F² = Σ_i σ_i²
    assert top.total == pytest.approx(full.total, rel=1e-14)
    assert top.tail_share(8) == pytest.approx(full.eigenvalues[8:].sum() / full.total, rel=1e-6)


def test_detected_rank_is_k_at_the_config_noise_and_more_with_noisy_anchors(config_model):
    k = config_model.num_classes
    ev = rank_k_evidence(config_model, 2000, 0, repeats=3, noise_factors=(0.25, 2.0, 4.0), size_factors=())
    floor = ev["floor"]
    assert floor["detected_rank"] == k and floor["rank_is_k"]
    assert ev["ratio"] < 0.1 and ev["tail_share"] < 2e-3
    assert ev["deterministic"]["rank_at_1e_20"] == k and ev["deterministic"]["max_relative_tail"] < 1e-25
    sweep = ev["noise_sweep"].set_index("factor")
    # Noisy anchors: the operator is no longer rank K, and the same rule says so.
    assert sweep.loc[2.0, "detected_rank"] > k and sweep.loc[4.0, "detected_rank"] > k
    # Sharper anchors: λ_{K+1} goes to rounding while λ_1..λ_K stay.
    assert sweep.loc[0.25, "lambda_k1"] < 1e-20 * sweep.loc[0.25, "lambda_1"]
    at_k = ev["spectrum"]["mean"].to_numpy()
    assert sweep.loc[0.25, "lambda_k"] == pytest.approx(at_k[k - 1], rel=0.05)
    assert sweep.loc[0.25, "lambda_1"] == pytest.approx(at_k[0], rel=0.05)


def test_detected_rank_on_a_model_nothing_was_tuned_on():
    model = LatentClassModel.from_config(SMALL)
    ev = rank_k_evidence(model, 2000, 5, repeats=3, noise_factors=(4.0,), size_factors=())
    assert ev["floor"]["detected_rank"] == 5
    assert ev["noise_sweep"]["detected_rank"].iloc[0] > 5


def test_lambda_k_plus_1_is_a_population_value_not_sampling_noise(config_model):
    k = config_model.num_classes
    ev = rank_k_evidence(config_model, 2000, 6, repeats=3, noise_factors=(), size_factors=(0.25, 1.0))
    small, large = ev["size_sweep"]["lambda_k1"]
    # From n = 500 to 2000 sampling noise would fall at least 2× (slope ≤ −½); the eigenvalue stays within 30 %.
    assert large == pytest.approx(small, rel=0.3)
    assert ev["spectrum"]["mean"].iloc[k] > 5 * ev["spectrum"]["se"].iloc[k]  # and it is resolved, far from zero


def test_two_independent_samples_agree_within_their_standard_errors(config_model):
    k = config_model.num_classes
    spectra = []
    for seed in (10, 11):
        x, y = _held_out_marginals(config_model, 2000, np.random.default_rng(seed))
        spectra.append(sampled_kernel_spectrum(_pmi_kernel(config_model), x, y, rank=2 * k))
    a, b = spectra
    se = np.hypot(a.standard_errors, b.standard_errors)[:k]
    assert np.all(np.abs(a.eigenvalues[:k] - b.eigenvalues[:k]) <= 4 * se)
    assert np.all(se < 0.1 * a.eigenvalues[:k])  # and they are informative: O(1/√n) relative errors


def test_first_order_standard_error_matches_the_spread_of_independent_draws(paper_gmm):
    lam, se = [], []
    for seed in range(60):
        rng = np.random.default_rng([20, seed])
        x, y = paper_gmm.sample(400, rng)[0], paper_gmm.sample(300, rng)[1]
        s = sampled_kernel_spectrum(paper_gmm.pmi, x, y, rank=2)
        lam.append(s.eigenvalues)
        se.append(s.standard_errors)
    ratio = np.std(lam, axis=0, ddof=1) / np.mean(se, axis=0)
    assert np.all((ratio > 0.75) & (ratio < 1.3)), ratio


@pytest.mark.parametrize("gmm", ["paper_gmm", "skewed_gmm"])
def test_monte_carlo_spectrum_agrees_with_the_quadrature_spectrum(gmm, request):
    g: LatentClassGMM = request.getfixturevalue(gmm)
    exact = pmi_spectrum(g, 400).eigenvalues[:3]
    draws = []
    for seed in range(4):
        rng = np.random.default_rng([30, seed])
        x, y = g.sample(1500, rng)[0], g.sample(1000, rng)[1]  # unequal sizes: M = k/√(n_x n_y)
        draws.append(sampled_kernel_spectrum(g.pmi, x, y, rank=3))
    mean = np.mean([d.eigenvalues for d in draws], axis=0)
    se = np.mean([d.standard_errors for d in draws], axis=0) / np.sqrt(len(draws))
    assert np.all(np.abs(mean - exact) <= 4 * se), (mean, exact, se)
    assert np.all(se < 0.1 * exact)  # an informative comparison: O(1/√n) relative errors


def test_deterministic_for_a_fixed_seed(config_model):
    first = sampled_pmi_spectrum(config_model, 500, np.random.default_rng(7), rank=16)
    again = sampled_pmi_spectrum(config_model, 500, np.random.default_rng(7), rank=16)
    other = sampled_pmi_spectrum(config_model, 500, np.random.default_rng(8), rank=16)
    np.testing.assert_array_equal(first, again)
    assert not np.allclose(first, other)
    assert np.all(np.diff(first) <= 0) and first.size == 16
    kw = dict(repeats=2, noise_factors=(2.0,), size_factors=(0.5,), sweep_repeats=1)
    a, b, c = (rank_k_evidence(config_model, 400, seed, **kw) for seed in (3, 3, 4))
    for key in ("spectrum", "noise_sweep", "size_sweep"):
        assert a[key].equals(b[key])
    assert a["floor"] == b["floor"] and a["tail_share"] == b["tail_share"]
    assert not np.allclose(a["spectrum"]["mean"], c["spectrum"]["mean"])
