"""End to end: snakemake on the smoke config in temporary copies of the repository."""

import json
import os
import re
import signal
import subprocess
import sys
import time

import matplotlib.image
import numpy as np
import pandas as pd
import pytest
import yaml
from conftest import (
    REPO,
    SMOKE,
    SMOKE_RESULTS,
    artifacts,
    copy_repo,
    edited,
    planned_jobs,
    planned_outputs,
    require_browser,
    run_watched,
    snakemake,
)

from crlrepro.claims.reference import paper_values
from crlrepro.claims.verdicts import VERDICTS
from crlrepro.studies.summary import SUMMARY_COLUMNS

pytestmark = pytest.mark.pipeline


def test_smoke_tables_have_the_right_values(smoke_run):
    results = smoke_run / SMOKE_RESULTS
    reference = paper_values("A1")
    truncation = pd.read_csv(results / "approximation" / "gmm_truncation.csv").set_index("D")
    assert list(truncation.columns) == ["tail_sum", "trunc_excess_risk"]
    for quantity in ("tail_sum", "trunc_excess_risk"):
        for d, paper in reference[quantity].items():
            assert truncation.loc[d, quantity] == pytest.approx(paper, rel=1e-3)

    spectrum = pd.read_csv(results / "approximation" / "gmm_spectrum.csv")
    assert list(spectrum.columns) == ["index", "eigenvalue"] and len(spectrum) >= 16
    assert (np.diff(spectrum["eigenvalue"]) <= 0).all() and (spectrum["eigenvalue"] > 0).all()
    # The spectrum and the tail sums agree: Σ_{i>1} λ_i ≥ λ_2 + … + λ_16.
    assert truncation.loc[1, "tail_sum"] >= spectrum["eigenvalue"].iloc[1:].sum()

    convergence = pd.read_csv(results / "approximation" / "gmm_convergence.csv")
    at_used = convergence[convergence["nodes"] == 200]
    assert (at_used[["tail_sum_digits", "trunc_excess_risk_digits"]] >= 4).all().all()

    summary = pd.read_csv(results / "summary.csv")
    assert list(summary.columns) == SUMMARY_COLUMNS and set(summary["role"]) == {
        "claim",
        "out of reach",
        "mathematics",
        "diagnostic",
    }
    assert "## Diagnostics" in (results / "summary.md").read_text()
    assert set(summary["verdict"]) <= set(VERDICTS) and summary[["kind", "power", "reason"]].notna().all().all()
    a1 = summary[(summary["experiment"] == "A1") & (summary["kind"] == "value")]  # Table 1's columns 1–2
    assert len(a1) == 8 and (a1["verdict"] == "reproduced").all()
    markdown = (results / "summary.md").read_text()
    table_1 = [line for line in markdown.splitlines() if line.startswith("| `A1.") and "| value |" in line]
    assert len(table_1) == 8 and all("| reproduced |" in line for line in table_1)
    assert markdown.index("## Paper 1") < markdown.index("## Paper 2") < markdown.index("## Paper 3")

    sidecar = json.loads((results / "approximation" / "gmm_truncation.provenance.json").read_text())
    assert sidecar["params"]["nodes"] == 200 and sidecar["rule"] == "gmm_spectrum"
    assert sidecar["device"] == "cpu" and len(sidecar["config_hash"]) == 16

    for name in ("gmm_spectrum", "gmm_mlp", "lcgm", "tsybakov"):
        image = matplotlib.image.imread(results / "figures" / f"{name}.png")
        assert image.shape[0] > 400 and image.shape[1] > 800 and image.std() > 0.05, name
        assert (results / "figures" / f"{name}.pdf").read_bytes().startswith(b"%PDF"), name


def test_smoke_training_experiments(smoke_run):
    results = smoke_run / SMOKE_RESULTS
    mlp = pd.read_csv(results / "approximation" / "gmm_mlp.csv")
    assert {"D", "seed", "excess_risk", "l2_distance", "spectral_excess_risk", "spectral_l2_distance"} <= set(mlp.columns)
    assert sorted(mlp["D"]) == [1, 2, 4, 8] and (mlp["seed"] == 0).all()
    # A learned D=1 score cannot beat the risk of the Bayes score, and is far from useless.
    assert ((mlp["excess_risk"] > 0) & (mlp["excess_risk"] < 0.1)).all()
    truncation = pd.read_csv(results / "approximation" / "gmm_truncation.csv")
    np.testing.assert_allclose(mlp.sort_values("D")["spectral_excess_risk"], truncation["trunc_excess_risk"], rtol=1e-12)

    probe = pd.read_csv(results / "approximation" / "lcgm_probe.csv")
    assert sorted(probe["D"]) == [2, 3, 4, 5, 6]
    assert probe["r2_f"].between(-1, 1).all() and probe["r2_g"].between(-1, 1).all()
    elbow = json.loads((results / "approximation" / "lcgm_elbow.json").read_text())
    assert elbow["classes"] == 4 and elbow["elbow"] == 4  # the smoke LCGM has K = 4
    assert probe.set_index("D").loc[4, "r2_g"] > probe.set_index("D").loc[3, "r2_g"]

    tsybakov = pd.read_csv(results / "approximation" / "tsybakov.csv")
    first = tsybakov.iloc[0]
    assert (first["t_min"], first["t_max"]) == (1e-4, 1e-2) and len(tsybakov) == 2
    assert first["ci_low"] < first["mu_hat"] < first["ci_high"] and 0.5 < first["rate"] < 1.0
    # the exact F: its curve, the window scan with the configured window, and the Monte Carlo against it
    curve = pd.read_csv(results / "approximation" / "tsybakov_exact.csv", comment="#")
    assert curve["t"].iloc[0] == pytest.approx(1e-6) and curve["cdf"].is_monotonic_increasing
    windows = pd.read_csv(results / "approximation" / "tsybakov_windows.csv", comment="#")
    configured = windows[windows["configured"]].iloc[0]
    assert (configured["t_min"], configured["t_max"]) == (1e-4, 1e-2)
    assert abs(configured["slope"] - first["mu_hat"]) < 5 * (first["ci_high"] - first["ci_low"])
    check = pd.read_csv(results / "approximation" / "tsybakov_mc_check.csv", comment="#")
    assert len(check) == 60 and check["z"].abs().max() < 5
    sweeps = pd.read_csv(results / "approximation" / "lcgm_sensitivity_elbow.csv", comment="#")
    assert sweeps["dims"].tolist() == ["2 4 6", "2 4 6"] and set(sweeps["noise_y"]) == {1.0, 2.0}
    # the grid's centre (noise_y 2.0, separation 3.0, A3's own setting) is A3's models of the first seed, not a
    # second training of them: the same numbers as A3's probe table
    sensitivity = pd.read_csv(results / "approximation" / "lcgm_sensitivity.csv", comment="#")
    centre = sensitivity[(sensitivity["noise_y"] == 2.0) & (sensitivity["separation"] == 3.0)].set_index("D")
    assert sorted(centre.index) == [2, 4, 6]
    own = probe[probe["seed"] == 0].set_index("D").loc[centre.index]
    pd.testing.assert_frame_equal(centre[["r2_f", "r2_g", "excess_risk"]], own[["r2_f", "r2_g", "excess_risk"]])
    rows = smoke_run / SMOKE_RESULTS / "models" / "lcgm_sensitivity"  # one job per noise_y; the centre's row trains nothing
    assert sorted(path.name for path in rows.iterdir()) == ["ny0"]
    assert sorted(path.name for path in (rows / "ny0").glob("*.pt")) == ["sep0_D2.pt", "sep0_D4.pt", "sep0_D6.pt"]

    summary = pd.read_csv(results / "summary.csv")
    assert set(summary["experiment"]) == {"A1", "A2", "A3", "A4", "C1", "C2", "C3", "C4", "C5", "S1", "S2", "S3", "S4"}
    assert (summary.loc[summary["experiment"].isin(["C1", "C5"]), "verdict"] == "verified").all()
    oracle = json.loads((results / "consistency" / "oracle.json").read_text())
    assert {"mutual_information", "L_star", "E_star"} <= set(oracle)
    assert oracle["L_star"] == pytest.approx(-0.5 * oracle["mutual_information"], rel=1e-12)
    assert 0.5 < oracle["E_star"] < 1.0
    assert elbow["per_seed"] == {"0": 4}
    # the paper's elbow is at its K = 8: the smoke LCGM (K = 4) is not compared with it
    (reason,) = summary.loc[summary["claim_id"] == "A3.elbow", "reason"]
    assert "lcgm.classes: 4 here, 8 in the paper" in reason


