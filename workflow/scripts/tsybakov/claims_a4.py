"""A4 claims: the paper's μ̂ against the exact slope over fit windows, its admissibility at small t, and the
Monte-Carlo CDF against the exact one."""

from crlrepro.claims.reference import paper_values
from crlrepro.claims.verdicts import CLAIM_NOT_APPLICABLE, claims_frame
from crlrepro.runtime.artifacts import read_json, read_table
from crlrepro.studies.tsybakov.claims import a4_claims
from crlrepro.workflow.pipeline import ScriptRun

run = ScriptRun(snakemake)
exact = run.params["exact"]
claims = a4_claims(
    read_table(snakemake.input.table),
    paper_values("A4", snakemake.input.paper_values),
    run.params["setting"],
    curve=read_table(snakemake.input.curve),
    windows=read_table(snakemake.input.windows),
    check=read_table(snakemake.input.check),
    limit=read_json(snakemake.input.limit),
    tolerance=exact["tolerance"],
    alpha=exact["family_level"],
    samples=run.params["samples"],
)
run.write_table(claims_frame(claims), snakemake.output[0], missing=CLAIM_NOT_APPLICABLE)
