"""Published results: a scale's summary, claims tables and figures, with a provenance file, copied from its results
folder into ``docs/results/<scale>/`` (``snakemake publish``), so that the repository carries what the committed code
computed and the README and the documentation quote numbers from files, never typed by hand.

    docs/results/<scale>/summary.{md,csv}   the claim-by-claim summary
    docs/results/<scale>/claims/<E>.csv     every experiment's claims table
    docs/results/<scale>/figures/<f>.png    every figure
    docs/results/<scale>/provenance.json    scale, commit, config (and its hash), packages, machine, the runs that
                                            built the results folder (wall time each), and the SHA-256 of each file

Every copied file is checked where it is read: a table against its provenance sidecar, the Markdown summary against
the one its verified CSV gives, a figure for the drawn-text record the pipeline's save_figure writes. Readers of the
published files (:func:`read_published`) check them against the SHA-256 in provenance.json.

The README's result blocks (between ``<!-- results:<scale> -->`` and ``<!-- /results -->``) are generated from the
published summary by :func:`readme_block`; ``crlrepro update-readme`` rewrites them, and a test fails when they differ.
"""

from __future__ import annotations

import json
import os
import platform
import re
import shutil
import subprocess
from datetime import UTC
from pathlib import Path

import pandas as pd

from crlrepro.claims.intervals import interval_text
from crlrepro.runtime import artifacts
from crlrepro.runtime.artifacts import (
    ArtifactError,
    atomic_path,
    config_hash,
    git_commit,
    package_versions,
    sha256_of,
    write_text,
)
from crlrepro.studies.registry import PAPERS, ROLES, experiment
from crlrepro.workflow.board import VERDICT_MARKS, board_figure, verdict_board

__all__ = [
    "ROLE_TITLES",
    "BOARD_FILES",
    "board_is_current",
    "published_board",
    "write_board",
    "SCALES_NOT_APPLICABLE",
    "check_scale",
    "comparison_config",
    "commit_problems",
    "machine",
    "PROVENANCE",
    "publish_scale",
    "published_config",
    "PUBLISHED_ROOT",
    "published_scales",
    "read_published",
    "read_published_table",
    "read_runs",
    "folder_is_clean",
    "wall_time_text",
    "readme_block",
    "readme_blocks",
    "record_run",
    "RUNS_LOG",
    "compare_scales",
    "scale_comparison",
    "scale_comparison_html",
    "scale_comparison_markdown",
    "scales_block",
    "measured_text",
    "measured_markers",
]

PUBLISHED_ROOT = Path("docs") / "results"  # also artifacts.NOT_CODE: publishing does not dirty the commit
PROVENANCE = "provenance.json"
RUNS_LOG = "logs/runs.jsonl"
_SCALE = re.compile(r"[a-z][a-z0-9_-]{0,31}")
_BLOCK = re.compile(r"(<!-- results:([a-z][a-z0-9_-]{0,31}) -->\n)(.*?)(<!-- /results -->)", re.S)


def check_scale(scale: str) -> str:
    if not isinstance(scale, str) or not _SCALE.fullmatch(scale):
        raise ValueError(
            f"scale {scale!r} is not a name for docs/results/<scale>/ (lower-case letters, digits, _ and -, "
            "starting with a letter, at most 32)"
        )
    return scale


def _check_source(path: Path, relative: str) -> None:
    """ArtifactError unless the result file can be published: tables match their sidecars, figures are this
    pipeline's PNGs (their drawn-text record)."""
    if relative.endswith(".png"):
        artifacts.read_figure_texts(path)  # verified against its sidecar first
    elif relative.endswith(".csv") or relative == "summary.md":
        artifacts.verify(path)
    else:
        raise ValueError(f"{relative}: not a file kind this step publishes (csv, png, summary.md)")


def _is_ancestor(commit: str, repository: str | Path) -> bool:
    """Whether ``commit`` is HEAD or in its history in the repository at ``repository`` (False for a commit it does not
    know)."""
    proc = subprocess.run(["git", "merge-base", "--is-ancestor", commit, "HEAD"], cwd=repository, capture_output=True, text=True)
    return proc.returncode == 0


