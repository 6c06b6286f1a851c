"""A3: train the two-tower MLP on pairs from the LCGM for every D of the job, in stacks of training.stack (each model
initialised, shuffled and trained as it would be alone; the smaller D padded, crlrepro.learning.networks.TwoTowerEnsemble),
one model file each. A job of rule lcgm_train is one seed over lcgm.dims; a job of lcgm_sensitivity_train_ny<i> is one row
of the lcgm.sensitivity grid (the i-th noise_y, the first seed): at each separation j its D, written to the row's
declared outputs sep<j>_D<D>.pt; a job of lcgm_range_train is one point of the declared ranges: every D and seed.
A killed job resumes every model from the stack's checkpoint."""

from pathlib import Path

from crlrepro.experiments.approximation import lcgm_pairs, train_two_tower_stack
from crlrepro.learning.networks import save_two_tower
from crlrepro.learning.train import TrainSettings, resolve_precision
from crlrepro.runtime.artifacts import config_hash
from crlrepro.theory.lcgm import LatentClassModel
from crlrepro.workflow.pipeline import ScriptRun

p = snakemake.params
lcgm = dict(p.lcgm)
# a row of the sensitivity grid: its points (separation index j) and their D, in output order
if "row" in p.keys():  # noqa: SIM118 (Snakemake's params are a list: `in` alone tests their values)
    i, seed = int(p.row), int(p.seed)
    points = [(int(j), int(dim)) for j, dims in p.points for dim in dims]
    jobs = [
        (
            {**lcgm, "noise_y": p.sensitivity["noise_y"][i], "separation": p.sensitivity["separation"][j]},
            dim,
            path,
        )
        for (j, dim), path in zip(points, snakemake.output, strict=True)
    ]
    seeds, stack = [seed] * len(jobs), f"ny{i}"
elif "seeds" in p.keys():  # noqa: SIM118 (a point of the declared ranges, rule lcgm_range_train: every D and seed)
    grid = [(int(dim), int(s)) for dim in p.dims for s in p.seeds]  # the order of the rule's outputs
    jobs = [(lcgm, dim, path) for (dim, _), path in zip(grid, snakemake.output, strict=True)]
    seeds, seed, stack = [s for _, s in grid], int(p.seeds[0]), "point"
else:
    seed = int(snakemake.wildcards.seed)
    jobs = [(lcgm, int(dim), path) for dim, path in zip(p.dims, snakemake.output, strict=True)]
    seeds, stack = [seed] * len(jobs), f"seed{seed}"
run = ScriptRun(snakemake, seed=seed, device=p.device)
t = run.params["training"]
precision = resolve_precision(lcgm["precision"], run.device, f"A3 {stack}")  # auto: this device's arithmetic
settings = TrainSettings(
    epochs=lcgm["epochs"],
    batch_size=t["batch_size"],
    learning_rate=t["learning_rate"],
    weight_decay=t["weight_decay"],
    compile=t["compile"],
    precision=precision,
    seed=seed,
    name=f"A3 {stack}",
    device=run.device,
)
trained = train_two_tower_stack(
    [
        lcgm_pairs(LatentClassModel.from_config(setting), model_seed, setting["train_samples"])
        for (setting, *_), model_seed in zip(jobs, seeds, strict=True)
    ],
    [dim for _, dim, _ in jobs],
    seeds,
    run.params["tau"],
    settings,
    hidden=t["hidden"],
    layers=t["layers"],
    stack=t["stack"],
    checkpoint=Path(run.params["checkpoint_dir"]) / f"{stack}.pt",
    fingerprint=config_hash(run.params),
)
for (setting, dim, path), model_seed, (model, history) in zip(jobs, seeds, trained, strict=True):
    save_two_tower(
        model,
        path,
        D=dim,
        seed=model_seed,
        history=history,
        provenance=run.provenance(),
        noise_y=setting["noise_y"],
        separation=setting["separation"],
        precision=precision,  # the arithmetic it trained in
    )
