"""A1 claims: tail sums and truncation excess risks against paper 2, Table 1, columns 1-2; the polynomial-decay
corollary's rate on the circle distribution, and (a diagnostic) the mixture's spectrum decaying faster than any power."""

from crlrepro.claims.reference import paper_values
from crlrepro.claims.verdicts import CLAIM_NOT_APPLICABLE, claims_frame
from crlrepro.runtime.artifacts import read_table
from crlrepro.studies.gmm_spectrum.claims import a1_claims
from crlrepro.workflow.pipeline import ScriptRun

run = ScriptRun(snakemake)
claims = a1_claims(
    read_table(snakemake.input.truncation),
    read_table(snakemake.input.convergence),
    paper_values("A1", snakemake.input.paper_values),
    run.params["setting"],
    polynomial=read_table(snakemake.input.polynomial),
    spectrum=read_table(snakemake.input.spectrum),
    window=run.params["polynomial"]["window"],
    rate_margin=run.params["polynomial"]["rate_margin"],
    confirm_gammas=run.params["polynomial"]["confirm_gammas"],
)
run.write_table(claims_frame(claims), snakemake.output[0], missing=CLAIM_NOT_APPLICABLE)