def commit_problems(outputs, repository: str | Path = ".") -> list[str]:
    """Why results cannot be published from this checkout: results must name code anyone can check out, so

    * the checkout must be a git repository whose tracked code (outside docs/results/) has no uncommitted change, as
      every output this run still computes records HEAD;
    * every output in ``outputs`` that exists must have been made by a commit in HEAD's history: its sidecar may not
      name no commit (a run outside git), a ``-dirty`` tree (code never committed) or a commit HEAD does not contain
      (another branch, another clone's code).

    Outputs without a sidecar are left to the readers that verify them. Each problem names the files (a few of them)
    and the command that rebuilds them with this checkout's code (``--forcerun`` of the rules that wrote them)."""
    head = git_commit(repository)
    if head is None:
        return [
            "publish: this checkout is not a git repository (or git is missing), so the results could not name the "
            "code that made them; publish from a git clone of the project (git clone <url>), after running the scale there"
        ]
    if head.endswith("-dirty"):
        return [
            f"publish: the checkout has uncommitted changes to tracked files (`git status`), so its results would name "
            f"code nobody can check out ({head}); commit them (git commit -a) or set them aside (git stash), then run "
            "the scale and publish again"
        ]
    by_commit: dict = {}
    for output in outputs:
        sidecar = artifacts.sidecar_path(output)
        if not Path(output).is_file() or not sidecar.is_file():
            continue
        try:
            record = json.loads(sidecar.read_text())
        except (OSError, ValueError):
            continue  # unreadable: verify names it, and the job reading the file refuses it
        if isinstance(record, dict):
            by_commit.setdefault(record.get("git_commit"), []).append((str(output), record.get("rule")))
    problems, rules, files = [], set(), []
    for commit, made in sorted(by_commit.items(), key=lambda item: str(item[0])):
        if commit is None or not isinstance(commit, str):
            why = "name no commit (made outside a git checkout)"
        elif commit.endswith("-dirty"):
            why = f"were made by uncommitted code ({commit})"
        elif not _is_ancestor(commit, repository):
            why = f"were made by commit {commit}, which is not in this checkout's history (HEAD {head})"
        else:
            continue
        shown = ", ".join(path for path, _ in made[:3]) + (f" and {len(made) - 3} more" if len(made) > 3 else "")
        problems.append(f"{len(made)} output(s) {why}: {shown}")
        rules |= {rule for _, rule in made if isinstance(rule, str)}
        files += [path for path, rule in made if not isinstance(rule, str)]
    if not problems:
        return []
    return [
        "publish: results must name code anyone can check out, but "
        + "; ".join(problems)
        + f"; rebuild them with this checkout's code: {artifacts.rebuild_command(sorted(rules) + sorted(files))}"
    ]


def read_runs(path: Path) -> list[dict]:
    """The runs recorded in ``logs/runs.jsonl`` (one JSON object per line: started, finished, wall_s, cores, jobs, local,
    and, from 2026-12-07 on, clean and ok), as data: a line that is not such an object is an error naming the line."""
    if not path.exists():
        return []
    runs = []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip():
            continue
        try:
            run = json.loads(line)
        except ValueError:
            raise ArtifactError(f"{path}:{number}: not a JSON line (delete the file to start the record anew)") from None
        if not (isinstance(run, dict) and isinstance(run.get("wall_s"), (int, float))):
            raise ArtifactError(f"{path}:{number}: not a run record with a wall_s (delete the file to start the record anew)")
        runs.append({k: run.get(k) for k in _RUN_FIELDS if k in run or k not in ("clean", "ok")})
    return runs


_RUN_FIELDS = ("started", "finished", "wall_s", "cores", "jobs", "local", "clean", "ok")
_BENCHMARKS = "benchmarks"


def folder_is_clean(results: str | Path) -> bool:
    """Whether a run starting in ``results`` starts from clean: no job has completed there (every rule writes its
    benchmark file under ``benchmarks/`` when a job succeeds: tests/workflow/test_rule_conventions.py) and no
    training has left a checkpoint to resume from. A run on a folder that earlier runs (recorded or killed) half
    filled is not timed as a run from clean."""
    results = Path(results)
    return not any(path.is_file() for folder in (_BENCHMARKS, "checkpoints") for path in (results / folder).rglob("*"))


def record_run(
    path: str | Path, started: float, finished: float, *, cores, jobs: int, local: bool, clean: bool, ok: bool = True
) -> None:
    """Append one run's record to ``path`` (logs/runs.jsonl): UTC start and end, wall seconds, cores, jobs planned,
    whether it started from clean (:func:`folder_is_clean`) and whether it ended well (``ok`` false: it failed or was
    interrupted; the jobs it completed are kept, so its time is part of the scale's)."""
    from datetime import datetime

    def stamp(t):
        return datetime.fromtimestamp(t, UTC).isoformat(timespec="seconds")

    record = {
        "started": stamp(started),
        "finished": stamp(finished),
        "wall_s": round(finished - started, 1),
        "cores": cores,
        "jobs": int(jobs),
        "local": bool(local),
        "clean": bool(clean),
        "ok": bool(ok),
    }
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as handle:
        handle.write(json.dumps(record, sort_keys=True) + "\n")


