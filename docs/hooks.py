"""MkDocs hooks: the pages' generated parts, read from the code and the published results at build time, so the
site cannot drift from either.

* ``<!-- claims-table:<paper> -->``: for each experiment of that paper, its registered rows (crlrepro.studies.registry:
  statement, kind, role, the config keys its comparability depends on, the values the summary leaves out) and, for
  every published scale (docs/results/<scale>/), that scale's figure and claims table.
* ``<!-- results:<scale> -->...<!-- /results -->``: the scale's headline and per-paper counts from its published
  summary.csv (crlrepro.workflow.publish.readme_blocks, the same text as the README's block).
* ``<!-- board-headline -->``: per paper and published scale, the verdict counts of its claims, each paper linking to
  its board (crlrepro.workflow.board), and the board figure (docs/results/board.png, `crlrepro update-readme`).
* A published summary's page (``results/<scale>/summary.md``) is shown as the site lays it out: the headline, then
  each paper's claims and the rows shown apart as boards of that scale (verdict beside the claim, the reason, kind,
  tolerance and power on demand); the Markdown file itself stays the plain-text summary the pipeline wrote.
* ``<!-- measured:<row>[@scale,...] -->``: that row's measured value, interval and verdict at each published scale
  (or at the scales named), from the published summary.csv (crlrepro.workflow.publish.measured_text): the prose
  quotes results only through it.
"""

from __future__ import annotations

import itertools
import os
import re
from pathlib import Path

from crlrepro.studies.registry import PAPERS, ROLES, experiments_of
from crlrepro.workflow.board import board_headline_markdown, board_html, verdict_board
from crlrepro.workflow.mathtext import mark_display_math, mark_math_html
from crlrepro.workflow.publish import (
    ROLE_TITLES,
    measured_markers,
    published_scales,
    read_published_table,
    readme_block,
    readme_blocks,
)

DOCS = Path(__file__).resolve().parent
RESULTS = DOCS / "results"
_CLAIMS = re.compile(r"^<!-- claims-table:(\d) -->$", re.M)  # on a line of its own (prose may name the marker)
_SUMMARY_PAGE = re.compile(r"results/([a-z][a-z0-9_-]{0,31})/summary\.md")


def _board(scales):
    """The claims' board of the published ``scales``, each summary checked against its provenance."""
    return verdict_board({s: read_published_table(s, "summary.csv", RESULTS) for s in scales})


def _cell(text: str) -> str:
    # a Markdown table cell: pipes escaped, and underscores and stars, so that λ_{K+1} … x_i or L* … E* is never
    # read as emphasis
    return " ".join(str(text).split()).replace("|", "\\|").replace("_", "\\_").replace("*", "\\*")


def claims_section(paper: int, page_dir: Path) -> str:
    """The generated part of a paper's page: its verdict board (every claim once, at every published scale), then for
    each experiment its registered rows and its figure, one tab per published scale."""
    scales = published_scales(RESULTS)
    out = []
    if scales:
        out += [
            "## Verdict board",
            "",
            "Every claim of the paper once: the paper's value, and at each published scale the verdict, the measured "
            "value and its interval. *why* opens each scale's reason, tolerance and power. The rows shown apart "
            "(out of reach here, mathematics checked, diagnostics) are in each scale's summary.",
            "",
            board_html(_board(scales), paper),
            "",
        ]
    for e in experiments_of(paper):
        out += [
            f"### {e.id}: {e.title}",
            "",
            f"In the paper: {e.section}. Rules {', '.join(f'`{r}`' for r in e.rules)}.",
            "",
            "| row | kind | statement | comparable when these keys are the paper's; values the summary leaves out |",
            "|---|---|---|---|",
        ]
        for c in e.claims:
            role = "" if c.role == "claim" else f" *({c.role}: {_cell(c.why)})*"
            keys = ", ".join(f"`{k}`" for k in c.depends_on) or "—"
            unreported = ", ".join(f"`{k}`" for k in c.unreported)
            out.append(
                f"| `{c.key}` | {c.kind} | {_cell(c.statement)}{role} | {keys}"
                + (f"; left out: {unreported}" if unreported else "")
                + " |"
            )
        out.append("")
        links = []
        for scale in scales:
            folder = RESULTS / scale
            table = folder / e.claims_table
            if table.is_file():
                links.append(
                    f"**{scale}**: [claims table]({_relative(table, page_dir)}), "
                    f"[summary]({_relative(folder / 'summary.md', page_dir)})"
                )
        if links:
            out += ["Published: " + "; ".join(links) + ".", ""]
        figures = [s for s in scales if e.figure and (RESULTS / s / "figures" / f"{e.figure}.png").is_file()]
        for scale in figures:
            src = _relative(RESULTS / scale / "figures" / (e.figure + ".png"), page_dir)
            out += [f'=== "{scale}"', "", f"    [![{e.id} at the {scale} scale]({src})]({src})", ""]
        if figures:
            out += [figure_caption(e.caption), ""]
    return "\n".join(out)


def figure_caption(template: str) -> str:
    """The caption the Snakemake report gives the figure (``workflow/report/<template>.rst``, its [[drawn]] marks
    removed: crlrepro.studies.summary.caption_text), as Markdown under the figure's tabs."""
    from crlrepro.studies.summary import caption_text  # here: it loads scipy.stats, which only this part of the build needs

    text = caption_text((DOCS.parent / "workflow" / "report" / f"{template}.rst").read_text())
    text = " ".join(text.replace("``", "`").split())
    return f"{text} *(One tab per published scale; click the figure for its full size.)*"


