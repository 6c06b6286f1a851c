"""C1 claims (identities): the quadrature oracles against Monte Carlo, and their convergence."""

from crlrepro.claims.verdicts import CLAIM_NOT_APPLICABLE, claims_frame
from crlrepro.runtime.artifacts import read_json, read_table
from crlrepro.studies.oracles.claims import c1_claims
from crlrepro.workflow.pipeline import ScriptRun

run = ScriptRun(snakemake)
oracle = read_json(snakemake.input.oracle)
claims = c1_claims(
    oracle, read_table(snakemake.input.convergence), standard_errors=run.params["standard_errors"], digits=run.params["digits"]
)
run.write_table(claims_frame(claims), snakemake.output[0], missing=CLAIM_NOT_APPLICABLE)
