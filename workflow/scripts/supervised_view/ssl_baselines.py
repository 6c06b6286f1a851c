"""Paper 3: the baselines beside the trained encoders, evaluated as they are: raw pixels and the
untrained encoder of every seed."""

from crlrepro.experiments.supervised_view import EVALUATION_NOT_APPLICABLE, baseline_table
from crlrepro.learning.images import load_views
from crlrepro.workflow.pipeline import ScriptRun

run = ScriptRun(snakemake, device=snakemake.params.device)
e, t = run.params["evaluation"], run.params["training"]
views = load_views(snakemake.input.views)
evaluation = {**e, "seed": 0, "num_classes": views["num_classes"]}  # the same label draws for every run
architecture = {
    "encoder": t["encoder"],
    "channels": int(views["train_images"].shape[1]),
    "projection_dim": t["projection_dim"],
    "hidden": t["projector_hidden"],
}
run.write_table(
    baseline_table({"base": views}, architecture, t["seeds"], evaluation, run.device),
    snakemake.output[0],
    missing=EVALUATION_NOT_APPLICABLE,
)
