"""The summary's rendering: order from the registry, grouping by paper, counts per verdict, escaping."""

import numpy as np
import pandas as pd
import pytest

from crlrepro.claims.verdicts import CLAIM_COLUMNS
from crlrepro.studies.summary import claims_caption, collect_summary, rst_text, summary_html, summary_markdown, verdict_counts

# A registered claim key of each experiment the tests use (a row's role comes from its key in the registry).
KEYS = {
    "A1": "tail_sum",
    "A2": "excess_risk",
    "C2": "exponent_tsybakov",
    "C5": "oce",
    "S1": "balanced_beats_infonce",
    "S2": "cosine_beats",
}


def row(experiment, verdict, kind="value", claim="c", key=None, **extra):
    claim_id = f"{experiment}.{key or KEYS.get(experiment, 'x')}.{claim}"
    base = {
        "experiment": experiment,
        "claim_id": claim_id,
        "claim": claim,
        "kind": kind,
        "paper_value": 0.5,
        "measured": 0.49,
        "ci_low": 0.48,
        "ci_high": 0.5,
        "tolerance": "t",
        "power": "p",
        "verdict": verdict,
        "reason": "r",
    }
    return {**base, **extra}


def table(*rows):
    return pd.DataFrame(list(rows), columns=CLAIM_COLUMNS)


def test_summary_orders_papers_1_2_3_then_experiments_by_the_registry_and_keeps_row_order():
    s1 = table(row("S1", "inconclusive", "direction", "z"), row("S1", "reproduced", "direction", "a"))
    c5 = table(row("C5", "verified", "identity"))
    a1 = table(row("A1", "reproduced", claim="x"), row("A1", "contradicted", claim="y"))
    a4 = table(row("A4", "reproduced", claim="w", key="mu_hat"))
    summary = collect_summary([s1, a4, c5, a1])
    assert summary["experiment"].tolist() == ["C5", "A1", "A1", "A4", "S1", "S1"]
    assert summary["claim"].tolist() == ["c", "x", "y", "w", "z", "a"]


def test_summary_rejects_unknown_experiments_and_bad_tables():
    with pytest.raises(ValueError, match="unknown experiment"):
        collect_summary([table(row("Z9", "reproduced"))])
    with pytest.raises(ValueError, match="not one of"):
        collect_summary([table(row("A1", "not reproduced"))])
    with pytest.raises(ValueError, match="columns"):
        collect_summary([table(row("A1", "reproduced")).drop(columns="reason")])


def test_markdown_groups_by_paper_with_counts_at_the_top():
    summary = collect_summary(
        [
            table(
                row("A1", "reproduced"),
                row("A2", "not comparable"),
                row("C5", "verified", "identity"),
                row("S2", "inconclusive", "direction"),
                row("C2", "contradicted", "bound"),
            )
        ]
    )
    text = summary_markdown(summary)
    assert "All papers: 1 reproduced, 1 contradicted, 1 inconclusive, 1 not comparable (of 4 claims)." in text
    assert "Mathematics checked (not counted): 1 verified (of 1 checks of mathematics)" in text
    assert "Identities (`verified`" not in text  # no claim is an identity: the identities are shown apart
    assert (
        "| 2 | 1 | 0 | 0 | 0 | 1 | 0 | 0 |" in text
        and "| 1 | 0 | 1 | 0 | 0 | 0 | 0 | 0 |" in text
        and "| 3 | 0 | 0 | 0 | 1 | 0 | 0 | 0 |" in text
    )
    headings = [line for line in text.splitlines() if line.startswith("## Paper")]
    assert [h.split(":")[0] for h in headings] == ["## Paper 1", "## Paper 2", "## Paper 3"]
    assert (
        text.index("| `C2.") < text.index("## Paper 2") < text.index("| `A1.") < text.index("## Paper 3") < text.index("| `S2.")
    )
    assert text.index("| 1 | 0 | 1 |") < text.index("| 2 | 1 | 0 |") < text.index("| 3 | 0 | 0 |")
    # a short row in the table, the whole row on its own line below it
    (c2,) = [line for line in text.splitlines() if line.startswith("| `C2.")]
    assert c2.endswith("| c | bound | 0.5 | 0.49 | [0.48, 0.5] | contradicted |  |"), c2
    (details,) = [line for line in text.splitlines() if line.startswith("- `C2.")]
    assert details.endswith("(C2): c; *tolerance*: t. *power*: p. *reason*: r"), details
    assert "**Scale:**" not in text  # no context given: no header of what made it


