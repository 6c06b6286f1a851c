"""C2 figure: checkpoints (L − L*, E* − E), the bound of Thm 3.4 and the fitted exponent."""

import json

import pandas as pd

from crlrepro.artifacts import save_figure
from crlrepro.pipeline import ScriptRun
from crlrepro.plots import FigureStyle, plot_calibration

run = ScriptRun(snakemake)  # noqa: F821 (injected by Snakemake)
style = FigureStyle(**run.params["style"])
with open(snakemake.input.fit) as handle:  # noqa: F821
    fit = json.load(handle)
rate = float(pd.read_csv(snakemake.input.tsybakov).iloc[0]["rate"])  # noqa: F821
fig = plot_calibration(pd.read_csv(snakemake.input.table), fit, run.params["tau"], tsybakov_rate=rate, style=style)  # noqa: F821
save_figure(fig, [snakemake.output.png, snakemake.output.pdf], dpi=style.dpi)  # noqa: F821
