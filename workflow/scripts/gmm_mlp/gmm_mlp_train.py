"""A2, one D: train the two-tower MLP on pairs from the GMM (fresh every epoch by default) for every seed, one model
file each. Each seed's training is seeded by that seed alone, so it is the same to the bit as in a job of its own;
each resumes from its own checkpoint after a kill."""

from pathlib import Path

from crlrepro.experiments.approximation import train_gmm_two_tower
from crlrepro.learning.networks import save_two_tower
from crlrepro.learning.train import TrainSettings
from crlrepro.runtime.artifacts import config_hash
from crlrepro.theory.gmm import LatentClassGMM
from crlrepro.workflow.pipeline import ScriptRun

dim = int(snakemake.wildcards.D)
run = ScriptRun(snakemake, device=snakemake.params.device)
p, t = run.params, run.params["training"]
gmm = LatentClassGMM.from_config(p["gmm"])
for seed, path in zip((int(s) for s in p["seeds"]), snakemake.output, strict=True):
    settings = TrainSettings(
        epochs=p["epochs"],
        batch_size=t["batch_size"],
        learning_rate=t["learning_rate"],
        weight_decay=t["weight_decay"],
        compile=t["compile"],
        seed=seed,
        name=f"A2 D={dim}",
        device=run.device,
    )
    model, history = train_gmm_two_tower(
        gmm,
        dim,
        seed,
        p["tau"],
        p["samples"],
        settings,
        fresh=p["fresh"],
        hidden=t["hidden"],
        layers=t["layers"],
        checkpoint=Path(p["checkpoint_dir"]) / f"D{dim}_seed{seed}.pt",
        fingerprint=config_hash({**p, "seeds": seed}),  # one seed's training: the other seeds do not shape it
    )
    save_two_tower(model, path, D=dim, seed=seed, history=history, provenance=run.provenance(seed))
