"""The one trainer of the project: minibatch AdamW (or SGD, LARS) over tensors held on the device.

Every training experiment (two-tower GMM and LCGM models here, image encoders later) calls
:func:`train` with a model, a ``batch_loss(model, batch, rng)`` and its data tensors. It is

* AdamW with a cosine learning-rate decay to zero over the run (per step);
* fast: the data sit on the device and each batch is one indexing op (no DataLoader, no collate);
* deterministic on the CPU: epoch e shuffles with a generator seeded from (seed, e), so an
  interrupted and resumed run takes exactly the same steps as an uninterrupted one;
* resumable: after every epoch a checkpoint (model, optimiser, history) is written atomically;
  a rerun continues after the last completed epoch if the checkpoint's fingerprint matches. The
  checkpoint is removed when the run completes: it exists to resume an interrupted run, and a run
  started again after it finished (e.g. its rule reruns because the code changed) must train afresh,
  not return the finished state;
* loud: a NaN/inf loss raises :class:`NonFiniteLossError` naming the experiment, seed and step;
* observable: a tqdm bar with loss and samples/s on stderr (the rule's log under Snakemake);
* compiled where it pays: with ``compile`` on (or ``auto`` and a long enough run on a machine with a C++
  compiler, :func:`use_compiler`), each step's forward and backward pass is one torch.compile'd graph
  (inductor: fused elementwise work around the matrix products), the same function to rounding;
* measurable: with the environment variable ``CRLREPRO_TRAINING_STATS`` naming a folder, each run writes
  there one JSON record of its work and time (:func:`write_training_stats`: the floating-point work of
  one optimiser step counted by torch's FLOP counter, the steps, the seconds in the loop and what the
  process had spent before its first step); ``benchmarks/limit.py`` sets it and reads the records.
"""

from __future__ import annotations

import json
import logging
import math
import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import torch
from tqdm import tqdm

from crlrepro.runtime.artifacts import ArtifactError, load_torch, rebuild_command, save_torch, sidecar_path
from crlrepro.runtime.device import JOB_ENV
from crlrepro.runtime.lifeline import end_if_orphaned

__all__ = [
    "COMPILE_MIN_STEPS",
    "COMPILE_MODES",
    "cosine_learning_rate",
    "cxx_compiler",
    "epoch_generator",
    "LARS",
    "MATMUL_OPS",
    "NonFiniteLossError",
    "OPTIMIZERS",
    "full_precision",
    "native_bfloat16",
    "PRECISIONS",
    "process_age",
    "require_one_precision",
    "resolve_precision",
    "seed_everything",
    "train",
    "TRAINING_STATS_ENV",
    "TrainSettings",
    "use_compiler",
    "write_training_stats",
]

log = logging.getLogger(__name__)


class NonFiniteLossError(FloatingPointError):
    """The loss became NaN or infinite."""


@dataclass(frozen=True)
class TrainSettings:
    epochs: int
    batch_size: int
    learning_rate: float
    weight_decay: float
    seed: int
    name: str = "training"  # the experiment, for progress and error messages
    device: str = "cpu"
    # Steps in an epoch; None: one pass, n // batch_size. Given, every epoch takes that many batches from
    # fresh permutations of the data chained together (training sets of different sizes then get the
    # same number of optimiser steps).
    steps_per_epoch: int | None = None
    optimizer: str = "adamw"  # adamw | sgd (momentum 0.9) | lars (SimCLR's: SGD with layer-wise trust ratios)
    # torch.compile the step's forward and backward: "auto", True (also "on") or False ("off"); see use_compiler. A
    # compiled step computes the same function as the eager one up to floating-point rounding, and is itself
    # deterministic on the CPU.
    compile: str | bool = False
    # The arithmetic of the forward pass: "float32", or "bfloat16" (torch.autocast: matrix products and convolutions in
    # bfloat16, master weights, optimiser state and gradients' accumulation in float32; a batch_loss computes its loss
    # in float32, see full_precision), or "auto" (bfloat16 where the device computes it natively, float32 elsewhere:
    # resolve_precision). On a CPU with AVX-512 BF16 or AMX a convolution's forward runs ~2x faster; on one without,
    # bfloat16 is emulated and several times slower than float32.
    precision: str = "float32"


PRECISIONS = ("float32", "bfloat16", "auto")


