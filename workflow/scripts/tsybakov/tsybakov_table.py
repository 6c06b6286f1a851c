"""A4: Monte-Carlo Tsybakov exponent μ̂ per fit window (configured window first) and the gap CDF."""

from crlrepro.theory.gmm import LatentClassGMM
from crlrepro.theory.tsybakov import tsybakov_study
from crlrepro.workflow.pipeline import ScriptRun

run = ScriptRun(snakemake, seed=snakemake.params.tsybakov["seed"])
c = run.params["tsybakov"]
table, cdf = tsybakov_study(
    LatentClassGMM.from_config(run.params["gmm"]),
    c["samples"],
    c["seed"],
    c["window"],
    c["other_windows"],
    c["grid_points"],
    c["bootstrap"],
)
run.write_table(table, snakemake.output.table)
run.write_table(cdf, snakemake.output.cdf)
