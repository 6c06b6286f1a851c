import contextlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from crlrepro.theory.gmm import LatentClassGMM

REPO = Path(__file__).resolve().parents[1]
SCHEMA = REPO / "workflow" / "schemas" / "config.schema.yaml"


@pytest.fixture
def paper_gmm():
    """Paper 2's setting: K=2, π=(½,½), μx=μy=(1.2, −1.2), σ=1."""
    return LatentClassGMM([0.5, 0.5], [1.2, -1.2], [1.0, 1.0], [1.2, -1.2], [1.0, 1.0])


@pytest.fixture
def skewed_gmm():
    """An unbalanced, asymmetric K=3 mixture with unequal variances (a setting the paper never used)."""
    return LatentClassGMM([0.2, 0.5, 0.3], [2.0, -1.0, 0.3], [0.5, 1.5, 1.0], [-1.0, 0.4, 3.0], [2.0, 0.7, 1.2])


@pytest.fixture
def allocator_environment() -> dict:
    """This environment without what changes how the C allocator hands out memory (malloc tunables, a
    preloaded allocator), for page-fault counts that mean the same on every machine; the test is skipped off
    glibc's Linux and where transparent huge pages serve every mapping (2 MiB faults hide the effect)."""
    if not sys.platform.startswith("linux"):
        pytest.skip("glibc's allocator")
    try:
        if "[always]" in Path("/sys/kernel/mm/transparent_hugepage/enabled").read_text():
            pytest.skip("transparent huge pages for every mapping")
    except OSError:
        pass
    return {k: v for k, v in os.environ.items() if not (k.startswith("MALLOC_") or k in ("GLIBC_TUNABLES", "LD_PRELOAD"))}


# --- end to end: snakemake in temporary copies of the repository ----------------------------------

SMOKE = ["--configfile", "configs/smoke.yaml"]  # further config files are appended to this one flag
SMOKE_RESULTS = "results/smoke"  # the smoke scale's own folder (configs/smoke.yaml: results)
# What a run writes that legitimately differs between two runs: logs (times, hosts) and benchmarks.
VOLATILE = ("logs", "benchmarks")


# Outside a git checkout (an unpacked archive), the project's own entries: what a package build and the workflow use.
PROJECT_ENTRIES = (
    "Snakefile",
    "config.yaml",
    "pyproject.toml",
    "README.md",
    "configs",
    "src",
    "workflow",
    "envs",
    "profiles",
    "tests",
    "benchmarks",
    "docs",
)
_CACHES = shutil.ignore_patterns("__pycache__", "*.egg-info", ".pytest_cache", ".hypothesis")


def project_files(root) -> list[str]:
    """The files of the checkout at ``root`` that the project tracks (``git ls-files``: a virtual environment, a
    data folder or anything else untracked is left out, however large), as paths relative to it; outside git,
    every file of PROJECT_ENTRIES. A new file must be added (``git add``) before the copies see it."""
    root = Path(root)
    proc = subprocess.run(["git", "ls-files", "-z"], cwd=root, capture_output=True)
    if proc.returncode == 0 and (root / ".git").exists():
        names = [name for name in proc.stdout.decode().split("\0") if name]
        return [name for name in names if (root / name).is_file() or (root / name).is_symlink()]
    files = []
    for entry in PROJECT_ENTRIES:
        path = root / entry
        candidates = [path] if path.is_file() else sorted(path.rglob("*")) if path.is_dir() else []
        files += [
            str(p.relative_to(root))
            for p in candidates
            if p.is_file() and not {"__pycache__", ".pytest_cache", ".hypothesis"} & set(p.parts)
        ]
    return files


def copy_checkout(src, dst, also=()):
    """Copy the project's files (:func:`project_files`) of the checkout ``src`` to ``dst``, with the folders
    ``also`` (e.g. results/, .snakemake/, .git) copied whole where they exist."""
    src, dst = Path(src), Path(dst)
    for name in project_files(src):
        target = dst / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src / name, target, follow_symlinks=False)
    for name in also:
        if (src / name).is_dir():
            shutil.copytree(src / name, dst / name, symlinks=True, ignore=_CACHES)
    return dst


def copy_repo(dst):
    """A copy of this checkout's project files, without results (see :func:`project_files`)."""
    return copy_checkout(REPO, dst)


