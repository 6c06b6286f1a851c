#!/usr/bin/env python3
"""Mutation testing with the standard library and pytest only: how many small bugs do the tests catch?

    python tests/mutation/mutate.py --module src/crlrepro/claims/summary.py --tests tests/claims/test_summary.py \
        [--module ...] [--tests ...] [--jobs 2] [--equivalent tests/mutation/equivalent.txt] \
        [--report results/mutation/report.md] [--timeout 30] [--only 20-40,relative_verdict] [--min-score 90]

Each --module is parsed with ``ast``; every single-operator mutant gets the stable id
``path:LINE:COL:OPERATOR:original->replacement``, where LINE is a hash of the line's text (with
``.n`` for its n-th repeat in the file: ids survive edits elsewhere) and COL the operator's 0-based UTF-8
offset from the line's first non-blank character; reports show the line's number and text beside it.
Operators: cmp (< <= > >=, == !=, is / is not, in / not in), andor, not (``not x`` -> ``x``), arith
(+ -, * /, ** -> *, // -> /, also in ``x += y``), neg (``-x`` -> ``x``), const (int c -> c+1, 1 -> 0;
float c -> 1.1c, 0.0 -> 0.1), bool (True <-> False), minmax (min/max, np.min/np.max,
np.minimum/np.maximum). Strings, docstrings, annotations, f-string format specs,
``if __name__ == "__main__":`` blocks and lines marked ``# pragma: no mutate`` are not mutated.

The tests are collected once (pytest, in this process). Each mutant then runs in a forked child that
compiles the mutated AST in memory (nothing is written; an audit hook makes writes under the
modules' src/ fail), execs it into the imported module's namespace, rebinds what other modules took
from it (``from crlrepro.X import f``) and runs the collected test items with pytest's runtestprotocol,
stopping at the first failure (no second collection per mutant): passing, the mutant SURVIVED;
failing, erroring or running past its limit (--timeout, or 3× the unmutated time of its tests where that is longer:
the same check on a slower machine), it was KILLED. Only the tests that can see the mutant run: one
run of the unmutated tests (in a child, with a profile hook, every module first re-executed unmutated as a mutant's
would be: the baseline, which must pass) records which test calls which function of the modules, and a mutant inside
a function runs the tests that called that function, the fastest first, with the tests that killed the latest mutants
moved ahead (a test that never enters the function runs the unmutated code, so it cannot kill the mutant); a mutant
outside any function (module or
class level, run at import) runs all the tests. --equivalent lists ids (``id  # why``)
left out of the score, killed / (mutants - equivalent). Exit status: 0 when the score reaches
--min-score, 1 below it, 2 when the tests fail on the unmutated code.
"""

import argparse  # noqa: E401
import ast
import contextlib
import gc
import hashlib
import importlib
import io
import os
import re
import signal
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

import pytest

CMP = {
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.Is: "is",
    ast.IsNot: "is not",
    ast.In: "in",
    ast.NotIn: "not in",
}
CMP_SWAPS = {
    ast.Lt: (ast.LtE, ast.Gt),
    ast.LtE: (ast.Lt, ast.GtE),
    ast.Gt: (ast.GtE, ast.Lt),
    ast.GtE: (ast.Gt, ast.LtE),
    ast.Eq: (ast.NotEq,),
    ast.NotEq: (ast.Eq,),
    ast.Is: (ast.IsNot,),
    ast.IsNot: (ast.Is,),
    ast.In: (ast.NotIn,),
    ast.NotIn: (ast.In,),
}
ARITH = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.Pow: "**", ast.FloorDiv: "//"}
ARITH_SWAPS = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.Div: ast.Mult, ast.Pow: ast.Mult, ast.FloorDiv: ast.Div}
MINMAX = {"min": "max", "max": "min", "minimum": "maximum", "maximum": "minimum"}
PRAGMA = re.compile(rb"#\s*pragma:\s*no mutate")
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC
FS_EVENTS = {"os.remove", "os.rename", "os.rmdir", "os.mkdir", "os.truncate", "os.link", "os.symlink", "shutil.rmtree"}


BASELINE_TIMEOUT = 1800  # seconds for the unmutated tests: a slow machine must not fail the check before it starts


