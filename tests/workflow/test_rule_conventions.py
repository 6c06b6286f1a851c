"""Every rule that runs a script repeats a short tail: its library closure as inputs, a log, a benchmark and the conda
environment. Snakemake has no per-rule defaults for these (a profile sets resources and threads, not log or
benchmark paths; a global ``conda:`` injects one environment into Snakemake's own process, not each job's; ``use rule
* ... with:`` is refused by its parser), so the tail stays in each rule and this test keeps it whole: a rule that
leaves a part out, or names another rule's log, fails here instead of silently losing its rerun guarantee or its
benchmark."""

import json
import sys
from pathlib import Path

import pytest
from conftest import copy_repo, run_watched

# Read in a subprocess: loading the workflow changes sys.path and the environment of the process that loads it.
LOAD = r"""
import json
from pathlib import Path
from snakemake.api import SnakemakeApi
from snakemake.settings.types import OutputSettings, ResourceSettings
with SnakemakeApi(OutputSettings()) as api:
    workflow = api.workflow(resource_settings=ResourceSettings(cores=1), snakefile=Path("Snakefile"), workdir=Path("."))
    rules = [{"name": r.name, "script": r.script, "input": [str(f) for f in r.input], "log": [str(f) for f in r.log],
              "benchmark": None if r.benchmark is None else str(r.benchmark), "conda": r.conda_env,
              "results": workflow._workflow.config["results"], "params": list(r.params.keys()),
              "priority": r.priority, "output": [str(f) for f in r.output]}
             for r in workflow._workflow.rules]
print("RULES=" + json.dumps(rules))
"""

# Rules without a benchmark, and why.
NO_BENCHMARK = {"publish": "copies a finished scale into docs/results/ on demand: not part of `all`, nothing to time"}


def _rules(workdir):
    proc = run_watched([sys.executable, "-c", LOAD], cwd=workdir)
    assert proc.returncode == 0, proc.stderr
    (line,) = [line for line in proc.stdout.splitlines() if line.startswith("RULES=")]
    return json.loads(line[len("RULES=") :])


def _stem(path, folder, suffix, results):
    prefix = f"{results}/{folder}/"
    if not (path.startswith(prefix) and path.endswith(suffix)):
        return None
    return path[len(prefix) : -len(suffix)]


def _names_rule(stem, rule):
    """A log or benchmark stem belongs to its rule: <rule>[/<wildcards>], or <rule's stem>/<variant> for the rules made
    one per variant (lcgm_sensitivity_train/ny0 of lcgm_sensitivity_train_ny0)."""
    return stem is not None and (stem.split("/")[0] == rule or stem.replace("/", "_") == rule)


def _tail_problems(workdir, rules) -> list[str]:
    """What each script rule of ``rules`` lacks of its tail, one line per problem naming the rule."""
    from crlrepro.workflow.pipeline import imported_library_files

    problems = []
    rules_dir = workdir / "workflow" / "rules"
    for rule in (r for r in rules if r["script"]):
        name, results = rule["name"], rule["results"]
        script = rules_dir / rule["script"]
        closure = {
            str(Path(p).resolve().relative_to(workdir.resolve()))
            for p in imported_library_files(script, workdir / "src" / "crlrepro")
        }
        missing = closure - set(rule["input"])
        if missing:
            problems.append(f"{name}: its script imports {sorted(missing)}, which are not its inputs (library(...))")
        logs = [_stem(path, "logs", ".log", results) for path in rule["log"]]
        if len(logs) != 1 or not _names_rule(logs[0], name):
            problems.append(f"{name}: log {rule['log']}, expected one {results}/logs/{name}[/...].log")
        if name in NO_BENCHMARK:
            if rule["benchmark"] is not None:
                problems.append(f"{name}: listed in NO_BENCHMARK but has one")
        else:
            bench = None if rule["benchmark"] is None else _stem(rule["benchmark"], "benchmarks", ".tsv", results)
            if bench is None or not logs or bench != logs[0]:
                problems.append(f"{name}: benchmark {rule['benchmark']}, expected {results}/benchmarks/ beside its log")
        # (a conda path is relative to the rule file that states it, as Snakemake reads it)
        if rule["conda"] is None or (rules_dir / rule["conda"]).resolve() != (workdir / "envs" / "crlrepro.yaml").resolve():
            problems.append(f"{name}: conda {rule['conda']!r}, expected envs/crlrepro.yaml")
    return problems


