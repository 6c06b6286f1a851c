"""Benchmark: the whole workflow, end to end, in fresh clones of this checkout.

    python benchmarks/pipeline.py [--configfile configs/smoke.yaml] [--skip-scaling] [--out results/benchmarks]

1. cold run: `snakemake --cores 2` from an empty results/ (wall time), with per-rule times and the
   slowest jobs read from the rules' `benchmark:` files;
2. nothing to do: the same command again (wall time, and the number of jobs it ran: must be 0);
3. parallel scaling: the cold run with `--cores 1` in another clone (speed-up = t1 / t2);
4. memory: the peak resident set size over all jobs (the `max_rss` of the benchmark files).

Writes <out>/pipeline.csv (measure, value, baseline, ratio, target, met) and <out>/pipeline_rules.csv
(per-rule time, jobs, peak RSS), and prints both as Markdown. The default config (no --configfile) is
the issue's budget setting; configs/smoke.yaml checks the script itself in a few minutes.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

REPO = Path(__file__).resolve().parents[1]
BUDGET = {"cold_run_s": 15 * 60, "noop_s": 5.0, "speedup": 1.6, "peak_rss_mib": 2048}


def clone(destination: Path) -> Path:
    """A checkout of this working tree's files (committed or not), without results."""
    ignore = shutil.ignore_patterns("results", ".snakemake", ".git", "__pycache__", "*.egg-info", ".pytest_cache",
                                    ".hypothesis")
    shutil.copytree(REPO, destination, ignore=ignore)
    return destination


def snakemake(workdir: Path, cores: int, extra: list[str]) -> tuple[float, str]:
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "snakemake", "--cores", str(cores), *extra], cwd=workdir,
                          capture_output=True, text=True)
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


def rule_times(workdir: Path) -> pd.DataFrame:
    """One row per job from the benchmark files: rule, job, seconds, max_rss (MiB)."""
    rows = []
    for path in sorted((workdir / "results" / "benchmarks").rglob("*.tsv")):
        record = pd.read_csv(path, sep="\t").iloc[0]
        parts = path.relative_to(workdir / "results" / "benchmarks").parts
        rule = parts[0] if len(parts) > 1 else path.stem  # results/benchmarks/<rule>/<job>.tsv or <rule>.tsv
        rows.append({"rule": rule, "job": path.stem, "seconds": float(record["s"]),
                     "max_rss_mib": float(record["max_rss"]) if record["max_rss"] != "-" else float("nan")})
    return pd.DataFrame(rows)


def markdown(table: pd.DataFrame) -> str:
    head = "| " + " | ".join(table.columns) + " |\n|" + "---|" * len(table.columns) + "\n"
    return head + "".join("| " + " | ".join(_fmt(v) for v in row) + " |\n" for row in table.itertuples(index=False))


def _fmt(value) -> str:
    if value is None or (isinstance(value, float) and value != value):
        return "—"
    return f"{value:.3g}" if isinstance(value, float) else str(value)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--configfile", default=None, help="a config merged over config.yaml (default: none)")
    parser.add_argument("--skip-scaling", action="store_true", help="skip the --cores 1 run")
    parser.add_argument("--out", type=Path, default=REPO / "results" / "benchmarks")
    args = parser.parse_args(argv)
    extra = ["--configfile", args.configfile] if args.configfile else []
    rows = []
    with tempfile.TemporaryDirectory(prefix="crlrepro-bench-") as tmp:
        two = clone(Path(tmp) / "cores2")
        print(f"cold run, --cores 2 ({args.configfile or 'config.yaml'}) ...", flush=True)
        cold, output = snakemake(two, 2, extra)
        jobs = jobs_run(output)
        rows.append(("cold run, --cores 2 (s)", cold, None, None, f"<= {BUDGET['cold_run_s']}", cold <= BUDGET["cold_run_s"]))
        noop, output = snakemake(two, 2, extra)
        rerun_jobs = jobs_run(output)
        rows.append(("second run, nothing changed (s)", noop, cold, cold / noop, f"<= {BUDGET['noop_s']} s, 0 jobs",
                     noop <= BUDGET["noop_s"] and rerun_jobs == 0))
        rows.append(("jobs run by the second run", float(rerun_jobs), float(jobs), None, "0", rerun_jobs == 0))
        per_job = rule_times(two)
        peak = float(per_job["max_rss_mib"].max())
        top = per_job.loc[per_job["max_rss_mib"].idxmax()]
        rows.append((f"peak RSS of one job (MiB; {top['rule']}/{top['job']})", peak, None, None,
                     f"<= {BUDGET['peak_rss_mib']}", peak <= BUDGET["peak_rss_mib"]))
        if not args.skip_scaling:
            one = clone(Path(tmp) / "cores1")
            print("cold run, --cores 1 ...", flush=True)
            serial, _ = snakemake(one, 1, extra)
            rows.append(("cold run, --cores 1 vs --cores 2 (s)", cold, serial, serial / cold, f">= {BUDGET['speedup']}x",
                         serial / cold >= BUDGET["speedup"]))
    table = pd.DataFrame(rows, columns=["measure", "value", "baseline", "ratio", "target", "met"])
    by_rule = (per_job.groupby("rule").agg(jobs=("job", "size"), seconds=("seconds", "sum"),
                                           slowest_job_s=("seconds", "max"), peak_rss_mib=("max_rss_mib", "max"))
               .sort_values("seconds", ascending=False).reset_index())
    args.out.mkdir(parents=True, exist_ok=True)
    table.to_csv(args.out / "pipeline.csv", index=False)
    by_rule.to_csv(args.out / "pipeline_rules.csv", index=False)
    print(markdown(table))
    print(f"{jobs} jobs; job time summed over rules: {by_rule['seconds'].sum():.0f} s (slowest rules first)\n")
    print(markdown(by_rule.head(10)))
    return 0 if table["met"].all() else 1


if __name__ == "__main__":
    sys.exit(main())
