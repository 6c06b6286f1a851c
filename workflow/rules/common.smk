import os
import sys
from pathlib import Path

# The workflow always runs the library in this checkout's src/ (the files it declares as inputs),
# in the Snakefile's process and in every job, whether or not crlrepro is pip-installed.
SRC = Path(workflow.basedir) / "src"
sys.path.insert(0, str(SRC))
# (Setting, not reading, PYTHONPATH: no envvars directive is needed.)
os.environ.update(PYTHONPATH=os.pathsep.join(filter(None, [str(SRC), os.getenv("PYTHONPATH")])))

from snakemake.exceptions import WorkflowError

from crlrepro.config import SSL_EXPERIMENTS, ConfigError, ssl_experiment_specs, sweep_points, validate_config
from crlrepro.pipeline import imported_library_files

try:
    validate_config(config, Path(workflow.basedir) / "workflow" / "schemas" / "config.schema.yaml")
except ConfigError as error:
    raise WorkflowError(str(error)) from None


RESULTS = "results"


wildcard_constraints:
    D=r"\d+",
    seed=r"\d+",


def workdir_relative(path):
    """A path under the working directory as a relative one: Snakemake records each job's input
    paths, so a checkout copied or moved together with its results/ and .snakemake/ stays up to
    date instead of rerunning everything."""
    relative = os.path.relpath(path)
    return str(path) if relative.startswith("..") else relative


def library(script):
    """The library files that workflow/scripts/<script>.py imports (its import closure): declared as
    inputs, editing a module reruns exactly the rules whose scripts use it."""
    scripts = Path(workflow.basedir) / "workflow" / "scripts"
    return [workdir_relative(path) for path in imported_library_files(scripts / f"{script}.py", SRC / "crlrepro")]


CONDA_ENV = "../../envs/crlrepro.yaml"
PAPER_VALUES = workdir_relative(SRC / "crlrepro" / "paper_values.yaml")


# Report captions: each figure's description (workflow/report/<template>.rst) and the experiments
# whose claims it shows; rule report_captions completes them with what the run measured.
REPORT_CAPTIONS = {
    "gmm_spectrum": {"template": "gmm_spectrum", "experiments": ["A1"]},
    "gmm_mlp": {"template": "gmm_mlp", "experiments": ["A2"]},
    "lcgm": {"template": "lcgm", "experiments": ["A3"]},
    "tsybakov": {"template": "tsybakov", "experiments": ["A4"]},
    "calibration": {"template": "calibration", "experiments": ["C2"]},
    "scaling": {"template": "scaling", "experiments": ["C3"]},
    "budget": {"template": "budget", "experiments": ["C4"]},
    **{e: {"template": "supervised_view", "experiments": [e]} for e in SSL_EXPERIMENTS},
    "summary": {"template": "summary", "experiments": "all"},
}


def caption(name):
    """The caption of report item ``name``: written by rule report_captions (so it can say what was
    measured), found by `snakemake --report` under this run's results/."""
    return os.path.abspath(f"{RESULTS}/report/captions/{name}.rst")


def figure_style(name):
    """Style of the figure called ``name``: figures.style, with figures.overrides[name] over it; keys
    left out take crlrepro.plots.FigureStyle's defaults. Only figure rules read it, each its own, so
    restyling one figure reruns that figure's rule and nothing else."""
    figures = config["figures"]
    return {**figures["style"], **figures["overrides"].get(name, {})}


def gmm_params():
    return dict(config["gmm"])


def gpu_request():
    """Training rules ask the scheduler for one GPU when the config asks for CUDA explicitly
    (device: auto uses a GPU when one is visible but requests none)."""
    return 1 if config["device"] == "cuda" else 0


def gmm_mlp_models():
    return expand(
        f"{RESULTS}/models/gmm_mlp/D{{D}}_seed{{seed}}.pt",
        D=config["approximation"]["dims"],
        seed=config["seeds"],
    )


def lcgm_models():
    return expand(
        f"{RESULTS}/models/lcgm/D{{D}}_seed{{seed}}.pt",
        D=config["lcgm"]["dims"],
        seed=config["seeds"],
    )