# A fixed author and time: two copies of the same files get the same commit, so that their runs' sidecars agree
_COMMIT_ENV = {
    "GIT_AUTHOR_NAME": "crlrepro tests",
    "GIT_AUTHOR_EMAIL": "tests@crlrepro.invalid",
    "GIT_COMMITTER_NAME": "crlrepro tests",
    "GIT_COMMITTER_EMAIL": "tests@crlrepro.invalid",
    "GIT_AUTHOR_DATE": "2026-01-01T00:00:00+00:00",
    "GIT_COMMITTER_DATE": "2026-01-01T00:00:00+00:00",
}


def git_checkout(path, code: str = "x = 1\n") -> tuple[Path, str]:
    """A git checkout at ``path`` with one commit of a file ``code.py`` holding ``code`` (the code that made some
    results, for tests of publishing, which refuses results of code that is not committed), and that commit."""
    path = Path(path)
    path.mkdir(parents=True, exist_ok=True)
    (path / "code.py").write_text(code)
    return path, _commit_everything(path, "code")


def _commit_everything(path: Path, message: str) -> str:
    """``git init`` at ``path`` and one commit of every file there (fixed author and time), its hash returned."""
    env = {**os.environ, **_COMMIT_ENV}
    for command in (["init", "-q"], ["add", "-A"], ["-c", "commit.gpgsign=false", "commit", "-q", "--no-verify", "-m", message]):
        subprocess.run(["git", *command], cwd=path, env=env, check=True, capture_output=True)
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=path, check=True, capture_output=True, text=True)
    return head.stdout.strip()


def committed_repo(dst):
    """:func:`copy_repo` as a git repository whose one commit holds exactly those files (this checkout's files as they
    are, committed or not): its runs record a clean commit, as a user's clone does, so that publishing (which
    refuses results made by uncommitted code) works there. The same files give the same commit."""
    dst = copy_repo(dst)
    _commit_everything(dst, "the tested checkout")
    return dst


# How long a command may go without writing a byte before it counts as hung. Not a limit on the whole run: a run that
# keeps writing (Snakemake reports every job it starts and finishes) runs as long as it needs, however busy the machine
# (a loaded laptop took 1,057 s for the smoke run that takes 5-9 min idle). The smoke scale's slowest job takes about a
# minute on an idle 2-core machine (results/smoke/benchmarks), so 20 silent minutes is a hang at any load a test
# suite can finish under.
SILENT_LIMIT_S = 1200.0


def run_watched(command, *, cwd=None, env=None, silent_limit_s: float = SILENT_LIMIT_S):
    """``subprocess.run(command, capture_output=True, text=True)`` bounded by what the command does rather than by the
    clock: it is stopped (with its whole process group) only when it writes nothing to stdout or stderr for
    ``silent_limit_s`` seconds, and the test then fails naming the silence and the output's last lines. A slow
    machine only makes a test slower; a hung command still ends it."""
    import tempfile
    import time

    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(
            command,
            cwd=cwd,
            env=env,
            stdout=out,
            stderr=err,
            start_new_session=True,
        )
        written, quiet_since = -1, time.monotonic()
        while proc.poll() is None:
            time.sleep(0.5)
            size = os.fstat(out.fileno()).st_size + os.fstat(err.fileno()).st_size
            if size != written:
                written, quiet_since = size, time.monotonic()
            elif time.monotonic() - quiet_since > silent_limit_s:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, 9)
                proc.wait()
                out.seek(0)
                err.seek(0)
                tail = (out.read().decode(errors="replace") + err.read().decode(errors="replace"))[-3000:]
                raise AssertionError(
                    f"{' '.join(map(str, command))} wrote nothing for {silent_limit_s:.0f} s (hung); its last output:\n{tail}"
                )
        out.seek(0)
        err.seek(0)
        return subprocess.CompletedProcess(
            command, proc.returncode, out.read().decode(errors="replace"), err.read().decode(errors="replace")
        )


def snakemake(workdir, *args, check=True, env=None):
    proc = run_watched([sys.executable, "-m", "snakemake", *args], cwd=workdir, env=env)
    if check and proc.returncode != 0:
        raise AssertionError(f"snakemake {' '.join(args)} failed:\n{proc.stdout}\n{proc.stderr}")
    return proc


