"""C2 claims: Thm 3.4's bound at every checkpoint; the fitted exponent against ½ and A4's Tsybakov rate."""

import json

import pandas as pd

from crlrepro.claims_paper1 import c2_claims
from crlrepro.pipeline import ScriptRun
from crlrepro.reference import paper_values
from crlrepro.verdicts import claims_frame

run = ScriptRun(snakemake)  # noqa: F821 (injected by Snakemake)
with open(snakemake.input.fit) as handle:  # noqa: F821
    fit = json.load(handle)
tsybakov = pd.read_csv(snakemake.input.tsybakov).iloc[0]  # noqa: F821
claims = c2_claims(pd.read_csv(snakemake.input.table), fit, paper_values("C2", snakemake.input.paper_values),  # noqa: F821
                   tsybakov_rate=(float(tsybakov["rate"]), float(tsybakov["rate_low"]), float(tsybakov["rate_high"])))
run.write_table(claims_frame(claims), snakemake.output[0])  # noqa: F821
