"""A4 figure: the density-ratio margin CDF with its fit, and μ̂ per window."""

from crlrepro.artifacts import read_table, save_figure
from crlrepro.pipeline import ScriptRun
from crlrepro.plots import FigureStyle, plot_tsybakov
from crlrepro.reference import matches_setting, paper_values

run = ScriptRun(snakemake)
style = FigureStyle(**run.params["style"])
reference = paper_values("A4", snakemake.input.paper_values)
comparable = matches_setting(reference, gmm=run.params["gmm"])
fig = plot_tsybakov(read_table(snakemake.input.cdf), read_table(snakemake.input.table), reference if comparable else None, style=style)
save_figure(fig, [snakemake.output.png, snakemake.output.pdf], dpi=style.dpi)