def test_smoke_consistency_experiments(smoke_run):
    results = smoke_run / SMOKE_RESULTS
    calibration = pd.read_csv(results / "consistency" / "calibration.csv")
    assert {"model", "checkpoint", "excess_loss", "excess_auc", "bound"} <= set(calibration.columns)
    assert set(calibration["checkpoint"]) == {0, 1, 2, 3, 4} and calibration["model"].nunique() == 2
    assert (calibration["excess_loss"] > 0).all()
    np.testing.assert_allclose(calibration["bound"], np.sqrt(2 / 0.5 * calibration["excess_loss"]), rtol=1e-12)
    fit = json.loads((results / "consistency" / "calibration_fit.json").read_text())
    assert fit["violations"] == int(calibration["violates"].sum())
    families = pd.read_csv(results / "consistency" / "calibration_families.csv", comment="#")
    assert families.groupby("model").size().to_dict() == {"perturbed:sin_x_times_y": 4, "truncation": 5}
    small_t = json.loads((results / "consistency" / "tsybakov_small_t.json").read_text())
    assert small_t["t_min"] == 1e-6 and 0.8 < small_t["mu_small"] < 1.0
    summary = pd.read_csv(results / "summary.csv")
    rows = summary[summary["claim_id"].str.startswith("C2.family")].set_index("claim_id")["role"].to_dict()
    assert rows == {"C2.family.truncation": "claim", "C2.family_perturbed.perturbed:sin_x_times_y": "diagnostic"}

    scaling = pd.read_csv(results / "consistency" / "scaling.csv")
    columns = {"regime", "n", "m", "seed", "empirical_loss", "population_loss", "gap", "excess_risk", "auc", "recall_at_1"}
    assert columns <= set(scaling.columns) and set(scaling["regime"]) == {"scrl", "sscrl"}
    assert len(scaling) == 2 * 2 * (3 + 3)  # regimes × seeds × (m sweep + n sweep)
    np.testing.assert_allclose(scaling["gap"], scaling["population_loss"] - scaling["empirical_loss"], rtol=1e-12)
    oracle = json.loads((results / "consistency" / "oracle.json").read_text())
    # No trained score beats the oracles (up to the quadrature of the evaluation: 100 nodes here).
    assert (scaling["excess_risk"] > 0).all() and (scaling["auc"] < oracle["E_star"] + 1e-3).all()
    assert (scaling["population_loss"] > oracle["L_star"]).all()
    slopes = pd.read_csv(results / "consistency" / "scaling_slopes.csv")
    assert (slopes["low"] <= slopes["slope"]).all() and (slopes["slope"] <= slopes["high"]).all()

    budget = pd.read_csv(results / "consistency" / "budget.csv")
    assert {"regime", "n", "m", "seed", "auc", "excess_risk"} <= set(budget.columns)
    assert (budget["n"] * budget["m"] == 2048).all() and len(budget) == 2 * 2 * 3
    # (1024, 2) and (128, 16) are points of the m and n sweeps too: trained once, the same rows in both tables
    shared = budget.merge(scaling, on=["regime", "n", "m", "seed"], suffixes=("", "_sweep"))
    assert sorted(set(zip(shared["n"], shared["m"], strict=True))) == [(128, 16), (1024, 2)] and len(shared) == 2 * 2 * 2
    for column in ("empirical_loss", "population_loss", "auc", "recall_at_1"):
        assert (shared[column] == shared[f"{column}_sweep"]).all()
    budget_runs = pd.read_csv(results / "consistency" / "runs" / "budget_scrl.csv", comment="#")
    assert sorted(set(zip(budget_runs["n"], budget_runs["m"], strict=True))) == [
        (16, 128)
    ]  # the budget job trains its own point only
    summary = pd.read_csv(results / "summary.csv")
    for experiment in ("C2", "C3", "C4"):
        assert (summary["experiment"] == experiment).sum() >= 2
    for name in ("calibration", "scaling", "budget"):
        image = matplotlib.image.imread(results / "figures" / f"{name}.png")
        assert image.shape[0] > 200 and image.std() > 0.01


def test_smoke_supervised_view_experiments(smoke_run):
    results = smoke_run / SMOKE_RESULTS
    columns = {
        "experiment",
        "model",
        "balance",
        "augmentation",
        "similarity",
        "loss",
        "ratio",
        "seed",
        "train_size",
        "diverged",
        "knn_top1",
        "linear_top1",
        "linear_top1_tail",
        "few1_top1",
        "few10_top1",
        "prototype_bias",
        "prototype_bias_raw",
        "attraction_lhs",
        "attraction_rhs",
        "repulsion_lhs",
        "repulsion_rhs",
    }
    tables = {e: pd.read_csv(results / "supervised_view" / f"{e}.csv") for e in ("S1", "S2", "S3", "S4")}
    for experiment, table in tables.items():
        assert columns <= set(table.columns), experiment
        assert table["model"].tolist()[-2:] == ["raw_pixels", "random_encoder"]  # the baselines, in every table
        table = table[table["model"] == "trained"]
        assert sorted(set(table["seed"])) == [0]
        done = table[~table["diverged"]]
        assert done["linear_top1"].between(0.3, 1.0).all() and done["knn_top1"].between(0.3, 1.0).all()
        assert done["few1_top1"].between(0.1, 1.0).all()
    s1 = tables["S1"][tables["S1"]["model"] == "trained"]
    assert sorted(s1.loc[s1["loss"] == "balanced", "ratio"].unique()) == [0.5, 1.0]
    assert set(s1["loss"]) == {"balanced", "nt_xent", "dcl", "supervised_prototype"}
    assert set(tables["S2"]["similarity"].dropna()) == {"cosine", "dot"}
    s3 = tables["S3"][tables["S3"]["model"] == "trained"]
    assert set(s3["balance"]) == {"uniform", "long_tailed"} and (s3["train_size"] == 120).all()
    assert set(tables["S4"]["augmentation"]) == {"base", "no_blur"}
    assert (tables["S4"]["prototype_bias"] > 0).all() and (tables["S4"]["prototype_bias"] <= 2).all()
    # the reference run (full, base, cosine, λ/ν = 1) is trained once and shared by S1, S2 and S4
    reference = [
        t[
            (t["model"] == "trained")
            & (t["balance"] == "full")
            & (t["augmentation"] == "base")
            & (t["similarity"] == "cosine")
            & (t["loss"] == "balanced")
            & (t["ratio"] == 1.0)
        ]
        for t in (tables["S1"], tables["S2"], tables["S4"])
    ]
    for other in reference[1:]:
        np.testing.assert_array_equal(other["linear_top1"].to_numpy(), reference[0]["linear_top1"].to_numpy())
    assert len(list((results / "models" / "ssl").glob("*.pt"))) == 9  # one file per run spec, every seed in it
    for experiment in ("S1", "S2", "S3", "S4"):
        image = matplotlib.image.imread(results / "figures" / f"{experiment}.png")
        assert image.shape[0] > 200 and image.std() > 0.01


