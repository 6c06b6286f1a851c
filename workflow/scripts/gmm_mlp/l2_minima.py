"""A2: the smallest L2 distance to τ·PMI any rank-D score attains, under each candidate definition of the
distance (the paper does not define it), and the zero score's distance as D = 0."""

from crlrepro.theory.gmm import LatentClassGMM
from crlrepro.theory.spectral import L2_MINIMA_NOT_APPLICABLE, l2_minima_table
from crlrepro.workflow.pipeline import ScriptRun

run = ScriptRun(snakemake)
p = run.params
run.write_table(
    l2_minima_table(LatentClassGMM.from_config(p["gmm"]), p["tau"], p["dims"], p["nodes"]),
    snakemake.output[0],
    missing=L2_MINIMA_NOT_APPLICABLE,
)
