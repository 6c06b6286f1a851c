"""A job's lifeline to the Snakemake run that started it: the job ends when the run ends, however the run ends.

After a ``kill -9`` of Snakemake (by hand, by the out-of-memory killer), a job left running overlaps the rerun that
``snakemake --unlock`` lets start, and both write the same files. Two mechanisms end it, Linux only (no-ops elsewhere):

* the parent-death signal (``prctl(PR_SET_PDEATHSIG)``): SIGTERM when the job's own parent ends. Alone it was not
  enough: the job arms it itself, after its imports (torch's take seconds on a loaded machine), and a Snakemake killed
  in that window left its job running to its end with parent 1 (measured: a training of 35-50 s that went on writing
  its checkpoint every epoch); and a job's parent may be an intermediate process (a shell, Snakemake's
  ``--target-jobs`` subprocess) that outlives the run's main Snakemake.
* a watch on the run's main Snakemake process. It records its pid and start time in :data:`MAIN_PROCESS_ENV`
  (``workflow/rules/common.smk``, local runs only), every job inherits it, and :func:`die_with_parent` checks it at
  once (a job of a run that has already ended does not start) and then every :data:`CHECK_INTERVAL` seconds from a
  daemon thread. The start time guards against a reused pid; the boot id and pid namespace recorded with them make the
  watch apply only on the machine (and container) of the main process: a cluster job, on another host under a
  Snakemake of its own, is never ended by it.
* a guardian (:func:`guard_jobs`), a small process the main process starts before its first job: when the main process
  ends, it sends SIGTERM to every process that inherited the run's :data:`MAIN_PROCESS_ENV` (its jobs, whatever their
  parent), so a job still importing its modules, which has armed neither of the above, ends at once and writes nothing.

Either way the job ends as it does on an exception: SIGTERM raises ``SystemExit`` in the main thread, so atomic writes
remove their temporary files and nothing half-written is left; the interpreter's teardown (a second or more of freeing
memory under load) and any later exit callback are skipped, so nothing is written after. A job still alive
:data:`GRACE` seconds after its watch saw the run end (the main thread in a long C call) is ended by SIGALRM or
``os._exit``. The trainer checks the run right before each checkpoint it writes (:func:`end_if_orphaned`), so no
checkpoint is written after the run ended, even between two looks of the watch.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import logging
import os
import signal
import subprocess
import sys
import threading
import time

__all__ = [
    "CHECK_INTERVAL",
    "GRACE",
    "MAIN_PROCESS_ENV",
    "die_with_parent",
    "end_if_orphaned",
    "guard_jobs",
    "process_identity",
]

# "<pid> <start time> <boot id>/<pid namespace>" of the run's main Snakemake process (process_identity).
MAIN_PROCESS_ENV = "CRLREPRO_MAIN_SNAKEMAKE"
CHECK_INTERVAL = 0.25  # seconds between two looks of a job's watch at its run's main process
GRACE = 2.0  # seconds a job has to end on its SIGTERM before it is ended without cleanup

log = logging.getLogger(__name__)
_state = {"exiting": False, "watcher": None}


def _start_time(pid: int) -> str | None:
    """The start time of the live process ``pid`` (clock ticks after boot: field 22 of ``/proc/<pid>/stat``), or None
    where there is no such process or it has ended (a zombie not yet reaped by its parent)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as file:
            stat = file.read()
    except OSError:
        return None
    fields = stat[stat.rindex(b")") + 2 :].split()  # after the command name, which may hold spaces and parentheses
    if len(fields) < 20 or fields[0] in (b"Z", b"X", b"x"):
        return None
    return fields[19].decode()


@functools.cache
def _machine() -> str | None:
    """This boot of this machine and this pid namespace ("<boot id>/<namespace inode>"): two processes that share it see
    the same pids. None where it cannot be read (not Linux)."""
    try:
        with open("/proc/sys/kernel/random/boot_id") as file:
            boot = file.read().strip()
        namespace = os.stat("/proc/self/ns/pid").st_ino
    except OSError:
        return None
    return f"{boot}/{namespace}"


def process_identity(pid: int | None = None) -> str | None:
    """What :data:`MAIN_PROCESS_ENV` holds for the process ``pid`` (this one by default): its pid, start time, and
    :func:`_machine`; None off Linux or where ``/proc`` cannot be read."""
    pid = os.getpid() if pid is None else pid
    start, machine = _start_time(pid), _machine()
    return None if start is None or machine is None else f"{pid} {start} {machine}"


def _watched_process() -> tuple[int, str] | None:
    """(pid, start time) of the run's main Snakemake process from :data:`MAIN_PROCESS_ENV`, where that process is on
    this machine and in this pid namespace; None otherwise (no such variable: not under a local run)."""
    parts = os.environ.get(MAIN_PROCESS_ENV, "").split()
    if len(parts) != 3 or not parts[0].isdigit() or parts[2] != _machine():
        return None
    return int(parts[0]), parts[1]


def _ended(watched: tuple[int, str]) -> bool:
    return _start_time(watched[0]) != watched[1]


