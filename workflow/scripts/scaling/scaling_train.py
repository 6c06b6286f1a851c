"""C3/C4, one (sweep, regime): train and evaluate a model at every (n, m) of the sweep, for every seed
(one job, so that the start-up of Python and torch is paid once per sweep, not per seed; the seeds of a point
train as one batched ensemble)."""

import pandas as pd

from crlrepro.experiments.generalization import run_negative_sampling
from crlrepro.theory.gmm import LatentClassGMM
from crlrepro.workflow.pipeline import ScriptRun

wildcards = snakemake.wildcards
run = ScriptRun(snakemake, device=snakemake.params.device)
p = run.params
gmm = LatentClassGMM.from_config(p["gmm"])
by_point = []  # per point, one row per seed
for k, (n, m) in enumerate(p["points"]):
    by_point.append(run_negative_sampling(gmm, wildcards.regime, n, m, p["seeds"], p["tau"], p["model"], device=run.device))
    run.log.info("[%d/%d] n=%d m=%d, seeds %s: %s", k + 1, len(p["points"]), n, m, p["seeds"], by_point[-1])
table = pd.DataFrame([point[i] for i in range(len(p["seeds"])) for point in by_point])  # seed by seed, as the sweep lists
table.insert(0, "sweep", wildcards.sweep)
run.write_table(table, snakemake.output[0])
