"""Benchmark: the project's trainer against a plain PyTorch reference loop, side by side.

    python benchmarks/trainer.py [--samples 102400] [--rounds 7] [--threads 2]

Same model (two-tower 3-layer ReLU MLPs, width 128, D=8, on the paper GMM), same loss (in-batch
InfoNCE, τ = 0.5), same optimiser (AdamW, lr 1e-3), batch 512. The reference feeds the data through
``torch.utils.data.DataLoader`` over a ``TensorDataset`` (shuffle, drop_last), the plain way; ours is
``crlrepro.learning.train.train``. The two alternate epoch by epoch (one reference epoch, then one epoch of
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
from common import failed, markdown, row, table
from torch.utils.data import DataLoader, TensorDataset

from crlrepro.experiments.approximation import in_batch_info_nce
from crlrepro.learning.losses import info_nce_in_batch
from crlrepro.learning.networks import TwoTower
from crlrepro.learning.train import TrainSettings, train
from crlrepro.runtime.device import configure_threads, retain_freed_memory
from crlrepro.theory.gmm import LatentClassGMM

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


def our_epoch(x, y, seed, compile: bool = False) -> float:
    """One epoch of the project's trainer (setup included), in samples per second; with ``compile`` its step is
    torch.compile'd (the compile itself happens in the warm-up round: a long run pays it once)."""
    torch.manual_seed(seed)
    model = TwoTower(1, 1, DIM)
    settings = TrainSettings(
        epochs=1, batch_size=BATCH, learning_rate=1e-3, weight_decay=0.01, seed=seed, name="bench", compile=compile
    )
    start = time.perf_counter()
    train(model, in_batch_info_nce(TAU), [x, y], settings)
    return (len(x) // BATCH) * BATCH / (time.perf_counter() - start)


def trainer_rows(samples: int = 102_400, rounds: int = 7) -> list[dict]:
    """The trainer's throughput, eager and compiled, against the DataLoader loop, alternated round by round."""
    from crlrepro.learning.train import cxx_compiler

    x, y = data(samples)
    reference = ReferenceLoop(x, y)
    variants = {"eager": False} | ({"compiled": True} if cxx_compiler() else {})
    reference.epoch(), [our_epoch(x, y, 0, c) for c in variants.values()]  # warm-up round (and the compile)
    rounds_ = [(reference.epoch(), *(our_epoch(x, y, r, c) for c in variants.values())) for r in range(rounds)]
    rows = []
    for k, (name, compiled) in enumerate(variants.items(), start=1):
        ratios = [r[k] / r[0] for r in rounds_]
        print(
            f"trainer ({name}) vs DataLoader loop, paired speed-up per round: {', '.join(f'{r:.2f}' for r in ratios)}", flush=True
        )
        ratio = statistics.median(ratios)
        target = 3 if compiled else 2
        how = "torch.compile, compiled in the warm-up round" if compiled else "as the default scale runs it"
        rows.append(
            row(
                "trainer",
                f"A2 training throughput (samples/s), {name} step ({how}), plain DataLoader loop as baseline",
                statistics.median(r[k] for r in rounds_),
                statistics.median(r[0] for r in rounds_),
                ratio,
                f">= {target}x",
                ratio >= target,
            )
        )
    if len(variants) == 1:
        rows.append(
            row("trainer", "A2 training throughput (samples/s), compiled step: no C++ compiler here", None, target=">= 3x")
        )
    return rows


def compiled_step_rows(steps: int = 200, rounds: int = 5) -> list[dict]:
    """Per two-tower training (A2: 1-D views, A3: 16-D views; width 128, 3 layers, D = 8, batch 512): ms per whole
    optimiser step eager and torch.compile'd (alternated round by round), the compile's cost (the first two
    compiled steps minus two eager ones, this process's inductor cache as it is), the steps it takes to pay for
    it, and the share of the matmul limit (benchmarks/limit.py's machine_peak at this thread count) each reaches."""
    import sys as _sys

    from torch.utils.flop_counter import FlopCounterMode

    from crlrepro.learning.train import cxx_compiler

    _sys.path.insert(0, str(Path(__file__).parent))
    from limit import machine_peak

    if cxx_compiler() is None:
        return [row("trainer", "compiled two-tower step: no C++ compiler here", None)]
    peak = machine_peak(torch.get_num_threads())
    rows = []
    for name, dim_in in (("A2", 1), ("A3", 16)):
        torch.manual_seed(0)
        x, y = torch.randn(BATCH * 8, dim_in), torch.randn(BATCH * 8, dim_in)
        models = {}
        for variant in ("eager", "compiled"):
            torch.manual_seed(0)
            model = TwoTower(dim_in, dim_in, DIM)
            optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, fused=True)
            loss = in_batch_info_nce(TAU)
            models[variant] = (model, optimizer, torch.compile(loss, dynamic=False) if variant == "compiled" else loss)

        def run(variant, count, offset=0):
            model, optimizer, loss = models[variant]
            start = time.perf_counter()
            for i in range(offset, offset + count):
                window = slice((i % 8) * BATCH, (i % 8 + 1) * BATCH)
                value = loss(model, (x[window], y[window]), None)
                optimizer.zero_grad(set_to_none=True)
                value.backward()
                optimizer.step()
                value.item()
            return time.perf_counter() - start

        first = {v: run(v, 2) for v in ("eager", "compiled")}
        with FlopCounterMode(display=False) as counter:
            run("eager", 1)
        flops = counter.get_total_flops()
        # The ceiling a step could reach if everything but its matrix products took no time: their own rate.
        from torch.profiler import ProfilerActivity, profile

        from crlrepro.learning.train import MATMUL_OPS

        with profile(activities=[ProfilerActivity.CPU]) as profiler:
            run("eager", 20)
        matmul_s = sum(e.self_cpu_time_total for e in profiler.key_averages() if e.key in MATMUL_OPS) / 1e6 / 20
        pairs = [(run("eager", steps, 2) / steps, run("compiled", steps, 2) / steps) for _ in range(rounds)]
        eager, compiled = statistics.median(e for e, _ in pairs), statistics.median(c for _, c in pairs)
        compile_s = first["compiled"] - first["eager"]
        saving = eager - compiled
        rows.append(
            row(
                "trainer",
                f"{name} two-tower step (ms), torch.compile'd vs eager (the baseline)",
                compiled * 1e3,
                eager * 1e3,
                eager / compiled,
                "context",
            )
        )
        rows.append(
            row(
                "trainer",
                f"{name} two-tower step: share of the matmul limit ({peak / 1e9:.0f} GFLOP/s, "
                f"{flops / 1e6:.0f} MFLOP per step), compiled vs eager (the baseline)",
                flops / compiled / peak,
                flops / eager / peak,
                eager / compiled,
                ">= 0.45",
                flops / compiled / peak >= 0.45,
            )
        )
        rows.append(
            row(
                "trainer",
                f"{name} two-tower step: share of the matmul limit its matrix products alone reach "
                f"({matmul_s * 1e3:.2g} ms of a step; the ceiling with all other work fused away)",
                flops / matmul_s / peak,
                target="context: the measured reason for a share below 0.45",
            )
        )
        rows.append(
            row(
                "trainer",
                f"{name} two-tower step: compile time in this process (s) and the steps that pay for it (the ratio column)",
                compile_s,
                None,
                compile_s / saving if saving > 0 else float("inf"),
                "context: crlrepro.learning.train.COMPILE_MIN_STEPS",
            )
        )
    return rows


