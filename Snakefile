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


include: "workflow/rules/common.smk"
include: "workflow/rules/spectral.smk"
include: "workflow/rules/train.smk"
include: "workflow/rules/bounds.smk"
include: "workflow/rules/figures.smk"
include: "workflow/rules/supervised.smk"
include: "workflow/rules/report.smk"


# Rules that turn finished tables into figures and verdicts take seconds: on a cluster they run on
# the submitting host instead of each paying for a queue pass and two Snakemake start-ups as a
# SLURM job. (No effect on a local run.)
localrules:
    all,
    summary,
    report_captions,
    claims_a1, claims_a2, claims_a3, claims_a4,
    claims_c1, claims_c2, claims_c3, claims_c4, claims_c5,
    claims_ssl,
    figure_gmm_spectrum, figure_gmm_mlp, figure_lcgm, figure_tsybakov,
    figure_calibration, figure_scaling, figure_budget, figure_ssl,


rule all:
    default_target: True
    input:
        all_targets(),
