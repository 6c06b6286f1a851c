"""C4 claims: an interior split is best; the fitted allocation rule."""

import pandas as pd

from crlrepro.pipeline import ScriptRun
from crlrepro.summary import budget_claims

run = ScriptRun(snakemake)  # noqa: F821 (injected by Snakemake)
run.write_table(budget_claims(pd.read_csv(snakemake.input.fit)), snakemake.output[0])  # noqa: F821
