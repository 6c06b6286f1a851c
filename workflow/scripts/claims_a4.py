"""A4 claims: μ̂ and the rate (μ+1)/(μ+2) on the configured window; rate > 1/2."""

import pandas as pd

from crlrepro.pipeline import ScriptRun
from crlrepro.reference import matches_setting, paper_values
from crlrepro.summary import tsybakov_claims

run = ScriptRun(snakemake)  # noqa: F821 (injected by Snakemake)
reference = paper_values("A4", snakemake.input.paper_values)  # noqa: F821
claims = tsybakov_claims(pd.read_csv(snakemake.input.table), reference,  # noqa: F821
                         comparable=matches_setting(reference, gmm=run.params["gmm"]), tolerance=run.params["tolerance"])
run.write_table(claims, snakemake.output[0])  # noqa: F821
