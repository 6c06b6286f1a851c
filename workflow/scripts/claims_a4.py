"""A4 claims: μ̂ and the rate (μ+1)/(μ+2) on the configured window against the paper's."""

from crlrepro.artifacts import read_table
from crlrepro.claims_paper2 import a4_claims
from crlrepro.pipeline import ScriptRun
from crlrepro.reference import paper_values
from crlrepro.verdicts import claims_frame

run = ScriptRun(snakemake)
claims = a4_claims(read_table(snakemake.input.table), paper_values("A4", snakemake.input.paper_values),
                   run.params["setting"])
run.write_table(claims_frame(claims), snakemake.output[0])
