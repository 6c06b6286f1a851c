"""Benchmark: A2's paper-scale training (two-tower MLPs, width 128, 3 layers, batch 512, AdamW, in-batch
InfoNCE at τ = 0.5, D = 8) on CUDA against the CPU, through the project's trainer.

    python benchmarks/gpu.py [--samples 1048576] [--epochs 2] [--threads 16]
    python benchmarks/gpu.py --first-epochs [configs/paper.yaml] [--fraction 1]

Prints samples/second on each device (an epoch of warm-up first, then --epochs timed epochs) and the
ratio, and, on CUDA, the batched ensembles of benchmarks/ensemble.py (M members stacked along a leading
dimension, one optimiser step for all): samples/s per member for each training shape, a member trained
alone as the baseline; without CUDA it measures the CPU and says that no GPU was found. Ready to run as is on a GPU
machine (nothing to download; about a minute on one GPU).

``--first-epochs`` runs the first epoch of each training of a scale (configs/paper.yaml by default: A2, A3, C2 and
paper 3's encoder) on CUDA when present, and prints samples/s and the training time of the whole scale at that rate,
so that a user with a GPU knows within minutes that the paper-scale plan works (on a CPU, 1 % of each epoch).
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path

import ensemble
import numpy as np
import torch
from common import markdown, row, table

from crlrepro.experiments.approximation import in_batch_info_nce
from crlrepro.learning.networks import TwoTower
from crlrepro.learning.train import TrainSettings, train
from crlrepro.runtime.device import configure_threads
from crlrepro.theory.gmm import LatentClassGMM

ROOT = Path(__file__).resolve().parents[1]
PAPER_GMM = LatentClassGMM([0.5, 0.5], [1.2, -1.2], [1.0, 1.0], [1.2, -1.2], [1.0, 1.0])


def samples_per_second(device: str, x: torch.Tensor, y: torch.Tensor, epochs: int) -> float:
    settings = TrainSettings(
        epochs=1, batch_size=512, learning_rate=1e-3, weight_decay=1e-2, seed=0, name=f"A2 on {device}", device=device
    )
    torch.manual_seed(0)
    model = TwoTower(1, 1, 8, hidden=128, layers=3)
    train(model, in_batch_info_nce(0.5), [x, y], settings)  # warm-up: kernels, allocator, fused AdamW
    if device == "cuda":
        torch.cuda.synchronize()
    start = time.perf_counter()
    train(model, in_batch_info_nce(0.5), [x, y], replace(settings, epochs=epochs))
    if device == "cuda":
        torch.cuda.synchronize()
    return epochs * (len(x) // 512) * 512 / (time.perf_counter() - start)


def measure(samples: int = 1 << 20, epochs: int = 2, threads: int | None = None) -> list[dict]:
    """CUDA vs CPU samples/s (value and baseline); without CUDA the CPU alone, the GPU 'not measured'."""
    threads = threads or torch.get_num_threads()
    configure_threads(threads)
    xs, ys, _ = PAPER_GMM.sample(samples, np.random.default_rng(0))
    x = torch.tensor(xs, dtype=torch.float32)[:, None]
    y = torch.tensor(ys, dtype=torch.float32)[:, None]
    cpu = samples_per_second("cpu", x, y, epochs)
    print(f"cpu ({threads} threads): {cpu:,.0f} samples/s", flush=True)
    if not torch.cuda.is_available():
        print("no CUDA device: GPU not measured", flush=True)
        return [
            row(
                "gpu",
                f"A2 paper-scale training (samples/s): no CUDA device here, CPU ({threads} threads) as baseline",
                None,
                cpu,
                None,
                "measured where a GPU is lent",
                None,
            )
        ]
    cuda = samples_per_second("cuda", x, y, epochs)
    name = torch.cuda.get_device_name(0)
    print(f"cuda ({name}): {cuda:,.0f} samples/s; speed-up {cuda / cpu:.1f}x", flush=True)
    rows = [
        row(
            "gpu",
            f"A2 paper-scale training (samples/s) on {name}, CPU ({threads} threads) as baseline",
            cuda,
            cpu,
            cuda / cpu,
            "measured where a GPU is lent",
            True,
        )
    ]
    return rows + ensemble_rows(name)


def ensemble_rows(name: str, members=(8, 32)) -> list[dict]:
    """Samples/s per member of batched ensembles on CUDA (a member alone as the baseline), per training shape."""
    batch = {shape[0]: shape[-1] for shape in ensemble.TWO_TOWER_SHAPES}
    frame = ensemble.measure(members, threads=1, seconds=2.0, device="cuda")
    rows = []
    for r in frame.itertuples():
        per_step = batch.get(r.training, 2 * 256)  # the CNN's step sees two views of 256 images
        stacked, alone = per_step / r.ms_per_member_step_stacked * 1e3, per_step / r.ms_per_member_step_alone * 1e3
        print(
            f"cuda ensemble {r.training}, {r.members} members: {stacked:,.0f} samples/s per member ({alone:,.0f} alone)",
            flush=True,
        )
        rows.append(
            row(
                "gpu",
                f"{r.training}, ensemble of {r.members} on {name}: samples/s per member, alone as baseline",
                stacked,
                alone,
                stacked / alone,
                "context",
                None,
            )
        )
    return rows


def scale_config(configfile: str | Path) -> dict:
    """config.yaml with ``configfile`` merged over it, as Snakemake merges them, validated with its defaults filled
    (the data on disk are not checked: paper 3's first epoch runs on images of the data set's shape)."""
    from snakemake.utils import update_config

    from crlrepro.workflow.config import read_config_file, validate_config

    config = read_config_file(ROOT / "config.yaml")
    update_config(config, read_config_file(configfile))
    return validate_config(config, ROOT / "workflow" / "schemas" / "config.schema.yaml", check_data=False)


def _timed(device: str, fit) -> float:
    """Seconds ``fit()`` takes on ``device`` (CUDA synchronised before and after)."""
    if device == "cuda":
        torch.cuda.synchronize()
    start = time.perf_counter()
    fit()
    if device == "cuda":
        torch.cuda.synchronize()
    return time.perf_counter() - start


def paper_trainings(config: dict, fraction: float) -> list[tuple[str, int, int, int, object]]:
    """Each training of a scale as (name, samples in its first epoch, samples per full epoch, epochs x models of the
    whole scale, fit(settings)): A2 and A3 (paper 2's two-tower MLPs), C2 (paper 1's calibration trainings) and paper
    3's encoder (the config's encoder and data set, on random images of the data set's shape: timing only). The first
    epoch runs ``fraction`` of an epoch's samples (1 on a GPU; a CPU needs a small one to finish in minutes)."""
    from crlrepro.experiments.approximation import train_gmm_two_tower, train_lcgm_two_tower
    from crlrepro.experiments.supervised_view import train_contrastive
    from crlrepro.learning.augment import simclr_spec
    from crlrepro.learning.datasets import training_class_counts
    from crlrepro.studies.supervised_view import DATA_SHAPES, SSL_EXPERIMENTS, ssl_experiment_specs
    from crlrepro.theory.lcgm import LatentClassModel

    t, approx, lcgm = config["training"], config["approximation"], config["lcgm"]
    calibration, view = config["consistency"]["calibration"], config["supervised_view"]
    part = lambda n, batch: max(batch, int(n * fraction) // batch * batch)  # noqa: E731  whole batches, at least one
    seeds = len(config["seeds"])
    two_tower = {"batch_size": t["batch_size"], "learning_rate": t["learning_rate"], "weight_decay": t["weight_decay"]}
    a2 = part(approx["train_samples"], t["batch_size"])
    a3 = part(lcgm["train_samples"], t["batch_size"])
    c2 = part(calibration["samples"], calibration["batch_size"])
    _, channels, side = DATA_SHAPES[view["data"]["name"]]
    side = view["data"].get("image_size") or side
    images = int(training_class_counts(view["data"]).sum())  # the training split, after any train_size subset
    s = part(images, view["batch_size"])
    runs = {spec for e in SSL_EXPERIMENTS for spec in ssl_experiment_specs(e, view)}
    paper1 = LatentClassGMM.from_config(config["consistency"]["gmm"])

    def a2_fit(settings):
        train_gmm_two_tower(
            LatentClassGMM.from_config(config["gmm"]),
            max(approx["dims"]),
            0,
            config["tau"],
            a2,
            replace(settings, **two_tower),
            fresh=approx["fresh_pairs"],
            hidden=t["hidden"],
            layers=t["layers"],
        )

    def a3_fit(settings):
        train_lcgm_two_tower(
            LatentClassModel.from_config(lcgm),
            lcgm["classes"],
            0,
            config["tau"],
            a3,
            replace(settings, **two_tower),
            hidden=t["hidden"],
            layers=t["layers"],
        )

    def c2_fit(settings):
        train_gmm_two_tower(
            paper1,
            max(calibration["dims"]),
            0,
            config["tau"],
            c2,
            replace(
                settings,
                batch_size=calibration["batch_size"],
                learning_rate=calibration["learning_rate"],
                weight_decay=t["weight_decay"],
            ),
            hidden=t["hidden"],
            layers=t["layers"],
        )

    def ssl_fit(settings):
        data = torch.rand(s, channels, side, side, generator=torch.Generator().manual_seed(0))
        train_contrastive(
            data,
            replace(
                settings,
                batch_size=view["batch_size"],
                learning_rate=view["learning_rate"],
                weight_decay=view["weight_decay"],
                optimizer=view["optimizer"],
            ),
            encoder=view["encoder"],
            projection_dim=view["projection_dim"],
            hidden=view["projector_hidden"],
            temperature=view["temperature"],
            ratio=1.0,
            similarity="cosine",
            augment=simclr_spec("base", channels, view["data"]["name"] != "digits"),
        )

    return [
        ("A2 two-tower MLP", a2, approx["train_samples"], approx["epochs"] * len(approx["dims"]) * len(approx["seeds"]), a2_fit),
        ("A3 LCGM two-tower MLP", a3, lcgm["train_samples"], lcgm["epochs"] * len(lcgm["dims"]) * seeds, a3_fit),
        (
            "C2 calibration two-tower MLP",
            c2,
            calibration["samples"],
            calibration["epochs"] * len(calibration["dims"]) * seeds,
            c2_fit,
        ),
        (
            f"paper 3 {view['encoder']} on {view['data']['name']}",
            s,
            images,
            view["epochs"] * len(runs) * len(view["seeds"]),
            ssl_fit,
        ),
    ]


def first_epoch_rows(
    configfile: str | Path = ROOT / "configs" / "paper.yaml", fraction: float | None = None, device: str | None = None
) -> list[dict]:
    """The first epoch of each of a scale's trainings on ``device`` (CUDA when present, else the CPU), timed with its
    start-up (model, data, kernels) as a user's first epoch would be: samples/s, and the whole scale's training time
    that rate implies (every epoch of every model at the first epoch's rate, on one device)."""
    device = device or ("cuda" if torch.cuda.is_available() else "cpu")
    fraction = fraction if fraction is not None else (1.0 if device == "cuda" else 0.01)
    config = scale_config(configfile)
    where = torch.cuda.get_device_name(0) if device == "cuda" else f"CPU ({torch.get_num_threads()} threads)"
    rows = []
    for name, samples, epoch, epochs, fit in paper_trainings(config, fraction):
        settings = TrainSettings(
            epochs=1, batch_size=1, learning_rate=1e-3, weight_decay=0.0, seed=0, name=f"{name}, first epoch", device=device
        )
        seconds = _timed(device, lambda: fit(settings))
        rate = samples / seconds
        hours = epochs * epoch / rate / 3600
        print(
            f"{name} on {where}: first epoch ({samples:,} of {epoch:,} samples) {seconds:.1f} s, {rate:,.0f} samples/s; "
            f"the scale's {epochs:,} epochs of it: ~{hours:.1f} h on one such device",
            flush=True,
        )
        rows.append(
            row(
                "gpu",
                f"{Path(configfile).name}: {name}, first epoch on {where} (samples/s; the scale's "
                f"{epochs:,} epochs ~{hours:.2g} h)",
                rate,
                None,
                None,
                "context",
                None,
            )
        )
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=1 << 20)
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--threads", type=int, default=torch.get_num_threads(), help="CPU threads")
    parser.add_argument(
        "--first-epochs",
        metavar="CONFIGFILE",
        nargs="?",
        const=str(ROOT / "configs" / "paper.yaml"),
        help="instead: the first epoch of each training of a scale (default configs/paper.yaml) on CUDA "
        "when present, else on the CPU",
    )
    parser.add_argument(
        "--fraction",
        type=float,
        default=None,
        help="with --first-epochs: the share of an epoch to run (default 1 on CUDA, 0.01 on the CPU)",
    )
    args = parser.parse_args(argv)
    if args.fraction is not None and not 0 < args.fraction <= 1:
        parser.error(f"--fraction: {args.fraction} is not in (0, 1]")
    if args.first_epochs:
        configure_threads(args.threads)
        print(markdown(table(first_epoch_rows(args.first_epochs, args.fraction))))
        return 0
    print(markdown(table(measure(args.samples, args.epochs, args.threads))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
