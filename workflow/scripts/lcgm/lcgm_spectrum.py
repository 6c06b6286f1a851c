"""A3: the LCGM's PMI operator's own spectrum from held-out samples (paper 2, Prop. 5.6: rank K), its floor
rule, the noise_x sweep and the exact-rank-K reference."""

import json

from crlrepro.runtime.artifacts import write_artifact_json
from crlrepro.theory.lcgm import SPECTRUM_NOT_APPLICABLE, LatentClassModel, rank_k_evidence
from crlrepro.workflow.pipeline import ScriptRun

run = ScriptRun(snakemake, seed=snakemake.params.spectrum["seed"])
p = run.params["spectrum"]
evidence = rank_k_evidence(
    LatentClassModel.from_config(run.params["lcgm"]),
    p["samples"],
    p["seed"],
    repeats=p["repeats"],
    rtol=p["rtol"],
    z=p["z"],
    noise_factors=p["noise_factors"],
)
run.write_table(evidence.pop("spectrum"), snakemake.output.spectrum, missing=SPECTRUM_NOT_APPLICABLE)
run.write_table(evidence.pop("noise_sweep"), snakemake.output.noise, missing=SPECTRUM_NOT_APPLICABLE)
evidence["size_sweep"] = json.loads(evidence["size_sweep"].to_json(orient="records"))  # plain numbers
write_artifact_json(evidence, snakemake.output.summary, run.provenance())