def planned_jobs(workdir, *args):
    """Rules a dry run would execute (the 'all' target excluded)."""
    out = snakemake(workdir, "-n", "--cores", "1", "--quiet", "rules", *args).stdout
    jobs = set()
    in_table = False
    for line in out.splitlines():
        if line.startswith("job "):
            in_table = True
        elif in_table and line.startswith("total"):
            break
        elif in_table and line.strip() and not line.startswith("-"):
            jobs.add(line.split()[0])
    return jobs - {"all"}


def planned_outputs(workdir, *args):
    """Every output a dry run would write, from its jobs' ``output:`` lines."""
    out = snakemake(workdir, "-n", "--cores", "1", *args).stdout
    return {
        path.strip()
        for line in out.splitlines()
        if line.strip().startswith("output:")
        for path in line.split("output:", 1)[1].split(",")
    }


def edit(path):
    with open(path, "a") as handle:
        handle.write("\n# edited by a test\n")


@contextlib.contextmanager
def edited(path):
    """``path`` edited (a comment appended) inside the block, its original bytes written back after it: the file
    is then newer than every output but holds what they were made from."""
    original = Path(path).read_bytes()
    edit(path)
    try:
        yield path
    finally:
        Path(path).write_bytes(original)


def artifacts(workdir, results_dir: str = None) -> dict[str, bytes]:
    """Every file a run wrote under its results folder (the smoke scale's by default: tables, figures,
    models, provenance), by relative path, except the volatile logs and benchmarks."""
    results = Path(workdir) / (results_dir or SMOKE_RESULTS)
    return {
        str(path.relative_to(workdir)): path.read_bytes()
        for path in sorted(results.rglob("*"))
        if path.is_file() and path.relative_to(results).parts[0] not in VOLATILE
    }


# The files that decide what a run computes: a given smoke run must have been made with these.
CODE = ("Snakefile", "config.yaml", "configs", "src/crlrepro", "workflow")


def _code_differences(other: Path) -> list[str]:
    differences = []
    for entry in CODE:
        root = REPO / entry
        files = [root] if root.is_file() else [p for p in sorted(root.rglob("*")) if p.is_file() and "__pycache__" not in p.parts]
        for path in files:
            twin = other / path.relative_to(REPO)
            if not twin.is_file() or twin.read_bytes() != path.read_bytes():
                differences.append(str(path.relative_to(REPO)))
    return differences


# The work units that take minutes, longest first (pytest-xdist hands units out in collection order, and one left for
# last keeps a worker busy while the other idles: the longest-first rule). Then every other pipeline, browser or
# `slow` test, then the other module groups, then the rest; the collection order is kept within each part.
LONGEST_GROUPS = ("test_slurm", "test_docs", "test_faults")


def _start_rank(item) -> int:
    group = item.get_closest_marker("xdist_group")
    name = (group.args[0] if group.args else group.kwargs.get("name")) if group else None
    if name in LONGEST_GROUPS:
        return LONGEST_GROUPS.index(name)
    if any(item.get_closest_marker(mark) for mark in ("pipeline", "browser", "slow")):
        return len(LONGEST_GROUPS)
    return len(LONGEST_GROUPS) + (1 if group else 2)


# The fixtures that run the smoke pipeline: a test that requests one (directly or through another fixture) runs the
# pipeline and must carry the `pipeline` marker, so that `pytest -m "not pipeline"` (the README's "no pipeline runs")
# keeps its word.
PIPELINE_FIXTURES = frozenset({"smoke_run", "smoke_artifacts"})


def unmarked_pipeline_tests(items) -> list[str]:
    """The ids of the collected ``items`` that request a :data:`PIPELINE_FIXTURES` fixture without the ``pipeline``
    marker."""
    return [
        item.nodeid
        for item in items
        if PIPELINE_FIXTURES & set(getattr(item, "fixturenames", ())) and not item.get_closest_marker("pipeline")
    ]