def native_bfloat16(device: str | torch.device = "cpu") -> bool:
    """Whether ``device`` has bfloat16 arithmetic in hardware: a CUDA device of compute capability 8.0 or later
    (``torch.cuda.is_bf16_supported(including_emulation=False)`` for that device: a V100 or T4 emulates it); an x86
    CPU with AVX-512 BF16 or AMX-BF16 (``torch.cpu.get_capabilities``: oneDNN also runs bfloat16 on plain AVX-512,
    by converting to float32, which is not counted); another CPU (Arm) where oneDNN has bfloat16 kernels. Elsewhere
    torch emulates bfloat16, measured ~7x slower than float32 for A3's two-tower step on an AVX2 CPU
    (docs/performance.md)."""
    device = torch.device(device)
    if device.type == "cuda":
        if not torch.cuda.is_available():
            return False
        with torch.cuda.device(device):
            try:
                return bool(torch.cuda.is_bf16_supported(including_emulation=False))
            except TypeError:  # a torch without that argument
                return torch.cuda.get_device_capability() >= (8, 0)
    if device.type != "cpu":
        return False
    capabilities = torch.cpu.get_capabilities() if hasattr(torch.cpu, "get_capabilities") else None
    if capabilities is not None and capabilities.get("architecture") in ("x86_64", "x86", "i686", "AMD64"):
        return bool(capabilities.get("avx512_bf16") or capabilities.get("amx_bf16"))
    if capabilities is None and hasattr(torch.cpu, "_is_avx512_bf16_supported"):  # an older torch, on x86
        return bool(torch.cpu._is_avx512_bf16_supported() or torch.cpu._is_amx_tile_supported())
    try:
        return bool(torch.ops.mkldnn._is_mkldnn_bf16_supported())
    except (AttributeError, RuntimeError):  # a build without oneDNN
        return False


def resolve_precision(precision: str, device: str | torch.device = "cpu", name: str = "training") -> str:
    """The forward pass's arithmetic a run uses: ``float32`` and ``bfloat16`` as given; ``auto``: bfloat16 where
    :func:`native_bfloat16` (the faster there; A3's verdicts were measured the same as float32's, A2's and paper 3's
    not: docs/performance.md), float32 elsewhere (where bfloat16 would be emulated, several times slower). The choice
    is logged; the trainer records it and its checkpoints are fingerprinted with it, so a run is never resumed in the
    other arithmetic."""
    if precision not in PRECISIONS:
        raise ValueError(f"{name}: precision must be one of {', '.join(PRECISIONS)}; got {precision!r}")
    if precision != "auto":
        return precision
    native = native_bfloat16(device)
    resolved = "bfloat16" if native else "float32"
    log.info(
        "%s: precision %s (auto: this %s %s bfloat16 natively)",
        name,
        resolved,
        torch.device(device).type,
        "computes" if native else "does not compute",
    )
    return resolved


def require_one_precision(recorded: Sequence[str | None], paths: Sequence) -> str | None:
    """The one arithmetic the models at ``paths`` were trained in (``recorded``: each file's ``precision`` field, None
    where a file predates it). Under ``precision: auto`` the jobs of one table can run on machines of different
    arithmetic (a cluster's mixed nodes; a CPU run resumed on a GPU); a table that mixed them would compare float32
    with bfloat16 results as one experiment. :class:`ArtifactError` names each precision with its files and the
    command that retrains them all on one machine."""
    found = sorted({str(p) for p in recorded})
    if len(found) <= 1:
        return recorded[0] if recorded else None
    by = {value: [str(path) for path, p in zip(paths, recorded, strict=True) if str(p) == value] for value in found}
    listed = "; ".join(f"{value} ({len(files)}): {', '.join(files[:3])}{' …' * (len(files) > 3)}" for value, files in by.items())
    raise ArtifactError(
        f"the models read were trained in different arithmetic ({listed}); retrain them all on one machine: "
        f"{rebuild_command(paths)}"
    )


def full_precision(*tensors: torch.Tensor):
    """``tensors`` in float32 and a context with autocast off: where a batch_loss computes its loss (score matrices,
    log-sum-exp) from a forward pass that may have run in bfloat16 (``TrainSettings.precision``)::

        z = model(x)                       # under the trainer's autocast
        (z,), exact = full_precision(z)
        with exact:
            loss = contrastive_loss(z, ...)  # in float32
    """
    device = tensors[0].device.type if tensors else "cpu"
    return [t.float() for t in tensors], torch.autocast(device, enabled=False)


