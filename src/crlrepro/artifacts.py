"""The one writer of artifacts: atomic files and their provenance sidecars.

Every table is written to a temporary name in its own directory and renamed into place
(``os.replace`` is atomic on POSIX), so a killed job never leaves a half-written file. Next to
each table, ``<name>.provenance.json`` records what produced it.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import subprocess
import tempfile
from contextlib import contextmanager
from importlib import metadata
from pathlib import Path

import pandas as pd


_UMASK = os.umask(0)
os.umask(_UMASK)
_PACKAGES = ("crlrepro", "numpy", "scipy", "pandas", "torch", "torchvision", "snakemake", "matplotlib", "seaborn")


def config_hash(config: dict) -> str:
    """A short content hash of a config (or any JSON-able block of it), stable across runs."""
    canonical = json.dumps(config, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


@contextmanager
def atomic_path(path: str | Path):
    """Yield a temporary path beside ``path``; on success rename it onto ``path``, else delete it."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    os.chmod(tmp, 0o666 & ~_UMASK)  # mkstemp creates 0600; artifacts get the usual permissions
    try:
        yield Path(tmp)
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


def save_torch(payload, path: str | Path) -> None:
    """``torch.save`` atomically and reproducibly: written through an open file, so the archive's
    internal folder name is torch's constant default rather than the temporary file's random name
    (the same payload gives the same bytes in every run)."""
    import torch

    with atomic_path(path) as tmp, open(tmp, "wb") as handle:
        torch.save(payload, handle)


def save_figure(fig, paths, dpi: int = 200) -> None:
    """Save a matplotlib figure to each path (format from the suffix; raster ones at ``dpi``),
    atomically, without timestamps in the metadata so that reruns give identical files."""
    for path in paths:
        path = Path(path)
        fmt = path.suffix.lstrip(".")
        metadata_ = {"CreationDate": None} if fmt == "pdf" else {}
        with atomic_path(path) as tmp:
            fig.savefig(tmp, format=fmt, dpi=dpi, bbox_inches="tight", metadata=metadata_)


def package_versions() -> dict:
    versions = {"python": platform.python_version()}
    for name in _PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return versions


def git_commit(directory: str | Path = ".") -> str | None:
    """HEAD of the repository holding ``directory`` (suffixed ``-dirty`` if modified), or None."""
    try:
        head = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=directory, capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"], cwd=directory, capture_output=True, text=True
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


def sidecar_path(path: str | Path) -> Path:
    path = Path(path)
    return path.with_name(path.stem + ".provenance.json")


def write_table(table: pd.DataFrame, path: str | Path, prov: dict) -> None:
    """Write a CSV table and its provenance sidecar (both atomically)."""
    write_csv(table, path)
    write_json({"artifact": Path(path).name, **prov}, sidecar_path(path))
