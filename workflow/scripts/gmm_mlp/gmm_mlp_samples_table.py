"""A2's convergence study: the largest D's models at each number of training pairs per epoch, evaluated by quadrature
(the same evaluation as the A2 table), beside A2's own models of that D (read from the A2 table, not evaluated again)."""

import pandas as pd

from crlrepro.experiments.evaluation import evaluate_gmm_two_tower
from crlrepro.learning.networks import load_two_tower
from crlrepro.runtime.artifacts import read_table
from crlrepro.theory.gmm import LatentClassGMM
from crlrepro.workflow.pipeline import ScriptRun

run = ScriptRun(snakemake)
p = run.params
gmm = LatentClassGMM.from_config(p["gmm"])
columns = ["D", "samples", "seed", "excess_risk", "l2_distance"]
rows = []
for samples, path in zip(p["samples"], snakemake.input.models, strict=True):
    model, meta = load_two_tower(path)
    metrics = evaluate_gmm_two_tower(model, gmm, p["tau"], p["nodes"])
    rows.append(
        {
            "D": meta["D"],
            "samples": int(samples),
            "seed": meta["seed"],
            "excess_risk": metrics["excess_risk"],
            "l2_distance": metrics["l2_distance"],
        }
    )
a2 = read_table(snakemake.input.table)
own = a2[a2["D"] == p["D"]].assign(samples=int(p["train_samples"]))
if sorted(own["seed"]) != sorted(p["seeds"]):
    raise ValueError(
        f"{snakemake.input.table}: the A2 table has seeds {sorted(own['seed'])} at D = {p['D']}, the "
        f"config {sorted(p['seeds'])}: rebuild it with snakemake --forcerun gmm_mlp_table"
    )
table = pd.concat([pd.DataFrame(rows, columns=columns), own[columns]], ignore_index=True)
run.write_table(table.sort_values(["samples", "seed"]).reset_index(drop=True), snakemake.output[0])
