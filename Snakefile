# crlrepro: regenerate the figures and tables of three CRL theory papers.
#   snakemake --cores all                                  default (laptop) scale
#   snakemake --cores all --configfile configs/smoke.yaml  CI smoke scale
# See README.md.

from pathlib import Path

from snakemake.utils import min_version

min_version("9.11")


# Relative to the Snakefile, so that `--directory elsewhere` still starts from the defaults.
configfile: Path(workflow.basedir) / "config.yaml"


report: "workflow/report/workflow.rst"


# One file per study (crlrepro.studies.<study>: its rules in order, <exp>_train, computations and <exp>_table, figure,
# claims), then what spans the studies.
include: "workflow/rules/common.smk"
include: "workflow/rules/gmm_spectrum.smk"
include: "workflow/rules/gmm_mlp.smk"
include: "workflow/rules/lcgm.smk"
include: "workflow/rules/tsybakov.smk"
include: "workflow/rules/oracles.smk"
include: "workflow/rules/calibration.smk"
include: "workflow/rules/scaling.smk"
include: "workflow/rules/oce.smk"
include: "workflow/rules/supervised_view.smk"
include: "workflow/rules/report.smk"


# Rules that turn finished tables into figures and verdicts take seconds: on a cluster they run on
# the submitting host instead of each paying for a queue pass and two Snakemake start-ups as a
# SLURM job (no effect on a local run). The list comes from the registry (crlrepro.claims.registry).
workflow.localrules(*registry.local_rules())


rule all:
    default_target: True
    input:
        all_targets(),
        intermediates(),


# One paper at a time: `snakemake paper1` (its results, figures and claims; the summary needs all three).
rule paper1:
    input:
        paper_targets(1),
        intermediates(1),


rule paper2:
    input:
        paper_targets(2),
        intermediates(2),


rule paper3:
    input:
        paper_targets(3),
        intermediates(3),