def machine() -> dict:
    cpu = None
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        import torch

        from crlrepro.learning.train import native_bfloat16

        gpu = torch.cuda.get_device_name(0) if torch.cuda.is_available() else None
        # the vector instructions torch's CPU kernels use (AVX2, AVX512, ...): float32 results round differently
        # across them, and whether bfloat16 is native decides what precision: auto trains in
        capability, bfloat16 = torch.backends.cpu.get_cpu_capability(), native_bfloat16("cpu")
    except ImportError:
        gpu = capability = bfloat16 = None
    return {
        "system": platform.system(),
        "machine": platform.machine(),
        "cpu": cpu or platform.processor() or None,
        "cpu_capability": capability,
        "cpu_bfloat16": bfloat16,
        "cpu_count": os.cpu_count(),
        "gpu": gpu,
    }


def publish_scale(
    results: str | Path, destination: str | Path, files: list[str], *, scale: str, config: dict, repository: str | Path = "."
) -> dict:
    """Copy ``files`` (paths relative to ``results``) into ``destination`` after checking each (_check_source; the
    Markdown summary must be the one summary_markdown gives for the verified summary.csv), each atomically, then
    write provenance.json last. Files the previous provenance.json listed that are no longer published are removed
    (nothing else in ``destination`` is touched). Returns the provenance."""
    check_scale(scale)
    results, destination = Path(results), Path(destination)
    files = list(dict.fromkeys(files))
    for relative in files:
        if Path(relative).is_absolute() or ".." in Path(relative).parts:
            raise ValueError(f"{relative}: published files are named relative to the results folder")
        source = results / relative
        if not source.is_file():
            raise ArtifactError(f"{source}: missing; run `snakemake --cores all` for this scale first")
        _check_source(source, relative)
    problems = commit_problems([results / relative for relative in files], repository)
    if problems:
        raise ArtifactError("; ".join(problems))
    if "summary.md" in files:
        if "summary.csv" not in files:
            raise ValueError("summary.md is published with the summary.csv it is checked against")
        from crlrepro.studies.summary import summary_context, summary_markdown  # here: the Snakefile imports this module

        written = (results / "summary.md").read_text()
        context = summary_context(written)  # its scale and commit are this publication's; the machine is where it ran
        commit = artifacts.sidecar_record(results / "summary.md").get("git_commit")
        if context is None or context["scale"] != scale or context["commit"] != commit:
            raise ArtifactError(
                f"{results / 'summary.md'}: does not open with scale {scale!r} and its sidecar's commit {commit} "
                f"(written by older code, or for another scale); rebuild it: {artifacts.rebuild_command(results / 'summary.md')}"
            )
        expected = summary_markdown(artifacts.read_table(results / "summary.csv"), context)
        if written != expected:
            raise ArtifactError(
                f"{results / 'summary.md'}: does not match its summary.csv (edited, or written by older "
                f"code); rebuild it: {artifacts.rebuild_command(results / 'summary.md')}"
            )
    old = destination / PROVENANCE
    previous = []
    if old.is_file():
        try:
            previous = list(json.loads(old.read_text()).get("files", {}))
        except (ValueError, AttributeError):
            previous = []
    checksums = {}
    for relative in files:
        target = destination / relative
        with atomic_path(target) as tmp:
            shutil.copyfile(results / relative, tmp)
        checksums[relative] = sha256_of(target)
    for relative in previous:
        if relative not in checksums and not Path(relative).is_absolute() and ".." not in Path(relative).parts:
            (destination / relative).unlink(missing_ok=True)
    record = {
        "scale": scale,
        "results": str(results),
        "git_commit": git_commit(repository),
        "config_hash": config_hash(config),
        "config": config,
        "packages": package_versions(),
        "machine": machine(),
        "runs": read_runs(results / RUNS_LOG),
        "files": checksums,
    }
    record[artifacts.RECORD_DIGEST] = artifacts.record_digest(record)  # an edit of any field is found (crlrepro verify)
    artifacts.write_json(record, old)
    return record


