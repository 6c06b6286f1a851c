"""The figure of A2, drawn with seaborn in the pipeline's style: plotting only, no computation beyond
reshaping tables, so restyling never recomputes anything.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import matplotlib.ticker
import pandas as pd
import seaborn as sns

from crlrepro.runtime.figures import FigureStyle, apply_style, log2_dims_axis, overlay_reference

__all__ = ["plot_gmm_mlp"]


def plot_gmm_mlp(
    table: pd.DataFrame,
    reference: dict | None = None,
    style: FigureStyle | None = None,
    minima: pd.DataFrame | None = None,
    bound: pd.DataFrame | None = None,
    decay: pd.DataFrame | None = None,
    groups: pd.DataFrame | None = None,
):
    """A2: (a) population excess risk and (b) shift-removed L2 distance to τ·PMI vs D, for the two-tower MLP (mean
    over seeds, bars: min–max) and for the spectral truncation s_D; paper 2 Table 1 columns 3–4 overlaid when
    comparable. With ``minima``: (c) the MLP's distance under every candidate definition (solid) beside the smallest
    distance any rank-D score attains under it (dashed) and the paper's column. With ``bound``: (d) (inf L − L*) over
    the tail Σ_{i>D} λ_i for s_D and the best MLP against the bound's constant C(α, B). With ``decay`` and ``groups``:
    (e) the spectrum in pairs with its geometric, power and stretched-exponential fits, (f) the pair ratio."""
    apply_style(style)
    extra = minima is not None or bound is not None or groups is not None
    rows = (3 if groups is not None else 2) if extra else 1
    fig, axes = plt.subplots(
        rows,
        2,
        figsize=(9.0, 3.6 * rows),
        constrained_layout=True,
        squeeze=False,  # two columns, at most 9 inches wide
    )
    axes = axes.ravel()
    panels = (
        ("excess_risk", "spectral_excess_risk", r"excess risk $L(s)-L^*$ (nats)", "(a) excess contrastive risk"),
        (
            "l2_distance",
            "spectral_l2_distance",
            r"$\min_c\|s+c(x)-\tau\,\mathrm{PMI}\|_{L_2}$",
            "(b) distance to the Bayes score",
        ),
    )
    for ax, (mlp_col, spec_col, ylabel, title) in zip(axes[: len(panels)], panels, strict=True):  # the first row
        sns.lineplot(data=table, x="D", y=mlp_col, errorbar=("pi", 100), marker="o", ax=ax, color="C0", label="two-tower MLP")
        spectral = table.groupby("D", as_index=False)[spec_col].first()
        sns.lineplot(
            data=spectral, x="D", y=spec_col, marker="s", linestyle="--", ax=ax, color="C2", label=r"spectral truncation $s_D$"
        )
        overlay_reference(ax, reference, mlp_col, "C0", "paper: MLP")
        ax.set(yscale="log", xlabel="representation dimension D", ylabel=ylabel, title=title)
        log2_dims_axis(ax, table["D"].unique())
        ax.legend(fontsize=8)
    if not extra:
        return fig
    if minima is not None:
        ax = axes[2]
        ranked = minima[minima["D"] > 0]
        # one colour per definition, one line style per score: a legend of definitions + two styles, not their product
        handles = []
        for k, (name, group) in enumerate(ranked.groupby("definition", sort=False)):
            color = f"C{k}"
            if f"l2_{name}" in table:
                mean = table.groupby("D")[f"l2_{name}"].mean()
                ax.plot(mean.index, mean.to_numpy(), "o-", color=color)
            ax.plot(group["D"], group["minimum"], "s--", color=color, alpha=0.8)
            handles.append(matplotlib.lines.Line2D([], [], color=color, linewidth=4, label=name))
        handles += [
            matplotlib.lines.Line2D([], [], color="0.3", marker="o", linestyle="-", label="two-tower MLP"),
            matplotlib.lines.Line2D([], [], color="0.3", marker="s", linestyle="--", label="rank-D minimum"),
        ]
        if reference is not None:
            overlay_reference(ax, reference, "l2_distance", "k", "paper's column")
            handles += [h for h, label in zip(*ax.get_legend_handles_labels(), strict=True) if label == "paper's column"]
        ax.set(
            yscale="log",
            xlabel="representation dimension D",
            ylabel="L2 distance to τ·PMI",
            title="(c) the L2 column under each definition",
        )
        log2_dims_axis(ax, ranked["D"].unique())
        ax.legend(handles=handles, fontsize=7, title="definition (colour), score (line)", title_fontsize=7)
    if bound is not None:
        ax = axes[3]
        ax.plot(bound["D"], bound["spectral_ratio"], "s--", color="C2", label=r"$s_D$: $(L-L^*)/\sum_{i>D}\lambda_i$")
        ax.plot(bound["D"], bound["trained_ratio"], "o-", color="C0", label="best MLP: same ratio")
        ax.plot(bound["D"], bound["constant"], "^:", color="C3", label=r"bound's constant $C(\alpha, B_D)$")
        ax.set(
            yscale="log",
            xlabel="representation dimension D",
            ylabel="ratio to the spectral tail",
            title="(d) Sec. 3 bound: excess / tail vs its constant",
        )
        log2_dims_axis(ax, bound["D"].unique())
        ax.legend(fontsize=7)
    if groups is not None and decay is not None:
        ax = axes[4]
        j = groups["group"].to_numpy(dtype=float)
        ax.plot(j, groups["sum"], "o", color="C0", label=r"$\lambda_{2j-1}+\lambda_{2j}$")
        for _, fit in decay[decay["group_size"] == 2].iterrows():
            ax.plot(
                j,
                groups[f"fit_{fit['model']}"],
                "-",
                label=f"{fit['model']} ({fit['parameter']} {fit['value']:.3g}), rms log {fit['rms_log']:.2f}",
            )
        ax.set(yscale="log", xlabel="pair j", ylabel="pair sum", title="(e) spectrum in pairs and its decay fits")
        ax.legend(fontsize=7)
        ax = axes[5]
        ax.plot(j, groups["ratio_next"], "o-", color="C1")
        ax.set(xlabel="pair j", ylabel=r"$P_{j+1}/P_j$", title="(f) pair ratio: constant if geometric")
    for ax in axes[(4 if groups is None else 6) :]:
        ax.set_visible(False)
    return fig
