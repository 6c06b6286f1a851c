"""Adapter between Snakemake's ``snakemake`` script object and the library.

Workflow scripts stay thin::

    run = ScriptRun(snakemake)          # stderr → the rule's log, threads from the rule
    table = some_library_function(**run.params)
    run.write_table(table, snakemake.output.table)
"""

from __future__ import annotations

import ast
import contextlib
import hashlib
import json
import logging
import os
import shlex
import stat
import sys
import tempfile
from pathlib import Path

import pandas as pd

from crlrepro.runtime import artifacts
from crlrepro.runtime.device import JOB_ENV, assign_gpus, configure_threads, retain_freed_memory, select_device
from crlrepro.runtime.lifeline import die_with_parent

__all__ = ["die_with_parent", "imported_library_files", "interpreter_without_spaces", "ScriptRun", "UnsafeWrapperError"]


class ScriptRun:
    def __init__(self, snakemake, *, seed=None, device: str = "cpu"):
        die_with_parent()  # a job never outlives the Snakemake run that started it (crlrepro.runtime.lifeline)
        self.snakemake = snakemake
        self.params = dict(snakemake.params.items())
        self.seed = seed
        if snakemake.log:
            sys.stderr = open(snakemake.log[0], "w", buffering=1)  # noqa: SIM115 (the job's log, open for its life)
        logging.basicConfig(stream=sys.stderr, level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
        self.log = logging.getLogger(snakemake.rule)
        # Which job this process runs, for the trainer's optional records of work and time (crlrepro.learning.train).
        wildcards = ",".join(f"{k}={v}" for k, v in snakemake.wildcards.items())
        os.environ[JOB_ENV] = f"{snakemake.rule}/{wildcards}"
        configure_threads(snakemake.threads)
        retained = retain_freed_memory()  # large temporaries reused, not page-faulted anew at every step (same values)
        # GPUs of its own for a local job that declares `gpu` resources, before CUDA starts.
        self.gpu_slots = assign_gpus(int(snakemake.resources.get("gpu", 0) or 0), log=self.log)
        self.device = select_device(device)
        self.log.info(
            "rule %s, wildcards %s, threads %d, device %s%s, freed memory %s, params %s",
            snakemake.rule,
            dict(snakemake.wildcards.items()),
            snakemake.threads,
            self.device,
            f" (CUDA_VISIBLE_DEVICES={os.environ.get('CUDA_VISIBLE_DEVICES')})" if self.device == "cuda" else "",
            "retained" if retained else "returned (allocator default)",
            self.params,
        )

    def provenance(self, seed=None) -> dict:
        """The provenance of an artifact of this job; ``seed``: the artifact's own, where a job runs several."""
        return artifacts.provenance(
            config=self.snakemake.config,
            params=self.params,
            rule=self.snakemake.rule,
            seed=self.seed if seed is None else seed,
            device=self.device,
            threads=self.snakemake.threads,
        )

    def write_table(self, table: pd.DataFrame, path, seed=None, missing=()) -> None:
        """``table`` with its sidecar; ``missing``: the columns (or patterns) where an empty cell means "not applicable"
        (any other NaN or ±inf stops the job, naming the column: :func:`crlrepro.runtime.artifacts.nonfinite_problems`)."""
        artifacts.write_table(table, path, self.provenance(seed), missing=missing)
        self.log.info("wrote %s (%d rows)", path, len(table))

    def save_figure(self, fig, paths, dpi: int) -> None:
        """A figure in each of ``paths`` (PNG, PDF), each with its provenance sidecar."""
        artifacts.save_figure(fig, paths, dpi=dpi, prov=self.provenance())
        self.log.info("wrote %s", ", ".join(map(str, paths)))

    def write_text(self, text: str, path) -> None:
        """A text result (Markdown, HTML, a caption) with its provenance sidecar."""
        artifacts.write_text_artifact(text, path, self.provenance())
        self.log.info("wrote %s", path)


def imported_library_files(script: str | Path, package_dir: str | Path, cache: str | Path | None = None) -> list[str]:
    """The files of this package that ``script`` imports, directly or through other modules of the
    package (its import closure, read from the source with ``ast``, nothing is executed). Declared as
    a rule's inputs, they make editing a module rerun exactly the rules whose scripts use it.

    Each file is parsed once per process (the Snakefile asks for every rule's closure, and every
    job parses the Snakefile again); with ``cache`` (a JSON file, plain data) the module names each file imports are
    kept across processes, keyed by the SHA-256 of the file's text and its place in the package, so an edited file
    is parsed again. Which file a name resolves to is looked up on disk each time."""
    package_dir = Path(package_dir)
    names = _ImportNames(cache)
    found: set[Path] = set()
    pending = [Path(script)]
    while pending:
        source = pending.pop()
        resolved = _RESOLVED.get((source, package_dir))
        if resolved is None:  # once per file and process, as the parse was before the cache
            resolved = _RESOLVED[(source, package_dir)] = _resolve(names(source, package_dir), package_dir)
        for path in resolved:
            if path not in found:
                found.add(path)
                pending.append(path)
    names.save()
    return sorted(str(p) for p in found)


_RESOLVED: dict[tuple[Path, Path], tuple[Path, ...]] = {}


class _ImportNames:
    """The dotted module names a source file imports (:func:`_imported_names`), with ``cache`` across processes
    (within one, :func:`imported_library_files` asks once per file): a JSON object {key: [names]} read once per
    process and rewritten (atomically) when this process parsed a file it did not hold; an unreadable or malformed
    cache is ignored and rewritten. It holds what this process used and what it read, up to :data:`_CACHE_ENTRIES`
    entries (then only what this process used)."""

    _stored: dict[Path, dict[str, tuple[str, ...]]] = {}
    _used: dict[Path, dict[str, tuple[str, ...]]] = {}

    def __init__(self, cache):
        self.cache, self.new = (Path(cache) if cache else None), False
        if self.cache is not None and self.cache not in self._stored:
            stored = {}
            try:
                read = json.loads(self.cache.read_text())
                if isinstance(read, dict):
                    stored = {k: tuple(v) for k, v in read.items() if _names_are_modules(v)}
            except (OSError, ValueError, RecursionError):
                pass
            self._stored[self.cache], self._used[self.cache] = stored, {}

    def __call__(self, source: Path, package_dir: Path) -> tuple[str, ...]:
        text = source.read_bytes()
        place = _package_parts(source.parent, package_dir)
        key = hashlib.sha256(f"{_NAMES_FORMAT}\0{'.'.join(place or ('?',))}\0".encode() + text).hexdigest()
        stored = self._stored.get(self.cache, {})
        names = stored.get(key)
        if names is None:
            names = _imported_names(text, place)
        if self.cache is not None:
            if key not in stored:
                self.new = True
            self._used[self.cache][key] = names
        return names

    def save(self) -> None:
        """Write the cache if this closure parsed a file it did not hold; a cache that cannot be written (a read-only
        checkout) is left alone."""
        if self.cache is None or not self.new:
            return
        used = self._used[self.cache]
        merged = {**self._stored[self.cache], **used}
        if len(merged) > _CACHE_ENTRIES:
            merged = dict(used)
        try:
            artifacts.write_json({k: list(v) for k, v in merged.items()}, self.cache)  # atomic: a temporary file renamed
            self._stored[self.cache] = merged
        except OSError:
            pass


_CACHE_ENTRIES = 2000
# What :func:`_imported_names` computes, and the Python whose ``ast`` it reads with: part of every cache key, so that a
# change to either (bump the number when the function changes) parses every file again instead of trusting old names.
_NAMES_FORMAT = f"imported_names/1 python{sys.version_info[0]}.{sys.version_info[1]}"


def _names_are_modules(names) -> bool:
    """A cache entry holds dotted module names only (identifiers joined by dots), nothing a path could be made of."""
    return isinstance(names, list) and all(
        isinstance(n, str) and n and all(part.isidentifier() for part in n.split(".")) for n in names
    )


def _package_parts(folder: Path, package_dir: Path) -> tuple[str, ...] | None:
    try:
        return folder.relative_to(package_dir.parent).parts
    except ValueError:
        return None


def _imported_names(text: bytes, place: tuple[str, ...] | None) -> tuple[str, ...]:
    """The absolute dotted names a module's source imports: ``a.b.c`` for ``import a.b.c``; ``a.b`` and ``a.b.c`` for
    ``from a.b import c`` (absolute, or relative to ``place``, the parts of the source's package path; None: outside
    the package, where a relative import names nothing of it)."""
    names: list[str] = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.ImportFrom):
            if node.level == 0 and node.module:
                base = node.module
            elif node.level > 0 and place is not None and node.level - 1 <= len(place):  # relative: one level up per extra dot
                parts = place[: len(place) - (node.level - 1)]
                base = ".".join([*parts, *([node.module] if node.module else [])])
            else:
                continue
            names += [base] + [f"{base}.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
    return tuple(names)


def _resolve(names, package_dir: Path) -> tuple[Path, ...]:
    """The files of the package at ``package_dir`` that the imported ``names`` load: for each name of the package,
    every package's ``__init__.py`` on the way (Python runs each) and the module itself, a file ``c.py`` or a package
    ``c/__init__.py``; a name that is neither (an attribute, e.g. a function) ends the walk."""
    package = package_dir.name
    files: list[Path] = []

    def add(path: Path) -> None:
        if path not in files:
            files.append(path)

    for name in names:
        parts = name.split(".")
        if parts[0] != package:
            continue
        add(package_dir / "__init__.py")
        for depth in range(2, len(parts) + 1):
            here = package_dir.joinpath(*parts[1:depth])
            if (here / "__init__.py").exists():
                add(here / "__init__.py")
            elif here.with_suffix(".py").exists():
                add(here.with_suffix(".py"))
                break
            else:
                break
    return tuple(path for path in files if path.exists())


class UnsafeWrapperError(RuntimeError):
    """The interpreter wrapper's folder or file could be changed by another user: refused before any job runs it."""


def _private_problem(path: Path, what: str, kind: str) -> str | None:
    """Why ``path`` (not followed if a link) is not this user's own, unwritable by others, ``kind`` ('folder' or
    'file'); None where it is."""
    info = os.lstat(path)
    expected = stat.S_ISDIR(info.st_mode) if kind == "folder" else stat.S_ISREG(info.st_mode)
    if not expected:
        return f"{what} {path} is not a {kind} of its own (a link or another kind of file)"
    if info.st_uid != os.geteuid():
        return f"{what} {path} is owned by uid {info.st_uid}, not by you (uid {os.geteuid()})"
    writable = 0o077 if kind == "folder" else 0o022
    if info.st_mode & writable:
        return f"{what} {path} has mode {stat.S_IMODE(info.st_mode):o}: {'open to' if kind == 'folder' else 'writable by'} others"
    return None


def interpreter_without_spaces(executable: str = sys.executable, tmpdir: str | Path | None = None) -> str:
    """``executable`` itself when the shell can run it unquoted, else a small wrapper script at a path without spaces
    that runs it (``exec '<executable>' "$@"``). Snakemake runs every ``script:`` rule as ``<python> <script>`` with the
    interpreter's path unquoted (snakemake/snakemake#2645): a virtual environment in a checkout whose path has a space
    makes every script rule fail.

    Every job runs the wrapper, so only this user may be able to change it: it lives in ``<tmp>/crlrepro-<uid>/``
    (``tmpdir``, by default the temporary folder, or /tmp where that path has a space), a folder created with mode
    0700, and both are checked at every workflow load (the main process and each job's): the folder must be a real
    folder owned by this user and closed to others, its parent not writable by others unless sticky (as /tmp is),
    and the wrapper a regular file owned by this user and writable by no one else. Another user can then neither
    write the wrapper nor swap the folder between the check and a job; anything else raises
    :class:`UnsafeWrapperError` naming the path. The wrapper is written atomically, once per interpreter."""
    if shlex.quote(executable) == executable:
        return executable
    base = Path(tmpdir if tmpdir is not None else tempfile.gettempdir())
    if shlex.quote(str(base)) != str(base):
        base = Path("/tmp")
    folder = base / f"crlrepro-{os.geteuid()}"
    advice = (
        "a file there runs as you in every job, so it must be yours alone: remove it if you made it, else set TMPDIR "
        "to a folder of your own without spaces (mkdir -p ~/tmp && export TMPDIR=~/tmp)"
    )
    parent = os.stat(base)
    if parent.st_mode & 0o022 and not parent.st_mode & stat.S_ISVTX:
        raise UnsafeWrapperError(
            f"the interpreter wrapper's folder lies in {base}, which others may write and which is not sticky (they could "
            f"replace the folder); {advice}"
        )
    with contextlib.suppress(FileExistsError):  # made before, by this user or another: checked next
        os.mkdir(folder, 0o700)
    problem = _private_problem(folder, "the interpreter wrapper's folder", "folder")
    if problem:
        raise UnsafeWrapperError(f"{problem}; {advice}")
    wrapper = folder / f"python-{hashlib.sha256(executable.encode()).hexdigest()[:16]}"
    text = f'#!/bin/sh\nexec {shlex.quote(executable)} "$@"\n'
    if os.path.lexists(wrapper):
        problem = _private_problem(wrapper, "the interpreter wrapper", "file")
        if problem:
            raise UnsafeWrapperError(f"{problem}; it runs as you in every job: remove it (rm {wrapper}) and run again")
        if wrapper.read_text() == text and os.access(wrapper, os.X_OK):
            return str(wrapper)
    fd, tmp = tempfile.mkstemp(prefix=f".{wrapper.name}.", dir=folder)
    with os.fdopen(fd, "w") as handle:
        handle.write(text)
    os.chmod(tmp, 0o755)
    os.replace(tmp, wrapper)
    return str(wrapper)
