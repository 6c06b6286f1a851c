"""C2 claims: Thm 3.4's bound at every checkpoint; the fitted exponent against ½ and A4's Tsybakov rate."""

from crlrepro.artifacts import read_json, read_table
from crlrepro.claims_paper1 import c2_claims
from crlrepro.pipeline import ScriptRun
from crlrepro.reference import paper_values
from crlrepro.verdicts import claims_frame

run = ScriptRun(snakemake)
fit = read_json(snakemake.input.fit)
tsybakov = read_table(snakemake.input.tsybakov).iloc[0]
claims = c2_claims(read_table(snakemake.input.table), fit, paper_values("C2", snakemake.input.paper_values),
                   tsybakov_rate=(float(tsybakov["rate"]), float(tsybakov["rate_low"]), float(tsybakov["rate_high"])),
                   same_mixture=run.params["same_mixture"])
run.write_table(claims_frame(claims), snakemake.output[0])
