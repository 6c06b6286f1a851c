"""The cost model's vocabulary: a job's memory and time as functions of the config (each study states its own
costs, crlrepro.studies.<name>.COSTS; crlrepro.workflow.config checks them before a run starts).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

__all__ = [
    "config_value",
    "Cost",
    "count",
    "FLOPS",
    "inner_bytes",
    "largest",
    "quadrature_bytes",
    "TRAINING_PAIRS_PER_SECOND",
    "two_tower_bytes",
    "two_tower_rate",
]


def config_value(config: dict, key: str):
    """The value of a dotted key (``approximation.epochs``) of a config; KeyError naming it if absent."""
    value = config
    for part in key.split("."):
        if not isinstance(value, dict) or part not in value:
            raise KeyError(f"the config has no key {key!r}")
        value = value[part]
    return value


TRAINING_PAIRS_PER_SECOND = 200_000  # two-tower MLPs of width 128 and 3 layers, batch 512 (docs/benchmarks.md)


FLOPS = 1e10  # dense float64 work, for the quadrature and Monte-Carlo costs


def largest(value) -> float:
    if isinstance(value, list):
        return max([largest(v) for v in value] or [0])
    return 0 if value is None or isinstance(value, bool) else value


def count(value) -> int:
    return len(value) if isinstance(value, list) else 1


def two_tower_rate(config: dict, hidden=None, layers=None) -> float:
    """Pairs per second of a two-tower training: the measured rate at width 128 and 3 layers, slower for wider or
    deeper towers (never taken faster for smaller ones)."""
    t = config["training"]
    h, L = hidden or t["hidden"], layers or t["layers"]
    return TRAINING_PAIRS_PER_SECOND * min(1.0, (128 * 128 * 3) / (h * h * L))


def two_tower_bytes(config: dict, dim: float, batch: float) -> float:
    """Parameters, gradients and AdamW's two moments of both towers (float32), activations, and the b×b scores, for
    every member of a stack (``training.stack``)."""
    t = config["training"]
    h, L = t["hidden"], t["layers"]
    one = 32 * (L * h * h + h * (dim + 64)) + 16 * L * batch * h + 16 * batch * batch
    return one * t.get("stack", 1)  # a stack holds that many models at once


def quadrature_bytes(nodes: float) -> float:
    return 104.0 * nodes * nodes


def inner_bytes(nodes: float, inner: float) -> float:
    return 920.0 * inner + 24.0 * nodes * inner


@dataclass(frozen=True)
class Cost:
    """One job's memory (``memory``, bytes) or time (``seconds``) as a function of the config; ``keys`` are the keys
    it grows with, the first leading the message; ``what`` says what the first key counts."""

    keys: tuple[str, ...]
    what: str
    memory: Callable[[dict], float] | None = None
    seconds: Callable[[dict], float] | None = None
