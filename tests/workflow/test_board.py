"""The verdict board: every claim once, papers 1, 2, 3, each scale's verdict with its symbol, the reason on demand, the
same board as a figure whose bytes depend on the board only, and update-readme keeping docs/results/board.csv current."""

import math
import subprocess
import sys

import pandas as pd
import pytest
from conftest import REPO, git_checkout

from crlrepro.studies.summary import SUMMARY_COLUMNS
from crlrepro.workflow import board as b
from crlrepro.workflow import publish


def _summary(rows) -> pd.DataFrame:
    out = []
    for claim_id, role, verdict, measured in rows:
        out.append(
            {
                "experiment": claim_id.split(".")[0],
                "claim_id": claim_id,
                "claim": f"statement of {claim_id} with $Σ_{{i>D}} λ_i$",
                "kind": "value",
                "role": role,
                "paper_value": 0.5 if claim_id.startswith("A") else math.nan,
                "measured": measured,
                "ci_low": measured - 0.1,
                "ci_high": measured + 0.1,
                "tolerance": "the rounding",
                "power": "half-width 0.1",
                "verdict": verdict,
                "reason": f"because {claim_id} & <b>",
            }
        )
    return pd.DataFrame(out, columns=SUMMARY_COLUMNS)


DEFAULT = _summary(
    [
        ("A4.mu_hat", "claim", "reproduced", 0.51),
        ("S1.attraction_bound", "claim", "contradicted", 2.0),
        ("C3.auc_grows_with_m", "claim", "inconclusive", 0.01),
        ("C1.monte_carlo", "diagnostic", "verified", 1.0),
    ]
)
RECIPE = _summary([("C3.auc_grows_with_m", "claim", "reproduced", 0.02), ("A4.mu_hat", "claim", "not comparable", 0.7)])


def test_the_board_has_every_claim_once_papers_in_order_and_empty_cells_where_a_scale_lacks_a_row():
    board = b.verdict_board({"default": DEFAULT, "recipe": RECIPE})
    assert board["claim_id"].tolist() == ["C3.auc_grows_with_m", "A4.mu_hat", "S1.attraction_bound"]
    assert board["paper"].tolist() == [1, 2, 3]
    assert b.board_scales(board) == ["default", "recipe"]
    row = board.set_index("claim_id").loc["S1.attraction_bound"]
    assert row["verdict (default)"] == "contradicted" and row["verdict (recipe)"] == "" and row["reason (recipe)"] == ""
    mu = board.set_index("claim_id").loc["A4.mu_hat"]
    assert (mu["paper_value"], mu["measured (recipe)"], mu["interval (recipe)"]) == ("0.5", "0.7", "[0.6, 0.8]")
    assert "C1.monte_carlo" not in set(board["claim_id"])  # a diagnostic is not on the claims' board
    shown_apart = b.verdict_board({"default": DEFAULT}, roles=("diagnostic",))
    assert shown_apart["claim_id"].tolist() == ["C1.monte_carlo"]
    with pytest.raises(ValueError, match="lacks the columns"):
        b.verdict_board({"default": DEFAULT.drop(columns="reason")})


def test_the_html_board_shows_each_verdict_with_its_symbol_and_the_reason_on_demand_escaped():
    board = b.verdict_board({"default": DEFAULT, "recipe": RECIPE})
    html = b.board_html(board, paper=3)
    assert html.count("<tr data-claim=") == 1 and 'data-claim="S1.attraction_bound"' in html
    mark = '<span class="verdict-symbol" aria-hidden="true">✗</span>'
    assert f'<span class="verdict verdict-contradicted">{mark} contradicted' in html
    assert "not run" in html  # recipe has no such row
    assert "<details><summary><code>S1.attraction_bound</code> (value): why</summary>" in html
    assert "because S1.attraction_bound &amp; &lt;b&gt;" in html and "<b>" not in html
    assert '<span class="arithmatex">\\(Σ_{i&gt;D} λ_i\\)</span>' in html
    assert b.board_html(board).count("<tr data-claim=") == 3


def test_math_spans_are_marked_for_katex_and_dropped_in_the_plain_form():
    assert b.plain_math("tail $Σ_{i>D} λ_i$ at $D$ = 1") == "tail Σ_{i>D} λ_i at D = 1"
    assert b.math_html("a < $x^{2}$ & b") == 'a &lt; <span class="arithmatex">\\(x^{2}\\)</span> &amp; b'
    assert b.math_html("costs $5 and $") == "costs $5 and $"  # an empty or unclosed span is text


def test_the_headline_counts_each_verdict_per_paper_and_scale():
    board = b.verdict_board({"default": DEFAULT, "recipe": RECIPE})
    lines = b.board_headline_markdown(board).splitlines()
    assert lines[0] == "| paper | default | recipe |"
    paper1 = next(line for line in lines if line.startswith("| [1: "))
    assert paper1.endswith("| ✓ 0 ✗ 0 ? 1 – 0 (0 of 1 decided) | ✓ 1 ✗ 0 ? 0 – 0 (1 of 1 decided) |")
    paper3 = next(line for line in lines if line.startswith("| [3: "))
    assert paper3.endswith("| ✓ 0 ✗ 1 ? 0 – 0 (1 of 1 decided) | not run |")
    assert [line[:5] for line in lines[2:5]] == ["| [1:", "| [2:", "| [3:"]


