"""Paper 3: the bank of augmented views of one augmentation pipeline (train and test images)."""

from crlrepro.artifacts import save_torch
from crlrepro.images import build_views
from crlrepro.pipeline import ScriptRun

run = ScriptRun(snakemake, seed=snakemake.params.seed)
p = run.params
views = build_views(p["data"], snakemake.wildcards.augmentation, p["views"], p["bias_views"], p["seed"])
run.log.info("train bank %s, test bank %s", tuple(views["train_bank"].shape), tuple(views["test_bank"].shape))
save_torch({**views, "provenance": run.provenance()}, snakemake.output[0], run.provenance())