def test_publish_copies_the_scale_checked_with_its_provenance_and_is_not_part_of_all(smoke_run):
    """`snakemake publish` writes docs/results/smoke/ from the finished smoke run: every registry file, byte for byte,
    and a provenance file with the runs that built the results (the smoke run's own, recorded by onsuccess); a
    second call has nothing to do, and `snakemake` (all) never plans it."""
    from crlrepro.studies.registry import published_files
    from crlrepro.workflow import publish

    assert "publish" not in planned_jobs(smoke_run, *SMOKE)
    snakemake(smoke_run, "publish", "--cores", "1", *SMOKE)
    published = smoke_run / "docs" / "results" / "smoke"
    record = json.loads((published / "provenance.json").read_text())
    assert sorted(record["files"]) == sorted(published_files())
    for relative in published_files():
        assert (published / relative).read_bytes() == (smoke_run / SMOKE_RESULTS / relative).read_bytes(), relative
    assert record["scale"] == "smoke" and record["config"]["results"] == SMOKE_RESULTS
    assert record["runs"] and all(run["wall_s"] > 0 and run["jobs"] > 0 for run in record["runs"])
    assert publish.read_published_table("smoke", "summary.csv", smoke_run / "docs" / "results").shape[0] > 0
    again = snakemake(smoke_run, "publish", "-n", "--cores", "1", *SMOKE)
    assert "Nothing to be done" in again.stdout + again.stderr


