"""Faults a reader of the results must never miss (issue 44): every byte a scale writes or publishes is verified, a results
folder belongs to one scale, the advice names the run's recorded config, no non-finite number is written, a dry run
refuses what a run refuses, bad YAML is one line, a checkout path with a space runs.

Each test records the fault class it tried and what happened (:func:`record`); the last test of this module renders
them as the table of docs/recovery.md (between ``<!-- faults -->`` markers) and fails when the page differs
(``CRLREPRO_WRITE_DOCS=1 pytest tests/workflow/test_faults.py`` rewrites it). The table is generated, never typed.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import site
import subprocess
import sys
import time
import venv
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import REPO, SCHEMA, SMOKE, SMOKE_RESULTS, copy_checkout, copy_repo, run_watched, snakemake
from snakemake.utils import update_config

from crlrepro.runtime.artifacts import RECORD_DIGEST, ArtifactError, nonfinite_problems, sidecar_path, verify, write_table
from crlrepro.workflow.config import ConfigError, read_config_file, validate_config
from crlrepro.workflow.preflight import start_refusal

FAULTS: dict[str, tuple[str, str]] = {}  # fault class -> (what was tried, what happened), in the order tried
# every fault test on one worker (pytest-xdist), in file order: the last one writes the table of all of them
pytestmark = pytest.mark.xdist_group("test_faults")


def record(fault: str, tried: str, happened: str) -> None:
    FAULTS[fault] = (tried, " ".join(happened.split()))


def crlrepro(workdir, *args):
    return run_watched([sys.executable, "-m", "crlrepro.workflow.cli", *args], cwd=workdir)


def merged(*overrides: dict) -> dict:
    config = read_config_file(REPO / "config.yaml")
    update_config(config, read_config_file(REPO / "configs" / "smoke.yaml"))
    for override in overrides:
        update_config(config, override)
    return config


def refusal(*overrides: dict) -> str:
    """What a run (and its dry run) refuses the smoke config with ``overrides`` over it with ('' when it starts)."""
    return start_refusal(merged(*overrides), REPO, memory_bytes=24 * 2**30)


# --- 6. config files that are not YAML maps --------------------------------------------------------------------


def _alias_bomb() -> str:
    lines = ['a0: &a0 ["x", "x", "x", "x", "x", "x", "x", "x", "x", "x"]']
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 10)]  # 10^10 items once expanded
    return "\n".join(lines) + "\n"


YAML_CASES = {
    "an alias bomb": (_alias_bomb().encode(), "config files may not use YAML anchors and aliases"),
    "a recursive alias": (b"a: &a [*a]\n", "config files may not use YAML anchors and aliases"),
    "a Latin-1 file": ("tau: 0.5  # caf\xe9\n".encode("latin-1"), "line 1: not UTF-8 text (byte 0xe9 at offset 15)"),
    "an empty file": (b"", "holds no keys"),
}


@pytest.mark.parametrize("case", YAML_CASES)
def test_a_config_file_that_is_not_a_yaml_map_is_one_line_naming_the_file_in_under_a_second(case, tmp_path):
    content, expected = YAML_CASES[case]
    path = tmp_path / "mine.yaml"
    path.write_bytes(content)
    started = time.perf_counter()
    with pytest.raises(ConfigError) as error:
        read_config_file(path)
    elapsed = time.perf_counter() - started
    message = str(error.value)
    assert expected in message and str(path) in message and "\n" not in message and elapsed < 1.0
    proc = crlrepro(REPO, "check-config", str(path))
    assert proc.returncode == 1 and proc.stderr.strip().count("\n") == 0 and expected in proc.stderr
    record(
        f"config file: {case.split(' ', 1)[1]}",
        f"`crlrepro check-config mine.yaml`, mine.yaml being {case}",
        f"refused in one line naming the file ({expected!r}), read in under a second",
    )


def test_the_projects_own_yaml_files_still_read(tmp_path):
    for path in [REPO / "config.yaml", *sorted((REPO / "configs").glob("*.yaml"))]:
        assert read_config_file(path)


# --- 5. dry runs refuse what runs refuse; integers as 2.0; bounds ------------------------------------------------


def test_integers_written_as_floats_are_coerced_and_fractions_refused():
    config = validate_config(
        merged({"approximation": {"epochs": 2.0, "dims": [1.0, 2.0, 4.0, 8.0]}, "seeds": [0.0]}), SCHEMA, check_data=False
    )
    assert config["approximation"]["epochs"] == 2 and isinstance(config["approximation"]["epochs"], int)
    assert all(type(d) is int for d in config["approximation"]["dims"]) and type(config["seeds"][0]) is int
    assert type(config["tau"]) is float  # a number key stays a number
    with pytest.raises(ConfigError, match=r"approximation.epochs: 2.5 is not of type 'integer'"):
        validate_config(merged({"approximation": {"epochs": 2.5}}), SCHEMA, check_data=False)
    record(
        "integer given as 2.0",
        "`approximation.epochs: 2.0`, `seeds: [0.0]` (three trainings crashed with a TypeError)",
        "read as the integers 2 and 0 before any job; 2.5 is refused naming the key",
    )


def test_the_integer_keys_one_pattern_matches_exactly_what_one_of_them_matches():
    """The coercion and the magnitude check match each number's key against all the schema's integer keys at once (one
    alternation): the same answer as each pattern alone, for every key of every shipped config, each with a
    character dropped or added, and for the patterns' own names with ``*`` filled in."""
    from crlrepro.workflow.config import _key_pattern, _matches_any, _schema_key, config_items, integer_keys, read_schema

    patterns = integer_keys(read_schema(SCHEMA))
    assert any("*" in p for p in patterns) and len(patterns) > 20
    keys = {p.replace("*", "name") for p in patterns} | {p.replace("*", "a.b") for p in patterns}
    for config in [REPO / "config.yaml", *sorted((REPO / "configs").glob("*.yaml"))]:
        keys |= {_schema_key(path) for path, _ in config_items(read_config_file(config)) if path}
    keys |= {k[:-1] for k in keys if len(k) > 1} | {k + "s" for k in keys} | {"[]" + k for k in keys}
    decided = {k: any(_key_pattern(p).fullmatch(k) for p in patterns) for k in keys}
    assert sum(decided.values()) > 20 and sum(not v for v in decided.values()) > 20
    assert {k: _matches_any(k, patterns) for k in keys} == decided
    assert not _matches_any("seeds", []) and _matches_any("a.x.b", ["a.*.b", "c"]) and not _matches_any("a.x.y.b", ["a.*.b"])


