"""C2 claims: Thm 3.4's bound at every checkpoint; the fitted exponent against ½ and against paper 2's accelerated
(μ+1)/(μ+2) with this mixture's own small-t μ, along training and along score families."""

from crlrepro.artifacts import read_json, read_table
from crlrepro.claims_paper1 import c2_claims
from crlrepro.pipeline import ScriptRun
from crlrepro.reference import paper_values
from crlrepro.verdicts import claims_frame

run = ScriptRun(snakemake)
fit = read_json(snakemake.input.fit)
rate = float(read_json(snakemake.input.tsybakov)["rate"])
claims = c2_claims(read_table(snakemake.input.table), fit, paper_values("C2", snakemake.input.paper_values),
                   tsybakov_rate=(rate, rate, rate), families=read_table(snakemake.input.families))
run.write_table(claims_frame(claims), snakemake.output[0])
