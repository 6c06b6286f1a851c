"""A1 figure: eigenvalue decay and truncation quality, with the paper's values when comparable."""

from crlrepro.claims.reference import matches_setting, paper_values
from crlrepro.runtime.artifacts import read_table
from crlrepro.runtime.figures import FigureStyle
from crlrepro.studies.gmm_spectrum.figure import plot_gmm_spectrum
from crlrepro.workflow.pipeline import ScriptRun

run = ScriptRun(snakemake)
style = FigureStyle(**run.params["style"])
reference = paper_values("A1", snakemake.input.paper_values)
comparable = matches_setting(reference, tau=run.params["tau"], gmm=run.params["gmm"])
fig = plot_gmm_spectrum(
    read_table(snakemake.input.spectrum),
    read_table(snakemake.input.truncation),
    reference if comparable else None,
    style=style,
)
run.save_figure(fig, [snakemake.output.png, snakemake.output.pdf], dpi=style.dpi)
