"""What users expect of a published project: a licence that matches the metadata, a citation file,
a Python requirement Snakemake 9 can meet."""

import tomllib

import yaml
from conftest import REPO


def test_license_citation_and_python_requirement_agree_with_pyproject():
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert project["license"]["text"] == "MIT" and (REPO / "LICENSE").read_text().startswith("MIT License")
    citation = yaml.safe_load((REPO / "CITATION.cff").read_text())
    assert citation["cff-version"] == "1.2.0" and citation["license"] == "MIT" and citation["version"] == project["version"]
    assert project["requires-python"] == ">=3.11"  # Snakemake 9 requires Python 3.11


def test_the_lock_file_pins_every_requirement():
    import re

    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    pinned = {}
    for line in (REPO / "requirements.lock").read_text().splitlines():
        if line and not line.startswith("#"):
            name, _, version = line.partition("==")
            assert version, f"requirements.lock: {line!r} is not pinned with =="
            pinned[re.sub(r"[-_.]+", "-", name).lower()] = version
    wanted = project["dependencies"] + project["optional-dependencies"]["test"]
    for requirement in wanted:
        name = re.sub(r"[-_.]+", "-", re.split(r"[<>=!\[; ]", requirement)[0]).lower()
        assert name in pinned, f"{name} is required but not in requirements.lock"


def test_the_pipeline_tests_copy_only_what_the_project_tracks(tmp_path):
    """A virtual environment or a data folder inside the checkout is not copied into every test's working tree
    (five copies of a 6 GB .venv once filled the disk): copy_repo copies the tracked files only."""
    import subprocess

    from conftest import copy_checkout, project_files

    src = tmp_path / "checkout"
    (src / "src" / "pkg").mkdir(parents=True)
    (src / "Snakefile").write_text("rule all:\n")
    (src / "src" / "pkg" / "module.py").write_text("x = 1\n")
    for untracked in (".venv/lib/site-packages/big.bin", "data/cifar-10-batches-py/data_batch_1"):
        (src / untracked).parent.mkdir(parents=True)
        (src / untracked).write_bytes(b"\0" * (1 << 20))
    subprocess.run(["git", "init", "-q"], cwd=src, check=True)
    subprocess.run(["git", "add", "Snakefile", "src"], cwd=src, check=True)
    assert sorted(project_files(src)) == ["Snakefile", "src/pkg/module.py"]
    (src / "src" / "pkg" / "module.py").write_text("x = 2\n")  # an uncommitted edit is what the tests must see
    dst = copy_checkout(src, tmp_path / "copy")
    copied = sorted(str(p.relative_to(dst)) for p in dst.rglob("*") if p.is_file())
    assert copied == ["Snakefile", "src/pkg/module.py"] and (dst / "src/pkg/module.py").read_text() == "x = 2\n"
    # .venv/ is ignored, so `git status` stays clean after the README's install into a virtual environment.
    assert ".venv/" in (REPO / ".gitignore").read_text().split()


def test_a_mutant_is_seen_through_every_name_bound_to_its_module_and_the_prepared_tree_gives_its_code(tmp_path, monkeypatch):
    """tests/mutation/mutate.py: the names other modules took from the mutated one (``from m import f as g``, a
    constant under its own name) point at the mutant's objects, a number that only equals one of its constants under
    another name is left alone, and prepare()'s tree, mutated in place as a child does, compiles the same code as a
    fresh parse; reading every module's namespace at install time (bound=None) finds the same names."""
    import ast
    import importlib
    import sys

    monkeypatch.syspath_prepend(str(REPO / "tests" / "mutation"))
    monkeypatch.syspath_prepend(str(tmp_path))
    import mutate

    (tmp_path / "source_mod.py").write_text("LIMIT = 3\n\n\ndef helper(x):\n    return x + LIMIT\n")
    (tmp_path / "user_mod.py").write_text("from source_mod import LIMIT, helper as renamed\n\nTHREE = 3\n")
    mod = mutate.Module("source_mod.py", "source_mod", (tmp_path / "source_mod.py").read_bytes())

    def fresh():  # the modules as a child finds them: imported unmutated, prepared in this state
        for name in ("source_mod", "user_mod"):
            monkeypatch.delitem(sys.modules, name, raising=False)
        monkeypatch.setattr(mutate, "_PREPARED", {})
        return importlib.import_module("source_mod"), importlib.import_module("user_mod"), mutate.prepare(mod)

    mutants = {m.id.split(":", 2)[2]: m for m in mutate.enumerate_mutants(mod)}
    limit, plus = mutants["8:const:3->4"], mutants["9:arith:+->-"]
    for m in (limit, plus):  # the prepared tree, mutated in place, compiles to a fresh parse's code
        assert mutate.mutated_code(m).co_code == mutate.mutated_code(m, fresh()[2]).co_code
    _, user, prepared = fresh()
    assert {(other.__name__, attr) for other, attr, _ in prepared[2]} >= {("user_mod", "LIMIT"), ("user_mod", "renamed")}
    for bound in (True, False):
        source, user, prepared = fresh()
        mutate.install(mutate.mutated_code(plus, prepared), "source_mod", bound=prepared[2] if bound else None)
        assert user.renamed is source.helper and user.renamed(10) == 7  # 10 − 3: the mutant's code
        source, user, prepared = fresh()
        mutate.install(mutate.mutated_code(limit, prepared), "source_mod", bound=prepared[2] if bound else None)
        assert (user.LIMIT, source.helper(0), user.THREE) == (4, 4, 3)  # THREE equals the old LIMIT: a coincidence
    # the parsed tree is kept per file, text and loaded module: another text at the same path is parsed anew
    edited = mutate.Module("source_mod.py", "source_mod", b"LIMIT = 5\n")
    assert ast.unparse(mutate.prepare(edited)[0]) == "LIMIT = 5" and mutate.prepare(mod)[0] is not mutate.prepare(edited)[0]
    for name in ("source_mod", "user_mod"):
        sys.modules.pop(name, None)


