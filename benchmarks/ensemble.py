"""Benchmark: do batched ensembles pay on this machine? One optimiser step of M stacked members against M steps
of one member, for the shapes of the project's trainings.

    python benchmarks/ensemble.py [--members 3 5] [--threads 1] [--device cpu|cuda]

A member's step is the project's own (crlrepro's TwoTower or ContrastiveModel, its loss, AdamW / SGD).
The stacked step holds M members' parameters along a leading member dimension and runs them as one model:

* two-tower MLPs (A2, A3, C2, C3): the trainings' own crlrepro.learning.networks.TwoTowerEnsemble, each layer one batched
  matmul over the M members and both towers
  (`torch.baddbmm` on [2M, in, out]), the project's in-batch InfoNCE on the [M, B, B] score matrices (one
  value per member, summed), one AdamW step;
* paper 3's small CNN: the M members' convolutions as one grouped convolution (groups = M, channels
  side by side, batch norm per channel, so per member), the projector as batched matmuls, one SGD step.

Prints, per training shape and M, ms per member-step both ways and the speed-up (> 1: the ensemble is faster),
and writes <out>/ensemble.csv. Which rules would gain is read from these ratios, not assumed.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import pandas as pd
import torch
from torch import nn

REPO = Path(__file__).resolve().parents[1]

BANK = 64  # batches cycled through (random pairs: no structure to memorise in so few passes)

# (name, the rule it stands for, dim_x, dim_y, D, hidden, layers, batch)
TWO_TOWER_SHAPES = [
    ("A2 GMM MLP", "gmm_mlp_train", 1, 1, 4, 128, 3, 512),
    ("A3 LCGM MLP", "lcgm_train", 16, 16, 8, 128, 3, 512),
    ("C2 calibration MLP", "calibration_train", 1, 1, 4, 128, 3, 256),
    ("C3 scaling MLP", "scaling_train", 1, 1, 4, 32, 2, 128),
]


def timed(step, seconds: float) -> float:
    """Seconds per call of ``step`` (after two warm-up calls), over about ``seconds`` of calls."""
    step()
    step()
    calls, start = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        step()
        calls += 1
    return elapsed / calls


def two_tower_rows(members: int, seconds: float, device: str) -> list[dict]:
    from crlrepro.learning.losses import info_nce_in_batch
    from crlrepro.learning.networks import TwoTower, TwoTowerEnsemble

    rows = []
    for name, rule, dx, dy, d, hidden, layers, batch in TWO_TOWER_SHAPES:
        # Fresh batches, cycled from a bank: trained again and again on one fixed batch of random pairs, a model
        # memorises it, its scores grow into the hundreds and the softmax underflows into denormal floats, a
        # regime ~1.7x slower per step that no real training (fresh batches of real data) is in.
        single = TwoTower(dx, dy, d, hidden=hidden, layers=layers).to(device)
        opt = torch.optim.AdamW(single.parameters(), lr=1e-3, fused=True)  # the trainer's optimiser
        bank_x, bank_y = torch.randn(BANK, batch, dx, device=device), torch.randn(BANK, batch, dy, device=device)
        turn = iter(range(10**12))

        def one_step():
            i = next(turn) % BANK
            loss = info_nce_in_batch(*single(bank_x[i], bank_y[i]), 0.5)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            return loss.item()

        stacked = TwoTowerEnsemble([TwoTower(dx, dy, d, hidden=hidden, layers=layers) for _ in range(members)]).to(device)
        stacked_opt = torch.optim.AdamW(stacked.parameters(), lr=1e-3, fused=True)
        stacked_x = torch.randn(BANK, members, batch, dx, device=device)
        stacked_y = torch.randn(BANK, members, batch, dy, device=device)

        def stacked_step():
            i = next(turn) % BANK
            loss = info_nce_in_batch(*stacked(stacked_x[i], stacked_y[i]), 0.5).sum()  # one InfoNCE per member
            stacked_opt.zero_grad(set_to_none=True)
            loss.backward()
            stacked_opt.step()
            return loss.item()

        rows.append(_row(name, rule, members, timed(one_step, seconds), timed(stacked_step, seconds) / members))
    return rows


class StackedSmallCNN(nn.Module):
    """M of crlrepro.experiments.supervised_view's SmallCNN + projector, the convolutions grouped over the members."""

    def __init__(self, members: int, channels: int, width: int = 32, projection_dim: int = 64):
        from crlrepro.learning.networks import GlobalAveragePool

        super().__init__()
        layers, c = [], channels
        for out, stride in ((width, 1), (2 * width, 2), (4 * width, 2)):
            layers += [
                nn.Conv2d(members * c, members * out, 3, stride=stride, padding=1, bias=False, groups=members),
                nn.BatchNorm2d(members * out),
                nn.ReLU(inplace=True),
            ]
            c = out
        self.members, self.dim = members, c
        self.features = nn.Sequential(*layers, GlobalAveragePool())  # the lone model's pool (layout-keeping gradient)
        self.projector = nn.ParameterList(
            nn.Parameter(torch.randn(members, a, b) / math.sqrt(a)) for a, b in ((c, c), (c, c), (c, projection_dim))
        )

    def forward(self, x):  # x: [B, M·C, H, W] -> [M, B, projection_dim]
        h = self.features(x).reshape(x.shape[0], self.members, self.dim).transpose(0, 1)
        for k, weight in enumerate(self.projector):
            h = torch.bmm(h, weight)
            if k < len(self.projector) - 1:  # batch norm per member and feature, then ReLU
                h = torch.relu((h - h.mean(1, keepdim=True)) / (h.var(1, keepdim=True, unbiased=False) + 1e-5).sqrt())
        return h


