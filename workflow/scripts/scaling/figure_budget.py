"""C4 figure: excess risk and AUC per split of the fixed budget, with the fitted model and m*."""

from crlrepro.runtime.artifacts import read_table
from crlrepro.runtime.figures import FigureStyle
from crlrepro.studies.scaling.figure import plot_budget
from crlrepro.workflow.pipeline import ScriptRun

run = ScriptRun(snakemake)
style = FigureStyle(**run.params["style"])
fig = plot_budget(read_table(snakemake.input.table), read_table(snakemake.input.fit), style=style)
run.save_figure(fig, [snakemake.output.png, snakemake.output.pdf], dpi=style.dpi)