def published_scales(root: str | Path = PUBLISHED_ROOT) -> list[str]:
    """The scales with a provenance.json under ``root``, sorted."""
    root = Path(root)
    return sorted(p.parent.name for p in root.glob(f"*/{PROVENANCE}")) if root.is_dir() else []


def read_published(scale: str, relative: str, root: str | Path = PUBLISHED_ROOT) -> Path:
    """The path of a published file after checking it against the SHA-256 its scale's provenance.json records."""
    folder = Path(root) / check_scale(scale)
    try:
        recorded = json.loads((folder / PROVENANCE).read_text())["files"][relative]
    except (OSError, ValueError, KeyError, TypeError):
        raise ArtifactError(
            f"{folder / relative}: not recorded in {folder / PROVENANCE}; publish the scale again: "
            f"snakemake publish --cores 1 (with that scale's --configfile)"
        ) from None
    path = folder / relative
    if not path.is_file() or sha256_of(path) != recorded:
        raise ArtifactError(
            f"{path}: missing or changed since it was published; publish the scale again: "
            f"snakemake publish --cores 1 (with that scale's --configfile)"
        )
    return path


def _provenance_field(scale: str, field: str, root: str | Path = PUBLISHED_ROOT):
    """One field of a published scale's provenance.json; ArtifactError when the record or the field is missing."""
    path = Path(root) / check_scale(scale) / PROVENANCE
    try:
        return json.loads(path.read_text())[field]
    except (OSError, ValueError, KeyError, TypeError):
        raise ArtifactError(
            f"{path}: missing or not a provenance record; publish the scale again: "
            f"snakemake publish --cores 1 (with that scale's --configfile)"
        ) from None


def published_config(scale: str, root: str | Path = PUBLISHED_ROOT) -> dict:
    """The config a published scale was run with (its provenance.json)."""
    return _provenance_field(scale, "config", root)


def read_published_table(scale: str, relative: str, root: str | Path = PUBLISHED_ROOT) -> pd.DataFrame:
    """A published CSV, checked against its scale's provenance.json first (:func:`read_published`)."""
    return pd.read_csv(read_published(scale, relative, root))


def readme_block(summary: pd.DataFrame, scale: str) -> str:
    """The README's block for one published scale: its headline (claims only), then per paper (1, 2, 3) its claims,
    how many are decided, each verdict's count without the fragile ones (symbol and word,
    crlrepro.workflow.board.VERDICT_MARKS; verified and failed only where some claim has them) and why the undecided
    ones are not (summary.decided_table, fragile ones among them), in columns narrow enough for the documentation
    site."""
    from crlrepro.studies.summary import UNDECIDED, VERDICTS, claims_only, decided_table, fragile_rows, verdict_counts

    claims = claims_only(summary)
    shown = [v for v in VERDICTS if v not in ("verified", "failed") or (claims["verdict"] == v).any()]
    lines = [
        f"At the **{scale}** scale (`docs/results/{scale}/summary.csv`): {verdict_counts(claims)}.",
        "",
        "| paper | claims | decided | " + " | ".join(f"{VERDICT_MARKS[v][0]} {v}" for v in shown) + " | not decided, because |",
        "|---|---|---|" + "---|" * (len(shown) + 1),
    ]
    decided = decided_table(summary).set_index("paper")
    for paper in sorted(decided.index):
        mine = claims[claims["experiment"].map(lambda e: experiment(e).paper) == paper]
        counts = mine.loc[~fragile_rows(mine), "verdict"].value_counts()  # a fragile verdict is not in its column
        row = decided.loc[paper]
        why = "; ".join(f"{int(row[name])} {name}" for name in UNDECIDED if int(row[name])) or "—"
        lines.append(
            f"| {paper}: {PAPERS[paper].title} | {row['claims']} | {row['decided']} | "
            + " | ".join(str(int(counts.get(v, 0))) for v in shown)
            + f" | {why} |"
        )
    lines += [
        "",
        "Decided: reproduced, contradicted, verified or failed, and not fragile (docs/claims.md). The others: "
        + "; ".join(f"*{name}*: {meaning}" for name, meaning in UNDECIDED.items())
        + ".",
    ]
    return "\n".join(lines) + "\n"


_WALL_TIME = re.compile(r"(<!-- walltime:([a-z][a-z0-9_-]{0,31}) -->)(.*?)(<!-- /walltime -->)", re.S)


