"""C4 claims: at a fixed budget, each extreme split is beaten by an interior one; the fit's split beats its neighbours."""

from crlrepro.claims.verdicts import CLAIM_NOT_APPLICABLE, claims_frame
from crlrepro.runtime.artifacts import read_table
from crlrepro.studies.scaling.claims import c4_claims
from crlrepro.workflow.pipeline import ScriptRun

run = ScriptRun(snakemake)
claims = c4_claims(read_table(snakemake.input.table), read_table(snakemake.input.fit), fit_tolerance=run.params["fit_tolerance"])
run.write_table(claims_frame(claims), snakemake.output[0], missing=CLAIM_NOT_APPLICABLE)
