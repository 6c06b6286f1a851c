"""The library's layers: each subpackage of src/crlrepro imports only the layers below it (theory imports nothing of
crlrepro outside itself), no module imports itself back through others (no cycle), and every module sits in a
layer. The benchmarks import each other without a cycle too."""

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "crlrepro"
BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
# What each layer may import (besides itself). runtime and theory are the foundations, independent of each other.
ALLOWED = {
    "runtime": set(),
    "theory": set(),
    "learning": {"theory", "runtime"},
    "experiments": {"learning", "theory", "runtime"},
    "claims": {"learning", "theory", "runtime"},
    "studies": {"claims", "experiments", "learning", "theory", "runtime"},
    "workflow": {"studies", "claims", "experiments", "learning", "theory", "runtime"},
}
# Inside studies: each study (crlrepro.studies.<name>, a package) imports only itself and the layers below; the
# registry and the summary, which gather every study, import them (and nothing imports the registry from a study).
GATHERING = {"crlrepro.studies", "crlrepro.studies.registry", "crlrepro.studies.summary"}


def imported_modules(path: Path, root: Path, package: str) -> set[str]:
    """Dotted names of ``package`` that the file imports (absolute and relative imports, at any depth)."""
    tree = ast.parse(path.read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names if a.name.split(".")[0] == package}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                here = path.parent
                for _ in range(node.level - 1):
                    here = here.parent
                base = ".".join([*here.relative_to(root.parent).parts, *([node.module] if node.module else [])])
            else:
                base = node.module or ""
            if base.split(".")[0] == package:
                names.add(base)
                names |= {f"{base}.{a.name}" for a in node.names}
    return names


def module_files(root: Path) -> dict[str, Path]:
    return {
        ".".join(p.relative_to(root.parent).with_suffix("").parts).removesuffix(".__init__"): p
        for p in sorted(root.rglob("*.py"))
    }


def resolve(name: str, modules: dict[str, Path]) -> str | None:
    """The module a dotted import name refers to (the longest module prefix), or None."""
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        if ".".join(parts[:cut]) in modules:
            return ".".join(parts[:cut])
    return None


def graph(root: Path, package: str) -> dict[str, set[str]]:
    modules = module_files(root)
    return {
        m: {r for n in imported_modules(p, root, package) if (r := resolve(n, modules)) and r != m} for m, p in modules.items()
    }


def layer(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in ALLOWED else None


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    found, state, stack = [], {}, []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == "open":
                found.append(stack[stack.index(nxt) :] + [nxt])
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = "done"

    for node in sorted(edges):
        if node not in state:
            visit(node)
    return found


def test_every_module_is_in_a_layer():
    loose = [m for m in module_files(SRC) if m != "crlrepro" and layer(m) is None]
    assert loose == [], f"modules outside the layers {sorted(ALLOWED)}: {loose}"


def test_no_layer_imports_upward():
    edges = graph(SRC, "crlrepro")
    upward = []
    for module, targets in edges.items():
        mine = layer(module)
        for target in targets:
            theirs = layer(target)
            if mine and theirs and theirs != mine and theirs not in ALLOWED[mine]:
                upward.append(f"{module} -> {target}")
            if target == "crlrepro" and module != "crlrepro":
                upward.append(f"{module} -> crlrepro (the top package holds no code to import)")
    assert upward == [], upward


def test_the_theory_layer_is_numpy_and_scipy_only():
    """theory/ holds exact and quadrature mathematics: no module of it imports torch (the learning layer does)."""
    heavy = sorted(
        str(p.relative_to(SRC))
        for p in (SRC / "theory").rglob("*.py")
        if {n.split(".")[0] for n in _bench_imports(p)} & {"torch", "torchvision"}
    )
    assert heavy == [], heavy


def study_of(module: str) -> str | None:
    """The study a module belongs to (crlrepro.studies.<name>[.<module>]), None for the registry, the summary and
    everything outside the studies."""
    parts = module.split(".")
    return parts[2] if len(parts) > 2 and parts[1] == "studies" and module not in GATHERING else None


def test_a_study_imports_no_other_study_and_not_the_registry():
    """A study is a vertical slice: what it knows it holds itself, so adding to one study touches only it."""
    crossing = [
        f"{module} -> {target}"
        for module, targets in graph(SRC, "crlrepro").items()
        if study_of(module)
        for target in targets
        if target in GATHERING or (study_of(target) and study_of(target) != study_of(module))
    ]
    assert crossing == [], crossing
    studies = {study_of(m) for m in module_files(SRC)} - {None}
    assert len(studies) >= 9, studies


def test_the_library_and_the_benchmarks_have_no_import_cycle():
    assert cycles(graph(SRC, "crlrepro")) == []
    bench = {
        p.stem: {n.split(".")[0] for n in _bench_imports(p)} & {q.stem for q in BENCHMARKS.glob("*.py")} - {p.stem}
        for p in BENCHMARKS.glob("*.py")
    }
    assert cycles(bench) == []


def _bench_imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
    return names


@pytest.mark.parametrize("edges, expected", [({"a": {"b"}, "b": {"a"}}, [["a", "b", "a"]]), ({"a": {"b"}, "b": set()}, [])])
def test_the_cycle_finder_finds_a_cycle(edges, expected):
    assert cycles(edges) == expected


def test_an_upward_import_is_caught(tmp_path):
    root = tmp_path / "crlrepro"
    (root / "theory").mkdir(parents=True)
    (root / "learning").mkdir()
    for f in ("__init__.py", "theory/__init__.py", "learning/__init__.py", "learning/metrics.py"):
        (root / f).write_text("")
    (root / "theory" / "tsybakov.py").write_text("from crlrepro.learning.metrics import loglog_slope\n")
    edges = graph(root, "crlrepro")
    assert edges["crlrepro.theory.tsybakov"] == {"crlrepro.learning.metrics"}
    assert "learning" not in ALLOWED[layer("crlrepro.theory.tsybakov")]


def test_each_public_api_listed_in_all_names_exactly_the_modules_public_definitions():
    """Every module lists its public API in ``__all__`` (the subpackages' ``__init__``, a docstring only, excepted):
    every listed name exists, and every public function, class and constant the module defines is listed (a new one
    cannot be left out); names it re-exports are allowed."""
    import ast
    import importlib

    checked, without = 0, []
    for path in sorted(SRC.rglob("*.py")):
        tree = ast.parse(path.read_text())
        if not any(isinstance(n, ast.Assign) and any(getattr(t, "id", None) == "__all__" for t in n.targets) for n in tree.body):
            docstring_only = len(tree.body) == 1 and isinstance(tree.body[0], ast.Expr)
            if not (path.name == "__init__.py" and path.parent != SRC and docstring_only):
                without.append(str(path.relative_to(SRC.parent)))
            continue
        name = ".".join(path.relative_to(SRC.parent).with_suffix("").parts)
        module = importlib.import_module(name)
        listed = set(module.__all__)
        assert len(listed) == len(module.__all__), f"{name}: __all__ lists a name twice"
        assert all(hasattr(module, n) for n in listed), (
            f"{name}: __all__ lists {sorted(n for n in listed if not hasattr(module, n))}"
        )
        defined = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef)) and not n.name.startswith("_")}
        defined |= {
            t.id
            for n in tree.body
            if isinstance(n, ast.Assign)
            for t in n.targets
            if isinstance(t, ast.Name) and t.id.isupper() and not t.id.startswith("_")
        }
        assert defined <= listed, f"{name}: public but not in __all__: {sorted(defined - listed)}"
        checked += 1
    assert not without, f"no __all__: {without}"
    assert checked >= 40