def wall_time_text(scale: str, root: str | Path = PUBLISHED_ROOT) -> str:
    """How long the published run of ``scale`` took, from its provenance.json's recorded runs: from the last run that
    started from clean (``clean``) to the first that ended well, the interrupted ones included (their completed jobs
    were kept), and the runs recorded after it where they add a minute or more (work added since, e.g. new rules'
    jobs), e.g. ``16 min on 2 cores from clean``, ``99 min on 2 cores from clean (3 runs: interrupted, resumed),
    then 13 min in 2 incremental runs``. Where no recorded run started from clean, it says so and gives the recorded
    time. Records from before ``clean`` was recorded, where no later one started from clean: the one with the most
    jobs is taken as the run from clean (the rule before), and every run after it as incremental."""
    runs = _provenance_field(scale, "runs", root)
    if not runs or not isinstance(runs, list):
        raise ArtifactError(f"{Path(root) / scale / PROVENANCE}: no recorded runs to time the scale by; publish the scale again")

    def shown(seconds):
        minutes = seconds / 60
        return f"{minutes:.0f} min" if minutes >= 10 else f"{minutes:.1f} min"

    def on(cores):
        if not isinstance(cores, int):
            raise TypeError(cores)
        return f"on {cores} core{'' if cores == 1 else 's'}"

    def plural(n, word):
        return f"{n} {word}{'' if n == 1 else 's'}"

    try:
        legacy = [i for i, run in enumerate(runs) if "clean" not in run]  # recorded before `clean` was
        starts = [i for i, run in enumerate(runs) if run.get("clean")]
        if starts:
            first = starts[-1]
            last = next((i for i in range(first, len(runs)) if runs[i].get("ok", True)), None)
            if last is None:
                spent = sum(run["wall_s"] for run in runs[first:])
                return f"not finished from clean: {shown(spent)} {on(runs[first]['cores'])} so far"
            campaign = runs[first : last + 1]
            text = f"{shown(sum(run['wall_s'] for run in campaign))} {on(runs[first]['cores'])} from clean"
            if len(campaign) > 1:
                text += f" ({len(campaign)} runs: interrupted, resumed)"
            later = runs[last + 1 :]
        elif legacy:  # the old rule, on the old records: the one with the most jobs ran from clean
            clean = max((runs[i] for i in legacy), key=lambda run: run["jobs"])
            text = f"{shown(clean['wall_s'])} {on(clean['cores'])} from clean"
            later = runs[runs.index(clean) + 1 :]
        else:
            done, cores = [run for run in runs if run.get("ok", True)], max(run["cores"] for run in runs)
            return (
                f"no run from clean recorded: {shown(sum(run['wall_s'] for run in runs))} {on(cores)} in "
                f"{plural(len(runs), 'recorded run')} of {sum(run['jobs'] for run in done)} jobs, resuming unrecorded work"
            )
        added = sum(run["wall_s"] for run in later)
    except (KeyError, TypeError):
        raise ArtifactError(
            f"{Path(root) / scale / PROVENANCE}: its recorded runs lack a wall time, jobs or cores; publish the scale again"
        ) from None
    if added >= 60:
        text += f", then {shown(added)} in {plural(len(later), 'incremental run')}"
    return text


def readme_blocks(readme: str, root: str | Path = PUBLISHED_ROOT) -> tuple[str, list[str]]:
    """``readme`` with every results block regenerated from the published summaries, and every wall-time marker
    (``<!-- walltime:<scale> -->…<!-- /walltime -->``) from the published provenance, and the scales whose block
    changed."""
    changed = []

    def fill_time(match):
        text = wall_time_text(match.group(2), root)
        if text != match.group(3):
            changed.append(f"{match.group(2)} (wall time)")
        return match.group(1) + text + match.group(4)

    readme = _WALL_TIME.sub(fill_time, readme)

    def fill(match):
        scale = match.group(2)
        block = readme_block(read_published_table(scale, "summary.csv", root), scale)
        if block != match.group(3):
            changed.append(scale)
        return match.group(1) + block + match.group(4)

    return _BLOCK.sub(fill, readme), changed


_MEASURED = re.compile(r"<!-- measured:([A-Za-z0-9_.\-]+)(?:@([a-z0-9_,\-]+))? -->")


