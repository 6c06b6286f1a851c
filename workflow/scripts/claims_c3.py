"""C3 claims: the trained gap's slopes in m and n against Thm 4.5 (one-sided); AUC rises with m."""

from crlrepro.artifacts import read_table
from crlrepro.claims_paper1 import c3_claims
from crlrepro.pipeline import ScriptRun
from crlrepro.reference import paper_values
from crlrepro.verdicts import claims_frame

run = ScriptRun(snakemake)
claims = c3_claims(read_table(snakemake.input.slopes), read_table(snakemake.input.table),
                   paper_values("C3", snakemake.input.paper_values))
run.write_table(claims_frame(claims), snakemake.output[0])
