"""The scales side by side, for the report: this run's summary beside the summary of every other published scale
(docs/results/<scale>/, each file checked against its provenance.json), with the config keys that explain a verdict
that differs; and the same claims as the verdict board (crlrepro.workflow.board), this run's column first."""

from pathlib import Path

from crlrepro.runtime.artifacts import read_table
from crlrepro.workflow.board import draw_board, verdict_board
from crlrepro.workflow.pipeline import ScriptRun
from crlrepro.workflow.publish import (
    SCALES_NOT_APPLICABLE,
    compare_scales,
    published_config,
    read_published_table,
    scale_comparison_html,
)

run = ScriptRun(snakemake)
p = run.params
summaries, configs = {p["scale"]: read_table(snakemake.input.summary)}, {p["scale"]: p["config"]}
published = [Path(f) for f in snakemake.input.published]  # per other scale: its provenance.json, then its summary.csv
for scale, provenance in zip(p["others"], published[::2], strict=True):
    root = provenance.parent.parent  # docs/results/
    summaries[scale] = read_published_table(scale, "summary.csv", root)  # checked against that provenance.json
    configs[scale] = published_config(scale, root)
table = compare_scales(summaries, configs)
run.write_table(table, snakemake.output.csv, missing=SCALES_NOT_APPLICABLE)
others = ", ".join(p["others"]) or "none yet"
run.write_text(
    scale_comparison_html(table, list(summaries), f"crlrepro: this run ({p['scale']}) beside the published scales ({others})"),
    snakemake.output.html,
)
board = verdict_board({f"{scale} (this run)" if scale == p["scale"] else scale: t for scale, t in summaries.items()})
figure = draw_board(board, title=f"Verdicts of this run ({p['scale']}) beside the published scales ({others})")
run.save_figure(figure, [snakemake.output.board], dpi=110)
