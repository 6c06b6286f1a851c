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


def _write_sidecar(path: str | Path, prov: dict) -> None:
    write_json({"artifact": Path(path).name, "sha256": sha256_of(path), **prov}, sidecar_path(path))


def _rebuild_hint(path: Path, rule: str | None) -> str:
    how = f"snakemake --forcerun {rule}" if rule else "rerun the rule that writes it (snakemake --forcerun <rule>)"
    return f"delete {path} and run snakemake again, or {how}"


def verify(path: str | Path) -> Path:
    """``path`` if its content matches the SHA-256 recorded in its provenance sidecar; otherwise
    :class:`ArtifactError` naming the file and how to rebuild it."""
    path = Path(path)
    sidecar = sidecar_path(path)
    try:
        record = json.loads(sidecar.read_text())
        recorded = record["sha256"]
    except (OSError, ValueError, KeyError, TypeError):
        raise ArtifactError(f"{path}: its sidecar {sidecar} is missing, unreadable or has no checksum, so the "
                            f"file cannot be verified; {_rebuild_hint(path, None)}") from None
    try:
        actual = sha256_of(path)
    except OSError as error:
        raise ArtifactError(f"{path}: cannot be read ({error.strerror}); {_rebuild_hint(path, record.get('rule'))}") from None
    if actual != recorded:
        raise ArtifactError(f"{path}: its content does not match the checksum recorded in {sidecar} (corrupted or "
                            f"edited since it was written); {_rebuild_hint(path, record.get('rule'))}")
    return path


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
        raise ArtifactError(f"{path}: not a plain tensor archive, refused ({first}); it was not written by this "
                            f"pipeline or is damaged: {_rebuild_hint(path, None)}") from None


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
    """Write a CSV table and its provenance sidecar with the table's checksum (both atomically)."""
    write_csv(table, path)
    _write_sidecar(path, prov)