@dataclass
class Module:
    path: str  # relative to the working directory, as in the ids
    name: str  # dotted import name (src/crlrepro/claims/verdicts.py -> crlrepro.claims.verdicts)
    src: bytes  # read once at start: every mutant is made from this, in memory


@dataclass
class Mutant:
    id: str
    mod: Module
    line: int
    index: int  # the mutated node's position in ast.walk order
    apply: Callable = lambda n: n  # that node, in a fresh parse -> its replacement
    status: str = "pending"  # then survived, killed or timeout
    seconds: float = 0.0  # the child's wall time (0 where no test could see the mutant)


def op_position(lines, left, right):
    """(line, col) of the operator token between two operands (skipping ')', blanks, comments)."""
    row, col = left.end_lineno, left.end_col_offset
    while True:
        text = lines[row - 1]
        while col < len(text) and text[col : col + 1] in b" \t)\\":
            col += 1
        if col < len(text) and text[col : col + 1] != b"#" or row >= right.lineno:
            return row, col
        row, col = row + 1, 0


def setter(field, value, i=None):
    """A mutation setting ``node.field`` (or its i-th element) to ``value``."""

    def apply(node):
        getattr(node, field).__setitem__(i, value) if i is not None else setattr(node, field, value)
        return node

    return apply


def flip_boolop(i):
    """Flip only the i-th and/or of a BoolOp, as editing that one token of the source would."""

    def group(op, values):
        return values[0] if len(values) == 1 else ast.BoolOp(op(), values)

    def apply(node):
        v = node.values
        if isinstance(node.op, ast.And):  # a and b |and| c -> (a and b) or c
            return ast.BoolOp(ast.Or(), [group(ast.And, v[: i + 1]), group(ast.And, v[i + 1 :])])
        return group(ast.Or, v[:i] + [ast.BoolOp(ast.And(), v[i : i + 2])] + v[i + 2 :])  # a or (b and c)

    return apply


def sites(node, lines):
    """(line, col, operator, original, replacement, apply) for each mutation of ``node``."""
    if isinstance(node, ast.Compare):
        for i, op in enumerate(node.ops):
            line, col = op_position(lines, node.left if i == 0 else node.comparators[i - 1], node.comparators[i])
            for new in CMP_SWAPS[type(op)]:
                yield line, col, "cmp", CMP[type(op)], CMP[new], setter("ops", new(), i)
    elif isinstance(node, ast.BoolOp):
        old, new = ("and", "or") if isinstance(node.op, ast.And) else ("or", "and")
        for i in range(len(node.values) - 1):
            yield *op_position(lines, node.values[i], node.values[i + 1]), "andor", old, new, flip_boolop(i)
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.Not, ast.USub)):
        kind, old = ("not", "not") if isinstance(node.op, ast.Not) else ("neg", "-")
        yield node.lineno, node.col_offset, kind, old, "", lambda n: n.operand
    elif isinstance(node, (ast.BinOp, ast.AugAssign)) and type(node.op) in ARITH_SWAPS:
        operands = (node.left, node.right) if isinstance(node, ast.BinOp) else (node.target, node.value)
        new = ARITH_SWAPS[type(node.op)]
        yield *op_position(lines, *operands), "arith", ARITH[type(node.op)], ARITH[new], setter("op", new())
    elif isinstance(node, ast.Constant) and isinstance(node.value, bool):
        yield node.lineno, node.col_offset, "bool", str(node.value), str(not node.value), setter("value", not node.value)
    elif isinstance(node, ast.Constant) and type(node.value) in (int, float):
        v = node.value
        new = (0 if v == 1 else v + 1) if isinstance(v, int) else (v * 1.1 if v else 0.1)
        yield node.lineno, node.col_offset, "const", repr(v), repr(new), setter("value", new)
    elif isinstance(node, ast.Call) and isinstance(f := node.func, ast.Name) and f.id in ("min", "max"):
        yield f.lineno, f.col_offset, "minmax", f.id, MINMAX[f.id], lambda n: setattr(n.func, "id", MINMAX[n.func.id]) or n
    elif (
        isinstance(node, ast.Call)
        and isinstance(f := node.func, ast.Attribute)
        and f.attr in MINMAX
        and isinstance(f.value, ast.Name)
        and f.value.id in ("np", "numpy")
    ):
        yield (
            f.end_lineno,
            f.end_col_offset - len(f.attr),
            "minmax",
            f"{f.value.id}.{f.attr}",
            f"{f.value.id}.{MINMAX[f.attr]}",
            lambda n: setattr(n.func, "attr", MINMAX[n.func.attr]) or n,
        )


