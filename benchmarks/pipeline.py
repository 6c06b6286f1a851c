"""Benchmark: the whole workflow, end to end, in fresh copies of this checkout.

    python benchmarks/pipeline.py [--configfile configs/smoke.yaml] [--skip-scaling] [--out results/benchmarks]

1. cold run: `snakemake --cores 2` from an empty results/ (wall time), with per-rule times, shares and
   the slowest jobs read from the rules' `benchmark:` files;
2. nothing to do: the same command again (wall time, and the jobs it ran: must be 0); then one figure
   restyled (figures.overrides.tsybakov.font_scale): the rules it ran must be figure_tsybakov and report_captions
   (the captions are written from what the figures draw) and nothing else;
3. memory: the peak resident set size of the largest job (the `max_rss` of the benchmark files);
4. oversubscription: each job's CPU time over its wall time (every rule has threads: 1);
5. parallel scaling: the cold run with `--cores 1` in another copy (speed-up = t1 / t2);
6. occupancy: how busy the cold run kept its cores (job-seconds over cores × wall, from snakemake's
   start and finish lines) and its tail (the time at the end with a core idle, and the rules running then);
7. the limit: the cold run runs with CRLREPRO_TRAINING_STATS on, so every training records its work and
   time; benchmarks/limit.py turns them into each training rule's share of the machine's matmul peak
   (<out>/training_limit.csv).

Writes <out>/pipeline.csv (the rows of benchmarks/common.py) and <out>/pipeline_rules.csv (per-rule
time, share, jobs, peak RSS), and prints both as Markdown; exits 1 when a budget is missed. The
default config (no --configfile) is the issue's budget setting; configs/smoke.yaml checks the script
itself in a few minutes. `python benchmarks/run.py` runs this with the other benchmarks.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import limit
import numpy as np
import pandas as pd
from common import failed, markdown, row, rule_times, table

REPO = Path(__file__).resolve().parents[1]
# What restyling one figure may rerun: its own rule, and the captions rule, which checks every caption against the
# figures it describes (tests/workflow/test_pipeline.py asserts the same plan).
RESTYLE_RULES = {"figure_tsybakov", "report_captions"}
BUDGET = {"cold_run_s": 5 * 60, "noop_s": 5.0, "speedup": 1.6, "peak_rss_mib": 2048, "cpu_per_thread": 1.1}


def clone(destination: Path) -> Path:
    """A checkout of this working tree's files (committed or not), without results."""
    ignore = shutil.ignore_patterns("results", ".snakemake", ".git", "__pycache__", "*.egg-info", ".pytest_cache", ".hypothesis")
    shutil.copytree(REPO, destination, ignore=ignore)
    return destination


def snakemake(workdir: Path, cores: int, extra: list[str], env_extra: dict | None = None) -> tuple[float, str]:
    start = time.perf_counter()
    env = {k: v for k, v in os.environ.items() if k != "TQDM_DISABLE"}  # jobs run as a user's would
    env.update(env_extra or {})
    proc = subprocess.run(
        [sys.executable, "-m", "snakemake", "--cores", str(cores), *extra], cwd=workdir, capture_output=True, text=True, env=env
    )
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"snakemake --cores {cores} failed in {workdir}:\n{proc.stderr[-3000:]}")
    return wall, proc.stdout + proc.stderr


def jobs_run(output: str) -> int:
    """Jobs a snakemake run executed (from its "n of m steps done" lines; 0 when nothing to do)."""
    if "Nothing to be done" in output:
        return 0
    steps = re.findall(r"(\d+) of (\d+) steps", output)
    return int(steps[-1][1]) if steps else -1


def results_folder(configfile: str | None) -> str:
    """Where a run with ``configfile`` (merged over config.yaml) writes: its `results` key."""
    import yaml

    folder = yaml.safe_load((REPO / "config.yaml").read_text()).get("results", "results")
    if configfile:
        folder = (yaml.safe_load(Path(configfile).read_text()) or {}).get("results", folder)
    return folder


