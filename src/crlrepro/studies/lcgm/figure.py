"""The figure of A3, drawn with seaborn in the pipeline's style: plotting only, no computation beyond
reshaping tables, so restyling never recomputes anything.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import matplotlib.ticker
import pandas as pd
import seaborn as sns

from crlrepro.runtime.figures import FigureStyle, apply_style

__all__ = ["plot_lcgm"]


def plot_lcgm(
    table: pd.DataFrame,
    elbow: dict,
    style: FigureStyle | None = None,
    spectrum: pd.DataFrame | None = None,
    noise: pd.DataFrame | None = None,
    rank: dict | None = None,
    sensitivity: pd.DataFrame | None = None,
    sensitivity_elbows: pd.DataFrame | None = None,
):
    """A3: linear-probe R² of f(x) → p(z|x) and g(y) → log p(z|y)/π_k, and the held-out excess risk,
    vs D (mean over seeds, bars: min–max), with D = K and the detected elbow marked. With ``spectrum``, ``noise``
    and ``rank`` (crlrepro.theory.lcgm.rank_k_evidence): (c) the operator's own spectrum with its floor and the
    exact-rank-K reference, (d) λ_{K+1}/λ_K and the detected rank against the anchors' noise. With
    ``sensitivity``: (e) R²_f − R²_g at D = K over the grid of target noise and class separation; with
    ``sensitivity_elbows`` (crlrepro.experiments.evaluation.sensitivity_elbows) also (f) the alignment (R²_f +
    R²_g)/2 against D at
    every grid point with a D sweep, its elbow marked."""
    apply_style(style)
    extra = spectrum is not None and noise is not None and rank is not None
    sweeps = sensitivity_elbows is not None and sensitivity is not None and len(sensitivity_elbows) > 0
    panels = (4 if extra else 2) + (sensitivity is not None) + sweeps
    # A grid of two columns, 8 inches wide: shown at a page's width (about 750 px), its 7-point text stays about 9 px
    # tall (a strip of six panels, 25 inches wide, was shown at 18 %: 3 px text)
    rows = -(-panels // 2)
    fig, grid = plt.subplots(rows, 2, figsize=(8.0, 3.4 * rows), constrained_layout=True, squeeze=False)
    axes = list(grid.ravel()[:panels])
    for unused in grid.ravel()[panels:]:
        unused.remove()
    ax_r2, ax_risk = axes[0], axes[1]
    long = table.melt(id_vars=["D", "seed"], value_vars=["r2_f", "r2_g"], var_name="probe", value_name="R2")
    long["probe"] = long["probe"].map({"r2_f": r"$f(x)\to p(z|x)$", "r2_g": r"$g(y)\to\log p(z|y)/\pi_k$"})
    sns.lineplot(data=long, x="D", y="R2", hue="probe", errorbar=("pi", 100), marker="o", ax=ax_r2)
    sns.lineplot(data=table, x="D", y="excess_risk", errorbar=("pi", 100), marker="o", ax=ax_risk, color="C3")
    for ax in (ax_r2, ax_risk):
        ax.axvline(elbow["classes"], color="0.3", linestyle="--", linewidth=1, label=f"K = {elbow['classes']}")
        ax.axvline(elbow["elbow"], color="C4", linestyle=":", linewidth=2, label=f"elbow = {elbow['elbow']}")
        ax.set_xlabel("representation dimension D")
        ax.set_xticks(sorted(table["D"].unique()))
        ax.legend(fontsize=8)
    ax_r2.set(ylabel="held-out linear-probe $R^2$", title="(a) probes of the learned encoders")
    ax_risk.set(yscale="log", ylabel=r"held-out $\hat L(s)-\hat L(\tau\,\mathrm{PMI})$ (nats)", title="(b) held-out excess risk")
    if not extra:
        return fig
    ax, k = axes[2], int(rank["classes"])
    ax.errorbar(
        spectrum["i"],
        spectrum["mean"],
        yerr=spectrum["sd"],
        fmt="o",
        color="C0",
        capsize=2,
        label=f"LCGM, {rank['samples']} held-out x, y × {rank['repeats']}",
    )
    ax.plot(spectrum["i"], spectrum["floor"], "--", color="C3", label=f"floor ({rank['floor']['rtol']:g}·Σλ + z·se)")
    positive = spectrum[spectrum["deterministic"] > 0]
    ax.plot(
        positive["i"],
        positive["deterministic"],
        "x",
        color="0.4",
        label="deterministic anchors (rank K exactly; beyond K ~1e-31·λ₁, off the axis)",
    )
    ax.axvline(k + 0.5, color="0.3", linestyle=":", linewidth=1)
    ax.set(
        yscale="log",
        xlabel="index i",
        ylabel=r"eigenvalue $\lambda_i$ of $T^*T$",
        title=f"(c) the operator's own spectrum: rank {rank['floor']['detected_rank']}, K = {k}",
    )
    ax.set_ylim(bottom=max(1e-12, float(spectrum["mean"].min()) / 10))
    # below the panel: inside, it hid the top tick
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=1, frameon=False)
    ax = axes[3]
    ax.plot(noise["noise_x"], noise["ratio"], "o-", color="C0", label=r"$\lambda_{K+1}/\lambda_K$")
    ax.set(
        xscale="log",
        yscale="log",
        xlabel="anchor noise σx",
        ylabel=r"$\lambda_{K+1}/\lambda_K$",
        title="(d) rank K needs deterministic anchors",
    )
    ax.set_xticks(noise["noise_x"].to_numpy(), [f"{v:g}" for v in noise["noise_x"]])
    ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    config_noise = float((noise["noise_x"] / noise["factor"]).iloc[0])  # the sweep's multiples of the config's σx
    ax.axvline(config_noise, color="0.3", linestyle=":", linewidth=1, label="config")
    twin = ax.twinx()
    twin.step(noise["noise_x"], noise["detected_rank"], where="mid", color="C3", label="detected rank")
    twin.set_ylabel("detected rank", color="C3")
    ax.legend(fontsize=7, loc="lower right", framealpha=1.0)  # where no data is; opaque: no gridline through it
    if sensitivity is not None:
        ax = axes[-1 - sweeps]
        at_k = sensitivity[sensitivity["D"] == elbow["classes"]] if "D" in sensitivity else sensitivity
        grid = at_k.pivot_table(index="noise_y", columns="separation", values="r2_f_minus_r2_g")
        sns.heatmap(
            grid,
            annot=at_k.pivot_table(index="noise_y", columns="separation", values="r2_f").round(3).astype(str)
            + "\n"
            + at_k.pivot_table(index="noise_y", columns="separation", values="r2_g").round(3).astype(str),
            fmt="",
            cmap="RdBu",
            center=0.0,
            ax=ax,
            annot_kws={"fontsize": 7},
            cbar_kws={"label": r"$R^2_f - R^2_g$"},
        )
        ax.set(
            xlabel="class separation",
            ylabel="target noise σy",
            title="(e) R²_f (top), R²_g at D = K",
        )
    if sweeps:
        ax = axes[-1]
        for i, row in enumerate(sensitivity_elbows.itertuples()):
            curve = sensitivity[(sensitivity["noise_y"] == row.noise_y) & (sensitivity["separation"] == row.separation)]
            curve = curve.assign(alignment=(curve["r2_f"] + curve["r2_g"]) / 2).sort_values("D")
            (line,) = ax.plot(
                curve["D"],
                curve["alignment"],
                marker="o",
                markersize=3,
                color=f"C{i}",
                label=f"σy = {row.noise_y:g}, sep. {row.separation:g}: elbow {row.elbow}",
            )
            at = curve[curve["D"] == row.elbow]
            ax.plot(at["D"], at["alignment"], marker="*", markersize=12, color=line.get_color(), linestyle="none")
        ax.axvline(elbow["classes"], color="0.3", linestyle="--", linewidth=1)
        ax.set(
            xlabel="representation dimension D",
            ylabel=r"alignment $(R^2_f+R^2_g)/2$",
            title="(f) the elbow (★) across the setting",
        )
        ax.set_xticks(sorted(sensitivity["D"].unique()))
        ax.legend(fontsize=7)
    return fig