def summary_page(scale: str) -> str:
    """A published summary as the site shows it: the headline and per-paper counts, then each paper's claims as a
    board of this scale, then the rows shown apart, each role a board."""
    summary = read_published_table(scale, "summary.csv", RESULTS)
    out = [
        f"# crlrepro: the {scale} scale, claim by claim",
        "",
        f"Read from [`docs/results/{scale}/summary.csv`](summary.csv) (the pipeline's plain-text summary beside it is "
        f"`summary.md`; the same claims at every published scale: each paper page's verdict board). *why* opens a "
        "row's reason, tolerance and power.",
        "",
        readme_block(summary, scale),
    ]
    claims = verdict_board({scale: summary})
    for paper in sorted(claims["paper"].unique()):
        out += [f"## Paper {paper}: {PAPERS[paper].title}", "", board_html(claims, paper), ""]
    for role in ROLES:
        if role == "claim":
            continue
        part = verdict_board({scale: summary}, roles=(role,))
        if len(part):
            out += [f"## {ROLE_TITLES[role]}", "", board_html(part), ""]
    return "\n".join(out)


def headline(page_dir: Path) -> str:
    scales = published_scales(RESULTS)
    if not scales:
        return "No scale is published yet."
    text = board_headline_markdown(_board(scales), link=lambda p: _relative(DOCS / f"paper{p}.md", page_dir))
    figure = DOCS / "results" / "board.png"
    if figure.is_file():
        src = _relative(figure, page_dir)
        # on a phone the picture's rows would be unreadable: the papers' HTML boards instead (assets/site.css)
        papers = ", ".join(f"[paper {p}]({_relative(DOCS / f'paper{p}.md', page_dir)})" for p in sorted(PAPERS))
        text += (
            f'\n<div class="board-picture" markdown>\n[![Every claim\'s verdict at each published scale]({src})]({src})\n'
            f"</div>\n<div class=\"board-phone\" markdown>\nEvery claim's verdict at each published scale: each paper's board "
            f"({papers}).\n</div>\n"
        )
    return text


def _relative(path: Path, page_dir: Path) -> str:
    return Path(os.path.relpath(path, page_dir)).as_posix()


def on_page_markdown(markdown, page, config, files):
    page_dir = (DOCS / page.file.src_uri).parent
    summary = _SUMMARY_PAGE.fullmatch(page.file.src_uri)
    if summary and summary.group(1) in published_scales(RESULTS):
        page.meta.setdefault("hide", ["toc"])
        return summary_page(summary.group(1))
    if "<!-- board-headline -->" in markdown:
        markdown = markdown.replace("<!-- board-headline -->", headline(page_dir))
    if _CLAIMS.search(markdown):
        page.meta.setdefault("hide", ["toc"])
    markdown = _CLAIMS.sub(lambda m: claims_section(int(m.group(1)), page_dir), markdown)
    if "<!-- results:" in markdown:
        markdown, _ = readme_blocks(markdown, root=RESULTS)
    return measured_markers(markdown, root=RESULTS)


# A docstring's cross-reference as Markdown leaves it: the role, then the name as code (:func:`decide_value`).
_ROLE = re.compile(r":(?:func|class|data|meth|attr|mod|obj|exc):<code>~?([A-Za-z_][A-Za-z0-9_.]*?)(?:\(\))?</code>")
_ANCHOR = re.compile(r'\bid="(crlrepro(?:\.[A-Za-z_][A-Za-z0-9_]*)+)"')


def _common_prefix(a: list[str], b: list[str]) -> int:
    return sum(1 for _ in itertools.takewhile(lambda pair: pair[0] == pair[1], zip(a, b, strict=False)))


def link_roles(html: str) -> str:
    """The docstrings' cross-references (``:func:`name```, ``:data:``, ``:class:``, ``:mod:``, ``:meth:``,
    ``:attr:``) as links to the object's entry on the same page where one object of the page is named so (its full
    path, or a path ending in ``.name``; of several, the one nearest the reference in the module tree), else as plain
    code: never the role's literal text."""
    starts = [(m.start(), m.group(1)) for m in _ANCHOR.finditer(html)]
    anchors = [name for _, name in starts]

    def owner(position: int) -> str:  # the object whose entry holds the reference: the last anchor before it
        before = [name for start, name in starts if start < position]
        return before[-1] if before else ""

    def replace(match) -> str:
        name = match.group(1)
        found = [a for a in anchors if a == name or a.endswith("." + name)]
        if len(found) > 1:  # the candidate sharing the longest module path with the docstring's own object
            here = owner(match.start()).split(".")
            shared = [_common_prefix(here, a.split(".")) for a in found]
            best = max(shared)
            found = [a for a, n in zip(found, shared, strict=True) if n == best]
        code = f"<code>{name}</code>"
        return f'<a href="#{found[0]}">{code}</a>' if len(found) == 1 else code

    return _ROLE.sub(replace, html)


def on_page_content(html, page, config, files):
    """Every formula written in the plain form (crlrepro.workflow.mathtext) marked for the site's KaTeX: a docstring's
    displayed formula (a preformatted block that reads as mathematics) as display mathematics, the rest inline; the
    docstrings' cross-references as links (:func:`link_roles`)."""
    return mark_math_html(mark_display_math(link_roles(html)))
