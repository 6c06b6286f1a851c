"""Benchmark: the project's trainer against a plain PyTorch reference loop, side by side.

    python benchmarks/trainer.py [--samples 102400] [--rounds 7] [--threads 2]

Same model (two-tower 3-layer ReLU MLPs, width 128, D=8, on the paper GMM), same loss (in-batch
InfoNCE, τ = 0.5), same optimiser (AdamW, lr 1e-3), batch 512. The reference feeds the data through
``torch.utils.data.DataLoader`` over a ``TensorDataset`` (shuffle, drop_last), the plain way; ours is
``crlrepro.train.train``. The two alternate epoch by epoch (one reference epoch, then one epoch of
ours, ``--rounds`` times, after a warm-up round), so both see the same machine conditions; the
headline is the median over rounds of the paired speed-up. Target: ≥ 2×.

Also measured (the cut made for the end-to-end budget, where paper 3's ssl_train rule dominates):
a training step of paper 3's encoder (small CNN + projector, batch 256 × 2 views of 8×8 digits) in
channels-last layout, as the library runs it, against the same model in plain NCHW layout.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np
import torch
from torch.utils.data import DataLoader, TensorDataset

from common import failed, markdown, row, table

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


def trainer_rows(samples: int = 102_400, rounds: int = 7) -> list[dict]:
    x, y = data(samples)
    reference = ReferenceLoop(x, y)
    reference.epoch(), our_epoch(x, y, 0)  # warm-up round
    pairs = [(reference.epoch(), our_epoch(x, y, r)) for r in range(rounds)]
    ratios = [ours / ref for ref, ours in pairs]
    print(f"trainer vs DataLoader loop, paired speed-up per round: {', '.join(f'{r:.2f}' for r in ratios)}", flush=True)
    ratio = statistics.median(ratios)
    return [row("trainer", "A2 training throughput (samples/s), plain DataLoader loop as baseline",
                statistics.median(o for _, o in pairs), statistics.median(r for r, _ in pairs), ratio, ">= 2x", ratio >= 2)]


def _ssl_step(model, optimizer, batch):
    from crlrepro.losses import info_nce_in_batch

    first, second = batch
    z = model(torch.cat([first, second]))
    loss = info_nce_in_batch(z[: len(first)], z[len(first):], 0.2)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()


def ssl_layout_rows(steps: int = 20, rounds: int = 5) -> list[dict]:
    """Paper 3's training step, channels-last (the library's layout) vs plain NCHW, same weights."""
    from crlrepro.supervised_view import ContrastiveModel

    torch.manual_seed(0)
    fast = ContrastiveModel("small_cnn", 1, 64)
    plain = ContrastiveModel("small_cnn", 1, 64)
    plain.encoder._forward_pre_hooks.clear()
    plain.encoder.to(memory_format=torch.contiguous_format)
    plain.load_state_dict(fast.state_dict())
    batch = (torch.rand(256, 1, 8, 8), torch.rand(256, 1, 8, 8))
    optimizers = {id(m): torch.optim.AdamW(m.parameters(), lr=2e-3) for m in (fast, plain)}

    def rate(model):
        start = time.perf_counter()
        for _ in range(steps):
            _ssl_step(model, optimizers[id(model)], batch)
        return steps * 2 * len(batch[0]) / (time.perf_counter() - start)

    rate(plain), rate(fast)  # warm-up
    pairs = [(rate(plain), rate(fast)) for _ in range(rounds)]
    ratio = statistics.median(f / p for p, f in pairs)
    return [row("trainer", "paper 3 encoder training step (images/s), NCHW layout as baseline",
                statistics.median(f for _, f in pairs), statistics.median(p for p, _ in pairs), ratio, "> 1x (the cut)", ratio > 1)]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--samples", type=int, default=102_400)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args(argv)
    configure_threads(args.threads)
    frame = table(trainer_rows(args.samples, args.rounds) + ssl_layout_rows())
    print(f"\n{args.threads} threads, {args.rounds} rounds\n" + markdown(frame))
    return 1 if len(failed(frame)) else 0


if __name__ == "__main__":
    sys.exit(main())
