"""Paper 1, C2–C4: samplers and objectives of SCRL/SSCRL, training on a sample, slopes, the budget
fit, the calibration table and exponent, and their claims."""

import copy
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
import torch

from crlrepro.experiments.calibration import calibration_table, calibration_trajectories, fit_calibration_exponent
from crlrepro.experiments.generalization import (
    REGIMES,
    budget_summary,
    draw_negative_sample,
    empirical_contrastive_loss,
    fit_budget_model,
    gallery_recall,
    nearest_split,
    recommended_split,
    sample_objective,
    scaling_slope,
    scaling_slopes,
    sweep_rows,
    train_on_sample,
    train_on_samples,
)
from crlrepro.learning.networks import TwoTower, load_two_tower, numpy_score, save_two_tower
from crlrepro.learning.train import TrainSettings, train
from crlrepro.studies.calibration.claims import c2_claims
from crlrepro.studies.scaling import (
    REGIME_MS,
    n_sweep_m,
    regime_sweep_points,
    sweep_owner,
    sweep_points,
    sweep_rows_by_regime,
    sweep_seeds,
    sweep_sources,
    sweep_trained_points,
)
from crlrepro.studies.scaling.claims import c3_claims, c4_claims
from crlrepro.studies.scaling.figure import held_at
from crlrepro.theory.bounds import calibration_bound
from crlrepro.theory.oracles import bayes_auc, excess_contrastive_risk, retrieval_auc


def loop_objective(score, x, y, negatives, regime, tau):
    """L̂_S transcribed anchor by anchor, negative by negative."""
    total = 0.0
    for i in range(len(x)):
        pool = negatives[i] if regime == "scrl" else negatives
        terms = [
            np.exp((score(x[i : i + 1], pool[j : j + 1])[0, 0] - score(x[i : i + 1], y[i : i + 1])[0, 0]) / tau)
            for j in range(len(pool))
        ]
        total += tau * np.log(np.mean(terms))
    return total / len(x)


@pytest.mark.parametrize("regime", ["scrl", "sscrl"])
def test_samplers_have_the_regimes_shapes(skewed_gmm, regime):
    sample = draw_negative_sample(skewed_gmm, regime, 7, 5, np.random.default_rng(0))
    assert sample.n == 7 and sample.m == 5
    assert sample.negatives.shape == ((7, 5, 1) if regime == "scrl" else (5, 1))
    # negatives are drawn from P_Y: their mean over many draws is the mixture mean of y
    big = draw_negative_sample(
        skewed_gmm, regime, 400 if regime == "scrl" else 1, 500 if regime == "scrl" else 200_000, np.random.default_rng(1)
    )
    assert big.negatives.mean() == pytest.approx(float(skewed_gmm.weights @ skewed_gmm.mean_y), abs=0.03)


def test_samplers_reject_bad_input(paper_gmm):
    with pytest.raises(ValueError, match="regime 'moco'"):
        draw_negative_sample(paper_gmm, "moco", 4, 4, np.random.default_rng(0))
    with pytest.raises(ValueError, match="m=0"):
        draw_negative_sample(paper_gmm, "scrl", 4, 0, np.random.default_rng(0))


@pytest.mark.parametrize("regime, tau", [("scrl", 0.5), ("sscrl", 0.5), ("scrl", 0.07), ("sscrl", 3.0)])
def test_empirical_objective_matches_a_loop(skewed_gmm, regime, tau):
    torch.manual_seed(0)
    model = TwoTower(1, 1, 3, hidden=8, layers=2, score_bound=1.5)
    sample = draw_negative_sample(skewed_gmm, regime, 6, 4, np.random.default_rng(2))
    expected = loop_objective(numpy_score(model), sample.x, sample.y, sample.negatives, regime, tau)
    assert empirical_contrastive_loss(model, sample, tau) == pytest.approx(expected, rel=1e-10, abs=1e-12)
    # in chunks of anchors (here 1 or 2 anchors at a time): the same number
    assert empirical_contrastive_loss(model, sample, tau, chunk_pairs=9) == pytest.approx(expected, rel=1e-10, abs=1e-12)
    as_t = lambda a: torch.as_tensor(a, dtype=torch.float64)  # noqa: E731
    got = sample_objective(model.double(), as_t(sample.x), as_t(sample.y), as_t(sample.negatives), regime, tau)
    assert float(got.detach()) == pytest.approx(expected, rel=1e-10, abs=1e-12)


def test_bounded_scores_stay_within_the_bound_and_survive_saving(tmp_path):
    torch.manual_seed(0)
    model = TwoTower(1, 1, 4, hidden=16, layers=3, score_bound=2.5)
    x = np.linspace(-50, 50, 101)
    s = numpy_score(model)(x, x)
    assert np.abs(s).max() <= 2.5 + 1e-12 and np.abs(s).max() > 1.0
    save_two_tower(model, tmp_path / "m.pt")
    loaded, _ = load_two_tower(tmp_path / "m.pt")
    np.testing.assert_array_equal(numpy_score(loaded)(x, x), s)
    with pytest.raises(ValueError, match="score_bound"):
        TwoTower(1, 1, 4, score_bound=-1.0)


