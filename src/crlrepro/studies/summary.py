"""The summary: every experiment's claims gathered into ``results/summary.{csv,md,html}`` and the
report captions. Rendering only: the claims are decided in :mod:`crlrepro.claims.verdicts` and the
studies' claims modules; the order and the papers come from :mod:`crlrepro.studies.registry`.
"""

from __future__ import annotations

import html
import re

import numpy as np
import pandas as pd

from crlrepro.claims.intervals import interval_text
from crlrepro.claims.spec import ROLE_WHY
from crlrepro.claims.verdicts import (
    CLAIM_COLUMNS,
    RANGES_NOT_TRAINED,
    STABLE_MARGIN,
    UNREPORTED_DECIDES,
    VERDICTS,
    check_claims_table,
    is_fragile,
)
from crlrepro.studies.registry import EXPERIMENT_ORDER, PAPERS, experiment

__all__ = [
    "caption_problems",
    "caption_text",
    "claim_spec",
    "claims_caption",
    "claims_only",
    "collect_summary",
    "COLUMNS",
    "DECIDED",
    "decided_table",
    "DIAGNOSTIC_COLUMNS",
    "FULL_COLUMNS",
    "diagnostics_only",
    "posed_apart",
    "row_posing",
    "rst_text",
    "SUMMARY_COLUMNS",
    "summary_html",
    "summary_markdown",
    "UNDECIDED",
    "undecided_reason",
    "fragile_rows",
    "machine_text",
    "MAX_ROW_CHARS",
    "scale_scope",
    "SCALE_SCOPE",
    "short_text",
    "SHORT_CLAIM_CHARS",
    "summary_context",
    "verdict_counts",
]

# The summary's columns: a claims table's, with each row's role (claim or diagnostic, from the registry) after its kind.
SUMMARY_COLUMNS = CLAIM_COLUMNS[: CLAIM_COLUMNS.index("kind") + 1] + ["role"] + CLAIM_COLUMNS[CLAIM_COLUMNS.index("kind") + 1 :]


def claim_spec(experiment_id: str, claim_id: str):
    """The registry's spec of a row: its claim_id is ``<experiment>.<key>[.<detail>...]``."""
    prefix, _, rest = claim_id.partition(".")
    if prefix != experiment_id or not rest:
        raise ValueError(f"claim_id {claim_id!r} does not start with its experiment {experiment_id!r} and a claim key")
    return experiment(experiment_id).claim(rest.split(".")[0])


def row_posing(experiment_id: str, claim_id: str) -> tuple[str, str]:
    """(role, why) of a row, from its spec in the registry (:meth:`crlrepro.claims.spec.ClaimSpec.posed`)."""
    spec = claim_spec(experiment_id, claim_id)
    detail = claim_id.partition(".")[2].partition(".")[2]
    return spec.posed(detail)


def collect_summary(tables: list[pd.DataFrame]) -> pd.DataFrame:
    """Claims tables, each checked, papers in the order 1, 2, 3 and each paper's experiments in the registry's order
    (each table's rows in order), with each row's role from the registry (:data:`SUMMARY_COLUMNS`)."""
    table = pd.concat([check_claims_table(t) for t in tables], ignore_index=True)
    unknown = sorted(set(table["experiment"]) - set(EXPERIMENT_ORDER))
    if unknown:
        raise ValueError(f"unknown experiment identifiers {unknown}; the registry has {list(EXPERIMENT_ORDER)}")
    table.insert(
        CLAIM_COLUMNS.index("kind") + 1,
        "role",
        [row_posing(row.experiment, row.claim_id)[0] for row in table.itertuples(index=False)],
    )
    rank = (
        table["experiment"]
        .map(lambda e: (experiment(e).paper, EXPERIMENT_ORDER.index(e)))
        .map(lambda key: key[0] * len(EXPERIMENT_ORDER) + key[1])
    )
    return table.iloc[np.argsort(rank.to_numpy(), kind="stable")].reset_index(drop=True)


def claims_only(table: pd.DataFrame) -> pd.DataFrame:
    """The rows that test the paper (role ``claim``); a table without roles is all claims."""
    return table[table["role"] == "claim"] if "role" in table else table


def diagnostics_only(table: pd.DataFrame) -> pd.DataFrame:
    return posed_apart(table, "diagnostic")


def posed_apart(table: pd.DataFrame, role: str) -> pd.DataFrame:
    """The rows of one role shown apart from the claims (out of reach, mathematics, diagnostic)."""
    if role not in ROLE_WHY:
        raise ValueError(f"role {role!r} is not shown apart; those are {list(ROLE_WHY)}")
    return table[table["role"] == role] if "role" in table else table.iloc[:0]


