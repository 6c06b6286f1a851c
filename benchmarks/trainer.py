"""Benchmark: the project's trainer against a plain PyTorch reference loop, side by side.

    python benchmarks/trainer.py [--samples 102400] [--rounds 7] [--threads 2]

Same model (two-tower 3-layer ReLU MLPs, width 128, D=8, on the paper GMM), same loss (in-batch
InfoNCE, τ = 0.5), same optimiser (AdamW, lr 1e-3), batch 512. The reference feeds the data through
``torch.utils.data.DataLoader`` over a ``TensorDataset`` (shuffle, drop_last), the plain way; ours is
``crlrepro.train.train``. The two alternate epoch by epoch (one reference epoch, then one epoch of
ours, ``--rounds`` times, after a warm-up round), so both see the same machine conditions; the
headline is the median over rounds of the paired speed-up. Target: ≥ 2×.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np
import torch
from torch.utils.data import DataLoader, TensorDataset

from crlrepro.approximation import in_batch_info_nce
from crlrepro.device import configure_threads
from crlrepro.gmm import LatentClassGMM
from crlrepro.losses import info_nce_in_batch
from crlrepro.networks import TwoTower
from crlrepro.train import TrainSettings, train

TAU, BATCH, DIM = 0.5, 512, 8


def data(samples):
    gmm = LatentClassGMM([0.5, 0.5], [1.2, -1.2], [1.0, 1.0], [1.2, -1.2], [1.0, 1.0])
    x, y, _ = gmm.sample(samples, np.random.default_rng(0))
    return torch.tensor(x, dtype=torch.float32)[:, None], torch.tensor(y, dtype=torch.float32)[:, None]


class ReferenceLoop:
    """The plain loop: DataLoader(TensorDataset), AdamW, zero_grad/backward/step."""

    def __init__(self, x, y):
        torch.manual_seed(0)
        self.model = TwoTower(1, 1, DIM)
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=1e-3)
        self.loader = DataLoader(TensorDataset(x, y), batch_size=BATCH, shuffle=True, drop_last=True)

    def epoch(self) -> float:
        start, seen = time.perf_counter(), 0
        for xb, yb in self.loader:
            loss = info_nce_in_batch(*self.model(xb, yb), TAU)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            seen += xb.shape[0]
        return seen / (time.perf_counter() - start)


def our_epoch(x, y, seed) -> float:
    """One epoch of the project's trainer (setup included), in samples per second."""
    torch.manual_seed(seed)
    model = TwoTower(1, 1, DIM)
    settings = TrainSettings(epochs=1, batch_size=BATCH, learning_rate=1e-3, weight_decay=0.01, seed=seed, name="bench")
    start = time.perf_counter()
    train(model, in_batch_info_nce(TAU), [x, y], settings)
    return (len(x) // BATCH) * BATCH / (time.perf_counter() - start)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--samples", type=int, default=102_400)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args(argv)
    configure_threads(args.threads)
    x, y = data(args.samples)
    reference = ReferenceLoop(x, y)
    reference.epoch(), our_epoch(x, y, 0)  # warm-up round
    rounds = [(reference.epoch(), our_epoch(x, y, r)) for r in range(args.rounds)]
    ratios = [ours / ref for ref, ours in rounds]
    ratio = statistics.median(ratios)
    print(f"{'loop':<45} {'samples/s (median)':>20}")
    print(f"{'reference: DataLoader(TensorDataset), batch 512':<45} {statistics.median(r for r, _ in rounds):>20,.0f}")
    print(f"{'ours: crlrepro.train.train':<45} {statistics.median(o for _, o in rounds):>20,.0f}")
    print(f"paired speed-up per round: {', '.join(f'{r:.2f}' for r in ratios)}")
    print(f"speed-up: {ratio:.2f}x median (target >= 2x), {args.threads} threads, {args.rounds} rounds")
    return 0 if ratio >= 2 else 1


if __name__ == "__main__":
    sys.exit(main())
