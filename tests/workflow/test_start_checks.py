"""One config and one set of start checks for `crlrepro check-config` and the run; a scale's name bound to its
parameters when published; published results made by committed code only."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import run_watched

from crlrepro.workflow.config import merged_config, read_config_file
from crlrepro.workflow.folder import SHIPPED_SCALES, record_effective_config, scale_binding_problems, shipped_config
from crlrepro.workflow.preflight import start_refusal

REPO = Path(__file__).resolve().parents[2]

# Each case: config.yaml, then the --configfile files in order, where a merge file by file over config.yaml and
# Snakemake's merge (the command line's files first, then config.yaml under them) give different configs.
MERGE_CASES = {
    "a mapping over a scalar over a mapping": (
        {"a": {"x": 1, "y": 2}, "b": 0},
        [{"a": 5}, {"a": {"x": 3}}],
    ),
    "a mapping over null over a mapping, beside a list": (
        {"a": {"b": {"x": 1}, "k": [1, 2]}},
        [{"a": {"b": None}}, {"a": {"b": {"y": 2}}, "c": [3]}],
    ),
    "nested three deep, lists replaced": (
        {"a": {"b": {"c": 1, "d": [1, 2, 3]}, "e": "t"}},
        [{"a": {"b": 7}}, {"a": {"b": {"d": [9]}}, "f": None}],
    ),
}


@pytest.mark.parametrize("case", sorted(MERGE_CASES))
def test_the_merged_config_is_the_one_snakemake_builds(case, tmp_path):
    """Against Snakemake itself: a Snakefile that records the config it was given."""
    base, files = MERGE_CASES[case]
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(base))
    names = []
    for i, content in enumerate(files):
        (tmp_path / f"f{i}.yaml").write_text(yaml.safe_dump(content))
        names.append(f"f{i}.yaml")
    (tmp_path / "Snakefile").write_text(
        'import json\nconfigfile: "config.yaml"\nopen("seen.json", "w").write(json.dumps(config, sort_keys=True))\n'
        "rule all:\n    output: 'x'\n    shell: 'touch x'\n"
    )
    proc = run_watched([sys.executable, "-m", "snakemake", "-n", "--cores", "1", "--configfile", *names], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    seen = json.loads((tmp_path / "seen.json").read_text())
    assert merged_config(tmp_path, [tmp_path / n for n in names]) == seen
    # can fail: the file-by-file merge over config.yaml that check-config used gives another config
    from snakemake.utils import update_config

    naive = read_config_file(tmp_path / "config.yaml")
    for name in names:
        update_config(naive, read_config_file(tmp_path / name))
    assert naive != seen


def _check_config(workdir: Path, *paths) -> subprocess.CompletedProcess:
    return run_watched([sys.executable, "-m", "crlrepro.workflow.cli", "check-config", *map(str, paths)], cwd=workdir)


def _dry_run(workdir: Path, *configfiles, extra=()) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "snakemake", "-n", "--cores", "1", *extra, "--configfile", *map(str, configfiles)]
    return run_watched(command, cwd=workdir)


@pytest.mark.slow
def test_check_config_accepts_and_refuses_what_the_run_does(tmp_path):
    """The campaign's two disagreements: a per-regime mapping over smoke's one m (Snakemake merges it over
    config.yaml's mapping: valid; a merge over smoke's scalar left one regime out), and `scale: default` over a
    results folder that holds the smoke scale (the run refused it; check-config said valid)."""
    from conftest import copy_repo

    workdir = copy_repo(tmp_path / "repo")
    per_regime = workdir / "per_regime.yaml"
    per_regime.write_text(yaml.safe_dump({"consistency": {"scaling": {"n_sweep": {"m": {"scrl": 16}}}}}))
    for proc in (_check_config(workdir, "configs/smoke.yaml", per_regime), _dry_run(workdir, "configs/smoke.yaml", per_regime)):
        assert proc.returncode == 0, proc.stdout + proc.stderr
    config = merged_config(workdir, [workdir / "configs/smoke.yaml", per_regime])
    assert config["consistency"]["scaling"]["n_sweep"]["m"] == {"scrl": 16, "sscrl": 256}

    smoke = shipped_config("smoke", workdir)
    record_effective_config(smoke, workdir / "results")  # results/ made by the smoke scale
    as_default = workdir / "as_default.yaml"
    as_default.write_text(yaml.safe_dump({"scale": "default"}))
    check, dry = _check_config(workdir, "configs/smoke.yaml", as_default), _dry_run(workdir, "configs/smoke.yaml", as_default)
    for proc in (check, dry):
        assert proc.returncode != 0 and "results/ holds the results of scale 'smoke'" in proc.stdout + proc.stderr
    assert "Traceback" not in check.stderr


def test_every_shipped_scale_is_listed_with_its_config_files():
    scales = {read_config_file(REPO / "config.yaml")["scale"]: ()}
    for path in sorted((REPO / "configs").glob("*.yaml")):
        scales[read_config_file(path)["scale"]] = (f"configs/{path.name}",)
    assert scales == SHIPPED_SCALES


def test_a_shipped_scales_name_is_bound_to_its_parameters():
    smoke = shipped_config("smoke", REPO)
    assert scale_binding_problems(smoke, REPO) == []
    # where files lie, the device and how figures look do not change what the scale computes
    placed = {
        **smoke,
        "device": "cpu",
        "results": "results/elsewhere",
        "figures": {**smoke["figures"], "style": {**smoke["figures"]["style"], "dpi": 300}},
    }
    assert scale_binding_problems(placed, REPO) == []
    # smoke's parameters under the name default, and a parameter changed under the name smoke
    as_default = {**smoke, "scale": "default"}
    (problem,) = scale_binding_problems(as_default, REPO)
    assert "'default'" in problem and "approximation.epochs" in problem and "--config scale=<name>" in problem
    changed = {**smoke, "tau": 0.25}
    (problem,) = scale_binding_problems(changed, REPO)
    assert "'smoke'" in problem and "tau" in problem and "snakemake --cores all --configfile configs/smoke.yaml" in problem
    assert scale_binding_problems({**changed, "scale": "mine"}, REPO) == []  # a name of its own


def test_check_config_warns_of_a_shipped_name_with_other_parameters(tmp_path):
    tweak = tmp_path / "tweak.yaml"
    tweak.write_text(yaml.safe_dump({"tau": 0.25}))
    proc = _check_config(REPO, "configs/smoke.yaml", tweak)
    assert proc.returncode == 0 and "valid" in proc.stdout
    assert "warning: scale: 'smoke'" in proc.stderr and "tau" in proc.stderr and "publish" in proc.stderr
    assert start_refusal(merged_config(REPO, [REPO / "configs/smoke.yaml", tweak]), REPO) == ""


def test_a_publication_of_the_same_scale_from_another_config_and_uncommitted_code_are_both_named(tmp_path):
    """publish_problems lists every reason at once: here a scale of the user's own, published before from another
    config, and a checkout with an uncommitted change."""
    from conftest import git_checkout

    from crlrepro.runtime.artifacts import RECORD_DIGEST, record_digest
    from crlrepro.workflow.folder import publish_problems

    git_checkout(tmp_path)  # code.py committed
    config = {"scale": "mine", "results": "results/mine", "tau": 0.5}
    before = {"scale": "mine", "config": {**config, "tau": 0.25}, "files": {}}
    before[RECORD_DIGEST] = record_digest(before)
    (tmp_path / "docs" / "results" / "mine").mkdir(parents=True)
    (tmp_path / "docs" / "results" / "mine" / "provenance.json").write_text(json.dumps(before))
    (problem,) = publish_problems(config, tmp_path, tmp_path / "docs" / "results")
    assert "holds scale 'mine' published from config hash" in problem and "tau" in problem
    (tmp_path / "code.py").write_text("x = 2\n")
    problems = publish_problems(config, tmp_path, tmp_path / "docs" / "results")
    assert len(problems) == 2 and "uncommitted changes" in problems[0]