def enumerate_mutants(mod):
    tree, lines = ast.parse(mod.src, mod.path), mod.src.splitlines()
    skip, seen, mutants = set(), {}, []
    for node in ast.walk(tree):  # never mutated: __main__ blocks, f-string format specs, annotations
        subtrees = [getattr(node, "format_spec", None), getattr(node, "returns", None)]
        subtrees += [node.annotation] if isinstance(node, (ast.arg, ast.AnnAssign)) else []
        subtrees += (
            [node]
            if isinstance(node, ast.If) and {"__name__", "'__main__'"} <= {ast.unparse(n) for n in ast.walk(node.test)}
            else []
        )
        skip |= {id(n) for sub in subtrees if sub is not None for n in ast.walk(sub)}
    # A line is named by a hash of its text (and which repeat of that text it is), not by its number,
    # so that editing other lines leaves the ids, and the list of equivalent mutants, valid.
    counts, anchors = {}, []
    for text in lines:
        key = hashlib.sha1(text.strip()).hexdigest()[:8]
        counts[key] = counts.get(key, 0) + 1
        anchors.append(key + (f".{counts[key]}" if counts[key] > 1 else ""))
    for index, node in enumerate(ast.walk(tree)):
        for line, col, kind, old, new, apply in sites(node, lines) if id(node) not in skip else ():
            if not PRAGMA.search(lines[line - 1]):
                mid = f"{mod.path}:{anchors[line - 1]}:{col - indent(lines[line - 1])}:{kind}:{old}->{new}"
                seen[mid] = seen.get(mid, 0) + 1
                mutants.append(Mutant(mid + (f"~{seen[mid]}" if seen[mid] > 1 else ""), mod, line, index, apply))
    return sorted(mutants, key=lambda m: (m.line, int(m.id.split(":")[2]), m.id))


def indent(line) -> int:
    return len(line) - len(line.lstrip())


_PREPARED: dict = {}


def prepare(mod):
    """Parse ``mod`` once and find, once, every name another loaded module bound to one of its top-level objects
    (``from name import x [as y]``), in the process that forks the children: a child then mutates its own copy of the
    tree and rebinds only those names, instead of parsing again and reading every loaded module's namespace (whose
    refcount writes copied the parent's pages into each child). Cached; the parent runs no test, so what it finds
    stays true for every child it forks."""
    key = (mod.path, mod.src, id(sys.modules[mod.name]))  # the same file, text and loaded module: the same tree
    if key not in _PREPARED:
        tree = ast.parse(mod.src, mod.path)
        _PREPARED[key] = (tree, list(ast.walk(tree)), _bindings(sys.modules[mod.name]))
    return _PREPARED[key]


def _bindings(module) -> list:
    """(other module, attribute, id of the value) for every name another loaded module bound to one of ``module``'s
    top-level objects."""
    ours = {id(value) for value in module.__dict__.values()}
    return [
        (other, attr, id(value))
        for other in list(sys.modules.values())
        if other is not module and isinstance(getattr(other, "__dict__", None), dict)
        for attr, value in list(other.__dict__.items())
        if id(value) in ours
    ]


def mutated_code(m, prepared=None):
    """The mutant's module compiled; from :func:`prepare`'s tree where ``prepared`` (mutated in place: a forked
    child's own copy), else from a fresh parse."""
    tree, nodes = prepared[:2] if prepared is not None else (ast.parse(m.mod.src, m.mod.path), None)
    old = (nodes or list(ast.walk(tree)))[m.index]
    new = ast.copy_location(m.apply(old), old)
    for parent in ast.walk(tree) if new is not old else ():  # put the replacement in the original's place
        for field, value in ast.iter_fields(parent):
            if value is old:
                setattr(parent, field, new)
            elif isinstance(value, list):
                value[:] = [new if item is old else item for item in value]
    return compile(ast.fix_missing_locations(tree), m.mod.path, "exec", dont_inherit=True)


