"""Two runs of the pipeline side by side, claim by claim: did a rerun reproduce the published results?

``crlrepro compare A B`` reads two *sides*, each a results folder (``results/``, ``results/<scale>/``: its
``summary.csv`` verified against its sidecar, its ``effective_config.yaml``, the machine of its last recorded run) or
a publication (``docs/results/<scale>/``: ``summary.csv`` verified against its ``provenance.json``, which names the
config, commit, packages and machine). For every row of the two summaries it gives both verdicts and both values and
says whether the values agree within the row's own uncertainty (:func:`within_uncertainty`); rows whose *decided*
verdict moved come first. Then what could explain a difference: the two sides' machines (CPU, vector instructions,
bfloat16), commits, packages, the arithmetic the config asks for (``precision`` keys) and the config keys that differ.

A decided verdict (reproduced, contradicted, verified, failed) of a claim row that moves is a reproduction failure,
unless the row is marked fragile on both sides (a ``stability`` column whose text starts with ``fragile``: its test
statistic sits so near its threshold that another machine's rounding can move it); a diagnostic's move is shown, not
counted. :func:`moved_decisions` lists them; the command exits 1 when there is one.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from crlrepro.claims.verdicts import is_fragile as fragile_cell
from crlrepro.runtime.artifacts import RECORD_DIGEST, ArtifactError, read_table, record_digest, sha256_of, sidecar_record
from crlrepro.runtime.costs import config_value

__all__ = [
    "compare_sides",
    "comparison_text",
    "DECIDED",
    "is_fragile",
    "moved_decisions",
    "PRECISION_KEYS",
    "read_side",
    "Side",
    "within_uncertainty",
]

DECIDED = ("reproduced", "contradicted", "verified", "failed")
PRECISION_KEYS = ("training.precision", "lcgm.precision", "supervised_view.precision")


@dataclass(frozen=True)
class Side:
    """One side of a comparison: its summary and what made it."""

    path: str
    kind: str  # "results folder" or "publication"
    summary: pd.DataFrame
    config: dict | None
    commit: str | None
    packages: dict
    machine: dict | None


def _publication(folder: Path) -> Side:
    from crlrepro.workflow.publish import PROVENANCE

    record_path = folder / PROVENANCE
    try:
        record = json.loads(record_path.read_text())
    except (OSError, ValueError):
        raise ArtifactError(f"{record_path}: not a publication record (JSON)") from None
    if not isinstance(record, dict) or record.get(RECORD_DIGEST) != record_digest(record):
        raise ArtifactError(f"{record_path}: edited since it was published (its digest does not match); run `crlrepro verify`")
    summary = folder / "summary.csv"
    if record.get("files", {}).get("summary.csv") != sha256_of(summary):
        raise ArtifactError(f"{summary}: does not match the SHA-256 {record_path} records; run `crlrepro verify`")
    return Side(
        path=str(folder),
        kind="publication",
        summary=pd.read_csv(summary),
        config=record.get("config"),
        commit=record.get("git_commit"),
        packages=record.get("packages") or {},
        machine=record.get("machine"),
    )


def _results_folder(folder: Path) -> Side:
    from crlrepro.workflow.folder import read_effective_config

    summary = folder / "summary.csv"
    table = read_table(summary)  # verified against its sidecar
    made = sidecar_record(summary)
    return Side(
        path=str(folder),
        kind="results folder",
        summary=table,
        config=read_effective_config(folder),
        commit=made.get("git_commit"),
        packages=made.get("packages") or {},
        machine=None,  # a run records no machine; the report names the one it runs on
    )


def read_side(path: str | Path) -> Side:
    """A publication (a folder with ``provenance.json``) or a results folder (``summary.csv`` with its sidecar); an
    :class:`ArtifactError` naming the path otherwise, or where a file does not match its record."""
    folder = Path(path)
    if (folder / "provenance.json").is_file():
        return _publication(folder)
    if (folder / "summary.csv").is_file():
        return _results_folder(folder)
    raise ArtifactError(
        f"{folder}: neither a results folder with a summary.csv (results/, results/<scale>/: run the scale first) nor a "
        "publication with a provenance.json (docs/results/<scale>/)"
    )


def _number(value) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def _half_width(row) -> float | None:
    low, high = _number(row.get("ci_low")), _number(row.get("ci_high"))
    return None if low is None or high is None else (high - low) / 2


def within_uncertainty(a: dict, b: dict) -> str:
    """Whether two rows' values agree within the rows' own uncertainty: ``yes`` where |m_A − m_B| ≤ √(h_A² + h_B²),
    h the half-width of each row's interval (ci_low, ci_high); without intervals, ``yes`` where they are equal to 12
    significant digits (a deterministic quantity computed again); ``no`` otherwise; ``n/a`` where a value is missing."""
    ma, mb = _number(a.get("measured")), _number(b.get("measured"))
    if ma is None or mb is None:
        return "n/a"
    ha, hb = _half_width(a), _half_width(b)
    if ha is None and hb is None:
        return "yes" if math.isclose(ma, mb, rel_tol=1e-12, abs_tol=1e-300) else "no"
    return "yes" if abs(ma - mb) <= math.hypot(ha or 0.0, hb or 0.0) else "no"


def is_fragile(row: dict) -> bool:
    """A row marked fragile by the stability rule (:func:`crlrepro.claims.verdicts.is_fragile` of its ``stability``
    cell; a summary written before the column has none)."""
    return fragile_cell(row.get("stability"))


def _stability_word(row: dict) -> str:
    """The first word of a row's stability cell (stable, fragile, unmeasured), "" where it has none."""
    cell = row.get("stability")
    return cell.partition(":")[0] if isinstance(cell, str) else ""


