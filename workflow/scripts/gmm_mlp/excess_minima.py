"""A2: the smallest excess risk L(s) − L* any rank-D score attains (by optimisation on the quadrature grid), and the
shape of the approximation bound, (L(s_D) − L*) / Σ_{i>D} λ_i for D = 1 … 16."""

from crlrepro.theory.gmm import LatentClassGMM
from crlrepro.theory.rank_d_excess import EXCESS_MINIMA_NOT_APPLICABLE, excess_minima_table
from crlrepro.workflow.pipeline import ScriptRun

run = ScriptRun(snakemake)
p = run.params
run.write_table(
    excess_minima_table(LatentClassGMM.from_config(p["gmm"]), p["tau"], p["dims"], p["nodes"]),
    snakemake.output[0],
    missing=EXCESS_MINIMA_NOT_APPLICABLE,
)
