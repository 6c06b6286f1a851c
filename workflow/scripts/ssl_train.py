"""Paper 3, one run: SimCLR-style training with the balanced loss on a view bank; save the model, or
the divergence (a NaN/inf loss) when the run diverges."""

from pathlib import Path

from crlrepro.artifacts import config_hash, save_torch
from crlrepro.images import ImageSplit, load_views, training_subset
from crlrepro.pipeline import ScriptRun
from crlrepro.supervised_view import train_contrastive
from crlrepro.train import NonFiniteLossError, TrainSettings

w = snakemake.wildcards
seed = int(w.seed)
run = ScriptRun(snakemake, seed=seed, device=snakemake.params.device)
p, t = run.params, run.params["training"]
views = load_views(snakemake.input.views)
full = ImageSplit(views["train_bank"], views["train_labels"], views["num_classes"])
subset = training_subset(full, w.balance, p["balance"]["per_class"], p["balance"]["imbalance_ratio"], seed)
name = f"{w.balance}_{w.augmentation}_{w.similarity}_r{w.ratio}_seed{seed}"
settings = TrainSettings(epochs=t["epochs"], batch_size=min(t["batch_size"], len(subset.labels)), learning_rate=t["learning_rate"],
                         weight_decay=t["weight_decay"], seed=seed, name=f"paper 3 {name}", device=run.device)
record = {"balance": w.balance, "augmentation": w.augmentation, "similarity": w.similarity, "ratio": float(w.ratio),
          "seed": seed, "train_size": len(subset.labels), "class_sizes": subset.labels.bincount(minlength=full.num_classes).tolist(),
          "provenance": run.provenance()}
try:
    model, history = train_contrastive(subset.images, settings, encoder=t["encoder"], projection_dim=t["projection_dim"],
                                       temperature=t["temperature"], ratio=float(w.ratio), similarity=w.similarity,
                                       checkpoint=Path(p["checkpoint_dir"]) / f"{name}.pt", fingerprint=config_hash(p))
    record |= {"state_dict": model.state_dict(), "architecture": {"encoder": t["encoder"], "channels": full.images.shape[2],
               "projection_dim": t["projection_dim"]}, "history": history, "diverged": None}
except NonFiniteLossError as error:
    run.log.error("run diverged: %s", error)
    record |= {"state_dict": None, "history": None, "diverged": str(error)}
save_torch(record, snakemake.output[0], record["provenance"])