def test_a_trained_fixed_score_is_the_models_score_from_one_float64_copy(monkeypatch):
    from crlrepro.experiments.generalization import two_tower_score
    from crlrepro.learning import networks

    torch.manual_seed(0)
    model = TwoTower(1, 1, 4, hidden=16, layers=3, score_bound=2.0)
    copies = []
    real_copy = networks._double_copy
    monkeypatch.setattr(networks, "_double_copy", lambda module: copies.append(1) or real_copy(module))
    score = two_tower_score("trained", model)
    x, y = np.linspace(-4, 4, 9), np.linspace(-3, 5, 7)
    pairwise, aligned = score.pairwise(x, y), score.aligned(x[:7], y)
    score.pairwise(y, x)
    assert len(copies) == 1  # made once, not at every evaluation (C3's draws evaluate each score ~580 times)
    monkeypatch.setattr(networks, "_double_copy", real_copy)
    # s(x, y) = f(x)ᵀg(y) in float64: the model's own score matrix, and its diagonal for aligned pairs
    np.testing.assert_allclose(pairwise, numpy_score(model)(x, y), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(aligned, np.diag(numpy_score(model)(x[:7], y)), rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(pairwise, networks.embed(model, "f", x) @ networks.embed(model, "g", y).T)
    # the original model is left as it was, and the score is a snapshot: later changes to the model are not seen
    assert model.training and next(model.parameters()).dtype == torch.float32
    with torch.no_grad():
        next(model.parameters()).add_(1.0)
    np.testing.assert_array_equal(score.pairwise(x, y), pairwise)
    assert not np.allclose(numpy_score(model)(x, y), pairwise)
    towers = networks.numpy_towers(model, batch_size=3)  # in batches of rows: the same features (to rounding)
    np.testing.assert_allclose(towers["g"](y), networks.embed(model, "g", y), rtol=1e-13, atol=1e-15)
    with pytest.raises(ValueError, match="tower"):
        networks.embed(model, "h", x)


@pytest.mark.parametrize("regime", ["scrl", "sscrl"])
def test_seeds_trained_as_one_ensemble_match_each_seed_trained_alone(skewed_gmm, regime):
    seeds = [5, 2]
    samples = [draw_negative_sample(skewed_gmm, regime, 256, 8, np.random.default_rng(seed)) for seed in seeds]
    settings = TrainSettings(epochs=1, batch_size=64, learning_rate=3e-3, weight_decay=0.0, seed=0)
    kwargs = dict(dim=2, hidden=16, layers=2, score_bound=2.0, steps=40)
    together = train_on_samples(samples, seeds, 0.5, settings, **kwargs)
    for seed, sample, (model, history) in zip(seeds, samples, together, strict=True):
        alone, alone_history = train_on_sample(sample, 0.5, replace(settings, seed=seed), **kwargs)
        assert [h["loss"] for h in history] == pytest.approx([h["loss"] for h in alone_history], rel=1e-4)
        assert empirical_contrastive_loss(model, sample, 0.5) == pytest.approx(
            empirical_contrastive_loss(alone, sample, 0.5), rel=1e-4
        )
    assert together[0][1] != together[1][1]  # two members, two trainings
    with pytest.raises(ValueError, match="share regime and shapes"):
        train_on_samples(
            [samples[0], draw_negative_sample(skewed_gmm, regime, 128, 8, np.random.default_rng(0))],
            seeds,
            0.5,
            settings,
            **kwargs,
        )


@pytest.mark.parametrize("regime", ["scrl", "sscrl"])
def test_training_on_a_sample_lowers_its_objective_deterministically(skewed_gmm, regime):
    sample = draw_negative_sample(skewed_gmm, regime, 256, 8, np.random.default_rng(3))
    settings = TrainSettings(epochs=1, batch_size=64, learning_rate=3e-3, weight_decay=0.0, seed=5)
    kwargs = dict(dim=2, hidden=16, layers=2, score_bound=2.0, steps=40)
    torch.manual_seed(5)
    start = empirical_contrastive_loss(TwoTower(1, 1, 2, hidden=16, layers=2, score_bound=2.0), sample, 0.5)
    model, history = train_on_sample(sample, 0.5, settings, **kwargs)
    again, _ = train_on_sample(sample, 0.5, settings, **kwargs)
    assert len(history) == 10  # 40 steps at 4 steps per epoch
    end = empirical_contrastive_loss(model, sample, 0.5)
    assert end < start - 0.01
    assert end == empirical_contrastive_loss(again, sample, 0.5)


def test_on_epoch_sees_the_initial_model_then_every_epoch():
    torch.manual_seed(0)
    model = torch.nn.Linear(2, 1)
    seen = []
    data = [torch.randn(32, 2), torch.randn(32, 1)]
    settings = TrainSettings(epochs=3, batch_size=8, learning_rate=1e-2, weight_decay=0.0, seed=0)
    train(
        model,
        lambda m, b, rng: ((m(b[0]) - b[1]) ** 2).mean(),
        data,
        settings,
        on_epoch=lambda e, m: seen.append((e, m.weight.detach().clone())),
    )
    assert [e for e, _ in seen] == [0, 1, 2, 3]
    assert not torch.equal(seen[0][1], seen[-1][1])


def test_gallery_recall_of_the_bayes_score_beats_chance(skewed_gmm):
    rng = np.random.default_rng(0)
    bayes = gallery_recall(skewed_gmm.pmi, skewed_gmm, 8, 400, rng)
    constant = gallery_recall(lambda x, y: np.zeros((len(x), len(y))), skewed_gmm, 8, 400, rng)
    assert constant == 0.0  # ties count against the query
    assert bayes > 1 / 8 + 0.05


def _power_law_runs(rng, slope, axis="m", seeds=4, noise=0.05):
    rows = []
    for value in (2, 4, 8, 16, 32, 64):
        for seed in range(seeds):
            gap = 0.3 * value**slope * np.exp(noise * rng.standard_normal())
            rows.append(
                {
                    "regime": "scrl",
                    "sweep": axis,
                    "n": 1000 if axis == "m" else value,
                    "m": value if axis == "m" else 16,
                    "seed": seed,
                    "gap": gap * rng.choice([-1, 1]) if axis == "n" else gap,
                    "excess_risk": gap / 2,
                }
            )
    return pd.DataFrame(rows)


@pytest.mark.parametrize("slope", [-1.0, -0.5, -0.37])
def test_scaling_slope_recovers_a_power_law(slope):
    rng = np.random.default_rng(0)
    runs = _power_law_runs(rng, slope)
    fit = scaling_slope(runs, "m", "gap", 500, rng)
    assert fit["slope"] == pytest.approx(slope, abs=0.03)
    assert fit["low"] < fit["slope"] < fit["high"] and fit["high"] - fit["low"] < 0.2
    # signs do not matter: |gap| is what the theorem bounds
    signed = scaling_slope(_power_law_runs(np.random.default_rng(0), slope, axis="n"), "n", "gap", 500, rng)
    assert signed["slope"] == pytest.approx(slope, abs=0.03)
    with pytest.raises(ValueError, match="at least two"):
        scaling_slope(runs[runs["m"] == 2], "m", "gap", 10, rng)


def test_scaling_slopes_table_and_claims():
    rng = np.random.default_rng(1)
    table = pd.concat([_power_law_runs(rng, -1.0), _power_law_runs(rng, -0.2, axis="n")], ignore_index=True)
    slopes = scaling_slopes(table.assign(auc=0.6), {"m": {"scrl": -1.0}, "n": {"scrl": -0.5}}, 300, seed=0)
    assert set(zip(slopes["axis"], slopes["quantity"], strict=True)) == {
        ("m", "gap"),
        ("m", "excess_risk"),
        ("n", "gap"),
        ("n", "excess_risk"),
    }
    table["auc"] = 0.6 + 0.001 * np.log(table["m"])
    table["recall_at_1"] = table["auc"] - 0.3
    no_mechanism = pd.DataFrame(columns=["regime", "axis", "score", "slope", "low", "high", "fit_from", "fit_to", "predicted"])
    verdicts = {
        c.claim_id: c.verdict
        for c in c3_claims(no_mechanism, slopes, table, {"slope_m": {"scrl": -1.0}, "slope_n": {"scrl": -0.5}})
    }
    # the gap decays as m^-1: its interval holds the bound's exponent, so one-sided it cannot tell
    assert verdicts["C3.gap_rate.scrl.m"] == "inconclusive"
    assert verdicts["C3.gap_rate.scrl.n"] == "contradicted"  # the data say −0.2: slower than n^-1/2
    # the same AUC rise in every seed: no spread for a t-test, and too few seeds for the sign test
    assert verdicts["C3.auc_grows_with_m.scrl"] == "inconclusive"


def test_budget_fit_is_exact_on_its_own_model_and_the_split_is_the_minimum():
    total = 4096
    ms = np.array([1, 2, 4, 8, 16, 32, 64, 128, 256, 512])
    a, b, c = 0.013, 0.21, 0.8
    excess = a + b / ms + c / np.sqrt(total / ms)
    grid = np.geomspace(1, total, 200_001)
    for regime, inner in (("scrl", lambda m: 1.0 / m), ("sscrl", lambda m: 1.0 / np.sqrt(m))):
        excess = a + b * inner(ms) + c / np.sqrt(total / ms)
        fit = fit_budget_model(ms, total / ms, excess, regime)
        assert (fit["a"], fit["b"], fit["c"]) == pytest.approx((a, b, c), rel=1e-7)
        assert fit["relative_rms"] < 1e-9
        # the other regime's shape does not fit these data exactly
        other = fit_budget_model(ms, total / ms, excess, "sscrl" if regime == "scrl" else "scrl")
        assert other["relative_rms"] > 1e-3
        # a fit never returns a negative term, and ignores nothing because it is small
        no_floor = fit_budget_model(ms, total / ms, b * inner(ms) + c / np.sqrt(total / ms) - 1e-4, regime)
        assert min(no_floor["a"], no_floor["b"], no_floor["c"]) >= 0.0
        brute = grid[np.argmin(b * inner(grid) + c / np.sqrt(total / grid))]
        assert recommended_split(b, c, total, regime) == pytest.approx(brute, rel=1e-3)
        assert recommended_split(-0.1, c, total, regime) == 1.0
        assert recommended_split(b, -0.1, total, regime) == total
        assert np.isnan(recommended_split(-1.0, -1.0, total, regime))
    # SSCRL's minimiser is b√N/c, not SCRL's (2b√N/c)^{2/3}
    assert recommended_split(b, c, total, "sscrl") == pytest.approx(b * np.sqrt(total) / c)
    assert recommended_split(b, c, total, "scrl") == pytest.approx((2 * b * np.sqrt(total) / c) ** (2 / 3))
    assert nearest_split([1, 4, 16, 64], 7.9) == 4 and nearest_split([1, 4, 16, 64], 8.1) == 16


def test_budget_summary_and_claims():
    rows = [
        {
            "regime": r,
            "n": 1024 // m,
            "m": m,
            "seed": s,
            "auc": 0.6 - (np.log2(m) - 3) ** 2 * 1e-3 * (r == "scrl"),
            "excess_risk": 0.01 + 0.2 / m + 0.5 / np.sqrt(1024 / m),
        }
        for r in ("scrl", "sscrl")
        for m in (1, 4, 8, 16, 64)
        for s in (0, 1)
    ]
    summary = budget_summary(pd.DataFrame(rows), 1024).set_index("regime")
    assert summary.loc["scrl", "best_m_auc"] == 8
    assert summary.loc["scrl", "b"] == pytest.approx(0.2) and summary.loc["scrl", "c"] == pytest.approx(0.5)
    assert summary.loc["sscrl", "shape"] == "a + b/√m + c/√n" and summary.loc["scrl", "nearest_m"] in (1, 4, 8, 16, 64)
    verdicts = {c.claim_id: c.verdict for c in c4_claims(pd.DataFrame(rows))}
    # two seeds with identical AUCs: the exact sign test (1/4) cannot decide
    assert verdicts == {
        "C4.extreme_not_best.scrl.m1": "inconclusive",
        "C4.extreme_not_best.scrl.m64": "inconclusive",
        "C4.extreme_not_best.sscrl.m1": "inconclusive",
        "C4.extreme_not_best.sscrl.m64": "inconclusive",
    }


def test_sweep_points_and_their_errors():
    consistency = {
        "scaling": {"m_sweep": {"n": 100, "ms": [8, 2]}, "n_sweep": {"m": 4, "ns": [10, 30]}},
        "budget": {"total": 64, "ms": [16, 1]},
    }
    assert sweep_points("m", consistency) == [(100, 2), (100, 8)]
    assert sweep_points("n", consistency) == [(10, 4), (30, 4)]
    assert sweep_points("budget", consistency) == [(64, 1), (4, 16)]
    consistency["budget"]["ms"] = [3]
    with pytest.raises(ValueError, match="consistency.budget.ms"):
        sweep_points("budget", consistency)
    with pytest.raises(ValueError, match="unknown sweep 'k'"):
        sweep_points("k", consistency)


SHARED = {
    "scaling": {"m_sweep": {"n": 100, "ms": [8, 2]}, "n_sweep": {"m": 8, "ns": [10, 100, 30]}},
    "budget": {"total": 80, "ms": [8, 1]},
}  # (100, 8): m and n sweeps; (10, 8): n sweep and budget


def test_a_point_two_sweeps_share_is_trained_once_by_the_first():
    assert sweep_owner((100, 8), SHARED) == "m" and sweep_owner((10, 8), SHARED) == "n"
    assert sweep_owner((80, 1), SHARED) == "budget"
    assert sweep_trained_points("m", SHARED) == [(100, 2), (100, 8)]
    assert sweep_trained_points("n", SHARED) == [(10, 8), (30, 8)]
    assert sweep_trained_points("budget", SHARED) == [(80, 1)]
    # every point trained exactly once
    trained = [p for sweep in ("m", "n", "budget") for p in sweep_trained_points(sweep, SHARED)]
    listed = {p for sweep in ("m", "n", "budget") for p in sweep_points(sweep, SHARED)}
    assert sorted(trained) == sorted(listed)
    assert sweep_sources(["m", "n"], SHARED) == ["m", "n"] and sweep_sources(["budget"], SHARED) == ["n", "budget"]
    # a sweep whose points all belong to an earlier one would have no job and be read from the earlier table (the
    # functions' own behaviour: the schema's at least two distinct m and n per sweep never make such a config)
    inside = {**SHARED, "scaling": {**SHARED["scaling"], "n_sweep": {"m": 8, "ns": [100]}}}
    assert sweep_trained_points("n", inside) == [] and sweep_sources(["n"], inside) == ["m"]
    with pytest.raises(ValueError, match=r"no sweep .* lists \(n, m\) = \(7, 7\)"):
        sweep_owner((7, 7), SHARED)


PER_REGIME = {
    "scaling": {
        "regimes": ["scrl", "sscrl"],
        "m_sweep": {"n": 100, "ms": [8, 2, 32]},
        "n_sweep": {"m": {"scrl": 8, "sscrl": 32}, "ns": [10, 100], "second_m": {"scrl": 2, "sscrl": None}},
    },
    "budget": {"total": 320, "ms": [32, 1]},
}  # SCRL's n sweep at m = 8, SSCRL's at 32; (10, 32) is SSCRL's n-sweep point and a budget split


def test_an_n_sweep_with_one_m_per_regime_is_each_regimes_own():
    """n_sweep.m (and second_m) may give each regime its own m: the points, their owners, the run tables that hold
    them and each regime's rows follow that regime's m; a regime the mapping leaves out, or a regime-free question
    of a per-regime sweep, is refused naming the key."""
    c = PER_REGIME
    assert n_sweep_m(c, "scrl") == 8 and n_sweep_m(c, "sscrl") == 32 and n_sweep_m(c, "sscrl", "second_m") is None
    assert sweep_points("n", c, "scrl") == [(10, 8), (100, 8)] and sweep_points("n", c, "sscrl") == [(10, 32), (100, 32)]
    assert sweep_points("n2", c, "scrl") == [(10, 2), (100, 2)] and sweep_points("n2", c, "sscrl") == []
    assert regime_sweep_points("n", c) == {"scrl": [(10, 8), (100, 8)], "sscrl": [(10, 32), (100, 32)]}
    # (100, 8) is the m sweep's for SCRL; (100, 32) the m sweep's for SSCRL; (10, 32) SSCRL's n sweep's, SCRL's budget's
    assert sweep_trained_points("n", c, "scrl") == [(10, 8)] and sweep_trained_points("n", c, "sscrl") == [(10, 32)]
    assert sweep_trained_points("budget", c, "scrl") == [(320, 1), (10, 32)]  # budget points by m
    assert sweep_trained_points("budget", c, "sscrl") == [(320, 1)]
    assert sweep_sources(["budget"], c, "sscrl") == ["n", "budget"] and sweep_sources(["budget"], c, "scrl") == ["budget"]
    assert sweep_sources(["n2"], c, "sscrl") == []
    with pytest.raises(ValueError, match=r"n_sweep.m gives one m per regime .* name the regime"):
        sweep_points("n", c)
    missing = {**c, "scaling": {**c["scaling"], "n_sweep": {**c["scaling"]["n_sweep"], "m": {"scrl": 8}}}}
    with pytest.raises(ValueError, match=r"n_sweep.m: no m for regime 'sscrl' \(it lists scrl\)"):
        sweep_points("n", missing, "sscrl")
    # each regime's rows at its own points, from the tables of the jobs that trained them
    runs = pd.DataFrame(
        [
            {"regime": regime, "n": n, "m": m, "seed": seed, "auc": n + m / 1000}
            for regime in ("scrl", "sscrl")
            for sweep in ("m", "n", "budget", "n2")
            for n, m in sweep_trained_points(sweep, c, regime)
            for seed in (0, 1)
        ]
    )
    rows = sweep_rows_by_regime(runs, "n", regime_sweep_points("n", c), [0, 1])
    assert sorted(set(zip(rows["regime"], rows["m"], strict=True))) == [("scrl", 8), ("sscrl", 32)]
    assert len(rows) == 2 * 2 * 2 and (rows["sweep"] == "n").all()
    assert sweep_rows_by_regime(runs, "n2", regime_sweep_points("n2", c), [0, 1])["regime"].unique().tolist() == ["scrl"]
    # the figure's titles name the m each regime's n sweep holds
    assert held_at(rows, "m") == "m = 8 (SCRL), 32 (SSCRL)" and held_at(rows[rows["regime"] == "scrl"], "m") == "m = 8"
    # the per-regime size keys the cost model lists are every regime's
    assert {key.rsplit(".", 1)[1] for key in REGIME_MS} == set(REGIMES)


def test_the_marginal_gain_design_trains_all_its_points_on_its_own_seeds():
    """n_sweep.gain: the n sweep's m (per regime), the design's own n and seeds. Its job trains every one of its points,
    shared with another sweep's or not (other seeds, other models); no other sweep's job is read for it, nor it for
    another; without a design (null) it has no points, no seeds and no job. Its rows come from its table alone."""
    c = copy.deepcopy(PER_REGIME)
    assert sweep_points("gain", c, "scrl") == [] and sweep_seeds("gain", c) == [] and sweep_sources(["gain"], c, "scrl") == []
    c["scaling"]["seeds"] = [0, 1]
    c["scaling"]["n_sweep"]["gain"] = {"ns": [100, 10, 50], "seeds": [7, 8, 9]}
    assert sweep_seeds("gain", c) == [7, 8, 9] and sweep_seeds("n", c) == [0, 1]
    with pytest.raises(ValueError, match="unknown sweep 'k'"):
        sweep_seeds("k", c)
    # (100, 8) is also the m sweep's and (10, 8) the n sweep's for SCRL: the design trains them again, on its seeds
    assert sweep_trained_points("gain", c, "scrl") == [(10, 8), (50, 8), (100, 8)]
    assert sweep_trained_points("gain", c, "sscrl") == [(10, 32), (50, 32), (100, 32)]
    assert sweep_owner((100, 8), c, "scrl") == "m" and sweep_owner((100, 8), c, "scrl", "gain") == "gain"
    assert sweep_sources(["gain"], c, "scrl") == ["gain"] and sweep_sources(["n"], c, "scrl") == ["m", "n"]
    assert sweep_trained_points("n", c, "scrl") == [(10, 8)]  # unchanged by the design
    with pytest.raises(ValueError, match=r"sweep gain does not list \(n, m\) = \(7, 7\)"):
        sweep_owner((7, 7), c, "scrl", "gain")
    runs = pd.DataFrame(
        [
            {"regime": regime, "n": n, "m": m, "seed": seed, "auc": 0.5}
            for regime in ("scrl", "sscrl")
            for n, m in sweep_trained_points("gain", c, regime)
            for seed in sweep_seeds("gain", c)
        ]
    )
    rows = sweep_rows_by_regime(runs, "gain", regime_sweep_points("gain", c), sweep_seeds("gain", c))
    assert len(rows) == 2 * 3 * 3 and (rows["sweep"] == "gain").all() and sorted(rows["seed"].unique()) == [7, 8, 9]
    with pytest.raises(ValueError, match=r"sweep gain, regime scrl: .* expected \[0, 1\]"):
        sweep_rows_by_regime(runs, "gain", regime_sweep_points("gain", c), [0, 1])  # not the sweeps' seeds


def _run_table(sweep, seeds=(0, 1), regimes=("scrl", "sscrl")):
    """The table a sweep's job writes: its own points only, values a function of (regime, n, m, seed)."""
    return pd.DataFrame(
        [
            {
                "sweep": sweep,
                "regime": r,
                "n": n,
                "m": m,
                "seed": seed,
                "auc": 0.5 + n * 1e-4 + m * 1e-3 + seed * 1e-5 + (r == "scrl") * 1e-6,
            }
            for (n, m) in sweep_trained_points(sweep, SHARED)
            for seed in seeds
            for r in regimes
        ]
    )


def test_sweep_rows_assemble_each_sweep_from_the_tables_that_trained_its_points():
    runs = pd.concat([_run_table(sweep) for sweep in ("m", "n", "budget")], ignore_index=True)
    seeds, regimes = [0, 1], ["scrl", "sscrl"]
    for sweep in ("m", "n", "budget"):
        rows = sweep_rows(runs, sweep, sweep_points(sweep, SHARED), seeds, regimes)
        assert (rows["sweep"] == sweep).all() and len(rows) == len(sweep_points(sweep, SHARED)) * 2 * 2
        assert set(zip(rows["n"], rows["m"], strict=True)) == set(sweep_points(sweep, SHARED))
        # the same values as a job that trained the whole sweep itself
        expected = 0.5 + rows["n"] * 1e-4 + rows["m"] * 1e-3 + rows["seed"] * 1e-5 + (rows["regime"] == "scrl") * 1e-6
        np.testing.assert_array_equal(rows["auc"], expected)
    # (100, 8) is in both the m and the n sweep's rows, from the m sweep's table
    both = pd.concat([sweep_rows(runs, s, sweep_points(s, SHARED), seeds, regimes) for s in ("m", "n")])
    assert ((both["n"] == 100) & (both["m"] == 8)).sum() == 2 * 2 * 2
    # only the asked regimes
    assert set(sweep_rows(runs, "m", sweep_points("m", SHARED), seeds, ["sscrl"])["regime"]) == {"sscrl"}
    # a shared point's table missing, a seed short, a seed or regime absent from every table, a row twice:
    # refused, naming it
    without_m = runs[runs["sweep"] != "m"]
    with pytest.raises(ValueError, match=r"sweep n, regime scrl: \(n, m\) = \(100, 8\) has seeds \[\]"):
        sweep_rows(without_m, "n", sweep_points("n", SHARED), seeds, regimes)
    short = runs.drop(runs.index[(runs["n"] == 10) & (runs["seed"] == 1) & (runs["regime"] == "sscrl")])
    with pytest.raises(ValueError, match=r"sweep budget, regime sscrl: \(n, m\) = \(10, 8\) has seeds \[0\]"):
        sweep_rows(short, "budget", sweep_points("budget", SHARED), seeds, regimes)
    with pytest.raises(ValueError, match=r"has seeds \[0, 1\] in the run tables, expected \[0, 1, 2\]"):
        sweep_rows(runs, "m", sweep_points("m", SHARED), [0, 1, 2], regimes)
    with pytest.raises(ValueError, match=r"regime incl: .* has seeds \[\]"):
        sweep_rows(runs, "m", sweep_points("m", SHARED), seeds, [*regimes, "incl"])
    with pytest.raises(ValueError, match="more than once"):
        sweep_rows(pd.concat([runs, runs.iloc[:1]]), "m", sweep_points("m", SHARED), seeds, regimes)
    with pytest.raises(ValueError, match=r"has seeds \[\]"):
        sweep_rows(runs.iloc[:0], "m", sweep_points("m", SHARED), seeds, regimes)


def test_calibration_bound_holds_for_perturbed_scores_on_unseen_settings(skewed_gmm):
    """Thm 3.4 on a K=3 mixture at several τ: scores τ·PMI + ε·h for smooth random h."""
    rng = np.random.default_rng(0)
    grid = skewed_gmm.grid(120)
    e_star = bayes_auc(skewed_gmm, 120, 600)
    for tau in (0.1, 0.5, 2.0):
        for eps in (0.02, 0.3, 2.0):
            c = rng.standard_normal(4)

            def score(x, y, c=c, eps=eps, tau=tau):
                return tau * skewed_gmm.pmi(x, y) + eps * np.sin(c[0] * x[:, None] + c[1] * y[None, :]) * np.cos(
                    c[2] * y[None, :] + c[3]
                )

            regret = e_star - retrieval_auc(score, skewed_gmm, 120, 600)
            excess = excess_contrastive_risk(score, grid, tau)
            assert regret <= float(calibration_bound(excess, tau)) + 1e-4
            assert excess > 0


def test_calibration_table_flags_violations_without_clipping(paper_gmm):
    points = pd.DataFrame(
        {
            "model": ["a", "a", "b"],
            "D": 1,
            "seed": 0,
            "checkpoint": [0, 1, 0],
            "excess_loss": [0.5, 1e-6, 0.01],
            "auc": [0.5, 0.6, 0.67],
        }
    )
    table = calibration_table(points, paper_gmm, 0.5, nodes=100, inner_nodes=500)
    assert table["violates"].tolist() == [False, True, False]
    assert table.loc[1, "excess_auc"] == pytest.approx(table.loc[1, "E_star"] - 0.6)
    assert table.loc[1, "ratio"] > 10
    fit = {"exponent": 0.7, "low": 0.6, "high": 0.8, "points_used": 3, "points_excluded": 0, "floor": 0.0}
    claims = c2_claims(table, fit, {"exponent": 0.5}, tsybakov_rate=(0.9, 0.85, 0.95))
    # the bound is violated; 0.7 [0.6, 0.8] is not the √ law, is at least ½, and is below 0.85
    assert [c.verdict for c in claims] == ["contradicted", "contradicted", "reproduced", "contradicted"]
    assert "violated at 1 of 3" in claims[0].reason and claims[0].measured == pytest.approx(table["ratio"].max())


def test_calibration_exponent_recovers_a_power_law():
    rng = np.random.default_rng(0)
    loss = np.geomspace(1e-4, 1e-1, 30)
    regret = 0.3 * loss**0.8 * np.exp(0.05 * rng.standard_normal(30))
    regret[:3] = 1e-9  # below the floor: left out
    fit = fit_calibration_exponent(loss, regret, 500, rng, floor=1e-6)
    assert fit["exponent"] == pytest.approx(0.8, abs=0.03) and fit["points_excluded"] == 3
    assert fit["low"] < 0.8 < fit["high"]
    with pytest.raises(ValueError, match="at least 3"):
        fit_calibration_exponent(loss[:2], regret[:2], 10, rng)


def test_calibration_exponent_resamples_whole_runs():
    """Two runs with their own exact power laws (exponents ½ and 1): resampling runs, the unit that is
    independent, gives exactly the runs' own slopes at the interval's ends (checkpoints resampled one by
    one give a mixture of the two lines instead)."""
    loss = np.tile(np.geomspace(1e-3, 1e-1, 10), 2)
    regret = np.concatenate([0.1 * loss[:10] ** 0.5, 0.1 * loss[10:] ** 1.0])
    groups = np.repeat(["run_a", "run_b"], 10)
    by_point = fit_calibration_exponent(loss, regret, 500, np.random.default_rng(0))
    by_run = fit_calibration_exponent(loss, regret, 500, np.random.default_rng(0), groups=groups)
    assert by_run["exponent"] == by_point["exponent"] == pytest.approx(0.75) and by_run["resampled"] == "models"
    assert by_run["low"] == pytest.approx(0.5) and by_run["high"] == pytest.approx(1.0)
    assert by_point["low"] != pytest.approx(0.5, abs=0.05)


def test_calibration_trajectories_start_at_the_initialisation_one_per_seed(paper_gmm):
    settings = TrainSettings(epochs=2, batch_size=64, learning_rate=1e-3, weight_decay=0.0, seed=0)
    kwargs = dict(hidden=16, layers=2, nodes=60, inner_nodes=200)
    stacked = calibration_trajectories(paper_gmm, 2, [0, 3], 0.5, 256, settings, **kwargs)
    for seed, points in zip([0, 3], stacked, strict=True):
        assert points["checkpoint"].tolist() == [0, 1, 2]
        assert (points["excess_loss"] > 0).all() and points["model"].eq(f"D2_seed{seed}").all()
        assert points["excess_loss"].iloc[-1] < points["excess_loss"].iloc[0]
    (alone,) = calibration_trajectories(paper_gmm, 2, [3], 0.5, 256, settings, **kwargs)  # seed 3 in a stack of its own
    pd.testing.assert_frame_equal(alone, stacked[1], rtol=1e-4)
    assert not np.allclose(stacked[0]["excess_loss"], stacked[1]["excess_loss"])  # two seeds, two trainings


# -- C3 at the theorem's mechanism: fixed scores ------------------------------------------------------------

from crlrepro.experiments.generalization import (  # noqa: E402
    FixedScore,
    deviation_rates,
    fixed_score_family,
    in_batch_inner_draws,
    inner_term_draws,
    log_partition,
    outer_term_draws,
)
from crlrepro.theory.quadrature import trapezoid_mixture  # noqa: E402


def test_inner_term_matches_a_literal_transcription(skewed_gmm):
    tau, m, pools, nodes = 0.7, 5, 3, 40
    score = FixedScore("s", lambda x, y: np.sin(np.multiply.outer(x, y)), lambda x, y: np.sin(x * y))
    draws = inner_term_draws([score], skewed_gmm, tau, [m], pools, seed=3, nodes=nodes, partition_nodes=nodes)
    rule = skewed_gmm.grid(nodes).x
    keep = rule.weights > 1e-14 * rule.weights.max()
    xs, ws = rule.nodes[keep], rule.weights[keep] / rule.weights[keep].sum()
    _, negatives, _ = skewed_gmm.sample(pools * m, np.random.default_rng([3, m]))
    negatives = negatives.reshape(pools, m)
    y_rule = trapezoid_mixture(skewed_gmm.weights, skewed_gmm.mean_y, skewed_gmm.std_y, nodes)
    for p in range(pools):
        literal = 0.0
        for x, w in zip(xs, ws, strict=True):
            z_hat = np.mean([np.exp(np.sin(x * y) / tau) for y in negatives[p]])
            z = sum(wy * np.exp(np.sin(x * y) / tau) for y, wy in zip(y_rule.nodes, y_rule.weights, strict=True))
            literal += w * tau * np.log(z_hat / z)
        assert draws["inner"].iloc[p] == pytest.approx(literal, rel=1e-10)


def test_in_batch_inner_term_matches_a_literal_transcription(skewed_gmm):
    tau, m, batches, nodes = 0.7, 4, 3, 401
    score = FixedScore("s", lambda x, y: np.sin(np.multiply.outer(x, y)), lambda x, y: np.sin(x * y))
    draws = in_batch_inner_draws(
        [score], skewed_gmm, tau, [m], batches, seed=5, partition_nodes=nodes, table_points=8001, block_pairs=60
    )  # 60 pairs: one batch of 5 × 5 per pairwise call, then several
    x, y, _ = skewed_gmm.sample(batches * (m + 1), np.random.default_rng([5, m, 2]))
    x, y = x.reshape(batches, m + 1), y.reshape(batches, m + 1)
    y_rule = trapezoid_mixture(skewed_gmm.weights, skewed_gmm.mean_y, skewed_gmm.std_y, nodes)
    for b in range(batches):
        literal = literal_cv = 0.0
        for i in range(m + 1):
            z_hat = np.mean([np.exp(np.sin(x[b, i] * y[b, j]) / tau) for j in range(m + 1) if j != i])
            z = sum(wy * np.exp(np.sin(x[b, i] * v) / tau) for v, wy in zip(y_rule.nodes, y_rule.weights, strict=True))
            literal += tau * np.log(z_hat / z) / (m + 1)
            literal_cv += tau * (np.log(z_hat / z) - (z_hat / z - 1)) / (m + 1)
        # log Z at the anchors is interpolated from a table: agreement to the table's resolution
        assert draws["inner"].iloc[b] == pytest.approx(literal, abs=1e-5)
        assert draws["inner_cv"].iloc[b] == pytest.approx(literal_cv, abs=1e-5)
    with pytest.raises(ValueError, match="m >= 1"):
        in_batch_inner_draws([score], skewed_gmm, tau, [0], batches, seed=5, partition_nodes=nodes)


def test_in_batch_negatives_have_scrls_bias_not_sscrls_shared_error(skewed_gmm):
    """Each anchor's in-batch negatives are iid P_Y draws independent of it, so the batch mean's expectation is
    SCRL's bias at the same m (and decays as 1/m), on a mixture the study was not tuned on."""
    tau = 0.5
    family = fixed_score_family(skewed_gmm, tau, 1.0)
    ms = [32, 64, 128, 256]
    inner = inner_term_draws(family, skewed_gmm, tau, ms, 200, seed=2, nodes=80, partition_nodes=801)
    inbatch = in_batch_inner_draws(family, skewed_gmm, tau, ms, 200, seed=2, partition_nodes=801)
    for (m, name), draws in inbatch.groupby(["m", "score"]):
        scrl = inner[(inner["m"] == m) & (inner["score"] == name)]["inner_cv"]
        se = np.hypot(draws["inner_cv"].sem(), scrl.sem())
        assert abs(draws["inner_cv"].mean() - scrl.mean()) < 4 * se, (m, name)
        assert abs(draws["inner_cv"].mean()) > 10 * draws["inner_cv"].sem(), (m, name)  # the bias is resolved
    outer = outer_term_draws(family, skewed_gmm, tau, [64, 256], 50, seed=2, partition_nodes=801)
    predicted = {"m": {"scrl": -1.0, "sscrl": -0.5, "inbatch": -1.0}, "n": {"scrl": -0.5, "sscrl": -0.5}}
    _, slopes = deviation_rates(
        {"inner": inner, "inbatch": inbatch, "outer": outer}, fit_from=32, bootstrap=200, seed=0, predicted=predicted
    )
    fit = slopes.set_index(["regime", "score"]).loc[("inbatch", "sup")]
    assert fit["slope"] == pytest.approx(-1.0, abs=0.15) and fit["high"] < -0.75


def test_a_score_blind_to_y_has_no_inner_error_and_its_outer_term_is_centred(skewed_gmm):
    shift = FixedScore("x_only", lambda x, y: np.add.outer(np.tanh(x), 0 * y), lambda x, y: np.tanh(x))
    inner = inner_term_draws([shift], skewed_gmm, 0.5, [1, 8], 20, seed=0, nodes=60, partition_nodes=60)
    assert np.abs(inner[["inner", "inner_cv"]].to_numpy()).max() < 1e-12
    family = fixed_score_family(skewed_gmm, 0.5, 2.0)
    outer = outer_term_draws(family, skewed_gmm, 0.5, [64], 400, seed=0, partition_nodes=401)
    for name, draws in outer.groupby("score"):
        assert abs(draws["outer"].mean()) < 4 * draws["outer"].std() / np.sqrt(len(draws)), name


def test_log_partition_is_the_population_normaliser(skewed_gmm):
    bayes = fixed_score_family(skewed_gmm, 1.0, 2.0)[0]  # τ·PMI with τ = 1: E_{y'} e^{PMI(x, y')} = 1
    assert np.abs(log_partition(bayes, skewed_gmm, np.linspace(-3, 3, 7), 1.0, 300)).max() < 1e-10


def test_the_mechanism_separates_the_regimes_on_a_mixture_it_was_not_tuned_on(skewed_gmm):
    """SCRL's bias decays as 1/m, SSCRL's shared-pool error as 1/√m, the anchors' as 1/√n; and the Bayes
    score's shared-pool error has no first-order term (E_x e^{PMI(x, y')} = 1 for every y'), so it decays as 1/m."""
    tau = 0.5
    family = fixed_score_family(skewed_gmm, tau, 1.0)
    inner = inner_term_draws(family, skewed_gmm, tau, [32, 64, 128, 256], 200, seed=1, nodes=80, partition_nodes=801)
    outer = outer_term_draws(family, skewed_gmm, tau, [64, 256, 1024], 200, seed=1, partition_nodes=801)
    predicted = {"m": {"scrl": -1.0, "sscrl": -0.5}, "n": {"scrl": -0.5, "sscrl": -0.5}}
    draws = {"inner": inner, "inbatch": inner, "outer": outer}  # in-batch has its own test
    _, slopes = deviation_rates(
        draws, fit_from=32, bootstrap=200, seed=0, predicted={**predicted, "m": {**predicted["m"], "inbatch": -1.0}}
    )
    slope = slopes.set_index(["regime", "score"])["slope"]
    assert slope["scrl", "sup"] == pytest.approx(-1.0, abs=0.15)
    assert slope["sscrl", "misspecified"] == pytest.approx(-0.5, abs=0.12)
    assert slope["sscrl", "bayes"] == pytest.approx(-1.0, abs=0.15)
    assert slope["both", "sup"] == pytest.approx(-0.5, abs=0.1)
    fits = slopes.set_index(["regime", "score"])
    assert (fits["low"] <= fits["slope"]).all() and (fits["slope"] <= fits["high"]).all()


def test_deviation_rates_recover_planted_power_laws():
    rng = np.random.default_rng(0)
    ms, ns, pools = [16, 64, 256, 1024], [100, 400, 1600], 300
    inner = pd.concat(
        [
            pd.DataFrame(
                {
                    "m": m,
                    "pool": np.arange(pools),
                    "score": s,
                    "inner": -0.3 / m + scale / np.sqrt(m) * rng.standard_normal(pools),
                    "inner_cv": -0.3 / m * (1 + 0.05 * rng.standard_normal(pools)),
                }
            )
            for m in ms
            for s, scale in (("a", 0.2), ("b", 0.1))
        ],
        ignore_index=True,
    )
    outer = pd.concat(
        [
            pd.DataFrame({"n": n, "draw": np.arange(pools), "score": s, "outer": scale / np.sqrt(n) * rng.standard_normal(pools)})
            for n in ns
            for s, scale in (("a", 1.0), ("b", 0.5))
        ],
        ignore_index=True,
    )
    predicted = {"m": {"scrl": -1.0, "sscrl": -0.5, "inbatch": -1.0}, "n": {"scrl": -0.5, "sscrl": -0.5}}
    draws = {"inner": inner, "inbatch": inner, "outer": outer}
    points, slopes = deviation_rates(draws, fit_from=64, bootstrap=300, seed=0, predicted=predicted)
    fit = slopes.set_index(["regime", "score"])
    assert fit.loc[("scrl", "sup"), "slope"] == pytest.approx(-1.0, abs=0.03)
    assert fit.loc[("sscrl", "sup"), "slope"] == pytest.approx(-0.5, abs=0.06)
    assert fit.loc[("both", "sup"), "slope"] == pytest.approx(-0.5, abs=0.06)
    assert fit.loc[("inbatch", "sup"), "slope"] == fit.loc[("scrl", "sup"), "slope"]  # same draws, same statistic
    assert (fit["fit_from"] == [64] * 9 + [100] * 3).all() and set(fit["predicted"]) == {-1.0, -0.5}
    # the supremum dominates every member, at every point
    for _, group in points.groupby(["regime", "at"]):
        sup = group.loc[group["score"] == "sup", "deviation"].iloc[0]
        assert sup >= group["deviation"].max() - 1e-15
    with pytest.raises(ValueError, match="fit_from"):
        deviation_rates(draws, fit_from=512, bootstrap=10, seed=0, predicted=predicted)
    with pytest.raises(ValueError, match=r"needs the draws tables \['inbatch'\]"):
        deviation_rates({"inner": inner, "outer": outer}, fit_from=64, bootstrap=10, seed=0, predicted=predicted)
    with pytest.raises(ValueError, match="same for every regime"):
        deviation_rates(draws, fit_from=64, bootstrap=10, seed=0, predicted={**predicted, "n": {"scrl": -0.5, "sscrl": -1}})


def test_log_partition_of_a_kinked_score_converges_with_its_nodes(skewed_gmm):
    """A ReLU network's score has kinks, where the trapezoidal rule is only O(h²): the study's Z(x) needs
    thousands of nodes, or its error floors the inner term's bias at large m."""
    kinked = FixedScore("relu", lambda x, y: np.maximum(np.subtract.outer(x, y), 0.0).clip(max=2.0), None)
    x = np.linspace(-2, 2, 5)
    coarse, fine, finer, finest = (log_partition(kinked, skewed_gmm, x, 0.5, n) for n in (201, 4001, 16001, 64001))
    assert np.abs(fine - finest).max() < 3e-5 < 1e-3 < np.abs(coarse - finest).max()
    # second order: four times the nodes, a sixteenth of the error
    assert 10 < np.abs(fine - finest).max() / np.abs(finer - finest).max() < 25


def test_the_scaling_figure_draws_the_marginal_gain_design_in_its_auc_panel():
    """plot_scaling with a design: panel (g) shows the design's mean AUC per n (one labelled series per regime, with the
    fit its row reads where there is one), spans the AUCs and E* rather than chance; without a design, chance is drawn."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from crlrepro.studies.scaling.figure import plot_scaling

    e_star, rows = 0.73, []
    for sweep, axis, xs in (("m", "m", (1, 4, 16)), ("n", "n", (256, 1024, 4096))):
        for regime in ("scrl", "sscrl"):
            for x in xs:
                for seed in (0, 1):
                    n, m = (8192, x) if axis == "m" else (x, 64)
                    auc = e_star - 0.002 - 0.5 / x - 0.001 * seed
                    rows.append(
                        {
                            "sweep": sweep,
                            "regime": regime,
                            "n": n,
                            "m": m,
                            "seed": seed,
                            "gap": 1 / x,
                            "auc": auc,
                            "recall_at_1": 0.15,
                        }
                    )
    table = pd.DataFrame(rows)
    slopes = pd.DataFrame(
        [
            {"regime": r, "axis": a, "quantity": "gap", "slope": -0.9, "low": -1.1, "high": -0.7, "predicted": -0.5}
            for r in ("scrl", "sscrl")
            for a in ("m", "n")
        ]
    )
    design = table[table["sweep"] == "n"].assign(sweep="gain", seed=lambda t: t["seed"] + 200)
    auc_rates = pd.DataFrame(
        [
            {
                "regime": "scrl",
                "axis": "n",
                "sweep": "gain",
                "rate": 1.0,
                "rate_low": 0.7,
                "rate_high": 1.9,
                "floor": 0.002,
                "amplitude": 0.5,
                "window_from": 256.0,
            },
            {
                "regime": "sscrl",
                "axis": "n",
                "sweep": "gain",
                "rate": np.nan,
                "rate_low": np.nan,
                "rate_high": np.nan,
                "floor": np.nan,
                "amplitude": np.nan,
                "window_from": np.nan,
            },
        ]
    )
    fig = plot_scaling(table, slopes, e_star=e_star, design=design, auc_rates=auc_rates)
    panel = fig.axes[6]
    labels = [text.get_text() for text in panel.get_legend().get_texts()]
    assert "SCRL: marginal-gain design (2 seeds, 200–201): r = 1.00 [0.70, 1.90]" in labels
    assert "SSCRL: marginal-gain design (2 seeds, 200–201)" in labels
    assert "chance ½" not in labels and panel.get_ylim()[0] > 0.5 and panel.get_ylim()[1] > e_star
    plt.close(fig)
    plain = plot_scaling(table, slopes, e_star=e_star)
    assert "chance ½" in [text.get_text() for text in plain.axes[6].get_legend().get_texts()]
    plt.close(plain)
