"""Paper 3, one run spec: SimCLR-style training of every seed (views drawn fresh at every step, or from
a view bank), the same number of optimiser steps for every training set (S3's smaller sets take more
passes); save each seed's model, or its divergence (a NaN/inf loss)."""

from pathlib import Path

from crlrepro.experiments.supervised_view import train_contrastive
from crlrepro.learning.augment import simclr_spec
from crlrepro.learning.images import ImageSplit, load_views, training_subset
from crlrepro.learning.train import NonFiniteLossError, TrainSettings
from crlrepro.runtime.artifacts import config_hash, load_torch, save_torch, sidecar_path
from crlrepro.workflow.pipeline import ScriptRun

w = snakemake.wildcards
run = ScriptRun(snakemake, device=snakemake.params.device)
p, t = run.params, run.params["training"]
views = load_views(snakemake.input.views)
fresh = t["augment"] == "fresh"
data = views["train_images"] if fresh else views["train_bank"]
full = ImageSplit(data, views["train_labels"], views["num_classes"])
augment = simclr_spec(w.augmentation, int(views["train_images"].shape[1]), bool(views["flip"])) if fresh else None
batch = min(t["batch_size"], len(full.labels))
steps_per_epoch = len(full.labels) // batch  # one pass of the full training split, for every arm
name = f"{w.balance}_{w.augmentation}_{w.similarity}_{w.loss}_r{w.ratio}"
checkpoints = Path(p["checkpoint_dir"])
fingerprint = config_hash(p)
runs = []
for seed in t["seeds"]:
    done = checkpoints / f"{name}_seed{seed}.done.pt"  # a finished seed survives a kill of the job
    if done.exists():
        record = load_torch(done)
        if record.get("fingerprint") == fingerprint:
            run.log.info("seed %d: finished earlier (%s)", seed, done)
            runs.append(record)
            continue
    subset = training_subset(full, w.balance, p["balance"]["per_class"], p["balance"]["imbalance_ratio"], seed)
    settings = TrainSettings(
        epochs=t["epochs"],
        batch_size=min(batch, len(subset.labels)),
        learning_rate=t["learning_rate"],
        weight_decay=t["weight_decay"],
        seed=seed,
        name=f"paper 3 {name}",
        device=run.device,
        steps_per_epoch=steps_per_epoch,
        optimizer=t["optimizer"],
        precision=p["precision"],
    )
    record = {
        "balance": w.balance,
        "augmentation": w.augmentation,
        "similarity": w.similarity,
        "loss": w.loss,
        "ratio": float(w.ratio),
        "seed": seed,
        "train_size": len(subset.labels),
        "steps": t["epochs"] * steps_per_epoch,
        "class_sizes": subset.labels.bincount(minlength=full.num_classes).tolist(),
        "fingerprint": fingerprint,
    }
    try:
        model, history = train_contrastive(
            subset.images,
            settings,
            encoder=t["encoder"],
            projection_dim=t["projection_dim"],
            hidden=t["projector_hidden"],
            temperature=t["temperature"],
            ratio=float(w.ratio),
            similarity=w.similarity,
            loss=w.loss,
            augment=augment,
            labels=subset.labels,
            checkpoint=checkpoints / f"{name}_seed{seed}.pt",
            fingerprint=fingerprint,
        )
        record |= {
            "state_dict": model.state_dict(),
            "history": history,
            "diverged": None,
            "architecture": {
                "encoder": t["encoder"],
                "channels": int(views["train_images"].shape[1]),
                "projection_dim": t["projection_dim"],
                "hidden": t["projector_hidden"],
            },
        }
    except NonFiniteLossError as error:
        run.log.error("seed %d diverged: %s", seed, error)
        record |= {"state_dict": None, "history": None, "diverged": str(error)}
    save_torch(record, done)
    runs.append(record)
save_torch({"runs": runs, "provenance": run.provenance()}, snakemake.output[0], run.provenance())
for seed in t["seeds"]:  # all saved in the output: nothing left to resume
    (checkpoints / f"{name}_seed{seed}.done.pt").unlink(missing_ok=True)
    sidecar_path(checkpoints / f"{name}_seed{seed}.done.pt").unlink(missing_ok=True)
