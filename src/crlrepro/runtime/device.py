"""The one place that picks the compute device, the thread count and, for local jobs that ask for
GPUs, which GPUs."""

from __future__ import annotations

import fcntl
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from threadpoolctl import threadpool_limits

__all__ = [
    "assign_gpus",
    "configure_threads",
    "GPU_COUNT_ENV",
    "GPU_LOCK_DIR_ENV",
    "GpuSlots",
    "JOB_ENV",
    "MMAP_THRESHOLD",
    "MMAP_THRESHOLD_FALLBACK",
    "physical_gpus",
    "retain_freed_memory",
    "select_device",
    "TRIM_THRESHOLD",
]

JOB_ENV = "CRLREPRO_JOB"  # the Snakemake job a process runs, "rule/wildcards": set by ScriptRun, read by the trainer


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


# glibc's mallopt parameters (malloc.h): M_TRIM_THRESHOLD = -1, M_MMAP_THRESHOLD = -3.
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
MMAP_THRESHOLD = 64 << 20  # blocks below this come from the heap and are reused when freed
MMAP_THRESHOLD_FALLBACK = 32 << 20  # the most glibc's manual allows (older versions refuse more)
TRIM_THRESHOLD = 512 << 20  # free memory at the top of the heap kept for reuse, up to this


def retain_freed_memory(mmap_threshold: int = MMAP_THRESHOLD, trim_threshold: int = TRIM_THRESHOLD) -> bool:
    """Let the C allocator reuse freed memory instead of giving it back to the kernel at once; True where
    glibc accepted both settings, False where it could not apply (not Linux, not glibc, a value refused).

    By default glibc serves a block of ≥ 128 KiB (a threshold it raises only up to 32 MiB, and only after
    such a block was freed) with an mmap of its own and unmaps it on free, and trims the heap's free top
    beyond 128 KiB. A training step allocates and frees the same large temporaries every step
    (activations, their gradients, the batch's score matrix; NumPy's quadrature the same per root
    solve), so each of them is page-faulted and zeroed by the kernel anew every time: ~2,400–3,100 page
    faults in one step of paper 3's encoder. Blocks below ``mmap_threshold`` from the heap, and up to
    ``trim_threshold`` of free heap kept, remove them; that step is ~14 % faster (benchmarks/trainer.py
    measures it). Only where memory comes from changes: every value computed is the same to the bit.
    With another allocator preloaded (jemalloc, tcmalloc) glibc's settings are accepted but have no effect."""
    if not sys.platform.startswith("linux"):
        return False
    import ctypes

    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):  # not glibc (e.g. musl has no mallopt)
        return False
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    mmap = bool(mallopt(_M_MMAP_THRESHOLD, int(mmap_threshold)))
    if not mmap and mmap_threshold > MMAP_THRESHOLD_FALLBACK:  # an older glibc: the most it takes
        mmap = bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD_FALLBACK))
    trim = bool(mallopt(_M_TRIM_THRESHOLD, int(trim_threshold)))  # each setting on its own
    return mmap and trim


# --- GPUs shared by local jobs -------------------------------------------------------------------
#
# Snakemake's local executor counts a `gpu` resource against `--resources gpu=N` but does not say
# which GPU a job should use: without help every job would open device 0. A job that declares GPUs
# takes distinct ones from a machine-wide pool of slots, one lock file per GPU, and sets
# CUDA_VISIBLE_DEVICES to them before CUDA is initialised. A slot is held by an exclusive flock on
# its file for the life of the process, so the kernel frees it however the job ends (success,
# error, kill): no slot can leak.

GPU_COUNT_ENV = "CRLREPRO_GPU_COUNT"  # overrides the detected count (tests simulate GPUs with it)
GPU_LOCK_DIR_ENV = "CRLREPRO_GPU_LOCK_DIR"  # where the slot files live (default: <tmp>/crlrepro-gpu-slots-<uid>)


def physical_gpus(environ=None) -> list[str]:
    """The GPU ids local jobs share, found without initialising CUDA (CUDA reads
    CUDA_VISIBLE_DEVICES once, at initialisation; a job must choose its GPU before that).

    An existing CUDA_VISIBLE_DEVICES is the pool (its entries, in order); otherwise
    ``CRLREPRO_GPU_COUNT`` when set; otherwise NVML's device count (through torch, which does not
    initialise CUDA to read it), or ``nvidia-smi -L``; ``[]`` when there is no GPU."""
    environ = os.environ if environ is None else environ
    visible = environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None:
        return [entry.strip() for entry in visible.split(",") if entry.strip() and entry.strip() != "-1"]
    if environ.get(GPU_COUNT_ENV):
        count = int(environ[GPU_COUNT_ENV])
        if count < 0:
            raise ValueError(f"{GPU_COUNT_ENV} must be a non-negative integer; got {count}")
        return [str(i) for i in range(count)]
    count = -1
    try:
        import torch

        count = torch.cuda._raw_device_count_nvml()
    except Exception:  # noqa: BLE001 - private API, absent or failing on some builds
        count = -1
    if count < 0 and shutil.which("nvidia-smi"):
        listing = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, check=False)
        count = sum(line.startswith("GPU ") for line in listing.stdout.splitlines())
    return [str(i) for i in range(max(count, 0))]


