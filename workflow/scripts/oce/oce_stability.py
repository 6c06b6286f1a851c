"""C5: the step of paper 1's Lemma 4.3, the uniform stability of the OCE minimiser, at every (m, τ)."""

from crlrepro.theory.stability import oce_stability_table
from crlrepro.workflow.pipeline import ScriptRun

run = ScriptRun(snakemake, seed=snakemake.params.oce["seed"])
c = run.params["oce"]
run.write_table(oce_stability_table(c["ms"], c["taus"], c["score_bound"], c["seed"]), snakemake.output[0])