BOUNDS = {
    "font_scale 1e5": (
        {"figures": {"style": {"font_scale": 1.0e5}}},
        "figures.style.font_scale: 100000.0 is greater than the maximum of 5",
    ),
    "few-label count above the class population": (
        {"supervised_view": {"few_labels": [1, 500]}},
        "supervised_view.few_labels[1]: 500 labelled images per class",
    ),
    "degenerate std (1e-200)": (
        {"consistency": {"gmm": {"std_x": [1.0e-200, 1.0, 1.0, 1.0]}}},
        "consistency.gmm.std_x: its narrowest component (σ = 1e-200) is finer than the node spacing",
    ),
    "std finer than the quadrature": ({"gmm": {"std_y": [0.05, 1.0]}}, "gmm.std_y: its narrowest component (σ = 0.05)"),
    "D past the quadrature's rank (a 300 in a dims list)": (
        {"approximation": {"dims": [1, 2, 4, 300]}},
        "approximation.dims[3]: D = 300 is not below",
    ),
}


@pytest.mark.parametrize("case", BOUNDS)
def test_bounds_are_refused_before_any_job_naming_the_key(case):
    override, expected = BOUNDS[case]
    message = refusal(override)
    assert expected in message, message
    assert refusal() == ""  # can fail: the smoke config itself starts
    record(f"bound: {case}", f"`{json.dumps(override)}`", f"refused before any job: “{expected} …”")