def install(code, name, rebind=True, bound=None):
    """Exec ``code`` in module ``name``'s namespace, then point the names other modules bound to its
    old top-level objects (``from name import x [as y]``) at the new ones (``bound``: those names as :func:`prepare`
    found them, (module, attribute, id of the value); None: read every loaded module's namespace now)."""
    module = sys.modules[name]
    old = dict(module.__dict__)
    if rebind and bound is None:
        bound = _bindings(module)
    exec(code, module.__dict__)
    new = {id(v): (k, module.__dict__[k], v) for k, v in old.items() if k in module.__dict__ and module.__dict__[k] is not v}
    for other, attr, key in bound if rebind and new else ():
        hit = new.get(key)  # the same small int or string under another name is a coincidence
        if hit and (attr == hit[0] or not isinstance(hit[2], (int, float, complex, str, bytes))):
            with contextlib.suppress(Exception):
                setattr(other, attr, hit[1])


def write_guard(roots):
    def hook(event, args):
        if event == "open" and isinstance(args[2], int) and args[2] & WRITE_FLAGS or event in FS_EVENTS:
            for path in args[:1] if event == "open" else args[:2]:
                if isinstance(path, (str, bytes, os.PathLike)) and os.path.realpath(os.fsdecode(path)).startswith(roots):
                    raise PermissionError(f"mutation testing: no writes under {roots}: {event} {path}")

    return hook


def function_scope(mod, line):
    """The (first, last) line of the innermost function around ``line`` of ``mod`` (decorators included), or None at
    module or class level, where a mutant acts at import."""
    inside = [(first, last) for first, last in _functions(mod.path, mod.src) if first <= line <= last]
    return max(inside) if inside else None  # the innermost starts last


_FUNCTIONS: dict = {}


def _functions(path, src):
    if path not in _FUNCTIONS:
        _FUNCTIONS[path] = [
            (min([node.lineno, *(d.lineno for d in node.decorator_list)]), node.end_lineno)
            for node in ast.walk(ast.parse(src, path))
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        ]
    return _FUNCTIONS[path]


class CallRecorder:
    """Records, per test, the functions of ``paths`` it calls (setup, call and teardown) as (path, first line of the
    code object): a profile hook on calls, far cheaper than tracing lines."""

    def __init__(self, paths):
        self.paths, self.calls, self.seconds = {os.path.realpath(p) for p in paths}, {}, {}
        self.current, self._real = None, {}

    def profile(self, frame, event, arg):
        if event == "call":
            name = frame.f_code.co_filename
            real = self._real.get(name)
            if real is None:
                real = self._real[name] = os.path.realpath(name)
            if real in self.paths:
                self.current.add((real, frame.f_code.co_firstlineno))


def run_items(items, recorder=None, failed=lambda nodeid: None) -> int:
    """Run collected pytest items in this process (each with its own setup and teardown): 0 when all pass, 1 at
    the first failure, whose id goes to ``failed`` (``recorder``: record each test's calls and its time, running them
    all)."""
    from _pytest.runner import runtestprotocol

    rc = 0
    for item in items:
        if recorder is not None:
            recorder.current = recorder.calls.setdefault(item.nodeid, set())
            sys.setprofile(recorder.profile)
        start = time.perf_counter()
        try:
            reports = runtestprotocol(item, nextitem=None, log=False)
        finally:
            sys.setprofile(None)
        if recorder is not None:
            recorder.seconds[item.nodeid] = time.perf_counter() - start
        if any(report.failed for report in reports):
            rc = 1
            failed(item.nodeid)
            if recorder is None:
                break
    return rc


class BaselineFailed(Exception):
    """The unmutated tests do not pass (which, or why): no mutant can be judged against them."""


