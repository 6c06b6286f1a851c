"""Paper 3: the bank of augmented views of one augmentation pipeline (train and test images)."""

import torch

from crlrepro.artifacts import atomic_path
from crlrepro.images import build_views
from crlrepro.pipeline import ScriptRun

run = ScriptRun(snakemake, seed=snakemake.params.seed)  # noqa: F821 (injected by Snakemake)
p = run.params
views = build_views(p["data"], snakemake.wildcards.augmentation, p["views"], p["bias_views"], p["seed"])  # noqa: F821
run.log.info("train bank %s, test bank %s", tuple(views["train_bank"].shape), tuple(views["test_bank"].shape))
with atomic_path(snakemake.output[0]) as tmp:  # noqa: F821
    torch.save({**views, "provenance": run.provenance()}, tmp)
