"""A2 figure: MLP vs spectral truncation, excess risk and L2 distance vs D."""

from crlrepro.artifacts import read_table, save_figure
from crlrepro.pipeline import ScriptRun
from crlrepro.plots import FigureStyle, plot_gmm_mlp
from crlrepro.reference import matches_setting, paper_values

run = ScriptRun(snakemake)
style = FigureStyle(**run.params["style"])
reference = paper_values("A2", snakemake.input.paper_values)
comparable = matches_setting(reference, tau=run.params["tau"], gmm=run.params["gmm"])
fig = plot_gmm_mlp(read_table(snakemake.input.table), reference if comparable else None, style=style)
save_figure(fig, [snakemake.output.png, snakemake.output.pdf], dpi=style.dpi)
