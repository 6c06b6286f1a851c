"""Published results (crlrepro.publish): what is copied, how it is checked on the way in and on the way out, the
README's result blocks, and that the README's blocks match the published summaries of this checkout."""

import json
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd
import pytest

from crlrepro import publish
from crlrepro.artifacts import ArtifactError, save_figure, write_table
from crlrepro.cli import main
from crlrepro.registry import experiment
from crlrepro.summary import SUMMARY_COLUMNS, summary_markdown

REPO = Path(__file__).resolve().parents[1]
FILES = ["summary.md", "summary.csv", "claims/A4.csv", "figures/tsybakov.png"]


def _summary() -> pd.DataFrame:
    rows = []
    for claim_id, role, verdict, reason in (("A4.mu_hat", "claim", "reproduced", "inside"),
                                            ("A4.rate_arithmetic", "claim", "failed", "error"),
                                            ("C3.auc_grows_with_m", "claim", "inconclusive", "neither direction decided"),
                                            ("C1.monte_carlo", "diagnostic", "verified", "ok")):
        rows.append({"experiment": claim_id.split(".")[0], "claim_id": claim_id, "claim": claim_id, "kind": "value",
                     "role": role, "paper_value": 1.0, "measured": 1.0, "ci_low": 0.9, "ci_high": 1.1, "tolerance": "",
                     "power": "", "verdict": verdict, "reason": reason})
    return pd.DataFrame(rows, columns=SUMMARY_COLUMNS)


@pytest.fixture
def results(tmp_path):
    folder = tmp_path / "results"
    summary = _summary()
    write_table(summary, folder / "summary.csv", {"rule": "summary"})
    (folder / "summary.md").write_text(summary_markdown(pd.read_csv(folder / "summary.csv")))
    write_table(summary[summary["experiment"] == "A4"].drop(columns="role"), folder / "claims/A4.csv", {"rule": "claims_a4"})
    fig, ax = plt.subplots()
    ax.set_title("(a) panel")
    save_figure(fig, [folder / "figures/tsybakov.png"], dpi=20)
    plt.close(fig)
    return folder


def test_publish_copies_checks_and_records_each_file(results, tmp_path):
    (results / "logs").mkdir()
    publish.record_run(results / publish.RUNS_LOG, 0.0, 125.0, cores=2, jobs=31, local=True)
    destination = tmp_path / "docs/results/demo"
    record = publish.publish_scale(results, destination, FILES, scale="demo", config={"results": "results", "tau": 0.5})
    assert sorted(record["files"]) == sorted(FILES)
    for relative in FILES:
        assert (destination / relative).read_bytes() == (results / relative).read_bytes()
    saved = json.loads((destination / "provenance.json").read_text())
    assert saved["scale"] == "demo" and saved["config"]["tau"] == 0.5 and saved["config_hash"] == record["config_hash"]
    assert saved["runs"] == [{"started": "1970-01-01T00:00:00+00:00", "finished": "1970-01-01T00:02:05+00:00",
                              "wall_s": 125.0, "cores": 2, "jobs": 31, "local": True}]
    assert {"python", "torch", "snakemake"} <= set(saved["packages"]) and saved["machine"]["cpu_count"] >= 1
    table = publish.read_published_table("demo", "summary.csv", tmp_path / "docs/results")
    pd.testing.assert_frame_equal(table, pd.read_csv(results / "summary.csv"))
    assert publish.published_scales(tmp_path / "docs/results") == ["demo"]


def test_a_changed_or_unrecorded_published_file_is_refused_with_the_command_that_restores_it(results, tmp_path):
    root = tmp_path / "docs/results"
    publish.publish_scale(results, root / "demo", FILES, scale="demo", config={})
    path = root / "demo/summary.csv"
    path.write_text(path.read_text().replace("reproduced", "contradicted"))
    with pytest.raises(ArtifactError, match=r"changed since it was published; publish the scale again: snakemake publish"):
        publish.read_published("demo", "summary.csv", root)
    with pytest.raises(ArtifactError, match="not recorded"):
        publish.read_published("demo", "claims/C3.csv", root)
    with pytest.raises(ValueError, match="scale '../x'"):
        publish.read_published("../x", "summary.csv", root)


def test_nothing_is_published_from_a_damaged_or_inconsistent_results_folder(results, tmp_path):
    destination = tmp_path / "docs/results/demo"
    table = results / "claims/A4.csv"
    table.write_text(table.read_text().replace("reproduced", "contradicted"))
    with pytest.raises(ArtifactError, match="claims/A4.csv: its content does not match"):
        publish.publish_scale(results, destination, FILES, scale="demo", config={})
    assert not destination.exists()


