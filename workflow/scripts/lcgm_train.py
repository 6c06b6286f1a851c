"""A3, one (D, seed): train the two-tower MLP on pairs from the LCGM; save the model. The sensitivity grid's
jobs (wildcards i, j, D) train with the i-th noise_y and the j-th separation of lcgm.sensitivity."""

from pathlib import Path

from crlrepro.approximation import train_lcgm_two_tower
from crlrepro.artifacts import config_hash
from crlrepro.lcgm import LatentClassModel
from crlrepro.networks import save_two_tower
from crlrepro.pipeline import ScriptRun
from crlrepro.train import TrainSettings

wildcards = snakemake.wildcards
p = snakemake.params
lcgm = dict(p.lcgm)
if "i" in wildcards.keys():  # a point of the sensitivity grid: the first seed
    lcgm.update(noise_y=p.sensitivity["noise_y"][int(wildcards.i)], separation=p.sensitivity["separation"][int(wildcards.j)])
    dim, seed, tag = int(wildcards.D), int(p.seed), f"ny{wildcards.i}_sep{wildcards.j}_D{wildcards.D}"
else:
    dim, seed = int(wildcards.D), int(wildcards.seed)
    tag = f"D{dim}_seed{seed}"
run = ScriptRun(snakemake, seed=seed, device=p.device)
t = run.params["training"]
settings = TrainSettings(epochs=lcgm["epochs"], batch_size=t["batch_size"], learning_rate=t["learning_rate"],
                         weight_decay=t["weight_decay"], seed=seed, name=f"A3 {tag}", device=run.device)
model, history = train_lcgm_two_tower(
    LatentClassModel.from_config(lcgm), dim, seed, run.params["tau"], lcgm["train_samples"], settings,
    hidden=t["hidden"], layers=t["layers"],
    checkpoint=Path(run.params["checkpoint_dir"]) / f"{tag}.pt", fingerprint=config_hash({**run.params, "lcgm": lcgm}),
)
save_two_tower(model, snakemake.output[0], D=dim, seed=seed, history=history, provenance=run.provenance(),
               noise_y=lcgm["noise_y"], separation=lcgm["separation"])
