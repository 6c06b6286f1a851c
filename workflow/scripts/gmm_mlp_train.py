"""A2, one (D, seed): train the two-tower MLP on pairs from the GMM (fresh every epoch by default); save the model."""

from pathlib import Path

from crlrepro.approximation import train_gmm_two_tower
from crlrepro.artifacts import config_hash
from crlrepro.gmm import LatentClassGMM
from crlrepro.networks import save_two_tower
from crlrepro.pipeline import ScriptRun
from crlrepro.train import TrainSettings

wildcards = snakemake.wildcards
dim, seed = int(wildcards.D), int(wildcards.seed)
run = ScriptRun(snakemake, seed=seed, device=snakemake.params.device)
p, t = run.params, run.params["training"]
settings = TrainSettings(epochs=p["epochs"], batch_size=t["batch_size"], learning_rate=t["learning_rate"],
                         weight_decay=t["weight_decay"], seed=seed, name=f"A2 D={dim}", device=run.device)
model, history = train_gmm_two_tower(
    LatentClassGMM.from_config(p["gmm"]), dim, seed, p["tau"], p["samples"], settings, fresh=p["fresh"],
    hidden=t["hidden"], layers=t["layers"],
    checkpoint=Path(p["checkpoint_dir"]) / f"D{dim}_seed{seed}.pt", fingerprint=config_hash(p),
)
save_two_tower(model, snakemake.output[0], D=dim, seed=seed, history=history, provenance=run.provenance())
