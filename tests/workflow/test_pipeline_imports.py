"""The import closure of a workflow script (crlrepro.workflow.pipeline.imported_library_files), the inputs that make editing a
library module rerun exactly the rules whose scripts use it: modules of subpackages, the packages' __init__ files
on the way, relative imports, and names that are attributes rather than modules."""

from pathlib import Path

from crlrepro.workflow.pipeline import imported_library_files


def write(path: Path, text: str = "") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_the_closure_follows_subpackages_their_inits_and_relative_imports(tmp_path):
    pkg = tmp_path / "src" / "crlrepro"
    write(pkg / "__init__.py")
    write(pkg / "theory" / "__init__.py")
    write(pkg / "theory" / "numerics.py")
    write(pkg / "theory" / "spectral.py", "from .numerics import f\nfrom . import quadrature\n")
    write(pkg / "theory" / "quadrature.py", "import numpy\n")
    write(pkg / "learning" / "__init__.py")
    write(pkg / "learning" / "losses.py", "from crlrepro.theory.numerics import f\n")
    write(pkg / "learning" / "unused.py")
    write(pkg / "claims" / "__init__.py", "")
    write(pkg / "claims" / "verdicts.py", "from ..theory import spectral\n")
    script = write(
        tmp_path / "script.py", "from crlrepro.learning.losses import info_nce\nfrom crlrepro.claims import verdicts\n"
    )
    closure = {str(Path(p).relative_to(pkg)) for p in imported_library_files(script, pkg)}
    assert closure == {
        "__init__.py",
        "learning/__init__.py",
        "learning/losses.py",
        "theory/__init__.py",
        "theory/numerics.py",
        "claims/__init__.py",
        "claims/verdicts.py",
        "theory/spectral.py",
        "theory/quadrature.py",
    }
    # an attribute of a module is not a file; a module of the top package still resolves
    write(pkg / "registry.py")
    other = write(tmp_path / "other.py", "import crlrepro.registry\nfrom crlrepro.theory.numerics import f, g\n")
    assert {str(Path(p).relative_to(pkg)) for p in imported_library_files(other, pkg)} == {
        "__init__.py",
        "registry.py",
        "theory/__init__.py",
        "theory/numerics.py",
    }


def test_an_import_inside_any_block_is_found(tmp_path):
    """Imports made where they are used (a function, a method, a branch, a loop, try/except/finally, with, match): each
    module is in the closure, and a name only mentioned in an expression or a string is not."""
    pkg = tmp_path / "src" / "crlrepro"
    write(pkg / "__init__.py")
    names = ["in_def", "in_method", "in_if", "in_else", "in_for", "in_try", "in_except", "in_finally", "in_with", "in_case"]
    for name in names:
        write(pkg / f"{name}.py")
    write(pkg / "mentioned.py")
    script = write(
        tmp_path / "script.py",
        "def f():\n    def g():\n        from crlrepro import in_def\n"
        "class C:\n    def m(self):\n        import crlrepro.in_method\n"
        "if x:\n    from crlrepro import in_if\nelse:\n    from crlrepro import in_else\n"
        "for i in y:\n    from crlrepro import in_for\n"
        "try:\n    from crlrepro import in_try\nexcept ImportError:\n    from crlrepro import in_except\n"
        "finally:\n    from crlrepro import in_finally\n"
        "with z:\n    from crlrepro import in_with\n"
        "match v:\n    case 1:\n        from crlrepro import in_case\n"
        "text = 'from crlrepro import mentioned'\nvalue = (lambda: __import__('crlrepro.mentioned'))\n",
    )
    closure = {str(Path(p).relative_to(pkg)) for p in imported_library_files(script, pkg)}
    assert closure == {"__init__.py", *(f"{name}.py" for name in names)}


REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "src" / "crlrepro"
SCRIPTS = sorted((REPO / "workflow" / "scripts").glob("*/*.py"))  # one folder per study, and report/
# Modules no workflow script imports, each with the reason (the rest of the library is in some rule's inputs):
# they serve the Snakefile itself, the command line, or the benchmarks.
NOT_IN_ANY_SCRIPT = {
    "workflow/cli.py": "the `crlrepro` command line",
    "workflow/config.py": "validated by the Snakefile before any job; a job gets its keys as params",
    "workflow/preflight.py": "the start checks, made by the Snakefile and `crlrepro check-config` before any job",
    "workflow/verify.py": "`crlrepro verify`",
    "workflow/compare.py": "`crlrepro compare`",
    "workflow/folder.py": "the Snakefile (a results folder's scale record, the publish checks) and `crlrepro verify`",
    "workflow/mathtext.py": "the documentation site's build (docs/hooks.py marks the formulas of every page for KaTeX)",
}