def job_intervals(output: str) -> list[tuple[float, float, str]]:
    """(start, end, rule) of every job of a snakemake run, from its timestamped "rule x:" ... "jobid: n" and
    "Finished jobid: n" lines (1-second resolution)."""
    stamp, rule, starts, intervals = None, None, {}, []
    for line in output.splitlines():
        text = line.strip()
        if m := re.fullmatch(r"\[(\w{3} \w{3} +\d+ [\d:]+ \d{4})\]", text):
            stamp = time.mktime(time.strptime(m.group(1), "%a %b %d %H:%M:%S %Y"))
        elif m := re.match(r"^(?:local)?rule (\w+):", line):
            rule = m.group(1)
        elif (m := re.fullmatch(r"jobid: (\d+)", text)) and rule not in (None, "all"):
            starts[m.group(1)] = (stamp, rule)
            rule = None
        elif (m := re.match(r"Finished jobid: (\d+)", text)) and m.group(1) in starts:
            begun, name = starts.pop(m.group(1))
            intervals.append((begun, stamp, name))
    return intervals


def occupancy(output: str, cores: int) -> dict:
    """How busy a run kept its cores: ``busy`` = job-seconds / (cores × wall); ``tail_s`` = the seconds at the end
    with fewer than ``cores`` jobs running, and ``tail_rules`` the rules of the jobs still running then."""
    intervals = job_intervals(output)
    if not intervals:
        return {"busy": float("nan"), "tail_s": float("nan"), "tail_rules": ""}
    first, last = min(i[0] for i in intervals), max(i[1] for i in intervals)
    events = sorted([(a, 1) for a, _, _ in intervals] + [(b, -1) for _, b, _ in intervals])
    running, full_until = 0, first
    for t, change in events:  # finishes before starts at the same second
        if running >= cores:  # every core was busy up to t
            full_until = t
        running += change
    job_seconds = sum(b - a for a, b, _ in intervals)
    return {
        "busy": job_seconds / (cores * (last - first)) if last > first else float("nan"),
        "tail_s": last - full_until,
        "tail_rules": ", ".join(sorted({name for _, b, name in intervals if b > full_until})),
    }


def table_differences(a: Path, b: Path) -> tuple[int, list[str]]:
    """The CSV tables two runs' results folders share (logs and timings aside), and those whose bytes differ."""
    names = sorted(str(p.relative_to(a)) for p in a.rglob("*.csv") if "benchmarks" not in p.parts)
    shared = [name for name in names if (b / name).exists()]
    return len(shared), [name for name in shared if (a / name).read_bytes() != (b / name).read_bytes()]


def largest_relative_change(a: Path, b: Path, names: list[str]) -> tuple[float, str]:
    """Over the tables ``names`` of two results folders, the largest |new − old| / |old| of a number (old = 0: the
    absolute change) in the numeric columns they share, and the table it is in (inf: a table changed shape)."""
    largest, where = 0.0, ""
    for name in names:
        old, new = pd.read_csv(a / name), pd.read_csv(b / name)
        if old.shape != new.shape:
            return float("inf"), name
        columns = [c for c in old.select_dtypes("number").columns if c in new.columns]
        x = old[columns].to_numpy(dtype=float)
        y = new[columns].apply(pd.to_numeric, errors="coerce").to_numpy(dtype=float)  # text now: NaN, i.e. inf
        same = (x == y) | (np.isnan(x) & np.isnan(y))
        with np.errstate(divide="ignore", invalid="ignore"):
            change = np.abs(y - x) / np.where(x == 0, 1.0, np.abs(x))
        change = np.where(same, 0.0, np.nan_to_num(change, nan=np.inf, posinf=np.inf))  # NaN in one run only: inf
        worst = float(change.max(initial=0.0))
        if worst > largest:
            largest, where = worst, name
    return largest, where