def trace_tests(items, modules, seconds=None, roots=None):
    """Run the unmutated tests once in a forked child under :class:`CallRecorder`: {test id: [(path, line), ...]},
    the fastest test first (the child writes JSON to a pipe), so that a mutant meets the quick tests that may kill it
    before the slow ones; each test has its own setup and teardown, so the order changes no outcome.
    :class:`BaselineFailed` names the tests that fail, or the module whose re-execution raised. With ``roots`` the
    child first re-executes every module unmutated, as a mutant's child installs its module, under the same write
    guard: the run is then also the baseline, the tests passing on the re-executed code.
    A mutant's child re-executes its own module alone; a module whose lone re-execution breaks what another listed
    module holds of it (in a container, not a top-level name that ``install`` rebinds) would pass here and count every
    mutant as killed. ``--all-tests`` keeps the per-module baseline that sees that."""
    import json

    for mod in modules if roots is not None else ():
        prepare(mod)
    read, write = os.pipe()
    gc.freeze()  # as in run(): the child's collections skip the parent's objects
    try:
        pid = os.fork()
    except BaseException:
        gc.unfreeze()
        raise
    if pid != 0:
        gc.unfreeze()  # the child keeps its own copy frozen; the parent's go back to the collector at once
    if pid == 0:
        os.close(read)
        rc, report = 3, {"failed": [], "error": None, "traced": []}
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 1), os.dup2(devnull, 2)
            if roots is not None:
                sys.addaudithook(write_guard(roots))
                for mod in modules:
                    try:
                        prepared = prepare(mod)  # the parent's, prepared before the fork
                        install(mutated_code(unmutated(mod), prepared), mod.name, bound=prepared[2])
                    except BaseException as error:
                        report["error"] = f"re-executing {mod.path} raised {type(error).__name__}: {error}"
                        raise
            recorder = CallRecorder([mod.path for mod in modules])
            rc = run_items(items, recorder, report["failed"].append)
            fastest = sorted(recorder.calls, key=recorder.seconds.__getitem__)
            report["traced"] = [[test, sorted(recorder.calls[test]), recorder.seconds[test]] for test in fastest]
        finally:
            with contextlib.suppress(BaseException), os.fdopen(write, "w") as out:
                json.dump(report, out)
            os._exit(rc)
    os.close(write)
    with os.fdopen(read) as source:
        text = source.read()
    _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    try:
        report = json.loads(text)
    except ValueError:  # nothing, or a part, written: no coverage to trust
        raise BaselineFailed(f"the traced run's child exited {code} without its report") from None
    if code != 0:
        if report["error"] or report["failed"]:
            shown = report["failed"][:5] + ([f"and {len(report['failed']) - 5} more"] if len(report["failed"]) > 5 else [])
            raise BaselineFailed(report["error"] or f"failing: {', '.join(shown)}")
        raise BaselineFailed(f"the traced run's child exited {code}")
    traced = report["traced"]
    if seconds is not None:  # each test's unmutated time, for the mutants' time limits
        seconds.update({test: took for test, _, took in traced})
    return {test: calls for test, calls, _ in traced}  # test → its calls, fastest test first


def tests_for(m, coverage, scopes):
    """The test ids that call the function around mutant ``m``, or a function nested in it (in ``coverage``'s order:
    :func:`trace_tests`'s, the fastest first), or None: run them all."""
    scope = scopes[(m.mod.path, m.line)]
    if scope is None:
        return None
    path = os.path.realpath(m.mod.path)
    return [test for test, lines in coverage.items() if any(p == path and scope[0] <= n <= scope[1] for p, n in lines)]


class Collector:
    """A pytest plugin that takes over the session's test loop: ``work(items)`` runs there, while the session is
    alive (its items then run in forked children), and its result is kept."""

    def __init__(self, work):
        self.work, self.result = work, None

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session):
        if session.testsfailed or session.config.option.collectonly:
            return None
        self.result = self.work(session.items)
        return True


def unmutated(mod) -> "Mutant":
    """The identity "mutant" of ``mod``: its code re-executed as is (the baseline's)."""
    return Mutant(f"{mod.path} (unmutated, re-executed)", mod, 0, 0)


