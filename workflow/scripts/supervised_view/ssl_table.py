"""Paper 3: one table per experiment (S1–S4): the evaluated runs it compares, with the baselines (raw
pixels, untrained encoders) as rows of their own (column ``model``)."""

import pandas as pd

from crlrepro.experiments.supervised_view import EXPERIMENT_NOT_APPLICABLE
from crlrepro.runtime.artifacts import read_table
from crlrepro.workflow.pipeline import ScriptRun

run = ScriptRun(snakemake)
baselines = read_table(snakemake.input.baselines)
for (experiment, paths), output in zip(run.params["experiments"].items(), snakemake.output, strict=True):
    rows = pd.concat([read_table(path) for path in paths] + [baselines], ignore_index=True)
    rows.insert(0, "experiment", experiment)
    run.write_table(rows, output, missing=EXPERIMENT_NOT_APPLICABLE)
