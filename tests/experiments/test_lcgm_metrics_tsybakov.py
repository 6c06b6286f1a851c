import numpy as np
import pandas as pd
import pytest
import torch
from scipy.stats import multivariate_normal

from crlrepro.learning.losses import info_nce_in_batch
from crlrepro.learning.metrics import elbow_by_relative_gain, in_batch_contrastive_loss, linear_probe_r2
from crlrepro.theory.lcgm import LatentClassModel
from crlrepro.theory.tsybakov import calibration_exponent, fit_noise_exponent

LCGM = dict(classes=5, dim_x=4, dim_y=3, noise_x=0.4, noise_y=1.5, separation=2.5, mean_seed=1)


def test_lcgm_pmi_matches_densities_literally():
    model = LatentClassModel.from_config(LCGM)
    x, y, _ = model.sample(6, np.random.default_rng(0))

    def density(t, means, noise):
        return np.array([[multivariate_normal.pdf(ti, mk, noise**2) for mk in means] for ti in t])

    px, py = density(x, model.means_x, model.noise_x), density(y, model.means_y, model.noise_y)
    w = model.weights
    joint = np.einsum("ak,bk,k->ab", px, py, w)
    literal = np.log(joint / np.outer(px @ w, py @ w))
    np.testing.assert_allclose(model.pmi(x, y, chunk=4), literal, rtol=1e-10)
    np.testing.assert_allclose(np.exp(model.log_posterior_x(x)).sum(1), 1.0)


def test_default_lcgm_anchors_are_nearly_deterministic_and_targets_noisy():
    model = LatentClassModel.from_config(
        dict(classes=8, dim_x=16, dim_y=16, noise_x=0.5, noise_y=2.0, separation=3.0, mean_seed=0)
    )
    x, y, z = model.sample(5000, np.random.default_rng(0))
    post_x, post_y = np.exp(model.log_posterior_x(x)), np.exp(model.log_posterior_y(y))
    assert post_x[np.arange(5000), z].mean() > 0.99
    assert post_y.max(1).mean() < 0.8


@pytest.mark.parametrize("k", [3, 5, 8, 12])
def test_elbow_rule_finds_the_knee_of_a_saturating_curve(k):
    dims = np.arange(1, 2 * k + 1)
    rng = np.random.default_rng(k)
    risk = np.where(dims < k, 1.0 - dims / k, 0.0) + 0.01 + 0.002 * rng.random(dims.size)
    assert elbow_by_relative_gain(dims, risk, 0.05) == k
    assert elbow_by_relative_gain(dims[::-1], risk[::-1], 0.05) == k  # order of the sweep does not matter


def test_elbow_rule_rejects_mismatched_input():
    with pytest.raises(ValueError):
        elbow_by_relative_gain([1, 2, 3], [0.1, 0.2], 0.05)


def test_linear_probe_r2():
    rng = np.random.default_rng(0)
    feats = rng.standard_normal((400, 3))
    targets = feats @ rng.standard_normal((3, 2)) + 1.0
    assert linear_probe_r2(feats[:200], targets[:200], feats[200:], targets[200:]) == pytest.approx(1.0)
    noise = rng.standard_normal((400, 2))
    assert linear_probe_r2(feats[:200], noise[:200], feats[200:], noise[200:]) < 0.05


def test_numpy_in_batch_loss_equals_the_torch_loss():
    rng = np.random.default_rng(1)
    fx, gy = rng.standard_normal((9, 4)), rng.standard_normal((9, 4))
    expected = info_nce_in_batch(torch.from_numpy(fx), torch.from_numpy(gy), 0.3).item()
    assert in_batch_contrastive_loss(fx @ gy.T, 0.3) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("mu", [0.5, 1.0, 2.0])
def test_noise_exponent_is_recovered_for_a_known_power_law(mu):
    # Gaps G = U^{1/μ} have P(G ≤ t) = t^μ exactly on [0, 1].
    rng = np.random.default_rng(0)
    gaps = rng.random(400_000) ** (1.0 / mu)
    fit = fit_noise_exponent(gaps, (3e-2, 0.5), 20, 300, rng)
    assert fit["ci_low"] <= mu <= fit["ci_high"]
    assert fit["mu_hat"] == pytest.approx(mu, abs=0.03)
    assert fit["rate"] == pytest.approx((mu + 1) / (mu + 2), abs=0.01)
    assert fit["log_c"] == pytest.approx(0.0, abs=0.1)