def summary_changes(reference: Path, summary: Path) -> dict:
    """Claim by claim, what changed between a reference run's summary.csv and this run's: verdicts, measured values
    (and how the intervals' widths moved where they did)."""
    ref, new = pd.read_csv(reference), pd.read_csv(summary)
    both = ref.merge(new, on="claim_id", suffixes=("_ref", "_new"))
    verdicts = both[both["verdict_ref"] != both["verdict_new"]]
    same = lambda a, b: (a == b) | (a.isna() & b.isna())  # noqa: E731
    moved = both[~same(both["measured_ref"], both["measured_new"])]
    width = (moved["ci_high_new"] - moved["ci_low_new"]) / (moved["ci_high_ref"] - moved["ci_low_ref"])
    return {
        "claims": len(both),
        "only_in_one": len(ref) + len(new) - 2 * len(both),
        "verdicts_changed": list(verdicts["claim_id"]),
        "values_changed": list(moved["claim_id"]),
        "interval_width_ratio_median": float(width.median()) if len(width) else float("nan"),
    }


def executed_rules(output: str) -> list[str]:
    """The rules a snakemake run executed, one entry per job (from its "rule x:" / "localrule x:" lines)."""
    return [name for name in re.findall(r"^(?:local)?rule (\w+):", output, flags=re.MULTILINE) if name != "all"]


def cpu_per_thread(per_job: pd.DataFrame) -> pd.Series:
    """Each job's CPU time over its wall time (every rule declares threads: 1, so > 1 would mean a job
    runs more threads than the scheduler counted)."""
    return per_job["cpu_time"] / per_job["seconds"]


CAPACITY_PROBE = """
import sys, time, torch
from crlrepro.experiments.approximation import in_batch_info_nce
from crlrepro.learning.networks import TwoTower
torch.set_num_threads(1)
torch.manual_seed(0)
model = TwoTower(1, 1, 8)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
loss_fn = in_batch_info_nce(0.5)
x, y = torch.randn(512, 1), torch.randn(512, 1)
steps, start = 0, time.perf_counter()
while time.perf_counter() - start < float(sys.argv[1]):
    loss = loss_fn(model, (x, y), None)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    steps += 1
print(steps / (time.perf_counter() - start))
"""


def parallel_capacity(seconds: float = 10.0) -> float:
    """What two cores give this kind of work: the steps/s of two single-thread A2 trainings run at once,
    over one run alone (2.0 is perfect; caches, memory bandwidth and the host can make it less). The
    ceiling of any --cores 2 speed-up on this machine."""

    def launch():
        return subprocess.Popen(
            [sys.executable, "-c", CAPACITY_PROBE, str(seconds)],
            stdout=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO / "src"), os.environ.get("PYTHONPATH")]))},
        )

    def rate(proc):
        out, _ = proc.communicate()
        if proc.returncode != 0:
            raise SystemExit(f"the capacity probe failed (exit {proc.returncode})")
        return float(out.strip().splitlines()[-1])

    alone = rate(launch())
    pair = [launch(), launch()]
    return sum(rate(p) for p in pair) / alone


