"""A4 figure: the exact density-ratio margin CDF with the Monte Carlo beside it, its local slope, and the slope over
every scanned fit window."""

from crlrepro.claims.reference import matches_setting, paper_values
from crlrepro.runtime.artifacts import read_json, read_table
from crlrepro.runtime.figures import FigureStyle
from crlrepro.studies.tsybakov.figure import plot_tsybakov
from crlrepro.workflow.pipeline import ScriptRun

run = ScriptRun(snakemake)
style = FigureStyle(**run.params["style"])
reference = paper_values("A4", snakemake.input.paper_values)
comparable = matches_setting(reference, gmm=run.params["gmm"])
fig = plot_tsybakov(
    read_table(snakemake.input.cdf),
    read_table(snakemake.input.table),
    reference if comparable else None,
    style=style,
    curve=read_table(snakemake.input.curve),
    windows=read_table(snakemake.input.windows),
    limit=read_json(snakemake.input.limit),
    tolerance=run.params["tolerance"],
)
run.save_figure(fig, [snakemake.output.png, snakemake.output.pdf], dpi=style.dpi)
