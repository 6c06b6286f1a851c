"""C5: both sides of paper 1's Lemma 4.2 (OCE rewrite of log-mean-exp) for random Δ at every (m, τ)."""

from crlrepro.theory.bounds import oce_identity_table
from crlrepro.workflow.pipeline import ScriptRun

run = ScriptRun(snakemake, seed=snakemake.params.oce["seed"])
c = run.params["oce"]
run.write_table(oce_identity_table(c["ms"], c["taus"], c["score_bound"], c["seed"]), snakemake.output[0])
