"""A3 table and elbow: held-out probe R² and excess risk per (D, seed); the elbow of the sweep."""

import pandas as pd

from crlrepro.experiments.evaluation import LCGM_NOT_APPLICABLE, evaluate_lcgm_two_tower, lcgm_elbow
from crlrepro.learning.networks import load_two_tower
from crlrepro.runtime.artifacts import write_artifact_json
from crlrepro.theory.lcgm import LatentClassModel
from crlrepro.workflow.pipeline import ScriptRun

run = ScriptRun(snakemake)
lcgm_config = run.params["lcgm"]
lcgm = LatentClassModel.from_config(lcgm_config)
rows = []
for path in snakemake.input.models:
    model, meta = load_two_tower(path)
    metrics = evaluate_lcgm_two_tower(model, lcgm, run.params["tau"], lcgm_config["test_samples"], meta["seed"])
    rows.append({"D": meta["D"], "seed": meta["seed"], **metrics, "final_train_loss": meta["history"][-1]["loss"]})
runs = pd.DataFrame(rows).sort_values(["D", "seed"]).reset_index(drop=True)
run.write_table(runs, snakemake.output.table, missing=LCGM_NOT_APPLICABLE)
write_artifact_json(
    lcgm_elbow(runs, lcgm_config["classes"], lcgm_config["elbow_tolerance"]), snakemake.output.elbow, run.provenance()
)
