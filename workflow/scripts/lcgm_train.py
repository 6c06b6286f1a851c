"""A3: train the two-tower MLP on pairs from the LCGM for every D of the job, one model file each. A job of rule
lcgm_train is one seed over lcgm.dims; a job of lcgm_sensitivity_train (wildcards i, j) is one point of the
lcgm.sensitivity grid (the i-th noise_y, the j-th separation, the first seed) over its D, written into its
directory as D<D>.pt."""

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
dims = [int(d) for d in p.dims]
if "i" in wildcards.keys():  # a point of the sensitivity grid
    lcgm.update(noise_y=p.sensitivity["noise_y"][int(wildcards.i)], separation=p.sensitivity["separation"][int(wildcards.j)])
    seed, point = int(p.seed), f"ny{wildcards.i}_sep{wildcards.j}"
    directory = Path(snakemake.output[0])
    directory.mkdir(parents=True, exist_ok=True)
    jobs = [(dim, f"{point}_D{dim}", directory / f"D{dim}.pt") for dim in dims]
else:
    seed = int(wildcards.seed)
    jobs = [(dim, f"D{dim}_seed{seed}", path) for dim, path in zip(dims, snakemake.output)]
run = ScriptRun(snakemake, seed=seed, device=p.device)
t = run.params["training"]
model_lcgm = LatentClassModel.from_config(lcgm)
for dim, tag, path in jobs:
    settings = TrainSettings(epochs=lcgm["epochs"], batch_size=t["batch_size"], learning_rate=t["learning_rate"],
                             weight_decay=t["weight_decay"], seed=seed, name=f"A3 {tag}", device=run.device)
    model, history = train_lcgm_two_tower(
        model_lcgm, dim, seed, run.params["tau"], lcgm["train_samples"], settings, hidden=t["hidden"], layers=t["layers"],
        checkpoint=Path(run.params["checkpoint_dir"]) / f"{tag}.pt",
        fingerprint=config_hash({**run.params, "lcgm": lcgm, "dims": dim}),
    )
    save_two_tower(model, path, D=dim, seed=seed, history=history, provenance=run.provenance(),
                   noise_y=lcgm["noise_y"], separation=lcgm["separation"])
