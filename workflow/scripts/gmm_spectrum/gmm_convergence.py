"""A1: the truncation table at every quadrature size and support width, with correct digits against the finest."""

from crlrepro.theory.gmm import LatentClassGMM
from crlrepro.theory.spectral import CONVERGENCE_NOT_APPLICABLE, convergence_table
from crlrepro.workflow.pipeline import ScriptRun

run = ScriptRun(snakemake)
p = run.params
table = convergence_table(LatentClassGMM.from_config(p["gmm"]), p["tau"], p["dims"], p["nodes_list"], p["support_widths"])
run.write_table(table, snakemake.output[0], missing=CONVERGENCE_NOT_APPLICABLE)
