"""A3: train the two-tower MLP on pairs from the LCGM for every D of the job, one model file each. A job of rule
lcgm_train is one seed over lcgm.dims; a job of lcgm_sensitivity_train_ny<i> is one row of the lcgm.sensitivity grid
(the i-th noise_y, the first seed): at each separation j its D, written to the row's declared outputs sep<j>_D<D>.pt."""

from pathlib import Path

from crlrepro.experiments.approximation import train_lcgm_two_tower
from crlrepro.learning.networks import save_two_tower
from crlrepro.learning.train import TrainSettings
from crlrepro.runtime.artifacts import config_hash
from crlrepro.theory.lcgm import LatentClassModel
from crlrepro.workflow.pipeline import ScriptRun

p = snakemake.params
lcgm = dict(p.lcgm)
if "row" in p.keys():  # noqa: SIM118 (Snakemake's params are a list: `in` alone tests their values)  # a row of the sensitivity grid: its points (separation index j) and their D, in output order
    i, seed = int(p.row), int(p.seed)
    points = [(int(j), int(dim)) for j, dims in p.points for dim in dims]
    jobs = [
        (
            {**lcgm, "noise_y": p.sensitivity["noise_y"][i], "separation": p.sensitivity["separation"][j]},
            dim,
            f"ny{i}_sep{j}_D{dim}",
            path,
        )
        for (j, dim), path in zip(points, snakemake.output, strict=True)
    ]
else:
    seed = int(snakemake.wildcards.seed)
    jobs = [(lcgm, int(dim), f"D{dim}_seed{seed}", path) for dim, path in zip(p.dims, snakemake.output, strict=True)]
run = ScriptRun(snakemake, seed=seed, device=p.device)
t = run.params["training"]
shared = {k: v for k, v in run.params.items() if k not in ("points", "row")}  # a model's checkpoint is not its row's business
for setting, dim, tag, path in jobs:
    settings = TrainSettings(
        epochs=setting["epochs"],
        batch_size=t["batch_size"],
        learning_rate=t["learning_rate"],
        weight_decay=t["weight_decay"],
        compile=t["compile"],
        seed=seed,
        name=f"A3 {tag}",
        device=run.device,
    )
    model, history = train_lcgm_two_tower(
        LatentClassModel.from_config(setting),
        dim,
        seed,
        run.params["tau"],
        setting["train_samples"],
        settings,
        hidden=t["hidden"],
        layers=t["layers"],
        checkpoint=Path(run.params["checkpoint_dir"]) / f"{tag}.pt",
        fingerprint=config_hash({**shared, "lcgm": setting, "dims": dim}),
    )
    save_two_tower(
        model,
        path,
        D=dim,
        seed=seed,
        history=history,
        provenance=run.provenance(),
        noise_y=setting["noise_y"],
        separation=setting["separation"],
    )
