"""The benchmark suite: every performance figure of the project, each beside its baseline from the
same run, in one command.

    python benchmarks/run.py                                                  # the issue's setting (default config): ~35-40 min
    python benchmarks/run.py --configfile configs/smoke.yaml --skip-scaling   # the pipeline part at smoke scale: ~5 min

Runs, in this order (the short ones first, so a broken one fails fast):
  spectral   A1's spectral solver vs the naive uniform-grid baseline (time, accuracy)  benchmarks/spectral.py
  trainer    the trainer vs a plain DataLoader loop (eager and compiled); each two-tower step compiled vs eager,
             its share of the matmul limit and the share its matrix products alone reach; paper 3's step,
             channels-last vs NCHW                                                      benchmarks/trainer.py
  ensemble   a member's step stacked with M-1 others vs alone, per training shape      benchmarks/ensemble.py
  gpu        A2 at paper scale on CUDA vs the CPU (the CPU only where no GPU is present)  benchmarks/gpu.py
  pipeline   end to end --cores 2, no-op rerun, one-figure restyle, memory, CPU use per job,
             occupancy, each training's share of the matmul limit (limit.py),
             --cores 1 vs 2 and their tables compared (skip with --skip-scaling),
             the tables and claims against --reference (another run's summary.csv)   benchmarks/pipeline.py
Writes <out>/benchmarks.csv and <out>/benchmarks.md (the table, the slowest rules, each training's share of
the machine's limit), <out>/ensemble.csv (benchmarks/ensemble.py's table) and, from the pipeline part,
<out>/pipeline_rules.csv and <out>/training_limit.csv; prints the Markdown. Exit status 1 when a measured target is
missed (a figure that could not be measured here, like the GPU's without one, is not a failure).
Each part is also a script of its own (see its --help).
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path

# No progress bars from the in-process trainings (tqdm reads this when it is imported); the pipeline's
# jobs keep theirs (benchmarks/pipeline.py runs snakemake without it).
os.environ["TQDM_DISABLE"] = "1"

import ensemble  # noqa: E402
import gpu  # noqa: E402
import pipeline  # noqa: E402
import spectral  # noqa: E402
import trainer  # noqa: E402
from common import failed, markdown, row, table  # noqa: E402

from crlrepro.runtime.device import configure_threads, retain_freed_memory  # noqa: E402

REPO = Path(__file__).resolve().parents[1]


def ensemble_rows(frame) -> list[dict]:
    """benchmarks/ensemble.py's ratios as rows: a member's step stacked with others against alone."""
    return [
        row(
            "ensemble",
            f"{r.training}: ms per member-step, {r.members} stacked vs alone (the baseline)",
            r.ms_per_member_step_stacked,
            r.ms_per_member_step_alone,
            r.speedup,
            "context: where ensembles pay",
            None,
        )
        for r in frame.itertuples()
    ]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--configfile", default=None, help="config merged over config.yaml for the pipeline part")
    parser.add_argument("--skip-scaling", action="store_true", help="skip the --cores 1 pipeline run")
    parser.add_argument(
        "--reference",
        type=Path,
        help="another run's summary.csv (e.g. before a change): its folder's tables and its claims compared",
    )
    parser.add_argument(
        "--threads",
        type=int,
        default=min(2, os.cpu_count() or 1),
        help="threads for the in-process benchmarks (default: 2, the budget machine's cores)",
    )
    parser.add_argument("--out", type=Path, default=REPO / "results" / "benchmarks")
    args = parser.parse_args(argv)
    if args.configfile and not (REPO / args.configfile).is_file() and not Path(args.configfile).is_file():
        parser.error(f"--configfile {args.configfile}: no such file")
    started = time.perf_counter()
    configure_threads(args.threads)
    retain_freed_memory()  # the in-process figures measured as every workflow job runs (ScriptRun does the same)
    rows = spectral.measure()
    rows += trainer.trainer_rows() + trainer.compiled_step_rows() + trainer.ssl_layout_rows() + trainer.allocator_rows()
    rows += gpu.measure(threads=args.threads)
    ensemble_table = ensemble.measure(members=(3, 5), threads=1)
    rows += ensemble_rows(ensemble_table)
    pipeline_rows, by_rule, limit_table = pipeline.measure(args.configfile, args.skip_scaling, args.reference)
    rows += pipeline_rows
    frame = table(rows)
    machine = f"{platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}"
    text = (
        f"# Benchmarks\n\n`python benchmarks/run.py{' --configfile ' + args.configfile if args.configfile else ''}"
        f"{' --skip-scaling' if args.skip_scaling else ''}` on {machine}; {args.threads} threads in process; "
        f"{(time.perf_counter() - started) / 60:.0f} min in all.\n\n"
        + markdown(frame)
        + f"\n## Where the end-to-end time goes (job time {by_rule['seconds'].sum():.0f} s over "
        f"{int(by_rule['jobs'].sum())} benchmarked jobs)\n\n"
        + markdown(by_rule.head(10))
        + "\n## How far each training is from the machine's limit (training_limit.csv)\n\n"
        + markdown(limit_table.drop(columns="bound_by"))
        + "\n"
        + "".join(f"- {r.rule}: {r.bound_by}\n" for r in limit_table.itertuples())
    )
    args.out.mkdir(parents=True, exist_ok=True)
    frame.to_csv(args.out / "benchmarks.csv", index=False)
    by_rule.to_csv(args.out / "pipeline_rules.csv", index=False)
    limit_table.to_csv(args.out / "training_limit.csv", index=False)
    ensemble_table.to_csv(args.out / "ensemble.csv", index=False)
    (args.out / "benchmarks.md").write_text(text)
    print("\n" + text)
    missed = failed(frame)
    if len(missed):
        print("targets missed:\n" + "\n".join(f"  {m}" for m in missed["measure"]), file=sys.stderr)
    return 1 if len(missed) else 0


if __name__ == "__main__":
    sys.exit(main())
