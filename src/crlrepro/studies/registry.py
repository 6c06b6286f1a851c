"""The one registry of studies, experiments and claims: everything the workflow lists is derived from it.

Each study states itself in its own package (:mod:`crlrepro.studies`): its experiments, claims, costs and the keys its
rules read. This module gathers them in the papers' order. The workflow's targets, per-paper target rules, local rules,
claims tables, report captions, the summary's order, the cost model and the config schema's list of figure names all
come from here.
"""

from __future__ import annotations

from crlrepro.claims.spec import PAPERS, ROLES, ClaimSpec, Experiment, Paper, Study
from crlrepro.studies import calibration, gmm_mlp, gmm_spectrum, lcgm, oce, oracles, scaling, supervised_view, tsybakov

__all__ = [
    "all_targets",
    "claim_tables",
    "ClaimSpec",
    "COSTS",
    "Experiment",
    "experiment",
    "EXPERIMENT_ORDER",
    "experiment_targets",
    "EXPERIMENTS",
    "experiments_of",
    "figure_styles",
    "local_rules",
    "NOT_SIZES",
    "Paper",
    "PAPERS",
    "published_files",
    "report_captions",
    "ROLES",
    "RULE_STUDY",
    "rule_params",
    "schema_fragments",
    "SCALES_FILES",
    "Study",
    "STUDIES",
    "SUMMARY_FILES",
]

# In the order of the summary (paper 2's studies, then paper 1's, then paper 3's).
STUDIES: tuple[Study, ...] = tuple(
    s.STUDY for s in (gmm_spectrum, gmm_mlp, lcgm, tsybakov, oracles, calibration, scaling, oce, supervised_view)
)
EXPERIMENTS: tuple[Experiment, ...] = tuple(e for s in STUDIES for e in s.experiments)
# Every job's memory and time as functions of the config (each study's own), and the integer keys that size nothing.
COSTS = tuple(cost for s in STUDIES for cost in s.costs)
NOT_SIZES = {
    "seeds": "seed values (their number is a factor of the training costs)",
    "figures.style.dpi": "bounded by the schema (at most 2400)",
    "figures.overrides.*.dpi": "bounded by the schema (at most 2400)",
    **{key: why for s in STUDIES for key, why in s.not_sizes.items()},
}

# Which study each rule belongs to: its params are the keys the study declares it reads (Study.rule_keys).
RULE_STUDY = {rule: s for s in STUDIES for rule in s.rule_keys}
if len(RULE_STUDY) != sum(len(s.rule_keys) for s in STUDIES):
    raise ValueError("a rule is declared by two studies")


def schema_fragments() -> list:
    """Each study's config schema (``<study package>/schema.yaml``: its keys' types and bounds), in the studies' order;
    crlrepro.workflow.config.read_schema merges them into workflow/schemas/config.schema.yaml."""
    from pathlib import Path

    packages = (gmm_spectrum, gmm_mlp, lcgm, tsybakov, oracles, calibration, scaling, oce, supervised_view)
    return [path for p in packages if (path := Path(p.__file__).with_name("schema.yaml")).is_file()]


def rule_params(rule: str, config: dict) -> dict:
    """The params of ``rule`` (a study's rule): every config key its computation reads, from the study that owns it."""
    if rule not in RULE_STUDY:
        raise KeyError(f"no study declares rule {rule!r}; the studies declare {sorted(RULE_STUDY)}")
    return RULE_STUDY[rule].params(rule, config)


EXPERIMENT_ORDER = tuple(e.id for e in EXPERIMENTS)
SUMMARY_FILES = ("summary.csv", "summary.md", "summary.html")
SCALES_FILES = ("scales.csv", "scales.html", "verdict_board.png")  # this run beside the other published scales (rule
# scales_table): the table, and the verdict board


def experiment(identifier: str) -> Experiment:
    for e in EXPERIMENTS:
        if e.id == identifier:
            return e
    raise KeyError(f"unknown experiment {identifier!r}; known: {', '.join(EXPERIMENT_ORDER)}")


def experiments_of(paper: int) -> tuple[Experiment, ...]:
    if paper not in PAPERS:
        raise KeyError(f"unknown paper {paper!r}; known: {sorted(PAPERS)}")
    return tuple(e for e in EXPERIMENTS if e.paper == paper)


def figure_styles() -> list[str]:
    """The figure names a style override may use (``figures.overrides.<name>``)."""
    return list(dict.fromkeys(e.style for e in EXPERIMENTS if e.style))


def report_captions() -> dict[str, dict]:
    """Report item → its caption template and the experiments whose claims it shows."""
    captions: dict[str, dict] = {}
    for e in EXPERIMENTS:
        if e.figure:
            captions.setdefault(e.figure, {"template": e.caption, "experiments": []})["experiments"].append(e.id)
    captions["summary"] = {"template": "summary", "experiments": "all"}
    return captions


def local_rules() -> list[str]:
    """Rules that turn finished tables into figures, verdicts and captions (seconds each): on a
    cluster they run on the submitting host instead of paying for a queue pass."""
    rules = [r for e in EXPERIMENTS for r in (e.claims_rule, e.figure_rule) if r]
    return list(
        dict.fromkeys(["all", *(f"paper{p}" for p in PAPERS), "summary", "scales_table", "report_captions", "publish", *rules])
    )


def claim_tables(results: str) -> list[str]:
    return [f"{results}/{e.claims_table}" for e in EXPERIMENTS]


def experiment_targets(results: str, experiments=EXPERIMENTS) -> list[str]:
    """Every result file, figure (PNG and PDF) and claims table of ``experiments``."""
    files = []
    for e in experiments:
        files += [f"{results}/{t}" for t in e.tables]
        files += [f"{results}/figures/{e.figure}.{ext}" for ext in ("png", "pdf")] if e.figure else []
        files.append(f"{results}/{e.claims_table}")
    return list(dict.fromkeys(files))


def published_files() -> list[str]:
    """What `snakemake publish` copies into docs/results/<scale>/ (paths relative to the results folder): the summary
    (Markdown and CSV), every experiment's claims table and every figure (PNG)."""
    files = ["summary.md", "summary.csv", *(e.claims_table for e in EXPERIMENTS)]
    files += [f"figures/{e.figure}.png" for e in EXPERIMENTS if e.figure]
    return list(dict.fromkeys(files))


def all_targets(results: str) -> list[str]:
    """What `snakemake` builds by default: every experiment, the summary, the scales side by side and the report
    captions."""
    return [
        *experiment_targets(results),
        *(f"{results}/{f}" for f in (*SUMMARY_FILES, *SCALES_FILES)),
        *(f"{results}/report/captions/{name}.rst" for name in report_captions()),
    ]