def test_a_summary_md_that_is_not_its_csvs_is_refused(results, tmp_path):
    (results / "summary.md").write_text((results / "summary.md").read_text().replace("reproduced", "contradicted"))
    with pytest.raises(ArtifactError, match="does not match its summary.csv.*--forcerun summary"):
        publish.publish_scale(results, tmp_path / "out", FILES, scale="demo", config={})
    (results / "figures/tsybakov.png").write_bytes(b"\x89PNG not one")
    with pytest.raises(Exception):
        publish.publish_scale(results, tmp_path / "out", ["figures/tsybakov.png"], scale="demo", config={})
    with pytest.raises(ValueError, match="relative to the results folder"):
        publish.publish_scale(results, tmp_path / "out", ["../secret.csv"], scale="demo", config={})
    with pytest.raises(ValueError, match="scale 'Big Scale'"):
        publish.publish_scale(results, tmp_path / "out", FILES, scale="Big Scale", config={})


def test_republishing_removes_only_what_it_published_before(results, tmp_path):
    destination = tmp_path / "docs/results/demo"
    publish.publish_scale(results, destination, FILES, scale="demo", config={})
    (destination / "notes.txt").write_text("mine")
    publish.publish_scale(results, destination, FILES[:3], scale="demo", config={})
    assert not (destination / "figures/tsybakov.png").exists() and (destination / "notes.txt").read_text() == "mine"


def test_the_run_log_is_data_and_a_bad_line_is_named(tmp_path):
    log = tmp_path / "runs.jsonl"
    assert publish.read_runs(log) == []
    log.write_text('{"wall_s": 3.5, "cores": 2}\n\n__import__("os")\n')
    with pytest.raises(ArtifactError, match=r"runs.jsonl:3: not a JSON line"):
        publish.read_runs(log)
    log.write_text('{"wall_s": "long"}\n')
    with pytest.raises(ArtifactError, match=r"runs.jsonl:1: not a run record"):
        publish.read_runs(log)


def test_readme_block_counts_claims_only_and_says_why_the_undecided_are_not(results, tmp_path):
    block = publish.readme_block(_summary(), "demo")
    assert block.startswith("At the **demo** scale (`docs/results/demo/summary.csv`): 1 reproduced, 1 inconclusive, 1 failed "
                            "(of 3 claims).")
    lines = block.splitlines()
    paper2 = next(line for line in lines if line.startswith(f"| {experiment('A4').paper}: "))
    # paper 2: two claims, both decided (reproduced, failed); the diagnostic is not counted
    assert paper2.endswith("| 2 | 2 | 1 | 0 | 0 | 0 | 0 | 1 | 0 | 0 | 0 | 0 | 0 |")
    paper1 = next(line for line in lines if line.startswith("| 1: "))
    assert paper1.endswith("| 1 | 0 | 0 | 0 | 1 | 0 | 0 | 0 | 0 | 0 | 0 | 0 | 1 |")


def test_readme_blocks_are_rewritten_from_the_published_summary(results, tmp_path):
    root = tmp_path / "docs/results"
    publish.publish_scale(results, root / "demo", FILES, scale="demo", config={})
    readme = "# x\n\n<!-- results:demo -->\nold numbers\n<!-- /results -->\n\nrest\n"
    text, changed = publish.readme_blocks(readme, root)
    assert changed == ["demo"] and "old numbers" not in text and text.endswith("<!-- /results -->\n\nrest\n")
    assert publish.readme_blocks(text, root) == (text, [])
    with pytest.raises(ArtifactError, match="not recorded"):
        publish.readme_blocks("<!-- results:other -->\n<!-- /results -->\n", root)


def test_the_readme_quotes_the_published_results_of_this_checkout():
    readme = (REPO / "README.md").read_text()
    scales = publish._BLOCK.findall(readme)
    assert any(scale == "default" for _, scale, _, _ in scales), "README.md has no results block of the default scale"
    _, changed = publish.readme_blocks(readme, REPO / publish.PUBLISHED_ROOT)
    assert not changed, f"README.md's result blocks of {changed} differ from docs/results/: run `crlrepro update-readme`"


def test_update_readme_command_rewrites_and_checks(results, tmp_path, monkeypatch, capsys):
    publish.publish_scale(results, tmp_path / "docs/results/demo", FILES, scale="demo", config={})
    (tmp_path / "Snakefile").write_text("")
    (tmp_path / "README.md").write_text("<!-- results:demo -->\nold\n<!-- /results -->\n")
    monkeypatch.chdir(tmp_path)
    assert main(["update-readme", "--check"]) == 1 and "run `crlrepro update-readme`" in capsys.readouterr().err
    assert main(["update-readme"]) == 0 and "At the **demo** scale" in (tmp_path / "README.md").read_text()
    assert main(["update-readme", "--check"]) == 0
