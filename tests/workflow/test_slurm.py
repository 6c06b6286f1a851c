"""The smoke scale on a real SLURM cluster (tests/cluster/slurm.sh), through the workflow profile: one job of every
training rule and A4's chain (TARGETS).

Skipped where no SLURM can be used (no running cluster, and slurm-wlm not installed or not root);
with CRLREPRO_REQUIRE_SLURM=1 (as in .ci/run) that is a failure instead.
"""

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import REPO, SMOKE, artifacts, fresh_checkout, run_watched

pytestmark = [pytest.mark.pipeline, pytest.mark.slurm, pytest.mark.xdist_group("test_slurm")]  # one cluster, one worker

SLURM_SH = REPO / "tests" / "cluster" / "slurm.sh"
# The profile's status checks suit a real cluster (every 20 s); the test cluster answers at once.
FAST_POLLING = ["--slurm-init-seconds-before-status-checks", "1", "--seconds-between-status-checks", "1", "--latency-wait", "5"]
# Rules that run on the submitting host (the Snakefile's localrules); every other job is a SLURM job.
LOCAL_RULES = {
    "all",
    "summary",
    "scales_table",
    "report_captions",
    "claims_a1",
    "claims_a2",
    "claims_a3",
    "claims_a4",
    "claims_c1",
    "claims_c2",
    "claims_c3",
    "claims_c4",
    "claims_c5",
    "claims_ssl",
    "figure_gmm_spectrum",
    "figure_gmm_mlp",
    "figure_lcgm",
    "figure_tsybakov",
    "figure_calibration",
    "figure_scaling",
    "figure_budget",
    "figure_ssl",
}


# What the cluster runs: one job of every training rule (each kind of model, two-tower, LCGM, C2's calibration, C3's
# sampling, the deviation draws, paper 3's views, encoder and evaluation), paper 1's oracles, and A4's chain with its
# local claims rule (the job cancelled mid-run, and its readers). Not the whole smoke DAG: its ~55 cluster jobs
# cost ~8 minutes of the CI budget in start-ups, while one job of each rule exercises the same profile, executor and
# determinism (every result byte-identical to the local run's).
TARGETS = [
    f"results/smoke/{path}"
    for path in (
        "claims/A4.csv",
        "models/gmm_mlp/D8_seed0.pt",
        "models/lcgm/D2_seed0.pt",
        "consistency/calibration/D3_seed0.csv",
        "consistency/runs/m_scrl.csv",
        "consistency/deviation/inner_draws.csv",
        "consistency/oracle.json",
        "supervised_view/runs/full_base_cosine_nt_xent_r1.csv",
    )
]

# The first run's cluster jobs: one per rule; A4's exact curve (which reads the cancelled table) waits for the rerun.
CLUSTER_JOBS_BEFORE_THE_CANCEL = [
    "calibration_train",
    "deviation_train",
    "gmm_mlp_train",
    "image_views",
    "lcgm_train",
    "oracle_table",
    "scaling_train",
    "ssl_eval",
    "ssl_train",
    "tsybakov_table",
]


def _cluster_answers() -> bool:
    if not shutil.which("sinfo"):
        return False
    proc = subprocess.run(["sinfo", "--noheader", "--format=%T"], capture_output=True, text=True, timeout=30)
    return proc.returncode == 0 and bool(proc.stdout.strip())


@pytest.fixture(scope="session")
def slurm_cluster(tmp_path_factory):
    """A running SLURM: the one already up (`sinfo` answers), else one started here with
    tests/cluster/slurm.sh (needs root and Debian's slurm-wlm) and stopped at the end."""
    if _cluster_answers():
        yield None
        return
    reason = None
    if os.geteuid() != 0:
        reason = "no SLURM cluster answers and starting one needs root"
    elif not shutil.which("slurmctld"):
        reason = "no SLURM cluster answers and slurm-wlm is not installed (tests/cluster/slurm.sh start installs it)"
    if reason:
        if os.environ.get("CRLREPRO_REQUIRE_SLURM") == "1":
            pytest.fail(reason)
        pytest.skip(reason)
    state = tmp_path_factory.mktemp("slurm")
    subprocess.run([str(SLURM_SH), "start", str(state)], check=True, timeout=300)
    try:
        yield state
    finally:
        subprocess.run([str(SLURM_SH), "stop", str(state)], timeout=120)


