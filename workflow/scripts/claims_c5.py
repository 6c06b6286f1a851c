"""C5 claims: the OCE identity holds at every (m, τ)."""

import pandas as pd

from crlrepro.pipeline import ScriptRun
from crlrepro.summary import oce_claims

run = ScriptRun(snakemake)  # noqa: F821 (injected by Snakemake)
run.write_table(oce_claims(pd.read_csv(snakemake.input.table), tolerance=run.params["tolerance"]), snakemake.output[0])  # noqa: F821