def test_the_approximation_bound_refuses_a_rank_past_its_rule_instead_of_dividing_by_zero():
    from crlrepro.theory.gmm import LatentClassGMM
    from crlrepro.theory.spectral import approximation_bound_table

    gmm = LatentClassGMM([0.5, 0.5], [1.2, -1.2], [1.0, 1.0], [1.2, -1.2], [1.0, 1.0])
    with pytest.raises(ValueError, match=r"D = \[60\] is not below the 50 singular values"):
        approximation_bound_table(gmm, 0.5, [1, 60], 50)  # was a ZeroDivisionError in the job
    assert len(approximation_bound_table(gmm, 0.5, [1, 49], 50)) == 2


def test_a_refusal_names_only_keys_the_user_set():
    message = refusal({"supervised_view": {"bias_views": 100000, "bias_images": 450}})
    assert "supervised_view.bias_views: 100000" in message and "image_size: None" not in message
    record(
        "refusal naming an unset key",
        "`supervised_view.bias_views: 100000` (the refusal named `image_size: None`)",
        "refused naming bias_views and bias_images, which were set; the unset image_size is not named",
    )


def test_a_degenerate_std_is_refused_where_the_computation_would_be_wrong():
    from crlrepro.theory.gmm import LatentClassGMM
    from crlrepro.theory.oracles import mutual_information

    # What the refusal prevents: a component narrower than the node spacing is invisible to the quadrature, so
    # I(X;Y) comes out as that of another mixture (or NaN once σ² underflows); the resolved rule sees it.
    narrow = LatentClassGMM([0.5, 0.5], [1.2, -1.2], [0.05, 1.0], [1.2, -1.2], [1.0, 1.0])
    coarse, fine = (mutual_information(narrow.grid(n)) for n in (100, 2000))
    assert abs(coarse - fine) > 1e-3 * abs(fine)
    assert "gmm.std_x" in refusal({"gmm": {"std_x": [0.05, 1.0]}, "approximation": {"quadrature_nodes": 100}})
    assert (
        refusal({"gmm": {"std_x": [0.05, 1.0]}, "approximation": {"quadrature_nodes": 2000, "convergence_nodes": [1000, 4000]}})
        == ""
    )


def test_a_table_writer_refuses_nan_and_inf_in_a_column_that_does_not_declare_them(tmp_path):
    table = pd.DataFrame({"D": [1, 2], "L_star": [-0.3, np.nan], "ci_low": [np.nan, 0.1]})
    assert nonfinite_problems(table, missing=("ci_*",)) == ["'L_star': 1 NaN or empty value(s) in 2 rows"]
    with pytest.raises(ArtifactError, match="'L_star': 1 NaN"):
        write_table(table, tmp_path / "t.csv", {"rule": "r"}, missing=("ci_*",))
    assert not (tmp_path / "t.csv").exists() and not sidecar_path(tmp_path / "t.csv").exists()
    with pytest.raises(ArtifactError, match="'ci_low': 1 infinite"):
        write_table(table.assign(L_star=[-0.3, -0.2], ci_low=[np.inf, 0.1]), tmp_path / "t.csv", {}, missing=("ci_*",))
    write_table(table.assign(L_star=[-0.3, -0.2]), tmp_path / "t.csv", {}, missing=("ci_*",))  # declared: written
    assert verify(tmp_path / "t.csv")
    record(
        "non-finite number in a table",
        "a NaN in `L_star` (the run with `std_x: [1e-200, …]` exited 0 with verdicts)",
        "the table is not written and the job stops naming the column; NaN is kept only in columns that declare "
        "it (e.g. `ci_low`), ±inf nowhere",
    )


PREFLIGHT = {  # what a run refuses when it starts (crlrepro.workflow.config.preflight_problems), each as a user's file
    "device: cuda without a GPU": ({"device": "cuda"}, "device: cuda, but no GPU is visible"),
    "Fashion-MNIST not on disk": (
        {"supervised_view": {"data": {"name": "fashion_mnist", "root": "nowhere"}}},
        "no Fashion-MNIST at nowhere",
    ),
    "few-label count above the class population": (
        {"supervised_view": {"few_labels": [1, 500]}},
        "supervised_view.few_labels[1]: 500",
    ),
    "a job past this machine's memory": ({"lcgm": {"spectrum": {"samples": 1000000}}}, "lcgm.spectrum.samples"),
    "a results folder linking outside results/": ({"results": "results/away"}, "outside results/"),
}


