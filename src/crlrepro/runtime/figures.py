"""How figures look, never what they show: the style every study's figure is drawn in (seaborn, readable in a
paper) and the axes helpers they share. Each study draws its own figure (crlrepro.studies.<name>.figure).
"""

from __future__ import annotations

from dataclasses import dataclass

import matplotlib
import matplotlib.ticker

matplotlib.use("Agg")
import numpy as np  # noqa: E402
import seaborn as sns  # noqa: E402

__all__ = [
    "apply_style",
    "CONTEXTS",
    "FigureStyle",
    "log2_dims_axis",
    "MIN_FONT_PT",
    "log_ticks_at",
    "overlay_reference",
    "PALETTES",
    "slope_guide",
    "THEMES",
]


CONTEXTS = ("paper", "notebook", "talk", "poster")


THEMES = ("white", "whitegrid", "dark", "darkgrid", "ticks")


PALETTES = ("deep", "muted", "bright", "pastel", "dark", "colorblind")


# The smallest text a figure sets, in points: every explicit font size of the studies' figures is at least this, and
# so is every size the default style sets. With figures at most about 9.5 inches wide, shown at a desktop page's
# column (about 940 px), it stays at least 9 px tall (tests/test_docs.py checks each published figure as shown).
MIN_FONT_PT = 7.0


@dataclass(frozen=True)
class FigureStyle:
    """How a figure looks, never what it shows: seaborn's context (paper, notebook, talk, poster), its
    theme, the font scale, the colour palette, and the resolution of raster output (dots per inch).
    The defaults are the pipeline's (config.yaml ``figures.style``)."""

    context: str = "paper"
    theme: str = "whitegrid"
    font_scale: float = 1.1
    palette: str = "deep"
    dpi: int = 200

    def __post_init__(self):
        for name, value, allowed in (
            ("context", self.context, CONTEXTS),
            ("theme", self.theme, THEMES),
            ("palette", self.palette, PALETTES),
        ):
            if value not in allowed:
                raise ValueError(f"figure style {name} {value!r} is not one of {', '.join(allowed)}")
        if not self.font_scale > 0 or not self.dpi > 0:
            raise ValueError(f"figure style needs font_scale > 0 and dpi > 0, got {self.font_scale!r} and {self.dpi!r}")

    def apply(self) -> None:
        sns.set_theme(context=self.context, style=self.theme, font_scale=self.font_scale, palette=self.palette)


def apply_style(style: FigureStyle | None):
    (style or FigureStyle()).apply()


def overlay_reference(ax, reference: dict | None, key: str, color: str, label: str):
    if reference is None:
        return
    dims = sorted(int(d) for d in reference[key])
    ax.scatter(
        dims, [reference[key][d] for d in dims], s=90, facecolors="none", edgecolors=color, linewidths=1.5, label=label, zorder=3
    )


def log_ticks_at(ax, values):
    """A log x axis labelled at the sweep's own values (no crowded minor labels)."""
    values = sorted(int(v) for v in values)
    ax.set_xscale("log")
    ax.set_xticks(values, labels=[str(v) for v in values])
    ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())


def log2_dims_axis(ax, dims):
    ax.set_xscale("log", base=2)
    dims = sorted(dims)
    ax.set_xticks(dims, labels=[str(d) for d in dims])
    ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())


def slope_guide(ax, xs, top: float, slope: float, color: str, label: str):
    """A segment of the given log-log ``slope`` over the middle of ``xs``, drawn above the data (its start at
    ``top``): a theorem's rate O(x^slope) has no known constant, so its line shows a slope, not a level."""
    xs = np.sort(np.asarray(xs, dtype=float))
    lo, hi = np.exp(np.log(xs[0]) + np.array([0.25, 0.75]) * (np.log(xs[-1]) - np.log(xs[0])))
    seg = np.geomspace(lo, hi, 8)
    ax.plot(seg, top * (seg / lo) ** slope, color=color, linestyle=":", linewidth=1.6, label=label)