def _ssl_step(model, optimizer, batch):
    from crlrepro.learning.losses import info_nce_in_batch

    first, second = batch
    z = model(torch.cat([first, second]))
    loss = info_nce_in_batch(z[: len(first)], z[len(first) :], 0.2)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()


def ssl_layout_rows(steps: int = 20, rounds: int = 5) -> list[dict]:
    """Paper 3's training step, channels-last (the library's layout) vs plain NCHW, same weights."""
    from crlrepro.learning.networks import ContrastiveModel

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
    rows = [
        row(
            "trainer",
            "paper 3 encoder training step (images/s), NCHW layout as baseline",
            statistics.median(f for _, f in pairs),
            statistics.median(p for p, _ in pairs),
            ratio,
            "> 1x (the cut)",
            ratio > 1,
        )
    ]
    from crlrepro.learning.train import cxx_compiler

    if cxx_compiler() is None:
        return rows
    # The same channels-last step with its forward and backward torch.compile'd (the step paper 3's rule would run
    # with compile on), against the eager one, alternated; the compile's cost is the first two steps' excess.
    compiled = ContrastiveModel("small_cnn", 1, 64)
    compiled.load_state_dict(fast.state_dict())
    optimizers[id(compiled)] = torch.optim.AdamW(compiled.parameters(), lr=2e-3)
    eager_forward = compiled.forward
    compiled.forward = torch.compile(eager_forward, dynamic=False)
    start = time.perf_counter()
    for _ in range(2):
        _ssl_step(compiled, optimizers[id(compiled)], batch)
    first = time.perf_counter() - start
    pairs = [(rate(fast), rate(compiled)) for _ in range(rounds)]
    ratio = statistics.median(c / f for f, c in pairs)
    eager_ms = 2 * len(batch[0]) / statistics.median(f for f, _ in pairs) * 1e3
    saving_s = eager_ms / 1e3 * (1 - 1 / ratio)
    pays = f"{first / saving_s:,.0f} steps to pay for it" if saving_s > 0 else "no step saves time"
    rows.append(
        row(
            "trainer",
            f"paper 3 encoder training step (images/s), torch.compile'd (its compile: {first:.1f} s, "
            f"{pays}), channels-last eager as baseline",
            statistics.median(c for _, c in pairs),
            statistics.median(f for f, _ in pairs),
            ratio,
            "context: compile where a run pays for it",
        )
    )
    return rows


