"""A3 sensitivity: R²_f and R²_g at D = K for every (noise_y, separation) of lcgm.sensitivity (one model each)."""

import pandas as pd

from crlrepro.evaluation import evaluate_lcgm_two_tower
from crlrepro.lcgm import LatentClassModel
from crlrepro.networks import load_two_tower
from crlrepro.pipeline import ScriptRun

run = ScriptRun(snakemake)
base = run.params["lcgm"]
rows = []
for path in snakemake.input.models:
    model, meta = load_two_tower(path)
    lcgm = LatentClassModel.from_config({**base, "noise_y": meta["noise_y"], "separation": meta["separation"]})
    metrics = evaluate_lcgm_two_tower(model, lcgm, run.params["tau"], base["test_samples"], meta["seed"])
    rows.append({"noise_y": meta["noise_y"], "separation": meta["separation"], "D": meta["D"], "seed": meta["seed"],
                 **metrics, "r2_f_minus_r2_g": metrics["r2_f"] - metrics["r2_g"]})
run.write_table(pd.DataFrame(rows).sort_values(["noise_y", "separation"]).reset_index(drop=True), snakemake.output[0])
