"""C1 claims (identities): the quadrature oracles against Monte Carlo, and their convergence."""

import json

import pandas as pd

from crlrepro.claims_paper1 import c1_claims
from crlrepro.pipeline import ScriptRun
from crlrepro.verdicts import claims_frame

run = ScriptRun(snakemake)  # noqa: F821 (injected by Snakemake)
with open(snakemake.input.oracle) as handle:  # noqa: F821
    oracle = json.load(handle)
claims = c1_claims(oracle, pd.read_csv(snakemake.input.convergence),  # noqa: F821
                   standard_errors=run.params["standard_errors"], digits=run.params["digits"])
run.write_table(claims_frame(claims), snakemake.output[0])  # noqa: F821
