"""A3 figure: probe R² and held-out excess risk vs D, with K and the elbow."""

import json

import pandas as pd

from crlrepro.artifacts import save_figure
from crlrepro.pipeline import ScriptRun
from crlrepro.plots import FigureStyle, plot_lcgm

run = ScriptRun(snakemake)  # noqa: F821 (injected by Snakemake)
style = FigureStyle(**run.params["style"])
with open(snakemake.input.elbow) as handle:  # noqa: F821
    elbow = json.load(handle)
fig = plot_lcgm(pd.read_csv(snakemake.input.table), elbow, style=style)  # noqa: F821
save_figure(fig, [snakemake.output.png, snakemake.output.pdf], dpi=style.dpi)  # noqa: F821
