"""A3, one (D, seed): train the two-tower MLP on pairs from the LCGM; save the model."""

from pathlib import Path

from crlrepro.approximation import train_lcgm_two_tower
from crlrepro.artifacts import config_hash
from crlrepro.lcgm import LatentClassModel
from crlrepro.networks import save_two_tower
from crlrepro.pipeline import ScriptRun
from crlrepro.train import TrainSettings

wildcards = snakemake.wildcards
dim, seed = int(wildcards.D), int(wildcards.seed)
run = ScriptRun(snakemake, seed=seed, device=snakemake.params.device)
p, t, lcgm = run.params, run.params["training"], run.params["lcgm"]
settings = TrainSettings(epochs=lcgm["epochs"], batch_size=t["batch_size"], learning_rate=t["learning_rate"],
                         weight_decay=t["weight_decay"], seed=seed, name=f"A3 D={dim}", device=run.device)
model, history = train_lcgm_two_tower(
    LatentClassModel.from_config(lcgm), dim, seed, p["tau"], lcgm["train_samples"], settings,
    hidden=t["hidden"], layers=t["layers"],
    checkpoint=Path(p["checkpoint_dir"]) / f"D{dim}_seed{seed}.pt", fingerprint=config_hash(p),
)
save_two_tower(model, snakemake.output[0], D=dim, seed=seed, history=history, provenance=run.provenance())
