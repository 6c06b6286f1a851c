"""Benchmark: job time per trained model for every training rule, before and after this project's levers, in one run.

    python benchmarks/trainings.py [--configfile configs/smoke.yaml] [--cores 2] [--dag] [--out results/benchmarks]

The levers are config keys, so "before" is the same code with them off, run in the same session on the same machine:

    training.stack: 1                 models one at a time (after: stacks of training.stack members, A2, A3, C2)
    training.precision: float32       A2's and C2's forward pass (after: as configured)
    lcgm.precision: float32           A3's
    supervised_view.precision: float32  paper 3's encoders'

Each side runs the training rules (and what they need: paper 3's views) from an empty results/ in a fresh copy of this
checkout with `snakemake --cores <cores> --until <every training rule>`, with the trainer's records on
(CRLREPRO_TRAINING_STATS, crlrepro.learning.train): a rule's trained models are the members of its records, its time
the sum of its jobs' `benchmark:` files. With ``--dag`` each side runs the whole workflow instead (its wall time is
then the end-to-end figure, before and after, and the verdicts of the two summaries are compared). Prints and writes
<out>/trainings.csv: per rule, jobs, models, seconds per model before and after and their ratio (> 1: after is
faster), and the total.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from pathlib import Path

import pandas as pd
import yaml
from common import markdown, rule_times
from limit import read_records
from pipeline import clone, results_folder, snakemake

REPO = Path(__file__).resolve().parents[1]
BEFORE = {
    "training": {"stack": 1, "precision": "float32"},
    "lcgm": {"precision": "float32"},
    "supervised_view": {"precision": "float32"},
}


def training_rules(workdir: Path, extra: list[str]) -> list[str]:
    """The workflow's training rules (every rule named *_train, and each row rule of a grid, *_train_<row>)."""
    _, out = snakemake(workdir, 1, ["--list-rules", *extra])
    return sorted({line.strip() for line in out.splitlines() if re.fullmatch(r"\w+_train(_\w+)?", line.strip())})


def run_side(root: Path, name: str, configfile: str | None, override: dict | None, cores: int, dag: bool) -> pd.DataFrame:
    """Train every training rule (``dag``: run the whole workflow) from clean in a copy of this checkout; per training
    rule: jobs, models, seconds."""
    workdir = clone(root / name)
    extra = ["--configfile", configfile] if configfile else []
    if override:
        (workdir / "levers.yaml").write_text(yaml.safe_dump(override))
        extra += ["--configfile", "levers.yaml"] if not configfile else ["levers.yaml"]
    rules = training_rules(workdir, extra)
    stats = root / f"{name}-records"
    until = [] if dag else ["--until", *rules]
    wall, _ = snakemake(workdir, cores, [*until, *extra], {"CRLREPRO_TRAINING_STATS": str(stats)})
    times = rule_times(workdir, results_folder(configfile))
    times = times[times["rule"].str.contains("_train")].copy()
    records = read_records(stats)
    models = records.groupby("rule")["members"].sum()
    per_rule = times.groupby("rule").agg(jobs=("job", "count"), seconds=("seconds", "sum"))
    per_rule["models"] = models.reindex(per_rule.index).fillna(0).astype(int)
    per_rule.attrs["wall"] = wall
    if dag:
        per_rule.attrs["summary"] = pd.read_csv(workdir / results_folder(configfile) / "summary.csv")
    return per_rule


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--configfile", default=None, help="config merged over config.yaml (default: none, the default scale)")
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--dag", action="store_true", help="run the whole workflow on each side, not only the trainings")
    parser.add_argument("--out", type=Path, default=REPO / "results" / "benchmarks")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="crlrepro trainings ") as tmp:  # a path with a space, as a user's may be
        root = Path(tmp)
        before = run_side(root, "before", args.configfile, BEFORE, args.cores, args.dag)
        after = run_side(root, "after", args.configfile, None, args.cores, args.dag)
    frame = before.join(after, how="outer", suffixes=("_before", "_after")).reset_index()
    frame["s_per_model_before"] = frame["seconds_before"] / frame["models_before"]
    frame["s_per_model_after"] = frame["seconds_after"] / frame["models_after"]
    frame["ratio"] = frame["s_per_model_before"] / frame["s_per_model_after"]
    total = {
        "rule": "all training rules",
        "jobs_before": frame["jobs_before"].sum(),
        "seconds_before": frame["seconds_before"].sum(),
        "models_before": frame["models_before"].sum(),
        "jobs_after": frame["jobs_after"].sum(),
        "seconds_after": frame["seconds_after"].sum(),
        "models_after": frame["models_after"].sum(),
    }
    total |= {
        "s_per_model_before": total["seconds_before"] / total["models_before"],
        "s_per_model_after": total["seconds_after"] / total["models_after"],
    }
    total["ratio"] = total["s_per_model_before"] / total["s_per_model_after"]
    frame = pd.concat([frame, pd.DataFrame([total])], ignore_index=True)
    columns = ["rule", "jobs_after", "models_after", "s_per_model_before", "s_per_model_after", "ratio"]
    args.out.mkdir(parents=True, exist_ok=True)
    frame.to_csv(args.out / "trainings.csv", index=False)
    what = "the whole workflow" if args.dag else "the training rules"
    print(f"wall time of {what} at --cores {args.cores}: before {before.attrs['wall']:.0f} s, "
          f"after {after.attrs['wall']:.0f} s (after / before {after.attrs['wall'] / before.attrs['wall']:.2f})")  # fmt: skip
    if args.dag:
        verdicts = before.attrs["summary"].merge(after.attrs["summary"], on="claim_id", suffixes=("_before", "_after"))
        moved = verdicts[verdicts["verdict_before"] != verdicts["verdict_after"]]
        print(f"verdicts changed: {len(moved)} of {len(verdicts)} rows")
        for r in moved.itertuples():
            print(f"  {r.claim_id}: {r.verdict_before} -> {r.verdict_after}")
    print(markdown(frame[columns].rename(columns={"jobs_after": "jobs", "models_after": "models"})))
    return 0


if __name__ == "__main__":
    sys.exit(main())