def fragile_rows(table: pd.DataFrame) -> pd.Series:
    """Per row, whether its verdict is decided (reproduced or contradicted) and fragile under the stability rule
    (its ``stability`` cell; a summary written before the column has none: no row fragile)."""
    if "stability" not in table:
        return pd.Series(False, index=table.index)
    return table["verdict"].isin(("reproduced", "contradicted")) & table["stability"].map(is_fragile)


def verdict_counts(table: pd.DataFrame, noun: str = "claims") -> str:
    """``"3 reproduced, 1 contradicted, 2 fragile (1 reproduced, 1 contradicted), … (of 9 claims)"``: every verdict
    word that occurs, in VERDICTS order, over the rows given (pass :func:`claims_only` of a summary for the headline);
    a decided verdict that is fragile under the stability rule (:func:`fragile_rows`) is counted apart, not as
    decided."""
    fragile = fragile_rows(table)
    counts, apart = table.loc[~fragile, "verdict"].value_counts(), table.loc[fragile, "verdict"].value_counts()
    parts = [f"{counts[v]} {v}" for v in VERDICTS[:2] if v in counts]
    if fragile.any():
        parts.append(f"{int(fragile.sum())} fragile (" + ", ".join(f"{apart[v]} {v}" for v in VERDICTS if v in apart) + ")")
    parts += [f"{counts[v]} {v}" for v in VERDICTS[2:] if v in counts]
    return ", ".join(parts) + f" (of {len(table)} {noun})"


def _papers(table: pd.DataFrame):
    """(paper, its rows), papers in the order 1, 2, 3."""
    papers = table["experiment"].map(lambda e: experiment(e).paper)
    for number in sorted(dict.fromkeys(papers)):
        yield PAPERS[number], table[papers == number]


def _fmt(value) -> str:
    if isinstance(value, str):
        return value
    if value is None or not np.isfinite(value):
        return "—"
    return f"{value:.4g}"


# A row of a summary's table holds what a reader scans (the claim's opening, the numbers, the verdict); everything
# longer (the whole statement, tolerance, power, stability, reason) is on the row's own line below the table, so that
# no row is wider than a reader's view.
SHORT_CLAIM_CHARS = 90
MAX_ROW_CHARS = 400


def short_text(text: str, limit: int = SHORT_CLAIM_CHARS) -> str:
    """``text`` cut at a word before ``limit`` characters, with an ellipsis; whole where it fits."""
    text = " ".join(str(text).split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 1].rsplit(" ", 1)[0].rstrip(",;:(")
    return cut + "…"


def _stability(row) -> str:
    value = getattr(row, "stability", "")
    return value if isinstance(value, str) else ""


def _cells(row) -> list[str]:
    return [
        f"`{row.claim_id}`",
        short_text(row.claim),
        row.kind,
        _fmt(row.paper_value),
        _fmt(row.measured),
        interval_text(row.ci_low, row.ci_high, row.power, missing="—"),
        row.verdict,
        _stability(row).split(":", 1)[0],
    ]


COLUMNS = ["claim", "statement", "kind", "paper", "measured", "interval", "verdict", "stability"]


def _full_cells(row) -> list[str]:
    return [
        row.experiment,
        row.claim,
        row.kind,
        _fmt(row.paper_value),
        _fmt(row.measured),
        interval_text(row.ci_low, row.ci_high, row.power, missing="—"),
        row.tolerance,
        row.power,
        row.verdict,
        _stability(row),
        row.reason,
    ]


# The report's HTML summary: every column in its table (a browser wraps its cells)
FULL_COLUMNS = [
    "experiment", "claim", "kind", "paper", "measured", "interval", "tolerance", "power", "verdict", "stability", "reason"
]  # fmt: skip


def _details(row, role: str | None = None) -> str:
    """A row's line below its table: its whole statement, then tolerance, power, stability and reason (and, for a row
    shown apart, the registry's why under its role's heading, :data:`crlrepro.claims.spec.ROLE_WHY`)."""
    why = (ROLE_WHY[role], _why(row)) if role else ("", "")
    parts = [f"- `{row.claim_id}` ({row.experiment}): {' '.join(str(row.claim).split())}"]
    parts += [f"*{name}*: {' '.join(str(value).split())}" for name, value in (
        ("tolerance", row.tolerance), ("power", row.power), ("stability", _stability(row)), ("reason", row.reason),
        why) if value]  # fmt: skip
    return "; ".join(parts[:1] + [". ".join(parts[1:])]) if len(parts) > 1 else parts[0]