def measure(configfile: str | None = None, skip_scaling: bool = False, reference: Path | None = None):
    """Cold run, no-op rerun, style rerun, memory, CPU use per job, and (unless skipped) --cores 1 vs 2 with the two
    runs' tables compared byte for byte; with ``reference`` (another run's summary.csv, e.g. of the code before a
    change) its folder's tables (byte for byte, and the largest relative change of a number) and the claims compared
    with it. Returns the rows, the per-rule table and the training-limit table."""
    extra = ["--configfile", configfile] if configfile else []
    setting = configfile or "config.yaml"
    rows = []
    with tempfile.TemporaryDirectory(prefix="crlrepro-bench-") as tmp:
        two = clone(Path(tmp) / "cores2")
        print(f"pipeline: cold run, --cores 2 ({setting}) ...", flush=True)
        stats = Path(tmp) / "training_stats"
        cold, output = snakemake(two, 2, extra, {"CRLREPRO_TRAINING_STATS": str(stats)})
        jobs = jobs_run(output)
        print(f"pipeline: cold run {cold:.0f} s, {jobs} jobs", flush=True)
        rows.append(
            row(
                "pipeline",
                f"end to end, --cores 2 from an empty results/ ({setting}; {jobs} jobs): wall time (s)",
                cold,
                None,
                None,
                f"<= {BUDGET['cold_run_s']} s",
                cold <= BUDGET["cold_run_s"],
            )
        )
        busy = occupancy(output, 2)
        rows.append(
            row(
                "pipeline",
                f"cores kept busy in the cold run (job-seconds / 2 × wall); its tail with a core idle: "
                f"{busy['tail_s']:.0f} s ({busy['tail_rules'] or 'none'})",
                busy["busy"],
                None,
                None,
                "",
                None,
            )
        )
        noop, output = snakemake(two, 2, extra)
        rerun_jobs = jobs_run(output)
        rows.append(
            row(
                "pipeline",
                f"second run, nothing changed: wall time (s), jobs run: {rerun_jobs}; cold run as baseline",
                noop,
                cold,
                cold / noop,
                f"<= {BUDGET['noop_s']:g} s and 0 jobs",
                noop <= BUDGET["noop_s"] and rerun_jobs == 0,
            )
        )
        style = two / "restyle.yaml"
        style.write_text("figures:\n  overrides:\n    tsybakov: {font_scale: 1.4}\n")
        restyle, output = snakemake(two, 2, ["--configfile", *extra[1:], style.name])
        ran = executed_rules(output)
        rows.append(
            row(
                "pipeline",
                f"restyle one figure (figures.overrides.tsybakov.font_scale): wall time (s), "
                f"rules run: {', '.join(ran) or 'none'}",
                restyle,
                cold,
                cold / restyle,
                "only figure_tsybakov and the captions",
                set(ran) == RESTYLE_RULES,
            )
        )
        per_job = rule_times(two, results_folder(configfile))
        if reference is not None:
            shared, differing = table_differences(reference.parent, two / results_folder(configfile))
            largest, where = largest_relative_change(reference.parent, two / results_folder(configfile), differing)
            rows.append(
                row(
                    "pipeline",
                    f"tables identical to the reference run's ({reference.parent}): "
                    f"{shared - len(differing)} of {shared}; the largest relative change of a number in the others: "
                    f"{largest:.2g}{' (' + where + ')' if where else ''}",
                    shared - len(differing),
                    shared,
                    None,
                    "context",
                    None,
                )
            )
            change = summary_changes(reference, two / results_folder(configfile) / "summary.csv")
            rows.append(
                row(
                    "pipeline",
                    f"claims against the reference run ({reference}): verdicts changed "
                    f"{len(change['verdicts_changed'])} of {change['claims']}"
                    f"{' (' + ', '.join(change['verdicts_changed']) + ')' if change['verdicts_changed'] else ''}; "
                    f"values changed {len(change['values_changed'])}, their interval widths over the reference's "
                    f"(median)",
                    change["interval_width_ratio_median"],
                    None,
                    None,
                    "the same verdicts",
                    not change["verdicts_changed"] and not change["only_in_one"],
                )
            )
        limit_table = limit.training_limit(limit.read_records(stats), per_job, limit.machine_peak(1))
        top = per_job.loc[per_job["max_rss_mib"].idxmax()]
        rows.append(
            row(
                "pipeline",
                f"peak RSS of the largest job (MiB; {top['rule']}/{top['job']})",
                float(top["max_rss_mib"]),
                None,
                None,
                f"<= {BUDGET['peak_rss_mib']} MiB",
                float(top["max_rss_mib"]) <= BUDGET["peak_rss_mib"],
            )
        )
        use = cpu_per_thread(per_job)
        busiest = per_job.loc[use.idxmax()]
        rows.append(
            row(
                "pipeline",
                f"CPU time / wall time of the busiest job ({busiest['rule']}/{busiest['job']}; threads: 1)",
                float(use.max()),
                None,
                None,
                f"<= {BUDGET['cpu_per_thread']}",
                float(use.max()) <= BUDGET["cpu_per_thread"],
            )
        )
        if not skip_scaling:
            one = clone(Path(tmp) / "cores1")
            print("pipeline: cold run, --cores 1 ...", flush=True)
            serial, _ = snakemake(one, 1, extra)
            print(f"pipeline: cold run --cores 1 {serial:.0f} s", flush=True)
            shared, differing = table_differences(one / results_folder(configfile), two / results_folder(configfile))
            rows.append(
                row(
                    "pipeline",
                    f"tables identical between the --cores 1 and --cores 2 runs (the latter with the "
                    f"training records on): {shared - len(differing)} of {shared}"
                    f"{' (differ: ' + ', '.join(differing[:5]) + ')' if differing else ''}",
                    shared - len(differing),
                    shared,
                    None,
                    "all",
                    not differing,
                )
            )
            rows.append(
                row(
                    "pipeline",
                    "parallel scaling: --cores 2 wall time (s), --cores 1 as baseline",
                    cold,
                    serial,
                    serial / cold,
                    f">= {BUDGET['speedup']}x",
                    serial / cold >= BUDGET["speedup"],
                )
            )
            slowdown = per_job["seconds"].sum() / serial
            rows.append(
                row(
                    "pipeline",
                    "job time at --cores 2 over the --cores 1 run's wall time (each job's slowdown beside "
                    "another; ~1 when the cores are independent)",
                    slowdown,
                    None,
                    None,
                    "",
                    None,
                )
            )
            capacity = parallel_capacity()
            print(f"pipeline: parallel capacity {capacity:.2f}x", flush=True)
            rows.append(
                row(
                    "pipeline",
                    "machine ceiling: two 1-thread A2 trainings at once vs one alone (steps/s, summed)",
                    capacity,
                    1.0,
                    capacity,
                    "context: no DAG beats it",
                    None,
                )
            )
    by_rule = (
        per_job.groupby("rule")
        .agg(
            jobs=("job", "size"),
            seconds=("seconds", "sum"),
            slowest_job_s=("seconds", "max"),
            peak_rss_mib=("max_rss_mib", "max"),
        )
        .sort_values("seconds", ascending=False)
        .reset_index()
    )
    by_rule["share"] = by_rule["seconds"] / by_rule["seconds"].sum()
    return rows, by_rule, limit_table


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--configfile", default=None, help="a config merged over config.yaml (default: none)")
    parser.add_argument("--skip-scaling", action="store_true", help="skip the --cores 1 run")
    parser.add_argument("--reference", type=Path, help="another run's summary.csv to compare the claims with")
    parser.add_argument("--out", type=Path, default=REPO / "results" / "benchmarks")
    args = parser.parse_args(argv)
    rows, by_rule, limit_table = measure(args.configfile, args.skip_scaling, args.reference)
    frame = table(rows)
    args.out.mkdir(parents=True, exist_ok=True)
    frame.to_csv(args.out / "pipeline.csv", index=False)
    by_rule.to_csv(args.out / "pipeline_rules.csv", index=False)
    limit_table.to_csv(args.out / "training_limit.csv", index=False)
    print(markdown(limit_table))
    print(markdown(frame))
    print(f"job time summed over rules: {by_rule['seconds'].sum():.0f} s (slowest rules first)\n")
    print(markdown(by_rule.head(10)))
    return 1 if len(failed(frame)) else 0


if __name__ == "__main__":
    sys.exit(main())