def test_a_dry_run_refuses_every_config_a_run_refuses(tmp_path):
    import yaml

    workdir = copy_repo(tmp_path / "repo")
    (workdir / "results").mkdir()
    (workdir / "results" / "away").symlink_to(tmp_path, target_is_directory=True)
    env = {**os.environ, "CUDA_VISIBLE_DEVICES": ""}
    for i, (case, (override, expected)) in enumerate(PREFLIGHT.items()):
        (workdir / f"case{i}.yaml").write_text(yaml.safe_dump(override))
        outcomes = []
        for dry in (["-n"], []):
            proc = run_watched(
                [sys.executable, "-m", "snakemake", "--cores", "1", *SMOKE, f"case{i}.yaml", *dry], cwd=workdir, env=env
            )
            outcomes.append(proc.returncode != 0 and expected in proc.stdout + proc.stderr)
        assert outcomes == [True, True], (case, outcomes, proc.stdout[-2000:], proc.stderr[-2000:])
        assert sorted(p.name for p in (workdir / "results").iterdir()) == ["away"]
    assert snakemake(workdir, "-n", "--cores", "1", *SMOKE).returncode == 0  # can fail: the smoke config previews
    record(
        "dry run accepting what the run refuses",
        f"{len(PREFLIGHT)} configs a run refuses when it starts ({'; '.join(PREFLIGHT)}) under `snakemake -n`",
        "each refused by the dry run with the run's own message; nothing written",
    )


def test_the_executor_a_command_line_asks_for_decides_whether_this_machine_sizes_the_jobs(tmp_path):
    from crlrepro.workflow.preflight import requested_executor

    assert requested_executor(["snakemake", "--cores", "all"], REPO, environ={}) == "local"  # profiles/default: none
    assert requested_executor(["snakemake", "--workflow-profile", "profiles/slurm"], REPO, environ={}) == "slurm"
    assert requested_executor(["snakemake", "--executor", "slurm", "-n"], REPO, environ={}) == "slurm"
    assert requested_executor(["snakemake", "-e=cluster-generic"], REPO, environ={}) == "cluster-generic"
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "config.yaml").write_text("executor: slurm\njobs: 10\n")
    assert requested_executor(["snakemake"], REPO, environ={"SNAKEMAKE_PROFILE": str(tmp_path / "mine")}) == "slurm"
    assert requested_executor(["snakemake", "--workflow-profile", "none"], REPO, environ={}) == "local"


# --- 8. small things -----------------------------------------------------------------------------------------------


def test_a_gpu_slot_folder_that_is_a_link_loop_is_a_clear_error(tmp_path):
    from crlrepro.runtime.device import GpuSlots

    loop = tmp_path / "slots"
    loop.symlink_to(loop)
    with pytest.raises(PermissionError, match=r"cannot be made a folder .*\(rm .*slots\)"):
        GpuSlots(["0"], lock_dir=loop).acquire(1)
    record(
        "GPU slot folder that is a link loop",
        "CRLREPRO_GPU_LOCK_DIR pointing at a link to itself",
        "a PermissionError naming the folder and the `rm` that clears it (was a raw OSError)",
    )


def test_data_folder_is_ignored_by_git():
    proc = subprocess.run(["git", "check-ignore", "-q", "data/cifar-10-batches-py/data_batch_1"], cwd=REPO)
    assert proc.returncode == 0


# --- 1. verify checks every byte a reader reads; 2. one scale per folder; 3. the recorded config --------------------


def test_every_sidecar_field_is_covered_by_its_digest(tmp_path):
    write_table(
        pd.DataFrame({"a": [1.0]}),
        tmp_path / "t.csv",
        {"rule": "r", "seed": 0, "config_hash": "c", "git_commit": "g", "packages": {"torch": "2"}, "device": "cpu"},
    )
    sidecar = sidecar_path(tmp_path / "t.csv")
    original = sidecar.read_text()
    for field, value in (
        ("seed", 1),
        ("config_hash", "d"),
        ("git_commit", "h"),
        ("packages", {"torch": "3"}),
        ("device", "cuda"),
    ):
        record_ = json.loads(original)
        record_[field] = value
        sidecar.write_text(json.dumps(record_))
        with pytest.raises(ArtifactError, match="edited since it was written"):
            verify(tmp_path / "t.csv")
    sidecar.write_text(original)
    assert verify(tmp_path / "t.csv")
    assert RECORD_DIGEST in json.loads(original)