# What each shipped scale can and cannot decide: the first words of its summary.
SCALE_SCOPE = {
    "smoke": "checks the plumbing end to end in minutes (two seeds, short sweeps and trainings): it decides almost "
    "nothing, and its verdicts are not evidence about the papers; the default and recipe scales are",
    "default": "the laptop scale (its wall time: the README): its quadrature and exact rows decide at full "
    "precision, its trained rows on few seeds and short trainings, so many stay inconclusive, each saying what would "
    "decide it",
    "recipe": "the papers' stated training recipe where a 2-core CPU can run it (paper 2's as stated, paper 3's only in "
    "part, on Fashion-MNIST): the scale meant to decide the papers' claims within the settings its rows name; each "
    "row's verdict, power and reason say whether it did",
    "paper": "the papers' hyper-parameters, for a GPU or a cluster: where paper 3 runs on CIFAR-10 with its encoder",
    "fashion": "paper 3 alone on Fashion-MNIST (Debian's dataset-fashion-mnist): its rows only",
}


def scale_scope(scale: str) -> str:
    """What the scale ``scale`` can and cannot decide (:data:`SCALE_SCOPE`; a scale of one's own says so)."""
    return SCALE_SCOPE.get(
        scale, f"a scale of your own ({scale!r}): what it decides follows from its settings; each row's power says what "
        "would decide it"
    )  # fmt: skip


_CONTEXT = re.compile(
    r"^\*\*Scale:\*\* `(?P<scale>[^`]+)`.*\n\*\*Made by:\*\* commit `(?P<commit>[^`]*)` on (?P<machine>.+)\.$", re.M
)


def machine_text(machine: dict) -> str:
    """A machine record (crlrepro.workflow.publish.machine) in words: CPU, its kernels' instruction set, cores, GPU."""
    parts = [machine.get("cpu") or "an unnamed CPU"]
    if machine.get("cpu_capability"):
        parts.append(f"{machine['cpu_capability']} kernels")
    if machine.get("cpu_count"):
        parts.append(f"{machine['cpu_count']} CPUs")
    parts.append(f"GPU {machine['gpu']}" if machine.get("gpu") else "no GPU")
    return f"{parts[0]} ({', '.join(parts[1:])})"


def summary_context(markdown: str) -> dict | None:
    """The scale, commit and machine a summary's Markdown opens with (:func:`summary_markdown`), or None."""
    found = _CONTEXT.search(markdown)
    return None if found is None else found.groupdict()


def _markdown_cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


DIAGNOSTIC_COLUMNS = FULL_COLUMNS + ["why a diagnostic"]
# The rows shown apart, by role: the section's title, the count's noun, and what the section says of its rows.
_APART = {
    "out of reach": (
        "Out of reach here",
        "rows out of reach",
        "Rows whose paper number comes from data or a scale no machine here has (ImageNet accuracies, CLIP training "
        "steps): measured on what this machine has, shown with what would bring them into reach, and not counted "
        "above. They become claims at a scale that reaches them.",
    ),
    "mathematics": (
        "Mathematics checked",
        "checks of mathematics",
        "Identities and the paper's own arithmetic, checked on our numbers: verified or failed, never a reproduction "
        "of an experiment, and not counted above.",
    ),
    "diagnostic": (
        "Diagnostics",
        "diagnostics",
        "Diagnostics are our own checks, context numbers, checks of our simulator, rows the paper gives no "
        "number or statement for, and rows that cannot fail in their setting: they keep their verdicts but "
        "are not counted above; each says why it is a diagnostic.",
    ),
}


def _why(row) -> str:
    return row_posing(row.experiment, row.claim_id)[1]


DECIDED = ("reproduced", "contradicted", "verified", "failed")
# Why a claim is undecided, read from its verdict, reason and power (the decision functions' own words)
UNDECIDED = {
    "fragile": f"reproduced or contradicted, but fragile: its margin is under {STABLE_MARGIN:g} of its errors or a verdict "
    "with one seed left out differs, so another machine's rounding or one seed could move it",
    "setting differs": "not comparable: a key it depends on differs from the paper's setting",
    "ranges not trained": "not comparable: the rule for unreported settings needs points of their declared ranges that "
    "this scale does not train",
    "unreported setting decides": "not comparable: a setting or definition the paper does not report moves the verdict",
    "no paper number": "not comparable: the paper gives no number",
    "other not comparable": "not comparable for another stated reason",
    "more data would decide": "inconclusive: the row says how many seeds (or how much more data) would decide it",
    "other inconclusive": "inconclusive: no interval, or no amount of data planned at the observed effect",
}