def test_the_mutation_check_runs_each_mutant_against_the_tests_that_call_its_function(tmp_path, monkeypatch):
    """tests/mutation/mutate.py: a traced run records which test calls which function; a mutant inside a function
    runs those tests, the fastest first (a kill comes sooner), one at module level runs all, one in a function no test
    calls runs none (it survives)."""
    import sys

    import pytest

    monkeypatch.syspath_prepend(str(REPO / "tests" / "mutation"))
    monkeypatch.syspath_prepend(str(tmp_path))
    import mutate

    (tmp_path / "target_mod.py").write_text(
        "LIMIT = 3\n\n\ndef helper(x):\n    return x + 1\n\n\n@staticmethod\ndef decorated(x):\n"
        "    inner = lambda y: y * 2  # noqa: E731\n    return inner(x)\n\n\ndef unused():\n    return 0\n"
    )
    (tmp_path / "test_target.py").write_text(
        "import time\n\nimport target_mod\n\n\ndef test_helper_slowly():\n    time.sleep(0.3)\n"
        "    assert target_mod.helper(2) == 3\n\n\ndef test_helper():\n    assert target_mod.helper(1) == 2\n\n\n"
        "def test_decorated():\n    assert target_mod.decorated(2) == 4\n\n\ndef test_nothing():\n    assert True\n"
    )
    monkeypatch.chdir(tmp_path)
    sys.modules.pop("target_mod", None)
    mod = mutate.Module("target_mod.py", "target_mod", (tmp_path / "target_mod.py").read_bytes())
    assert mutate.function_scope(mod, 1) is None
    assert mutate.function_scope(mod, 5) == (4, 5)
    assert mutate.function_scope(mod, 10) == (8, 11)  # the decorator opens the scope
    driver = mutate.Collector(lambda items: mutate.trace_tests(items, [mod]))
    pytest.main(["-q", "-p", "no:cacheprovider", "test_target.py"], plugins=[driver])
    coverage = driver.result
    assert set(coverage) == {
        "test_target.py::test_helper_slowly",
        "test_target.py::test_helper",
        "test_target.py::test_decorated",
        "test_target.py::test_nothing",
    }
    assert list(coverage)[-1] == "test_target.py::test_helper_slowly"  # the fastest first: the slow one last
    mutants = {line: mutate.Mutant(f"m{line}", mod, line, 0) for line in (1, 5, 10, 15)}
    scopes = {(mod.path, line): mutate.function_scope(mod, line) for line in mutants}
    assert mutate.tests_for(mutants[5], coverage, scopes) == ["test_target.py::test_helper", "test_target.py::test_helper_slowly"]
    assert mutate.tests_for(mutants[10], coverage, scopes) == ["test_target.py::test_decorated"]  # the lambda too
    assert mutate.tests_for(mutants[1], coverage, scopes) is None  # module level: every test
    assert mutate.tests_for(mutants[15], coverage, scopes) == []  # no test calls it: nothing can kill it

    # the tests that killed the latest mutants go first (the latest first); the rest keep their order
    class Item:
        def __init__(self, nodeid):
            self.nodeid = nodeid

    items = [Item(name) for name in ("a", "b", "c", "d")]
    assert [i.nodeid for i in mutate.killers_first(items, ["c", "x", "b"])] == ["c", "b", "a", "d"]
    assert [i.nodeid for i in mutate.killers_first(items, [])] == ["a", "b", "c", "d"]
    # a run: each mutant of helper is killed (its killer reported back through the pipe), unused's survives
    helper_and_unused = [m for m in mutate.enumerate_mutants(mod) if m.line in (5, 15)]

    def work(items):
        mutate.run(helper_and_unused, items, 2, 30, (str(tmp_path / "nowhere") + "/",))
        return True

    pytest.main(["-q", "-p", "no:cacheprovider", "test_target.py"], plugins=[mutate.Collector(work)])
    assert {m.line: m.status for m in helper_and_unused} == {5: "killed", 15: "survived"}


