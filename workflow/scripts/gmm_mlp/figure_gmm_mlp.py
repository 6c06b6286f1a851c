"""A2 figure: MLP vs spectral truncation, excess risk and L2 distance vs D; the L2 column under each definition
against its rank-D floor; the Sec. 3 bound's ratios and constant; the spectrum's decay."""

from crlrepro.claims.reference import matches_setting, paper_values
from crlrepro.runtime.artifacts import read_table
from crlrepro.runtime.figures import FigureStyle
from crlrepro.studies.gmm_mlp.figure import plot_gmm_mlp
from crlrepro.workflow.pipeline import ScriptRun

run = ScriptRun(snakemake)
style = FigureStyle(**run.params["style"])
reference = paper_values("A2", snakemake.input.paper_values)
comparable = matches_setting(reference, tau=run.params["tau"], gmm=run.params["gmm"])
fig = plot_gmm_mlp(
    read_table(snakemake.input.table),
    reference if comparable else None,
    style=style,
    minima=read_table(snakemake.input.minima),
    bound=read_table(snakemake.input.bound),
    decay=read_table(snakemake.input.decay),
    groups=read_table(snakemake.input.groups),
)
run.save_figure(fig, [snakemake.output.png, snakemake.output.pdf], dpi=style.dpi)
