"""Paper 3, one run spec: every seed's frozen features evaluated (linear, tail-class, k-NN and
few-label probes; prototype bias, also as an angle; Thms 4.4 and 4.6), one row per seed."""

from crlrepro.experiments.prototype_angle import prototype_angles
from crlrepro.experiments.supervised_view import EVALUATION_NOT_APPLICABLE, evaluation_table
from crlrepro.learning.images import load_views
from crlrepro.runtime.artifacts import load_torch
from crlrepro.workflow.pipeline import ScriptRun

run = ScriptRun(snakemake, device=snakemake.params.device)
e = run.params["evaluation"]
views = load_views(snakemake.input.views)
evaluation = {**e, "seed": 0, "num_classes": views["num_classes"]}  # the same label draws for every run
records = load_torch(snakemake.input.model)["runs"]
table = evaluation_table(records, {views["augmentation"]: views}, evaluation, run.device)
table["prototype_bias_angle"] = prototype_angles(records, {views["augmentation"]: views}, run.device)
run.write_table(table, snakemake.output[0], missing=EVALUATION_NOT_APPLICABLE)