def undecided_reason(row) -> str | None:
    """None for a decided claim; else its :data:`UNDECIDED` category (a fragile verdict is not decided)."""
    if row.verdict in DECIDED:
        return "fragile" if row.verdict in DECIDED[:2] and is_fragile(getattr(row, "stability", "")) else None
    if row.verdict == "not comparable":
        return _not_comparable_because(str(row.reason))
    return "more data would decide" if "would give 80% power" in str(row.power) else "other inconclusive"


def _not_comparable_because(reason: str) -> str:
    """The :data:`UNDECIDED` category of a not-comparable reason, from its opening (the words the decision functions
    open with: :data:`crlrepro.claims.verdicts.RANGES_NOT_TRAINED`, :data:`crlrepro.claims.verdicts.UNREPORTED_DECIDES`);
    a row not comparable at one point of its ranges ("not comparable at key = value: ...") takes that point's reason's."""
    if reason.startswith("not comparable at ") and ": " in reason:
        return _not_comparable_because(reason.partition(": ")[2])
    for opening, category in (
        ("setting differs", "setting differs"),
        (RANGES_NOT_TRAINED, "ranges not trained"),
        (UNREPORTED_DECIDES, "unreported setting decides"),
        ("the paper reports no number", "no paper number"),
    ):
        if reason.startswith(opening):
            return category
    return "other not comparable"


def decided_table(table: pd.DataFrame) -> pd.DataFrame:
    """Per paper: its claims, how many are decided (reproduced, contradicted, verified, failed) and why the others
    are not (:func:`undecided_reason`), one column per :data:`UNDECIDED` category."""
    claims = claims_only(table)
    rows = []
    for paper, mine in _papers(claims):
        why = pd.Series([undecided_reason(r) for r in mine.itertuples(index=False)], dtype=object)
        rows.append(
            {
                "paper": paper.number,
                "claims": len(mine),
                "decided": int(why.isna().sum()),
                **{name: int((why == name).sum()) for name in UNDECIDED},
            }
        )
    return pd.DataFrame(rows, columns=["paper", "claims", "decided", *UNDECIDED])


_HEADLINE_COLUMNS = (*VERDICTS[:2], "fragile", *VERDICTS[2:])


def summary_markdown(table: pd.DataFrame, context: dict | None = None) -> str:
    """The summary as Markdown: what made it (``context``: ``scale``, ``commit`` and ``machine``, in words) and what its
    scale can decide, the verdict count of the claims per paper, then one section per paper with one short row per
    claim and each row's details on its own line below, then the rows shown apart in sections of their own."""
    claims = claims_only(table)
    lines = ["# crlrepro: claim-by-claim summary", ""]
    if context:
        scale = context["scale"]
        lines += [
            f"**Scale:** `{scale}`: {scale_scope(scale)}.  ",
            f"**Made by:** commit `{context['commit']}` on {context['machine']}.",
            "",
        ]
    lines += [
        f"All papers: {verdict_counts(claims)}. The claim rows are this scale's: a claim posed once per point of a sweep "
        "(an m, a γ, a pair of variants) is posed at the points its config trains, so another scale may count other "
        "rows (the scales side by side: docs/scales.md).",
        "",
        "| paper | " + " | ".join(_HEADLINE_COLUMNS) + " |",
        "|---|" + "---|" * len(_HEADLINE_COLUMNS),
    ]
    for paper, rows in _papers(claims):
        fragile = fragile_rows(rows)
        counts = rows.loc[~fragile, "verdict"].value_counts()
        cells = [str(int(fragile.sum())) if v == "fragile" else str(counts.get(v, 0)) for v in _HEADLINE_COLUMNS]
        lines.append(f"| {paper.number} | " + " | ".join(cells) + " |")
    if fragile_rows(claims).any():
        lines += ["", f"*fragile*: {UNDECIDED['fragile']} (docs/claims.md, the stability rule); not counted as decided."]
    if (claims["kind"] == "identity").any():  # identities are posed apart (mathematics) unless a claim is one
        lines += [
            "",
            "Identities (`verified` / `failed`) check the paper's mathematics on our numbers; they are not "
            "reproductions of its experiments.",
        ]
    decided = decided_table(table)
    if len(decided):
        lines += [
            "",
            "Decided claims per paper, and why the others are not:",
            "",
            "| " + " | ".join(decided.columns) + " |",
            "|" + "---|" * len(decided.columns),
        ]
        lines += ["| " + " | ".join(str(v) for v in row) + " |" for row in decided.itertuples(index=False)]
        lines += ["", "; ".join(f"*{name}*: {meaning}" for name, meaning in UNDECIDED.items()) + "."]
    for role, (title, noun, _) in _APART.items():
        rows = posed_apart(table, role)
        if len(rows):
            lines += ["", f"{title} (not counted): {verdict_counts(rows, noun)}, below the papers."]
    for paper, rows in _papers(claims):
        lines += [
            "",
            f"## Paper {paper.number}: {paper.title} ({paper.venue})",
            "",
            f"{verdict_counts(rows)}.",
            "",
        ]
        lines += _table_and_details(rows)
    for role, (title, noun, note) in _APART.items():
        rows = posed_apart(table, role)
        if not len(rows):
            continue
        lines += ["", f"## {title}", "", note, "", f"{verdict_counts(rows, noun)}.", ""]
        lines += _table_and_details(rows, role)
    return "\n".join(lines) + "\n"