ALLOCATOR_WORKLOADS = {
    "ssl": "paper 3 encoder training step (ms)",
    "mlp": "A2 two-tower training step (ms)",
    "quadrature": "A4 exact F(t = 1e-3) on paper 1's mixture, one call from a fresh process as tsybakov_small_t makes it (ms)",
}


def _allocator_workload(name: str):
    """A function doing one unit of the named workload (built once, warmed up by the caller)."""
    if name == "ssl":
        from crlrepro.learning.networks import ContrastiveModel

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
        from crlrepro.theory.tsybakov import gap_cdf

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
            out = subprocess.run(
                [
                    sys.executable,
                    str(Path(__file__).resolve()),
                    "--allocator-worker",
                    name,
                    "retain" if retain else "default",
                    str(units[name]),
                ],
                capture_output=True,
                text=True,
                check=True,
            ).stdout.split()
            return float(out[0]), float(out[1])

        pairs = [(run(False), run(True)) for _ in range(turns)]
        ratios = [base[0] / ours[0] for base, ours in pairs]
        print(
            f"{name}: retained vs default allocator, paired speed-up per round: {', '.join(f'{r:.2f}' for r in ratios)}",
            flush=True,
        )
        faults = (statistics.median(b[1] for b, _ in pairs), statistics.median(o[1] for _, o in pairs))
        rows.append(
            row(
                "trainer",
                f"{measure}, freed memory retained (page faults per unit: {faults[1]:,.0f}); "
                f"glibc's default as baseline ({faults[0]:,.0f})",
                statistics.median(o[0] for _, o in pairs),
                statistics.median(b[0] for b, _ in pairs),
                statistics.median(ratios),
                "context: the same values, fewer page faults",
            )
        )
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--samples", type=int, default=102_400)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--only", choices=["compiled"], help="run only the compiled-step measures (with the CNN's)")
    parser.add_argument("--allocator-worker", nargs=3, metavar=("WORKLOAD", "MODE", "UNITS"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.allocator_worker:
        name, mode, units = args.allocator_worker
        allocator_worker(name, mode == "retain", int(units))
        return 0
    configure_threads(args.threads)
    retain_freed_memory()  # as every workflow job runs (allocator_rows compares both in fresh processes)
    if args.only == "compiled":
        frame = table(trainer_rows(args.samples, args.rounds) + compiled_step_rows() + ssl_layout_rows())
        print(f"\n{args.threads} threads, {args.rounds} rounds\n" + markdown(frame))
        return 1 if len(failed(frame)) else 0
    frame = table(trainer_rows(args.samples, args.rounds) + compiled_step_rows() + ssl_layout_rows() + allocator_rows())
    print(f"\n{args.threads} threads, {args.rounds} rounds\n" + markdown(frame))
    return 1 if len(failed(frame)) else 0


if __name__ == "__main__":
    sys.exit(main())