class GpuSlots:
    """A lock-protected allocator of GPUs among the concurrent jobs of one machine.

    ``acquire(n)`` takes ``n`` free GPUs of ``gpus`` (an exclusive, non-blocking ``flock`` on
    ``lock_dir/gpu-<id>.lock`` each), waiting while fewer than ``n`` are free; ``release()`` (or the
    process's exit) frees them."""

    def __init__(self, gpus, lock_dir=None, poll_seconds: float = 0.5):
        self.gpus = [str(gpu) for gpu in gpus]
        self.lock_dir = Path(
            lock_dir or os.environ.get(GPU_LOCK_DIR_ENV) or Path(tempfile.gettempdir()) / f"crlrepro-gpu-slots-{os.getuid()}"
        )
        self.poll_seconds = poll_seconds
        self._held: dict[str, int] = {}

    def _private_lock_dir(self) -> None:
        """Create the slot folder (mode 0700) or check the existing one: a real folder, not a link, owned by this
        user and closed to others; in a shared /tmp another user could otherwise plant links or hold the slots."""
        try:
            self.lock_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        except OSError as error:  # a file or a dangling or looping link in its place, a parent that is not a folder
            raise PermissionError(
                f"the GPU slot folder {self.lock_dir} cannot be made a folder "
                f"({error.strerror or type(error).__name__}: something else is at that path, e.g. a "
                f"link that leads nowhere or to itself); remove it (rm {self.lock_dir}), or set "
                f"{GPU_LOCK_DIR_ENV} to a private folder"
            ) from None
        info = os.lstat(self.lock_dir)
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o077:
            raise PermissionError(
                f"the GPU slot folder {self.lock_dir} must be a folder of this user's own with mode "
                f"0700 (it is {'a link' if stat.S_ISLNK(info.st_mode) else oct(info.st_mode & 0o777)}, "
                f"owner uid {info.st_uid}); remove it, or set {GPU_LOCK_DIR_ENV} to a private folder"
            )

    def _try_lock(self, gpu: str) -> int | None:
        # O_NOFOLLOW: a link planted in place of a slot file is refused (ELOOP), never written through.
        fd = os.open(self.lock_dir / f"gpu-{gpu}.lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return None
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        return fd

    def acquire(self, n: int = 1, timeout: float | None = None, log=None) -> list[str]:
        """``n`` distinct GPU ids, held until ``release()``; waits (logging every minute) while
        fewer than ``n`` are free, and raises TimeoutError after ``timeout`` seconds (None: wait)."""
        if n < 1 or n > len(self.gpus):
            raise ValueError(
                f"a job asks for {n} GPU(s) but this machine has {len(self.gpus)} ({', '.join(self.gpus) or 'none'})"
            )
        if self._held:
            raise RuntimeError(f"this allocator already holds GPUs {sorted(self._held)}")
        self._private_lock_dir()
        start = last_log = time.monotonic()
        while True:
            for gpu in self.gpus:
                fd = self._try_lock(gpu)
                if fd is not None:
                    self._held[gpu] = fd
                    if len(self._held) == n:
                        return list(self._held)
            self.release()
            now = time.monotonic()
            if timeout is not None and now - start >= timeout:
                raise TimeoutError(
                    f"no {n} of the {len(self.gpus)} GPUs freed within {timeout:g} s "
                    f"(slots in {self.lock_dir}); cap concurrent GPU jobs with "
                    f"--resources gpu={len(self.gpus)}"
                )
            if log is not None and now - last_log >= 60:
                log.info(
                    "waiting for %d free GPU(s) of %d; cap concurrent GPU jobs with --resources gpu=%d",
                    n,
                    len(self.gpus),
                    len(self.gpus),
                )
                last_log = now
            time.sleep(self.poll_seconds)

    def release(self) -> None:
        for fd in self._held.values():
            os.close(fd)  # closing the descriptor drops its flock
        self._held.clear()


def assign_gpus(n: int, environ=None, lock_dir=None, timeout: float | None = None, log=None):
    """Give this job ``n`` GPUs of its own before CUDA starts: sets CUDA_VISIBLE_DEVICES to them
    and returns the holding ``GpuSlots`` (keep it alive for the job's life), or None when nothing
    is to be assigned: ``n`` = 0, no GPU on the machine, or a SLURM job (SLURM already gave it its
    GPUs and set CUDA_VISIBLE_DEVICES; slot files shared between SLURM jobs would be wrong where
    every job sees its own GPU as 0)."""
    environ = os.environ if environ is None else environ
    if n <= 0 or environ.get("SLURM_JOB_ID"):
        return None
    gpus = physical_gpus(environ)
    if not gpus:
        return None
    slots = GpuSlots(gpus, lock_dir=lock_dir)
    environ["CUDA_VISIBLE_DEVICES"] = ",".join(slots.acquire(n, timeout=timeout, log=log))
    return slots
