"""A2 claims: MLP excess risk and L2 distance against paper 2, Table 1, columns 3-4."""

import pandas as pd

from crlrepro.pipeline import ScriptRun
from crlrepro.reference import matches_setting, paper_values
from crlrepro.summary import mlp_claims

run = ScriptRun(snakemake)  # noqa: F821 (injected by Snakemake)
reference = paper_values("A2", snakemake.input.paper_values)  # noqa: F821
claims = mlp_claims(pd.read_csv(snakemake.input.table), reference,  # noqa: F821
                    comparable=matches_setting(reference, tau=run.params["tau"], gmm=run.params["gmm"]),
                    orders=run.params["order_of_magnitude"])
run.write_table(claims, snakemake.output[0])  # noqa: F821