def test_verify_reports_a_scale_it_cannot_plan_and_checks_the_others(tmp_path, monkeypatch):
    from crlrepro.workflow import verify as verify_module

    for scale, folder in (("default", tmp_path / "results"), ("paper", tmp_path / "results" / "paper")):
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "effective_config.yaml").write_text(f"scale: {scale}\n")

    def plan(workdir, configfiles):
        if "paper" in configfiles[0]:
            raise RuntimeError("snakemake --summary failed:\ncannot start:\n  device: cuda, but no GPU is visible")
        return 3, []

    monkeypatch.setattr(verify_module, "verify_scale", plan)
    checked, problems = verify_module.verify_everything(tmp_path)
    assert checked == ["scale default: 3 outputs in results/ (config: results/effective_config.yaml)"]
    assert len(problems) == 1 and problems[0].path == "results/paper" and "device: cuda" in problems[0].problem


def _flip(path: Path) -> None:
    """One bit of ``path`` flipped, its modification time kept (so that only a checksum can tell)."""
    times = path.stat()
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x01
    path.write_bytes(bytes(data))
    os.utime(path, ns=(times.st_atime_ns, times.st_mtime_ns))


def _verify(workdir, *args):
    proc = crlrepro(workdir, "verify", *args)
    return proc.returncode, proc.stdout + proc.stderr


def _bad_files(output: str) -> dict[str, str]:
    """Each failed file of a `crlrepro verify` output and its rebuild command."""
    found, lines = {}, output.splitlines()
    for i, line in enumerate(lines[:-1]):
        if lines[i + 1].startswith("    rebuild: "):
            found[line.split(": ", 1)[0]] = lines[i + 1].split("rebuild: ", 1)[1]
    return found


KINDS = {  # a file of every kind a scale writes, each with its own sidecar
    "table (csv)": "approximation/tsybakov.csv",
    "JSON result": "consistency/oracle.json",
    "model (pt)": "models/lcgm/D4_seed0.pt",
    "figure (png)": "figures/tsybakov.png",
    "figure (pdf)": "figures/tsybakov.pdf",
    "summary (md)": "summary.md",
    "summary (html)": "summary.html",
    "report caption (rst)": "report/captions/tsybakov.rst",
}