def test_noise_exponent_needs_enough_gaps_below_the_window():
    with pytest.raises(ValueError, match="raise tsybakov.samples"):
        fit_noise_exponent(np.ones(1000), (1e-3, 1e-1), 10, 10, np.random.default_rng(0))


def test_calibration_exponent():
    assert calibration_exponent(0.0) == 0.5
    assert calibration_exponent(1.0) == pytest.approx(2 / 3)


def test_loglog_slope_single_and_stacked():
    from crlrepro.theory.numerics import loglog_slope

    x = np.geomspace(1e-3, 10.0, 9)
    assert loglog_slope(x, 3.0 * x**-0.7) == pytest.approx(-0.7, rel=1e-12)
    stacked = np.stack([2.0 * x**0.5, x**1.5])
    np.testing.assert_allclose(loglog_slope(x, stacked), [0.5, 1.5], rtol=1e-12)
    np.testing.assert_allclose(loglog_slope(np.stack([x, 2 * x]), stacked), [0.5, 1.5], rtol=1e-12)


def test_plateau_approach_rate_is_the_exponent_of_the_gap():
    from crlrepro.learning.metrics import plateau_approach_rate

    m = np.array([1, 4, 16, 64])
    assert plateau_approach_rate(m, 0.9 - 0.3 * m**-0.5, 0.9) == pytest.approx(0.5, rel=1e-12)
    assert plateau_approach_rate(m, 0.9 - 0.3 * m**-1.0, 0.9) == pytest.approx(1.0, rel=1e-12)
    assert plateau_approach_rate(m, 0.9 - 0.3 * m**0.2, 0.9) == pytest.approx(-0.2, rel=1e-12)  # moving away: r < 0
    assert np.isnan(plateau_approach_rate(m, [0.5, 0.6, 0.9, 0.8], 0.9))  # a value at the plateau: no gap to fit
    assert np.isnan(plateau_approach_rate(m, [0.5, 0.6, 0.95, 0.8], 0.9))  # above it
    assert np.isnan(plateau_approach_rate([4, 4], [0.5, 0.6], 0.9))


def test_sensitivity_elbows_take_each_swept_point_alone():
    from crlrepro.experiments.evaluation import sensitivity_elbows

    rows = []
    for noise, knee in ((1.0, 8), (4.0, 6)):  # alignment saturates at D = knee
        for d in (4, 6, 7, 8, 9, 12):
            value = 0.5 + 0.45 * min(d, knee) / knee
            rows.append({"noise_y": noise, "separation": 3.0, "D": d, "seed": 0, "r2_f": value, "r2_g": value})
    rows.append({"noise_y": 2.0, "separation": 2.0, "D": 8, "seed": 0, "r2_f": 0.9, "r2_g": 0.9})  # D = K only
    table = sensitivity_elbows(pd.DataFrame(rows), classes=8, tolerance=0.05)
    assert table[["noise_y", "elbow", "elbow_minus_K"]].values.tolist() == [[1.0, 8, 0], [4.0, 6, -2]]
    assert table["dims"].tolist() == ["4 6 7 8 9 12"] * 2
    assert table["alignment_at_K"].tolist() == pytest.approx([0.95, 0.95])


def test_the_sensitivity_grids_centre_reuses_a3s_models_and_trains_only_what_a3_does_not():
    from crlrepro.studies.lcgm import lcgm_sensitivity_dims, lcgm_sensitivity_reused

    lcgm = {
        "classes": 8,
        "noise_y": 2.0,
        "separation": 3.0,
        "dims": [2, 4, 8, 16],
        "sensitivity": {"noise_y": [1.0, 2.0, 4.0], "separation": [3.0, 5.0], "elbow_dims": [4, 6]},
    }
    assert lcgm_sensitivity_dims(lcgm, 1, 0) == [4, 6, 8]  # the centre: K and the elbow sweep
    assert lcgm_sensitivity_dims(lcgm, 0, 0) == [4, 6, 8] and lcgm_sensitivity_dims(lcgm, 1, 1) == [4, 6, 8]  # the cross
    assert lcgm_sensitivity_dims(lcgm, 0, 1) == [8]  # off the cross: D = K only
    assert lcgm_sensitivity_reused(lcgm, 1, 0) == [4, 8]  # A3 trained 4 and 8, not 6: the centre's job trains 6
    assert all(lcgm_sensitivity_reused(lcgm, i, j) == [] for i in range(3) for j in range(2) if (i, j) != (1, 0))
    off = {**lcgm, "noise_y": 3.0}  # no grid point is A3's setting: nothing reused
    assert all(lcgm_sensitivity_reused(off, i, j) == [] for i in range(3) for j in range(2))
