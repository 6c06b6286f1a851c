import multiprocessing
import os
import subprocess
import sys
import time
from types import SimpleNamespace

import pytest
import torch
from threadpoolctl import threadpool_info

from crlrepro.runtime.device import GpuSlots, assign_gpus, configure_threads, physical_gpus, select_device


def test_select_device():
    assert select_device("cpu") == "cpu"
    assert select_device("auto") == ("cuda" if torch.cuda.is_available() else "cpu")
    with pytest.raises(ValueError, match="device must be one of"):
        select_device("tpu")


@pytest.mark.skipif(torch.cuda.is_available(), reason="needs a machine without CUDA")
def test_cuda_without_a_gpu_is_a_clear_error():
    with pytest.raises(RuntimeError, match="no CUDA device"):
        select_device("cuda")


def test_configure_threads_limits_torch_and_blas():
    before = torch.get_num_threads()
    limiter = None
    try:
        limiter = configure_threads(1)
        assert torch.get_num_threads() == 1
        assert all(pool["num_threads"] == 1 for pool in threadpool_info())
    finally:
        torch.set_num_threads(before)
        if limiter is not None:
            limiter.restore_original_limits()


_FAULTS_OF_A_LOOP = """
import resource, sys
import numpy as np
from crlrepro.runtime.device import retain_freed_memory
applied = retain_freed_memory() if sys.argv[1] == "retain" else None
def faults():
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt
def step():  # a training step's large temporaries: all alive at once (the graph), written, then freed together
    alive = [np.ones(size // 8) for size in (4 << 20, 1 << 20, 4 << 20, 2 << 20, 4 << 20, 4 << 20, 1 << 20, 4 << 20)]
    return sum(a.sum() for a in alive)
step()
before = faults()
for _ in range(40):
    step()
print(applied, faults() - before)
"""


def test_retain_freed_memory_stops_the_page_faults_of_reallocated_temporaries(allocator_environment):
    """Each process is fresh (mallopt is process-wide): without it every freed large block goes back to the
    kernel and is faulted in anew when allocated again; with it the loop reuses the heap."""
    counts = {}
    for mode in ("default", "retain"):
        result = subprocess.run(
            [sys.executable, "-c", _FAULTS_OF_A_LOOP, mode], capture_output=True, text=True, check=True, env=allocator_environment
        )
        applied, faults = result.stdout.split()
        counts[mode] = int(faults)
        if mode == "retain":
            assert applied == "True"
    # 40 steps of 24 MiB written: ~6,000 faults of 4 KiB pages each when the memory goes back to the kernel (112,000
    # measured); a few hundred per step at least, whatever the kernel's page sizes
    assert counts["default"] > 40 * 200
    assert counts["retain"] < counts["default"] / 50


def test_retain_freed_memory_is_a_no_op_off_linux(monkeypatch):
    import crlrepro.runtime.device as device

    monkeypatch.setattr(device.sys, "platform", "darwin")
    assert device.retain_freed_memory() is False


# --- the GPU slot allocator, on simulated GPUs (no CUDA is touched) ---------------------------------


def test_physical_gpus_reads_the_pool_without_cuda():
    assert physical_gpus({"CUDA_VISIBLE_DEVICES": "2,5"}) == ["2", "5"]
    assert physical_gpus({"CUDA_VISIBLE_DEVICES": ""}) == []
    assert physical_gpus({"CRLREPRO_GPU_COUNT": "3"}) == ["0", "1", "2"]
    with pytest.raises(ValueError, match="CRLREPRO_GPU_COUNT"):
        physical_gpus({"CRLREPRO_GPU_COUNT": "-1"})


def test_slots_are_distinct_and_freed_by_release(tmp_path):
    first, second, third = (GpuSlots(["0", "1", "2"], lock_dir=tmp_path, poll_seconds=0.01) for _ in range(3))
    assert first.acquire(2) == ["0", "1"]
    assert second.acquire(1) == ["2"]
    with pytest.raises(TimeoutError, match="--resources gpu=3"):
        third.acquire(1, timeout=0.05)
    first.release()
    assert third.acquire(2) == ["0", "1"]
    with pytest.raises(ValueError, match="asks for 4 GPU"):
        GpuSlots(["0", "1", "2"], lock_dir=tmp_path).acquire(4)


def _hold_one_gpu(lock_dir, held):
    slots = GpuSlots(["0", "1", "2", "3"], lock_dir=lock_dir, poll_seconds=0.01)
    held.put(slots.acquire(1)[0])
    time.sleep(60)  # hold the slot until the test ends this process


def _take_one_gpu(lock_dir, result):
    result.put(GpuSlots(["0", "1", "2", "3"], lock_dir=lock_dir, poll_seconds=0.01).acquire(1, timeout=30)[0])