def _autocast(settings: TrainSettings):
    """The forward pass's autocast context for ``settings.precision``, already resolved by :func:`train` (float32:
    none)."""
    device = torch.device(settings.device).type
    return torch.autocast(device, dtype=torch.bfloat16, enabled=settings.precision == "bfloat16")


COMPILE_MODES = ("auto", True, False, "on", "off")  # YAML 1.1 reads a bare on/off as true/false
# ``auto`` compiles a run of at least this many optimiser steps, where the compile pays even with inductor's cache
# empty. Measured for the two-tower step at batch 512 on 1 thread (benchmarks/trainer.py --only compiled): the
# compile takes ~19 s in a fresh process with an empty cache and ~2.5 s with it warm (it persists across jobs), and
# saves 0.5-1.5 ms per step (1.05-1.3x, the machine's noise): a cold compile pays after 13k-38k steps.
COMPILE_MIN_STEPS = 20_000


def cxx_compiler() -> str | None:
    """The C++ compiler inductor would use on the CPU (its configured one, else c++/g++/clang++ on PATH), or None."""
    import shutil

    try:
        from torch._inductor import config as inductor_config

        configured = inductor_config.cpp.cxx
        candidates = [c for c in (configured if isinstance(configured, tuple) else (configured,)) if c]
    except Exception:  # noqa: BLE001 - an inductor without that setting: look on PATH
        candidates = []
    for name in [*candidates, "c++", "g++", "clang++"]:
        found = shutil.which(name)
        if found:
            return found
    return None


def use_compiler(mode: str | bool, steps: int, device: str = "cpu", name: str = "training") -> bool:
    """Whether a run of ``steps`` optimiser steps compiles its step: ``off`` never; ``on`` always (an error where
    the CPU has no C++ compiler for inductor); ``auto`` where the run is long enough to pay for the compile
    (``COMPILE_MIN_STEPS``) and, on the CPU, a C++ compiler is present. The decision is logged with its reason."""
    if isinstance(mode, (int, float)) and not isinstance(mode, bool) or mode not in COMPILE_MODES:
        raise ValueError(f"{name}: compile must be auto, true (on) or false (off); got {mode!r}")
    mode = {True: "on", False: "off"}.get(mode, mode)
    if mode == "off":
        return False
    compiler = cxx_compiler() if str(device).startswith("cpu") else "cuda"
    if mode == "on":
        if compiler is None:
            raise RuntimeError(
                f"{name}: compile: true, but no C++ compiler (c++, g++, clang++) is on PATH for "
                "torch.compile on the CPU; install one, or set compile: auto or false"
            )
        log.info("%s: compiling the training step (compile: true)", name)
        return True
    if compiler is None:
        log.info("%s: not compiling the training step: no C++ compiler on PATH (compile: auto)", name)
        return False
    if steps < COMPILE_MIN_STEPS:
        log.info(
            "%s: not compiling the training step: %d steps, fewer than the %d that pay for the compile (compile: auto)",
            name,
            steps,
            COMPILE_MIN_STEPS,
        )
        return False
    log.info("%s: compiling the training step: %d steps (compile: auto, %s)", name, steps, compiler)
    return True


def seed_everything(seed: int) -> None:
    """Seed torch's global generator (model initialisation). The CPU kernels used here are
    deterministic as they are (the tests compare reruns byte for byte), so the slower
    ``torch.use_deterministic_algorithms`` mode is not switched on."""
    torch.manual_seed(seed)


def epoch_generator(seed: int, epoch: int, device: str = "cpu") -> torch.Generator:
    """The generator of one epoch: shuffling and any sampling inside ``batch_loss``."""
    return torch.Generator(device=device).manual_seed(seed * 1_000_003 + epoch)


def cosine_learning_rate(base: float, step: int, total_steps: int) -> float:
    """η_t = η_0 · ½ (1 + cos(π t / T)): from η_0 at t = 0 to 0 at t = T."""
    return base * 0.5 * (1.0 + math.cos(math.pi * min(step / max(total_steps, 1), 1.0)))


def _adamw(model: torch.nn.Module, settings: TrainSettings) -> torch.optim.AdamW:
    """AdamW, with the fused kernel where this torch build has one for the device (same update rule,
    one kernel for all parameters instead of a loop of small ones)."""
    kwargs = {"lr": settings.learning_rate, "weight_decay": settings.weight_decay}
    try:
        return torch.optim.AdamW(model.parameters(), fused=True, **kwargs)
    except (RuntimeError, TypeError, ValueError):
        return torch.optim.AdamW(model.parameters(), **kwargs)