def test_every_script_rule_declares_its_library_log_benchmark_and_environment(tmp_path):
    workdir = copy_repo(tmp_path / "repo")
    rules = _rules(workdir)
    scripted = {r["name"] for r in rules if r["script"]}
    assert len(scripted) > 40 and {r["name"] for r in rules} - scripted == {"all", "paper1", "paper2", "paper3"}
    assert set(NO_BENCHMARK) <= scripted
    problems = _tail_problems(workdir, rules)
    assert not problems, "\n".join(problems)


def test_the_check_names_a_rule_without_its_tail(tmp_path):
    """The same check on a checkout whose gmm_spectrum rule lost its log and benchmark, whose figure rule lost its
    library inputs and whose claims rule lost its environment: each is named, and nothing else."""
    workdir = copy_repo(tmp_path / "repo")
    rules_file = workdir / "workflow" / "rules" / "gmm_spectrum.smk"
    text = rules_file.read_text()
    cuts = [
        '    log:\n        f"{RESULTS}/logs/gmm_spectrum.log",\n'
        '    benchmark:\n        f"{RESULTS}/benchmarks/gmm_spectrum.tsv"\n',
        '        library("figure_gmm_spectrum"),\n',
    ]
    for cut in cuts:
        assert text.count(cut) == 1, cut
        text = text.replace(cut, "")
    claims = text.index("rule claims_a1:")
    conda = text.index("    conda:\n        CONDA_ENV\n", claims)
    text = text[:conda] + text[conda:].replace("    conda:\n        CONDA_ENV\n", "", 1)
    rules_file.write_text(text)
    problems = _tail_problems(workdir, _rules(workdir))
    assert [p.split(":")[0] for p in problems] == ["gmm_spectrum", "gmm_spectrum", "figure_gmm_spectrum", "claims_a1"], problems


def _upstream(rules, name) -> set[str]:
    """The rules whose outputs ``name`` needs, transitively (an input matched against each rule's output pattern, a
    wildcard standing for any text)."""
    import re

    by_name = {r["name"]: r for r in rules}
    patterns = [(r["name"], re.compile(re.sub(r"\\\{[^}]*\\\}", ".+", re.escape(f)) + "$")) for r in rules for f in r["output"]]
    found, queue = set(), [name]
    while queue:
        for path in by_name[queue.pop()]["input"]:
            for producer, pattern in patterns:
                if producer not in found and pattern.match(path):
                    found.add(producer)
                    queue.append(producer)
    return found


def _chain_problems(rules, last="gap_rates") -> list[str]:
    """Each rule of C3's chain (``last`` and every rule upstream of it) whose priority is not the chain's."""
    priority = {r["name"]: r["priority"] for r in rules}
    chain = _upstream(rules, last) | {last}
    problems = [f"{last}: priority {priority[last]}, not above 0"] if priority[last] <= 0 else []
    problems += [
        f"{n}: priority {priority[n]}, upstream of {last} at {priority[last]}"
        for n in sorted(chain)
        if priority[n] != priority[last]
    ]
    return problems


def test_c3s_chain_goes_first_with_everything_it_waits_for(tmp_path):
    """The bootstrapped rate fits (gap_rates) ran last and alone in a run from clean; their chain takes a priority
    (common.smk: CHAIN_FIRST), and so does every rule upstream of them: one left at 0 would hold the chain back behind
    every other ready job. Taking it from oracle_table is named."""
    workdir = copy_repo(tmp_path / "repo")
    rules = _rules(workdir)
    assert {"scaling_train", "scaling_table", "oracle_table"} <= _upstream(rules, "gap_rates")
    assert not _chain_problems(rules)
    oracles = workdir / "workflow" / "rules" / "oracles.smk"
    text = oracles.read_text()
    assert text.count("    priority: CHAIN_FIRST\n") == 1
    oracles.write_text(text.replace("    priority: CHAIN_FIRST\n", ""))
    assert _chain_problems(_rules(workdir)) == ["oracle_table: priority 0, upstream of gap_rates at 10"]


