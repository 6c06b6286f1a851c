"""A3 sensitivity: R²_f and R²_g for every model of lcgm.sensitivity (D = K on the whole (noise_y, separation) grid,
further D on its cross through the configured setting), and the elbow at every point that has a D sweep. At the
grid's centre the D that A3's sweep trains are A3's models of the first seed (the same training)."""

import pandas as pd

from crlrepro.experiments.evaluation import evaluate_lcgm_two_tower, sensitivity_elbows
from crlrepro.learning.networks import load_two_tower
from crlrepro.learning.train import require_one_precision
from crlrepro.runtime.artifacts import require_exact_set
from crlrepro.theory.lcgm import LatentClassModel
from crlrepro.workflow.pipeline import ScriptRun

run = ScriptRun(snakemake)
base = run.params["lcgm"]
paths = list(snakemake.input.models)  # every model file the config names (sep<j>_D<D>.pt of a row, or A3's own)
models = [load_two_tower(path) for path in paths]
# A table built from fewer (or other) models than the grid would look complete: refuse it, naming what is missing.
require_exact_set(
    [[float(meta["noise_y"]), float(meta["separation"]), int(meta["D"])] for _, meta in models],
    [[float(a), float(b), int(d)] for a, b, d in run.params["points"]],
    "sensitivity models (noise_y, separation, D)",
    paths,
)
require_one_precision([meta.get("precision") for _, meta in models], paths)  # one table, one arithmetic
rows = []
for model, meta in models:
    lcgm = LatentClassModel.from_config({**base, "noise_y": meta["noise_y"], "separation": meta["separation"]})
    metrics = evaluate_lcgm_two_tower(model, lcgm, run.params["tau"], base["test_samples"], meta["seed"])
    rows.append(
        {
            "noise_y": meta["noise_y"],
            "separation": meta["separation"],
            "D": meta["D"],
            "seed": meta["seed"],
            **metrics,
            "r2_f_minus_r2_g": metrics["r2_f"] - metrics["r2_g"],
        }
    )
table = pd.DataFrame(rows).sort_values(["noise_y", "separation", "D"]).reset_index(drop=True)
elbows = sensitivity_elbows(table, base["classes"], base["elbow_tolerance"])
for row in elbows.itertuples():
    run.log.info("noise_y %g, separation %g: elbow %d over D = %s", row.noise_y, row.separation, row.elbow, row.dims)
run.write_table(table, snakemake.output.table)
run.write_table(elbows, snakemake.output.elbows)