def test_a_summary_opens_with_its_scale_what_it_decides_and_what_made_it_and_keeps_rows_short():
    from crlrepro.studies.summary import MAX_ROW_CHARS, SCALE_SCOPE, summary_context

    long = "a statement " * 40
    rows = [row("A1", "reproduced", claim=long, tolerance="t " * 200, power="interval from 2 seeds " + "p " * 200)]
    rows[0]["claim_id"] = "A1.tail_sum.long"
    rows.append(row("A1", "reproduced", power="(5 seeds, Holm family of 9)"))
    context = {"scale": "smoke", "commit": "f00", "machine": "a CPU (AVX2 kernels, 2 CPUs, no GPU)"}
    text = summary_markdown(collect_summary([table(*rows)]), context)
    assert text.startswith(f"# crlrepro: claim-by-claim summary\n\n**Scale:** `smoke`: {SCALE_SCOPE['smoke']}.")
    assert "**Made by:** commit `f00` on a CPU (AVX2 kernels, 2 CPUs, no GPU)." in text
    assert summary_context(text) == context
    assert "decides almost nothing" in text and "not evidence about the papers" in text
    table_rows = [line for line in text.splitlines() if line.startswith("| `A1.")]
    assert len(table_rows) == 2 and max(map(len, table_rows)) <= MAX_ROW_CHARS, max(map(len, table_rows))
    assert "| none from 2 seeds |" in table_rows[0] and "| [0.48, 0.5] |" in table_rows[1]  # can fail: 5 seeds print it
    assert f"(A1): {long.strip()};" in text  # the whole statement, one line away
    own = summary_markdown(collect_summary([table(*rows)]), {**context, "scale": "mine"})
    assert "**Scale:** `mine`: a scale of your own" in own


def test_markdown_escapes_pipes_and_shows_missing_numbers():
    summary = collect_summary([table(row("A1", "reproduced", claim="|x|", paper_value=np.nan, ci_low=np.nan))])
    text = summary_markdown(summary)
    assert "\\|x\\|" in text and "| — |" in text and "[—, 0.5]" in text
    assert "(A1): |x|;" in text  # outside the table a pipe needs no escape


def test_verdict_counts_name_only_present_verdicts_in_order():
    t = table(row("A1", "contradicted"), row("A1", "reproduced"), row("A1", "reproduced"))
    assert verdict_counts(t) == "2 reproduced, 1 contradicted (of 3 claims)"


def test_report_captions_and_html_summary_escape_and_count():
    t = table(
        row("A1", "reproduced", claim="tail |x|_2 *sum* `a`"),
        row("A1", "contradicted", claim="<b>slope</b>", paper_value=np.nan, reason="far <off>"),
    )
    assert rst_text("a|b*c_") == "a\\|b\\*c\\_"
    text = claims_caption(
        "**Figure.** What the paper claims.",
        t,
        {"config_hash": "abc", "git_commit": "f00", "device": "cpu", "packages": {"torch": "2"}},
    )
    assert text.startswith("**Figure.** What the paper claims.")
    assert "1 reproduced, 1 contradicted (of 2 claims)" in text
    assert "tail \\|x\\|\\_2 \\*sum\\* \\`a\\`" in text and "**contradicted**" in text and "(value)" in text
    assert "paper 0.5" in text and "**Provenance:** config abc, commit f00, device cpu; torch 2." in text
    assert "{% raw %}" in text and text.rstrip().endswith("{% endraw %}")
    assert "tail" not in claims_caption("d", t, list_claims=False)
    page = summary_html(t)
    assert page.count("<tr class=") == 2 and "&lt;b&gt;slope&lt;/b&gt;" in page and "<b>slope" not in page
    assert '<tr class="contradicted">' in page and "far &lt;off&gt;" in page and "<h2>Paper 2:" in page


