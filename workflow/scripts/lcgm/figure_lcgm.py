"""A3 figure: probe R² and held-out excess risk vs D, with K and the elbow; the operator's own spectrum; R² and the
elbow across the (noise, separation) grid."""

from crlrepro.runtime.artifacts import read_json, read_table
from crlrepro.runtime.figures import FigureStyle
from crlrepro.studies.lcgm.figure import plot_lcgm
from crlrepro.workflow.pipeline import ScriptRun

run = ScriptRun(snakemake)
style = FigureStyle(**run.params["style"])
elbow = read_json(snakemake.input.elbow)
fig = plot_lcgm(
    read_table(snakemake.input.table),
    elbow,
    style=style,
    spectrum=read_table(snakemake.input.spectrum),
    noise=read_table(snakemake.input.noise),
    rank=read_json(snakemake.input.rank),
    sensitivity=read_table(snakemake.input.sensitivity),
    sensitivity_elbows=read_table(snakemake.input.sensitivity_elbows),
)
run.save_figure(fig, [snakemake.output.png, snakemake.output.pdf], dpi=style.dpi)
