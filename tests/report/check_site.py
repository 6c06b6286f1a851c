"""Open every page of the built documentation site in headless Chromium, at a desktop and a phone width, and say what a
reader would trip on.

    python tests/report/check_site.py site --out results/site_screenshots

For each page (every ``index.html`` under the site) and each width (1280 and 390 px): tables wider than their page
(the table, or its scroll wrapper, scrolls sideways; or the page itself does), TeX source shown as text (a backslash
command, ``_{``/``^{``, ``_(``/``^(``, or ``$…$`` in a text node outside code and outside rendered mathematics), console
and page errors, images that did not load, mathematics set wrong (a star on the line as the operator ∗ where a raised
star was meant, a name of capitals before a bracket set as an italic product, a power such as ``2^a`` left as text), an
element wider than its column that nothing scrolls, a page too tall to shoot, and, on a paper page, whether its verdict
board is there and each board row shows its verdict inside the screen's width. Writes one screenshot per page kind
and width, prints the counts, exits 1
on any problem. Needs Playwright (Python) and a Chromium (Debian's ``chromium``, or CHROMIUM=/path); nothing is
downloaded, and the site is served from this machine only.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import sys
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from render_report import CHROMIUM_FLAGS, chromium_path  # noqa: E402

WIDTHS = (1280, 390)
PAPER_PAGES = ("paper1/", "paper2/", "paper3/")
# No clock decides the check: a page on a busy machine takes as long as it takes (a full-page shot of a paper page sets
# every formula again at the new size, 14-18 s idle, minutes under load). What it does is bounded instead: a page taller
# than this is reported (no reader scrolls through it; the longest today, the library reference on a phone, is about
# a third of it) and not shot.
MAX_PAGE_PX = 600_000

# Run in the page: what overflows, what TeX shows as text, which images are broken, where the board's verdicts sit.
_INSPECT = r"""
() => {
  const tex = /\\[A-Za-z]+|[_^]\{|[_^]\(|\$[^$\s][^$]*\$|[A-Za-z0-9)]\^[A-Za-z0-9({−-]/;
  const skip = el => el.closest('code, pre, kbd, script, style, .katex, .arithmatex, textarea, .md-search');
  const walker = document.createTreeWalker(document.querySelector('article') || document.body, NodeFilter.SHOW_TEXT);
  const fragments = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (!node.parentElement || skip(node.parentElement)) continue;
    const text = node.textContent;
    if (tex.test(text)) fragments.push(text.trim().slice(0, 120));
  }
  const width = document.documentElement.clientWidth;
  const overflowing = [];
  for (const table of document.querySelectorAll('article table')) {
    if (table.offsetParent === null) continue;  // in a closed tab or details: not on the screen
    const wrap = table.closest('.md-typeset__scrollwrap') || table.parentElement;
    const box = table.getBoundingClientRect();
    if (wrap.scrollWidth > wrap.clientWidth + 1 || table.scrollWidth > table.clientWidth + 1 || box.right > width + 1) {
      const head = table.querySelector('th, td');
      overflowing.push(`${Math.round(box.width)} px: ${head ? head.textContent.trim().slice(0, 40) : '?'}`);
    }
  }
  const images = [...document.querySelectorAll('article img')]
    .filter(img => img.offsetParent !== null || img.complete)
    .map(img => [img.getAttribute('src'), img.complete ? img.naturalWidth : -1]);
  const boardRows = [...document.querySelectorAll('.verdict-board tbody tr')];
  const board = {
    rows: boardRows.length,
    offscreen: boardRows.filter(tr => {
      const cell = tr.querySelector('.verdict');
      if (!cell) return true;
      const box = cell.getBoundingClientRect();
      return box.width === 0 || box.right > width + 1 || box.left < -1;
    }).map(tr => tr.getAttribute('data-claim')),
  };
  // Mathematics as KaTeX set it: a star set on the line as the operator ∗ (E∗ − AUC for E* − AUC), not raised; a name of
  // several capitals set as an italic product of letters (K·L for KL); each named by its TeX source.
  const source = el => (el.closest('.katex') || el).textContent.trim().slice(0, 80);
  const starOperators = [...document.querySelectorAll('article .katex-html span')]
    .filter(el => el.childElementCount === 0 && el.textContent.trim() === '∗' && !el.closest('.msupsub')).map(source);
  // (a run of two or more italic capitals before a bracket, on the line: KL(p ‖ q); not a product such as USVᵀ or a
  // subscript such as P_XY)
  const capital = el => el && el.matches('.mord.mathnormal') && /^[A-Z]$/.test(el.textContent);
  const italicNames = [];
  for (const el of document.querySelectorAll('article .katex-html .mord.mathnormal')) {
    if (!capital(el) || capital(el.previousElementSibling) || el.closest('.msupsub')) continue;
    let end = el, letters = 1;
    while (capital(end.nextElementSibling)) { end = end.nextElementSibling; letters += 1; }
    const after = end.nextElementSibling;
    if (letters >= 2 && after && after.matches('.mopen')) italicNames.push(source(el));
  }
  // An element wider than its column that no scrolling box holds: it runs off the text's right edge, or is cut there
  // by a box that clips it. Formulas, paragraphs and images against the text's column; code blocks (which the theme
  // sets edge to edge on a phone) against the screen.
  const article = document.querySelector('article');
  const column = article ? article.getBoundingClientRect().right : width;
  const scrolls = el => {
    for (let up = el.parentElement; up && up !== article; up = up.parentElement) {
      const x = getComputedStyle(up).overflowX;
      if (x === 'auto' || x === 'scroll') return true;
    }
    return false;
  };
  const right = el => { const box = el.getBoundingClientRect(); return box.left + Math.max(box.width, el.scrollWidth); };
  // (8 px of slack: an inline code's padding may stand 2 px past the edge where its word wraps; what runs off runs far)
  const beyond = (el, edge) => el.offsetParent !== null && right(el) > edge + 8 && !scrolls(el);
  const wide = [
    ...[...document.querySelectorAll('article .katex, article p, article li, article img')].filter(el => beyond(el, column)),
    ...[...document.querySelectorAll('article pre')].filter(el => beyond(el, width)),
  ].map(el => `${el.className === 'katex' ? 'formula' : el.tagName.toLowerCase()}: `
            + (el.textContent.trim().slice(0, 60) || el.getAttribute('src')));
  const visible = [...document.querySelectorAll('article img')].filter(img => img.offsetParent !== null);
  const shown = visible.map(img => img.getAttribute('src'));
  const shownSizes = visible.map(img => [img.getAttribute('src'), img.clientWidth, img.naturalWidth]);
  return {fragments, overflowing, images, shown, shownSizes, board, starOperators, italicNames, wide,
          pageScrolls: document.documentElement.scrollWidth > width + 1};
}
"""


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def page_kind(path: str) -> str:
    """One screenshot per kind of page: home, paper, summary, reference, other."""
    if path == "":
        return "home"
    if path in PAPER_PAGES:
        return "paper"
    if path.startswith("results/") and path.endswith("summary/"):
        return "summary"
    if path == "reference/":
        return "reference"
    return "other"


def site_pages(site: Path) -> list[str]:
    """Every page of the built site, as a path under its root ('' for the home page)."""
    pages = []
    for index in sorted(site.rglob("index.html")):
        relative = index.parent.relative_to(site).as_posix()
        if relative.startswith(("assets", "search")) or relative == "404":
            continue
        pages.append("" if relative == "." else relative + "/")
    return pages


def check_site(site: Path, out: Path, widths=WIDTHS, timeout_ms: int = 0) -> dict:
    """Serve ``site`` on 127.0.0.1, open every page at each width, and return ``{width: {page: findings}}`` with
    ``findings = {"fragments", "overflowing", "images", "board", "pageScrolls", "errors"}``; screenshots of the first
    page of each kind go to ``out/<kind>-<width>.png`` (full page)."""
    from playwright.sync_api import sync_playwright

    executable = chromium_path()
    if executable is None:
        raise FileNotFoundError("no Chromium found: install Debian's chromium or set CHROMIUM")
    out.mkdir(parents=True, exist_ok=True)
    handler = functools.partial(_QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    seen: dict[int, dict[str, dict]] = {}
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_FLAGS)
            for width in widths:
                seen[width] = {}
                page = browser.new_page(viewport={"width": width, "height": 900})
                page.set_default_timeout(timeout_ms)
                errors: list[str] = []
                page.on("pageerror", lambda error, errors=errors: errors.append(f"page error: {error}"))
                page.on(
                    "console",
                    lambda m, errors=errors: errors.append(f"console error: {m.text}") if m.type == "error" else None,
                )
                page.on("requestfailed", lambda r, errors=errors: errors.append(f"request failed: {r.url}"))
                shot_taken = set()
                for path in site_pages(site):
                    errors.clear()
                    response = page.goto(base + path, wait_until="load")
                    page.wait_for_load_state("networkidle")
                    findings = page.evaluate(_INSPECT)
                    if response is None or not response.ok:
                        errors.append(f"HTTP {response.status if response else 'no response'}")
                    findings["errors"] = list(errors)
                    seen[width][path] = findings
                    kind = page_kind(path)
                    findings["height"] = page.evaluate("document.documentElement.scrollHeight")
                    if kind not in shot_taken and findings["height"] <= MAX_PAGE_PX:
                        page.screenshot(path=out / f"{kind}-{width}.png", full_page=kind != "reference", timeout=timeout_ms)
                        shot_taken.add(kind)
                page.close()
            browser.close()
    finally:
        server.shutdown()
    return seen


def problems_of(seen: dict) -> dict[int, dict[str, list[str]]]:
    """Per width, per kind of problem, the pages and what was found there."""
    out = {}
    for width, pages in seen.items():
        found = {"overflowing tables": [], "TeX fragments": [], "console errors": [], "broken images": [], "boards": [],
                 "star operators": [], "italic names": [], "wider than the column": [], "overlong pages": []}  # fmt: skip
        for path, f in pages.items():
            found["overflowing tables"] += [f"/{path}: {t}" for t in f["overflowing"]]
            if f["pageScrolls"] and not f["overflowing"]:
                found["overflowing tables"].append(f"/{path}: the page scrolls sideways")
            found["TeX fragments"] += [f"/{path}: {t}" for t in f["fragments"]]
            found["star operators"] += [f"/{path}: {t}" for t in f["starOperators"]]
            found["italic names"] += [f"/{path}: {t}" for t in f["italicNames"]]
            found["wider than the column"] += [f"/{path}: {t}" for t in f["wide"]]
            found["console errors"] += [f"/{path}: {e}" for e in f["errors"]]
            if f["height"] > MAX_PAGE_PX:
                found["overlong pages"].append(f"/{path}: {f['height']} px")
            found["broken images"] += [f"/{path}: {src}" for src, w in f["images"] if w <= 0]
            if path in PAPER_PAGES:
                if f["board"]["rows"] == 0:
                    found["boards"].append(f"/{path}: no verdict board")
                found["boards"] += [f"/{path}: {c}'s verdict is off the screen" for c in f["board"]["offscreen"]]
        out[width] = found
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", type=Path, help="a built site (mkdocs build -d SITE)")
    parser.add_argument("--out", type=Path, default=Path("results/site_screenshots"))
    parser.add_argument("--show", type=int, default=5, help="examples printed per kind of problem")
    args = parser.parse_args(argv)
    if not (args.site / "index.html").is_file():
        print(f"no site at {args.site}: build it with mkdocs build -d {args.site}", file=sys.stderr)
        return 2
    seen = check_site(args.site, args.out)
    failed = False
    for width, found in problems_of(seen).items():
        counts = ", ".join(f"{kind} {len(items)}" for kind, items in found.items())
        print(f"{width} px, {len(seen[width])} pages: {counts}")
        for kind, items in found.items():
            failed |= bool(items)
            for item in items[: args.show]:
                print(f"  {kind}: {item}")
    print(f"screenshots in {args.out}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
