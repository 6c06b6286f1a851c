"""A2, one D: train the two-tower MLP on pairs from the GMM (fresh every epoch by default) for every seed, in stacks
(training.stack; each seed initialised, shuffled and sampled by its own seed alone), one model file each. A killed job
resumes every seed from its stack's checkpoint."""

from pathlib import Path

from crlrepro.experiments.approximation import gmm_pairs, train_two_tower_stack
from crlrepro.learning.networks import save_two_tower
from crlrepro.learning.train import TrainSettings
from crlrepro.runtime.artifacts import config_hash
from crlrepro.theory.gmm import LatentClassGMM
from crlrepro.workflow.pipeline import ScriptRun

dim = int(snakemake.wildcards.D)
run = ScriptRun(snakemake, device=snakemake.params.device)
p, t = run.params, run.params["training"]
gmm = LatentClassGMM.from_config(p["gmm"])
seeds = [int(s) for s in p["seeds"]]
settings = TrainSettings(
    epochs=p["epochs"],
    batch_size=t["batch_size"],
    learning_rate=t["learning_rate"],
    weight_decay=t["weight_decay"],
    compile=t["compile"],
    precision=t["precision"],
    seed=seeds[0],
    name=f"A2 D={dim}",
    device=run.device,
)
trained = train_two_tower_stack(
    [gmm_pairs(gmm, seed, p["samples"], p["fresh"]) for seed in seeds],
    [dim] * len(seeds),
    seeds,
    p["tau"],
    settings,
    hidden=t["hidden"],
    layers=t["layers"],
    stack=t["stack"],
    checkpoint=Path(p["checkpoint_dir"]) / f"D{dim}.pt",
    fingerprint=config_hash(p),
)
for seed, (model, history), path in zip(seeds, trained, snakemake.output, strict=True):
    save_two_tower(model, path, D=dim, seed=seed, history=history, provenance=run.provenance(seed))
