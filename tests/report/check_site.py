"""Open every page of the built documentation site in headless Chromium, at a desktop and a phone width, and say what a
reader would trip on.

    python tests/report/check_site.py site --out results/site_screenshots

For each page (every ``index.html`` under the site) and each width (1280 and 390 px): tables wider than their page
(the table, or its scroll wrapper, scrolls sideways; or the page itself does), TeX source shown as text (a backslash
command, ``_{``/``^{``, ``_(``/``^(``, or ``$…$`` in a text node outside code and outside rendered mathematics), console
and page errors, images that did not load, and, on a paper page, whether its verdict board is there and each board row
shows its verdict inside the screen's width. Writes one screenshot per page kind and width, prints the counts, exits 1
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
SCREENSHOT_TIMEOUT_MS = 240_000

# Run in the page: what overflows, what TeX shows as text, which images are broken, where the board's verdicts sit.
_INSPECT = r"""
() => {
  const tex = /\\[A-Za-z]+|[_^]\{|[_^]\(|\$[^$\s][^$]*\$/;
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
  return {fragments, overflowing, images, board, pageScrolls: document.documentElement.scrollWidth > width + 1};
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


def check_site(site: Path, out: Path, widths=WIDTHS, timeout_ms: int = 30_000) -> dict:
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
                    if kind not in shot_taken:
                        # A full-page shot resizes the view, and MathJax then sets every formula again: 14-18 s for a
                        # paper page on an idle 2-core machine, over 30 s under CI's two workers. The shot is for a
                        # person to look at, not a check of speed, so it has a wait of its own.
                        page.screenshot(
                            path=out / f"{kind}-{width}.png",
                            full_page=kind != "reference",
                            timeout=max(timeout_ms, SCREENSHOT_TIMEOUT_MS),
                        )
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
        found = {"overflowing tables": [], "TeX fragments": [], "console errors": [], "broken images": [], "boards": []}
        for path, f in pages.items():
            found["overflowing tables"] += [f"/{path}: {t}" for t in f["overflowing"]]
            if f["pageScrolls"] and not f["overflowing"]:
                found["overflowing tables"].append(f"/{path}: the page scrolls sideways")
            found["TeX fragments"] += [f"/{path}: {t}" for t in f["fragments"]]
            found["console errors"] += [f"/{path}: {e}" for e in f["errors"]]
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