def test_diagnostics_are_shown_apart_and_not_counted():
    """A row's role comes from the registry: the headline, the per-paper counts and the captions count claims only;
    diagnostics keep their verdicts in a section of their own, each with the reason it is a diagnostic."""
    from crlrepro.studies.registry import experiment
    from crlrepro.studies.summary import SUMMARY_COLUMNS

    summary = collect_summary(
        [
            table(row("A2", "reproduced"), row("A2", "reproduced", "direction", "D1-D2", key="excess_risk_decreases")),
            table(row("C1", "verified", "identity", "mi", key="monte_carlo")),
        ]
    )
    # paper 1's C1 first, then paper 2's A2
    assert list(summary.columns) == SUMMARY_COLUMNS and summary["role"].tolist() == ["diagnostic", "claim", "diagnostic"]
    text = summary_markdown(summary)
    assert "All papers: 1 reproduced (of 1 claims)." in text
    assert "| 2 | 1 | 1 | 0 | 0 | 0 | 0 | 0 | 0 | 0 | 0 |" in text and "| 1 | 0 | 0 | 0 | 0 | 0 | 0 | 0 | 0 | 0 |" not in text
    assert "Diagnostics (not counted): 1 reproduced, 1 verified (of 2 diagnostics)" in text
    section = text[text.index("## Diagnostics") :]
    why = experiment("A2").claim("excess_risk_decreases").posed("D1-D2")[1]
    assert why and why in section and experiment("C1").claim("monte_carlo").why in section
    assert (
        text.index("## Paper 2") < text.index("## Diagnostics") and "| A2 | D1-D2 |" not in text[: text.index("## Diagnostics")]
    )
    caption = claims_caption("d", summary)
    assert (
        "**This run:** 1 reproduced (of 1 claims); diagnostics, not counted: 1 reproduced, 1 verified (of 2 diagnostics)."
        in caption
    )
    assert "(direction, diagnostic)" in caption
    page = summary_html(summary)
    assert "All papers: 1 reproduced (of 1 claims)." in page and "<h2>Diagnostics</h2>" in page and html_escape(why) in page
    with pytest.raises(KeyError, match="A2 has no claim 'nope'"):
        collect_summary([table(row("A2", "reproduced", key="nope"))])


def html_escape(text):
    import html

    return html.escape(text)


def test_every_registered_row_has_a_role_and_every_diagnostic_says_why():
    from crlrepro.studies.registry import EXPERIMENTS, ROLES

    for e in EXPERIMENTS:
        for spec in e.claims:
            for role, why in (spec.posed(), *(spec.posed(detail) for detail, _, _ in spec.rows)):
                assert role in ROLES, (e.id, spec.key)
                assert bool(why) == (role != "claim"), (e.id, spec.key)
    roles = {spec.role for e in EXPERIMENTS for spec in e.claims}
    assert roles == set(ROLES)


def test_a_spec_refuses_an_unknown_role_or_a_missing_why_and_poses_rows_by_detail():
    from crlrepro.claims.spec import ClaimSpec, mathematics, out_of_reach

    with pytest.raises(ValueError, match="role 'maybe'"):
        ClaimSpec("k", "s", "value", role="maybe", why="w")
    with pytest.raises(ValueError, match="needs .*why"):
        ClaimSpec("k", "s", "value", rows=(("D1", "diagnostic", ""),))
    with pytest.raises(ValueError, match="has no why"):
        ClaimSpec("k", "s", "value", why="a claim needs no excuse")
    spec = ClaimSpec("k", "s", "direction", rows=(("D1-D2", "diagnostic", "nested"),))
    assert spec.posed("D1-D2") == ("diagnostic", "nested") and spec.posed("D4-D8") == ("claim", "")
    assert out_of_reach(spec, "ImageNet").posed() == ("out of reach", "ImageNet")
    assert mathematics(spec, "an identity").posed("D4-D8") == ("mathematics", "an identity")


