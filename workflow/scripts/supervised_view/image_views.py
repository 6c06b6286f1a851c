"""Paper 3: the bank of augmented views of one augmentation pipeline (train and test images)."""

from crlrepro.learning.images import build_views
from crlrepro.runtime.artifacts import save_torch
from crlrepro.workflow.pipeline import ScriptRun

run = ScriptRun(snakemake, seed=snakemake.params.seed)
p = run.params
views = build_views(p["data"], snakemake.wildcards.augmentation, p["views"], p["bias_views"], p["seed"], p["bias_images"])
run.log.info("train images %s, bias views %s", tuple(views["train_images"].shape), tuple(views["test_bank"].shape))
save_torch({**views, "provenance": run.provenance()}, snakemake.output[0], run.provenance())
