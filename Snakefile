# crlrepro: regenerate the figures and tables of three CRL theory papers.
#   snakemake --cores all                                  default (laptop) scale
#   snakemake --cores all --configfile configs/smoke.yaml  CI smoke scale
# See README.md.

from snakemake.utils import min_version

min_version("9.11")


configfile: "config.yaml"


report: "workflow/report/workflow.rst"


include: "workflow/rules/common.smk"
include: "workflow/rules/spectral.smk"
include: "workflow/rules/figures.smk"
include: "workflow/rules/report.smk"


rule all:
    default_target: True
    input:
        all_targets(),
