"""C5 claims (identity): the OCE rewrite of Lemma 4.2 holds at every (m, τ), and Lemma 4.3's stability bound."""

from crlrepro.claims.verdicts import CLAIM_NOT_APPLICABLE, claims_frame
from crlrepro.runtime.artifacts import read_table
from crlrepro.studies.oce.claims import c5_claims
from crlrepro.workflow.pipeline import ScriptRun

run = ScriptRun(snakemake)
run.write_table(
    claims_frame(
        c5_claims(read_table(snakemake.input.table), read_table(snakemake.input.stability), tolerance=run.params["tolerance"])
    ),
    snakemake.output[0],
    missing=CLAIM_NOT_APPLICABLE,
)
