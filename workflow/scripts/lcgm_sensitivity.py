"""A3 sensitivity: R²_f and R²_g for every model of lcgm.sensitivity (D = K on the whole (noise_y, separation) grid,
further D on its cross through the configured setting), and the elbow at every point that has a D sweep. At the
grid's centre the D that A3's sweep trains are A3's models of the first seed (the same training)."""

from pathlib import Path

import pandas as pd

from crlrepro.evaluation import evaluate_lcgm_two_tower, sensitivity_elbows
from crlrepro.lcgm import LatentClassModel
from crlrepro.networks import load_two_tower
from crlrepro.pipeline import ScriptRun

run = ScriptRun(snakemake)
base = run.params["lcgm"]
rows = []
paths = []  # a grid row's directory of sep<j>_D<D>.pt, or (at the centre) one of A3's own models
for model in map(Path, snakemake.input.models):
    found = sorted(model.glob("sep*_D*.pt")) if model.is_dir() else [model]
    if not found:
        raise FileNotFoundError(f"a sensitivity model directory holds no sep<j>_D<D>.pt: {model}")
    paths += found
for path in paths:
    model, meta = load_two_tower(path)
    lcgm = LatentClassModel.from_config({**base, "noise_y": meta["noise_y"], "separation": meta["separation"]})
    metrics = evaluate_lcgm_two_tower(model, lcgm, run.params["tau"], base["test_samples"], meta["seed"])
    rows.append({"noise_y": meta["noise_y"], "separation": meta["separation"], "D": meta["D"], "seed": meta["seed"],
                 **metrics, "r2_f_minus_r2_g": metrics["r2_f"] - metrics["r2_g"]})
table = pd.DataFrame(rows).sort_values(["noise_y", "separation", "D"]).reset_index(drop=True)
elbows = sensitivity_elbows(table, base["classes"], base["elbow_tolerance"])
for row in elbows.itertuples():
    run.log.info("noise_y %g, separation %g: elbow %d over D = %s", row.noise_y, row.separation, row.elbow, row.dims)
run.write_table(table, snakemake.output.table)
run.write_table(elbows, snakemake.output.elbows)
