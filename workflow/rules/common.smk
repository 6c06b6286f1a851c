import os
import re
import shlex
import sys
import time
from pathlib import Path

# The workflow always runs the library in this checkout's src/ (the files it declares as inputs),
# in the Snakefile's process and in every job, whether or not crlrepro is pip-installed.
SRC = Path(workflow.basedir) / "src"
sys.path.insert(0, str(SRC))
# (Setting, not reading, PYTHONPATH: no envvars directive is needed.)
os.environ.update(PYTHONPATH=os.pathsep.join(filter(None, [str(SRC), os.getenv("PYTHONPATH")])))

from snakemake.exceptions import WorkflowError

from crlrepro.studies import registry
from crlrepro.claims.spec import config_at, point_name, range_points, trains_ranges, unreported_ranges
from crlrepro.workflow.config import ConfigError, config_value, read_config_file, validate_config
from crlrepro.workflow.preflight import preflight_problems, requested_executor, start_problems
from crlrepro.studies.supervised_view import SSL_EXPERIMENTS, ssl_experiment_specs
from crlrepro.studies.gmm_mlp import convergence_study
from crlrepro.studies.lcgm import lcgm_range_dims, lcgm_sensitivity_dims, lcgm_sensitivity_reused
from crlrepro.studies.scaling import sweep_seeds, sweep_sources, sweep_trained_points
from crlrepro.runtime.artifacts import CONFIGFILES_ENV
from crlrepro.runtime.lifeline import MAIN_PROCESS_ENV, guard_jobs, process_identity
from crlrepro.workflow.folder import (
    effective_config_path,
    publish_problems,
    record_effective_config,
    scale_binding_problems,
)
from crlrepro.workflow.pipeline import UnsafeWrapperError, imported_library_files, interpreter_without_spaces
from crlrepro.workflow.publish import RUNS_LOG, comparison_config, folder_is_clean, published_scales, record_run

# A job ends when the run that started it ends, even through a kill -9 of this process (crlrepro.runtime.lifeline): the
# main process of a local run names itself to its jobs (not a cluster run's: its jobs run on under their own Snakemake).
if workflow.is_main_process:
    os.environ.pop(MAIN_PROCESS_ENV, None)  # an enclosing run's, not this one's
    if requested_executor(sys.argv, workflow.basedir) == "local" and process_identity() is not None:
        os.environ[MAIN_PROCESS_ENV] = process_identity()

RUN_CLOCK = {}
# Scheduling: of the jobs ready at once, Snakemake starts those of higher priority first. C3's chain (its sweeps'
# trainings -> scaling_table -> gap_rates, whose bootstrapped fits are the longest job downstream of a training at
# the default scale) has nothing upstream, and left at priority 0 it was reached last: in a run from clean its
# gap_rates ran alone for its last 4 minutes with the other core idle. Its rules, and oracle_table (an input of
# gap_rates), take CHAIN_FIRST (tests/workflow/test_rule_conventions.py checks every rule upstream of gap_rates).
CHAIN_FIRST = 10

try:
    for path in workflow.configfiles:  # Snakemake's own reading keeps the last of two equal keys
        read_config_file(path)
    validate_config(config, Path(workflow.basedir) / "workflow" / "schemas" / "config.schema.yaml", check_data=False)
except ConfigError as error:
    raise WorkflowError(str(error)) from None

# Snakemake runs each `script:` job as `<python> <script>` with the interpreter's path unquoted (upstream issue 2645).
# Where that path holds a space (a virtual environment inside a checkout at "My projects/crlrepro"), jobs run through a wrapper
# at a path without one, in a folder only this user can write (checked at every load, each job's too; anything else is
# refused naming the path). Not in a cluster run's main process, whose job commands name the interpreter too (refused below).
if not workflow.is_main_process or requested_executor(sys.argv, workflow.basedir) == "local":
    try:
        sys.executable = interpreter_without_spaces(sys.executable)
    except UnsafeWrapperError as error:
        raise WorkflowError(f"cannot start: {error}") from None
