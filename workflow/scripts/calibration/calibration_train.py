"""C2, one D: for every seed, train a two-tower model and measure L(s) − L* and E(s) at every epoch, one table each.
Each seed's training is seeded by that seed alone, so it is the same to the bit as in a job of its own."""

from crlrepro.experiments.calibration import calibration_trajectory
from crlrepro.learning.train import TrainSettings
from crlrepro.theory.gmm import LatentClassGMM
from crlrepro.workflow.pipeline import ScriptRun

dim = int(snakemake.wildcards.D)
run = ScriptRun(snakemake, device=snakemake.params.device)
p, c, t = run.params, run.params["calibration"], run.params["training"]
gmm = LatentClassGMM.from_config(p["gmm"])
for seed, path in zip((int(s) for s in p["seeds"]), snakemake.output, strict=True):
    settings = TrainSettings(
        epochs=c["epochs"],
        batch_size=c["batch_size"],
        learning_rate=c["learning_rate"],
        weight_decay=t["weight_decay"],
        compile=t["compile"],
        seed=seed,
        name=f"C2 D={dim}",
        device=run.device,
    )
    points = calibration_trajectory(
        gmm,
        dim,
        seed,
        p["tau"],
        c["samples"],
        settings,
        hidden=t["hidden"],
        layers=t["layers"],
        nodes=c["nodes"],
        inner_nodes=c["inner_nodes"],
    )
    run.write_table(points, path, seed=seed)
