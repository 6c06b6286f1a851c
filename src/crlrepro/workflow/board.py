"""The verdict board: every claim row once, the paper's value beside the measured value, interval and verdict at each
scale, the verdict shown with a colour and a symbol (so that it reads in grey and to a colour-blind reader), the reason
on demand. The same board three ways: HTML for the documentation site (a paper's board on its page, the headline on the
home page), a figure (claims by scales, coloured by verdict) for the README and the report, and the tidy table they are
drawn from (``board.csv``).

Mathematics in a statement or a reason is written between dollar signs in the summary (``$Σ_{i>D} λ_i$``); the HTML
marks those spans for KaTeX (:func:`math_html`), the plain forms drop the dollar signs (:func:`plain_math`).
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import pandas as pd

from crlrepro.claims.intervals import interval_text
from crlrepro.studies.registry import PAPERS, experiment

__all__ = [
    "INKS",
    "LABEL_CHARS",
    "VERDICT_MARKS",
    "board_figure",
    "board_scales",
    "contrast_ratio",
    "draw_board",
    "ink_on",
    "board_headline_markdown",
    "board_html",
    "math_html",
    "plain_math",
    "relative_luminance",
    "verdict_board",
]

# Symbol and colour per verdict word (Okabe–Ito colours: distinct for the common colour-vision deficiencies; the
# symbols alone tell the verdicts apart in grey).
VERDICT_MARKS = {
    "reproduced": ("✓", "#0072B2"),
    "contradicted": ("✗", "#D55E00"),
    "inconclusive": ("?", "#E69F00"),
    "not comparable": ("–", "#8C8C8C"),
    "verified": ("=", "#009E73"),
    "failed": ("≠", "#CC79A7"),
}
# $…$ as pymdownx.arithmatex and pandoc read it: no space just inside either dollar, no digit just after the closing one
_MATH = re.compile(r"\$(?!\s)([^$\n]+?)(?<!\s)\$(?!\d)")


def plain_math(text: str) -> str:
    """``text`` with the dollar signs around its mathematics dropped: ``tail sum $Σ_{i>D} λ_i$`` → ``tail sum
    Σ_{i>D} λ_i`` (the plain form of the CSV's text, for a terminal or a plain-text summary)."""
    return _MATH.sub(lambda m: m.group(1), str(text))


def math_html(text: str) -> str:
    """``text`` escaped for HTML, each ``$…$`` span marked for the site's KaTeX (``<span class="arithmatex">\\(…\\)
    </span>``, as pymdownx.arithmatex writes inline mathematics)."""
    out, last = [], 0
    text = str(text)
    for m in _MATH.finditer(text):
        out.append(html.escape(text[last : m.start()]))
        out.append(f'<span class="arithmatex">\\({html.escape(m.group(1))}\\)</span>')
        last = m.end()
    out.append(html.escape(text[last:]))
    return "".join(out)


def _number(value) -> str:
    return "" if pd.isna(value) else f"{float(value):.4g}"


def verdict_board(summaries: dict[str, pd.DataFrame], roles: tuple[str, ...] = ("claim",)) -> pd.DataFrame:
    """The board's table: one row per row of ``roles`` (claims by default) of any of ``summaries`` (keyed by scale,
    in column order), papers in the order 1, 2, 3 and the summary's order inside a paper; columns ``paper``,
    ``experiment``, ``claim_id``, ``claim``, ``role``, ``kind``, ``paper_value`` and, per scale, ``verdict (s)``,
    ``measured (s)``, ``interval (s)``, ``tolerance (s)``, ``power (s)``, ``reason (s)``, ``stability (s)`` (empty where
    that scale has no such row)."""
    if not summaries:
        raise ValueError("verdict_board needs at least one scale's summary")
    scales = list(summaries)
    tables = {}
    for scale, summary in summaries.items():
        missing = {"experiment", "claim_id", "claim", "kind", "role", "paper_value", "measured", "ci_low", "ci_high",
                   "tolerance", "power", "verdict", "reason"} - set(summary.columns)  # fmt: skip
        if missing:
            raise ValueError(f"the {scale} summary lacks the columns {sorted(missing)}")
        tables[scale] = summary[summary["role"].isin(roles)].set_index("claim_id")
    order = list(dict.fromkeys(c for s in scales for c in tables[s].index))
    rows = []
    for claim_id in order:
        first = next(tables[s].loc[claim_id] for s in scales if claim_id in tables[s].index)
        row = {
            "paper": experiment(first["experiment"]).paper,
            "experiment": first["experiment"],
            "claim_id": claim_id,
            "claim": first["claim"],
            "role": first["role"],
            "kind": first["kind"],
            "paper_value": _number(first["paper_value"]),
        }
        for s in scales:
            r = tables[s].loc[claim_id] if claim_id in tables[s].index else None
            row[f"verdict ({s})"] = "" if r is None else r["verdict"]
            row[f"measured ({s})"] = "" if r is None else _number(r["measured"])
            row[f"interval ({s})"] = "" if r is None else interval_text(r["ci_low"], r["ci_high"], r["power"])
            for column in ("tolerance", "power", "reason"):
                row[f"{column} ({s})"] = "" if r is None or pd.isna(r[column]) else str(r[column])
            # the stability rule's cell (a summary written before the column has none)
            stability = None if r is None or "stability" not in r.index else r["stability"]
            row[f"stability ({s})"] = "" if stability is None or pd.isna(stability) else str(stability)
        rows.append(row)
    board = pd.DataFrame(rows)
    board["_order"] = range(len(board))
    return board.sort_values(["paper", "_order"], kind="stable").drop(columns="_order").reset_index(drop=True)


def board_scales(board: pd.DataFrame) -> list[str]:
    """The scales of a board, in its column order."""
    return [c[len("verdict (") : -1] for c in board.columns if c.startswith("verdict (")]


def _fragile(verdict: str, stability: str) -> bool:
    return verdict in ("reproduced", "contradicted") and str(stability).startswith("fragile")


def _mark_html(verdict: str, stability: str = "") -> str:
    """The verdict's symbol and word; a decided verdict the stability rule calls fragile reads "✓ fragile"."""
    if not verdict:
        return '<span class="verdict verdict-none">not run</span>'
    symbol, _ = VERDICT_MARKS[verdict]
    slug = verdict.replace(" ", "-")
    mark = f'<span class="verdict-symbol" aria-hidden="true">{symbol}</span>'
    if _fragile(verdict, stability):
        title = html.escape(stability, quote=True)
        return f'<span class="verdict verdict-{slug} verdict-fragile" title="{title}">{mark} fragile ({verdict})</span>'
    return f'<span class="verdict verdict-{slug}">{mark} {verdict}</span>'


def board_html(board: pd.DataFrame, paper: int | None = None) -> str:
    """The board as an HTML table (class ``verdict-board``), of one paper or of all: a row per claim with its
    statement (and, on demand, its id and each scale's reason), the paper's value, and per scale the verdict (symbol
    and word), the measured value and its interval."""
    scales = board_scales(board)
    part = board if paper is None else board[board["paper"] == paper]
    head = "".join(f"<th>{html.escape(s)}</th>" for s in scales)
    lines = [
        '<div class="verdict-board-wrap"><table class="verdict-board">',
        f"<thead><tr><th>claim</th><th>paper</th>{head}</tr></thead>",
        "<tbody>",
    ]
    for r in part.to_dict("records"):
        reasons = "".join(
            f"<li><strong>{html.escape(s)}</strong>: {math_html(r[f'reason ({s})'])}"
            + "".join(
                f" <em>{name}</em>: {math_html(r[f'{name} ({s})'])}."
                for name in ("tolerance", "power", "stability")
                if r.get(f"{name} ({s})", "")
            )
            + "</li>"
            for s in scales
            if r[f"reason ({s})"]
        )
        claim = (
            f'<td class="board-claim" data-label="claim">{math_html(r["claim"])}'
            f"<details><summary><code>{html.escape(r['claim_id'])}</code> ({html.escape(r['kind'])}): why</summary>"
            f"<ul>{reasons}</ul></details></td>"
        )
        cells = "".join(
            f'<td class="board-scale" data-label="{html.escape(s)}">'
            f"{_mark_html(r[f'verdict ({s})'], r.get(f'stability ({s})', ''))}"
            f'<span class="board-value">{html.escape(r[f"measured ({s})"])} {html.escape(r[f"interval ({s})"])}</span></td>'
            for s in scales
        )
        lines.append(
            f'<tr data-claim="{html.escape(r["claim_id"])}">{claim}'
            f'<td class="board-paper" data-label="paper">{html.escape(r["paper_value"]) or "—"}</td>{cells}</tr>'
        )
    lines += ["</tbody></table></div>"]
    return "\n".join(lines)


def board_headline_markdown(board: pd.DataFrame, link=lambda paper: f"paper{paper}.md") -> str:
    """The board's headline: per paper (1, 2, 3) and scale, how many claims reproduced, contradicted, were
    inconclusive or not comparable, as symbol and count, with the decided share; each paper linking to its board."""
    from crlrepro.studies.summary import DECIDED  # here: the summary module loads scipy.stats; the site's build needs
    # it, the Snakefile (which imports this module through publish) does not

    scales = board_scales(board)
    lines = ["| paper | " + " | ".join(scales) + " |", "|---|" + "---|" * len(scales)]
    for paper in sorted(board["paper"].unique()):
        part = board[board["paper"] == paper]
        cells = []
        for s in scales:
            verdicts = part[f"verdict ({s})"]
            run = verdicts[verdicts != ""]
            stability = part.get(f"stability ({s})", pd.Series("", index=part.index))[verdicts != ""]
            fragile = pd.Series([_fragile(v, t) for v, t in zip(run, stability, strict=True)], index=run.index, dtype=bool)
            decided = int((run.isin(DECIDED) & ~fragile).sum())
            counts = " ".join(
                f"{VERDICT_MARKS[v][0]} {int(((run == v) & ~fragile).sum())}"
                for v in ("reproduced", "contradicted", "inconclusive", "not comparable")
            )
            counts += f" (fragile: {int(fragile.sum())})" if fragile.any() else ""
            cells.append(f"{counts} ({decided} of {len(run)} decided)" if len(run) else "not run")
        lines.append(f"| [{paper}: {PAPERS[paper].title}]({link(paper)}) | " + " | ".join(cells) + " |")
    legend = ", ".join(f"{symbol} {verdict}" for verdict, (symbol, _) in list(VERDICT_MARKS.items())[:4])
    return "\n".join(lines) + f"\n\n{legend}.\n"


def relative_luminance(colour: str) -> float:
    """WCAG 2's relative luminance of an sRGB colour ``#RRGGBB``: 0.2126 R + 0.7152 G + 0.0722 B of the linearised
    channels (c/12.92 at or below 0.04045, ((c + 0.055)/1.055)^2.4 above)."""
    channels = [int(colour.lstrip("#")[i : i + 2], 16) / 255 for i in (0, 2, 4)]
    r, g, b = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast_ratio(a: str, b: str) -> float:
    """WCAG 2's contrast ratio (L1 + 0.05)/(L2 + 0.05) of two colours, L1 the lighter's relative luminance."""
    high, low = sorted((relative_luminance(a), relative_luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


INKS = ("#FFFFFF", "#1A1A1A")


def ink_on(colour: str) -> str:
    """The symbol colour of the two :data:`INKS` with the higher contrast on ``colour`` (white on blue, near-black on
    amber: white on amber has 2.25:1, under WCAG AA's 4.5:1)."""
    return max(INKS, key=lambda ink: contrast_ratio(ink, colour))


# The board picture's row labels: the claim's id and the opening of its statement
LABEL_CHARS = 44


def draw_board(board: pd.DataFrame, title: str = "Verdicts by claim and scale"):
    """The board as a matplotlib figure: claims (rows, grouped by paper, each labelled with its id and the opening of
    its statement) by scales (columns), each cell coloured by its verdict and marked with its symbol in the ink of
    higher contrast (:func:`ink_on`); a fragile verdict's cell light and striped, its symbol dark. About 8 inches wide
    with the legend below, so that shown at a page's width its 8-point labels stay about 10 px tall."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch, Rectangle

    from crlrepro.studies.summary import short_text  # here: the summary module loads scipy.stats

    scales = board_scales(board)
    n = len(board)
    fig_height = 2.2 + 0.2 * (n + 2 * board["paper"].nunique())
    fig, ax = plt.subplots(figsize=(4.4 + 1.1 * len(scales), fig_height))
    y = 0.0
    ticks, labels = [], []
    for paper in sorted(board["paper"].unique()):
        ax.text(-0.05, y + 0.2, f"Paper {paper}", ha="right", va="center", fontsize=9, fontweight="bold")
        y += 1.0
        for r in board[board["paper"] == paper].to_dict("records"):
            for j, s in enumerate(scales):
                verdict = r[f"verdict ({s})"]
                symbol, colour = VERDICT_MARKS.get(verdict, ("", "#FFFFFF"))
                fragile = _fragile(verdict, r.get(f"stability ({s})", ""))
                if fragile:  # a light, striped cell in the verdict's colour, its symbol dark on it
                    ax.add_patch(Rectangle((j, y - 0.45), 0.96, 0.9, facecolor=colour, alpha=0.3, edgecolor="none"))
                    ax.add_patch(Rectangle((j, y - 0.45), 0.96, 0.9, fill=False, hatch="//", edgecolor=colour, linewidth=0))
                else:
                    ax.add_patch(Rectangle((j, y - 0.45), 0.96, 0.9, facecolor=colour, edgecolor="white"))
                ink = "#1a1a1a" if fragile else ink_on(colour)
                ax.text(j + 0.48, y, symbol, ha="center", va="center", fontsize=9, color=ink, fontweight="bold")
            ticks.append(y)
            labels.append(f"{r['claim_id']}: {short_text(plain_math(str(r['claim'])), LABEL_CHARS)}")
            y += 1.0
        y += 0.6
    ax.set_yticks(ticks, labels, fontsize=8)
    ax.set_xticks([j + 0.48 for j in range(len(scales))], scales, fontsize=9)
    ax.xaxis.tick_top()
    ax.set_xlim(0, len(scales))
    ax.set_ylim(y, -0.6)
    ax.tick_params(length=0)
    for spine in ax.spines.values():
        spine.set_visible(False)
    handles = [Patch(facecolor=c, label=f"{s} {v}") for v, (s, c) in list(VERDICT_MARKS.items())[:4]]
    handles.append(Patch(facecolor="#DDDDDD", edgecolor="#555555", hatch="//", label="light, striped: fragile"))
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=3, fontsize=8, frameon=False)
    ax.set_title(title, fontsize=10, pad=24)
    fig.tight_layout()
    return fig


def board_figure(board: pd.DataFrame, path: str | Path, title: str = "Verdicts by claim and scale") -> Path:
    """:func:`draw_board` written to ``path`` whole or not at all, as the pipeline writes its figures
    (crlrepro.runtime.artifacts.save_figure: no timestamp, so the same board gives the same bytes)."""
    import matplotlib.pyplot as plt

    from crlrepro.runtime.artifacts import save_figure

    fig = draw_board(board, title)
    try:
        save_figure(fig, [path], dpi=110)
    finally:
        plt.close(fig)
    return Path(path)
