"""A job's lifeline to its run (crlrepro.runtime.lifeline): the watch on the run's main process, the check before a
write, the guardian, and what they leave alone (another machine's run, a reused pid). Each job is a subprocess whose
parent (this test) stays alive, so the parent-death signal never fires: what ends it is the mechanism under test."""

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from crlrepro.runtime.lifeline import CHECK_INTERVAL, GRACE, MAIN_PROCESS_ENV, _start_time, process_identity

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux only (/proc, prctl)")

SLEEPER = [sys.executable, "-c", "import time; time.sleep(120)"]

# A job: arms its lifeline as every workflow script does (ScriptRun), then writes a counter through the atomic writer,
# checking the run before each write as the trainer does before a checkpoint; "sleep": one long sleep instead;
# "swallow": catches the SystemExit its SIGTERM raises and goes on, as a careless `except BaseException` would.
JOB = textwrap.dedent(
    """
    import sys, time
    from crlrepro.runtime.artifacts import write_text
    from crlrepro.runtime.lifeline import die_with_parent, end_if_orphaned

    print("armed" if die_with_parent() else "not armed", flush=True)
    out, mode = sys.argv[1], sys.argv[2]
    i = 0
    while True:
        try:
            if mode == "sleep":
                time.sleep(120)
            end_if_orphaned()
            write_text(str(i), out)
            i += 1
            time.sleep(0.01)
        except SystemExit:
            if mode != "swallow":
                raise
    """
)


