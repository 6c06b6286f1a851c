"""The one place that picks the compute device and the thread count."""

from __future__ import annotations

import sys

from threadpoolctl import threadpool_limits


def select_device(requested: str = "auto") -> str:
    """``auto`` → ``cuda`` when a CUDA device is visible, else ``cpu``; ``cuda`` without one is an error."""
    if requested not in ("auto", "cpu", "cuda"):
        raise ValueError(f"device must be one of auto, cpu, cuda; got {requested!r}")
    if requested == "cpu":
        return "cpu"
    import torch

    if torch.cuda.is_available():
        return "cuda"
    if requested == "cuda":
        raise RuntimeError("device: cuda was requested but torch sees no CUDA device")
    return "cpu"


def configure_threads(threads: int):
    """Use exactly ``threads`` CPU threads (the rule's ``threads:``) in BLAS and, if loaded, torch,
    so that parallel jobs do not oversubscribe the machine. Returns the BLAS limiter (its
    ``restore_original_limits()`` undoes the BLAS part)."""
    threads = max(1, int(threads))
    limiter = threadpool_limits(limits=threads)
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(threads)
    return limiter