elif shlex.quote(sys.executable) != sys.executable:
    raise WorkflowError(
        f"cannot submit jobs: the Python interpreter's path {sys.executable!r} has a space or a shell character, and "
        "Snakemake's cluster job command does not quote it (snakemake/snakemake#2645); install the environment at a "
        "path without one (python -m venv /path/without/spaces/venv), or run locally (snakemake --cores all)"
    )

# Everything a run checks before its first job, checked in a dry run too (what `snakemake -n` accepts, the run
# accepts): the results folder and the scale it belongs to, the data, and where jobs run here (no --executor or a
# profile's executor asks for a cluster), memory, time and GPU. Snakemake picks the executor after reading this file
# (a dry run always its own), so the intent comes from the command line; onstart checks again with the executor the
# run really has. Only in Snakemake's main process: the processes that run single jobs were started by a run that
# passed them.
if workflow.is_main_process:
    problems = start_problems(config, local=requested_executor(sys.argv, workflow.basedir) == "local")
    if problems:
        raise WorkflowError("cannot start:\n  " + "\n  ".join(problems))
    # A shipped scale's name with other parameters runs (a parameter tried on top of a scale), but cannot be published
    # under that name: said now, not after the run.
    for problem in scale_binding_problems(config, workflow.basedir):
        print(f"crlrepro: warning: {problem}; `snakemake publish` will refuse these results", file=sys.stderr)


onstart:
    problems = preflight_problems(config, local=workflow.local_exec)
    if problems:
        raise WorkflowError("cannot start:\n  " + "\n  ".join(problems))
    # Whether this run starts from clean (no job completed in the folder yet), for its record below
    RUN_CLOCK["clean"] = folder_is_clean(RESULTS)
    # The folder records the scale and effective config that write into it (crlrepro.workflow.folder), before any job.
    record_effective_config(config, RESULTS)
    RUN_CLOCK["started"] = time.time()
    # Once this process ends, however it ends, a guardian ends the jobs it started (crlrepro.runtime.lifeline).
    RUN_CLOCK["guardian"] = guard_jobs()


def record_this_run(ok):
    """Each run's wall time, for the provenance of published results (crlrepro.workflow.publish.read_runs), whether it
    ended well or not (a failed or interrupted run's completed jobs are kept: its time is part of the scale's); not a
    --touch run's: it marks outputs up to date and computes nothing, so its seconds are no run's."""
    if "started" in RUN_CLOCK and not workflow.touch:
        record_run(
            Path(RESULTS) / RUNS_LOG,
            RUN_CLOCK["started"],
            time.time(),
            cores=workflow.resource_settings.cores,
            jobs=len(workflow.dag),
            local=workflow.local_exec,
            clean=RUN_CLOCK["clean"],
            ok=ok,
        )


onsuccess:
    record_this_run(ok=True)


onerror:
    record_this_run(ok=False)


# Each scale writes into its own folder (config key `results`), so running one never removes another's.
RESULTS = config["results"]


wildcard_constraints:
    D=r"\d+",
    seed=r"\d+",


def workdir_relative(path):
    """A path under the working directory as a relative one: Snakemake records each job's input
    paths, so a checkout copied or moved together with its results/ and .snakemake/ stays up to
    date instead of rerunning everything."""
    relative = os.path.relpath(path)
    return str(path) if relative.startswith("..") else relative


# The rebuild commands that errors advise (crlrepro.runtime.artifacts.rebuild_command) name the folder's record of this
# run's effective config (written when the run starts) as their one config file: followed literally, they rebuild this
# same scale, whichever --configfile and --config flags the run was started with.
os.environ[CONFIGFILES_ENV] = str(effective_config_path(RESULTS))


def library(script):
    """The library files that workflow/scripts/<study>/<script>.py imports (its import closure): declared as
    inputs, editing a module reruns exactly the rules whose scripts use it. Script names are unique across studies."""
    (path,) = (Path(workflow.basedir) / "workflow" / "scripts").glob(f"*/{script}.py")
    return [workdir_relative(p) for p in imported_library_files(path, SRC / "crlrepro", cache=IMPORTS_CACHE)]