def pytest_collection_modifyitems(config, items):
    """Refuses a test that runs the pipeline without the ``pipeline`` marker (:func:`unmarked_pipeline_tests`); then
    the longest tests first (:data:`LONGEST_GROUPS`, :func:`_start_rank`), so that the two workers finish together."""
    unmarked = unmarked_pipeline_tests(items)
    if unmarked:
        raise pytest.UsageError(
            "these tests run the smoke pipeline (they request " + " or ".join(sorted(PIPELINE_FIXTURES)) + ") but are "
            'not marked @pytest.mark.pipeline, so `pytest -m "not pipeline"` would run it: ' + ", ".join(unmarked)
        )
    items.sort(key=_start_rank)  # stable: each part keeps the collection order


def pytest_xdist_auto_num_workers(config):
    """`-n auto` (pyproject's addopts): a worker per core, at most 4 (each imports torch and several run Snakemake on
    2 cores; more would only contend)."""
    return max(1, min(os.cpu_count() or 1, 4))


@pytest.fixture(scope="session")
def smoke_run(tmp_path_factory):
    """A checkout that has run the smoke pipeline from clean (tests may change it afterwards).

    Runs it on 2 cores, or, where CRLREPRO_SMOKE_RUN names a checkout of this same code that has
    just done so (as .ci/run does, to not run it twice), copies that one; it must be up to date."""
    workdir = tmp_path_factory.mktemp("run1") / "repo"
    given = os.environ.get("CRLREPRO_SMOKE_RUN")
    if given:
        differences = _code_differences(Path(given))
        if differences:
            pytest.fail(f"CRLREPRO_SMOKE_RUN={given} was made with other code: {differences[:5]}")
        copy_checkout(given, workdir, also=("results", ".snakemake", ".git"))  # .git: reruns record the same commit
        planned = planned_jobs(workdir, *SMOKE)
        if planned:
            pytest.fail(f"CRLREPRO_SMOKE_RUN={given} is not a finished smoke run: it would still run {sorted(planned)}")
    else:
        copy_checkout(_smoke_run_once(tmp_path_factory), workdir, also=("results", ".snakemake", ".git"))
    _SMOKE_ARTIFACTS[workdir] = artifacts(workdir)
    return workdir


def _smoke_run_once(tmp_path_factory) -> Path:
    """One clean smoke run for the whole test session, shared by pytest-xdist's workers (the first to ask runs it,
    under a lock; the others wait and copy it), so that `pytest -n 2` does not run the pipeline once per worker."""
    import fcntl

    base = tmp_path_factory.getbasetemp()
    root = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    shared, done = root / "smoke-once" / "repo", root / "smoke-once" / "done"
    shared.parent.mkdir(parents=True, exist_ok=True)
    with open(root / "smoke-once" / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.exists():
            shutil.rmtree(shared, ignore_errors=True)
            committed_repo(shared)
            snakemake(shared, "--cores", "2", *SMOKE)
            done.touch()
    return shared


_SMOKE_ARTIFACTS: dict[Path, dict[str, bytes]] = {}


def fresh_checkout(dst):
    """A checkout without results, made like the one ``smoke_run`` ran in, so that a second run
    can be compared with it byte for byte (provenance records the git commit):
    a copy of CRLREPRO_SMOKE_RUN's checkout with its .git when that is given, else of this one, committed as
    ``smoke_run``'s was (the same commit)."""
    given = os.environ.get("CRLREPRO_SMOKE_RUN")
    if not given:
        return committed_repo(dst)
    return copy_checkout(given, dst, also=(".git",))


@pytest.fixture(scope="session")
def smoke_artifacts(smoke_run):
    """What the smoke run wrote, read as soon as it finished (before any test changed the checkout)."""
    return _SMOKE_ARTIFACTS[smoke_run]


def require_browser():
    """render_report's Chromium helpers, for a test marked ``browser``: it skips where Chromium or Playwright is
    missing, and fails instead where CRLREPRO_REQUIRE_BROWSER=1 (CI, where it may not skip)."""
    sys.path.insert(0, str(REPO / "tests" / "report"))
    import render_report

    missing = None if render_report.chromium_path() else "no Chromium (Debian's chromium)"
    try:
        import playwright  # noqa: F401
    except ImportError:
        missing = "Playwright is not installed"
    if missing:
        (pytest.fail if os.environ.get("CRLREPRO_REQUIRE_BROWSER") == "1" else pytest.skip)(missing)
    return render_report
