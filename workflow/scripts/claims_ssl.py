"""Paper 3 claims (S1–S4): directions of the effects, the paper's values as reference."""

import pandas as pd

from crlrepro.pipeline import ScriptRun
from crlrepro.reference import paper_values
from crlrepro.summary import ssl_claims

run = ScriptRun(snakemake)  # noqa: F821 (injected by Snakemake)
for experiment, table, output in zip(run.params["experiments"], snakemake.input.tables, snakemake.output):  # noqa: F821
    reference = paper_values(experiment, snakemake.input.paper_values) if experiment != "S1" else None  # noqa: F821
    run.write_table(ssl_claims(experiment, pd.read_csv(table), reference), output)
