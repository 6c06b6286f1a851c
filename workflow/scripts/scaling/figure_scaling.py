"""C3 figure: the fixed-score mechanism (inner term vs m, outer vs n), the trained gap vs m and n, and AUC / recall@1
(with the Bayes E* of the oracle and chance), and the marginal-gain design's AUC where the config declares one."""

import pandas as pd

from crlrepro.runtime.artifacts import read_json, read_table
from crlrepro.runtime.figures import FigureStyle
from crlrepro.studies.scaling.figure import plot_scaling
from crlrepro.workflow.pipeline import ScriptRun

run = ScriptRun(snakemake)
style = FigureStyle(**run.params["style"])
fig = plot_scaling(
    read_table(snakemake.input.table),
    read_table(snakemake.input.slopes),
    read_table(snakemake.input.deviations),
    read_table(snakemake.input.deviation_slopes),
    style=style,
    e_star=float(read_json(snakemake.input.oracle)["E_star"]),
    gap_rates=read_table(snakemake.input.gap_rates),
    design=pd.concat([read_table(path) for path in snakemake.input.gain]) if snakemake.input.gain else None,
    auc_rates=read_table(snakemake.input.auc_rates),
)
run.save_figure(fig, [snakemake.output.png, snakemake.output.pdf], dpi=style.dpi)