def all_targets():
    return [
        f"{RESULTS}/approximation/gmm_spectrum.csv",
        f"{RESULTS}/approximation/gmm_truncation.csv",
        f"{RESULTS}/approximation/gmm_convergence.csv",
        f"{RESULTS}/figures/gmm_spectrum.png",
        f"{RESULTS}/figures/gmm_spectrum.pdf",
        f"{RESULTS}/approximation/gmm_mlp.csv",
        f"{RESULTS}/figures/gmm_mlp.png",
        f"{RESULTS}/approximation/lcgm_probe.csv",
        f"{RESULTS}/approximation/lcgm_elbow.json",
        f"{RESULTS}/figures/lcgm.png",
        f"{RESULTS}/approximation/tsybakov.csv",
        f"{RESULTS}/figures/tsybakov.png",
        f"{RESULTS}/consistency/oracle.json",
        f"{RESULTS}/consistency/oce_identity.csv",
        f"{RESULTS}/consistency/calibration.csv",
        f"{RESULTS}/figures/calibration.png",
        f"{RESULTS}/consistency/scaling.csv",
        f"{RESULTS}/figures/scaling.png",
        f"{RESULTS}/consistency/budget.csv",
        f"{RESULTS}/figures/budget.png",
        *[f"{RESULTS}/supervised_view/{e}.csv" for e in SSL_EXPERIMENTS],
        *[f"{RESULTS}/figures/{e}.png" for e in SSL_EXPERIMENTS],
        f"{RESULTS}/summary.csv",
        f"{RESULTS}/summary.md",
        f"{RESULTS}/summary.html",
        *[f"{RESULTS}/report/captions/{name}.rst" for name in REPORT_CAPTIONS],
    ]


def claim_tables():
    """One claims table per experiment; later experiments add theirs here."""
    return [f"{RESULTS}/claims/{experiment}.csv" for experiment in ("A1", "A2", "A3", "A4", "C1", "C2", "C3", "C4", "C5", *SSL_EXPERIMENTS)]


wildcard_constraints:
    sweep="m|n|budget",
    regime="scrl|sscrl",


def calibration_points():
    c = config["consistency"]["calibration"]
    return expand(f"{RESULTS}/consistency/calibration/D{{D}}_seed{{seed}}.csv", D=c["dims"], seed=config["seeds"])


def negative_sampling_runs(sweeps):
    s = config["consistency"]["scaling"]
    return expand(f"{RESULTS}/consistency/runs/{{sweep}}_{{regime}}.csv", sweep=sweeps, regime=s["regimes"])


def scaling_model():
    """The consistency.scaling keys that shape one trained model (not the sweeps, seeds or fits)."""
    skip = {"regimes", "seeds", "m_sweep", "n_sweep", "bootstrap", "slope_tolerance"}
    return {k: v for k, v in config["consistency"]["scaling"].items() if k not in skip}


def ssl_specs(experiment):
    """(balance, augmentation, similarity, λ/ν) of every run of a paper-3 experiment (S1–S4)."""
    return ssl_experiment_specs(experiment, config["supervised_view"])


def ssl_models(experiment):
    return [f"{RESULTS}/models/ssl/{b}_{a}_{s}_r{r}_seed{seed}.pt"
            for b, a, s, r in ssl_specs(experiment) for seed in config["supervised_view"]["seeds"]]


def ssl_views(experiment):
    return sorted({f"{RESULTS}/supervised_view/views/{a}.pt" for _, a, _, _ in ssl_specs(experiment)})


def ssl_all_models():
    return sorted({path for e in SSL_EXPERIMENTS for path in ssl_models(e)})


def ssl_all_views():
    return sorted({path for e in SSL_EXPERIMENTS for path in ssl_views(e)})


def ssl_training():
    """The supervised_view keys that shape a training (not the sweeps, seeds or evaluation)."""
    keep = ("encoder", "projection_dim", "epochs", "batch_size", "learning_rate", "weight_decay", "temperature")
    return {k: config["supervised_view"][k] for k in keep}