def test_rows_out_of_reach_and_mathematics_are_shown_apart_with_their_why():
    from crlrepro.studies.registry import experiment

    summary = collect_summary(
        [
            table(row("C5", "verified", "identity"), row("C2", "reproduced", "rate")),
            table(
                row("S4", "not comparable", key="accuracy", claim="base"),
                row("S4", "reproduced", "direction", key="accuracy_order"),
            ),
        ]
    )
    assert summary["role"].tolist() == ["claim", "mathematics", "out of reach", "claim"]
    text = summary_markdown(summary)
    assert "All papers: 2 reproduced (of 2 claims)." in text
    assert "Out of reach here (not counted): 1 not comparable (of 1 rows out of reach)" in text
    reach = experiment("S4").claim("accuracy").why
    section = text[text.index("## Out of reach here") : text.index("## Mathematics checked")]
    assert "what would bring it into reach" in section and reach in section and "| base |" in section
    assert experiment("C5").claim("oce").why in text[text.index("## Mathematics checked") :]
    assert "| base |" not in text[: text.index("## Out of reach here")]
    caption = claims_caption("d", summary)
    assert "rows out of reach, not counted: 1 not comparable" in caption and "(value, out of reach)" in caption
    page = summary_html(summary)
    assert "<h2>Out of reach here</h2>" in page and "<h2>Mathematics checked</h2>" in page


def test_the_decided_table_counts_decided_claims_and_says_why_the_others_are_not():
    from crlrepro.claims.verdicts import RANGES_NOT_TRAINED, UNREPORTED_DECIDES
    from crlrepro.studies.summary import UNDECIDED, decided_table

    def row(experiment, verdict, reason="", power=""):
        return {
            "experiment": experiment,
            "claim_id": f"{experiment}.x",
            "claim": "c",
            "kind": "direction",
            "paper_value": np.nan,
            "measured": 0.0,
            "ci_low": 0.0,
            "ci_high": 0.0,
            "tolerance": "",
            "power": power,
            "verdict": verdict,
            "reason": reason,
            "role": "claim",
        }

    table = pd.DataFrame(
        [
            row("A1", "reproduced"),
            row("A2", "not comparable", "setting differs from the paper's: epochs"),
            row("A3", "not comparable", "the paper reports no number for it"),
            row("A4", "inconclusive", "neither", "…; 12 seeds would give 80% power to decide it (claim)"),
            row("A4", "inconclusive", "no interval", "no interval"),
            row("A2", "verified"),
            row("C3", "contradicted"),
            row("S1", "not comparable", "ν and n are undefined"),
            {**row("C1", "inconclusive"), "claim_id": "C1.monte_carlo.x", "role": "diagnostic"},
            # the rule for unreported settings: its points not trained; an unreported setting moving the verdict,
            # at the configured point or at one point of the ranges (which takes that point's category)
            row("A2", "not comparable", f"{RANGES_NOT_TRAINED} (…): lcgm.noise_x ∈ [0.25, 0.5]"),
            row("A2", "not comparable", f"{UNREPORTED_DECIDES}: the fit window moves it"),
            row("S2", "not comparable", f"not comparable at training.learning_rate = 0.003: {RANGES_NOT_TRAINED}: …"),
            row("S2", "not comparable", f"not comparable at lcgm.noise_x = 0.25: {UNREPORTED_DECIDES}: …"),
        ]
    )
    decided = decided_table(table).set_index("paper")
    assert list(decided.columns) == ["claims", "decided", *UNDECIDED]
    assert decided.loc[2].to_dict() == {
        "claims": 8,
        "decided": 2,
        "fragile": 0,
        "setting differs": 1,
        "ranges not trained": 1,
        "unreported setting decides": 1,
        "no paper number": 1,
        "other not comparable": 0,
        "more data would decide": 1,
        "other inconclusive": 1,
    }
    assert decided.loc[1].to_dict()["claims"] == 1 and decided.loc[1, "decided"] == 1  # C1's diagnostic not counted
    assert decided.loc[3, "other not comparable"] == 1
    assert decided.loc[3, "ranges not trained"] == 1 and decided.loc[3, "unreported setting decides"] == 1
    assert "| 2 | 8 | 2 | 0 | 1 | 1 | 1 | 1 | 0 | 1 | 1 |" in summary_markdown(table)
