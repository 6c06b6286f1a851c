"""C3 at Thm 4.5's mechanism: for a family of fixed scores, draws of the inner term (m negatives, anchors
integrated) at every m, of the in-batch inner term (batches of m + 1 pairs) at every m and of the outer term
(n anchors, negatives integrated) at every n."""

from crlrepro.experiments.generalization import fixed_score_deviations
from crlrepro.theory.gmm import LatentClassGMM
from crlrepro.workflow.pipeline import ScriptRun

run = ScriptRun(snakemake, seed=snakemake.params.deviation["seed"], device=snakemake.params.device)
p = run.params
draws = fixed_score_deviations(LatentClassGMM.from_config(p["gmm"]), p["tau"], p["deviation"], p["model"], device=run.device)
for name, table in draws.items():
    run.write_table(table, snakemake.output[name])