def start_job(tmp_path, identity, mode="write"):
    env = {**os.environ, MAIN_PROCESS_ENV: identity}
    out = tmp_path / "counter.txt"
    job = subprocess.Popen(
        [sys.executable, "-c", JOB, str(out), mode], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    return job, out


def ended_within(job, seconds) -> float | None:
    started = time.monotonic()
    try:
        job.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        job.kill()
        job.wait()
        return None
    return time.monotonic() - started


@pytest.mark.parametrize("mode", ["write", "sleep"])
def test_a_job_ends_within_a_look_of_its_watch_when_the_runs_main_process_is_killed(tmp_path, mode):
    main = subprocess.Popen(SLEEPER)
    job, out = start_job(tmp_path, process_identity(main.pid), mode)
    assert job.stdout.readline() == "armed\n"
    time.sleep(0.5)
    main.kill()
    main.wait()
    killed = out.read_text() if out.exists() else None
    took = ended_within(job, CHECK_INTERVAL + 1.5)
    assert took is not None, "the job outlived the run's main process"
    assert job.returncode == 128 + signal.SIGTERM  # SystemExit: atomic writes cleaned up on the way
    assert "the Snakemake run that started this job" in job.stderr.read()
    assert (out.read_text() if out.exists() else None) == killed  # nothing written after
    assert not list(tmp_path.glob(".*.tmp"))


def test_a_job_that_swallows_its_exit_is_ended_after_the_grace(tmp_path):
    main = subprocess.Popen(SLEEPER)
    job, _ = start_job(tmp_path, process_identity(main.pid), "swallow")
    assert job.stdout.readline() == "armed\n"
    main.kill()
    main.wait()
    took = ended_within(job, CHECK_INTERVAL + GRACE + 2)
    assert took is not None and took >= GRACE - 0.5, took
    assert job.returncode == -signal.SIGALRM


def test_a_job_of_a_run_that_has_ended_or_whose_pid_was_reused_does_not_start(tmp_path):
    main = subprocess.Popen(SLEEPER)
    identity = process_identity(main.pid)
    pid, start, machine = identity.split()
    reused = f"{pid} {int(start) + 1} {machine}"  # the same pid, another process
    main.kill()
    main.wait()
    for stale in (identity, reused):
        job, out = start_job(tmp_path, stale)
        assert ended_within(job, 30) is not None
        assert job.returncode == 1 and f"(pid {pid}) has ended; not starting" in job.stderr.read()
        assert not out.exists()


def test_another_machines_run_is_not_watched_so_a_cluster_job_runs_on(tmp_path):
    """A cluster job inherits the variable from a main process on another host (another boot id) or in another
    container (another pid namespace): a pid there means nothing here, so the job is not ended by it."""
    main = subprocess.Popen(SLEEPER)
    pid, start, machine = process_identity(main.pid).split()
    main.kill()
    main.wait()
    boot, namespace = machine.split("/")
    for elsewhere in (f"{pid} {start} 00000000-0000-0000-0000-000000000000/{namespace}", f"{pid} {start} {boot}/1"):
        job, out = start_job(tmp_path, elsewhere)
        assert job.stdout.readline() == "armed\n"  # the parent-death signal only
        assert ended_within(job, 1.0) is None, job.stderr.read()  # still writing: killed by the test
        assert out.exists()


def test_the_guardian_ends_the_runs_jobs_that_armed_nothing_when_the_main_process_is_killed():
    """A job still importing its modules has armed neither its parent-death signal nor its watch: the guardian that the
    main process started sends it SIGTERM (SIGKILL after the grace to one that ignores it) once the main process ends."""
    main_script = textwrap.dedent(
        """
        import os, subprocess, sys, time
        from crlrepro.runtime.lifeline import MAIN_PROCESS_ENV, guard_jobs, process_identity

        os.environ[MAIN_PROCESS_ENV] = process_identity()
        guardian = guard_jobs()
        plain = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"], start_new_session=True)
        stubborn = subprocess.Popen(
            [sys.executable, "-c", "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(120)"],
            start_new_session=True,
        )
        print(guardian.pid, plain.pid, stubborn.pid, flush=True)
        time.sleep(120)
        """
    )
    main = subprocess.Popen([sys.executable, "-c", main_script], stdout=subprocess.PIPE, text=True)
    guardian, plain, stubborn = (int(pid) for pid in main.stdout.readline().split())
    time.sleep(1.0)  # the guardian has started watching
    assert all(_start_time(pid) is not None for pid in (guardian, plain, stubborn))
    main.kill()
    main.wait()
    ends = {}
    started = time.monotonic()
    while time.monotonic() - started < GRACE + 3 and len(ends) < 3:
        for pid in (guardian, plain, stubborn):
            if pid not in ends and _start_time(pid) is None:
                ends[pid] = time.monotonic() - started
        time.sleep(0.02)
    for pid in (guardian, plain, stubborn):
        if pid not in ends:
            os.kill(pid, signal.SIGKILL)
    assert plain in ends and ends[plain] < 1.0, ends
    assert stubborn in ends and GRACE - 0.5 < ends[stubborn] < GRACE + 1.5, ends
    assert guardian in ends, "the guardian should end once the run's jobs have"


def test_the_guardian_starts_only_in_the_process_the_variable_names(monkeypatch):
    from crlrepro.runtime import lifeline

    monkeypatch.delenv(MAIN_PROCESS_ENV, raising=False)
    assert lifeline.guard_jobs() is None
    monkeypatch.setenv(MAIN_PROCESS_ENV, process_identity(os.getppid()))  # a process's jobs guard nothing
    assert lifeline.guard_jobs() is None
    lifeline.end_if_orphaned()  # the named process is alive: nothing happens


def test_the_atomic_writer_lands_nothing_once_the_run_has_ended(tmp_path):
    """Between two looks of the watch, a write under way when the run ended is not renamed into place (every writer of
    the project goes through atomic_path), and its temporary file is removed."""
    run = subprocess.Popen(SLEEPER)
    identity = process_identity(run.pid)
    writer = textwrap.dedent(
        """
        import sys
        from crlrepro.runtime.artifacts import atomic_path
        with atomic_path(sys.argv[1]) as tmp:
            tmp.write_text("half")
            print("writing", flush=True)
            sys.stdin.readline()  # the run ends here, mid-write
        """
    )
    out = tmp_path / "result.txt"
    job = subprocess.Popen(
        [sys.executable, "-c", writer, str(out)],
        env={**os.environ, MAIN_PROCESS_ENV: identity},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert job.stdout.readline() == "writing\n"
    run.kill()
    run.wait()
    job.communicate("go\n", timeout=30)
    assert job.returncode == 128 + signal.SIGTERM
    assert not out.exists() and list(tmp_path.iterdir()) == []
