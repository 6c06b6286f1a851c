"""C2, one seed: for every D of the sweep, train a two-tower model and measure L(s) − L* and E(s) at every epoch,
one table each. Each D's training is seeded by the seed alone, so it is the same to the bit as in a job of its own."""

from crlrepro.calibration import calibration_trajectory
from crlrepro.gmm import LatentClassGMM
from crlrepro.pipeline import ScriptRun
from crlrepro.train import TrainSettings

seed = int(snakemake.wildcards.seed)
run = ScriptRun(snakemake, seed=seed, device=snakemake.params.device)
p, c, t = run.params, run.params["calibration"], run.params["training"]
gmm = LatentClassGMM.from_config(p["gmm"])
for dim, path in zip((int(d) for d in p["dims"]), snakemake.output):
    settings = TrainSettings(epochs=c["epochs"], batch_size=c["batch_size"], learning_rate=c["learning_rate"],
                             weight_decay=t["weight_decay"], seed=seed, name=f"C2 D={dim}", device=run.device)
    points = calibration_trajectory(gmm, dim, seed, p["tau"], c["samples"], settings, hidden=t["hidden"],
                                    layers=t["layers"], nodes=c["nodes"], inner_nodes=c["inner_nodes"])
    run.write_table(points, path)
