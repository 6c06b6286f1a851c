"""A1 beyond the paper's mixture: the polynomial-decay corollary's distribution (views on the circle, eigenvalues
∝ i^(−γ)), its tail sums and truncation excess risks per γ and D."""

from crlrepro.theory.circular_pmi import POLYNOMIAL_DECAY_NOT_APPLICABLE, polynomial_decay_table
from crlrepro.workflow.pipeline import ScriptRun

run = ScriptRun(snakemake)
p = run.params["polynomial"]
table = polynomial_decay_table(
    [*p["gammas"], *p["confirm_gammas"]], p["amplitude"], p["modes"], run.params["tau"], p["dims"], p["nodes"]
)
run.write_table(table, snakemake.output[0], missing=POLYNOMIAL_DECAY_NOT_APPLICABLE)
