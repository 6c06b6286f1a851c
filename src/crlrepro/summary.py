"""Claims and verdicts: one row per claim of a paper, gathered into ``results/summary.{csv,md}``.

A claim row holds ``experiment, claim, paper_value, measured, ci_low, ci_high, tolerance,
verdict``. ``experiment`` is SPEC.md's identifier (A1 … A4, C1 … C5, S1 … S4); ``tolerance`` says
in words what counts as agreement; ``verdict`` is one of the VERDICTS below.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

CLAIM_COLUMNS = ["experiment", "claim", "paper_value", "measured", "ci_low", "ci_high", "tolerance", "verdict"]
EXPERIMENT_ORDER = ["A1", "A2", "A3", "A4", "C1", "C2", "C3", "C4", "C5", "S1", "S2", "S3", "S4"]
REPRODUCED, NOT_REPRODUCED, NOT_COMPARABLE = "reproduced", "not reproduced", "not comparable"
VERDICTS = (REPRODUCED, NOT_REPRODUCED, NOT_COMPARABLE)


def relative_verdict(measured: float, paper: float, rtol: float) -> str:
    """``reproduced`` when |measured − paper| ≤ rtol·|paper|."""
    if paper is None or not np.isfinite(paper) or not np.isfinite(measured):
        return NOT_COMPARABLE
    return REPRODUCED if abs(measured - paper) <= rtol * abs(paper) else NOT_REPRODUCED


def claims_frame(rows: list[dict]) -> pd.DataFrame:
    """Rows → a claims table with exactly CLAIM_COLUMNS, checking experiments and verdicts."""
    table = pd.DataFrame(rows, columns=CLAIM_COLUMNS)
    unknown = set(table["experiment"]) - set(EXPERIMENT_ORDER)
    if unknown:
        raise ValueError(f"unknown experiment identifiers {sorted(unknown)}; use {EXPERIMENT_ORDER}")
    bad = set(table["verdict"]) - set(VERDICTS)
    if bad:
        raise ValueError(f"unknown verdicts {sorted(bad)}; use {VERDICTS}")
    return table


def truncation_claims(truncation: pd.DataFrame, convergence: pd.DataFrame, reference: dict, *, comparable: bool, rtol: float) -> pd.DataFrame:
    """A1: tail sums and truncation excess risks against paper 2, Table 1, columns 1–2.

    The interval is the quadrature error estimate: measured ± |measured − value at the finest
    quadrature of the convergence study|."""
    finest = convergence[convergence["nodes"] == convergence["nodes"].max()].set_index("D")
    rows = []
    for quantity, label in (("tail_sum", "tail sum Σ_{i>D} λ_i"), ("trunc_excess_risk", "excess risk L(s_D) − L* of the truncation")):
        paper_column = {int(k): float(v) for k, v in reference[quantity].items()}
        for d, measured in zip(truncation["D"], truncation[quantity]):
            error = abs(measured - finest.loc[d, quantity])
            paper = paper_column.get(int(d), np.nan)
            verdict = relative_verdict(measured, paper, rtol) if comparable else NOT_COMPARABLE
            rows.append(
                {
                    "experiment": "A1",
                    "claim": f"{label}, D={d}",
                    "paper_value": paper,
                    "measured": measured,
                    "ci_low": measured - error,
                    "ci_high": measured + error,
                    "tolerance": f"relative {rtol:g}" if comparable else "config differs from the paper's setting",
                    "verdict": verdict,
                }
            )
    return claims_frame(rows)


def collect_summary(tables: list[pd.DataFrame]) -> pd.DataFrame:
    """Concatenate claims tables in SPEC order (A1 … S4), keeping each table's own row order."""
    table = pd.concat([claims_frame(t.to_dict("records")) for t in tables], ignore_index=True)
    rank = table["experiment"].map(EXPERIMENT_ORDER.index)
    return table.iloc[np.argsort(rank.to_numpy(), kind="stable")].reset_index(drop=True)


def _fmt(value) -> str:
    if isinstance(value, str):
        return value
    if value is None or not np.isfinite(value):
        return "—"
    return f"{value:.4g}"


def summary_markdown(table: pd.DataFrame) -> str:
    """The summary as a Markdown document: a verdict count, then one table row per claim."""
    counts = table["verdict"].value_counts()
    lines = [
        "# crlrepro: claim-by-claim summary",
        "",
        ", ".join(f"{counts.get(v, 0)} {v}" for v in VERDICTS) + f" (of {len(table)} claims).",
        "",
        "| experiment | claim | paper | measured | interval | tolerance | verdict |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in table.itertuples(index=False):
        interval = f"[{_fmt(row.ci_low)}, {_fmt(row.ci_high)}]"
        lines.append(
            f"| {row.experiment} | {row.claim} | {_fmt(row.paper_value)} | {_fmt(row.measured)} | "
            f"{interval} | {row.tolerance} | {row.verdict} |"
        )
    return "\n".join(lines) + "\n"