def child(m, items, roots, killer_fd=None):
    """The forked child: install the mutant, run the collected test items silently (stopping at the first failure),
    exit 0 when they pass, 1 when one fails (its id written to ``killer_fd``)."""
    rc = 3
    try:
        os.setpgid(0, 0)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1), os.dup2(devnull, 2)
        sys.addaudithook(write_guard(roots))
        prepared = prepare(m.mod)  # the parent's (run() prepares it before forking): this child's own copy
        install(mutated_code(m, prepared), m.mod.name, bound=prepared[2])
        rc = run_items(items, failed=lambda nodeid: killer_fd is not None and os.write(killer_fd, nodeid.encode()))
    finally:
        os._exit(rc)


def killers_first(items, killers):
    """``items`` with the tests that killed the latest mutants (``killers``, the latest first) moved to the front: the
    mutants run in line order, so a neighbour's killer is the likeliest to kill the next one first. Each test has its own
    setup and teardown, so the order changes no outcome, only how soon a failing test is met."""
    by_id = {item.nodeid: item for item in items}
    front = [by_id[k] for k in killers if k in by_id]
    chosen = set(killers) & set(by_id)
    return front + [item for item in items if item.nodeid not in chosen]


def run(mutants, tests, jobs, timeout, roots, progress=lambda done: None, select=lambda m: None, limit=None):
    """Each mutant in a forked child, ``jobs`` at a time; sets ``status``. ``select`` gives a mutant's tests (None:
    all of ``tests``); a mutant no test executes survives without a run."""
    pending, running, done, killers = list(mutants), {}, 0, []  # killers: the latest mutants' failing tests, latest first
    for mod in {m.mod.path: m.mod for m in mutants}.values():
        prepare(mod)
    # Everything the parent holds now goes to the collector's permanent generation: a child's collections then skip it
    # instead of writing to every object's header, which copied the parent's whole heap into each child (fork's
    # copy-on-write). Given back to the collector at the end.
    gc.freeze()
    try:
        while pending or running:
            while pending and len(running) < jobs:
                chosen = select(pending[0])
                if chosen == []:
                    pending.pop(0).status = "survived"
                    done += 1
                    progress(done)
                    continue
                sys.stdout.flush(), sys.stderr.flush()
                prepare(pending[0].mod)
                read, write = os.pipe()
                if (pid := os.fork()) == 0:
                    os.close(read)
                    child(pending[0], killers_first(tests if chosen is None else chosen, killers), roots, write)
                os.close(write)
                with contextlib.suppress(OSError):
                    os.setpgid(pid, pid)
                allowed = timeout if limit is None else limit(tests if chosen is None else chosen)
                running[pid] = (pending.pop(0), time.monotonic(), read, allowed)
            time.sleep(0.02)
            for pid, (m, start, read, allowed) in list(running.items()):
                m.seconds = time.monotonic() - start
                if (status := os.waitpid(pid, os.WNOHANG))[0]:
                    m.status = "survived" if os.waitstatus_to_exitcode(status[1]) == 0 else "killed"
                    with os.fdopen(read, "rb") as source:
                        killer = source.read().decode()
                    if killer:
                        killers = [killer] + [k for k in killers if k != killer][:7]
                elif time.monotonic() - start > allowed:
                    with contextlib.suppress(OSError):
                        os.killpg(pid, signal.SIGKILL)
                    os.waitpid(pid, 0)
                    os.close(read)
                    m.status = "timeout"
                else:
                    continue
                del running[pid]
                done += 1
                progress(done)
    finally:
        for pid, (_, _, read, _) in running.items():
            with contextlib.suppress(OSError):
                os.killpg(pid, signal.SIGKILL)
            with contextlib.suppress(OSError):
                os.close(read)
        gc.unfreeze()


def load_module(path):
    """The Module for a file under src/, and that src/ directory."""
    parts = os.path.abspath(path).split(os.sep)
    if "src" not in parts or not path.endswith(".py"):
        print(f"error: {path} is not a .py file under a src/ directory", file=sys.stderr)
        sys.exit(2)
    i = len(parts) - 1 - parts[::-1].index("src")
    name = ".".join(parts[i + 1 :])[:-3].removesuffix(".__init__")
    with open(path, "rb") as handle:
        return Module(os.path.relpath(path), name, handle.read()), os.path.realpath(os.sep.join(parts[: i + 1]))