def measured_text(claim_id: str, scales: list[str] | None = None, root: str | Path = PUBLISHED_ROOT) -> str:
    """A row's published result at each of ``scales`` (default: every published one) as prose: the measured value,
    its interval where it has one (not where it is a single point), and the verdict, e.g. ``0.0334 [0.0268, 0.0409] at
    recipe (contradicted)``; each summary checked against its provenance first. ValueError when no such scale is
    published or a scale lacks the row."""
    scales = published_scales(root) if scales is None else [check_scale(s) for s in scales]
    if not scales:
        raise ValueError(f"{claim_id}: no published scale under {root}")
    parts = []
    for scale in scales:
        if scale not in published_scales(root):
            raise ValueError(f"{claim_id}: the scale {scale!r} is not published under {root}")
        rows = read_published_table(scale, "summary.csv", root).set_index("claim_id")
        if claim_id not in rows.index:
            raise ValueError(f"{claim_id}: no such row in docs/results/{scale}/summary.csv")
        row = rows.loc[claim_id]
        value = "no value" if pd.isna(row["measured"]) else f"{float(row['measured']):.4g}"
        interval = "" if row["ci_low"] == row["ci_high"] else interval_text(row["ci_low"], row["ci_high"], row["power"])
        parts.append(f"{value}{' ' + interval if interval else ''} at {scale} ({row['verdict']})")
    return "; ".join(parts)


def measured_markers(text: str, root: str | Path = PUBLISHED_ROOT) -> str:
    """``text`` with every ``<!-- measured:ROW -->`` or ``<!-- measured:ROW@scale,scale -->`` replaced by
    :func:`measured_text` (the docs' hook renders the pages with it, so a number quoted there is a published one)."""
    return _MEASURED.sub(lambda m: measured_text(m.group(1), m.group(2).split(",") if m.group(2) else None, root), text)


# -- scales side by side -------------------------------------------------------------------------------------------

_SCALES_BLOCK = re.compile(r"(<!-- scales -->\n)(.*?)(<!-- /scales -->)", re.S)
_MISSING = object()


def _config_value(config: dict, dotted: str):
    value = config
    for part in dotted.split("."):
        if not isinstance(value, dict) or part not in value:
            return _MISSING
        value = value[part]
    return value


def _keys_named(config: dict, name: str, prefix: str = "") -> list[str]:
    """Dotted paths of every key called ``name`` in a nested config."""
    found = []
    for key, value in config.items():
        path = f"{prefix}.{key}" if prefix else key
        if key == name:
            found.append(path)
        elif isinstance(value, dict):
            found += _keys_named(value, name, path)
    return found


def _short(value, width: int = 48) -> str:
    text = "absent" if value is _MISSING else json.dumps(value, sort_keys=True, ensure_ascii=False)
    return text if len(text) <= width else text[: width - 1] + "…"


def scale_comparison(scales: list[str] | None = None, root: str | Path = PUBLISHED_ROOT) -> pd.DataFrame:
    """Every row of the published summaries at each scale side by side (:func:`compare_scales`), each published file
    checked against its provenance first (:func:`read_published`), each scale's config read from its provenance.json."""
    scales = published_scales(root) if scales is None else [check_scale(s) for s in scales]
    if not scales:
        raise ValueError(f"no published scale under {root}: run `snakemake publish --cores 1` for a finished scale first")
    return compare_scales(
        {s: read_published_table(s, "summary.csv", root) for s in scales}, {s: published_config(s, root) for s in scales}
    )


# A scale where a claim row is absent, or has no value or interval, leaves its cells empty.
SCALES_NOT_APPLICABLE = ("verdict (*)", "measured (*)", "interval (*)", "what differs")


