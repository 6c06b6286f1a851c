"""Verify the results on disk: every output the workflow declares is present, up to date, and what its provenance
sidecar says it is; every published file is what its scale's provenance.json recorded.

A reader verifies an artifact when it reads it; this checks all of them at once, on a tree that looks finished,
so that corruption which keeps a file's mtime, or a sidecar edited in any field, is found before anyone reads it:

* the set of outputs comes from Snakemake's own plan (``snakemake --summary``), so a missing file, a file the
  workflow would rewrite (code, parameters or inputs changed) and a file the workflow does not write (an extra
  model beside the ones the config asks for) are each reported;
* every output (tables, JSON results, models, figures, summaries, captions, HTML) must have its sidecar, and the
  sidecar must be consistent with the file (name and SHA-256), with itself (its digest covers every field: seed,
  config_hash, git_commit, packages, device, ...; ``params_hash`` is the hash of ``params``), with the rule Snakemake
  records as its producer, and with the parameters Snakemake recorded when it ran that job
  (``.snakemake/metadata``), which are in turn the rule's parameters under the current config and code (else
  Snakemake's plan reports the file as out of date);
* without config files (:func:`verify_everything`), every scale present is checked: each results folder under
  ``results/`` with the effective config its run recorded (:mod:`crlrepro.workflow.folder`), so that no flag has to
  be remembered, and each publication under ``docs/results/<scale>/`` against its provenance.json (every file's
  SHA-256, the record's own digest, no file beside them).

Each problem names the file and the command that rebuilds it and everything computed from it.
"""

from __future__ import annotations

import ast
import base64
import io
import json
import os
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from crlrepro.runtime.artifacts import RECORD_DIGEST, config_hash, rebuild_command, record_digest, sha256_of, sidecar_path

__all__ = [
    "BY_PRODUCTS",
    "planned_outputs",
    "Problem",
    "published_problems",
    "recorded_params",
    "SIDECAR_FIELDS",
    "sidecar_problems",
    "UNTRACKED",
    "unplanned_files",
    "verify_everything",
    "verify_scale",
]

UNTRACKED = ("logs", "benchmarks", "checkpoints")  # a run's records and resumable training state, not results
# What the README's and CI's commands write beside a scale's results: the report (`snakemake --report
# results/[<scale>/]report.html`), the documentation site's screenshots and the mutation check's report (.ci/run).
BY_PRODUCTS = ("report.html", "site_screenshots", "mutation")
SIDECAR_FIELDS = (
    "artifact",
    "sha256",
    "rule",
    "params",
    "params_hash",
    "config_hash",
    "seed",
    "device",
    "threads",
    "packages",
    "git_commit",
    RECORD_DIGEST,
)


@dataclass(frozen=True)
class Problem:
    path: str
    problem: str
    rebuild: str

    def __str__(self) -> str:
        return f"{self.path}: {self.problem}\n    rebuild: {self.rebuild}"


def planned_outputs(workdir: Path, configfiles: list[str]) -> pd.DataFrame:
    """Snakemake's summary of every output of the workflow under ``configfiles``: output_file, rule, status."""
    command = [
        sys.executable,
        "-m",
        "snakemake",
        "--summary",
        "--cores",
        "1",
        "--quiet",
        "all",
        *(["--configfile", *configfiles] if configfiles else []),  # one flag, several files (a repeated flag: the last)
    ]
    proc = subprocess.run(command, cwd=workdir, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"snakemake --summary failed:\n{proc.stderr.strip() or proc.stdout.strip()}")
    lines = proc.stdout.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith("output_file\t")), None)
    if start is None:
        raise RuntimeError(f"snakemake --summary printed no table:\n{proc.stdout}")
    return pd.read_csv(io.StringIO("\n".join(lines[start:])), sep="\t", dtype=str, keep_default_na=False)


def _canonical(value) -> str:
    return json.dumps(value, sort_keys=True, default=str)


def recorded_params(workdir: Path, output: str) -> list[str] | None:
    """The parameters Snakemake recorded for the job that wrote ``output`` (its metadata), canonical and sorted;
    None where no record can be read (a run from before metadata was kept, or a parameter that is not a literal)."""
    for encode in (base64.b64encode, base64.urlsafe_b64encode):
        record = workdir / ".snakemake" / "metadata" / encode(output.encode()).decode()
        if record.is_file():
            break
    else:
        return None
    try:
        params = json.loads(record.read_text())["params"]
        values = ast.literal_eval(params) if isinstance(params, str) else params
        return sorted(_canonical(ast.literal_eval(v)) for v in values)
    except (OSError, ValueError, SyntaxError, KeyError, TypeError):
        return None