@pytest.mark.pipeline
def test_verify_checks_every_scale_present_every_file_kind_and_sidecar_field_and_its_advice_works(smoke_run, tmp_path):
    workdir = copy_checkout(smoke_run, tmp_path / "repo", also=("results", ".snakemake", ".git"))
    code, out = _verify(workdir)
    assert code == 0, out
    assert "scale smoke:" in out and "results/smoke/effective_config.yaml" in out and "published scale default" in out
    # one damaged file of every kind at once (one verify run, not one per kind), and files no rule writes (a copied model
    # beside the others, a table in a folder of its own): each named, and nothing else
    kept = {}
    for relative in KINDS.values():
        path = workdir / SMOKE_RESULTS / relative
        kept[path] = (path.read_bytes(), path.stat())
        _flip(path)
    planted = [workdir / SMOKE_RESULTS / "extra_model.pt", workdir / SMOKE_RESULTS / "copied" / "table.csv"]
    shutil.copy(workdir / SMOKE_RESULTS / KINDS["model (pt)"], planted[0])
    planted[1].parent.mkdir()
    shutil.copy(workdir / SMOKE_RESULTS / "summary.csv", planted[1])
    code, out = _verify(workdir)
    extras = [str(path.relative_to(workdir)) for path in planted]
    assert code == 1 and sorted(_bad_files(out)) == sorted([*(f"{SMOKE_RESULTS}/{r}" for r in KINDS.values()), *extras]), out
    assert all(_bad_files(out)[extra] == f"remove it: rm {extra}" for extra in extras), out
    for path in planted:
        path.unlink()
    for path, (original, times) in kept.items():
        path.write_bytes(original)
        os.utime(path, ns=(times.st_atime_ns, times.st_mtime_ns))
    # each sidecar field edited, each in the sidecar of another file kind (one verify run): each file named as edited
    edits = dict(
        zip(
            list(KINDS.values())[:5],
            (("seed", 7), ("config_hash", "0" * 16), ("git_commit", "edited"), ("packages", {"torch": "0"}), ("device", "cuda")),
            strict=True,
        )
    )
    originals = {}
    for relative, (field, value) in edits.items():
        sidecar = sidecar_path(workdir / SMOKE_RESULTS / relative)
        originals[sidecar] = sidecar.read_text()
        sidecar.write_text(json.dumps(json.loads(originals[sidecar]) | {field: value}))
    code, out = _verify(workdir)
    assert code == 1 and sorted(_bad_files(out)) == sorted(f"{SMOKE_RESULTS}/{r}" for r in edits), out
    assert out.count("was edited since it was written") == len(edits), out
    for sidecar, original in originals.items():
        sidecar.write_text(original)
    published = workdir / "docs" / "results" / "smoke" / "summary.md"
    original = published.read_bytes()
    _flip(published)
    code, out = _verify(workdir)
    restore = _bad_files(out)["docs/results/smoke/summary.md"]
    tracked = (workdir / ".git").exists()  # a git checkout restores it from the commit, an archive republishes it
    assert code == 1 and list(_bad_files(out)) == ["docs/results/smoke/summary.md"]
    assert restore == (
        "git checkout -- docs/results/smoke/summary.md"
        if tracked
        else "snakemake publish --cores all --configfile results/smoke/effective_config.yaml"
    ), restore
    restored = run_watched(shlex.split(restore), cwd=workdir)
    assert restored.returncode == 0, restored.stdout[-2000:] + restored.stderr[-2000:]
    assert published.read_bytes() == original if tracked else _verify(workdir)[0] == 0
    # The advice followed literally: a flipped figure rebuilt by the command verify names, then all verified.
    _flip(workdir / SMOKE_RESULTS / "figures" / "tsybakov.png")
    code, out = _verify(workdir)
    command = _bad_files(out)[f"{SMOKE_RESULTS}/figures/tsybakov.png"]
    assert command.startswith("snakemake --cores all --configfile results/smoke/effective_config.yaml --forcerun ")
    proc = run_watched(shlex.split(command), cwd=workdir)
    assert proc.returncode == 0, proc.stderr
    jobs = set(re.findall(r"^(?:local)?rule (\w+):", proc.stdout + proc.stderr, flags=re.M))
    assert jobs - {"all"} == {"figure_tsybakov", "report_captions"}, jobs
    code, out = _verify(workdir)
    assert code == 0, out
    record(
        "edited or damaged result",
        "a flipped byte in a file of each kind a scale writes ("
        + ", ".join(KINDS)
        + "), in a published file, and edits of the sidecar fields seed, config_hash, git_commit, "
        "packages and device",
        "`crlrepro verify` (no flags: every scale present under results/ and docs/results/) "
        "names exactly the damaged file with its rebuild command; the command, followed literally, reruns only the "
        "figure and its caption, and verify passes again",
    )


