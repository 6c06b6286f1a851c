"""C3 claims: the fixed-score deviation rates of Thm 4.5's mechanism (two-sided), the trained gap's rates with their
floor (one-sided with a declared margin: the theorem is an upper bound), and the downstream AUC / recall@1 directions
in m and n, and SCRL's faster approach to the Bayes AUC E* (the oracle's) in m; the n-rates at two values of m
(equivalence) and SCRL's m-rate against SSCRL's."""

from crlrepro.claims.reference import paper_values
from crlrepro.claims.verdicts import CLAIM_NOT_APPLICABLE, claims_frame
from crlrepro.runtime.artifacts import read_json, read_table
from crlrepro.studies.scaling.claims import c3_claims
from crlrepro.workflow.pipeline import ScriptRun

run = ScriptRun(snakemake)
claims = c3_claims(
    read_table(snakemake.input.deviation_slopes),
    read_table(snakemake.input.slopes),
    read_table(snakemake.input.table),
    paper_values("C3", snakemake.input.paper_values),
    e_star=float(read_json(snakemake.input.oracle)["E_star"]),
    gap_rates=read_table(snakemake.input.gap_rates),
    rate_margin=run.params["rate_margin"],
    rate_differences=read_table(snakemake.input.rate_differences),
    m_free_margin=run.params["m_free_margin"],
    auc_rates=read_table(snakemake.input.auc_rates),
)
run.write_table(claims_frame(claims), snakemake.output[0], missing=CLAIM_NOT_APPLICABLE)
