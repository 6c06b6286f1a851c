"""A2 table: every trained (D, seed) model evaluated by quadrature, beside the spectral truncation s_D."""

import pandas as pd

from crlrepro.experiments.evaluation import evaluate_gmm_two_tower
from crlrepro.learning.networks import load_two_tower
from crlrepro.theory.gmm import LatentClassGMM
from crlrepro.theory.spectral import truncation_metrics
from crlrepro.workflow.pipeline import ScriptRun

run = ScriptRun(snakemake)
p = run.params
gmm = LatentClassGMM.from_config(p["gmm"])
rows = []
for path in snakemake.input.models:
    model, meta = load_two_tower(path)
    metrics = evaluate_gmm_two_tower(model, gmm, p["tau"], p["nodes"])
    rows.append({"D": meta["D"], "seed": meta["seed"], **metrics, "final_train_loss": meta["history"][-1]["loss"]})
runs = pd.DataFrame(rows)
table = runs.merge(truncation_metrics(gmm, sorted(runs["D"].unique()), p["tau"], p["nodes"]), on="D")
run.write_table(table.sort_values(["D", "seed"]).reset_index(drop=True), snakemake.output[0])
