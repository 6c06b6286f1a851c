"""The figure of C2, drawn with seaborn in the pipeline's style: plotting only, no computation beyond
reshaping tables, so restyling never recomputes anything.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import matplotlib.ticker
import numpy as np
import pandas as pd
import seaborn as sns

from crlrepro.runtime.figures import FigureStyle, apply_style

__all__ = ["plot_calibration"]


def plot_calibration(
    table: pd.DataFrame,
    fit: dict,
    tau: float,
    tsybakov_rate: float | None = None,
    style: FigureStyle | None = None,
    families: pd.DataFrame | None = None,
):
    """C2: every checkpoint as a point (L(s) − L*, E* − E(s)) on log-log axes, coloured by the model's dimension D
    and sized by epoch; the bound √(2/τ·(L − L*)) as a line; the largest possible regret 2E* − 1 (the bound is
    informative below it); the fitted power law over the points used (trained, informative checkpoints); each score
    family as a line through its members, the truncations that are not unique (``unique`` False) as hollow circles."""
    apply_style(style)
    fig, ax = plt.subplots(figsize=(7.5, 6.8), constrained_layout=True)
    shown = table[(table["excess_auc"] > 0) & (table["excess_loss"] > 0)]
    # one colour per representation dimension (the model's "D<d>_seed<s>"; the seeds of a D share it: a colour per
    # seed told the reader nothing), larger points for later checkpoints (no size key: the caption says it)
    dims = shown["model"].astype(str).str.extract(r"^D(\d+)_", expand=False)
    shown = shown.assign(group=np.where(dims.notna(), "checkpoints, D = " + dims.fillna(""), shown["model"].astype(str)))
    groups = sorted(shown["group"].unique(), key=lambda g: (len(g), g))
    palette = dict(zip(groups, sns.color_palette("viridis", len(groups)), strict=True))
    sns.scatterplot(
        data=shown,
        x="excess_loss",
        y="excess_auc",
        hue="group",
        hue_order=groups,
        size="checkpoint",
        sizes=(15, 70),
        ax=ax,
        palette=palette,
        legend=False,
    )
    for group in groups:  # the legend's colour entries
        ax.scatter([], [], color=palette[group], s=30, label=group)
    losses = table["excess_loss"] if families is None else pd.concat([table["excess_loss"], families["excess_loss"]])
    x = np.geomspace(losses[losses > 0].min() / 2, losses.max() * 2, 200)
    ax.plot(x, np.sqrt(2.0 / tau * x), color="C3", linewidth=2, label=r"bound $\sqrt{2(L-L^*)/\tau}$ (Thm 3.4)")
    ax.plot(
        x,
        np.exp(fit["log_constant"]) * x ** fit["exponent"],
        color="k",
        linestyle="--",
        label=rf"fit: exponent {fit['exponent']:.2f} [{fit['low']:.2f}, {fit['high']:.2f}]",
    )
    if tsybakov_rate is not None:
        anchor = np.exp(fit["log_constant"]) * np.median(x) ** fit["exponent"]
        ax.plot(
            x,
            anchor * (x / np.median(x)) ** tsybakov_rate,
            color="C1",
            linestyle=":",
            label=rf"slope $(\mu+1)/(\mu+2)$ = {tsybakov_rate:.3f} (this mixture's small-t $\mu$)",
        )
    if families is not None:
        markers = ["X", "P", "D", "^", "v"]
        positive = (families["excess_auc"] > 0) & (families["excess_loss"] > 0)
        unique = families["unique"].astype(bool)
        for i, (name, members) in enumerate(families[positive & unique].groupby("model", sort=False)):
            ax.plot(
                members["excess_loss"],
                members["excess_auc"],
                marker=markers[i % len(markers)],
                linestyle="-",
                linewidth=0.8,
                markersize=5,
                color=f"C{(i + 4) % 10}",
                alpha=0.8,
                label=f"family: {name}",
            )
        tied = families[positive & ~unique]
        if len(tied):  # not a well-defined score (calibration.score_family_table): shown apart, not on its family's line
            ax.scatter(
                tied["excess_loss"],
                tied["excess_auc"],
                marker="o",
                facecolors="none",
                edgecolors="0.35",
                s=36,
                label="truncation inside a degenerate singular space (not unique; not fitted)",
            )
    ax.axhline(fit["floor"], color="0.6", linewidth=0.8, linestyle="-.", label="regret floor of the fit")
    if "informative" in table:
        largest = float(2.0 * table["E_star"].iloc[0] - 1.0)
        share = float(table["informative"].mean())
        ax.axhline(
            largest,
            color="C3",
            linewidth=0.8,
            linestyle="--",
            label=f"largest possible regret 2E*−1 = {largest:.3f} (bound informative below it: {share:.0%})",
        )
    ax.set(
        xscale="log",
        yscale="log",
        xlabel=r"excess contrastive risk $L(s)-L^*$ (nats)",
        ylabel=r"retrieval regret $\mathcal{E}^*-\mathcal{E}(s)$",
        title="Calibration along training and along score families (C2)",
    )
    ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=2, frameon=False)  # below the plot
    return fig
