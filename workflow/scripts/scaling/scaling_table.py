"""C3: every m- and n-sweep run in one table, and the log-log slopes of the gap beside Thm 4.5."""

import pandas as pd

from crlrepro.claims.reference import paper_values
from crlrepro.experiments.generalization import SLOPES_NOT_APPLICABLE, scaling_slopes
from crlrepro.runtime.artifacts import read_table
from crlrepro.studies.scaling import sweep_rows_by_regime
from crlrepro.workflow.pipeline import ScriptRun

run = ScriptRun(snakemake)
runs = pd.concat([read_table(path) for path in snakemake.input.runs], ignore_index=True)
sweeps = [sweep_rows_by_regime(runs, sweep, points, run.params["seeds"]) for sweep, points in run.params["points"].items()]
table = pd.concat(sweeps, ignore_index=True)
table = table.sort_values(["sweep", "regime", "n", "m", "seed"], ignore_index=True)
reference = paper_values("C3", snakemake.input.paper_values)
slopes = scaling_slopes(
    table, {"m": reference["slope_m"], "n": reference["slope_n"]}, run.params["bootstrap"], seed=int(table["seed"].min())
)
run.write_table(table, snakemake.output.table)
run.write_table(slopes, snakemake.output.slopes, missing=SLOPES_NOT_APPLICABLE)