def _script_names(path: Path) -> set[str]:
    """Every attribute name and string constant of a script: the names it can read its params by."""
    import ast

    tree = ast.parse(path.read_text())
    docstrings = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)}
    return {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)} | {
        n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docstrings
    }


def _keys_problems(workdir, rules) -> list[str]:
    """Where a study's rule and its declared keys (crlrepro.studies.<study>.RULE_KEYS) disagree: a declared rule the
    workflow lacks, a study rule that declares nothing, a declared param the rule does not take, or one its script never
    reads (a key declared but unread would rerun the rule for nothing)."""
    from crlrepro.studies.registry import EXPERIMENTS, RULE_STUDY

    by_name = {r["name"]: r for r in rules}
    family = lambda name: name.rsplit("_ny", 1)[0] if name.startswith("lcgm_sensitivity_train_ny") else name  # noqa: E731
    problems = [
        f"{rule}: declared by study {study.name}, but no rule has this name"
        for rule, study in RULE_STUDY.items()
        if not any(family(name) == rule for name in by_name)
    ]
    study_rules = {r for e in EXPERIMENTS for r in (*e.rules, e.claims_rule, e.figure_rule) if r}
    problems += [f"{rule}: a study's rule whose keys no study declares" for rule in sorted(study_rules - set(RULE_STUDY))]
    for name, rule in by_name.items():
        declared = RULE_STUDY.get(family(name))
        if declared is None:
            continue
        keys = declared.rule_keys[family(name)]
        problems += [
            f'{name}: does not take the declared key {k!r} as a param (params: **keys("{family(name)}"))'
            for k in keys
            if k not in rule["params"]
        ]
        script = workdir / "workflow" / "rules" / rule["script"] if rule["script"] else None
        if script is not None:
            read = _script_names(script.resolve())
            problems += [f"{name}: declares {k!r}, which its script never reads" for k in keys if k not in read]
    return problems


def test_every_study_rule_takes_exactly_the_keys_its_study_declares(tmp_path):
    workdir = copy_repo(tmp_path / "repo")
    problems = _keys_problems(workdir, _rules(workdir))
    assert not problems, "\n".join(problems)


def test_the_keys_check_names_an_unread_and_an_untaken_key(tmp_path):
    """The same check where tsybakov_table's params lost the declared keys and oce_identity's script stopped reading its
    declared block: each is named."""
    workdir = copy_repo(tmp_path / "repo")
    rules_file = workdir / "workflow" / "rules" / "tsybakov.smk"
    text = rules_file.read_text()
    assert text.count('**keys("tsybakov_table"),') == 1
    rules_file.write_text(text.replace('**keys("tsybakov_table"),', "unused=1,"))
    script = workdir / "workflow" / "scripts" / "oce" / "oce_identity.py"
    script.write_text(script.read_text().replace('"oce"', '"OCE"').replace("params.oce", "params.OCE"))
    problems = _keys_problems(workdir, _rules(workdir))
    assert sorted(p.split(":")[0] for p in problems) == ["oce_identity", "tsybakov_table", "tsybakov_table"], problems


def _covers(declared: str, key: str) -> bool:
    return key == declared or key.startswith(declared + ".")


# A key no plausible other value of which passes validation on this machine, and why.
UNCHANGEABLE = {"supervised_view.data.name": "another data set needs its files (CIFAR-10 is not on this machine)"}
# Rules of the report that read a config beyond a study's keys: publish records the whole config it publishes; the
# scales table compares the keys every claim depends on or leaves unreported (crlrepro.workflow.publish.comparison_config).
REPORT_READERS = {"publish", "scales_table"}


