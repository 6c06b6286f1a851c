"""MkDocs hooks: the pages' generated parts, read from the code and the published results at build time, so the
site cannot drift from either.

* ``<!-- claims-table:<paper> -->``: for each experiment of that paper, its registered rows (crlrepro.studies.registry:
  statement, kind, role, the config keys its comparability depends on, the values the summary leaves out) and, for
  every published scale (docs/results/<scale>/), that scale's figure and claims table.
* ``<!-- results:<scale> -->...<!-- /results -->``: the scale's headline and per-paper counts from its published
  summary.csv (crlrepro.workflow.publish.readme_blocks, the same text as the README's block).
* ``<!-- measured:<row>[@scale,...] -->``: that row's measured value, interval and verdict at each published scale
  (or at the scales named), from the published summary.csv (crlrepro.workflow.publish.measured_text): the prose
  quotes results only through it.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from crlrepro.studies.registry import experiments_of
from crlrepro.workflow.publish import measured_markers, published_scales, readme_blocks

DOCS = Path(__file__).resolve().parent
RESULTS = DOCS / "results"
_CLAIMS = re.compile(r"<!-- claims-table:(\d) -->")


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def claims_section(paper: int, page_dir: Path) -> str:
    """The generated part of a paper's page: each experiment's registered rows and its published results."""
    scales = published_scales(RESULTS)
    out = []
    for e in experiments_of(paper):
        out += [
            f"### {e.id}: {e.title}",
            "",
            f"In the paper: {e.section}. Rules {', '.join(f'`{r}`' for r in e.rules)}.",
            "",
            "| row | role | kind | statement | comparable when these keys are the paper's | values the summary leaves out |",
            "|---|---|---|---|---|---|",
        ]
        for c in e.claims:
            role = c.role if c.role == "claim" else f"{c.role}: {_cell(c.why)}"
            out.append(
                f"| `{c.key}` | {role} | {c.kind} | {_cell(c.statement)} | "
                f"{', '.join(f'`{k}`' for k in c.depends_on) or '—'} | {', '.join(f'`{k}`' for k in c.unreported) or '—'} |"
            )
        out.append("")
        for scale in scales:
            folder = RESULTS / scale
            table = folder / e.claims_table
            if table.is_file():
                out.append(
                    f"Published at the **{scale}** scale: [claims table]({_relative(table, page_dir)}) "
                    f"([summary]({_relative(folder / 'summary.md', page_dir)}))."
                )
                out.append("")
            if e.figure and (folder / "figures" / f"{e.figure}.png").is_file():
                out += [f"![{e.id} at the {scale} scale]({_relative(folder / 'figures' / (e.figure + '.png'), page_dir)})", ""]
    return "\n".join(out)


def _relative(path: Path, page_dir: Path) -> str:
    return Path(os.path.relpath(path, page_dir)).as_posix()


def on_page_markdown(markdown, page, config, files):
    page_dir = (DOCS / page.file.src_uri).parent
    markdown = _CLAIMS.sub(lambda m: claims_section(int(m.group(1)), page_dir), markdown)
    if "<!-- results:" in markdown:
        markdown, _ = readme_blocks(markdown, root=RESULTS)
    return measured_markers(markdown, root=RESULTS)
