"""A3 claims: probe R² at D = K and the elbow."""

import json

import pandas as pd

from crlrepro.pipeline import ScriptRun
from crlrepro.reference import matches_setting, paper_values
from crlrepro.summary import lcgm_claims

run = ScriptRun(snakemake)  # noqa: F821 (injected by Snakemake)
reference = paper_values("A3", snakemake.input.paper_values)  # noqa: F821
with open(snakemake.input.elbow) as handle:  # noqa: F821
    elbow = json.load(handle)
claims = lcgm_claims(pd.read_csv(snakemake.input.table), elbow, reference,  # noqa: F821
                     comparable=matches_setting(reference, classes=run.params["classes"]),
                     r2_tolerance=run.params["r2_tolerance"])
run.write_table(claims, snakemake.output[0])  # noqa: F821