def test_the_mutation_checks_traced_run_is_its_baseline_on_the_re_executed_modules(tmp_path, monkeypatch):
    """The traced run re-executes every module unmutated, as a mutant's child does, under the same write guard, before
    the tests: a module whose re-execution breaks (here it writes under the guarded root) fails the baseline, which
    tracing the once-imported module alone would not see."""
    import os
    import sys

    import pytest

    monkeypatch.syspath_prepend(str(REPO / "tests" / "mutation"))
    monkeypatch.syspath_prepend(str(tmp_path))
    import mutate

    (tmp_path / "noisy_mod.py").write_text(
        "import pathlib\n\npathlib.Path(__file__).with_suffix('.log').write_text('imported')\n\n\ndef one():\n    return 1\n"
    )
    (tmp_path / "test_noisy.py").write_text("import noisy_mod\n\n\ndef test_one():\n    assert noisy_mod.one() == 1\n")
    monkeypatch.chdir(tmp_path)
    sys.modules.pop("noisy_mod", None)
    mod = mutate.Module("noisy_mod.py", "noisy_mod", (tmp_path / "noisy_mod.py").read_bytes())
    guarded = (os.path.realpath(tmp_path) + os.sep,)  # the guard compares resolved paths
    results = {}

    def traced(items, roots):
        try:
            return mutate.trace_tests(items, [mod], roots=roots)
        except mutate.BaselineFailed as failure:
            return failure

    for name, roots in (("traced only", None), ("baseline", guarded), ("baseline, elsewhere", ("/nonexistent/",))):
        driver = mutate.Collector(lambda items, roots=roots: traced(items, roots))
        pytest.main(["-q", "-p", "no:cacheprovider", "test_noisy.py"], plugins=[driver])
        results[name] = driver.result
    assert isinstance(results["traced only"], dict) and "test_noisy.py::test_one" in results["traced only"]
    # re-executed under a guard that does not cover its file it passes (the control: re-execution works) ...
    assert isinstance(results["baseline, elsewhere"], dict) and "test_noisy.py::test_one" in results["baseline, elsewhere"]
    # ... and under one that does it cannot run: no mutant could be judged, and the failure names the module and why
    assert isinstance(results["baseline"], mutate.BaselineFailed)
    assert str(results["baseline"]).startswith("re-executing noisy_mod.py raised ") and "noisy_mod.log" in str(
        results["baseline"]
    )

    # a test that fails on the unmutated code is named (a new file: pytest keeps the module it imported)
    (tmp_path / "test_failing.py").write_text(
        "import noisy_mod\n\n\ndef test_one():\n    assert noisy_mod.one() == 1\n\n\n"
        "def test_two():\n    assert noisy_mod.one() == 2\n"
    )
    driver = mutate.Collector(lambda items: traced(items, ("/nonexistent/",)))
    pytest.main(["-q", "-p", "no:cacheprovider", "test_failing.py"], plugins=[driver])
    assert isinstance(driver.result, mutate.BaselineFailed) and str(driver.result) == "failing: test_failing.py::test_two"


def test_the_version_is_stated_once_in_pyproject():
    import crlrepro

    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert crlrepro.__version__ == project["version"]


def test_a_test_that_runs_the_pipeline_without_its_marker_is_refused_at_collection(tmp_path):
    """`pytest -m "not pipeline"` runs no pipeline: a test requesting the smoke run (directly or through
    smoke_artifacts) without @pytest.mark.pipeline stops the collection, naming it (tests/conftest.py); the suite's
    own collection passes this check on every run."""
    import subprocess
    import sys

    (tmp_path / "pytest.ini").write_text("[pytest]\nmarkers =\n    pipeline: runs the pipeline\n")
    (tmp_path / "conftest.py").write_text(
        "import importlib.util\n"
        f"spec = importlib.util.spec_from_file_location('repo_conftest', {str(REPO / 'tests' / 'conftest.py')!r})\n"
        "repo = importlib.util.module_from_spec(spec)\n"
        "spec.loader.exec_module(repo)\n"
        "smoke_run, smoke_artifacts = repo.smoke_run, repo.smoke_artifacts\n"
        "pytest_collection_modifyitems = repo.pytest_collection_modifyitems\n"
    )
    marked = "import pytest\n\n@pytest.mark.pipeline\ndef test_marked(smoke_run):\n    pass\n\ndef test_plain():\n    pass\n"
    (tmp_path / "test_cases.py").write_text(marked + "\ndef test_unmarked(smoke_artifacts):\n    pass\n")

    def collect():
        command = [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:xdist", "-p", "no:cacheprovider"]
        return subprocess.run([*command, "-m", "not pipeline"], cwd=tmp_path, capture_output=True, text=True, timeout=300)

    refused = collect()
    (error,) = [line for line in (refused.stdout + refused.stderr).splitlines() if "not marked @pytest.mark.pipeline" in line]
    assert refused.returncode != 0 and error.endswith("would run it: test_cases.py::test_unmarked"), error
    (tmp_path / "test_cases.py").write_text(marked)
    accepted = collect()
    assert accepted.returncode == 0 and "1/2 tests collected (1 deselected)" in accepted.stdout, accepted.stdout