# The module names each library file imports, kept across Snakemake's processes (each parse of the Snakefile asked
# for them again: ~0.7 s of every start-up), keyed by the file's content (crlrepro.workflow.pipeline)
IMPORTS_CACHE = Path(".snakemake") / "crlrepro" / "imports.json"


CONDA_ENV = "../../envs/crlrepro.yaml"
PAPER_VALUES = workdir_relative(SRC / "crlrepro" / "claims" / "paper_values.yaml")


# Report captions: each figure's description (workflow/report/<template>.rst) and the experiments
# whose claims it shows, from the registry; rule report_captions completes them with what the run measured.
REPORT_CAPTIONS = registry.report_captions()


def caption(name):
    """The caption of report item ``name``: written by rule report_captions (so it can say what was
    measured), found by `snakemake --report` under this run's results/."""
    return os.path.abspath(f"{RESULTS}/report/captions/{name}.rst")


def figure_style(name):
    """Style of the figure called ``name``: figures.style, with figures.overrides[name] over it; keys
    left out take crlrepro.runtime.figures.FigureStyle's defaults. Only figure rules read it, each its own, so
    restyling one figure reruns that figure's rule and nothing else."""
    figures = config["figures"]
    return {**figures["style"], **figures["overrides"].get(name, {})}


def gpu_request():
    """Training rules ask the scheduler for one GPU when the config asks for CUDA explicitly
    (device: auto uses a GPU when one is visible but requests none)."""
    return 1 if config["device"] == "cuda" else 0


def gmm_mlp_models():
    return expand(
        f"{RESULTS}/models/gmm_mlp/D{{D}}_seed{{seed}}.pt",
        D=config["approximation"]["dims"],
        seed=config["approximation"]["seeds"],
    )


def gmm_mlp_sample_study():
    """A2's convergence study in the sample size, as (pairs per epoch, seed, model file): the largest D trained on each
    of approximation.convergence_samples (A2's own models of that D, on approximation.train_samples, are evaluated
    once, by gmm_mlp_table)."""
    d = max(config["approximation"]["dims"])
    return [
        (n, seed, f"{RESULTS}/models/gmm_mlp_samples/N{n}/D{d}_seed{seed}.pt")
        for n, seed in convergence_study(config["approximation"])
    ]


def lcgm_models():
    return expand(
        f"{RESULTS}/models/lcgm/D{{D}}_seed{{seed}}.pt",
        D=config["lcgm"]["dims"],
        seed=config["seeds"],
    )


def lcgm_sensitivity_row(i):
    """What the job of row i of lcgm.sensitivity (its i-th noise_y) trains: [j, [D, ...]] for every separation j
    with a D that A3's own sweep has not trained (the library's lcgm_sensitivity_dims and lcgm_sensitivity_reused)."""
    lcgm, row = config["lcgm"], []
    for j in range(len(lcgm["sensitivity"]["separation"])):
        reused = set(lcgm_sensitivity_reused(lcgm, i, j))
        dims = [d for d in lcgm_sensitivity_dims(lcgm, i, j) if d not in reused]
        if dims:
            row.append([j, dims])
    return row


def lcgm_sensitivity_rows():
    """The rows of lcgm.sensitivity (noise_y indices) whose job trains any model."""
    return [i for i in range(len(config["lcgm"]["sensitivity"]["noise_y"])) if lcgm_sensitivity_row(i)]


def lcgm_sensitivity_row_models(i):
    """The model files row i's job writes, sep<j>_D<D>.pt, in the order of lcgm_sensitivity_row(i)."""
    return [
        f"{RESULTS}/models/lcgm_sensitivity/ny{i}/sep{j}_D{d}.pt" for j, dims in lcgm_sensitivity_row(i) for d in dims
    ]


def lcgm_sensitivity_models():
    """Every model lcgm.sensitivity evaluates, each file named: the models the grid's rows train, and at the grid's
    centre A3's models of the first seed for the D its sweep already trained."""
    grid = config["lcgm"]["sensitivity"]
    models = []
    for i in range(len(grid["noise_y"])):
        models += lcgm_sensitivity_row_models(i)
        for j in range(len(grid["separation"])):
            models += [
                f"{RESULTS}/models/lcgm/D{d}_seed{config['seeds'][0]}.pt"
                for d in lcgm_sensitivity_reused(config["lcgm"], i, j)
            ]
    return models


