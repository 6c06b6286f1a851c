"""C3/C4, one (sweep, regime, seed): train and evaluate a model at every (n, m) of the sweep."""

import pandas as pd

from crlrepro.generalization import run_negative_sampling
from crlrepro.gmm import LatentClassGMM
from crlrepro.pipeline import ScriptRun

wildcards = snakemake.wildcards  # noqa: F821 (injected by Snakemake)
seed = int(wildcards.seed)
run = ScriptRun(snakemake, seed=seed, device=snakemake.params.device)  # noqa: F821
p = run.params
gmm = LatentClassGMM.from_config(p["gmm"])
rows = []
for i, (n, m) in enumerate(p["points"]):
    rows.append(run_negative_sampling(gmm, wildcards.regime, n, m, seed, p["tau"], p["model"], device=run.device))
    run.log.info("[%d/%d] n=%d m=%d: %s", i + 1, len(p["points"]), n, m, rows[-1])
table = pd.DataFrame(rows)
table.insert(0, "sweep", wildcards.sweep)
run.write_table(table, snakemake.output[0])  # noqa: F821
