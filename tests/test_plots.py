"""Figure styling: the config's figures.style / overrides map onto FigureStyle, which restyles
without changing what is drawn."""

from pathlib import Path

import matplotlib
import matplotlib.image
import matplotlib.pyplot as plt
import pytest
import seaborn as sns
import yaml

from crlrepro.artifacts import save_figure
from crlrepro.plots import CONTEXTS, PALETTES, THEMES, FigureStyle

SCHEMA = Path(__file__).resolve().parents[1] / "workflow" / "schemas" / "config.schema.yaml"


def test_schema_offers_exactly_the_styles_the_library_draws():
    style = yaml.safe_load(SCHEMA.read_text())["$defs"]["figure_style"]["properties"]
    assert tuple(style["context"]["enum"]) == CONTEXTS
    assert tuple(style["theme"]["enum"]) == THEMES
    assert tuple(style["palette"]["enum"]) == PALETTES
    defaults = yaml.safe_load(SCHEMA.read_text())["properties"]["figures"]["properties"]["style"]["default"]
    assert FigureStyle(**defaults) == FigureStyle()


@pytest.mark.parametrize("bad,name", [({"context": "huge"}, "context 'huge'"), ({"palette": "rainbow"}, "palette 'rainbow'"),
                                      ({"dpi": 0}, "dpi"), ({"font_scale": -1.0}, "font_scale")])
def test_bad_style_is_named(bad, name):
    with pytest.raises(ValueError, match=name):
        FigureStyle(**bad)


def test_style_sets_fonts_and_palette():
    FigureStyle(context="paper", font_scale=1.0).apply()
    small = matplotlib.rcParams["font.size"]
    FigureStyle(context="talk", font_scale=2.0, palette="colorblind").apply()
    assert matplotlib.rcParams["font.size"] > 2 * small
    cycle = [c["color"] for c in matplotlib.rcParams["axes.prop_cycle"]]
    assert [matplotlib.colors.to_hex(c) for c in cycle[:3]] == [matplotlib.colors.to_hex(c) for c in sns.color_palette("colorblind")[:3]]
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
