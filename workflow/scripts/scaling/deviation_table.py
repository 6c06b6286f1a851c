"""C3 at Thm 4.5's mechanism: each score's deviation and the family's supremum per m (SCRL, SSCRL, in-batch)
and per n, with bootstrap intervals, and their log-log slopes beside the theorem's (in-batch: beside SCRL's
law, derived in crlrepro.experiments.generalization)."""

from crlrepro.claims.reference import paper_values
from crlrepro.experiments.generalization import IN_BATCH_SLOPE_M, deviation_rates
from crlrepro.runtime.artifacts import read_table
from crlrepro.workflow.pipeline import ScriptRun

run = ScriptRun(snakemake)
p = run.params["deviation"]
reference = paper_values("C3", snakemake.input.paper_values)
draws = {name: read_table(snakemake.input[name]) for name in ("inner", "inbatch", "outer")}
deviations, slopes = deviation_rates(
    draws,
    fit_from=p["fit_from"],
    bootstrap=p["bootstrap"],
    seed=p["seed"],
    predicted={"m": {**reference["slope_m"], "inbatch": IN_BATCH_SLOPE_M}, "n": reference["slope_n"]},
)
run.write_table(deviations, snakemake.output.deviations)
run.write_table(slopes, snakemake.output.slopes)
