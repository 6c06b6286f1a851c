"""`crlrepro compare A B` (crlrepro.workflow.compare): two runs side by side, claim by claim, and an exit status that
fails on a moved decided verdict unless the row is fragile on both sides."""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest

from crlrepro.runtime.artifacts import RECORD_DIGEST, ArtifactError, record_digest, sha256_of, write_table
from crlrepro.studies.summary import SUMMARY_COLUMNS
from crlrepro.workflow.cli import main
from crlrepro.workflow.compare import Side, compare_sides, moved_decisions, read_side, within_uncertainty
from crlrepro.workflow.folder import record_effective_config

ROWS = [
    # claim_id, role, measured, ci_low, ci_high, verdict
    ("A4.mu_hat", "claim", 0.80, 0.70, 0.90, "reproduced"),
    ("C3.auc_grows_with_m", "claim", 0.01, -0.02, 0.04, "inconclusive"),
    ("A1.excess.D1", "claim", 0.123456789, None, None, "reproduced"),
    ("C1.monte_carlo", "diagnostic", 0.37, 0.36, 0.38, "verified"),
]


def _summary(changes: dict | None = None) -> pd.DataFrame:
    rows = []
    for claim_id, role, measured, low, high, verdict in ROWS:
        row = dict.fromkeys(SUMMARY_COLUMNS, "")
        row.update(
            experiment=claim_id.split(".")[0],
            claim_id=claim_id,
            claim=claim_id,
            kind="value",
            role=role,
            measured=measured,
            ci_low=low,
            ci_high=high,
            verdict=verdict,
            reason="r",
        )
        row.update((changes or {}).get(claim_id, {}))
        rows.append(row)
    return pd.DataFrame(rows)


def _side(summary: pd.DataFrame, config=None, name="side") -> Side:
    return Side(name, "results folder", summary, config or {"scale": "smoke"}, "abc", {"torch": "2"}, None)


def test_the_values_agree_within_the_rows_uncertainty_or_to_12_digits_without_one():
    a = {"measured": 1.0, "ci_low": 0.9, "ci_high": 1.1}
    assert within_uncertainty(a, {"measured": 1.14, "ci_low": 1.04, "ci_high": 1.24}) == "yes"  # 0.14 ≤ √2·0.1
    assert within_uncertainty(a, {"measured": 1.15, "ci_low": 1.05, "ci_high": 1.25}) == "no"
    assert within_uncertainty({"measured": 0.123456789}, {"measured": 0.123456789 * (1 + 1e-14)}) == "yes"
    assert within_uncertainty({"measured": 0.123456789}, {"measured": 0.123456789 * (1 + 1e-9)}) == "no"
    assert within_uncertainty({"measured": math.nan}, {"measured": 1.0}) == "n/a"


def test_a_moved_decided_verdict_is_listed_first_and_fails_unless_fragile_on_both_sides():
    a = _summary()
    same = compare_sides(_side(a), _side(_summary()))
    assert not same["decision_moved"].any() and moved_decisions(same).empty
    # an undecided verdict moving between undecided words is not a moved decision
    wording = compare_sides(_side(a), _side(_summary({"C3.auc_grows_with_m": {"verdict": "not comparable"}})))
    assert moved_decisions(wording).empty
    # reproduced -> inconclusive on the third row: listed first, a failure
    moved = compare_sides(_side(a), _side(_summary({"A1.excess.D1": {"verdict": "inconclusive", "measured": 0.2}})))
    assert moved.iloc[0]["claim_id"] == "A1.excess.D1" and list(moved_decisions(moved)["claim_id"]) == ["A1.excess.D1"]
    assert moved.iloc[0]["within_uncertainty"] == "no"
    # fragile on both sides: shown as moved, not a failure; fragile on one side only: still a failure
    fragile = {"A1.excess.D1": {"stability": "fragile: margin 0.3 SE"}}
    both = compare_sides(
        _side(_summary(fragile)), _side(_summary({"A1.excess.D1": {"verdict": "inconclusive", "stability": "fragile: x"}}))
    )
    assert both["decision_moved"].any() and moved_decisions(both).empty
    one = compare_sides(_side(_summary(fragile)), _side(_summary({"A1.excess.D1": {"verdict": "inconclusive"}})))
    assert list(moved_decisions(one)["claim_id"]) == ["A1.excess.D1"]
    # a claim present on one side only is a moved decision where the other side decided it
    missing = compare_sides(_side(a), _side(_summary()[lambda t: t["claim_id"] != "A4.mu_hat"]))
    assert list(moved_decisions(missing)["claim_id"]) == ["A4.mu_hat"]


def _results_folder(root, summary):
    folder = root / "results" / "smoke"
    prov = {"rule": "summary", "git_commit": "abc", "packages": {"torch": "2"}}
    write_table(summary, folder / "summary.csv", prov, missing=("ci_low", "ci_high"))
    record_effective_config({"scale": "smoke", "tau": 0.5, "results": "results/smoke"}, folder)
    return folder


def _publication(root, summary, config):
    folder = root / "docs" / "results" / "smoke"
    folder.mkdir(parents=True)
    summary.to_csv(folder / "summary.csv", index=False)
    machine = {"cpu": "CPU X", "cpu_capability": "AVX512", "cpu_bfloat16": True, "cpu_count": 8, "gpu": None}
    record = {
        "scale": "smoke",
        "config": config,
        "git_commit": "def",
        "packages": {"torch": "2"},
        "machine": machine,
        "files": {"summary.csv": sha256_of(folder / "summary.csv")},
    }
    record[RECORD_DIGEST] = record_digest(record)
    (folder / "provenance.json").write_text(json.dumps(record))
    return folder


def test_the_command_reads_a_results_folder_and_a_publication_and_exits_1_on_a_moved_decision(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "Snakefile").write_text("")
    results = _results_folder(tmp_path, _summary())
    published = _publication(tmp_path, _summary(), {"scale": "smoke", "tau": 0.25, "results": "results/smoke"})
    assert main(["compare", str(results), str(published), "--csv", "rows.csv"]) == 0
    out = capsys.readouterr().out
    assert "no decided verdict moved" in out and "CPU X (AVX512, native bfloat16, 8 CPUs)" in out
    assert "config keys that differ: tau" in out and "commit def" in out
    assert len(pd.read_csv(tmp_path / "rows.csv")) == len(ROWS)
    moved = _publication(tmp_path / "other", _summary({"A4.mu_hat": {"verdict": "contradicted"}}), {"scale": "smoke"})
    assert main(["compare", str(results), str(moved)]) == 1
    out = capsys.readouterr().out
    assert "1 decided verdict(s) moved" in out and "| A4.mu_hat | claim | reproduced | contradicted |" in out
    # a side that does not match its record is refused, not compared
    (moved / "summary.csv").write_text((moved / "summary.csv").read_text().replace("contradicted", "reproduced"))
    with pytest.raises(ArtifactError, match="does not match the SHA-256"):
        read_side(moved)
    assert main(["compare", str(results), str(tmp_path / "nowhere")]) == 2


def test_a_moved_diagnostic_is_shown_but_does_not_fail():
    moved = compare_sides(
        _side(_summary({"A1.excess.D1": {"role": "diagnostic"}})),
        _side(_summary({"A1.excess.D1": {"role": "diagnostic", "verdict": "inconclusive"}})),
    )
    assert bool(moved["decision_moved"].iloc[0]) and moved_decisions(moved).empty