def all_targets():
    """Every experiment's results, figures and claims, the summary and the report captions (registry)."""
    return registry.all_targets(RESULTS)


def paper_targets(paper):
    """One paper's results, figures and claims (rule paper1, paper2, paper3)."""
    return registry.experiment_targets(RESULTS, registry.experiments_of(paper))


def intermediates(paper=None):
    """Every intermediate file (a model, a run table, a bank of views) of this scale that the rules of ``paper`` (all
    papers: None) read, as a target: Snakemake leaves a deleted intermediate file alone while what was computed
    from it is up to date, so without this a deleted model would stay missing after `snakemake` said "Nothing to be
    done". As a target it is rebuilt, and everything computed from it reruns. The files come from the rules'
    inputs; paper 3's models and views are read by jobs per run (wildcards), so they are listed by name."""
    names = {
        r
        for e in registry.EXPERIMENTS
        if paper in (None, e.paper)
        for r in (*e.rules, e.claims_rule, e.figure_rule)
        if r
    }
    files = {
        str(f)
        for r in workflow.rules
        if r.name in names
        for f in r.input
        if isinstance(f, str) and f.startswith(f"{RESULTS}/") and "{" not in f
    }
    if paper in (None, 3):
        files.update(path for e in SSL_EXPERIMENTS for path in ssl_models(e) + ssl_views(e))
    if paper in (None, 2):  # the trained range points' models, read by jobs per point (wildcards)
        files.update(path for name in point_names("A2") for path in gmm_mlp_point_models(name))
        files.update(path for name in point_names("A3") for path in lcgm_point_models(name))
    return sorted(files)


def claim_tables():
    return registry.claim_tables(RESULTS)


def keys(rule):
    """The params of a study's rule: the value of every config key its computation reads, as the study declares them
    (crlrepro.studies.<study>.RULE_KEYS, through the registry). Changing a key reruns exactly the rules that read it;
    a key only the claims or a figure read never reruns a training or a Monte Carlo."""
    return registry.rule_params(rule, config)


def claim_setting(*experiments):
    """This run's values of the config keys that the claims of ``experiments`` depend on (each
    compared with the paper's setting): a claims rule reruns when one of them changes."""
    depends = sorted({key for e in experiments for spec in registry.experiment(e).claims for key in spec.depends_on})
    return {key: config_value(config, key) for key in depends}


def claim_ranges(*experiments):
    """This run's value and the declared plausible range (``unreported_ranges``) of every key the claims of
    ``experiments`` leave unreported: the rule for unreported settings (crlrepro.claims.spec.unreported_ranges)."""
    return unreported_ranges([spec for e in experiments for spec in registry.experiment(e).claims], config)


def trained_points(experiment):
    """The points of the declared ranges that this scale trains for ``experiment``'s value rows, as (key, value): each
    open key at each of its other declared values (crlrepro.claims.spec.range_points), none unless the config asks
    (train_unreported_ranges: true, or a list naming ``experiment``)."""
    return range_points(claim_ranges(experiment)) if trains_ranges(config, experiment) else []


def point_names(experiment):
    """The names of ``experiment``'s trained range points (key=value, crlrepro.claims.spec.point_name), in order."""
    return [point_name(key, value) for key, value in trained_points(experiment)]


def point_pattern(experiment):
    """The {point} wildcard's constraint: exactly the names of ``experiment``'s trained points (none: matches nothing)."""
    names = point_names(experiment)
    return "|".join(re.escape(name) for name in names) if names else r"(?!)"


def point_keys(experiment, rule):
    """The params of ``rule`` at the range point named by the job's {point} wildcard: every key its computation reads
    (as keys(rule)), read from the config with that point's key set to its value (crlrepro.claims.spec.config_at)."""

    def at_point(name):
        def param(wildcards):
            ((key, value),) = [p for p in trained_points(experiment) if point_name(*p) == wildcards.point]
            return registry.rule_params(rule, config_at(config, key, value))[name]

        return param

    return {name: at_point(name) for name in registry.rule_params(rule, config)}


