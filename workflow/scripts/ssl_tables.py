"""Paper 3: evaluate every trained run once (k-NN and linear-probe top-1, prototype bias) and write
one table per experiment (S1–S4) with the runs it compares."""

from crlrepro.artifacts import load_torch
from crlrepro.images import load_views
from crlrepro.pipeline import ScriptRun
from crlrepro.supervised_view import evaluation_table

run = ScriptRun(snakemake, device=snakemake.params.device)
views = {}
for path in snakemake.input.views:
    payload = load_views(path)
    views[payload["augmentation"]] = payload
paths = list(snakemake.input.models)
records = [load_torch(path) for path in paths]
table = evaluation_table(records, views, run.params["knn_k"], run.device)
table["path"] = paths
for (experiment, models), output in zip(run.params["experiments"].items(), snakemake.output):
    rows = table.set_index("path").loc[models].reset_index(drop=True)
    rows.insert(0, "experiment", experiment)
    run.write_table(rows, output)