def _table_and_details(rows: pd.DataFrame, role: str | None = None) -> list[str]:
    """Rows as a table of :data:`COLUMNS` (each row short: :data:`SHORT_CLAIM_CHARS` of its statement), then each
    row's details on a line of its own (:func:`_details`)."""
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    lines += ["| " + " | ".join(_markdown_cell(c) for c in _cells(row)) + " |" for row in rows.itertuples(index=False)]
    lines += ["", "Each row in full:", ""]
    lines += [_details(row, role) for row in rows.itertuples(index=False)]
    return lines


def rst_text(text: str) -> str:
    """``text`` as literal reStructuredText (inline markup characters escaped)."""
    for char in "\\*`|_[]":
        text = text.replace(char, "\\" + char)
    return text


# A caption template names what its figure draws as [[text]]: a panel title, axis label, legend entry or annotation
# of the figure (crlrepro.runtime.artifacts.figure_texts), checked when the caption is written; panels are named (a), (b), ...
_DRAWN = re.compile(r"\[\[(.+?)\]\]", re.S)
_PANELS = re.compile(r"\(([a-h](?:\s*[,–-]\s*[a-h])*)\)")


_MATH = {
    "alpha": "α",
    "beta": "β",
    "gamma": "γ",
    "delta": "δ",
    "epsilon": "ε",
    "lambda": "λ",
    "mu": "μ",
    "nu": "ν",
    "pi": "π",
    "sigma": "σ",
    "tau": "τ",
    "leq": "≤",
    "geq": "≥",
    "sum": "Σ",
    "infty": "∞",
    "cdot": "·",
}


def _plain(text: str) -> str:
    """Text as a reader sees it in a figure: mathtext's $ and braces dropped, its Greek letters and relations
    (\\mu, \\leq) as their characters, other commands (\\hat, \\mathcal) dropped."""
    text = re.sub(r"\\([A-Za-z]+) ?", lambda m: _MATH.get(m.group(1), ""), text.replace("$", ""))
    return " ".join(text.replace("{", "").replace("}", "").lower().split())


def _panel_letters(text: str) -> set[str]:
    letters = set()
    for group in _PANELS.findall(text):
        for part in re.split(r"\s*,\s*", group):
            ends = re.split(r"\s*[–-]\s*", part)
            letters |= {chr(c) for c in range(ord(ends[0]), ord(ends[-1]) + 1)}
    return letters


def caption_problems(template: str, drawn: dict) -> list[str]:
    """What a caption ``template`` says its figure draws and the figure does not (``drawn``: its
    :func:`crlrepro.runtime.artifacts.figure_texts`): each [[text]] must occur in one of the figure's texts (compared as
    plain text), and each panel the caption names, (a) or (c, d) or (e–h), must be a panel whose title starts so."""
    texts = [_plain(t) for t in drawn.get("texts", [])]
    problems = [
        f"[[{name}]] is not drawn (no title, axis label, legend entry or annotation holds it)"
        for name in _DRAWN.findall(template)
        if not any(_plain(name) in t for t in texts)
    ]
    titled = {m.group(1) for title in drawn.get("panels", []) if (m := re.match(r"\(([a-h])\)", title))}
    problems += [
        f"panel ({letter}) is named but the figure has no panel titled ({letter})"
        for letter in sorted(_panel_letters(_DRAWN.sub("", template)) - titled)
    ]
    return problems


