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
channels-last layout, as the library runs it, against the same model in plain NCHW layout; and the same step,
an A2 step and an A4 quadrature with the C allocator keeping freed memory for reuse (``retain_freed_memory``, as
every workflow job does) against glibc's default, each in fresh processes (the setting is process-wide).
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import torch
from torch.utils.data import DataLoader, TensorDataset

from common import failed, markdown, row, table

from crlrepro.approximation import in_batch_info_nce
from crlrepro.device import configure_threads, retain_freed_memory
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


ALLOCATOR_WORKLOADS = {
    "ssl": "paper 3 encoder training step (ms)",
    "mlp": "A2 two-tower training step (ms)",
    "quadrature": "A4 exact F(t = 1e-3) on paper 1's mixture, one call from a fresh process as tsybakov_small_t makes it (ms)",
}


def _allocator_workload(name: str):
    """A function doing one unit of the named workload (built once, warmed up by the caller)."""
    if name == "ssl":
        from crlrepro.supervised_view import ContrastiveModel

        torch.manual_seed(0)
        model = ContrastiveModel("small_cnn", 1, 64)
        optimizer = torch.optim.AdamW(model.parameters(), lr=2e-3)
        batch = (torch.rand(256, 1, 8, 8), torch.rand(256, 1, 8, 8))
        return lambda: _ssl_step(model, optimizer, batch)
    if name == "mlp":
        x, y = data(BATCH * 8)
        torch.manual_seed(0)
        model = TwoTower(1, 1, DIM)
        optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, fused=True)
        loss = in_batch_info_nce(TAU)
        steps = iter(range(10**9))

        def step():
            i = next(steps) % 8
            value = loss(model, [x[i * BATCH : (i + 1) * BATCH], y[i * BATCH : (i + 1) * BATCH]], None)
            optimizer.zero_grad()
            value.backward()
            optimizer.step()

        return step
    if name == "quadrature":
        from crlrepro.tsybakov import gap_cdf

        # paper 1's mixture (config.yaml, consistency.gmm): its root solves are where A4's time goes
        gmm = LatentClassGMM([0.25] * 4, [-3.0, -1.0, 1.0, 3.0], [1.0] * 4, [-1.0, 3.0, -3.0, 1.0], [1.0] * 4)
        return lambda: gap_cdf(gmm, np.array([1e-3]))
    raise ValueError(f"unknown workload {name!r}; expected one of {', '.join(ALLOCATOR_WORKLOADS)}")


def allocator_worker(name: str, retain: bool, units: int) -> None:
    """One fresh process: ms per unit of the workload and page faults per unit, on stdout (after a warm-up of a
    fifth of the units for the training steps; the quadrature is timed from its first call, as a job makes it)."""
    configure_threads(1)
    if retain and not retain_freed_memory():
        raise SystemExit("retain_freed_memory does not apply on this platform")
    unit = _allocator_workload(name)
    for _ in range(0 if name == "quadrature" else max(2, units // 5)):
        unit()
    faults, start = resource.getrusage(resource.RUSAGE_SELF).ru_minflt, time.perf_counter()
    for _ in range(units):
        unit()
    seconds = time.perf_counter() - start
    print(1e3 * seconds / units, (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults) / units)


def allocator_rows(rounds: int = 5) -> list[dict]:
    """Each workload with freed memory retained (ours) vs glibc's default, each run in a fresh process, the two
    alternating for ``rounds`` rounds; the headline is the median paired speed-up."""
    units = {"ssl": 30, "mlp": 300, "quadrature": 1}
    rows = []
    for name, measure in ALLOCATOR_WORKLOADS.items():
        turns = min(rounds, 3) if name == "quadrature" else rounds  # ~17 s a call
        def run(retain):
            out = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--allocator-worker", name,
                                  "retain" if retain else "default", str(units[name])],
                                 capture_output=True, text=True, check=True).stdout.split()
            return float(out[0]), float(out[1])

        pairs = [(run(False), run(True)) for _ in range(turns)]
        ratios = [base[0] / ours[0] for base, ours in pairs]
        print(f"{name}: retained vs default allocator, paired speed-up per round: "
              f"{', '.join(f'{r:.2f}' for r in ratios)}", flush=True)
        faults = (statistics.median(b[1] for b, _ in pairs), statistics.median(o[1] for _, o in pairs))
        rows.append(row("trainer", f"{measure}, freed memory retained (page faults per unit: {faults[1]:,.0f}); "
                                   f"glibc's default as baseline ({faults[0]:,.0f})",
                        statistics.median(o[0] for _, o in pairs), statistics.median(b[0] for b, _ in pairs),
                        statistics.median(ratios), "context: the same values, fewer page faults"))
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--samples", type=int, default=102_400)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--allocator-worker", nargs=3, metavar=("WORKLOAD", "MODE", "UNITS"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.allocator_worker:
        name, mode, units = args.allocator_worker
        allocator_worker(name, mode == "retain", int(units))
        return 0
    configure_threads(args.threads)
    retain_freed_memory()  # as every workflow job runs (allocator_rows compares both in fresh processes)
    frame = table(trainer_rows(args.samples, args.rounds) + ssl_layout_rows() + allocator_rows())
    print(f"\n{args.threads} threads, {args.rounds} rounds\n" + markdown(frame))
    return 1 if len(failed(frame)) else 0


if __name__ == "__main__":
    sys.exit(main())
