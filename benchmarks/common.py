"""What every benchmark reports: one row per measure, side by side with its baseline from the same run.

Columns: benchmark, measure (with its unit), value (ours), baseline (measured in the same run), ratio
(the speed-up, > 1 means ours is faster), target (the issue's budget) and met (True, False, or empty
when not measured here, e.g. no GPU).
"""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

COLUMNS = ["benchmark", "measure", "value", "baseline", "ratio", "target", "met"]


def row(benchmark: str, measure: str, value, baseline=None, ratio=None, target: str = "", met=None) -> dict:
    return {
        "benchmark": benchmark,
        "measure": measure,
        "value": value,
        "baseline": baseline,
        "ratio": ratio,
        "target": target,
        "met": met,
    }


def table(rows: list[dict]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=COLUMNS)


def failed(frame: pd.DataFrame) -> pd.DataFrame:
    """Rows whose target was measured and missed (rows not measured here are not failures)."""
    return frame[frame["met"].map(lambda m: m is not None and not pd.isna(m) and not bool(m))]


def markdown(frame: pd.DataFrame) -> str:
    head = "| " + " | ".join(frame.columns) + " |\n|" + "---|" * len(frame.columns) + "\n"
    return head + "".join("| " + " | ".join(_fmt(v) for v in r) + " |\n" for r in frame.itertuples(index=False))


def _fmt(value) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "**no**"
    if isinstance(value, float):
        return f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.3g}"
    return str(value)


def rule_times(workdir: Path, results: str = "results") -> pd.DataFrame:
    """One row per job from the benchmark files: rule, job, seconds, max_rss (MiB)."""
    rows = []
    benchmarks = workdir / results / "benchmarks"
    for path in sorted(benchmarks.rglob("*.tsv")):
        record = pd.read_csv(path, sep="\t").iloc[0]
        parts = path.relative_to(benchmarks).parts
        rule = parts[0] if len(parts) > 1 else path.stem  # results/benchmarks/<rule>/<job>.tsv or <rule>.tsv
        rows.append(
            {
                "rule": rule,
                "job": path.stem,
                "seconds": float(record["s"]),
                "cpu_time": float(record["cpu_time"]),
                "max_rss_mib": float(record["max_rss"]) if record["max_rss"] != "-" else float("nan"),
            }
        )
    return pd.DataFrame(rows)