def caption_text(template: str) -> str:
    """A caption template as the reader sees it: [[text]] marks removed."""
    return _DRAWN.sub(lambda m: m.group(1), template)


def claims_caption(description: str, claims: pd.DataFrame, provenance: dict | None = None, list_claims: bool = True) -> str:
    """A report caption: ``description`` (the figure and what the paper claims), the verdict count,
    then (``list_claims``) claim by claim what this run measured (interval in brackets), the paper's
    value, the verdict and its reason, then the run's ``provenance`` when given.
    reStructuredText, wrapped so that the report's Jinja pass leaves it as it is."""
    lines = [caption_text(description).rstrip(), "", "{% raw %}"]
    tested = claims_only(claims)
    if len(claims):
        extra = "".join(
            f"; {noun}, not counted: {verdict_counts(rows, noun)}"
            for role, (_, noun, _) in _APART.items()
            if len(rows := posed_apart(claims, role))
        )
        lines += [f"**This run:** {verdict_counts(tested)}{extra}.", ""]
    for row in claims.itertuples(index=False) if list_claims else ():
        paper = "" if not np.isfinite(row.paper_value) else f"; paper {_fmt(row.paper_value)}"
        role = "" if getattr(row, "role", "claim") == "claim" else f", {row.role}"
        lines.append(
            f"- {row.experiment} ({row.kind}{role}), {rst_text(row.claim)}: measured {_fmt(row.measured)} "
            f"[{_fmt(row.ci_low)}, {_fmt(row.ci_high)}]{paper}: **{row.verdict}**, {rst_text(str(row.reason))}"
        )
    if provenance:
        packages = provenance.get("packages", {})
        lines += [
            "",
            f"**Provenance:** config {provenance.get('config_hash')}, commit "
            f"{rst_text(str(provenance.get('git_commit')))}, device {provenance.get('device')}; "
            + ", ".join(f"{name} {version}" for name, version in sorted(packages.items()))
            + ".",
        ]
    lines.append("{% endraw %}")
    return "\n".join(lines) + "\n"


def summary_html(table: pd.DataFrame) -> str:
    """The summary as a self-contained HTML page (for the report), laid out as :func:`summary_markdown`."""
    claims = claims_only(table)
    body = [f"<p>All papers: {html.escape(verdict_counts(claims))}.</p>"]
    sections = [
        (f"Paper {paper.number}: {html.escape(paper.title)} ({paper.venue})", rows, FULL_COLUMNS, None)
        for paper, rows in _papers(claims)
    ]
    for role, (title, noun, note) in _APART.items():
        rows = posed_apart(table, role)
        if len(rows):
            body.append(f"<p>{html.escape(title)} (not counted): {html.escape(verdict_counts(rows, noun))}.</p>")
            sections.append((title, rows, FULL_COLUMNS + [ROLE_WHY[role]], (noun, note)))
    for title, rows, columns, why in sections:
        body += [
            f"<h2>{title}</h2>",
            f"<p>{html.escape(why[1])}</p>" if why else "",
            f"<p>{html.escape(verdict_counts(rows, why[0] if why else 'claims'))}.</p>",
            "<table><thead><tr>" + "".join(f"<th>{html.escape(c)}</th>" for c in columns) + "</tr></thead><tbody>",
        ]
        for row in rows.itertuples(index=False):
            verdict_class = str(row.verdict).replace(" ", "-")
            cells = [*_full_cells(row), _why(row)] if why else _full_cells(row)
            body.append(f'<tr class="{verdict_class}">' + "".join(f"<td>{html.escape(str(c))}</td>" for c in cells) + "</tr>")
        body.append("</tbody></table>")
    colours = {
        "reproduced": "#15803d",
        "verified": "#15803d",
        "contradicted": "#b91c1c",
        "failed": "#b91c1c",
        "inconclusive": "#b45309",
        "not-comparable": "#6b7280",
    }
    style = "".join(f".{name} td:nth-child(9){{color:{colour}}}" for name, colour in colours.items())
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html><head><meta charset="utf-8"><title>crlrepro summary</title>',
            "<style>body{font-family:sans-serif;font-size:13px}table{border-collapse:collapse}"
            f"td,th{{border:1px solid #ccc;padding:2px 6px;text-align:left}}{style}</style>",
            "</head><body>",
            "<h1>crlrepro: claim-by-claim summary</h1>",
            *body,
            "</body></html>",
            "",
        ]
    )
