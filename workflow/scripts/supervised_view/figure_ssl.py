"""Paper 3 figures, one per experiment (S1–S4)."""

from crlrepro.runtime.artifacts import read_table
from crlrepro.runtime.figures import FigureStyle
from crlrepro.studies.supervised_view.figure import plot_ssl
from crlrepro.workflow.pipeline import ScriptRun

run = ScriptRun(snakemake)
style = FigureStyle(**run.params["style"])
for experiment, table, png, pdf in zip(
    run.params["experiments"], snakemake.input.tables, snakemake.output.png, snakemake.output.pdf, strict=True
):
    run.save_figure(plot_ssl(experiment, read_table(table), style=style), [png, pdf], dpi=style.dpi)
