"""Figure styling: the config's figures.style / overrides map onto FigureStyle, which restyles
without changing what is drawn."""

from pathlib import Path

import matplotlib
import matplotlib.image
import matplotlib.pyplot as plt
import pytest
import seaborn as sns
import yaml

from crlrepro.runtime.artifacts import save_figure
from crlrepro.runtime.figures import CONTEXTS, PALETTES, THEMES, FigureStyle

SCHEMA = Path(__file__).resolve().parents[2] / "workflow" / "schemas" / "config.schema.yaml"


def test_schema_offers_exactly_the_styles_the_library_draws():
    style = yaml.safe_load(SCHEMA.read_text())["$defs"]["figure_style"]["properties"]
    assert tuple(style["context"]["enum"]) == CONTEXTS
    assert tuple(style["theme"]["enum"]) == THEMES
    assert tuple(style["palette"]["enum"]) == PALETTES
    # The library's default style for its own users is the pipeline's (config.yaml, where every default is written):
    defaults = yaml.safe_load((SCHEMA.parents[2] / "config.yaml").read_text())["figures"]["style"]
    assert FigureStyle(**defaults) == FigureStyle()


@pytest.mark.parametrize(
    "bad,name",
    [
        ({"context": "huge"}, "context 'huge'"),
        ({"palette": "rainbow"}, "palette 'rainbow'"),
        ({"dpi": 0}, "dpi"),
        ({"font_scale": -1.0}, "font_scale"),
    ],
)
def test_bad_style_is_named(bad, name):
    with pytest.raises(ValueError, match=name):
        FigureStyle(**bad)


def test_style_sets_fonts_and_palette():
    FigureStyle(context="paper", font_scale=1.0).apply()
    small = matplotlib.rcParams["font.size"]
    FigureStyle(context="talk", font_scale=2.0, palette="colorblind").apply()
    assert matplotlib.rcParams["font.size"] > 2 * small
    cycle = [c["color"] for c in matplotlib.rcParams["axes.prop_cycle"]]
    assert [matplotlib.colors.to_hex(c) for c in cycle[:3]] == [
        matplotlib.colors.to_hex(c) for c in sns.color_palette("colorblind")[:3]
    ]
    FigureStyle().apply()


def test_dpi_sets_the_png_resolution(tmp_path):
    fig, ax = plt.subplots(figsize=(2, 1))
    ax.plot([0, 1], [0, 1])
    save_figure(fig, [tmp_path / "a.png"], dpi=100)
    save_figure(fig, [tmp_path / "b.png"], dpi=200)
    plt.close(fig)
    low, high = matplotlib.image.imread(tmp_path / "a.png"), matplotlib.image.imread(tmp_path / "b.png")
    # twice the pixels each way (up to the tight bounding box rounding to whole pixels)
    assert high.shape[:2] == pytest.approx((2 * low.shape[0], 2 * low.shape[1]), rel=0.03)


def test_paper3_figures_do_not_depend_on_numpys_global_state(tmp_path):
    """seaborn draws strip-plot jitter from NumPy's global generator: the figure must still be the same
    bytes in every process (the determinism check compares two runs), and the caller's state survives."""
    import numpy as np
    import pandas as pd

    from crlrepro.studies.supervised_view.figure import plot_ssl

    rows = [
        {
            "model": "trained",
            "loss": loss,
            "ratio": ratio,
            "seed": seed,
            "diverged": False,
            "linear_top1": 0.9 + 0.01 * seed,
            "knn_top1": 0.8,
            "few1_top1": 0.5 + 0.02 * seed,
            "attraction_worst_lhs": -0.5,
            "attraction_worst_rhs": -0.4,
            "repulsion_worst_lhs": 0.5,
            "repulsion_worst_rhs": 0.7,
        }
        for loss, ratio in (("balanced", 1.0), ("balanced", 1.5), ("dcl", 1.0))
        for seed in range(3)
    ]
    table = pd.DataFrame(rows)
    images = []
    for state in (1, 2):
        np.random.seed(state)  # noqa: NPY002 (the global stream seaborn reads is what is tested)
        save_figure(plot_ssl("S1", table), [tmp_path / f"{state}.png"], dpi=60)
        assert np.random.randint(1 << 30) == np.random.RandomState(state).randint(1 << 30)  # noqa: NPY002  # the caller's stream goes on
        images.append((tmp_path / f"{state}.png").read_bytes())
    assert images[0] == images[1]