@pytest.mark.pipeline
def test_a_results_folder_and_a_publication_belong_to_one_scale(smoke_run, tmp_path):
    workdir = copy_checkout(smoke_run, tmp_path / "repo", also=("results", ".snakemake", ".git"))
    published = {p: p.read_bytes() for p in (workdir / "docs" / "results").rglob("*") if p.is_file()}
    # a config that writes the smoke folder under another scale's name
    proc = snakemake(
        workdir, "-n", "publish", "--cores", "1", *SMOKE, "--config", "scale=default", "results=results/smoke", check=False
    )
    assert proc.returncode != 0 and "results/smoke/ holds the results of scale 'smoke'" in proc.stdout + proc.stderr
    proc = snakemake(
        workdir, "publish", "--cores", "1", *SMOKE, "--config", "scale=default", "results=results/smoke", check=False
    )
    assert proc.returncode != 0
    # smoke's parameters published as the default scale (the folder derived from the scale), with the default's
    # publication there and without it (an unpacked archive: it once ran the whole pipeline into results/ and
    # published it as default): the name is bound to the default's parameters, before any job
    for archive in (False, True):
        if archive:
            shutil.rmtree(workdir / "docs" / "results" / "default")
        proc = snakemake(workdir, "publish", "--cores", "1", *SMOKE, "--config", "scale=default", check=False)
        out = proc.stdout + proc.stderr
        assert proc.returncode != 0 and "scale: 'default' names the shipped scale" in out and "approximation.epochs" in out, out
        assert not (workdir / "results" / "effective_config.yaml").exists()  # no job, nothing recorded in results/
    shutil.copytree(smoke_run / "docs" / "results" / "default", workdir / "docs" / "results" / "default")
    assert {p: p.read_bytes() for p in (workdir / "docs" / "results").rglob("*") if p.is_file()} == published
    # can fail: the smoke scale publishes under its own name
    assert snakemake(workdir, "-n", "publish", "--cores", "1", *SMOKE).returncode == 0
    record(
        "results published under another scale's name",
        "`snakemake publish` with smoke results and `scale: default` "
        "(`--config scale=default`, with and without `results=results/smoke`)",
        "refused before any job (a dry run "
        "too), naming the folder's scale and this run's, or the keys in which the config differs from the shipped "
        "scale's (also with no publication of it yet); docs/results/ unchanged",
    )


@pytest.mark.pipeline
def test_two_config_files_are_recorded_and_the_advice_rebuilds_without_rerunning_the_rest(smoke_run, tmp_path):
    workdir = copy_checkout(smoke_run, tmp_path / "repo", also=("results", ".snakemake", ".git"))
    (workdir / "mine.yaml").write_text("consistency:\n  oce:\n    tolerance: 1.0e-8\n")
    proc = snakemake(workdir, "--cores", "2", *SMOKE, "mine.yaml")
    jobs = set(re.findall(r"^(?:local)?rule (\w+):", proc.stdout + proc.stderr, flags=re.M))
    assert "claims_c5" in jobs and not any(j.endswith("_train") for j in jobs), jobs
    recorded = read_config_file(workdir / SMOKE_RESULTS / "effective_config.yaml")
    assert recorded["consistency"]["oce"]["tolerance"] == 1.0e-8 and recorded["scale"] == "smoke"
    # the recorded config alone plans nothing: no flag to remember
    assert (
        "Nothing to be done"
        in snakemake(workdir, "-n", "--cores", "1", "--configfile", f"{SMOKE_RESULTS}/effective_config.yaml").stdout
    )
    code, out = _verify(workdir)
    assert code == 0, out
    # `crlrepro verify --configfile` as Snakemake reads it: one flag, several files; a repeated flag (Snakemake keeps
    # the last) is refused with the one-flag command, which works as printed
    code, out = _verify(workdir, "--configfile", "configs/smoke.yaml", "mine.yaml")
    assert code == 0 and "configs/smoke.yaml + mine.yaml" in out, out
    code, out = _verify(workdir, "--configfile", "configs/smoke.yaml", "--configfile", "mine.yaml")
    assert code == 2 and "--configfile given twice" in out and "--configfile configs/smoke.yaml mine.yaml" in out, out
    record(
        "several --configfile",
        "`--configfile configs/smoke.yaml mine.yaml` (the advice repeated one file: "
        "92 jobs reran, verify checked the wrong scale)",
        "the merged config is recorded in "
        "results/smoke/effective_config.yaml; advice and `crlrepro verify` name it, and it plans nothing more",
    )