def sidecar_problems(workdir: Path, output: str, rule: str) -> list[str]:
    """What is wrong with the artifact ``output`` against its sidecar (empty when nothing is)."""
    path = workdir / output
    sidecar = sidecar_path(path)
    try:
        record = json.loads(sidecar.read_text())
    except OSError:
        return [f"its provenance sidecar {sidecar_path(output)} is missing"]
    except ValueError:
        return [f"its provenance sidecar {sidecar_path(output)} is not valid JSON"]
    if not isinstance(record, dict) or any(field not in record for field in SIDECAR_FIELDS):
        missing = [f for f in SIDECAR_FIELDS if not isinstance(record, dict) or f not in record]
        return [f"its provenance sidecar lacks {', '.join(missing)}"]
    problems = []
    if record[RECORD_DIGEST] != record_digest(record):
        problems.append(
            f"its sidecar {sidecar_path(output)} was edited since it was written (its fields do not match "
            f"their digest {RECORD_DIGEST})"
        )
    if record["artifact"] != path.name:
        problems.append(f"its sidecar describes {record['artifact']!r}, not this file")
    if record["sha256"] != sha256_of(path):
        problems.append("its content does not match the SHA-256 its sidecar records (corrupted or edited)")
    if record["rule"] != rule:
        problems.append(f"its sidecar names rule {record['rule']!r}, but the workflow writes it with rule {rule!r}")
    if record["params_hash"] != config_hash(record["params"]):
        problems.append("its sidecar's params_hash is not the hash of the params it records (the sidecar was edited)")
    recorded = recorded_params(workdir, output)
    if (
        recorded is not None
        and isinstance(record["params"], dict)
        and sorted(_canonical(v) for v in record["params"].values()) != recorded
    ):
        problems.append("the params its sidecar records are not those Snakemake recorded when it ran the job")
    return problems


def verify_scale(workdir: str | Path = ".", configfiles: list[str] = ()) -> tuple[int, list[Problem]]:
    """Check every output of the workflow under ``configfiles`` (run from ``workdir``): the number of outputs
    checked and the problems found (see the module's description)."""
    workdir = Path(workdir)
    configfiles = list(configfiles)
    plan = planned_outputs(workdir, configfiles)
    problems = []
    outputs = set(plan["output_file"])
    for row in plan.itertuples():
        output, path = row.output_file, workdir / row.output_file
        rebuild = rebuild_command(output, configfiles)  # the same config files as this check
        if not path.exists():
            problems.append(Problem(output, "missing", rebuild))
            continue
        if row.status != "ok":
            problems.append(Problem(output, f"out of date ({row.status}): snakemake would rewrite it", rebuild))
        problems += [Problem(output, problem, rebuild) for problem in sidecar_problems(workdir, output, row.rule)]
    # Files in the scale's folder that the workflow does not write: a model beside the ones the config names, a copied
    # table in a new folder, are as wrong as a missing one (a reader given the folder could pick them up).
    results = _results_folder(plan)
    if results is not None:
        expected = outputs | {str(sidecar_path(o)) for o in outputs}
        problems += [
            Problem(
                relative,
                "not an output of this workflow and config (left by another version or put there by hand)",
                f"remove it: rm {shlex.quote(relative)}",
            )
            for relative in unplanned_files(workdir, results, expected)
        ]
    return len(outputs), problems


def unplanned_files(workdir: Path, results: Path, expected: set[str]) -> list[str]:
    """The files under the scale's folder ``results`` (relative to ``workdir``) that are not in ``expected`` (the plan's
    outputs and their sidecars), as paths relative to ``workdir``. Not listed: the run's own records
    (:data:`UNTRACKED`, the folder's effective config), what the README's and CI's commands put beside results
    (:data:`BY_PRODUCTS`), Snakemake's own files, and another scale's folder inside this one (the default scale's
    results/ holds results/<scale>/: a folder with its own effective config, checked as its own scale)."""
    from crlrepro.workflow.folder import EFFECTIVE_CONFIG

    found = []
    top = workdir / results
    for directory, folders, files in os.walk(top):  # links are listed, not followed
        here = Path(directory)
        if here == top:
            folders[:] = [f for f in folders if f not in UNTRACKED and f not in BY_PRODUCTS]
            files = [f for f in files if f != EFFECTIVE_CONFIG and f not in BY_PRODUCTS]
        folders[:] = sorted(f for f in folders if not (here / f / EFFECTIVE_CONFIG).is_file())
        for name in sorted(files + [f for f in folders if (here / f).is_symlink()]):
            relative = str((here / name).relative_to(workdir))
            if relative not in expected and not name.startswith(".snakemake"):
                found.append(relative)
    return found


