"""A3 table and elbow: held-out probe R² and excess risk per (D, seed); the elbow of the sweep (at a range point trained
at D = K alone, lcgm.range_sweep false: a record that it has none)."""

import pandas as pd

from crlrepro.experiments.evaluation import LCGM_NOT_APPLICABLE, evaluate_lcgm_two_tower, lcgm_elbow
from crlrepro.learning.networks import load_two_tower
from crlrepro.learning.train import require_one_precision
from crlrepro.runtime.artifacts import write_artifact_json
from crlrepro.theory.lcgm import LatentClassModel
from crlrepro.workflow.pipeline import ScriptRun

run = ScriptRun(snakemake)
lcgm_config = run.params["lcgm"]
lcgm = LatentClassModel.from_config(lcgm_config)
models = [load_two_tower(path) for path in snakemake.input.models]
# one table, one arithmetic (precision auto resolves per machine): refuse models trained in different ones
require_one_precision([meta.get("precision") for _, meta in models], list(snakemake.input.models))
rows = []
for model, meta in models:
    metrics = evaluate_lcgm_two_tower(model, lcgm, run.params["tau"], lcgm_config["test_samples"], meta["seed"])
    rows.append({"D": meta["D"], "seed": meta["seed"], **metrics, "final_train_loss": meta["history"][-1]["loss"]})
runs = pd.DataFrame(rows).sort_values(["D", "seed"]).reset_index(drop=True)
run.write_table(runs, snakemake.output.table, missing=LCGM_NOT_APPLICABLE)
swept = run.params.get("sweep", True)  # rule lcgm_range_table's lcgm.range_sweep; lcgm_table's is the sweep itself
elbow = (
    lcgm_elbow(runs, lcgm_config["classes"], lcgm_config["elbow_tolerance"])
    if swept
    else {"classes": int(lcgm_config["classes"]), "elbow": None, "no_sweep": "lcgm.range_sweep is false: D = K alone trained"}
)
write_artifact_json(elbow, snakemake.output.elbow, run.provenance())
