"""The documentation site: `mkdocs build --strict` passes (a broken link or reference fails it, shown on a copy with
one), the paper pages carry the claims tables generated from the registry and the published results, and every
page renders in headless Chromium without a console error and with every image loaded."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import require_browser, run_watched

from crlrepro.studies.registry import EXPERIMENTS

REPO = Path(__file__).resolve().parents[1]
PAGES = (
    "",
    "getting-started/",
    "configs/",
    "cluster/",
    "recovery/",
    "report/",
    "claims/",
    "paper1/",
    "paper2/",
    "paper3/",
    "results/default/summary/",
    "results/smoke/summary/",
    "reference/",
    "performance/",
    "benchmarks/",
    "performance-history/",
    "development/",
)

# one worker computes this module's shared fixtures (pytest-xdist, --dist loadgroup)
pytestmark = pytest.mark.xdist_group("test_docs")


def build(root: Path, site: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(root / "mkdocs.yml"), "-d", str(site)],
        capture_output=True,
        text=True,
        cwd=root,
        env=env,
    )


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    site = tmp_path_factory.mktemp("site")
    proc = build(REPO, site)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return site


def test_the_site_builds_strict_with_every_page(site):
    for page in PAGES:
        assert (site / page / "index.html").is_file(), page


def test_a_broken_link_fails_the_strict_build(tmp_path):
    copy = tmp_path / "repo"
    shutil.copytree(REPO / "docs", copy / "docs")
    shutil.copy(REPO / "mkdocs.yml", copy / "mkdocs.yml")
    shutil.copytree(REPO / "src", copy / "src", ignore=shutil.ignore_patterns("*.egg-info", "__pycache__"))
    index = copy / "docs" / "index.md"
    index.write_text(index.read_text() + "\nSee [the missing page](no-such-page.md).\n")
    proc = build(copy, tmp_path / "site")
    assert proc.returncode != 0 and "no-such-page.md" in proc.stdout + proc.stderr


def test_paper_pages_carry_every_registered_row_and_the_published_results(site):
    for e in EXPERIMENTS:
        html = (site / f"paper{e.paper}" / "index.html").read_text()
        assert f"{e.id}: " in html, e.id
        for claim in e.claims:
            assert claim.key in html, (e.id, claim.key)
        if e.figure and (REPO / "docs" / "results" / "default" / "figures" / f"{e.figure}.png").is_file():
            assert f"results/default/figures/{e.figure}.png" in html, e.id
    index = (site / "index.html").read_text()
    assert "At the <strong>default</strong> scale" in index  # the results block, filled from the published summary


def test_the_pages_quote_results_only_as_published(site):
    """Every <!-- measured:ROW --> marker of the pages is rendered from the published summaries (none is left in the
    site), so the quoted value is the published one: A4's μ̂ at the default scale as its summary.csv holds it."""
    import pandas as pd

    from crlrepro.workflow.publish import measured_text

    pages = {page: (REPO / "docs" / f"{page}.md").read_text() for page in ("paper1", "paper2", "claims")}
    assert all("<!-- measured:" in text for text in pages.values())
    for page in pages:
        assert "<!-- measured:" not in (site / page / "index.html").read_text(), page
    mu = pd.read_csv(REPO / "docs" / "results" / "default" / "summary.csv").set_index("claim_id").loc["A4.mu_hat"]
    quoted = measured_text("A4.mu_hat", ["default"], REPO / "docs" / "results")
    assert quoted.startswith(f"{mu['measured']:.4g}") and quoted.endswith(f"at default ({mu['verdict']})")
    assert quoted in (site / "claims" / "index.html").read_text()


@pytest.mark.browser
def test_every_page_reads_in_headless_chromium_at_a_desktop_and_a_phone_width(site, tmp_path_factory):
    """Every page of the site (tests/report/check_site.py) at 1280 and 390 px: no table wider than the page, no TeX
    source shown as text, no console error or failed request, no broken image, and each paper page with its verdict
    board, every claim's verdict on the screen. Screenshots of each kind of page go to CRLREPRO_SITE_SCREENSHOTS (CI
    prints where) or a temporary folder."""
    require_browser()
    sys.path.insert(0, str(REPO / "tests" / "report"))
    from check_site import PAPER_PAGES, check_site, problems_of

    out = Path(os.environ.get("CRLREPRO_SITE_SCREENSHOTS") or tmp_path_factory.mktemp("site_screenshots"))
    seen = check_site(site, out)
    print(f"site screenshots: {out}")
    assert set(PAGES) <= set(seen[1280]), sorted(set(PAGES) - set(seen[1280]))
    problems = {(width, kind): items for width, found in problems_of(seen).items() for kind, items in found.items() if items}
    assert not problems, problems
    for width in (1280, 390):
        assert {kind for kind in ("home", "paper", "summary", "reference") if (out / f"{kind}-{width}.png").is_file()} == {
            "home",
            "paper",
            "summary",
            "reference",
        }
        for page in PAPER_PAGES:
            assert seen[width][page]["board"]["rows"] >= 7, (width, page)  # every claim of the paper on its board
    # the board picture on a desktop; on a phone, where its rows would be unreadable, links to the HTML boards instead
    assert any(src.endswith("board.png") for src in seen[1280][""]["shown"]), seen[1280][""]["shown"]
    assert not any(src.endswith("board.png") for src in seen[390][""]["shown"]), seen[390][""]["shown"]
    # each published figure as shown on a desktop: its smallest text (MIN_FONT_PT) at least 9 px tall
    from PIL import Image

    from crlrepro.runtime.figures import MIN_FONT_PT

    too_small = {}
    for page in PAPER_PAGES:
        for src, shown_px, natural_px in seen[1280][page]["shownSizes"]:
            if "/figures/" not in src or not natural_px:
                continue
            with Image.open(site / page / src) as image:
                dpi = float(image.info.get("dpi", (72.0,))[0])
            text_px = MIN_FONT_PT * dpi / 72 * shown_px / natural_px
            if text_px < 9:
                too_small[src] = round(text_px, 1)
    assert not too_small, f"figures whose {MIN_FONT_PT:g}-point text is under 9 px as shown: {too_small}"
    images = {page: seen[1280][page]["images"] for page in ("paper2/", "paper3/")}
    assert all(len(found) >= 4 for found in images.values()), images  # the published figures are shown


