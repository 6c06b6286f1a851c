"""C3 claims: measured gap slopes in m and n against Thm 4.5; AUC rises with m."""

import pandas as pd

from crlrepro.pipeline import ScriptRun
from crlrepro.summary import scaling_claims

run = ScriptRun(snakemake)  # noqa: F821 (injected by Snakemake)
claims = scaling_claims(pd.read_csv(snakemake.input.slopes), pd.read_csv(snakemake.input.table),  # noqa: F821
                        tolerance=run.params["tolerance"])
run.write_table(claims, snakemake.output[0])  # noqa: F821