def _sweep_problems(sweep: dict) -> tuple[list[str], int]:
    """What a key sweep (tests/workflow/key_sweep.py) shows against the studies' declarations: a key that changes the
    params of a rule declaring no such key (beyond a rule whose job files it reshapes, and the report's), and a key
    only claims or figures read that changes a computation. Returns the problems and the number of such quiet keys."""
    from crlrepro.studies.registry import EXPERIMENTS, RULE_STUDY

    def family(rule):
        return rule.rsplit("_ny", 1)[0] if rule.startswith("lcgm_sensitivity_train_ny") else rule

    claims_rules = {e.claims_rule for e in EXPERIMENTS}
    figure_rules = {e.figure_rule for e in EXPERIMENTS if e.figure_rule}
    computations = {r for r in RULE_STUDY if r not in claims_rules | figure_rules}

    def readers(key, rules):
        out = {
            r
            for r in rules
            if family(r) in RULE_STUDY and any(_covers(k, key) for k in RULE_STUDY[family(r)].keys_read(family(r)))
        }
        out |= {e.claims_rule for e in EXPERIMENTS if any(_covers(k, key) for s in e.claims for k in s.depends_on)}
        # the rule for unreported settings: a claims rule reads its open keys' values and their declared ranges
        out |= {
            e.claims_rule
            for e in EXPERIMENTS
            if any(_covers(k, key) or _covers(f"unreported_ranges.{k}", key) for s in e.claims for k in s.unreported)
        }
        return out | (figure_rules if key.startswith("figures.") else set())

    problems, quiet = [], 0
    for key, result in sweep.items():
        if result["value"] is None:
            continue
        changed = set(result["params"])
        undeclared = changed - readers(key, changed) - set(result["files"]) - REPORT_READERS
        if undeclared:
            problems.append(f"{key} -> {result['value']!r} changes the params of {sorted(undeclared)}, which declare no such key")
        grid = set(result["files"]) - REPORT_READERS - {"all", "paper1", "paper2", "paper3"}
        if not grid and not any(family(r) in computations for r in readers(key, set(RULE_STUDY) | changed)):
            quiet += 1  # read by claims or figures only
            if any(family(r) in computations for r in changed):
                problems.append(f"{key}: read only by claims or figures, yet it changes {sorted(changed & computations)}")
    return problems, quiet


@pytest.mark.slow  # a workflow loaded once per config key (about a minute)
def test_every_config_key_changes_exactly_the_rules_that_read_it(tmp_path):
    """For every leaf key of the smoke scale, the loaded workflow with only that key changed differs in the params of
    the rules that read it as their study declares (RULE_KEYS, a claim's comparability keys, figures.* for the figure
    rules) and in no other, except where the key reshapes a rule's job files (its job grid: seeds, sweeps, dimensions)
    or the report records the config; so a key only claims or figures read reruns no training and no Monte Carlo.
    Snakemake reruns a job whose params changed and what reads its outputs, nothing else."""
    workdir = copy_repo(tmp_path / "repo")
    proc = run_watched([sys.executable, "tests/workflow/key_sweep.py", "configs/smoke.yaml"], cwd=workdir)
    assert proc.returncode == 0, proc.stderr[-3000:]
    (line,) = [line for line in proc.stdout.splitlines() if line.startswith("SWEEP=")]
    sweep = json.loads(line[len("SWEEP=") :])
    assert len(sweep) > 150
    assert {k for k, v in sweep.items() if v["value"] is None} == set(UNCHANGEABLE)
    problems, quiet = _sweep_problems(sweep)
    assert not problems, "\n".join(problems)
    assert quiet >= 10  # the claims' tolerances and levels, the figures' style


def test_the_sweep_check_names_a_rule_that_takes_a_whole_block():
    """Were tsybakov_table to take the whole tsybakov block again, A4's claims-only tolerance would change its params:
    named twice, as undeclared and as a Monte Carlo rerun for a claims key."""
    sweep = {
        "tsybakov.exact.tolerance": {"value": 0.1, "params": ["claims_a4", "figure_tsybakov", "tsybakov_table"], "files": []}
    }
    problems, quiet = _sweep_problems(sweep)
    assert quiet == 1 and len(problems) == 2 and all("tsybakov_table" in p for p in problems), problems