def line_ranges(mod, only):
    """The line ranges ``only`` selects in ``mod``: N, A-B or the name of a function or class."""
    items = [s.strip() for s in only.split(",")]
    ranges = [(int(a), int(b or a)) for a, _, b in (s.partition("-") for s in items if re.fullmatch(r"\d+(-\d+)?", s))]
    return ranges + [
        (min([n.lineno] + [d.lineno for d in n.decorator_list]), n.end_lineno)
        for n in ast.walk(ast.parse(mod.src))
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n.name in items
    ]


def report(modules, mutants, equivalent, args, seconds):
    """(overall score, the Markdown summary: per module and overall, then every survivor)."""

    def row(label, ms):
        eq, killed = sum(m.id in equivalent for m in ms), sum(m.status in ("killed", "timeout") for m in ms)
        score = 100.0 * killed / (len(ms) - eq) if len(ms) > eq else 100.0
        return score, (
            f"| {label} | {len(ms)} | {eq} | {killed} | {sum(m.status == 'timeout' for m in ms)} | "
            f"{sum(m.status == 'survived' for m in ms)} | {score:.1f}% |"
        )

    score, overall = row("**overall**", mutants)
    survivors = [m for m in mutants if m.status == "survived"]
    timeouts = [m for m in mutants if m.status == "timeout"]

    def line(m):
        return f"- `{m.id}` (line {m.line}): `` {m.mod.src.splitlines()[m.line - 1].decode().strip()} ``"

    def spent(status):
        return sum(m.seconds for m in mutants if m.status == status)

    slowest = sorted((m for m in mutants if m.status != "timeout"), key=lambda m: -m.seconds)[:10]

    return score, "\n".join(
        [
            "# Mutation testing report",
            "",
            f"Tests: {', '.join(f'`{t}`' for t in args.tests)}. {len(mutants)} mutants, run in {seconds:.0f} s "
            f"({args.jobs} jobs, timeout {args.timeout:g} s). Score = killed / (mutants − equivalent).",
            "",
            "| module | mutants | equivalent (excluded) | killed | of which timeout | survived | score |",
            "|---|---|---|---|---|---|---|",
            *(row(f"`{mod.path}`", [m for m in mutants if m.mod is mod])[1] for mod in modules),
            overall,
            "",
            f"## Survivors ({len(survivors)})",
            "",
            *map(line, survivors),
            "",
            f"## Timeouts ({len(timeouts)}: counted as killed)",
            "",
            *map(line, timeouts),
            "",
            f"## Where the time went ({sum(m.seconds for m in mutants):.0f} mutant-seconds)",
            "",
            f"Killed {spent('killed'):.0f} s, survived {spent('survived'):.0f} s (every selected test runs), timeouts "
            f"{spent('timeout'):.0f} s. The slowest mutants that finished:",
            "",
            *(f"- {m.seconds:.1f} s, {m.status}: `{m.id}`" for m in slowest),
        ]
    ) + "\n"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--module", action="append", required=True, help="a .py file under src/ (repeatable)")
    p.add_argument("--tests", action="append", required=True, help="a test file (repeatable)")
    p.add_argument("--jobs", type=int, default=2, help="children run at once")
    p.add_argument("--equivalent", help="file of mutant ids left out of the score, one a line: id  # why")
    p.add_argument("--report", help="write the summary there too (Markdown)")
    p.add_argument(
        "--timeout", type=float, default=30, help="seconds per mutant (or 3× its tests' unmutated time); longer: killed"
    )
    p.add_argument("--only", help="comma-separated lines N, line ranges A-B, function or class names")
    p.add_argument("--min-score", type=float, default=90, help="percent; below it the exit status is 1")
    p.add_argument("--all-tests", action="store_true", help="run every test on every mutant (no selection by tracing)")
    args = p.parse_args(argv)
    sys.dont_write_bytecode = True
    modules, roots = zip(*map(load_module, args.module), strict=True)
    roots = tuple({root + os.sep for root in roots})
    everything = [m for mod in modules for m in enumerate_mutants(mod)]
    mutants = [m for m in everything if not args.only or any(a <= m.line <= b for a, b in line_ranges(m.mod, args.only))]
    equivalent = set()
    if args.equivalent:
        with open(args.equivalent, encoding="utf-8") as handle:
            equivalent = {line.split("#", 1)[0].strip() for line in handle} - {""}
        paths, known = {mod.path for mod in modules}, {m.id for m in everything}
        for stale in sorted(i for i in equivalent - known if i.split(":", 1)[0] in paths):
            print(f"warning: equivalent mutant {stale} no longer exists", file=sys.stderr)
    for mod in modules:
        if os.path.realpath(importlib.import_module(mod.name).__file__) != os.path.realpath(mod.path):
            print(f"warning: {mod.name} is imported from {sys.modules[mod.name].__file__}, not {mod.path}", file=sys.stderr)

    def work(items):
        by_id = {item.nodeid: item for item in items}
        print(f"{len(mutants)} mutants, {len(mutants) - len(todo)} listed equivalent", file=sys.stderr)
        select = lambda m: None  # noqa: E731
        seconds = {}
        if args.all_tests:  # the baseline: every module re-executed unmutated, one at a time, every test passing
            start, baselines = time.monotonic(), [unmutated(mod) for mod in modules]
            run(baselines, items, args.jobs, BASELINE_TIMEOUT, roots)  # the tests' own time here, not a mutant's
            for b in baselines:
                if b.status != "survived":
                    how = "time out" if b.status == "timeout" else "fail"
                    print(f"error: the tests {how} on {b.id}: see pytest {' '.join(args.tests)}", file=sys.stderr)
                    return 2, None
            print(f"baseline passes in {time.monotonic() - start:.1f} s", file=sys.stderr)
        else:  # the traced run is the baseline: every module re-executed unmutated, then every test, no time limit
            start = time.monotonic()
            try:
                coverage = trace_tests(items, modules, seconds, roots)
            except BaselineFailed as failure:
                print(
                    f"error: the tests fail on the unmutated, re-executed modules (the traced baseline), {failure}: "
                    f"see pytest {' '.join(args.tests)}",
                    file=sys.stderr,
                )
                return 2, None
            scopes = {(m.mod.path, m.line): function_scope(m.mod, m.line) for m in todo}

            def select(m):  # module level: every test, the fastest first too
                chosen = tests_for(m, coverage, scopes)
                return [by_id[test] for test in (coverage if chosen is None else chosen)]

            print(f"baseline passes: traced {len(coverage)} tests in {time.monotonic() - start:.1f} s", file=sys.stderr)

        def progress(done):
            if done % 20 == 0 or done == len(todo):
                print(
                    f"[{done}/{len(todo)}] killed {sum(m.status in ('killed', 'timeout') for m in todo)}, "
                    f"survived {sum(m.status == 'survived' for m in todo)}",
                    file=sys.stderr,
                )

        start = time.monotonic()

        def limit(chosen):  # --timeout, or 3× the unmutated time of the mutant's tests where that is longer
            return max(args.timeout, 3 * sum(seconds.get(item.nodeid, 0.0) for item in chosen) + 2)

        run(todo, items, args.jobs, args.timeout, roots, progress, select, limit)
        return 0, time.monotonic() - start

    todo = [m for m in mutants if m.id not in equivalent]
    driver = Collector(work)
    with contextlib.redirect_stdout(io.StringIO()) as out:
        # -n0: in this process (pyproject's addopts ask pytest-xdist for workers, whose loop would replace ours)
        rc = pytest.main(["-q", "-n0", "-p", "no:cacheprovider", *args.tests], plugins=[driver])
    if driver.result is None:
        print(out.getvalue(), f"error: collecting {args.tests} failed (pytest exit {int(rc)})", file=sys.stderr)
        return 2
    status, seconds = driver.result
    if status:
        return status
    score, text = report(modules, mutants, equivalent, args, seconds)
    print(text, end="")
    if args.report:
        os.makedirs(os.path.dirname(os.path.abspath(args.report)), exist_ok=True)
        with open(args.report + ".tmp", "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(args.report + ".tmp", args.report)
    return 0 if score >= args.min_score else 1


if __name__ == "__main__":
    sys.exit(main())