def test_the_site_checker_finds_what_a_reader_would_trip_on(tmp_path):
    """check_site's checks can fail: a page with a table wider than the page, TeX source as text, a broken image and
    a console error, a paper page without a board, and mathematics set wrong (a star as an operator, a name as an
    italic product, a formula off its column's edge, a power as text), each reported."""
    render_report = require_browser()
    del render_report
    sys.path.insert(0, str(REPO / "tests" / "report"))
    from check_site import check_site, problems_of

    site = tmp_path / "site"
    (site / "paper1").mkdir(parents=True)
    wide = "<table><tr>" + "".join(f"<td>{'x' * 60}{i}</td>" for i in range(12)) + "</tr></table>"
    (site / "index.html").write_text(
        f'<html><head><meta charset="utf-8"></head><body><article><h1>t</h1>{wide}'
        "<p>the sum Σ_{i>D} λ_i and \\tau</p><code>x_{1}</code>"
        "<img src='missing.png'><script>console.error('boom')</script></article></body></html>"
    )
    (site / "paper1" / "index.html").write_text("<html><body><article><h1>p</h1><p>no board</p></article></body></html>")
    # Mathematics as the site's KaTeX sets it: a star as an operator, a divergence's name as an italic product, a
    # formula wider than its column that nothing scrolls, a power left as text; and their correct forms, not reported.
    shutil.copytree(REPO / "docs" / "assets", site / "assets")
    formulas = {"bad-star": "E* - AUC", "good-star": "E^{*} - AUC", "bad-name": "KL(p \\| q)",
                "good-name": "\\mathrm{KL}(p \\| q) + USV^T + P_{XY}",
                "wide": "+".join(f"x_{{{i}}}" for i in range(150))}  # fmt: skip
    spans = "".join(f'<p><span class="arithmatex" id="{key}">\\({tex}\\)</span></p>' for key, tex in formulas.items())
    spans += f'<div class="arithmatex">\\[{formulas.pop("wide")}\\]</div>'  # displayed: KaTeX breaks no line in it
    (site / "math").mkdir()
    (site / "math" / "index.html").write_text(
        '<!doctype html><html><head><meta charset="utf-8">'
        '<link rel="stylesheet" href="../assets/katex/katex.min.css"></head><body>'
        f'<article style="width: 600px">{spans}<p>what remains is Δ/(2^a − 1)</p></article>'
        '<script src="../assets/katex/katex.min.js"></script><script src="../assets/site.js"></script></body></html>'
    )
    found = problems_of(check_site(site, tmp_path / "shots", widths=(1280,)))[1280]
    assert [item.split(": ", 1)[1] for item in found["star operators"]] == ["E∗−AUC"], found
    assert [item.split(": ", 1)[1] for item in found["italic names"]] == ["KL(p∥q)"], found
    (wide,) = found["wider than the column"]  # the displayed one: KaTeX breaks the inline one at its + signs
    assert wide.startswith("/math/: formula: x0"), found
    assert "/math/: what remains is Δ/(2^a − 1)" in found["TeX fragments"], found
    assert any("/:" in item for item in found["overflowing tables"]), found
    assert [item for item in found["TeX fragments"] if item.startswith("/:")] == ["/: the sum Σ_{i>D} λ_i and \\tau"], found
    assert any("missing.png" in item for item in found["broken images"]), found
    assert any("boom" in item for item in found["console errors"]), found
    assert found["boards"] == ["/paper1/: no verdict board"], found


def test_the_library_reference_lists_every_module():
    page = (REPO / "docs" / "reference.md").read_text()
    src = REPO / "src" / "crlrepro"
    modules = {".".join(p.relative_to(src.parent).with_suffix("").parts) for p in src.rglob("*.py") if p.name != "__init__.py"}
    # a study's package holds its entry in __init__.py: listed too
    modules |= {f"crlrepro.studies.{p.parent.name}" for p in (src / "studies").glob("*/__init__.py")}
    listed = {line.removeprefix("::: ").strip() for line in page.splitlines() if line.startswith("::: ")}
    assert listed == modules


