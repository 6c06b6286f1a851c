"""Paper 1's mixture: its own Tsybakov exponent at small t (exact F), for C2's accelerated calibration rows."""

from crlrepro.runtime.artifacts import write_artifact_json
from crlrepro.theory.gmm import LatentClassGMM
from crlrepro.theory.tsybakov import small_t_exponent
from crlrepro.workflow.pipeline import ScriptRun

run = ScriptRun(snakemake)
t = run.params["t_small"]
run.log.info("exact F at t = %g and %g on paper 1's mixture", t, 10 * t)
result = small_t_exponent(LatentClassGMM.from_config(run.params["gmm"]), t)
run.log.info("μ_small = %.6g, (μ+1)/(μ+2) = %.6g", result["mu_small"], result["rate"])
write_artifact_json(result, snakemake.output[0], run.provenance())
