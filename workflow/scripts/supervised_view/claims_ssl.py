"""Paper 3 claims (S1–S4): the effects as direction claims, the paper's ImageNet values as reference."""

from crlrepro.claims.reference import paper_values
from crlrepro.claims.verdicts import CLAIM_NOT_APPLICABLE, claims_frame
from crlrepro.runtime.artifacts import read_table
from crlrepro.studies.supervised_view.claims import ssl_claims
from crlrepro.workflow.pipeline import ScriptRun

run = ScriptRun(snakemake)
for experiment, table, output in zip(run.params["experiments"], snakemake.input.tables, snakemake.output, strict=True):
    reference = paper_values(experiment, snakemake.input.paper_values) if experiment != "S1" else {}
    run.write_table(
        claims_frame(ssl_claims(experiment, read_table(table), reference, run.params["setting"], run.params["metric"])),
        output,
        missing=CLAIM_NOT_APPLICABLE,
    )