def range_tables(experiment):
    """The tables of ``experiment``'s trained range points, in the order of trained_points(experiment)."""
    study = {"A2": "gmm_mlp", "A3": "lcgm"}[experiment]
    return [f"{RESULTS}/approximation/ranges/{study}/{name}.csv" for name in point_names(experiment)]


def gmm_mlp_point_models(point):
    """The models of A2's range point named ``point``: every D and seed."""
    return expand(
        f"{RESULTS}/models/gmm_mlp_ranges/{point}/D{{D}}_seed{{seed}}.pt",
        D=config["approximation"]["dims"],
        seed=config["approximation"]["seeds"],
    )


def lcgm_point_models(point):
    """The models of A3's range point named ``point``: the whole D sweep for every seed (R² at D = K and the elbow),
    or D = K alone for every seed with lcgm.range_sweep false (crlrepro.studies.lcgm.lcgm_range_dims)."""
    return expand(
        f"{RESULTS}/models/lcgm_ranges/{point}/D{{D}}_seed{{seed}}.pt",
        D=lcgm_range_dims(config["lcgm"]),
        seed=config["seeds"],
    )


def range_elbows():
    """The elbows of A3's trained range points, in the order of trained_points("A3")."""
    return [f"{RESULTS}/approximation/ranges/lcgm/{name}_elbow.json" for name in point_names("A3")]


def gmm_mlp_range_models(wildcards):
    """The input of a gmm_mlp_range_table job (its point's models)."""
    return gmm_mlp_point_models(wildcards.point)


def lcgm_range_models(wildcards):
    """The input of an lcgm_range_table job (its point's models)."""
    return lcgm_point_models(wildcards.point)


wildcard_constraints:
    sweep="m|n|budget|n2|gain",
    regime="scrl|sscrl",


def calibration_points():
    c = config["consistency"]["calibration"]
    return expand(f"{RESULTS}/consistency/calibration/D{{D}}_seed{{seed}}.csv", D=c["dims"], seed=config["seeds"])


def scaling_runs(sweeps):
    """The run tables that hold every point of ``sweeps``, regime by regime: a point two sweeps share is trained by the
    first (the library's sweep_owner)."""
    s = config["consistency"]
    return [
        f"{RESULTS}/consistency/runs/{sweep}_{regime}.csv"
        for regime in s["scaling"]["regimes"]
        for sweep in sweep_sources(sweeps, s, regime)
    ]


def ssl_specs(experiment):
    """(balance, augmentation, similarity, loss, λ/ν) of every run of a paper-3 experiment (S1–S4)."""
    return ssl_experiment_specs(experiment, config["supervised_view"])


def ssl_name(spec):
    b, a, s, loss, r = spec
    return f"{b}_{a}_{s}_{loss}_r{r}"


def ssl_models(experiment):
    """One file per run spec: every seed of it, trained in one job."""
    return [f"{RESULTS}/models/ssl/{ssl_name(spec)}.pt" for spec in ssl_specs(experiment)]


def ssl_evaluations(experiment):
    return [f"{RESULTS}/supervised_view/runs/{ssl_name(spec)}.csv" for spec in ssl_specs(experiment)]


def ssl_views(experiment):
    return sorted({f"{RESULTS}/supervised_view/views/{spec[1]}.pt" for spec in ssl_specs(experiment)})


def ssl_all_evaluations():
    return sorted({path for e in SSL_EXPERIMENTS for path in ssl_evaluations(e)})


def publish_allowed(wildcards):
    """Nothing, once the run may publish: evaluated when Snakemake plans the publish job (a dry run too, before any
    job), it refuses results made by another scale or config, or a publication of this scale from another config
    (crlrepro.workflow.folder.publish_problems)."""
    problems = publish_problems(
        config,
        published_root=workdir_relative(Path(workflow.basedir) / "docs" / "results"),
        outputs=[*all_targets(), *intermediates()],
    )
    if problems:
        raise WorkflowError("cannot publish:\n  " + "\n  ".join(problems))
    return []
