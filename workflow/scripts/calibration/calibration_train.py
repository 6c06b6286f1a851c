"""C2, one D: train a two-tower model for every seed, in stacks (training.stack; each seed initialised, shuffled and
sampled by its own seed alone), and measure L(s) − L* and E(s) at every epoch of each, one table per seed."""

from crlrepro.experiments.calibration import calibration_trajectories
from crlrepro.learning.train import TrainSettings
from crlrepro.theory.gmm import LatentClassGMM
from crlrepro.workflow.pipeline import ScriptRun

dim = int(snakemake.wildcards.D)
run = ScriptRun(snakemake, device=snakemake.params.device)
p, c, t = run.params, run.params["calibration"], run.params["training"]
seeds = [int(s) for s in p["seeds"]]
settings = TrainSettings(
    epochs=c["epochs"],
    batch_size=c["batch_size"],
    learning_rate=c["learning_rate"],
    weight_decay=t["weight_decay"],
    compile=t["compile"],
    precision=t["precision"],
    seed=seeds[0],
    name=f"C2 D={dim}",
    device=run.device,
)
tables = calibration_trajectories(
    LatentClassGMM.from_config(p["gmm"]),
    dim,
    seeds,
    p["tau"],
    c["samples"],
    settings,
    hidden=t["hidden"],
    layers=t["layers"],
    stack=t["stack"],
    nodes=c["nodes"],
    inner_nodes=c["inner_nodes"],
)
for seed, points, path in zip(seeds, tables, snakemake.output, strict=True):
    run.write_table(points, path, seed=seed)
