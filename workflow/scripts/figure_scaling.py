"""C3 figure: the gap against m and n for both regimes, with the predicted slopes; AUC against m."""

from crlrepro.artifacts import read_table, save_figure
from crlrepro.pipeline import ScriptRun
from crlrepro.plots import FigureStyle, plot_scaling

run = ScriptRun(snakemake)
style = FigureStyle(**run.params["style"])
fig = plot_scaling(read_table(snakemake.input.table), read_table(snakemake.input.slopes), style=style)
save_figure(fig, [snakemake.output.png, snakemake.output.pdf], dpi=style.dpi)
