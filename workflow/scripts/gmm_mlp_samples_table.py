"""A2's convergence study: the largest D's models at each number of training pairs per epoch, evaluated by quadrature
(the same evaluation as the A2 table)."""

import pandas as pd

from crlrepro.experiments.evaluation import evaluate_gmm_two_tower
from crlrepro.learning.networks import load_two_tower
from crlrepro.theory.gmm import LatentClassGMM
from crlrepro.workflow.pipeline import ScriptRun

run = ScriptRun(snakemake)
p = run.params
gmm = LatentClassGMM.from_config(p["gmm"])
rows = []
for samples, path in zip(p["samples"], snakemake.input.models, strict=True):
    model, meta = load_two_tower(path)
    metrics = evaluate_gmm_two_tower(model, gmm, p["tau"], p["nodes"])
    rows.append({"D": meta["D"], "samples": int(samples), "seed": meta["seed"], "excess_risk": metrics["excess_risk"],
                 "l2_distance": metrics["l2_distance"]})
run.write_table(pd.DataFrame(rows).sort_values(["samples", "seed"]).reset_index(drop=True), snakemake.output[0])