def cnn_rows(members: int, seconds: float, device: str, side: int = 8, batch: int = 256) -> list[dict]:
    from crlrepro.learning.losses import contrastive_loss
    from crlrepro.learning.networks import ContrastiveModel

    single = ContrastiveModel("small_cnn", 1, 64).to(device)
    opt = torch.optim.SGD(single.parameters(), lr=0.1, momentum=0.9)
    x = torch.randn(2 * batch, 1, side, side, device=device)

    def one_step():
        z = single(x)
        loss = contrastive_loss(z[:batch], z[batch:], "balanced", 5.0, 1.0, "cosine")
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        return loss.item()

    stacked = StackedSmallCNN(members, 1).to(device=device, memory_format=torch.channels_last)
    stacked_opt = torch.optim.SGD(stacked.parameters(), lr=0.1, momentum=0.9)
    xs = torch.randn(2 * batch, members, side, side, device=device).contiguous(memory_format=torch.channels_last)

    def stacked_step():
        z = stacked(xs)
        loss = sum(contrastive_loss(z[k, :batch], z[k, batch:], "balanced", 5.0, 1.0, "cosine") for k in range(members))
        stacked_opt.zero_grad(set_to_none=True)
        loss.backward()
        stacked_opt.step()
        return loss.item()

    return [
        _row(
            f"paper 3 small CNN ({side}×{side}, batch {batch})",
            "ssl_train",
            members,
            timed(one_step, seconds),
            timed(stacked_step, seconds) / members,
        )
    ]


def _row(name: str, rule: str, members: int, single_s: float, stacked_s: float) -> dict:
    return {
        "training": name,
        "rule": rule,
        "members": members,
        "ms_per_member_step_alone": single_s * 1e3,
        "ms_per_member_step_stacked": stacked_s * 1e3,
        "speedup": single_s / stacked_s,
    }


def measure(members=(3, 5), threads: int = 1, seconds: float = 2.0, device: str = "cpu") -> pd.DataFrame:
    torch.set_num_threads(threads)
    torch.manual_seed(0)
    rows = []
    for m in members:
        rows += two_tower_rows(m, seconds, device) + cnn_rows(m, seconds, device)
    return pd.DataFrame(rows)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--members", type=int, nargs="+", default=[3, 5])
    parser.add_argument("--threads", type=int, default=1, help="threads (every training job runs on 1)")
    parser.add_argument("--seconds", type=float, default=2.0, help="seconds of steps per measurement")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--out", type=Path, default=REPO / "results" / "benchmarks")
    args = parser.parse_args(argv)
    from crlrepro.runtime.device import retain_freed_memory

    retain_freed_memory()  # as every workflow job runs
    frame = measure(args.members, args.threads, args.seconds, args.device)
    args.out.mkdir(parents=True, exist_ok=True)
    frame.to_csv(args.out / "ensemble.csv", index=False)
    print(frame.to_string(index=False, float_format=lambda v: f"{v:.3g}"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