def test_a_missing_or_damaged_model_is_rebuilt_by_the_advice_followed_literally(smoke_run, smoke_artifacts):
    """(This test restores the checkout's results byte for byte.) A deleted model of the sensitivity grid is planned
    again (it was a file inside a directory() output: the table silently lost a row); a damaged model is refused
    with a command that, run as printed, rebuilds it and everything computed from it, even after the user also
    deleted it; `crlrepro verify` finds both first."""
    import re
    import shlex

    results = smoke_run / SMOKE_RESULTS
    (results / "models" / "lcgm_sensitivity" / "ny0" / "sep0_D2.pt").unlink()
    assert {"lcgm_sensitivity_train_ny0", "lcgm_sensitivity_table", "figure_lcgm"} <= planned_jobs(smoke_run, *SMOKE)
    model = f"{SMOKE_RESULTS}/models/ssl/full_base_cosine_balanced_r1.pt"
    data = bytearray((smoke_run / model).read_bytes())
    data[len(data) // 2] ^= 0x10
    stat = (smoke_run / model).stat()
    (smoke_run / model).write_bytes(bytes(data))
    os.utime(smoke_run / model, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # corruption that keeps the mtime
    verify = run_watched([sys.executable, "-m", "crlrepro.workflow.cli", "verify", *SMOKE], cwd=smoke_run)
    assert verify.returncode == 1, verify.stdout + verify.stderr
    assert f"{model}: its content does not match the SHA-256" in verify.stdout
    assert f"{SMOKE_RESULTS}/models/lcgm_sensitivity/ny0/sep0_D2.pt: missing" in verify.stdout
    # A reader of the damaged model refuses it and says how to rebuild it.
    reader = f"{SMOKE_RESULTS}/supervised_view/runs/full_base_cosine_balanced_r1.csv"
    failed = snakemake(smoke_run, "--cores", "1", *SMOKE, "--forcerun", reader, "--until", "ssl_eval", check=False)
    report = failed.stdout + failed.stderr
    assert failed.returncode != 0 and f"{model}: its content does not match the checksum" in report
    (advice,) = set(re.findall(r"rebuild it and what is computed from it: (snakemake [^\n]+)", report))
    assert advice == f"snakemake --cores all --configfile {SMOKE_RESULTS}/effective_config.yaml --forcerun {model}"
    (smoke_run / model).unlink()  # what the old advice said to do first: the command must work all the same
    words = shlex.split(advice)
    rebuilt = run_watched([sys.executable, "-m", *words], cwd=smoke_run)
    assert rebuilt.returncode == 0, rebuilt.stderr[-3000:]
    after = artifacts(smoke_run)
    assert after == smoke_artifacts, sorted(
        k for k in set(after) | set(smoke_artifacts) if after.get(k) != smoke_artifacts.get(k)
    )
    assert planned_jobs(smoke_run, *SMOKE) == set()
    verify = run_watched([sys.executable, "-m", "crlrepro.workflow.cli", "verify", *SMOKE], cwd=smoke_run)
    assert verify.returncode == 0 and "all verified" in verify.stdout, verify.stdout


def test_parameters_and_code_rerun_exactly_their_rules(smoke_run):
    assert planned_jobs(smoke_run, *SMOKE) == set()

    # A figure's style reruns that figure's rule only (and the captions, checked against the figures); the shared
    # style, every figure and nothing else.
    one = smoke_run / "style_one.yaml"
    one.write_text(yaml.safe_dump({"figures": {"overrides": {"tsybakov": {"font_scale": 1.4}}}}))
    assert planned_jobs(smoke_run, *SMOKE, str(one)) == {"figure_tsybakov", "report_captions"}
    shared = smoke_run / "style_all.yaml"
    shared.write_text(yaml.safe_dump({"figures": {"style": {"dpi": 150}}}))
    assert planned_jobs(smoke_run, *SMOKE, str(shared)) == {
        "figure_gmm_spectrum",
        "figure_gmm_mlp",
        "figure_lcgm",
        "figure_tsybakov",
        "figure_calibration",
        "figure_scaling",
        "figure_budget",
        "figure_ssl",
        "report_captions",
    }

    # A parameter that only the verdict reads reruns the verdict and the summary.
    tolerance = smoke_run / "tolerance.yaml"
    tolerance.write_text(yaml.safe_dump({"consistency": {"oracle": {"standard_errors": 4.0}, "oce": {"tolerance": 1.0e-8}}}))
    assert planned_jobs(smoke_run, *SMOKE, str(tolerance)) == {
        "claims_c1",
        "claims_c5",
        "summary",
        "scales_table",
        "report_captions",
    }
    # A key that only A4's figure and claims read (the tolerance around the paper's μ̂) reruns them, not the 4M-pair
    # Monte Carlo or the exact curve.
    mu_tolerance = smoke_run / "mu_tolerance.yaml"
    mu_tolerance.write_text(yaml.safe_dump({"tsybakov": {"exact": {"tolerance": 0.03}}}))
    assert planned_jobs(smoke_run, *SMOKE, str(mu_tolerance)) == {
        "figure_tsybakov",
        "claims_a4",
        "summary",
        "scales_table",
        "report_captions",
    }
    # A key of the claims' comparability reruns the claims that depend on it, and nothing it does not shape.
    window = smoke_run / "window.yaml"
    window.write_text(yaml.safe_dump({"tsybakov": {"window": [2.0e-4, 1.0e-2]}}))
    # (C2's accelerated exponent uses paper 1's own mixture, rule tsybakov_small_t: not this window)
    assert planned_jobs(smoke_run, *SMOKE, str(window)) == {
        "tsybakov_table",
        "tsybakov_exact",
        "claims_a4",
        "figure_tsybakov",
        "summary",
        "scales_table",
        "report_captions",
    }
    # Evaluation-only keys of a training experiment re-evaluate without retraining (the elbow rule of A3,
    # the exponent fit of C2).
    elbow = smoke_run / "elbow.yaml"
    elbow.write_text(yaml.safe_dump({"lcgm": {"elbow_tolerance": 0.1}}))
    assert planned_jobs(smoke_run, *SMOKE, str(elbow)) == {
        "lcgm_table",
        "lcgm_sensitivity_table",
        "claims_a3",
        "figure_lcgm",
        "summary",
        "scales_table",
        "report_captions",
    }
    floor = smoke_run / "floor.yaml"
    floor.write_text(yaml.safe_dump({"consistency": {"calibration": {"regret_floor": 5.0e-4, "bootstrap": 100}}}))
    assert planned_jobs(smoke_run, *SMOKE, str(floor)) == {
        "calibration_table",
        "claims_c2",
        "figure_calibration",
        "summary",
        "scales_table",
        "report_captions",
    }
    # Paper 3: a probe's setting re-evaluates every run spec without retraining; the metric the claims
    # test reruns the claims only.
    probes = smoke_run / "probes.yaml"
    probes.write_text(yaml.safe_dump({"supervised_view": {"few_label_draws": 3}}))
    assert planned_jobs(smoke_run, *SMOKE, str(probes)) == {
        "ssl_eval",
        "ssl_baselines",
        "ssl_table",
        "claims_ssl",
        "figure_ssl",
        "summary",
        "scales_table",
        "report_captions",
    }
    metric = smoke_run / "metric.yaml"
    metric.write_text(yaml.safe_dump({"supervised_view": {"claim_metric": "few10_top1"}}))
    assert planned_jobs(smoke_run, *SMOKE, str(metric)) == {"claims_ssl", "summary", "scales_table", "report_captions"}
    # C3's fit window re-fits the mechanism's slopes from the same draws.
    fit_from = smoke_run / "fit_from.yaml"
    fit_from.write_text(yaml.safe_dump({"consistency": {"deviation": {"fit_from": 64, "bootstrap": 100}}}))
    assert planned_jobs(smoke_run, *SMOKE, str(fit_from)) == {
        "deviation_table",
        "claims_c3",
        "figure_scaling",
        "summary",
        "scales_table",
        "report_captions",
    }
    # The config validator runs before any job and is no job's input: editing it reruns nothing.
    with edited(smoke_run / "src" / "crlrepro" / "workflow" / "config.py"):
        assert planned_jobs(smoke_run, *SMOKE) == set()

    # The convergence ladder reruns the study and what reads it, not the spectrum or the figure.
    ladder = smoke_run / "ladder.yaml"
    ladder.write_text(yaml.safe_dump({"approximation": {"convergence_nodes": [100, 200, 300]}}))
    assert planned_jobs(smoke_run, *SMOKE, str(ladder)) == {
        "gmm_convergence",
        "claims_a1",
        "summary",
        "scales_table",
        "report_captions",
    }

    # A study's figure module reruns that figure; the shared style module, every figure and nothing else; written back
    # as it was, nothing (a file newer than the outputs but with the content they were made from: Snakemake compares
    # the checksum, not the time).
    with edited(smoke_run / "src" / "crlrepro" / "studies" / "tsybakov" / "figure.py"):
        assert planned_jobs(smoke_run, *SMOKE) == {"figure_tsybakov", "report_captions"}
    with edited(smoke_run / "src" / "crlrepro" / "runtime" / "figures.py"):
        assert planned_jobs(smoke_run, *SMOKE) == {
            "figure_gmm_spectrum",
            "figure_gmm_mlp",
            "figure_lcgm",
            "figure_tsybakov",
            "figure_calibration",
            "figure_scaling",
            "figure_budget",
            "figure_ssl",
            "report_captions",
        }
    assert planned_jobs(smoke_run, *SMOKE) == set()
    # Editing the population oracles reruns every evaluation that uses them, and no training.
    with edited(smoke_run / "src" / "crlrepro" / "theory" / "oracles.py"):
        planned = planned_jobs(smoke_run, *SMOKE)
    assert planned == {
        "gmm_spectrum",
        "gmm_convergence",
        "claims_a1",
        "figure_gmm_spectrum",
        "gmm_mlp_table",
        "gmm_mlp_samples_table",
        "claims_a2",
        "figure_gmm_mlp",
        "lcgm_table",
        "claims_a3",
        "figure_lcgm",
        "oracle_table",
        "claims_c1",
        "summary",
        "scales_table",
        "report_captions",
        "calibration_train",
        "calibration_table",
        "figure_calibration",
        "claims_c2",
        "scaling_train",
        "scaling_table",
        "budget_table",
        "figure_scaling",
        "figure_budget",
        "claims_c3",
        "claims_c4",
        "deviation_train",
        "deviation_table",
        # paper 2's L2 floors, Sec. 3 bound table and A3 sensitivity evaluate through the oracles too
        "l2_minima",
        "approximation_bound",
        "lcgm_sensitivity_table",
        # C2's score families (paper 2's accelerated calibration on paper 1's mixture) and Thm 3.4's adversarial search
        "calibration_families",
        "calibration_search",
        # A2's best rank-D excess (through the oracles' excess risk) and C3's gap rates (from the rerun scaling table)
        "excess_minima",
        "gap_rates",
        # the polynomial-decay corollary's truncations (through the oracles' excess risk)
        "polynomial_spectrum",
    }
    # A budget parameter reruns the budget runs only, not the m and n sweeps of C3.
    budget = smoke_run / "budget.yaml"
    budget.write_text(yaml.safe_dump({"consistency": {"budget": {"total": 4096}}}))
    runs = {path.rsplit("/", 1)[-1] for path in planned_outputs(smoke_run, *SMOKE, str(budget)) if "/consistency/runs/" in path}
    assert runs == {"budget_scrl.csv", "budget_sscrl.csv"}
    assert planned_jobs(smoke_run, *SMOKE, str(budget)) == {
        "scaling_train",
        "budget_table",
        "figure_budget",
        "claims_c4",
        "summary",
        "scales_table",
        "report_captions",
    }
    # An n sweep parameter retrains the n sweeps only (both: the second one, n2, runs the same n at its second m; the
    # budget, which reads a shared point, is re-assembled).
    n_sweep = smoke_run / "n_sweep.yaml"
    n_sweep.write_text(yaml.safe_dump({"consistency": {"scaling": {"n_sweep": {"m": 16, "ns": [128, 512, 1024]}}}}))
    runs = {path.rsplit("/", 1)[-1] for path in planned_outputs(smoke_run, *SMOKE, str(n_sweep)) if "/consistency/runs/" in path}
    assert runs == {"n_scrl.csv", "n_sscrl.csv", "n2_scrl.csv", "n2_sscrl.csv"}
    # One regime's own m retrains that regime's n sweeps only (the marginal-gain design runs at the n sweep's m), and
    # its budget split that the n sweep no longer holds.
    n_sweep.write_text(yaml.safe_dump({"consistency": {"scaling": {"n_sweep": {"m": {"scrl": 16, "sscrl": 32}}}}}))
    runs = {path.rsplit("/", 1)[-1] for path in planned_outputs(smoke_run, *SMOKE, str(n_sweep)) if "/consistency/runs/" in path}
    assert runs == {"n_sscrl.csv", "budget_sscrl.csv", "gain_sscrl.csv"}
    # The marginal-gain design's seeds retrain the design alone; only the marginal-gain rates and what reads them rerun.
    design = smoke_run / "design.yaml"
    design.write_text(
        yaml.safe_dump({"consistency": {"scaling": {"n_sweep": {"gain": {"ns": [128, 256, 512, 1024], "seeds": [5, 7]}}}}})
    )
    runs = {path.rsplit("/", 1)[-1] for path in planned_outputs(smoke_run, *SMOKE, str(design)) if "/consistency/runs/" in path}
    assert runs == {"gain_scrl.csv", "gain_sscrl.csv"}
    assert planned_jobs(smoke_run, *SMOKE, str(design)) == {
        "scaling_train",
        "gap_rates",
        "figure_scaling",
        "claims_c3",
        "summary",
        "scales_table",
        "report_captions",
    }
    # A2's own seeds (approximation.seeds) train more A2 models and no A3 or C2 model.
    a2_seeds = smoke_run / "a2_seeds.yaml"
    a2_seeds.write_text(yaml.safe_dump({"approximation": {"seeds": [0, 1]}}))
    models = {path for path in planned_outputs(smoke_run, *SMOKE, str(a2_seeds)) if "/models/" in path}
    assert models and {path.split("/models/")[1].split("/")[0] for path in models} == {"gmm_mlp", "gmm_mlp_samples"}
    assert any(path.endswith("_seed1.pt") for path in models)
    assert not planned_jobs(smoke_run, *SMOKE, str(a2_seeds)) & {"lcgm_train", "calibration_train", "claims_a3", "claims_c2"}
    # A3's D sweep re-evaluates the sensitivity grid (its centre reads A3's models) but retrains none of it while
    # the centre's reused models stay the same (D = 2, 4, 6 here).
    dims = smoke_run / "dims.yaml"
    dims.write_text(yaml.safe_dump({"lcgm": {"dims": [2, 3, 4, 5, 6, 7]}}))
    planned = planned_jobs(smoke_run, *SMOKE, str(dims))
    assert {"lcgm_train", "lcgm_sensitivity_table"} <= planned and not any(
        job.startswith("lcgm_sensitivity_train") for job in planned
    )
    dims.write_text(yaml.safe_dump({"lcgm": {"dims": [3, 4, 5, 6]}}))  # D = 2 now trained by the centre's row
    assert "lcgm_sensitivity_train_ny1" in planned_jobs(smoke_run, *SMOKE, str(dims))  # the centre's row, a rule of its own
    # Editing the trainer retrains (and re-evaluates), but leaves the quadrature experiments alone.
    with edited(smoke_run / "src" / "crlrepro" / "learning" / "train.py"):
        planned = planned_jobs(smoke_run, *SMOKE)
    assert {"gmm_mlp_train", "lcgm_train"} <= planned
    assert not planned & {
        "gmm_spectrum",
        "gmm_convergence",
        "tsybakov_table",
        "claims_a1",
        "claims_a4",
        "oracle_table",
        "oce_identity",
    }


BAD_CONFIGS = {
    "tau": {"tau": -0.5},
    "gmm.std_x[1]": {"gmm": {"std_x": [1.0, 0.0]}},
    "gmm.weights": {"gmm": {"weights": [0.7, 0.7]}},
    "gmm.weights[0]": {"gmm": {"weights": [-0.5, 1.5]}},
    "gmm.mean_y": {"gmm": {"mean_y": [1.0, 2.0, 3.0]}},
    "approximation.dims[1]": {"approximation": {"dims": [1, 0]}},
    "approximation.dims[0]": {"approximation": {"dims": [1.5]}},
    "lcgm.classes": {"lcgm": {"classes": 1}},
    "lcgm.noise_x": {"lcgm": {"noise_x": -0.1}},
    "seeds": {"seeds": []},
    "figures.style.context": {"figures": {"style": {"context": "huge"}}},
    "figures.overrides.tsybakov.dpi": {"figures": {"overrides": {"tsybakov": {"dpi": 0}}}},
    "figures.overrides": {"figures": {"overrides": {"tsybakoff": {"dpi": 100}}}},
    "device": {"device": "tpu"},
    "temperature": {"temperature": 0.5},
    "gmm.mean_x[0]": {"gmm": {"mean_x": ["one", -1.2]}},
    "consistency.budget.ms[1]": {"consistency": {"budget": {"total": 1024, "ms": [2, 3, 16]}}},
    "consistency.scaling.regimes[0]": {"consistency": {"scaling": {"regimes": ["moco"]}}},
    "consistency.scaling.m_sweep.ms[0]": {"consistency": {"scaling": {"m_sweep": {"ms": [0, 2]}}}},
    "supervised_view.similarities[1]": {"supervised_view": {"similarities": ["cosine", "manhattan"]}},
    "supervised_view.data.root": {"supervised_view": {"data": {"name": "cifar10", "root": "no/such/dir"}}},
    "supervised_view.data.root: no Fashion-MNIST at no/such/dir": {
        "supervised_view": {"data": {"name": "fashion_mnist", "root": "no/such/dir"}}
    },
    "supervised_view.data.train_size: 55 is not a multiple": {"supervised_view": {"data": {"train_size": 55}}},
    "supervised_view.claim_metric: 'few3_top1'": {"supervised_view": {"claim_metric": "few3_top1"}},
    "tau: must be a finite number": {"tau": float("nan")},
    "gmm.mean_x[0]: must be a finite number, got inf": {"gmm": {"mean_x": [float("inf"), -1.2]}},
    "seeds[0]: a seed must be below 2^32": {"seeds": [2**63]},
    "tsybakov.samples: 1000000000000 Monte-Carlo pairs need about": {"tsybakov": {"samples": 10**12}},
    "lcgm.epochs: 1000000000 epochs": {"lcgm": {"epochs": 10**9}},
    "supervised_view.balance.per_class: 200 per class": {"supervised_view": {"balance": {"per_class": 200}}},
    "results: 'results/nl\\n' does not match": {"results": "results/nl\n"},
    # the fault campaign's sizes that died inside their jobs, or had no maximum at all
    "lcgm.spectrum.samples: 1000000 Nyström samples": {"lcgm": {"spectrum": {"samples": 10**6}}},
    "tsybakov.bootstrap: 1000000000 bootstrap replicates": {"tsybakov": {"bootstrap": 10**9}},
    "lcgm.test_samples: 1000000000 held-out pairs": {"lcgm": {"test_samples": 10**9}},
    "supervised_view.bias_views: 100000000 augmentation draws": {"supervised_view": {"bias_views": 10**8}},
}


def _refusal(content: dict) -> str:
    """What a run's checks say of ``content`` over config.yaml, in this process (crlrepro.workflow.preflight.start_refusal, on
    this machine's memory): the message, or '' when it passes."""
    import copy

    from snakemake.utils import update_config

    from crlrepro.workflow.config import read_config_file
    from crlrepro.workflow.preflight import start_refusal

    config = read_config_file(REPO / "config.yaml")
    update_config(config, copy.deepcopy(content))
    return start_refusal(config, REPO)


def _named(key: str, text: str) -> bool:
    """A bad config's key is named: a message line starts with it (a key of several words is a message's own text)."""
    if " " in key:
        return key in text
    return re.search(rf"(^|\n)\s*{re.escape(key)}:", text) is not None or f"'{key}' was unexpected" in text


def _merged(a: dict, b: dict) -> dict | None:
    """``a`` and ``b`` as one config file, or None where they set the same key."""
    out = dict(a)
    for key, value in b.items():
        if key not in out:
            out[key] = value
        elif isinstance(out[key], dict) and isinstance(value, dict) and (inner := _merged(out[key], value)) is not None:
            out[key] = inner
        else:
            return None
    return out


def bad_config_groups(bad: dict) -> list[tuple[list[str], dict]]:
    """The bad configs packed into as few files as keep every message: one is added to a group only where the merged
    file still gives each member's message (a schema error hides the cross-field checks, and any of them the start's
    checks, so each group is one stage). One snakemake run per group then shows every message at that stage."""
    groups: list[tuple[list[str], dict]] = []
    for key, content in bad.items():
        for keys, merged in groups:
            candidate = _merged(merged, content)
            if candidate is not None and all(_named(k, _refusal(candidate)) for k in (*keys, key)):
                keys.append(key)
                merged.clear()
                merged.update(candidate)
                break
        else:
            groups.append(([key], dict(content)))
    return groups


BAD_CONFIG_GROUPS = bad_config_groups(BAD_CONFIGS)


@pytest.mark.parametrize("group", range(len(BAD_CONFIG_GROUPS)))
def test_bad_config_stops_before_any_job(group, tmp_path):
    """Every bad config is refused by snakemake itself before any job, naming its key; configs refused at the same
    stage share one file and one run (bad_config_groups), each of their messages checked."""
    keys, content = BAD_CONFIG_GROUPS[group]
    workdir = copy_repo(tmp_path / "repo")
    (workdir / "bad.yaml").write_text(yaml.safe_dump(content))
    proc = snakemake(workdir, "--cores", "1", "--configfile", "bad.yaml", check=False)
    assert proc.returncode != 0
    assert [key for key in keys if not _named(key, proc.stderr + proc.stdout)] == []
    assert not (workdir / "results").exists()


def test_bad_configs_are_packed_only_where_each_message_survives():
    assert sum(len(keys) for keys, _ in BAD_CONFIG_GROUPS) == len(BAD_CONFIGS)
    assert len(BAD_CONFIG_GROUPS) < len(BAD_CONFIGS) / 4
    for keys, content in BAD_CONFIG_GROUPS:
        message = _refusal(content)
        assert [key for key in keys if not _named(key, message)] == []


def test_a_results_folder_that_links_outside_results_stops_before_any_job(tmp_path):
    workdir = copy_repo(tmp_path / "repo")
    outside = tmp_path / "outside"
    outside.mkdir()
    (workdir / "results").mkdir()
    (workdir / "results" / "away").symlink_to(outside, target_is_directory=True)
    (workdir / "bad.yaml").write_text("results: results/away\n")
    proc = snakemake(workdir, "--cores", "1", "--configfile", "bad.yaml", check=False)
    assert proc.returncode != 0 and "results: 'results/away' leads to" in proc.stdout + proc.stderr
    assert list(outside.iterdir()) == []  # nothing written through the link: no output, sidecar or log


def test_a_duplicate_key_in_a_config_file_stops_before_any_job(tmp_path):
    workdir = copy_repo(tmp_path / "repo")
    (workdir / "bad.yaml").write_text("tau: 0.5\nseeds: [0]\ntau: 0.4\n")
    proc = snakemake(workdir, "--cores", "1", "--configfile", "bad.yaml", check=False)
    assert proc.returncode != 0 and "the key 'tau' is written twice" in proc.stderr + proc.stdout
    assert not (workdir / "results").exists()


def test_device_cuda_without_a_gpu_stops_before_any_job_in_a_dry_run_too(tmp_path):
    workdir = copy_repo(tmp_path / "repo")
    env = {**os.environ, "CUDA_VISIBLE_DEVICES": ""}
    run = [sys.executable, "-m", "snakemake", "--cores", "1", *SMOKE, "--config", "device=cuda"]
    for dry in (["-n"], []):  # what a run refuses, its dry run refuses (issue 44)
        proc = run_watched([*run, *dry], cwd=workdir, env=env)
        assert proc.returncode != 0 and "device: cuda, but no GPU is visible" in proc.stdout + proc.stderr
    assert not (workdir / "results").exists()
    preview = run_watched([*run[:-2], "-n"], cwd=workdir, env=env)
    assert preview.returncode == 0 and "gmm_mlp_train" in preview.stdout  # can fail: device auto previews


def test_the_paper_config_stops_without_cifar10_and_previews_with_it(tmp_path):
    workdir = copy_repo(tmp_path / "repo")
    for dry in (["-n"], []):
        proc = snakemake(workdir, *dry, "--cores", "1", "--configfile", "configs/paper.yaml", check=False)
        assert proc.returncode != 0 and "supervised_view.data.root: no CIFAR-10" in proc.stdout + proc.stderr
    assert not (workdir / "results").exists()
    (workdir / "data" / "cifar-10-batches-py").mkdir(parents=True)  # where the loader looks (the files are read by jobs)
    preview = snakemake(
        workdir, "-n", "--cores", "1", "--configfile", "configs/paper.yaml", "--workflow-profile", "profiles/slurm"
    )  # a cluster plan: this machine's memory is not the jobs'
    assert "ssl_train" in preview.stdout


def test_recovery_after_a_kill_is_unlock_then_rerun_and_a_failed_job_shows_its_log(tmp_path):
    workdir = copy_repo(tmp_path / "repo")
    target = f"{SMOKE_RESULTS}/approximation/tsybakov.csv"
    run = [sys.executable, "-m", "snakemake", "--cores", "1", target, *SMOKE]  # targets before --configfile's files
    proc = subprocess.Popen(run, cwd=workdir, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    log = workdir / SMOKE_RESULTS / "logs" / "tsybakov_table.log"
    deadline = time.time() + 120
    while time.time() < deadline and not log.exists():
        time.sleep(0.1)
    os.killpg(proc.pid, signal.SIGKILL)  # Snakemake and its job, as a crash or an OOM kill would
    proc.wait()
    assert log.exists() and not (workdir / target).exists()
    locked = snakemake(workdir, "--cores", "1", target, *SMOKE, check=False)
    assert locked.returncode != 0 and "cannot be locked" in locked.stdout + locked.stderr
    snakemake(workdir, "--unlock", *SMOKE)
    snakemake(workdir, "--cores", "1", target, *SMOKE)  # the README's two commands
    assert (workdir / target).exists()
    # A job that fails shows its log, with the reason, in Snakemake's own report.
    table = workdir / target
    table.write_text(table.read_text().replace("1", "2", 1))
    failed = snakemake(workdir, "--cores", "1", f"{SMOKE_RESULTS}/claims/A4.csv", *SMOKE, check=False)
    report = failed.stdout + failed.stderr
    assert failed.returncode != 0 and f"{SMOKE_RESULTS}/logs/claims_a4.log" in report
    assert "does not match the checksum" in report
    assert f"snakemake --cores all --configfile {SMOKE_RESULTS}/effective_config.yaml --forcerun {target}" in report


@pytest.mark.parametrize("target", ["all", "paper1", "paper2", "paper3"])
def test_every_file_the_workflow_writes_is_a_target_so_a_deleted_one_is_rebuilt(tmp_path, target):
    """Snakemake leaves a deleted intermediate file (a model, a run table) alone while what was computed from it is
    up to date; only targets are rebuilt. So every output of a paper's jobs is a target of its rule (and of all)."""
    workdir = copy_repo(tmp_path / "repo")
    out = snakemake(workdir, "-n", "--forceall", "--cores", "1", target, *SMOKE).stdout  # targets before --configfile
    jobs, current = [], None
    for line in out.splitlines():
        if line.startswith(("rule ", "localrule ")):
            current = {"rule": line.split()[1].rstrip(":")}
            jobs.append(current)
        elif current is not None and line.strip().startswith(("input:", "output:")):
            key, _, files = line.strip().partition(": ")
            current[key] = set(files.split(", "))
    (top,) = [job for job in jobs if job["rule"] == target]
    written = {path for job in jobs if job is not top for path in job.get("output", ())}
    assert len(written) > 20 and written <= top["input"], sorted(written - top["input"])


def test_a_job_ends_with_the_snakemake_that_started_it(tmp_path):
    """kill -9 of Snakemake alone (not its process group) once left two jobs running that overlapped the rerun."""
    import psutil

    workdir = copy_repo(tmp_path / "repo")
    target = f"{SMOKE_RESULTS}/consistency/tsybakov_small_t.json"  # a job of about a minute, no upstream job
    proc = subprocess.Popen(
        [sys.executable, "-m", "snakemake", "--cores", "1", target, *SMOKE],
        cwd=workdir,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    log = workdir / SMOKE_RESULTS / "logs" / "tsybakov_small_t.log"
    deadline = time.time() + 120
    while time.time() < deadline and not (log.exists() and "rule tsybakov_small_t" in log.read_text()):
        time.sleep(0.1)

    def jobs():
        return [
            p
            for p in psutil.process_iter(["cmdline"])
            if any(str(workdir / ".snakemake" / "scripts") in part for part in p.info["cmdline"] or [])
        ]

    assert jobs(), "the job should be running"
    proc.kill()  # Snakemake only, as the OOM killer or a `kill -9 <pid>` would
    proc.wait()
    deadline = time.time() + 3  # the job ends within a second of its SIGTERM; without it, it runs on for a minute
    while time.time() < deadline and jobs():
        time.sleep(0.2)
    left = jobs()
    for job in left:
        job.kill()
    assert not left, f"jobs outlived Snakemake: {[job.pid for job in left]}"
    assert not (workdir / target).exists()
    assert not list((workdir / SMOKE_RESULTS / "consistency").glob(".*.tmp"))  # nothing half-written left behind
    # (the rerun after --unlock is test_recovery_after_a_kill_is_unlock_then_rerun_and_a_failed_job_shows_its_log)


@pytest.mark.parametrize("moment", ["importing", "training"])
def test_a_training_job_ends_with_its_killed_snakemake_and_writes_no_checkpoint_after(tmp_path, moment):
    """kill -9 of Snakemake alone during a training (issue 70): a job killed while it still imported its modules, before
    it could arm its parent-death signal, ran on with parent 1 to its end, writing its checkpoint every epoch into the
    folder that --unlock gave to a rerun. Killed then or mid-training, the job is gone within a second or so and the
    checkpoint the test watches does not change after the kill (crlrepro.runtime.lifeline)."""
    import psutil

    workdir = copy_repo(tmp_path / "repo")
    # A2 at D=8 on 60 epochs of four times the smoke sample: epochs of about half a second, a training of half a minute.
    (workdir / "slow.yaml").write_text(yaml.safe_dump({"approximation": {"epochs": 60, "train_samples": 40960}}))
    target = f"{SMOKE_RESULTS}/models/gmm_mlp/D8_seed0.pt"
    proc = subprocess.Popen(
        [sys.executable, "-m", "snakemake", "--cores", "1", target, *SMOKE, "slow.yaml"],
        cwd=workdir,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    checkpoints = workdir / SMOKE_RESULTS / "checkpoints" / "gmm_mlp"
    checkpoint = checkpoints / "D8.pt"
    log = workdir / SMOKE_RESULTS / "logs" / "gmm_mlp_train" / "D8.log"

    def jobs():
        return [
            p
            for p in psutil.process_iter(["cmdline"])
            if any(str(workdir / ".snakemake" / "scripts") in part for part in p.info["cmdline"] or [])
        ]

    def watched():
        try:
            return checkpoint.stat().st_mtime_ns, checkpoint.read_bytes()
        except FileNotFoundError:
            return None

    deadline = time.time() + 180
    while time.time() < deadline and not (jobs() if moment == "importing" else checkpoint.exists()):
        time.sleep(0.02)
    assert jobs() and proc.poll() is None, "the training should be running"
    if moment == "importing":  # the job has not reached its ScriptRun yet, which writes its log's first line
        assert not (log.exists() and "rule gmm_mlp_train" in log.read_text())
    else:  # mid-epoch: just after an epoch's checkpoint and its sidecar were written, long before the next one
        first = watched()
        while time.time() < deadline and watched() == first:
            time.sleep(0.01)
        time.sleep(0.1)
    before = watched()
    proc.kill()  # Snakemake only, as the OOM killer or a `kill -9 <pid>` would
    killed = time.time()
    proc.wait()
    while time.time() < killed + 3 and jobs():
        time.sleep(0.05)
    print(f"the job was gone {time.time() - killed:.2f} s after the kill" if not jobs() else "the job outlived the kill")
    time.sleep(max(0.0, killed + 5 - time.time()))  # a few epochs more: a job left running writes its checkpoint
    after = watched()
    left = jobs()
    for job in left:
        job.kill()
    assert not left, f"the training outlived Snakemake by more than 3 s: {[job.pid for job in left]}"
    assert after == before, "the checkpoint was written after Snakemake was killed"
    assert not (workdir / target).exists()
    assert not list(checkpoints.glob(".*.tmp"))  # nothing half-written left behind


def _planned_outputs(workdir, *args) -> list[str]:
    out = snakemake(workdir, "-n", "--cores", "1", *args).stdout
    return [
        path
        for line in out.splitlines()
        if line.strip().startswith("output:")
        for path in line.split(":", 1)[1].strip().split(", ")
    ]


RANGES_TEST = {  # the smoke scale on the paper's 20 epochs and three seeds (two D, a small sample and a short D sweep to
    # keep it quick), one open key ranged over one other value
    "scale": "ranges",
    "train_unreported_ranges": True,
    "approximation": {"seeds": [0, 1, 2], "epochs": 20, "dims": [1, 2], "train_samples": 5120, "convergence_samples": [2560]},
    "lcgm": {"dims": [3, 4, 5]},
    "unreported_ranges": {
        "training.learning_rate": [1.0e-3, 2.0e-3],
        "training.weight_decay": [1.0e-2],
        "approximation.train_samples": [5120],
        "approximation.fresh_pairs": [True],
        "lcgm.train_samples": [20480],
        "lcgm.noise_x": [0.5],
        "lcgm.noise_y": [2.0],
        "lcgm.separation": [3.0],
    },
}


def test_the_declared_ranges_are_trained_and_decide_the_value_rows_when_asked(tmp_path):
    """train_unreported_ranges: A2 and A3 trained again at each point of the declared ranges (here the learning rate at
    2e-3), evaluated as at the configured point, and read by the claims rules: the value rows are decided over the
    points (their reasons count them) instead of "measured at the configured point only"; every range model is a
    target of all, so a deleted one is rebuilt."""
    workdir = copy_repo(tmp_path / "repo with space")
    (workdir / "ranges.yaml").write_text(yaml.safe_dump(RANGES_TEST))
    results = workdir / "results" / "ranges"
    config = [*SMOKE, "ranges.yaml"]
    snakemake(workdir, "--cores", "2", "results/ranges/claims/A2.csv", "results/ranges/claims/A3.csv", *config)
    point = "training.learning_rate=0.002"
    configured = pd.read_csv(results / "approximation" / "gmm_mlp.csv", comment="#")
    ranged = pd.read_csv(results / "approximation" / "ranges" / "gmm_mlp" / f"{point}.csv", comment="#")
    assert sorted(zip(ranged["D"], ranged["seed"], strict=True)) == sorted(zip(configured["D"], configured["seed"], strict=True))
    assert not np.allclose(ranged["excess_risk"], configured["excess_risk"])  # the point trained at its own rate
    lcgm = pd.read_csv(results / "approximation" / "ranges" / "lcgm" / f"{point}.csv", comment="#")
    assert set(lcgm["D"]) == {3, 4, 5} and set(lcgm["seed"]) == {0}  # the D sweep, every seed
    assert json.loads((results / "approximation" / "ranges" / "lcgm" / f"{point}_elbow.json").read_text())["classes"] == 4
    log = (results / "logs" / "gmm_mlp_range_train" / point / "D1.log").read_text()
    assert "'learning_rate': 0.002" in log
    claims = pd.read_csv(results / "claims" / "A2.csv", comment="#").set_index("claim_id")
    reason = claims.loc["A2.excess_risk.D1", "reason"]
    assert "points of the declared ranges" in reason and "configured point only" not in reason
    # every range model is an input of paper2 (and all) itself, so a deleted one is rebuilt
    out = snakemake(workdir, "-n", "--forceall", "--cores", "1", "paper2", *config).stdout
    (top,) = [block for block in out.split("\n\n") if re.search(r"^(local)?rule paper2:", block.strip(), re.M)]
    (inputs,) = [line for line in top.splitlines() if line.strip().startswith("input:")]
    assert f"results/ranges/models/lcgm_ranges/{point}/D4_seed0.pt" in inputs
    assert f"results/ranges/models/gmm_mlp_ranges/{point}/D2_seed2.pt" in inputs


def test_each_scale_writes_only_into_its_own_folder(tmp_path):
    workdir = copy_repo(tmp_path / "repo")
    (workdir / "data" / "cifar-10-batches-py").mkdir(parents=True)  # the paper scale's data, as far as planning looks
    smoke, default, paper = (
        _planned_outputs(workdir, *extra)
        for extra in (SMOKE, (), ("--configfile", "configs/paper.yaml", "--workflow-profile", "profiles/slurm"))
    )
    assert smoke and all(path.startswith("results/smoke/") for path in smoke)
    assert paper and all(path.startswith("results/paper/") for path in paper)
    assert default and not any(path.startswith(("results/smoke/", "results/paper/")) for path in default)
    assert all(path.startswith("results/") for path in default)
    bad = snakemake(workdir, "-n", "--cores", "1", "--config", "results=/tmp/elsewhere", check=False)
    assert bad.returncode != 0 and "results" in bad.stdout + bad.stderr


def _job_resources(output: str, rule: str) -> dict:
    """The resources a dry run lists for the first job of ``rule``."""
    block = output.split(f"rule {rule}:", 1)[1]
    line = next(line for line in block.splitlines() if line.strip().startswith("resources:"))
    return dict(item.split("=", 1) for item in line.split(":", 1)[1].strip().split(", "))


def test_the_default_profile_is_used_and_slurm_keeps_its_resources_with_an_account(tmp_path):
    workdir = copy_repo(tmp_path / "repo")
    local = snakemake(workdir, "-n", "--cores", "1", *SMOKE).stdout
    assert _job_resources(local, "oracle_table")["runtime"] == "30"  # profiles/default, without naming it
    env = {**os.environ, "CRLREPRO_SLURM_ACCOUNT": "lab-acct", "CRLREPRO_SLURM_PARTITION": "short"}
    proc = run_watched(
        [sys.executable, "-m", "snakemake", "-n", "--workflow-profile", "profiles/slurm", *SMOKE], cwd=workdir, env=env
    )
    assert proc.returncode == 0, proc.stderr
    oracle, train = _job_resources(proc.stdout, "oracle_table"), _job_resources(proc.stdout, "gmm_mlp_train")
    assert (oracle["mem_mb"], oracle["runtime"], oracle["slurm_account"], oracle["slurm_partition"]) == (
        "4000",
        "60",
        "lab-acct",
        "short",
    )
    assert (train["mem_mb"], train["runtime"], train["slurm_account"]) == ("8000", "720", "lab-acct")


def test_lint_is_clean(tmp_path):
    workdir = copy_repo(tmp_path / "repo")
    proc = snakemake(workdir, "--lint", check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_report_builds_with_every_figure_and_clean_captions(smoke_run, tmp_path):
    report = tmp_path / "report.html"
    proc = snakemake(smoke_run, "--report", str(report), *SMOKE)
    assert "ERROR" not in proc.stdout + proc.stderr  # e.g. a |x| in a caption is an RST substitution
    html = report.read_text(errors="ignore")
    for figure in FIGURES:
        assert f"{figure}.png" in html, figure
    # Each caption says what this run measured and the verdicts; the summary's gives the provenance.
    captions = smoke_run / SMOKE_RESULTS / "report" / "captions"
    for figure in FIGURES:
        text = (captions / f"{figure}.rst").read_text()
        assert (
            "**This run:**" in text
            and "measured" in text
            and re.search(r"\*\*(reproduced|contradicted|inconclusive|not comparable)\*\*", text)
        ), figure
    assert "**Provenance:** config" in (captions / "summary.rst").read_text()


FIGURES = ("gmm_spectrum", "gmm_mlp", "lcgm", "tsybakov", "calibration", "scaling", "budget", "S1", "S2", "S3", "S4")


@pytest.mark.browser
def test_report_renders_in_headless_chromium(smoke_run, tmp_path):
    """The report opens in Chromium without page errors and shows every figure and the summary."""
    main = require_browser().main
    report = tmp_path / "report.html"
    snakemake(smoke_run, "--report", str(report), *SMOKE)
    assert main([str(report), "--out", str(tmp_path / "shots"), "--expect-figures", str(len(FIGURES))]) == 0
    for figure in FIGURES:
        assert (tmp_path / "shots" / f"{figure}.png.png").stat().st_size > 10_000


# What importing a library module may load: the analysis rules' modules load no torch (its import is ~1 s per job)
# and no scipy.optimize (~0.1-0.2 s; only the OCE identity's minimiser needs it, imported where it is used).
_IMPORT_PROBE = (
    "import importlib, sys; importlib.import_module(sys.argv[1]); print(' '.join(m for m in sys.argv[2:] if m in sys.modules))"
)


@pytest.mark.parametrize(
    "module",
    [
        "crlrepro.theory.tsybakov",
        "crlrepro.theory.spectral",
        "crlrepro.experiments.calibration",
        "crlrepro.theory.oracles",
        "crlrepro.theory.bounds",
        "crlrepro.experiments.generalization",
        "crlrepro.theory.lcgm",
        "crlrepro.claims.verdicts",
    ],
)
def test_analysis_modules_import_neither_torch_nor_an_unused_optimiser(module):
    heavy = ["torch", "scipy.optimize", "sklearn", "matplotlib"]
    if module == "crlrepro.claims.verdicts":
        heavy.remove("scipy.optimize")  # scipy.stats, which the verdicts need, imports it itself
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO / "src"), os.environ.get("PYTHONPATH")]))}
    result = subprocess.run(
        [sys.executable, "-c", _IMPORT_PROBE, module, *heavy], capture_output=True, text=True, check=True, env=env, cwd=REPO
    )
    assert result.stdout.split() == [], f"importing {module} loaded {result.stdout.strip()}"