def _executed_imports(scripts: list[Path]) -> dict[str, set[str]]:
    """Per script, the crlrepro files Python itself loads when the script's top-level crlrepro imports run (every
    other statement skipped): the oracle the static closure is checked against. One interpreter for all scripts, the
    crlrepro modules dropped from sys.modules before each (third-party ones stay loaded: they are not inputs)."""
    import ast
    import json
    import subprocess
    import sys

    probes = {}
    for script in scripts:
        tree = ast.parse(script.read_text())
        probes[script.name] = [
            ast.unparse(node)
            for node in tree.body
            if isinstance(node, (ast.Import, ast.ImportFrom))
            and any(
                (alias.name if isinstance(node, ast.Import) else (node.module or "")).startswith("crlrepro")
                for alias in node.names
            )
        ]
    program = (
        "import json, sys\n"
        f"probes = json.loads({json.dumps(json.dumps(probes))})\n"
        "loaded = {}\n"
        "for name, imports in probes.items():\n"
        "    for module in [m for m in sys.modules if m.split('.')[0] == 'crlrepro']:\n"
        "        del sys.modules[module]\n"
        "    exec('\\n'.join(imports), {})\n"
        "    loaded[name] = sorted(m.__file__ for n, m in sys.modules.items()\n"
        "                          if n.split('.')[0] == 'crlrepro' and getattr(m, '__file__', None))\n"
        "print(json.dumps(loaded))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", program],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": str(REPO / "src"), "PATH": "/usr/bin:/bin"},
    ).stdout
    return {name: {str(Path(f).resolve().relative_to(PACKAGE)) for f in files} for name, files in json.loads(out).items()}


def test_every_module_a_script_really_loads_is_in_its_rules_inputs_and_every_module_reaches_a_rule():
    """For every workflow script, the modules Python loads when the script's crlrepro imports run are a subset of its
    static closure (the rule's declared inputs), so editing any of them reruns the rule; and every module of every
    subpackage, enumerated from the package on disk, is in some script's closure or named in NOT_IN_ANY_SCRIPT with
    its reason (a new module cannot fall outside the rerun guarantee unnoticed)."""
    closures = {
        script.name: {str(Path(p).resolve().relative_to(PACKAGE)) for p in imported_library_files(script, PACKAGE)}
        for script in SCRIPTS
    }
    executed = _executed_imports(SCRIPTS)
    assert set(executed) == set(closures) and all(executed.values())
    for name, loaded in executed.items():
        missing = loaded - closures[name]
        assert not missing, f"{name}: Python loads {sorted(missing)}, which its rule does not declare"
    modules = {str(p.relative_to(PACKAGE)) for p in PACKAGE.rglob("*.py")}
    reached = set().union(*closures.values())
    assert modules - reached == set(NOT_IN_ANY_SCRIPT), sorted(modules - reached)
    assert set(NOT_IN_ANY_SCRIPT) <= modules


def test_the_closures_cache_gives_the_same_closure_and_reads_an_edited_file_again(tmp_path):
    """With a cache (the Snakefile's, kept across Snakemake's processes) the closure is the one computed without it, a
    file whose text changed is parsed again (the cache is keyed by content), and a damaged cache is ignored and
    rewritten: the cache holds names (JSON), never code. (Each closure below runs as in a new process.)"""
    import json

    from crlrepro.workflow import pipeline

    def fresh_process():
        pipeline._RESOLVED.clear()
        pipeline._ImportNames._stored.clear(), pipeline._ImportNames._used.clear()

    pkg = tmp_path / "src" / "crlrepro"
    write(pkg / "__init__.py")
    write(pkg / "theory" / "__init__.py")
    write(pkg / "theory" / "numerics.py")
    write(pkg / "theory" / "spectral.py", "from .numerics import f\n")
    write(pkg / "claims.py")
    script = write(tmp_path / "script.py", "from crlrepro.theory import spectral\n")
    cache = tmp_path / ".snakemake" / "crlrepro" / "imports.json"

    def closure(**kwargs):
        fresh_process()
        return {str(Path(p).relative_to(pkg)) for p in imported_library_files(script, pkg, **kwargs)}

    plain = {"__init__.py", "theory/__init__.py", "theory/spectral.py", "theory/numerics.py"}
    assert closure() == plain and not cache.exists()
    assert closure(cache=cache) == plain and cache.is_file()
    stored = json.loads(cache.read_text())
    # one entry per (place in the package, text): the script, spectral, and the empty files of crlrepro and crlrepro.theory
    assert len(stored) == 4 and all(isinstance(v, list) for v in stored.values())
    real = pipeline._imported_names
    pipeline._imported_names = lambda *a: (_ for _ in ()).throw(AssertionError("parsed, not read from the cache"))
    try:
        assert closure(cache=cache) == plain  # read back: nothing is parsed
    finally:
        pipeline._imported_names = real
    write(pkg / "theory" / "spectral.py", "from .numerics import f\nfrom crlrepro import claims\n")  # an edit
    assert closure(cache=cache) == plain | {"claims.py"}
    stored = json.loads(cache.read_text())
    cache.write_text(json.dumps({k: ["crlrepro./etc/passwd"] for k in stored}))  # not module names: ignored, parsed again
    assert closure(cache=cache) == plain | {"claims.py"}
    cache.write_text("{not json")  # damaged: ignored, then rewritten
    assert closure(cache=cache) == plain | {"claims.py"} and isinstance(json.loads(cache.read_text()), dict)