def python_blocks(page: Path) -> list[str]:
    """The ```python blocks of a Markdown page, in order."""
    import re

    return re.findall(r"^```python\n(.*?)^```", page.read_text(), re.S | re.M)


DOC_PAGES = sorted((REPO / "docs").glob("*.md")) + [REPO / "README.md"]
PAGES_WITH_CODE = [p for p in DOC_PAGES if python_blocks(p)]
FASHION_MNIST = Path("/usr/share/datasets/fashion-mnist")


@pytest.mark.parametrize("page", PAGES_WITH_CODE, ids=[p.name for p in PAGES_WITH_CODE])
def test_every_python_block_of_the_docs_runs(page, tmp_path):
    """A page's Python blocks run in order in one fresh interpreter (a later block may use an earlier one's names), as
    a reader pastes them: an example that imports from where a function no longer lives, or calls it with arguments it
    no longer takes, fails here."""
    blocks = python_blocks(page)
    if any(str(FASHION_MNIST) in b for b in blocks) and not FASHION_MNIST.is_dir():
        if os.environ.get("CRLREPRO_REQUIRE_FASHION_MNIST"):
            pytest.fail(f"{page.name} reads {FASHION_MNIST} (Debian's dataset-fashion-mnist), which is not installed")
        pytest.skip(f"{page.name} reads {FASHION_MNIST}: apt-get install dataset-fashion-mnist")
    script = "\n".join(f"# --- block {i}\n{b}" for i, b in enumerate(blocks))
    proc = run_watched([sys.executable, "-c", script], cwd=tmp_path, env={**os.environ, "MPLBACKEND": "Agg"})
    assert proc.returncode == 0, f"{page.name}:\n{proc.stderr[-3000:]}"


def test_the_docs_have_code_to_run_and_a_broken_block_fails(tmp_path):
    assert {p.name for p in PAGES_WITH_CODE} >= {"development.md"}
    broken = tmp_path / "page.md"
    broken.write_text("Text.\n\n```python\nfrom crlrepro.experiments.supervised_view import balanced_contrastive_loss\n```\n")
    assert python_blocks(broken) == ["from crlrepro.experiments.supervised_view import balanced_contrastive_loss\n"]
    proc = subprocess.run([sys.executable, "-c", python_blocks(broken)[0]], capture_output=True, text=True)
    assert proc.returncode != 0 and "cannot import name 'balanced_contrastive_loss'" in proc.stderr


def test_the_add_a_scale_example_plans_its_own_folder(tmp_path):
    """development.md's "Add a scale": its config file, as written there, passes `crlrepro check-config` and a dry run
    of it plans every file under results/<its scale>/ and nothing else."""
    import re

    import yaml
    from conftest import copy_repo, snakemake

    section = (REPO / "docs" / "development.md").read_text().split("## Add a scale", 1)[1].split("\n## ", 1)[0]
    (block,) = re.findall(r"^```yaml\n(.*?)^```", section, re.S | re.M)
    name = re.search(r"^# (configs/\S+\.yaml)$", block, re.M).group(1)
    scale = yaml.safe_load(block)["scale"]
    workdir = copy_repo(tmp_path / "repo")
    (workdir / name).write_text(block)
    check = subprocess.run(
        [sys.executable, "-m", "crlrepro.workflow.cli", "check-config", name], cwd=workdir, capture_output=True, text=True
    )
    assert check.returncode == 0, check.stdout + check.stderr
    out = snakemake(workdir, "-n", "--cores", "1", "--configfile", name).stdout
    planned = {
        path.strip()
        for line in out.splitlines()
        if line.strip().startswith("output:")
        for path in line.split("output:", 1)[1].split(",")
    }
    assert planned and all(path.startswith(f"results/{scale}/") for path in planned)


def test_no_figure_sets_text_smaller_than_the_declared_minimum():
    """Every explicit font size in the studies' figures and the board picture, and every size the default style sets,
    is at least MIN_FONT_PT (the browser test then checks each published figure's width keeps it 9 px tall as shown)."""
    import re

    import matplotlib.pyplot as plt

    from crlrepro.runtime.figures import MIN_FONT_PT, FigureStyle

    sources = [*sorted((REPO / "src" / "crlrepro" / "studies").glob("*/figure.py")), REPO / "src/crlrepro/workflow/board.py"]
    small = [
        f"{path.relative_to(REPO)}: {m.group(0)}"
        for path in sources
        for m in re.finditer(r"\b(?:fontsize|title_fontsize|labelsize)\s*=\s*([0-9.]+)", path.read_text())
        if float(m.group(1)) < MIN_FONT_PT
    ]
    assert not small, small
    FigureStyle().apply()
    keys = ("font.size", "axes.labelsize", "axes.titlesize", "xtick.labelsize", "ytick.labelsize", "legend.fontsize")
    assert min(float(plt.rcParams[k]) for k in keys) >= MIN_FONT_PT
