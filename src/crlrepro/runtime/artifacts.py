"""The one writer of artifacts: atomic files and their provenance sidecars.

Every table is written to a temporary name in its own directory and renamed into place
(``os.replace`` is atomic on POSIX), so a killed job never leaves a half-written file. Next to
each table, ``<name>.provenance.json`` records what produced it.
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
import os
import platform
import shlex
import subprocess
import tempfile
from contextlib import contextmanager
from importlib import metadata
from pathlib import Path

import numpy as np
import pandas as pd

from crlrepro.runtime.lifeline import end_if_orphaned

__all__ = [
    "ArtifactError",
    "atomic_path",
    "config_hash",
    "CONFIGFILES_ENV",
    "DRAWN_KEY",
    "figure_texts",
    "git_commit",
    "load_torch",
    "nonfinite_problems",
    "NOT_CODE",
    "package_versions",
    "provenance",
    "read_figure_texts",
    "read_json",
    "read_table",
    "rebuild_command",
    "RECORD_DIGEST",
    "record_digest",
    "require_exact_set",
    "save_figure",
    "save_torch",
    "sha256_of",
    "sidecar_path",
    "sidecar_record",
    "STEM_SIDECARS",
    "verify",
    "write_artifact_json",
    "write_csv",
    "write_json",
    "write_table",
    "write_text",
    "write_text_artifact",
]


_UMASK = os.umask(0)
os.umask(_UMASK)
_PACKAGES = ("crlrepro", "numpy", "scipy", "pandas", "torch", "torchvision", "snakemake", "matplotlib", "seaborn")


def config_hash(config: dict) -> str:
    """A short content hash of a config (or any JSON-able block of it), stable across runs."""
    canonical = json.dumps(config, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


@contextmanager
def atomic_path(path: str | Path):
    """Yield a temporary path beside ``path``; on success rename it onto ``path``, else delete it. A job whose Snakemake
    run has ended renames nothing (:func:`crlrepro.runtime.lifeline.end_if_orphaned`): a write under way when the run
    was killed does not land in the folder the rerun owns."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    os.chmod(tmp, 0o666 & ~_UMASK)  # mkstemp creates 0600; artifacts get the usual permissions
    try:
        yield Path(tmp)
        end_if_orphaned()
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_text(text: str, path: str | Path) -> None:
    with atomic_path(path) as tmp:
        tmp.write_text(text)


def write_json(obj, path: str | Path) -> None:
    write_text(json.dumps(obj, indent=2, sort_keys=True, default=str) + "\n", path)


def write_csv(table: pd.DataFrame, path: str | Path) -> None:
    """CSV with floats in shortest round-trip form: the same numbers give the same bytes."""
    with atomic_path(path) as tmp:
        table.to_csv(tmp, index=False)


def save_torch(payload, path: str | Path, prov: dict | None = None) -> None:
    """``torch.save`` atomically and reproducibly (written through an open file, so the archive's
    internal folder name is torch's constant default rather than the temporary file's random name:
    the same payload gives the same bytes in every run), with a sidecar holding its checksum and
    ``prov``. Only tensors and plain containers of numbers and text: :func:`load_torch` reads it
    with ``weights_only=True``."""
    import torch

    with atomic_path(path) as tmp, open(tmp, "wb") as handle:
        torch.save(payload, handle)
    _write_sidecar(path, prov or {})


class ArtifactError(RuntimeError):
    """An artifact that cannot be trusted: missing, unreadable, or not what its sidecar recorded.
    The message names the file and how to rebuild it."""