def test_the_figure_depends_on_the_board_only(tmp_path):
    board = b.verdict_board({"default": DEFAULT, "recipe": RECIPE})
    first, second = b.board_figure(board, tmp_path / "a.png"), b.board_figure(board, tmp_path / "b.png")
    assert first.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and first.read_bytes() == second.read_bytes()
    changed = board.copy()
    changed.loc[0, "verdict (default)"] = "contradicted"
    assert b.board_figure(changed, tmp_path / "c.png").read_bytes() != first.read_bytes()


def test_update_readme_keeps_the_published_board_current(tmp_path):
    from crlrepro.claims.verdicts import CLAIM_NOT_APPLICABLE
    from crlrepro.runtime.artifacts import write_table, write_text_artifact
    from crlrepro.studies.summary import summary_markdown

    root = tmp_path / "docs" / "results"
    checkout, commit = git_checkout(tmp_path / "checkout")  # publishing names committed code
    made = {"rule": "summary", "git_commit": commit}
    for scale, summary in (("default", DEFAULT), ("recipe", RECIPE)):
        folder = tmp_path / "runs" / scale
        write_table(summary, folder / "summary.csv", made, missing=CLAIM_NOT_APPLICABLE)
        context = {"scale": scale, "commit": commit, "machine": "a test machine"}
        write_text_artifact(summary_markdown(pd.read_csv(folder / "summary.csv"), context), folder / "summary.md", made)
        publish.publish_scale(folder, root / scale, ["summary.csv", "summary.md"], scale=scale, config={}, repository=checkout)
    assert not publish.board_is_current(root)
    paths = publish.write_board(root)
    assert [p.name for p in paths] == list(publish.BOARD_FILES) and publish.board_is_current(root)
    board = pd.read_csv(root / "board.csv", keep_default_na=False)
    assert board["claim_id"].tolist() == ["C3.auc_grows_with_m", "A4.mu_hat", "S1.attraction_bound"]
    (tmp_path / "Snakefile").write_text("")  # update-readme runs from a checkout
    check = [sys.executable, "-m", "crlrepro.workflow.cli", "update-readme", "--check"]
    assert subprocess.run(check, cwd=tmp_path, capture_output=True, text=True).returncode == 0
    (root / "board.csv").write_text((root / "board.csv").read_text().replace("inconclusive", "reproduced"))
    proc = subprocess.run(check, cwd=tmp_path, capture_output=True, text=True)
    assert proc.returncode == 1 and "board.csv: differs from the published summaries" in proc.stderr
    assert subprocess.run(check[:-1], cwd=tmp_path, capture_output=True, text=True).returncode == 0
    assert publish.board_is_current(root)


def test_every_verdict_symbol_and_badge_meets_wcag_aa_contrast():
    """The board picture's symbols (ink_on) and the site's badges (docs/assets/site.css) are readable: a contrast of
    at least 4.5:1 on every verdict's colour; white on amber (the old "?") has 2.25:1 and is refused."""
    import re

    from crlrepro.workflow.board import VERDICT_MARKS, contrast_ratio, ink_on

    assert contrast_ratio("#FFFFFF", "#E69F00") < 2.3 and contrast_ratio("#000000", "#FFFFFF") == pytest.approx(21.0)
    css = (REPO / "docs" / "assets" / "site.css").read_text()
    default_ink = re.search(r"^\.verdict \{[^}]*[^-]color: (#[0-9a-fA-F]{3,6})", css, re.M).group(1)
    for verdict, (_, colour) in VERDICT_MARKS.items():
        assert contrast_ratio(ink_on(colour), colour) >= 4.5, verdict
        rule = re.search(rf"^\.verdict-{verdict.replace(' ', '-')} \{{([^}}]*)\}}", css, re.M).group(1)
        assert re.search(r"background: (#[0-9A-Fa-f]{6})", rule).group(1).upper() == colour.upper(), verdict
        found = re.search(r"[^-]color: (#[0-9a-fA-F]{3,6})", " " + rule)
        ink = found.group(1) if found else default_ink
        ink = "#" + "".join(c * 2 for c in ink[1:]) if len(ink) == 4 else ink
        assert contrast_ratio(ink, colour) >= 4.5, (verdict, ink, colour)


def test_the_board_picture_labels_rows_with_their_statements_and_fits_a_page(tmp_path):
    from crlrepro.workflow.board import LABEL_CHARS, draw_board

    board = b.verdict_board({"default": DEFAULT, "recipe": RECIPE})
    fig = draw_board(board)
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    first = board.iloc[0]
    assert labels[0].startswith(f"{first['claim_id']}: ") and len(labels[0]) <= len(first["claim_id"]) + 2 + LABEL_CHARS
    assert min(t.get_fontsize() for t in fig.axes[0].get_yticklabels()) >= 8
    # shown 750 px wide (a page's column), 8-point text is at least 9 px tall
    assert 750 / (72 * fig.get_figwidth()) * 8 >= 9, fig.get_figwidth()