def test_a_checkout_path_with_a_space_and_its_virtual_environment_run_script_rules(tmp_path):
    workdir = copy_repo(tmp_path / "My projects" / "crl repro")
    env_dir = workdir / ".venv"
    venv.create(env_dir, system_site_packages=True, with_pip=False)
    python = env_dir / "bin" / "python"
    # The new environment sees this one's packages (Snakemake, torch): where the tests run in a virtual environment
    # themselves (the README's set-up), its base interpreter's site-packages lack them.
    (place,) = (env_dir / "lib").glob("python3*/site-packages")
    (place / "tested_environment.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    target = f"{SMOKE_RESULTS}/consistency/oce_identity.csv"
    proc = run_watched([str(python), "-m", "snakemake", target, "--cores", "1", *SMOKE], cwd=workdir)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert verify(workdir / target)
    record(
        "checkout path with a space",
        "a checkout at `My projects/crl repro` with its virtual environment inside "
        "(every script rule failed: snakemake/snakemake#2645)",
        "jobs run through a wrapper of the interpreter at a path without spaces; a script rule runs and its table verifies",
    )


# --- the generated table ---------------------------------------------------------------------------------------------

EXPECTED_FAULTS = 8 + len(YAML_CASES) + len(BOUNDS)


@pytest.mark.pipeline
def test_a_touch_run_is_not_recorded_as_a_run_of_the_scale_and_a_failed_one_is(smoke_run, tmp_path):
    """`snakemake --touch` marks outputs up to date without computing them: its seconds are no run's, so
    logs/runs.jsonl (the published provenance's wall times) does not record it; a run that computes does, whether it
    ends well or fails (the jobs it completed are kept), with whether it started from clean (here not)."""
    workdir = copy_checkout(smoke_run, tmp_path / "repo", also=("results", ".snakemake", ".git"))
    runs = workdir / SMOKE_RESULTS / "logs" / "runs.jsonl"
    before = runs.read_text()
    snakemake(workdir, "--touch", "--cores", "1", *SMOKE, "--forcerun", "gmm_spectrum")
    assert runs.read_text() == before
    snakemake(workdir, "--cores", "1", *SMOKE, "--forcerun", "gmm_spectrum", "--until", "gmm_spectrum")
    added = runs.read_text()[len(before) :].splitlines()
    assert runs.read_text().startswith(before) and len(added) == 1
    record = json.loads(added[0])
    assert record["jobs"] >= 1 and record["ok"] is True and record["clean"] is False
    # a job that fails (its input no longer matches its checksum): the run is recorded as not ok
    spectrum = workdir / SMOKE_RESULTS / "approximation" / "gmm_spectrum.csv"
    spectrum.write_text(spectrum.read_text() + "\n")
    failed = snakemake(workdir, "--cores", "1", *SMOKE, "--forcerun", "claims_a1", "--until", "claims_a1", check=False)
    assert failed.returncode != 0
    added = runs.read_text().splitlines()[len(before.splitlines()) + 1 :]
    assert len(added) == 1 and json.loads(added[0])["ok"] is False


# Last in the file: pytest-xdist's group runs this file's tests in order on one worker, so every fault test has
# recorded what it found when this one writes the table.
def test_docs_recovery_lists_every_fault_class_tried():
    if len(FAULTS) < EXPECTED_FAULTS:
        pytest.skip(f"only {len(FAULTS)} of {EXPECTED_FAULTS} fault tests ran in this session")
    rows = ["| fault | tried | what happens |", "|---|---|---|"]
    rows += [f"| {fault} | {tried} | {happened} |" for fault, (tried, happened) in FAULTS.items()]
    block = "<!-- faults: generated by tests/workflow/test_faults.py -->\n" + "\n".join(rows) + "\n<!-- /faults -->"
    page = REPO / "docs" / "recovery.md"
    text = page.read_text()
    current = re.search(r"<!-- faults: .*?<!-- /faults -->", text, flags=re.S)
    assert current, "docs/recovery.md has no <!-- faults: ... --> block"
    if current.group(0) != block:
        if os.environ.get("CRLREPRO_WRITE_DOCS") == "1":
            page.write_text(text.replace(current.group(0), block))
        else:
            pytest.fail(
                "docs/recovery.md's fault table differs from what the tests found; regenerate it: "
                "CRLREPRO_WRITE_DOCS=1 pytest tests/workflow/test_faults.py"
            )