def sha256_of(path: str | Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


RECORD_DIGEST = "record_sha256"  # a sidecar's own checksum: every other field, canonical JSON, SHA-256


def record_digest(record: dict) -> str:
    """The SHA-256 of a provenance record's fields but :data:`RECORD_DIGEST` itself, as canonical JSON: stored in the
    record, it makes an edit of any field (seed, config_hash, git_commit, packages, device, ...) detectable."""
    fields = {key: value for key, value in record.items() if key != RECORD_DIGEST}
    canonical = json.dumps(fields, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()


def _write_sidecar(path: str | Path, prov: dict) -> None:
    record = {"artifact": Path(path).name, "sha256": sha256_of(path), **prov}
    write_json({**record, RECORD_DIGEST: record_digest(record)}, sidecar_path(path))


def sidecar_record(path: str | Path) -> dict:
    """The provenance sidecar of ``path``, checked against its own digest (:func:`record_digest`): ArtifactError naming
    the sidecar when it is missing, unreadable, not a record, or edited in any field since it was written."""
    sidecar = sidecar_path(path)
    try:
        record = json.loads(sidecar.read_text())
    except (OSError, ValueError):
        raise ArtifactError(
            f"{path}: its sidecar {sidecar} is missing or unreadable, so the file cannot be verified; {_rebuild_hint(path)}"
        ) from None
    if not isinstance(record, dict) or record.get(RECORD_DIGEST) != record_digest(record):
        raise ArtifactError(
            f"{path}: its sidecar {sidecar} was edited since it was written (its fields do not match "
            f"their recorded digest {RECORD_DIGEST}), or was written by older code; {_rebuild_hint(path)}"
        )
    return record


CONFIGFILES_ENV = "CRLREPRO_CONFIGFILES"  # the run's --configfile paths (os.pathsep-separated), set by the workflow


def rebuild_command(paths, configfiles=None) -> str:
    """The command that rebuilds the artifacts ``paths`` and everything computed from them: Snakemake's
    ``--forcerun`` of the files reruns the jobs that write them and every job downstream, whether the files are
    damaged or already deleted (deleting an intermediate file alone is not enough: Snakemake leaves a missing
    intermediate alone while the results computed from it are up to date). The run's config files come from the
    workflow (:data:`CONFIGFILES_ENV`) unless ``configfiles`` are given, so the command rebuilds the same scale."""
    if configfiles is None:
        configfiles = [f for f in os.environ.get(CONFIGFILES_ENV, "").split(os.pathsep) if f]
    words = [
        "snakemake",
        "--cores",
        "all",
        *(["--configfile", *map(shlex.quote, configfiles)] if configfiles else []),  # one flag (a repeated one: its last)
        "--forcerun",
        *(shlex.quote(str(p)) for p in ([paths] if isinstance(paths, (str, Path)) else paths)),
    ]
    return " ".join(words)


def _rebuild_hint(path: Path) -> str:
    return f"rebuild it and what is computed from it: {rebuild_command(path)}"


def verify(path: str | Path) -> Path:
    """``path`` if its content matches the SHA-256 recorded in its provenance sidecar; otherwise
    :class:`ArtifactError` naming the file and how to rebuild it."""
    path = Path(path)
    sidecar = sidecar_path(path)
    recorded = sidecar_record(path).get("sha256")
    try:
        actual = sha256_of(path)
    except OSError as error:
        raise ArtifactError(f"{path}: cannot be read ({error.strerror}); {_rebuild_hint(path)}") from None
    if actual != recorded:
        raise ArtifactError(
            f"{path}: its content does not match the checksum recorded in {sidecar} (corrupted or "
            f"edited since it was written); {_rebuild_hint(path)}"
        )
    return path


def require_exact_set(found, expected, what: str, paths) -> None:
    """Stop a reader of several artifacts unless what it ``found`` (one item per artifact read) is exactly the
    ``expected`` items the config asks for: a table built from fewer (or other) artifacts would look complete.
    :class:`ArtifactError` lists the missing and unexpected items and the command that rebuilds ``paths``."""
    found, expected = sorted(found), sorted(expected)
    if found != expected:
        missing = [item for item in expected if item not in found]
        unexpected = [item for item in found if item not in expected]
        duplicated = sorted({repr(item) for item in found if found.count(item) > 1})
        raise ArtifactError(
            f"the {what} read are not the set the config asks for: missing {missing}, unexpected "
            f"{unexpected}{f', duplicated {duplicated}' if duplicated else ''}; rebuild them: "
            f"{rebuild_command(paths)}"
        )


def read_table(path: str | Path) -> pd.DataFrame:
    """A table written by :func:`write_table`, verified against its sidecar first."""
    return pd.read_csv(verify(path))


def write_artifact_json(obj, path: str | Path, prov: dict) -> None:
    """A JSON result (plain data) and its provenance sidecar with the file's checksum."""
    write_json(obj, path)
    _write_sidecar(path, prov)


def read_json(path: str | Path):
    """A JSON result written by :func:`write_artifact_json`, verified against its sidecar first."""
    return json.loads(verify(path).read_text())


def load_torch(path: str | Path):
    """An artifact written by :func:`save_torch`, verified against its sidecar, then read with
    ``weights_only=True``: a file that would run code when unpickled is refused, not executed."""
    import pickle

    import torch

    path = verify(path)
    try:
        return torch.load(path, map_location="cpu", weights_only=True)
    except (pickle.UnpicklingError, RuntimeError, OSError, EOFError, ValueError) as error:
        first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise ArtifactError(
            f"{path}: not a plain tensor archive, refused ({first}); it was not written by this "
            f"pipeline or is damaged: {_rebuild_hint(path)}"
        ) from None


DRAWN_KEY = "crlrepro:drawn"  # the PNG text chunk that lists what a figure draws (figure_texts)


def figure_texts(fig) -> dict:
    """What a matplotlib figure draws, as text: each panel's title (``panels``, in order) and every title, axis
    label, legend entry and annotation (``texts``). Saved into each PNG (:data:`DRAWN_KEY`) so that a caption can be
    checked against the figure it describes (:func:`crlrepro.studies.summary.caption_problems`)."""
    texts = [fig._suptitle.get_text()] if getattr(fig, "_suptitle", None) is not None else []
    for legend in fig.legends:
        texts += [t.get_text() for t in legend.get_texts()]
    panels = []
    for ax in fig.axes:
        panels.append(ax.get_title())
        texts += [ax.get_title(), ax.get_xlabel(), ax.get_ylabel(), *(t.get_text() for t in ax.texts)]
        if ax.get_legend() is not None:
            texts += [ax.get_legend().get_title().get_text(), *(t.get_text() for t in ax.get_legend().get_texts())]
    return {"panels": [p for p in panels if p], "texts": sorted({t for t in texts if t})}


def read_figure_texts(path: str | Path) -> dict:
    """The :func:`figure_texts` a PNG written by :func:`save_figure` carries, after verifying the PNG against its
    sidecar; ArtifactError if it has none."""
    from PIL import Image

    with Image.open(verify(path)) as image:
        drawn = image.text.get(DRAWN_KEY) if hasattr(image, "text") else None
    if drawn is None:
        raise ArtifactError(
            f"{path}: no {DRAWN_KEY} text in the PNG: not written by this pipeline's save_figure, or older; {_rebuild_hint(path)}"
        )
    return json.loads(drawn)


def save_figure(fig, paths, dpi: int = 200, prov: dict | None = None) -> None:
    """Save a matplotlib figure to each path (format from the suffix; raster ones at ``dpi``),
    atomically, without timestamps in the metadata so that reruns give identical files; a PNG also carries
    what the figure draws (:func:`figure_texts`). With ``prov``, each file gets its provenance sidecar (its
    checksum: a flipped byte is found where the figure is read, published or verified)."""
    for path in paths:
        path = Path(path)
        fmt = path.suffix.lstrip(".")
        metadata_ = (
            {"CreationDate": None}
            if fmt == "pdf"
            else {DRAWN_KEY: json.dumps(figure_texts(fig), sort_keys=True)}
            if fmt == "png"
            else {}
        )
        with atomic_path(path) as tmp:
            fig.savefig(tmp, format=fmt, dpi=dpi, bbox_inches="tight", metadata=metadata_)
        if prov is not None:
            _write_sidecar(path, prov)


def package_versions() -> dict:
    versions = {"python": platform.python_version()}
    for name in _PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return versions


# Tracked paths that hold outputs, not code: the published results (crlrepro.workflow.publish writes them). A change
# there leaves the code as committed, so it does not make a commit "-dirty" in any provenance.
NOT_CODE = ("docs/results",)


def git_commit(directory: str | Path = ".", ignore: tuple[str, ...] = NOT_CODE) -> str | None:
    """HEAD of the repository holding ``directory`` (suffixed ``-dirty`` if a tracked file is modified, changes under
    the ``ignore`` paths, relative to the repository's top, not counting), or None."""
    try:
        head = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=directory, capture_output=True, text=True, check=True
        ).stdout.strip()
        excluded = [f":(top,exclude){path}" for path in ignore]
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no", "--", ":(top)", *excluded],
            cwd=directory,
            capture_output=True,
            text=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    return head + ("-dirty" if dirty else "")


def provenance(*, config: dict, params: dict, rule: str | None, seed=None, device: str = "cpu", threads: int = 1) -> dict:
    """What produced an artifact: config and parameter hashes, seed, device, versions, commit."""
    return {
        "rule": rule,
        "config_hash": config_hash(config),
        "params_hash": config_hash(params),
        "params": params,
        "seed": seed,
        "device": device,
        "threads": threads,
        "packages": package_versions(),
        "git_commit": git_commit(Path(__file__).parent),
    }


STEM_SIDECARS = (".csv", ".json", ".pt")  # tables, JSON results and models: <stem>.provenance.json


def sidecar_path(path: str | Path) -> Path:
    """The provenance sidecar of ``path``: ``<stem>.provenance.json`` for tables, JSON results and models (their
    stems are unique in a folder), ``<name>.provenance.json`` for every other file (a figure's PNG and PDF, or
    ``summary.md`` beside ``summary.csv``, share a stem)."""
    path = Path(path)
    if path.suffix in STEM_SIDECARS:
        return path.with_name(path.stem + ".provenance.json")
    return path.with_name(path.name + ".provenance.json")


def write_text_artifact(text: str, path: str | Path, prov: dict) -> None:
    """A text result (Markdown, HTML, a caption) and its provenance sidecar with the file's checksum."""
    write_text(text, path)
    _write_sidecar(path, prov)


def nonfinite_problems(table: pd.DataFrame, missing=()) -> list[str]:
    """The columns of ``table`` holding a number that is not finite: ±inf anywhere, NaN (or an empty cell) in a
    column that does not declare it (``missing``: column names or shell patterns such as ``attraction_*``, where an
    empty cell means "not applicable" for that row). A NaN elsewhere is a computation that failed (an overflow, a
    degenerate setting), never a result."""
    problems = []
    for column in table.columns:
        values = table[column]
        if pd.api.types.is_bool_dtype(values):
            continue
        numbers = (
            values.to_numpy(dtype=float)
            if pd.api.types.is_numeric_dtype(values)
            else np.array([v for v in values if isinstance(v, float)], dtype=float)
        )
        infinite = int(np.isinf(numbers).sum())
        empty = int(values.isna().sum())
        if infinite:
            problems.append(f"{column!r}: {infinite} infinite value(s)")
        if empty and not any(fnmatch.fnmatchcase(str(column), pattern) for pattern in missing):
            problems.append(f"{column!r}: {empty} NaN or empty value(s) in {len(values)} rows")
    return problems


def write_table(table: pd.DataFrame, path: str | Path, prov: dict, missing=()) -> None:
    """Write a CSV table and its provenance sidecar with the table's checksum (both atomically), after refusing
    non-finite numbers (:func:`nonfinite_problems`; ``missing``: the columns where an empty cell is declared to mean
    "not applicable"). A refused table is not written, so nothing downstream reads it."""
    problems = nonfinite_problems(table, missing)
    if problems:
        raise ArtifactError(
            f"{path}: not written: the computation produced non-finite numbers in columns that declare "
            f"none ({'; '.join(problems)}); a setting whose quantities overflow float64 or a failed "
            "computation, not a result"
        )
    write_csv(table, path)
    _write_sidecar(path, prov)
