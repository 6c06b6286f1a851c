"""C2: all checkpoints with E*, the regret, the bound of Thm 3.4 and violations; the fitted exponent."""

import numpy as np
import pandas as pd

from crlrepro.experiments.calibration import calibration_table, fit_calibration_exponent
from crlrepro.runtime.artifacts import read_table, write_artifact_json
from crlrepro.theory.gmm import LatentClassGMM
from crlrepro.workflow.pipeline import ScriptRun

run = ScriptRun(snakemake)
p, c = run.params, run.params["calibration"]
points = pd.concat([read_table(path) for path in snakemake.input.points], ignore_index=True)
table = calibration_table(points, LatentClassGMM.from_config(p["gmm"]), p["tau"], nodes=c["nodes"], inner_nodes=c["inner_nodes"])
fit = fit_calibration_exponent(
    table["excess_loss"],
    table["excess_auc"],
    c["bootstrap"],
    np.random.default_rng(c["seed"]),
    floor=c["regret_floor"],
    eligible=(table["checkpoint"] > 0) & table["informative"],
    groups=table["model"],
)
for row in table[table["violates"]].itertuples():
    run.log.error(
        "Thm 3.4 bound VIOLATED at %s checkpoint %d: regret %.6g > bound %.6g",
        row.model,
        row.checkpoint,
        row.excess_auc,
        row.bound,
    )
run.write_table(table, snakemake.output.table)
write_artifact_json(
    {
        **fit,
        "violations": int(table["violates"].sum()),
        "checkpoints": len(table),
        "informative": int(table["informative"].sum()),
    },
    snakemake.output.fit,
    run.provenance(),
)