class LARS(torch.optim.Optimizer):
    """LARS as SimCLR uses it (You et al. 2017; Chen et al. 2020): SGD with momentum m whose step for a
    weight matrix w is scaled by the trust ratio η‖w‖ / ‖g + λw‖,

        u ← m·u + r·(g + λw),   r = η‖w‖/‖g + λw‖ (1 where either norm is 0),   w ← w − lr·u,

    with biases and normalisation parameters (1-D tensors) excluded from both the weight decay λ and
    the trust ratio, as SimCLR does."""

    def __init__(self, params, lr: float, weight_decay: float = 0.0, momentum: float = 0.9, trust: float = 1e-3):
        super().__init__(params, {"lr": lr, "weight_decay": weight_decay, "momentum": momentum, "trust": trust})

    @torch.no_grad()
    def step(self, closure=None):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                update = p.grad
                if p.ndim > 1:
                    update = update.add(p, alpha=group["weight_decay"])
                    w_norm, u_norm = p.norm(), update.norm()
                    ratio = torch.where((w_norm > 0) & (u_norm > 0), group["trust"] * w_norm / u_norm, torch.ones_like(w_norm))
                    update = update * ratio
                buffer = self.state[p].setdefault("momentum", torch.zeros_like(p))
                buffer.mul_(group["momentum"]).add_(update)
                p.add_(buffer, alpha=-group["lr"])


OPTIMIZERS = ("adamw", "sgd", "lars")


def _optimizer(model: torch.nn.Module, settings: TrainSettings) -> torch.optim.Optimizer:
    """The optimiser named in the settings: AdamW (the default), SGD with momentum 0.9, or LARS."""
    if settings.optimizer == "adamw":
        return _adamw(model, settings)
    if settings.optimizer == "sgd":
        return torch.optim.SGD(model.parameters(), lr=settings.learning_rate, momentum=0.9, weight_decay=settings.weight_decay)
    if settings.optimizer == "lars":
        return LARS(model.parameters(), lr=settings.learning_rate, weight_decay=settings.weight_decay)
    raise ValueError(f"{settings.name}: unknown optimizer {settings.optimizer!r}; expected one of {', '.join(OPTIMIZERS)}")


TRAINING_STATS_ENV = "CRLREPRO_TRAINING_STATS"  # a folder: one JSON record per training run (see the module doc)


def process_age() -> float:
    """Seconds since this process started (what a job has paid before the moment this is called)."""
    import psutil  # snakemake's own dependency

    return time.time() - psutil.Process().create_time()


def write_training_stats(folder: str | Path, record: dict) -> Path:
    """Write one training run's record as ``<folder>/<pid>-<n>.json`` (a new file per run, written whole)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    n = 0
    while (path := folder / f"{os.getpid()}-{n}.json").exists():
        n += 1
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(record, sort_keys=True))
    tmp.replace(path)
    return path


def _counted(step: Callable[[], float]) -> tuple[float, int]:
    """Run one step under torch's FLOP counter: (its loss, the floating-point operations of its matmuls and
    convolutions, forward and backward; elementwise work and the optimiser's update are not counted)."""
    from torch.utils.flop_counter import FlopCounterMode

    with FlopCounterMode(display=False) as counter:
        value = step()
    return value, int(counter.get_total_flops())


MATMUL_OPS = (
    "aten::mm",
    "aten::addmm",
    "aten::bmm",
    "aten::baddbmm",
    "aten::matmul",
    "aten::convolution",
    "aten::mkldnn_convolution",
    "aten::convolution_backward",
    "aten::_convolution",
)


def _profiled(step: Callable[[], float]) -> tuple[float, float]:
    """Run one step under torch's profiler: (its loss, the share of its operators' own CPU time spent in
    matrix products and convolutions). The rest is elementwise work, reductions, the optimiser's update
    and dispatch: what keeps a step from the matmul peak."""
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CPU]) as profiler:
        value = step()
    events = profiler.key_averages()
    total = sum(e.self_cpu_time_total for e in events)
    matmul = sum(e.self_cpu_time_total for e in events if e.key in MATMUL_OPS)
    return value, (matmul / total if total > 0 else float("nan"))


