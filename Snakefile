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


rule all:
    default_target: True
    input:
        all_targets(),