def die_with_parent() -> bool:
    """Make this job end when the Snakemake run that started it ends, however it ends: after a ``kill -9`` of
    Snakemake, a job left running would overlap the rerun's job writing the same files. Arms the parent-death signal
    (SIGTERM, which this sets to raise ``SystemExit``) and, under a local run, the watch on the run's main process (the
    module's docstring says why both). Raises ``SystemExit`` where the job's parent or the run has already ended.
    Returns whether anything could be arranged (Linux only)."""
    import ctypes

    if not sys.platform.startswith("linux"):
        return False
    parent = os.getppid()
    libc = ctypes.CDLL(None, use_errno=True)
    PR_SET_PDEATHSIG = 1
    armed = libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0) == 0
    if signal.getsignal(signal.SIGTERM) in (signal.SIG_DFL, None):
        signal.signal(signal.SIGTERM, _exit_on_sigterm)
    if armed and os.getppid() != parent:  # the parent ended between reading its pid and arming the signal
        raise SystemExit(f"the process that started this job (pid {parent}) has ended; not starting")
    watched = _watched_process()
    if watched is None:
        return armed
    if _ended(watched):  # e.g. killed while this job was importing its modules
        raise SystemExit(f"the Snakemake run that started this job (pid {watched[0]}) has ended; not starting")
    if _state["watcher"] is None:
        _state["watcher"] = threading.Thread(target=_watch, args=watched, name="crlrepro-lifeline", daemon=True)
        _state["watcher"].start()
    return True


def end_if_orphaned() -> None:
    """Raise ``SystemExit`` (the job ends as on SIGTERM) where the Snakemake run that started this job has ended: called
    right before a write that must not happen after it (the trainer's checkpoints). Nothing outside a local run."""
    watched = _watched_process()
    if watched is not None and _ended(watched):
        log.warning("the Snakemake run that started this job (pid %d) has ended: ending the job", watched[0])
        _end_soon()
        _exiting(128 + signal.SIGTERM)
        raise SystemExit(128 + signal.SIGTERM)


def guard_jobs() -> subprocess.Popen | None:
    """Start the guardian of this run's jobs, from the run's main process (the one :data:`MAIN_PROCESS_ENV` names)
    before its first job: once this process ends, however it ends, the guardian sends SIGTERM to every process that
    inherited the variable, waits up to :data:`GRACE` seconds for them to end, sends SIGKILL to any left, and ends.
    None, and nothing started, in any other process (a cluster run's, a job's)."""
    identity = os.environ.get(MAIN_PROCESS_ENV)
    if identity is None or identity != process_identity():
        return None
    # Holding none of the run's streams: a caller reading Snakemake's output to its end does not wait for the guardian.
    quiet = {"stdin": subprocess.DEVNULL, "stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    return subprocess.Popen([sys.executable, "-m", __name__, identity], **quiet)


def _marked(identity: str) -> list[int]:
    """The live processes other than this one whose environment holds ``identity`` (those of the run it names)."""
    marker = f"{MAIN_PROCESS_ENV}={identity}".encode()
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry.name}/environ", "rb") as file:  # a zombie's is empty
                if marker in file.read().split(b"\0"):
                    found.append(int(entry.name))
        except OSError:  # ended meanwhile, or another user's
            continue
    return found


def _guard(identity: str) -> None:
    """The guardian's life (``python -m crlrepro.runtime.lifeline <identity>``, :func:`guard_jobs`)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a Ctrl-C is the run's to handle; the guardian cleans up after it
    pid, start = int(identity.split()[0]), identity.split()[1]
    while _start_time(pid) == start:
        time.sleep(CHECK_INTERVAL / 2)
    deadline = time.monotonic() + GRACE
    for how in (signal.SIGTERM, signal.SIGKILL):
        for job in _marked(identity):
            with contextlib.suppress(OSError):
                os.kill(job, how)
        while how == signal.SIGTERM and time.monotonic() < deadline and _marked(identity):
            time.sleep(0.1)


def _watch(pid: int, start: str) -> None:
    """The watch's thread: once the run's main process has ended, SIGTERM to this job, and an end without cleanup
    :data:`GRACE` seconds later if it is still there."""
    while _start_time(pid) == start:
        time.sleep(CHECK_INTERVAL)
    log.warning("the Snakemake run that started this job (pid %d) has ended: ending the job", pid)
    _end_soon()
    os.kill(os.getpid(), signal.SIGTERM)
    time.sleep(GRACE + 0.5)  # reached only if the alarm could not be set and the job has not ended
    os._exit(128 + signal.SIGTERM)


def _end_soon() -> None:
    """SIGALRM in :data:`GRACE` seconds, which ends the process however busy its main thread is (where nothing else
    handles SIGALRM)."""
    if signal.getsignal(signal.SIGALRM) in (signal.SIG_DFL, None):
        signal.setitimer(signal.ITIMER_REAL, GRACE)


def _exit_on_sigterm(signum, frame):
    if _state["exiting"]:
        return  # already ending: Linux may send the parent-death signal again (one per thread of the dying Snakemake)
        # and the guardian or the watch send theirs
    _exiting(128 + signum)
    raise SystemExit(128 + signum)


def _exiting(code: int) -> None:
    """From now on the job is ending: its last exit callback flushes the logs and ends the process at once."""
    if not _state["exiting"]:
        _state["exiting"] = True
        atexit.register(_exit_now, code)  # registered last, it runs first


def _exit_now(code: int) -> None:
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a closed or broken stream
            stream.flush()
    os._exit(code)


if __name__ == "__main__":
    _guard(sys.argv[1])