BatchLoss = Callable[[torch.nn.Module, Sequence[torch.Tensor], torch.Generator], torch.Tensor]
# A fixed training set, or a function epoch -> the epoch's training set (fresh samples every epoch from a generative
# model; it must be a pure function of the epoch, so that a resumed run sees the same data).
Data = Sequence[torch.Tensor] | Callable[[int], Sequence[torch.Tensor]]


def _set_aside(path: Path, why: str) -> None:
    """Move a checkpoint that cannot be used (and its sidecar) out of the way, keeping it to inspect."""
    for file in (path, sidecar_path(path)):
        if file.exists():
            file.replace(file.with_name(file.name + ".set-aside"))
    log.warning("checkpoint %s %s: set aside as %s.set-aside; training starts afresh", path, why, path.name)


def _load_checkpoint(path: Path | None, fingerprint: str):
    """The resumable state in ``path``, or None (no checkpoint, or one set aside: damaged, not
    verifiable, or from other settings)."""
    if path is None or not path.exists():
        return None
    try:
        state = load_torch(path)
    except ArtifactError as error:
        _set_aside(path, f"cannot be used ({error})")
        return None
    if not isinstance(state, dict) or state.get("fingerprint") != fingerprint:
        _set_aside(path, "belongs to other settings")
        return None
    # Rebuilt with this module's key strings, so that a resumed run's history pickles to the same
    # bytes as an uninterrupted one's (pickle shares identical string objects, not equal ones).
    rebuild = lambda history: [{"epoch": int(h["epoch"]), "loss": float(h["loss"])} for h in history]  # noqa: E731
    history = state["history"]
    state["history"] = [rebuild(h) for h in history] if history and isinstance(history[0], list) else rebuild(history)
    return state


class _StepStats:
    """The optional records of work and time of one training (the benchmarks' instrument, enabled by the environment
    variable TRAINING_STATS_ENV naming a folder): the first step's FLOPs counted, the second's matmul share profiled,
    the others timed; without the folder a step just runs."""

    def __init__(self, folder: str | None, record: dict):
        self.folder = folder
        self.record = (
            {
                **record,
                "steps": 0,
                "flops_per_step": None,
                "matmul_time_share": None,
                "timed_steps": 0,
                "timed_steps_s": 0.0,
                "before_first_step_s": process_age(),
                "loop_s": 0.0,
            }
            if folder
            else None
        )
        self.loop_start = time.perf_counter()

    def run(self, step: Callable[[], list[float]]) -> list[float]:
        stats = self.record
        if stats is None:
            return step()
        if stats["flops_per_step"] is None:  # every step has the same shapes: count the first
            values, stats["flops_per_step"] = _counted(step)
        elif stats["matmul_time_share"] is None:  # and profile the second
            values, stats["matmul_time_share"] = _profiled(step)
        else:  # the others are timed (the counted one runs slower)
            tick = time.perf_counter()
            values = step()
            stats["timed_steps"] += 1
            stats["timed_steps_s"] += time.perf_counter() - tick
        return values

    def finish(self, steps: int) -> None:
        if self.record is not None:
            self.record.update(steps=steps, loop_s=time.perf_counter() - self.loop_start)
            write_training_stats(self.folder, self.record)


def _training_data(data: Data, settings: TrainSettings, seeds: list[int], ensemble: bool):
    """(n, epoch -> that epoch's tensors on the device, checked): fixed tensors are moved once and checked before any
    work; a function's are checked at every epoch."""
    device = settings.device
    lead = 1 if ensemble else 0  # the sample axis of the data tensors
    fixed = None if callable(data) else [t.to(device) for t in data]
    n = (fixed if fixed is not None else data(0))[0].shape[lead]

    def epoch_data(epoch: int) -> list[torch.Tensor]:
        tensors = fixed if fixed is not None else [t.to(device) for t in data(epoch)]
        if any(t.shape[lead] != n for t in tensors) or (ensemble and any(t.shape[0] != len(seeds) for t in tensors)):
            raise ValueError(
                f"{settings.name}: epoch {epoch}'s data tensors have shapes {[tuple(t.shape) for t in tensors]}, "
                f"expected {'[' + str(len(seeds)) + ' members, ' if ensemble else '['}{n} samples, ...] each"
            )
        return tensors

    if fixed is not None:
        epoch_data(0)  # unequal lengths fail before any work
    return n, epoch_data