def test_concurrent_jobs_get_distinct_gpus_and_a_dead_job_frees_its_own(tmp_path):
    context = multiprocessing.get_context("fork")  # the children only lock files
    held = context.Queue()
    holders = [context.Process(target=_hold_one_gpu, args=(tmp_path, held)) for _ in range(4)]
    for process in holders:
        process.start()
    taken = sorted(held.get(timeout=60) for _ in holders)
    assert taken == ["0", "1", "2", "3"]
    # A fifth job waits until one holder dies (killed, not released): the kernel frees its slot.
    result = context.Queue()
    waiter = context.Process(target=_take_one_gpu, args=(tmp_path, result))
    waiter.start()
    time.sleep(0.5)
    assert result.empty()
    holders[2].kill()
    holders[2].join()
    freed = result.get(timeout=30)
    assert freed in taken
    waiter.join(30)
    for process in holders:
        process.terminate()
        process.join(30)


def test_assign_gpus_sets_cuda_visible_devices_before_cuda(tmp_path):
    environ = {"CRLREPRO_GPU_COUNT": "2"}
    first = assign_gpus(1, environ=environ, lock_dir=tmp_path)
    assert environ["CUDA_VISIBLE_DEVICES"] == "0"
    other = {"CRLREPRO_GPU_COUNT": "2"}
    second = assign_gpus(1, environ=other, lock_dir=tmp_path)
    assert other["CUDA_VISIBLE_DEVICES"] == "1"
    # An existing CUDA_VISIBLE_DEVICES is the pool: jobs share its GPUs, one each.
    pool = {"CUDA_VISIBLE_DEVICES": "4,7"}
    third = assign_gpus(1, environ=pool, lock_dir=tmp_path)
    assert pool["CUDA_VISIBLE_DEVICES"] == "4"
    # Nothing to assign: no GPU asked for, none on the machine, or SLURM assigned them already.
    for environ in ({"CRLREPRO_GPU_COUNT": "2"}, {"CRLREPRO_GPU_COUNT": "0"}):
        n = 0 if environ["CRLREPRO_GPU_COUNT"] == "2" else 1
        assert assign_gpus(n, environ=environ, lock_dir=tmp_path) is None
        assert "CUDA_VISIBLE_DEVICES" not in environ
    slurm = {"SLURM_JOB_ID": "7", "CUDA_VISIBLE_DEVICES": "0"}
    assert assign_gpus(1, environ=slurm, lock_dir=tmp_path) is None and slurm["CUDA_VISIBLE_DEVICES"] == "0"
    for slots in (first, second, third):
        slots.release()


def test_script_run_takes_a_gpu_for_a_rule_that_declares_one(tmp_path, monkeypatch):
    from crlrepro.workflow.pipeline import ScriptRun

    # A private copy of the environment: the CUDA_VISIBLE_DEVICES set here must not outlive the test.
    environ = {k: v for k, v in os.environ.items() if k not in ("CUDA_VISIBLE_DEVICES", "SLURM_JOB_ID")}
    environ.update(CRLREPRO_GPU_COUNT="3", CRLREPRO_GPU_LOCK_DIR=str(tmp_path))
    monkeypatch.setattr(os, "environ", environ)
    fake = SimpleNamespace(params={}, log=[], rule="ssl_train", wildcards={}, threads=1, resources={"gpu": 1}, config={})
    held = GpuSlots(["0"], lock_dir=tmp_path)
    held.acquire(1)  # another job already has GPU 0
    run = ScriptRun(fake, device="cpu")
    assert os.environ["CUDA_VISIBLE_DEVICES"] == "1"
    assert run.gpu_slots is not None
    run.gpu_slots.release()
    held.release()


def test_gpu_slot_files_live_in_a_private_folder_and_links_are_refused(tmp_path, monkeypatch):
    """The slot folder is per user with mode 0700 and the slot files are opened without following links: in a
    shared /tmp another user could otherwise plant a link that the job would write its pid through."""
    import stat

    monkeypatch.delenv("CRLREPRO_GPU_LOCK_DIR", raising=False)
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    slots = GpuSlots(["0"], poll_seconds=0.01)
    assert slots.lock_dir == tmp_path / f"crlrepro-gpu-slots-{os.getuid()}"
    assert slots.acquire(1, timeout=1) == ["0"]
    assert stat.S_IMODE(os.stat(slots.lock_dir).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(slots.lock_dir / "gpu-0.lock").st_mode) == 0o600
    slots.release()
    # A folder open to others, or a link in place of the folder, is refused before any slot file is opened.
    shared = tmp_path / "shared"
    shared.mkdir(mode=0o777)
    os.chmod(shared, 0o777)
    with pytest.raises(PermissionError, match="mode 0700"):
        GpuSlots(["0"], lock_dir=shared).acquire(1, timeout=1)
    link = tmp_path / "link"
    link.symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    (tmp_path / "elsewhere").mkdir(mode=0o700)
    with pytest.raises(PermissionError, match="a link"):
        GpuSlots(["0"], lock_dir=link).acquire(1, timeout=1)
    # A link planted in place of a slot file is not followed: the target stays untouched.
    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    target = tmp_path / "victim"
    target.write_text("precious\n")
    (private / "gpu-0.lock").symlink_to(target)
    with pytest.raises(OSError):
        GpuSlots(["0"], lock_dir=private).acquire(1, timeout=1)
    assert target.read_text() == "precious\n"
