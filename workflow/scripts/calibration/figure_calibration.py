"""C2 figure: checkpoints and score-family members (L − L*, E* − E), the bound of Thm 3.4, the fitted exponent and
paper 2's accelerated exponent for this mixture's own μ."""

from crlrepro.runtime.artifacts import read_json, read_table
from crlrepro.runtime.figures import FigureStyle
from crlrepro.studies.calibration.figure import plot_calibration
from crlrepro.workflow.pipeline import ScriptRun

run = ScriptRun(snakemake)
style = FigureStyle(**run.params["style"])
fit = read_json(snakemake.input.fit)
rate = float(read_json(snakemake.input.tsybakov)["rate"])
fig = plot_calibration(
    read_table(snakemake.input.table),
    fit,
    run.params["tau"],
    tsybakov_rate=rate,
    style=style,
    families=read_table(snakemake.input.families),
)
run.save_figure(fig, [snakemake.output.png, snakemake.output.pdf], dpi=style.dpi)