def compare_sides(a: Side, b: Side) -> pd.DataFrame:
    """One line per claim id of either summary: role, both verdicts, values, whether the values agree within the rows'
    uncertainty, whether a decided verdict moved and whether the row is fragile on both sides; moved decisions first,
    then claims before diagnostics, each in the order of A's summary."""
    rows_a = {r["claim_id"]: r for r in a.summary.to_dict("records")}
    rows_b = {r["claim_id"]: r for r in b.summary.to_dict("records")}
    order = list(rows_a) + [c for c in rows_b if c not in rows_a]
    lines = []
    for claim_id in order:
        ra, rb = rows_a.get(claim_id, {}), rows_b.get(claim_id, {})
        va, vb = ra.get("verdict", "absent"), rb.get("verdict", "absent")
        decided = va in DECIDED or vb in DECIDED
        lines.append(
            {
                "claim_id": claim_id,
                "role": ra.get("role", rb.get("role")),
                "verdict_a": va,
                "verdict_b": vb,
                "measured_a": ra.get("measured"),
                "measured_b": rb.get("measured"),
                "within_uncertainty": within_uncertainty(ra, rb) if ra and rb else "n/a",
                "stability_a": _stability_word(ra),
                "stability_b": _stability_word(rb),
                "decision_moved": decided and va != vb,
                "fragile_both": is_fragile(ra) and is_fragile(rb),
            }
        )
    table = pd.DataFrame(lines)
    if table.empty:
        return table
    key = [~table["decision_moved"], table["role"] != "claim"]
    return table.assign(_a=key[0], _b=key[1]).sort_values(["_a", "_b"], kind="stable").drop(columns=["_a", "_b"])


def moved_decisions(table: pd.DataFrame) -> pd.DataFrame:
    """The claim rows whose decided verdict moved and that are not fragile on both sides: a reproduction failure (a
    diagnostic's move is shown, not a failure: the headline counts claims only)."""
    if table.empty:
        return table
    return table[table["decision_moved"] & ~table["fragile_both"] & (table["role"] == "claim")]


