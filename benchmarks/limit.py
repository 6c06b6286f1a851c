"""Benchmark: how far each training is from this machine's limit, and what every job pays before its work.

    python benchmarks/limit.py --stats <folder> --results <workdir>/results   # after a run with CRLREPRO_TRAINING_STATS
    python benchmarks/limit.py --startup-only                                 # the start-up table alone

1. The limit: the best float32 matmul rate (a 2048 × 2048 product) on 1 thread, as every job runs.
2. Per training rule, from the records the trainer writes when CRLREPRO_TRAINING_STATS names a folder
   (crlrepro.learning.train): the useful floating-point work (the matmuls and convolutions of one optimiser step,
   forward and backward, counted by torch's FLOP counter, times the steps), the time in the optimiser
   steps and in the whole job (the rule's `benchmark:` file), and so the share of the limit each reaches,
   in its steps and over its job; the share of a step's operator time in matmuls (torch's profiler)
   says what bounds the ones far from it. Written to <out>/training_limit.csv.
3. Start-up: for every workflow script, the seconds a fresh interpreter takes to import what the script
   imports from the library, and whether that loads torch. Written to <out>/startup.csv.

benchmarks/pipeline.py runs the cold run with the records on and calls this; run.py prints the tables.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd

REPO = Path(__file__).resolve().parents[1]


def machine_peak(threads: int = 1, size: int = 2048, repeats: int = 5) -> float:
    """FLOP/s of the best of ``repeats`` float32 (size × size) @ (size × size) products on ``threads`` threads,
    in a fresh interpreter (so that this process's thread settings do not leak into it)."""
    probe = (
        f"import time, torch; torch.set_num_threads({threads}); a = torch.randn({size}, {size}); b = "
        f"torch.randn({size}, {size})\n"
        f"a @ b\nbest = min((lambda t: (a @ b, time.perf_counter() - t)[1])(time.perf_counter()) for _ in range({repeats}))\n"
        f"print(2 * {size} ** 3 / best)"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    return float(out.strip().splitlines()[-1])


def read_records(folder: Path) -> pd.DataFrame:
    """The trainer's records (one JSON file per training run), with the rule parsed from the job."""
    rows = [json.loads(p.read_text()) for p in sorted(Path(folder).glob("*.json"))]
    frame = pd.DataFrame(rows)
    if frame.empty:
        return frame
    # A rule defined per row of a grid (lcgm_sensitivity_train_ny<i>) counts under its family, the name its benchmark
    # files are kept under (results/benchmarks/lcgm_sensitivity_train/ny<i>.tsv).
    frame["rule"] = frame["job"].str.split("/").str[0].str.replace(r"_ny\d+$", "", regex=True).replace("", "(outside a job)")
    return frame


def bound_by(step_share: float, matmul_time_share: float, mflop_per_step: float, ms_per_step: float) -> str:
    """What keeps a training's steps from the matmul limit, from its own measurements."""
    if step_share >= 0.5:
        return "arithmetic: its steps run near the matmul limit"
    if mflop_per_step < 20:
        return (
            f"per-operator overhead: {mflop_per_step:.2g} MFLOP per step take {ms_per_step:.2g} ms, "
            f"tiny matmuls ({matmul_time_share:.0%} of operator time) among dispatch, elementwise work and the optimiser"
        )
    return (
        f"the work around the matrix products and convolutions: {1 - matmul_time_share:.0%} of a step's operator "
        "time is outside them (elementwise passes: the score matrix's scaling and softmax, batch norm, bias, ReLU; "
        "the optimiser's update), memory-bound, and the products themselves are too small to run at the limit"
    )


def training_limit(records: pd.DataFrame, per_job: pd.DataFrame, peak: float) -> pd.DataFrame:
    """Per training rule: jobs, trainings, steps, useful GFLOP, seconds in steps and in the jobs, the share of
    the limit ``peak`` (FLOP/s) reached in the steps and over the jobs, start-up, and what bounds it."""
    rows = []
    for rule, group in records.groupby("rule"):
        flops = float((group["flops_per_step"] * group["steps"]).sum())
        # each run's step time from its timed steps, scaled to all its steps (its first two were counted/profiled)
        step_s = float((group["timed_steps_s"] / group["timed_steps"].clip(lower=1) * group["steps"]).sum())
        job_s = float(per_job.loc[per_job["rule"] == rule, "seconds"].sum())
        steps = int(group["steps"].sum())
        mflop_per_step = flops / max(steps, 1) / 1e6
        ms_per_step = step_s / max(steps, 1) * 1e3
        step_share = flops / step_s / peak if step_s > 0 else float("nan")
        matmul_share = float(group["matmul_time_share"].mean())
        rows.append(
            {
                "rule": rule,
                "jobs": int(group["job"].nunique()),
                "trainings": len(group),
                "steps": steps,
                "gflop": flops / 1e9,
                "mflop_per_step": mflop_per_step,
                "ms_per_step": ms_per_step,
                "steps_s": step_s,
                "job_s": job_s,
                "steps_share_of_job": step_s / job_s if job_s else float("nan"),
                "gflops_in_steps": flops / step_s / 1e9 if step_s else float("nan"),
                "share_of_limit_in_steps": step_share,
                "share_of_limit_over_job": flops / job_s / peak if job_s else float("nan"),
                "matmul_time_share": matmul_share,
                "before_first_step_s": float(group.groupby("job")["before_first_step_s"].min().mean()),
                "bound_by": bound_by(step_share, matmul_share, mflop_per_step, ms_per_step),
            }
        )
    return pd.DataFrame(rows).sort_values("job_s", ascending=False).reset_index(drop=True)


def _library_imports(script: Path) -> list[str]:
    """The crlrepro modules a workflow script imports at its top level."""
    names = []
    for node in ast.parse(script.read_text()).body:
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("crlrepro"):
            names.append(node.module)
        elif isinstance(node, ast.Import):
            names += [a.name for a in node.names if a.name.startswith("crlrepro")]
    return sorted(set(names))


def script_startup(scripts_dir: Path = REPO / "workflow" / "scripts", repeats: int = 3) -> pd.DataFrame:
    """Per workflow script: the seconds a fresh interpreter needs to import the library modules the script
    imports (best of ``repeats``, less a bare interpreter's start), and whether that loads torch."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO / "src"), os.environ.get("PYTHONPATH")]))}

    def seconds(code: str) -> tuple[float, str]:
        best, out = float("inf"), ""
        for _ in range(repeats):
            start = time.perf_counter()
            out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True).stdout
            best = min(best, time.perf_counter() - start)
        return best, out

    bare, _ = seconds("pass")
    rows = []
    for script in sorted(scripts_dir.glob("*/*.py")):  # one folder per study
        modules = _library_imports(script)
        code = "".join(f"import {m}\n" for m in modules) + "import sys; print('torch' in sys.modules)"
        spent, out = seconds(code)
        rows.append(
            {
                "script": script.stem,
                "import_s": spent - bare,
                "loads_torch": out.strip() == "True",
                "modules": " ".join(m.removeprefix("crlrepro.") for m in modules),
            }
        )
    return pd.DataFrame(rows).sort_values("import_s", ascending=False).reset_index(drop=True)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stats", type=Path, help="the folder CRLREPRO_TRAINING_STATS named during a run")
    parser.add_argument("--results", type=Path, help="that run's results folder (its benchmarks/ are the job times)")
    parser.add_argument("--startup-only", action="store_true")
    parser.add_argument("--out", type=Path, default=REPO / "results" / "benchmarks")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    startup = script_startup()
    startup.to_csv(args.out / "startup.csv", index=False)
    print(startup.to_string(index=False))
    if args.startup_only:
        return 0
    if args.stats is None or args.results is None:
        parser.error("--stats and --results are needed (or --startup-only)")
    from common import rule_times

    peak = machine_peak(1)
    table = training_limit(read_records(args.stats), rule_times(args.results.parent, args.results.name), peak)
    table.to_csv(args.out / "training_limit.csv", index=False)
    print(f"limit: {peak / 1e9:.1f} GFLOP/s (float32 matmul, 1 thread)")
    print(table.drop(columns="bound_by").to_string(index=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
