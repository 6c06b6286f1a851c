"""C2, one (D, seed): train a two-tower model and measure L(s) − L* and E(s) at every epoch."""

from crlrepro.calibration import calibration_trajectory
from crlrepro.gmm import LatentClassGMM
from crlrepro.pipeline import ScriptRun
from crlrepro.train import TrainSettings

wildcards = snakemake.wildcards
dim, seed = int(wildcards.D), int(wildcards.seed)
run = ScriptRun(snakemake, seed=seed, device=snakemake.params.device)
p, c, t = run.params, run.params["calibration"], run.params["training"]
settings = TrainSettings(epochs=c["epochs"], batch_size=c["batch_size"], learning_rate=c["learning_rate"],
                         weight_decay=t["weight_decay"], seed=seed, name=f"C2 D={dim}", device=run.device)
points = calibration_trajectory(LatentClassGMM.from_config(p["gmm"]), dim, seed, p["tau"], c["samples"], settings,
                                hidden=t["hidden"], layers=t["layers"], nodes=c["nodes"], inner_nodes=c["inner_nodes"])
run.write_table(points, snakemake.output[0])
