"""Open a Snakemake report in headless Chromium, show every result in it and screenshot each.

    python tests/report/render_report.py results/report.html --out results/report_screenshots

For each category of the report's Results, every file is opened with its "show" button; a figure
must load as an image with a non-zero size, an HTML table must show rows. Each figure's caption
("info" button) must state a verdict. Writes home.png and one <file>.png per result, prints what it saw, and exits 1
naming every page error, missing figure or empty caption. Needs Playwright (Python) and a Chromium
(Debian's `chromium`, or CHROMIUM=/path/to/chrome); nothing is downloaded.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
from pathlib import Path

# Flags for a root, offline, display-less machine: no sandbox, no GPU, no background connections.
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]
# The natural size of the shown image whose data URI names ``tag`` (``filename=<name>;``), once it has loaded; else null.
SHOWN_IMAGE_SIZE = """tag => {
    const img = [...document.querySelectorAll('img')].find(i => i.src.includes(tag));
    return img && img.complete && img.naturalWidth > 0 && [img.naturalWidth, img.naturalHeight];
}"""
VERDICT = re.compile(r"\b(reproduced|contradicted|inconclusive|not comparable|verified|failed)\b")


def chromium_path() -> str | None:
    return os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")


def render_report(report: Path, out: Path, timeout_ms: int = 90_000) -> dict:
    """Render ``report`` and screenshot every result into ``out``. Returns what was seen:
    ``{"categories": {name: [file, ...]}, "figures": {file: (width, height)}, "tables": {file: rows},
    "captions": {file: text}, "errors": [...]}``."""
    from playwright.sync_api import sync_playwright

    executable = chromium_path()
    if executable is None:
        raise FileNotFoundError("no Chromium found: install Debian's chromium or set CHROMIUM")
    out.mkdir(parents=True, exist_ok=True)
    seen = {"categories": {}, "figures": {}, "tables": {}, "captions": {}, "errors": []}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_FLAGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.set_default_timeout(timeout_ms)
        page.on("pageerror", lambda error: seen["errors"].append(f"page error: {error}"))
        page.on(
            "console",
            lambda message: seen["errors"].append(f"console error: {message.text}") if message.type == "error" else None,
        )
        url = report.resolve().as_uri()
        _home(page, url)
        page.screenshot(path=out / "home.png")
        # One load of the report (it is several MB): each category and file is then opened inside the app, through
        # its menu and breadcrumb, as a reader clicks; each shown file is recognised by the name its data URI carries.
        for category in _result_categories(page):
            _open_category(page, category)
            files = [cell.inner_text().strip() for cell in page.locator("tr td:first-child").all()]
            seen["categories"][category] = files
            for name in files:
                row = page.locator("tr", has=page.get_by_text(name, exact=True))
                before = page.locator("body").inner_text()
                row.locator("[iconname='information-circle']").click()
                page.wait_for_function("before => document.body.innerText !== before", arg=before)
                seen["captions"][name] = page.locator("body").inner_text()
                page.screenshot(path=out / (Path(name).name + ".caption.png"))
                _back_to_category(page, category)
                row = page.locator("tr", has=page.get_by_text(name, exact=True))
                row.locator("[iconname='eye']").click()
                shot = out / (Path(name).name + ".png")
                tag = f"filename={Path(name).name};"
                if name.endswith((".png", ".svg", ".jpg", ".jpeg")):
                    size = page.wait_for_function(SHOWN_IMAGE_SIZE, arg=tag)
                    seen["figures"][name] = tuple(size.json_value())
                elif name.endswith(".html"):
                    page.wait_for_function(
                        "tag => [...document.querySelectorAll('iframe')].some(f => f.src.includes(tag))", arg=tag
                    )
                    frame = page.frame_locator(f"iframe[src*='{tag}']")
                    frame.locator("table tr").nth(1).wait_for()
                    seen["tables"][name] = frame.locator("tbody tr").count()
                else:
                    seen["errors"].append(f"{name}: no check for this kind of result")
                page.screenshot(path=shot)
        browser.close()
    return seen


def _home(page, url: str) -> None:
    page.goto(url)
    page.wait_for_load_state("load")
    page.locator("li", has_text=re.compile("^Results$")).first.wait_for()


def _result_categories(page) -> list[str]:
    """The category names listed under RESULTS in the report's menu."""
    return page.evaluate(
        """() => {
            const head = [...document.querySelectorAll('li')].find(li => li.textContent.trim() === 'Results');
            const names = [];
            for (let li = head && head.nextElementSibling; li; li = li.nextElementSibling) {
                if (li.classList.contains('uppercase')) break;
                names.push(li.textContent.trim());
            }
            return names;
        }"""
    )


def _open_category(page, category: str) -> None:
    """From the report's home, or from inside a category (its breadcrumb's "Results" leads back to the menu), into
    ``category``'s list of results."""
    results = page.locator("li a", has_text=re.compile("^Results$"))
    if results.count():
        results.first.click()
    page.locator("li a", has_text=re.compile(f"^{re.escape(category)}$")).first.click()
    page.locator("tr td:first-child").first.wait_for()


def _back_to_category(page, category: str) -> None:
    """From a file's caption back to its category's list, through the breadcrumb."""
    page.locator("nav ol li a", has_text=re.compile(f"^{re.escape(category)}$")).first.click()
    page.locator("tr td:first-child").first.wait_for()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("report", type=Path)
    parser.add_argument("--out", type=Path, default=Path("results/report_screenshots"))
    parser.add_argument("--expect-figures", type=int, default=0, help="fail with fewer figures than this")
    args = parser.parse_args(argv)
    if not args.report.is_file():
        print(f"no report at {args.report}: build it with snakemake --report {args.report}", file=sys.stderr)
        return 2
    seen = render_report(args.report, args.out)
    problems = list(seen["errors"])
    for category, files in seen["categories"].items():
        print(f"{category}: {len(files)} result(s)")
    for name, (width, height) in seen["figures"].items():
        print(f"  figure {name}: {width}×{height}")
        if not VERDICT.search(seen["captions"].get(name, "")):
            problems.append(f"the caption of {name} states no verdict")
    for name, rows in seen["tables"].items():
        print(f"  table {name}: {rows} rows")
        if rows == 0:
            problems.append(f"the table {name} shows no rows")
    for name in seen["captions"]:
        if name not in seen["figures"] and name not in seen["tables"]:
            problems.append(f"{name} was not shown")
    if len(seen["figures"]) < args.expect_figures:
        problems.append(f"{len(seen['figures'])} figures shown, expected {args.expect_figures}")
    print(f"screenshots in {args.out}")
    for problem in problems:
        print(f"ERROR: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
