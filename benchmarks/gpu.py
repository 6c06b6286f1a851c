"""Benchmark: A2's paper-scale training (two-tower MLPs, width 128, 3 layers, batch 512, AdamW, in-batch
InfoNCE at τ = 0.5, D = 8) on CUDA against the CPU, through the project's trainer.

    python benchmarks/gpu.py [--samples 1048576] [--epochs 2] [--threads 16]

Prints samples/second on each device (an epoch of warm-up first, then --epochs timed epochs) and the
ratio, and, on CUDA, the batched ensembles of benchmarks/ensemble.py (M members stacked along a leading
dimension, one optimiser step for all): samples/s per member for each training shape, a member trained
alone as the baseline; without CUDA it measures the CPU and says that no GPU was found. Ready to run as is on a GPU
machine (nothing to download; about a minute on one GPU).
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace

import numpy as np
import torch

import ensemble
from common import markdown, row, table

from crlrepro.experiments.approximation import in_batch_info_nce
from crlrepro.runtime.device import configure_threads
from crlrepro.theory.gmm import LatentClassGMM
from crlrepro.learning.networks import TwoTower
from crlrepro.learning.train import TrainSettings, train

PAPER_GMM = LatentClassGMM([0.5, 0.5], [1.2, -1.2], [1.0, 1.0], [1.2, -1.2], [1.0, 1.0])


def samples_per_second(device: str, x: torch.Tensor, y: torch.Tensor, epochs: int) -> float:
    settings = TrainSettings(epochs=1, batch_size=512, learning_rate=1e-3, weight_decay=1e-2, seed=0, name=f"A2 on {device}",
                             device=device)
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
        return [row("gpu", f"A2 paper-scale training (samples/s): no CUDA device here, CPU ({threads} threads) as baseline",
                    None, cpu, None, "measured where a GPU is lent", None)]
    cuda = samples_per_second("cuda", x, y, epochs)
    name = torch.cuda.get_device_name(0)
    print(f"cuda ({name}): {cuda:,.0f} samples/s; speed-up {cuda / cpu:.1f}x", flush=True)
    rows = [row("gpu", f"A2 paper-scale training (samples/s) on {name}, CPU ({threads} threads) as baseline", cuda, cpu,
                cuda / cpu, "measured where a GPU is lent", True)]
    return rows + ensemble_rows(name)


def ensemble_rows(name: str, members=(8, 32)) -> list[dict]:
    """Samples/s per member of batched ensembles on CUDA (a member alone as the baseline), per training shape."""
    batch = {shape[0]: shape[-1] for shape in ensemble.TWO_TOWER_SHAPES}
    frame = ensemble.measure(members, threads=1, seconds=2.0, device="cuda")
    rows = []
    for r in frame.itertuples():
        per_step = batch.get(r.training, 2 * 256)  # the CNN's step sees two views of 256 images
        stacked, alone = per_step / r.ms_per_member_step_stacked * 1e3, per_step / r.ms_per_member_step_alone * 1e3
        print(f"cuda ensemble {r.training}, {r.members} members: {stacked:,.0f} samples/s per member "
              f"({alone:,.0f} alone)", flush=True)
        rows.append(row("gpu", f"{r.training}, ensemble of {r.members} on {name}: samples/s per member, alone as baseline",
                        stacked, alone, stacked / alone, "context", None))
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=1 << 20)
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--threads", type=int, default=torch.get_num_threads(), help="CPU threads")
    args = parser.parse_args(argv)
    print(markdown(table(measure(args.samples, args.epochs, args.threads))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
