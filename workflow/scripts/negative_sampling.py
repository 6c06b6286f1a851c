"""C3/C4, one (sweep, regime): train and evaluate a model at every (n, m) of the sweep, for every seed
(one job, so that the start-up of Python and torch is paid once per sweep, not per seed)."""

import pandas as pd

from crlrepro.generalization import run_negative_sampling
from crlrepro.gmm import LatentClassGMM
from crlrepro.pipeline import ScriptRun

wildcards = snakemake.wildcards
run = ScriptRun(snakemake, device=snakemake.params.device)
p = run.params
gmm = LatentClassGMM.from_config(p["gmm"])
rows, total = [], len(p["seeds"]) * len(p["points"])
for seed in p["seeds"]:
    for n, m in p["points"]:
        rows.append(run_negative_sampling(gmm, wildcards.regime, n, m, seed, p["tau"], p["model"], device=run.device))
        run.log.info("[%d/%d] seed=%d n=%d m=%d: %s", len(rows), total, seed, n, m, rows[-1])
table = pd.DataFrame(rows)
table.insert(0, "sweep", wildcards.sweep)
run.write_table(table, snakemake.output[0])