def _results_folder(plan: pd.DataFrame) -> Path | None:
    """The scale's results folder: the longest common folder of its outputs."""
    outputs = list(plan["output_file"])
    if not outputs:
        return None
    return Path(os.path.commonpath([str(Path(o).parent) for o in outputs]))


def published_problems(workdir: Path, scale: str, root: str = "docs/results") -> tuple[int, list[Problem]]:
    """Check the publication ``root/<scale>/`` against its provenance.json: the record's own digest, each file's
    SHA-256, and no file in the folder that the record does not list. A published file is tracked by git, so the
    advice restores it from the commit (or republishes from a finished run of the scale)."""
    from crlrepro.workflow.publish import PROVENANCE

    folder = Path(root) / scale
    provenance = folder / PROVENANCE

    def advice(path) -> str:
        """Restore a tracked file from the commit; else (an unpacked archive, a new publication) publish it again from
        this scale's finished run (its recorded config, or its config file)."""
        tracked = subprocess.run(["git", "ls-files", "--error-unmatch", str(path)], cwd=workdir, capture_output=True)
        if tracked.returncode == 0:
            return f"git checkout -- {path}"
        in_git = subprocess.run(["git", "rev-parse", "--git-dir"], cwd=workdir, capture_output=True).returncode == 0
        if not in_git:  # publishing needs committed code (crlrepro.workflow.publish.commit_problems)
            return (
                f"restore {path} from the archive or copy this checkout came from, or publish from a git clone of the "
                "project after running the scale there (publishing refuses results of code that is not committed)"
            )
        from crlrepro.workflow.config import scale_folder

        record = Path(scale_folder(scale)) / "effective_config.yaml"
        config = (
            f" --configfile {record}"
            if (workdir / record).is_file()
            else ""
            if scale == "default"
            else f" --configfile configs/{scale}.yaml"
        )
        return f"snakemake publish --cores all{config}"

    restore = advice(provenance)
    try:
        record = json.loads((workdir / provenance).read_text())
        files = record["files"]
    except (OSError, ValueError, KeyError, TypeError):
        return 0, [Problem(str(provenance), "missing or not a publication record", restore)]
    problems = []
    if record.get(RECORD_DIGEST) != record_digest(record):
        problems.append(
            Problem(
                str(provenance),
                f"edited since it was published (its fields do not match their digest "
                f"{RECORD_DIGEST}), or published by older code",
                restore,
            )
        )
    for relative, checksum in sorted(files.items()):
        path = folder / relative
        if not (workdir / path).is_file():
            problems.append(Problem(str(path), "missing", advice(path)))
        elif sha256_of(workdir / path) != checksum:
            problems.append(
                Problem(
                    str(path),
                    f"its content does not match the SHA-256 {provenance} records (corrupted or edited since it was published)",
                    advice(path),
                )
            )
    for file in sorted((workdir / folder).rglob("*")):
        relative = str(file.relative_to(workdir / folder))
        if (file.is_file() or file.is_symlink()) and relative not in files and relative != PROVENANCE:
            problems.append(
                Problem(
                    str(folder / relative),
                    f"not listed in {provenance} (left by another version or put there by hand)",
                    f"remove it: rm {folder / relative}",
                )
            )
    return len(files), problems


def verify_everything(workdir: str | Path = ".") -> tuple[list[str], list[Problem]]:
    """Every scale present: each results folder under results/ with its recorded effective config, and each
    publication under docs/results/. Returns a line per scale checked (what, where, how many files) and the problems."""
    from crlrepro.workflow.folder import read_effective_config, recorded_scales
    from crlrepro.workflow.publish import published_scales

    workdir = Path(workdir)
    checked, problems = [], []
    for record in recorded_scales(workdir):
        try:
            scale = read_effective_config(workdir / record.parent)["scale"]
        except Exception as error:  # an unreadable record is a problem of this folder, not the end of the check
            problems.append(Problem(str(record), str(error), f"rm {record}  (then run the scale again)"))
            continue
        try:
            count, found = verify_scale(workdir, [str(record)])
        except RuntimeError as error:  # this scale cannot be planned here (e.g. its data or memory): say so, go on
            first = "; ".join(line.strip() for line in str(error).splitlines()[1:] if line.strip()) or str(error)
            problems.append(
                Problem(
                    str(record.parent),
                    f"scale {scale} cannot be planned on this machine, so its outputs were not checked: {first}",
                    f"crlrepro check-config --cluster {record}  (what a run of it would refuse)",
                )
            )
            continue
        checked.append(f"scale {scale}: {count} outputs in {record.parent}/ (config: {record})")
        problems += found
    root = "docs/results"
    for scale in published_scales(workdir / root):
        count, found = published_problems(workdir, scale, root)
        checked.append(f"published scale {scale}: {count} files in {root}/{scale}/")
        problems += found
    return checked, problems