def _config_value(config: dict | None, dotted: str):
    """The value of a dotted key, None where the side records no config or the config lacks the key."""
    try:
        return config_value(config or {}, dotted)
    except KeyError:
        return None


def _machine_text(machine: dict | None) -> str:
    if not machine:
        return "not recorded (a results folder: see this machine below, if it ran here)"
    bf16 = "native bfloat16" if machine.get("cpu_bfloat16") else "no native bfloat16"
    gpu = f", GPU {machine['gpu']}" if machine.get("gpu") else ""
    return f"{machine.get('cpu')} ({machine.get('cpu_capability')}, {bf16}, {machine.get('cpu_count')} CPUs{gpu})"


def comparison_text(a: Side, b: Side, table: pd.DataFrame) -> str:
    """The report ``crlrepro compare`` prints: the verdict (reproduced or not), the moved decisions, the claim rows,
    then what made each side and the config keys that differ."""
    from crlrepro.workflow.folder import differing_keys

    moved = moved_decisions(table)
    claims = table[table["role"] == "claim"] if not table.empty else table
    same_verdict = int((claims["verdict_a"] == claims["verdict_b"]).sum()) if not claims.empty else 0
    agreement = claims["within_uncertainty"].value_counts() if not claims.empty else pd.Series(dtype=int)
    lines = [
        f"A: {a.path} ({a.kind})",
        f"B: {b.path} ({b.kind})",
        "",
        (
            f"{len(moved)} decided verdict(s) moved (not fragile on both sides): the results did not reproduce"
            if len(moved)
            else "no decided verdict moved: the verdicts reproduced"
        ),
        f"claims: {same_verdict} of {len(claims)} with the same verdict; values within their rows' uncertainty: "
        f"{agreement.get('yes', 0)}, outside it: {agreement.get('no', 0)}, without a value on a side: {agreement.get('n/a', 0)}",
        "",
    ]
    columns = [
        "claim_id", "role", "verdict_a", "verdict_b", "measured_a", "measured_b", "within_uncertainty", "stability_a",
        "stability_b",
    ]  # fmt: skip
    if not table.empty:
        shown = table[table["decision_moved"] | (table["verdict_a"] != table["verdict_b"]) | (table["role"] == "claim")]
        lines += ["| " + " | ".join(columns) + " | moved |", "|" + "---|" * (len(columns) + 1)]
        for row in shown.to_dict("records"):
            mark = (
                ""
                if not row["decision_moved"]
                else "moved (fragile on both sides)"
                if row["fragile_both"]
                else "MOVED"
                if row["role"] == "claim"
                else "moved (a diagnostic)"
            )
            cells = [f"{row[c]:.6g}" if isinstance(row[c], float) and math.isfinite(row[c]) else str(row[c]) for c in columns]
            lines.append("| " + " | ".join(cells) + f" | {mark} |")
        lines.append("")
    lines += ["What made each side:"]
    for name, side in (("A", a), ("B", b)):
        precision = ", ".join(f"{key}={_config_value(side.config, key)}" for key in PRECISION_KEYS)
        lines += [
            f"  {name}: machine {_machine_text(side.machine)}",
            f"     commit {side.commit}; torch {side.packages.get('torch')}, numpy {side.packages.get('numpy')}; "
            f"scale {_config_value(side.config, 'scale')}; arithmetic {precision}",
        ]
    if a.machine is None or b.machine is None:
        from crlrepro.workflow.publish import machine

        lines.append(f"  this machine: {_machine_text(machine())}")
    if a.config is not None and b.config is not None:
        keys = [k for k in differing_keys(a.config, b.config) if k != "results"]
        lines.append(f"config keys that differ: {', '.join(keys) if keys else 'none'}")
    else:
        lines.append("config keys that differ: unknown (a side records no config)")
    return "\n".join(lines) + "\n"
