"""C2 figure: checkpoints (L − L*, E* − E), the bound of Thm 3.4 and the fitted exponent."""

from crlrepro.artifacts import read_json, read_table, save_figure
from crlrepro.pipeline import ScriptRun
from crlrepro.plots import FigureStyle, plot_calibration

run = ScriptRun(snakemake)
style = FigureStyle(**run.params["style"])
fit = read_json(snakemake.input.fit)
rate = float(read_table(snakemake.input.tsybakov).iloc[0]["rate"])
fig = plot_calibration(read_table(snakemake.input.table), fit, run.params["tau"], tsybakov_rate=rate, style=style)
save_figure(fig, [snakemake.output.png, snakemake.output.pdf], dpi=style.dpi)