def compare_scales(summaries: dict[str, pd.DataFrame], configs: dict[str, dict]) -> pd.DataFrame:
    """Every row of the summaries of several scales side by side (``summaries`` and ``configs`` keyed by scale, in
    column order): its verdict, measured value and interval per scale, whether the verdicts agree, and, where they
    differ, which of the config keys the row depends on (its registry spec's ``depends_on`` and ``unreported``)
    differ between the scales."""
    from crlrepro.studies.summary import claim_spec

    scales = [check_scale(s) for s in summaries]
    if not scales or set(configs) != set(scales):
        raise ValueError(
            f"compare_scales needs one config per summary, got summaries of {scales} and configs of {sorted(configs)}"
        )
    tables = {s: summaries[s].set_index("claim_id") for s in scales}
    order = list(dict.fromkeys(c for s in scales for c in tables[s].index))
    rows = []
    for claim_id in order:
        present = [s for s in scales if claim_id in tables[s].index]
        first = tables[present[0]].loc[claim_id]
        row = {"experiment": first["experiment"], "claim_id": claim_id, "claim": first["claim"], "role": first["role"]}
        for s in scales:
            r = tables[s].loc[claim_id] if s in present else None
            row[f"verdict ({s})"] = "" if r is None else r["verdict"]
            row[f"measured ({s})"] = "" if r is None or pd.isna(r["measured"]) else f"{float(r['measured']):.4g}"
            row[f"interval ({s})"] = "" if r is None else interval_text(r["ci_low"], r["ci_high"], r["power"])
        verdicts = {tables[s].loc[claim_id, "verdict"] for s in present}
        row["agree"] = len(present) == len(scales) and len(verdicts) == 1
        if row["agree"]:
            row["what differs"] = ""
        else:
            spec = claim_spec(first["experiment"], claim_id)
            keys = list(dict.fromkeys((*spec.depends_on, *spec.unreported)))
            differing = [k for k in keys if len({_short(_config_value(configs[s], k), 10_000) for s in scales}) > 1]
            missing = [s for s in scales if s not in present]
            parts = [f"not in the {', '.join(missing)} summary"] if missing else []
            if differing:
                parts.append(
                    "; ".join(
                        f"{k}: " + " vs ".join(f"{_short(_config_value(configs[s], k))} ({s})" for s in scales) for k in differing
                    )
                )
            else:
                parts.append(f"the keys it depends on ({', '.join(keys)}) are equal" if keys else "it names no config key")
                # what usually decides power: the seeds its experiment trains (the registry names the key), and
                # whether an interval exists at all
                key = experiment(first["experiment"]).seeds
                seeds = [key] if key and len({_short(_config_value(configs[s], key), 10_000) for s in scales}) > 1 else []
                if seeds:
                    parts.append(
                        "; ".join(
                            f"{k}: " + " vs ".join(f"{_short(_config_value(configs[s], k))} ({s})" for s in scales) for k in seeds
                        )
                    )
                no_interval = [s for s in present if not row[f"interval ({s})"]]
                if no_interval and len(no_interval) < len(present):
                    parts.append(f"no interval at {', '.join(no_interval)}")
                parts.append("other settings (sample sizes, training length) or noise")
            row["what differs"] = "; ".join(parts)
        rows.append(row)
    return pd.DataFrame(rows)


ROLE_TITLES = {
    "claim": "Claims",
    "out of reach": "Out of reach here",
    "mathematics": "Mathematics checked",
    "diagnostic": "Diagnostics",
}


def _comparison_columns(scales: list[str]) -> list[str]:
    return ["claim_id", *(c for s in scales for c in (f"verdict ({s})", f"measured ({s})", f"interval ({s})")), "what differs"]


def _scale_cell(values: dict, scale: str) -> str:
    """One scale's verdict (symbol and word), measured value and interval, in one cell."""
    verdict = values[f"verdict ({scale})"]
    if not verdict:
        return "—"
    text = f"{VERDICT_MARKS[verdict][0]} {verdict}"
    number = " ".join(v for v in (values[f"measured ({scale})"], values[f"interval ({scale})"]) if v)
    return f"{text}<br>{number}" if number else text


def _posed_counts(part: pd.DataFrame, scales: list[str]) -> str:
    """Why the rows counted here may outnumber each scale's own count: a sentence naming each scale's rows, where they
    differ (a claim posed per point of a sweep is posed at the points that scale trains)."""
    posed = {s: int(part[f"verdict ({s})"].fillna("").astype(str).ne("").sum()) for s in scales}
    if all(n == len(part) for n in posed.values()):
        return ""
    each = ", ".join(f"{s} {n}" for s, n in posed.items())
    return (
        f" These {len(part)} rows are every row any scale poses ({each}): a claim posed once per point of a sweep (an m, a"
        " γ, a pair of variants) is posed at the points each scale's config trains; — marks a row a scale does not pose."
    )


def scale_comparison_markdown(table: pd.DataFrame, scales: list[str]) -> str:
    """The comparison as Markdown: a count of agreeing claims and diagnostics, then one table per role, a column per
    scale holding its verdict (symbol and word), measured value and interval, then what differs."""
    out = []
    for role in ROLES:
        part = table[table["role"] == role]
        if role != "claim" and not len(part):
            continue
        out.append(
            f"**{ROLE_TITLES[role]}**: the verdicts agree at {', '.join(scales)} for {int(part['agree'].sum())} of {len(part)}."
            + _posed_counts(part, scales)
        )
        out.append("")
        out.append("| claim_id | " + " | ".join(scales) + " | what differs |")
        out.append("|" + "---|" * (len(scales) + 2))
        for r in part.itertuples(index=False):
            values = dict(zip(part.columns, r, strict=True))
            cells = [values["claim_id"], *(_scale_cell(values, s) for s in scales), values["what differs"]]
            out.append("| " + " | ".join(str(c).replace("|", "\\|") for c in cells) + " |")
        out.append("")
    return "\n".join(out)


