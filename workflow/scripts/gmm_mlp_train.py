"""A2, one seed: train the two-tower MLP on pairs from the GMM (fresh every epoch by default) for every D of the
sweep, one model file each. Each D's training is seeded by the seed alone, so it is the same to the bit as when it
ran in a job of its own; each resumes from its own checkpoint after a kill."""

from pathlib import Path

from crlrepro.approximation import train_gmm_two_tower
from crlrepro.artifacts import config_hash
from crlrepro.gmm import LatentClassGMM
from crlrepro.networks import save_two_tower
from crlrepro.pipeline import ScriptRun
from crlrepro.train import TrainSettings

seed = int(snakemake.wildcards.seed)
run = ScriptRun(snakemake, seed=seed, device=snakemake.params.device)
p, t = run.params, run.params["training"]
gmm = LatentClassGMM.from_config(p["gmm"])
for dim, path in zip((int(d) for d in p["dims"]), snakemake.output):
    settings = TrainSettings(epochs=p["epochs"], batch_size=t["batch_size"], learning_rate=t["learning_rate"],
                             weight_decay=t["weight_decay"], seed=seed, name=f"A2 D={dim}", device=run.device)
    model, history = train_gmm_two_tower(
        gmm, dim, seed, p["tau"], p["samples"], settings, fresh=p["fresh"], hidden=t["hidden"], layers=t["layers"],
        checkpoint=Path(p["checkpoint_dir"]) / f"D{dim}_seed{seed}.pt",
        fingerprint=config_hash({**p, "dims": dim}),  # one D's training: the rest of the sweep does not shape it
    )
    save_two_tower(model, path, D=dim, seed=seed, history=history, provenance=run.provenance())
