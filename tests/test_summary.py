import numpy as np
import pandas as pd
import pytest

from crlrepro.summary import (
    CLAIM_COLUMNS,
    NOT_COMPARABLE,
    NOT_REPRODUCED,
    REPRODUCED,
    collect_summary,
    relative_verdict,
    summary_markdown,
    truncation_claims,
)


def test_relative_verdict():
    assert relative_verdict(1.0004, 1.0, 1e-3) == REPRODUCED
    assert relative_verdict(1.002, 1.0, 1e-3) == NOT_REPRODUCED
    assert relative_verdict(1.0, np.nan, 1e-3) == NOT_COMPARABLE


REFERENCE = {"tail_sum": {1: 0.5, 2: 0.01}, "trunc_excess_risk": {1: 0.04, 2: 0.001}}
TRUNCATION = pd.DataFrame({"D": [1, 2, 3], "tail_sum": [0.50001, 0.0102, 0.001], "trunc_excess_risk": [0.04, 0.001, 1e-4]})
CONVERGENCE = pd.concat([TRUNCATION.assign(nodes=100), TRUNCATION.assign(nodes=200, tail_sum=TRUNCATION.tail_sum * (1 + 1e-9))])


def test_truncation_claims_verdicts_and_intervals():
    claims = truncation_claims(TRUNCATION, CONVERGENCE, REFERENCE, comparable=True, rtol=1e-3)
    assert list(claims.columns) == CLAIM_COLUMNS
    assert claims["verdict"].tolist() == [REPRODUCED, NOT_REPRODUCED, NOT_COMPARABLE, REPRODUCED, REPRODUCED, NOT_COMPARABLE]
    first = claims.iloc[0]
    assert first.ci_low < first.measured < first.ci_high
    assert first.ci_high - first.measured == pytest.approx(0.50001e-9)


def test_other_settings_are_not_compared():
    claims = truncation_claims(TRUNCATION, CONVERGENCE, REFERENCE, comparable=False, rtol=1e-3)
    assert set(claims["verdict"]) == {NOT_COMPARABLE}


def test_summary_orders_experiments_and_renders_markdown():
    a1 = truncation_claims(TRUNCATION, CONVERGENCE, REFERENCE, comparable=True, rtol=1e-3)
    c5 = pd.DataFrame([{**a1.iloc[0].to_dict(), "experiment": "C5", "claim": "identity"}])
    table = collect_summary([c5, a1])
    assert table["experiment"].tolist()[0] == "A1" and table["experiment"].tolist()[-1] == "C5"
    text = summary_markdown(table)
    assert "4 reproduced, 1 not reproduced, 2 not comparable (of 7 claims)" in text
    assert text.count("\n| A1 |") == 6


def test_unknown_experiment_is_rejected():
    bad = pd.DataFrame([{c: "x" for c in CLAIM_COLUMNS}])
    with pytest.raises(ValueError, match="unknown experiment"):
        collect_summary([bad])


def test_report_captions_and_html_summary_escape_and_count():
    from crlrepro.summary import claims_caption, rst_text, summary_html

    table = pd.DataFrame([
        {"experiment": "A1", "claim": "tail |x|_2 *sum* `a`", "paper_value": 0.5, "measured": 0.49, "ci_low": 0.48,
         "ci_high": 0.5, "tolerance": "relative 0.1", "verdict": "reproduced"},
        {"experiment": "A1", "claim": "<b>slope</b>", "paper_value": np.nan, "measured": 2.0, "ci_low": np.nan,
         "ci_high": np.nan, "tolerance": "exact", "verdict": "not reproduced"},
    ])
    assert rst_text("a|b*c_") == "a\\|b\\*c\\_"
    text = claims_caption("**Figure.** What the paper claims.", table, {"config_hash": "abc", "git_commit": "f00",
                                                                     "device": "cpu", "packages": {"torch": "2"}})
    assert text.startswith("**Figure.** What the paper claims.")
    assert "1 reproduced, 1 not reproduced, 0 not comparable (of 2 claims)" in text
    assert "tail \\|x\\|\\_2 \\*sum\\* \\`a\\`" in text and "**not reproduced**" in text
    assert "paper 0.5" in text and "**Provenance:** config abc, commit f00, device cpu; torch 2." in text
    assert "{% raw %}" in text and text.rstrip().endswith("{% endraw %}")
    assert "tail" not in claims_caption("d", table, list_claims=False)
    page = summary_html(table)
    assert page.count("<tr class=") == 2 and "&lt;b&gt;slope&lt;/b&gt;" in page and "<b>slope" not in page