def _slurm_snakemake(workdir, *extra):
    return [
        sys.executable,
        "-m",
        "snakemake",
        "--executor",
        "slurm",
        "--workflow-profile",
        "profiles/slurm",
        *SMOKE,
        *FAST_POLLING,
        *extra,
        *TARGETS,
    ]


def _cancel_when_running(rule: str, proc, timeout: float = 300.0) -> str:
    """Cancel the SLURM job of ``rule`` once it runs (as a pre-empted or node-failed job ends);
    returns its SLURM job id."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        queue = subprocess.run(["squeue", "--noheader", "--format=%i %T %k"], capture_output=True, text=True).stdout
        for line in queue.splitlines():
            job_id, state, comment = (line.split(None, 2) + ["", ""])[:3]
            if comment.strip() == f"rule_{rule}" and state == "RUNNING":
                subprocess.run(["scancel", job_id], check=True)
                return job_id
        time.sleep(0.2)
    raise AssertionError(f"the SLURM job of rule {rule} was never seen running in squeue")


def _submitted_rules(output: str) -> list[str]:
    """The rule of each job this run submitted to SLURM, read from its log path."""
    return re.findall(r"has been submitted with SLURM jobid \d+ \(log: \S*/slurm_logs/(?:rule|group)_([a-z0-9_]+)", output)


def test_smoke_pipeline_on_slurm(slurm_cluster, smoke_artifacts, tmp_path):
    workdir = fresh_checkout(tmp_path / "repo")

    # First run: one job is cancelled on the cluster; --keep-going lets everything else finish.
    first = subprocess.Popen(
        _slurm_snakemake(workdir, "--keep-going"), cwd=workdir, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    cancelled = _cancel_when_running("tsybakov_table", first)
    output, _ = first.communicate(timeout=900)
    assert first.returncode != 0, output
    # The failure names the job's SLURM log, which exists.
    failure = output[output.index("Error in rule tsybakov_table:") :]
    log = re.search(r"(\S+/slurm_logs/rule_tsybakov_table/" + cancelled + r"\.log)", failure)
    assert log is not None, failure[:2000]
    assert Path(log.group(1)).is_file()
    first_rules = _submitted_rules(output)
    assert first_rules and not set(first_rules) & LOCAL_RULES

    # The rerun resumes: only the cancelled job goes to the cluster again, then the one cluster job that reads it
    # (tsybakov_exact checks the exact F against its Monte Carlo); its other readers run locally.
    second = run_watched(_slurm_snakemake(workdir), cwd=workdir)
    assert second.returncode == 0, second.stdout + second.stderr
    second_rules = _submitted_rules(second.stdout + second.stderr)
    assert second_rules == ["tsybakov_table", "tsybakov_exact"] and "tsybakov_exact" not in first_rules

    # Every other job ran as a SLURM job: one kept SLURM log per submission, each run to completion.
    logs = sorted((workdir / ".snakemake" / "slurm_logs").rglob("*.log"))
    assert len(logs) == len(first_rules) + len(second_rules)
    assert {p.relative_to(workdir / ".snakemake" / "slurm_logs").parts[0] for p in logs} == {
        f"rule_{rule}" for rule in (*first_rules, *second_rules)
    }
    finished = [p for p in logs if "steps (100%) done" in p.read_text(errors="ignore")]
    assert len(finished) == len(logs) - 1  # all but the cancelled one

    # The cluster run wrote every target, and exactly what the local run wrote, byte for byte.
    produced = artifacts(workdir)
    assert set(TARGETS) <= produced.keys() <= smoke_artifacts.keys()
    assert sorted(first_rules) == sorted(CLUSTER_JOBS_BEFORE_THE_CANCEL), first_rules
    different = [path for path in produced if produced[path] != smoke_artifacts[path]]
    assert not different, different
