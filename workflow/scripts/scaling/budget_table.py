"""C4: the fixed-budget runs in one table; per regime the best split, the fit a + b/m + c/√n and m*."""

import pandas as pd

from crlrepro.experiments.generalization import BUDGET_NOT_APPLICABLE, budget_summary, sweep_rows
from crlrepro.runtime.artifacts import read_table
from crlrepro.workflow.pipeline import ScriptRun

run = ScriptRun(snakemake)
runs = pd.concat([read_table(path) for path in snakemake.input.runs], ignore_index=True)
p = run.params
table = sweep_rows(runs, "budget", p["points"]["budget"], p["seeds"], p["regimes"])
table = table.sort_values(["regime", "m", "seed"], ignore_index=True)
run.write_table(table, snakemake.output.table)
run.write_table(budget_summary(table, run.params["total"]), snakemake.output.fit, missing=BUDGET_NOT_APPLICABLE)
