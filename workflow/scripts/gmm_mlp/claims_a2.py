"""A2 claims: MLP excess risk and L2 distance against paper 2, Table 1, columns 3-4; their decrease in D; the
approximation bound of Sec. 3; the L2 column against the rank-D minimum of each candidate definition; the excess
column against the best rank-D excess risk; whether the excess risk has converged in the sample size."""

from crlrepro.claims.reference import paper_values
from crlrepro.claims.verdicts import CLAIM_NOT_APPLICABLE, claims_frame
from crlrepro.runtime.artifacts import read_table
from crlrepro.studies.gmm_mlp.claims import a2_claims
from crlrepro.workflow.pipeline import ScriptRun

run = ScriptRun(snakemake)
# the tables of the trained points of the declared ranges, each named by the (key, value) the rule lists in its order
at_points = {
    (key, value): read_table(path) for (key, value), path in zip(run.params["points"], snakemake.input.point_tables, strict=True)
}
claims = a2_claims(
    read_table(snakemake.input.table),
    paper_values("A2", snakemake.input.paper_values),
    run.params["setting"],
    bound=read_table(snakemake.input.bound),
    minima=read_table(snakemake.input.minima),
    excess=read_table(snakemake.input.excess),
    samples=read_table(snakemake.input.samples),
    ranges=run.params["ranges"],
    at_points=at_points,
)
run.write_table(claims_frame(claims), snakemake.output[0], missing=CLAIM_NOT_APPLICABLE)