def test_calibration_figure_draws_non_unique_truncations_apart_from_their_family():
    import pandas as pd

    from crlrepro.studies.calibration.figure import plot_calibration

    table = pd.DataFrame(
        {
            "model": "D3_seed0",
            "checkpoint": [0, 1, 2],
            "excess_loss": [0.1, 0.01, 0.001],
            "excess_auc": [0.05, 0.01, 0.002],
            "E_star": 0.73,
            "informative": True,
        }
    )
    families = pd.DataFrame(
        {
            "model": "truncation",
            "parameter": [1.0, 2.0, 3.0, 4.0],
            "excess_loss": [0.2, 0.05, 0.01, 0.002],
            "excess_auc": [0.1, 0.03, 0.005, 0.001],
            "unique": [True, False, True, True],
        }
    )
    fit = {"log_constant": 0.0, "exponent": 0.7, "low": 0.6, "high": 0.8, "floor": 1e-4}
    fig = plot_calibration(table, fit, 0.5, families=families)
    ax = fig.axes[0]
    line = next(line for line in ax.get_lines() if line.get_label() == "family: truncation")
    assert list(line.get_xdata()) == [0.2, 0.01, 0.002]  # D = 2 is not on its family's line
    apart = [c for c in ax.collections if c.get_label().startswith("truncation inside a degenerate")]
    assert len(apart) == 1 and apart[0].get_offsets().tolist() == [[0.05, 0.03]]
    plt.close(fig)
    fig = plot_calibration(table, fit, 0.5, families=families.assign(unique=True))
    assert not [c for c in fig.axes[0].collections if c.get_label().startswith("truncation inside")]
    plt.close(fig)


def test_a_png_carries_what_its_figure_draws_and_a_caption_is_checked_against_it(tmp_path):
    """save_figure writes each panel's title and every label, legend entry and annotation into the PNG; a caption
    that names a quantity ([[...]]) or a panel the figure does not draw is a problem, named."""
    from crlrepro.runtime.artifacts import ArtifactError, _write_sidecar, read_figure_texts
    from crlrepro.studies.summary import caption_problems, caption_text

    fig, (left, right) = plt.subplots(1, 2)
    left.plot([1, 2], [1, 2], label=r"exact $\hat F(t)$ (quadrature)")
    left.axhline(0.5, label="chance ½")
    left.legend(title="curves")
    left.set(title="(a) margin", xlabel="t", ylabel=r"$P(|r|\leq t)$")
    right.set_title("(b) slope")
    right.annotate("diverged: 1/3", (0.5, 0.5))
    save_figure(fig, [tmp_path / "f.png", tmp_path / "f.pdf"], prov={"rule": "figure_f"})
    plt.close(fig)
    drawn = read_figure_texts(tmp_path / "f.png")
    assert drawn["panels"] == ["(a) margin", "(b) slope"]
    assert {"exact $\\hat F(t)$ (quadrature)", "chance ½", "curves", "t", "diverged: 1/3"} <= set(drawn["texts"])
    good = "Panel (a): the [[exact F(t)]] against [[chance ½]]; (b) the slope, with runs marked [[diverged]]."
    assert caption_problems(good, drawn) == []
    assert caption_text(good) == "Panel (a): the exact F(t) against chance ½; (b) the slope, with runs marked diverged."
    bad = "Panels (a–c): the [[Monte Carlo F(t)]] and the [[exact F(t)]]."
    assert caption_problems(bad, drawn) == [
        "[[Monte Carlo F(t)]] is not drawn (no title, axis label, legend entry or annotation holds it)",
        "panel (c) is named but the figure has no panel titled (c)",
    ]
    assert caption_problems("(d, e)", drawn) == [
        "panel (d) is named but the figure has no panel titled (d)",
        "panel (e) is named but the figure has no panel titled (e)",
    ]
    plt.figure().savefig(tmp_path / "plain.png")  # not written by save_figure: nothing to check a caption against
    with pytest.raises(ArtifactError, match="plain.png: its sidecar .* is missing"):
        read_figure_texts(tmp_path / "plain.png")
    _write_sidecar(tmp_path / "plain.png", {})  # its checksum recorded, still no record of what it draws
    with pytest.raises(ArtifactError, match="no crlrepro:drawn text in the PNG"):
        read_figure_texts(tmp_path / "plain.png")


def test_every_caption_template_names_only_what_the_pipelines_figures_can_draw():
    """The report's caption templates mark what they name; the marks exist (a template without any would escape the
    check) and the panel letters they use are a–h."""
    from crlrepro.studies.summary import _DRAWN, _panel_letters

    report = Path(__file__).resolve().parents[2] / "workflow" / "report"
    for name in ("gmm_spectrum", "gmm_mlp", "lcgm", "tsybakov", "calibration", "scaling", "budget", "supervised_view"):
        text = (report / f"{name}.rst").read_text()
        assert _DRAWN.findall(text), name
        assert _panel_letters(text) <= set("abcdefgh"), name