def comparison_config(config: dict) -> dict:
    """The part of a config that :func:`compare_scales` reads: every key a registered row depends on or leaves
    unreported (its spec's ``depends_on`` and ``unreported``) and every key called ``seeds``, nested as in the config
    (a rule that passes only this reruns when one of them changes, not on a figure's style)."""
    import copy

    from crlrepro.studies.registry import EXPERIMENTS

    keys = {k for e in EXPERIMENTS for spec in e.claims for k in (*spec.depends_on, *spec.unreported)}
    out: dict = {}
    for key in sorted(keys | set(_keys_named(config, "seeds"))):  # a section sorts before the keys inside it
        value = _config_value(config, key)
        node, parts = out, key.split(".")
        if value is _MISSING or not all(isinstance(node := node.setdefault(p, {}), dict) for p in parts[:-1]):
            continue
        node[parts[-1]] = copy.deepcopy(value)
    return out


def scale_comparison_html(table: pd.DataFrame, scales: list[str], title: str) -> str:
    """The comparison as a self-contained HTML page (for the report), laid out as :func:`scale_comparison_markdown`."""
    import html

    body = []
    for role in ROLES:
        part = table[table["role"] == role]
        if role != "claim" and not len(part):
            continue
        columns = _comparison_columns(scales)
        body += [
            f"<h2>{ROLE_TITLES[role]}</h2>",
            f"<p>The verdicts agree at {html.escape(', '.join(scales))} for {int(part['agree'].sum())} of {len(part)}.</p>",
            "<table><thead><tr>" + "".join(f"<th>{html.escape(c)}</th>" for c in columns) + "</tr></thead><tbody>",
        ]
        for r in part.itertuples(index=False):
            values = dict(zip(part.columns, r, strict=True))
            body.append(
                f'<tr class="{"agree" if values["agree"] else "differ"}">'
                + "".join(f"<td>{html.escape(str(values[c]))}</td>" for c in columns)
                + "</tr>"
            )
        body.append("</tbody></table>")
    return "\n".join(
        [
            "<!DOCTYPE html>",
            f'<html><head><meta charset="utf-8"><title>{html.escape(title)}</title>',
            "<style>body{font-family:sans-serif;font-size:13px}table{border-collapse:collapse}"
            "td,th{border:1px solid #ccc;padding:2px 6px;text-align:left}.differ td{background:#fff7ed}</style>",
            "</head><body>",
            f"<h1>{html.escape(title)}</h1>",
            *body,
            "</body></html>",
            "",
        ]
    )


def scales_block(text: str, root: str | Path = PUBLISHED_ROOT) -> tuple[str, bool]:
    """``text`` with its ``<!-- scales -->`` block regenerated from every published scale, and whether it changed."""
    match = _SCALES_BLOCK.search(text)
    if match is None:
        return text, False
    scales = published_scales(root)
    block = scale_comparison_markdown(scale_comparison(scales, root), scales) + "\n"
    return text[: match.start(2)] + block + text[match.end(2) :], block != match.group(2)


BOARD_FILES = ("board.csv", "board.png")


def published_board(root: str | Path) -> pd.DataFrame:
    """The verdict board (crlrepro.workflow.board) of every scale published under ``root`` (docs/results/), each
    summary checked against its scale's provenance first."""
    scales = published_scales(root)
    if not scales:
        raise ValueError(f"no published scale under {root}: run `snakemake publish --cores 1` for a finished scale first")
    return verdict_board({s: read_published_table(s, "summary.csv", root) for s in scales})


def board_is_current(root: str | Path) -> bool:
    """Whether ``root``/board.csv holds the board of the scales published under ``root`` and board.png is there."""
    root = Path(root)
    csv = root / "board.csv"
    if not csv.is_file() or not (root / "board.png").is_file():
        return False
    return csv.read_text() == published_board(root).to_csv(index=False, lineterminator="\n")


def write_board(root: str | Path) -> list[Path]:
    """Write ``root``/board.csv (the board's table) and ``root``/board.png (:func:`board_figure`) from the scales
    published under ``root``, each written whole or not at all. Returns the paths."""
    root = Path(root)
    board = published_board(root)
    write_text(board.to_csv(index=False, lineterminator="\n"), root / "board.csv")
    board_figure(board, root / "board.png")
    return [root / name for name in BOARD_FILES]
