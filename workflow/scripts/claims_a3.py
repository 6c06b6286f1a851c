"""A3 claims: probe R² at D = K (two-sided), the ordering R²_f > R²_g, and the elbow at D = K."""

import json

import pandas as pd

from crlrepro.claims_paper2 import a3_claims
from crlrepro.pipeline import ScriptRun
from crlrepro.reference import paper_values
from crlrepro.verdicts import claims_frame

run = ScriptRun(snakemake)  # noqa: F821 (injected by Snakemake)
with open(snakemake.input.elbow) as handle:  # noqa: F821
    elbow = json.load(handle)
claims = a3_claims(pd.read_csv(snakemake.input.table), elbow, paper_values("A3", snakemake.input.paper_values),  # noqa: F821
                   run.params["setting"])
run.write_table(claims_frame(claims), snakemake.output[0])  # noqa: F821
