"""A1 claims: our tail sums and truncation excess risks against paper 2, Table 1, columns 1-2."""

import pandas as pd

from crlrepro.pipeline import ScriptRun
from crlrepro.reference import matches_setting, paper_values
from crlrepro.summary import truncation_claims

run = ScriptRun(snakemake)  # noqa: F821 (injected by Snakemake)
reference = paper_values("A1", snakemake.input.paper_values)  # noqa: F821
claims = truncation_claims(
    pd.read_csv(snakemake.input.truncation),  # noqa: F821
    pd.read_csv(snakemake.input.convergence),  # noqa: F821
    reference,
    comparable=matches_setting(reference, tau=run.params["tau"], gmm=run.params["gmm"]),
    rtol=run.params["relative_tolerance"],
)
run.write_table(claims, snakemake.output[0])  # noqa: F821
