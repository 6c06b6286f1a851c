"""A3 claims: probe R² at D = K (two-sided), the ordering R²_f > R²_g, the elbow at D = K, and the operator's rank K
in its own spectrum."""

from crlrepro.claims.reference import paper_values
from crlrepro.claims.verdicts import CLAIM_NOT_APPLICABLE, claims_frame
from crlrepro.runtime.artifacts import read_json, read_table
from crlrepro.studies.lcgm.claims import a3_claims
from crlrepro.workflow.pipeline import ScriptRun

run = ScriptRun(snakemake)
# the tables and elbows of the trained points of the declared ranges, each named by the (key, value) the rule lists in its order
at_points = {
    (key, value): (read_table(table), read_json(elbow))
    for (key, value), table, elbow in zip(
        run.params["points"], snakemake.input.point_tables, snakemake.input.point_elbows, strict=True
    )
}
elbow = read_json(snakemake.input.elbow)
claims = a3_claims(
    read_table(snakemake.input.table),
    elbow,
    paper_values("A3", snakemake.input.paper_values),
    run.params["setting"],
    spectrum=read_json(snakemake.input.rank),
    ranges=run.params["ranges"],
    at_points=at_points,
)
run.write_table(claims_frame(claims), snakemake.output[0], missing=CLAIM_NOT_APPLICABLE)