def _resume(checkpoint, fingerprint, model, optimizer, members: int, ensemble: bool, name: str):
    """(histories, the epoch to start from): a checkpoint of this very run (same fingerprint) restored into ``model``
    and ``optimizer``, or empty histories and epoch 0."""
    state = _load_checkpoint(checkpoint, fingerprint)
    if state is None:
        return [[] for _ in range(members)], 0
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    log.info("%s: resuming from %s after epoch %d", name, checkpoint, state["epoch"])
    return (state["history"] if ensemble else [state["history"]]), state["epoch"]


def _progress(settings: TrainSettings, steps_per_epoch: int, start: int, seeds: list[int], ensemble: bool) -> tqdm:
    return tqdm(
        total=settings.epochs * steps_per_epoch * settings.batch_size,
        initial=start * steps_per_epoch * settings.batch_size,
        unit="sample",
        unit_scale=True,
        desc=f"{settings.name} seed{'s ' + ','.join(map(str, seeds)) if ensemble else ' ' + str(settings.seed)}",
        file=sys.stderr,
        mininterval=2.0,
        dynamic_ncols=False,
        ncols=100,
    )


def train(
    model: torch.nn.Module,
    batch_loss: BatchLoss,
    data: Data,
    settings: TrainSettings,
    checkpoint: str | Path | None = None,
    fingerprint: str = "",
    on_epoch: Callable[[int, torch.nn.Module], None] | None = None,
    members: Sequence[int] | None = None,
) -> list[dict] | list[list[dict]]:
    """Train ``model`` in place; return the per-epoch history [{"epoch", "loss"}, ...].

    ``data`` are tensors with the same first dimension, or a function epoch -> such tensors (a fresh
    training set every epoch, the same size each time); each step draws ``batch_size`` rows of all
    of them (the last incomplete batch of an epoch is dropped, so in-batch negatives always number
    batch_size − 1). ``fingerprint`` identifies everything that shapes the run besides
    ``settings`` (e.g. a hash of the experiment's parameters): a checkpoint made under another one is
    not resumed. ``on_epoch(epoch, model)`` runs after each epoch, and with epoch 0 on the initial
    model when a run starts afresh (e.g. to evaluate checkpoints along the training).

    A batched ensemble (e.g. :class:`crlrepro.learning.networks.TwoTowerEnsemble`) is trained with ``members``, the
    members' seeds (``settings.seed`` is then not used): every data tensor carries a leading member dimension
    [M, n, ...], member k's batches come from its own seed's shuffles (the very rows it would get trained
    alone), ``batch_loss`` gets the [M, batch, ...] batch and a list of the members' generators and returns
    one loss per member [M], and one optimiser step updates all members (the sum of their losses: each
    member's gradient is its own loss's). The history is then one list per member; a checkpoint holds all
    members, so a killed run resumes every member from its last epoch.
    """
    device = settings.device
    seeds = [int(settings.seed)] if members is None else [int(s) for s in members]
    ensemble = members is not None
    if ensemble and not seeds:
        raise ValueError(f"{settings.name}: an ensemble needs at least one member seed")
    if ensemble and settings.optimizer == "lars":  # AdamW and SGD act elementwise, so per member; LARS does not
        raise ValueError(
            f"{settings.name}: LARS's trust ratio is one norm per tensor and would mix an ensemble's "
            "members; train them with adamw or sgd, or one by one"
        )
    # An unknown precision fails before any work; auto becomes this device's arithmetic, so the records and the
    # checkpoint's fingerprint below name the one the run used
    settings = replace(settings, precision=resolve_precision(settings.precision, settings.device, settings.name))
    n, epoch_data = _training_data(data, settings, seeds, ensemble)
    if settings.batch_size > n:
        raise ValueError(f"{settings.name}: batch_size {settings.batch_size} exceeds the {n} training samples")
    model.to(device)
    optimizer = _optimizer(model, settings)
    steps_per_epoch = n // settings.batch_size if settings.steps_per_epoch is None else int(settings.steps_per_epoch)
    if steps_per_epoch < 1:
        raise ValueError(f"{settings.name}: steps_per_epoch must be >= 1, got {steps_per_epoch}")
    passes = -(-steps_per_epoch * settings.batch_size // n)  # permutations chained per epoch (1 for one pass)
    total_steps = settings.epochs * steps_per_epoch
    checkpoint = Path(checkpoint) if checkpoint is not None else None
    fingerprint = f"{fingerprint}|{sorted(asdict(settings).items())}" + (f"|members {seeds}" if ensemble else "")

    histories, start = _resume(checkpoint, fingerprint, model, optimizer, len(seeds), ensemble, settings.name)
    rows = torch.arange(len(seeds), device=device)[:, None]  # an ensemble's batch: member k's rows of member k's data
    step_loss = batch_loss
    compiled = use_compiler(settings.compile, (settings.epochs - start) * steps_per_epoch, device, settings.name)
    if compiled:
        # One graph for the forward pass and (through AOTAutograd) the backward; the optimiser's fused update stays
        # eager. dynamic=False: every step has the same shapes, and each shape gets code of its own.
        step_loss = torch.compile(batch_loss, dynamic=False)

    bar = _progress(settings, steps_per_epoch, start, seeds, ensemble)
    if on_epoch is not None and start == 0:
        on_epoch(0, model)
    stats = _StepStats(
        os.environ.get(TRAINING_STATS_ENV),
        {
            "job": os.environ.get(JOB_ENV, ""),
            "name": settings.name,
            "seed": settings.seed,
            "members": len(seeds),
            "device": str(device),
            "threads": torch.get_num_threads(),
            "batch_size": settings.batch_size,
            "compiled": compiled,
            "precision": settings.precision,
        },
    )
    model.train()
    for epoch in range(start, settings.epochs):
        tensors = epoch_data(epoch)
        rngs = [epoch_generator(seed, epoch, device) for seed in seeds]
        orders = [torch.cat([torch.randperm(n, generator=rng, device=device) for _ in range(passes)]) for rng in rngs]
        totals = [0.0] * len(seeds)
        for step in range(steps_per_epoch):
            # Cosine decay to zero over the whole run, set by hand: the rate is a function of the
            # global step alone, so a resumed run needs no scheduler state.
            rate = cosine_learning_rate(settings.learning_rate, epoch * steps_per_epoch + step, total_steps)
            for group in optimizer.param_groups:
                group["lr"] = rate
            window = slice(step * settings.batch_size, (step + 1) * settings.batch_size)
            if ensemble:
                index = torch.stack([order[window] for order in orders])
                batch, rng = [t[rows, index] for t in tensors], rngs
            else:
                batch, rng = [t[orders[0][window]] for t in tensors], rngs[0]

            def optimiser_step(batch=batch, rng=rng, epoch=epoch, step=step) -> list[float]:  # this step's, bound
                with _autocast(settings):  # the forward pass in settings.precision
                    loss = step_loss(model, batch, rng)
                values = loss.detach().tolist() if ensemble else [loss.item()]  # one read per step
                for seed, value in zip(seeds, values, strict=True):  # the finiteness check and the epoch mean
                    if not math.isfinite(value):
                        raise NonFiniteLossError(
                            f"{settings.name}: loss is {value} at epoch {epoch}, step {step} "
                            f"(global step {epoch * steps_per_epoch + step}), seed {seed}"
                        )
                optimizer.zero_grad(set_to_none=True)
                (loss.sum() if ensemble else loss).backward()
                optimizer.step()
                return values

            values = stats.run(optimiser_step)
            totals = [total + value for total, value in zip(totals, values, strict=True)]
            bar.update(settings.batch_size)
            if step % 50 == 0:
                bar.set_postfix(epoch=epoch, loss=f"{values[0]:.4f}", refresh=False)
        for history, total in zip(histories, totals, strict=True):
            history.append({"epoch": epoch + 1, "loss": total / steps_per_epoch})
        if on_epoch is not None:
            on_epoch(epoch + 1, model)
        if checkpoint is not None:
            end_if_orphaned()  # a job whose Snakemake run has ended writes no checkpoint into the rerun's folder
            save_torch(
                {
                    "fingerprint": fingerprint,
                    "epoch": epoch + 1,
                    "history": histories if ensemble else histories[0],
                    "model": model.state_dict(),
                    "optimizer": optimizer.state_dict(),
                },
                checkpoint,
            )
    end_if_orphaned()  # nor records, removes the checkpoint or returns a model for its job to write
    bar.close()
    stats.finish((settings.epochs - start) * steps_per_epoch)
    if checkpoint is not None:  # finished: nothing left to resume
        checkpoint.unlink(missing_ok=True)
        sidecar_path(checkpoint).unlink(missing_ok=True)
    model.eval()
    return histories if ensemble else histories[0]
