"""The summary: every experiment's claims gathered into ``results/summary.{csv,md,html}`` and the
report captions. Rendering only: the claims are decided in :mod:`crlrepro.verdicts` and the
papers' claims modules; the order and the papers come from :mod:`crlrepro.registry`.
"""

from __future__ import annotations

import html

import numpy as np
import pandas as pd

from crlrepro.registry import EXPERIMENT_ORDER, PAPERS, experiment
from crlrepro.verdicts import VERDICTS, check_claims_table


def collect_summary(tables: list[pd.DataFrame]) -> pd.DataFrame:
    """Claims tables, each checked, in the registry's order of experiments (each table's rows in order)."""
    table = pd.concat([check_claims_table(t) for t in tables], ignore_index=True)
    unknown = sorted(set(table["experiment"]) - set(EXPERIMENT_ORDER))
    if unknown:
        raise ValueError(f"unknown experiment identifiers {unknown}; the registry has {list(EXPERIMENT_ORDER)}")
    rank = table["experiment"].map(EXPERIMENT_ORDER.index)
    return table.iloc[np.argsort(rank.to_numpy(), kind="stable")].reset_index(drop=True)


def verdict_counts(table: pd.DataFrame) -> str:
    """``"3 reproduced, 1 contradicted, … (of 9 claims)"``: every verdict word that occurs, in VERDICTS order."""
    counts = table["verdict"].value_counts()
    return ", ".join(f"{counts[v]} {v}" for v in VERDICTS if v in counts) + f" (of {len(table)} claims)"


def _papers(table: pd.DataFrame):
    """(paper, its rows) in the registry's order."""
    papers = table["experiment"].map(lambda e: experiment(e).paper)
    for number in dict.fromkeys(papers):
        yield PAPERS[number], table[papers == number]


def _fmt(value) -> str:
    if isinstance(value, str):
        return value
    if value is None or not np.isfinite(value):
        return "—"
    return f"{value:.4g}"


def _cells(row) -> list[str]:
    return [row.experiment, row.claim, row.kind, _fmt(row.paper_value), _fmt(row.measured),
            f"[{_fmt(row.ci_low)}, {_fmt(row.ci_high)}]", row.tolerance, row.power, row.verdict, row.reason]


COLUMNS = ["experiment", "claim", "kind", "paper", "measured", "interval", "tolerance", "power", "verdict", "reason"]


def _markdown_cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def summary_markdown(table: pd.DataFrame) -> str:
    """The summary as Markdown: the verdict count per paper at the top, then one section per paper
    with one row per claim."""
    lines = ["# crlrepro: claim-by-claim summary", "", f"All papers: {verdict_counts(table)}.", "",
             "| paper | " + " | ".join(VERDICTS) + " |", "|---|" + "---|" * len(VERDICTS)]
    counts = {paper.number: rows["verdict"].value_counts() for paper, rows in _papers(table)}
    for paper, _ in _papers(table):
        lines.append(f"| {paper.number} | " + " | ".join(str(counts[paper.number].get(v, 0)) for v in VERDICTS) + " |")
    lines += ["", "Identities (`verified` / `failed`) check our own code and mathematics; they are not reproductions."]
    for paper, rows in _papers(table):
        lines += ["", f"## Paper {paper.number}: {paper.title} ({paper.venue})", "", f"{verdict_counts(rows)}.", "",
                  "| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
        lines += ["| " + " | ".join(_markdown_cell(c) for c in _cells(row)) + " |" for row in rows.itertuples(index=False)]
    return "\n".join(lines) + "\n"


def rst_text(text: str) -> str:
    """``text`` as literal reStructuredText (inline markup characters escaped)."""
    for char in "\\*`|_[]":
        text = text.replace(char, "\\" + char)
    return text


def claims_caption(description: str, claims: pd.DataFrame, provenance: dict | None = None,
                   list_claims: bool = True) -> str:
    """A report caption: ``description`` (the figure and what the paper claims), the verdict count,
    then (``list_claims``) claim by claim what this run measured (interval in brackets), the paper's
    value, the verdict and its reason, then the run's ``provenance`` when given.
    reStructuredText, wrapped so that the report's Jinja pass leaves it as it is."""
    lines = [description.rstrip(), "", "{% raw %}"]
    if len(claims):
        lines += [f"**This run:** {verdict_counts(claims)}.", ""]
    for row in claims.itertuples(index=False) if list_claims else ():
        paper = "" if not np.isfinite(row.paper_value) else f"; paper {_fmt(row.paper_value)}"
        lines.append(f"- {row.experiment} ({row.kind}), {rst_text(row.claim)}: measured {_fmt(row.measured)} "
                     f"[{_fmt(row.ci_low)}, {_fmt(row.ci_high)}]{paper}: **{row.verdict}**, {rst_text(str(row.reason))}")
    if provenance:
        packages = provenance.get("packages", {})
        lines += ["", f"**Provenance:** config {provenance.get('config_hash')}, commit "
                      f"{rst_text(str(provenance.get('git_commit')))}, device {provenance.get('device')}; "
                  + ", ".join(f"{name} {version}" for name, version in sorted(packages.items())) + "."]
    lines.append("{% endraw %}")
    return "\n".join(lines) + "\n"


def summary_html(table: pd.DataFrame) -> str:
    """The summary as a self-contained HTML page (for the report), laid out as :func:`summary_markdown`."""
    body = [f"<p>All papers: {html.escape(verdict_counts(table))}.</p>"]
    for paper, rows in _papers(table):
        body += [f"<h2>Paper {paper.number}: {html.escape(paper.title)} ({paper.venue})</h2>",
                 f"<p>{html.escape(verdict_counts(rows))}.</p>",
                 "<table><thead><tr>" + "".join(f"<th>{c}</th>" for c in COLUMNS) + "</tr></thead><tbody>"]
        for row in rows.itertuples(index=False):
            verdict_class = str(row.verdict).replace(" ", "-")
            body.append(f'<tr class="{verdict_class}">' + "".join(f"<td>{html.escape(str(c))}</td>" for c in _cells(row)) + "</tr>")
        body.append("</tbody></table>")
    colours = {"reproduced": "#15803d", "verified": "#15803d", "contradicted": "#b91c1c", "failed": "#b91c1c",
               "inconclusive": "#b45309", "not-comparable": "#6b7280"}
    style = "".join(f".{name} td:nth-child(9){{color:{colour}}}" for name, colour in colours.items())
    return "\n".join([
        "<!DOCTYPE html>", '<html><head><meta charset="utf-8"><title>crlrepro summary</title>',
        "<style>body{font-family:sans-serif;font-size:13px}table{border-collapse:collapse}"
        f"td,th{{border:1px solid #ccc;padding:2px 6px;text-align:left}}{style}</style>",
        "</head><body>", "<h1>crlrepro: claim-by-claim summary</h1>", *body, "</body></html>", ""])
