"""The figure of S1, S2, S3, S4, drawn with seaborn in the pipeline's style: plotting only, no computation beyond
reshaping tables, so restyling never recomputes anything.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns

from crlrepro.runtime.figures import FigureStyle, apply_style

__all__ = ["plot_ssl", "SSL_COLUMN", "SSL_EVALUATIONS", "SSL_TITLE"]


SSL_COLUMN = {"S1": "ratio", "S2": "similarity", "S3": "balance", "S4": "augmentation"}


SSL_TITLE = {
    "S1": "S1: balanced loss (λ/ν) and the loss variants",
    "S2": "S2: similarity",
    "S3": "S3: training-data balance",
    "S4": "S4: augmentations and prototype bias",
}


SSL_EVALUATIONS = {"linear_top1": "linear probe", "linear_top1_tail": "linear, tail classes", "knn_top1": "k-NN"}


def _ssl_arm(row, experiment: str) -> str:
    """The x label of a row: its arm, or the baseline it is."""
    if row.get("model", "trained") != "trained":
        return {"raw_pixels": "raw pixels", "random_encoder": "untrained encoder"}[row["model"]]
    if experiment == "S1":
        loss = row.get("loss", "balanced")
        return f"λ/ν={row['ratio']:g}" if loss == "balanced" else {"supervised_prototype": "supervised\n(labels)"}.get(loss, loss)
    return str(row[SSL_COLUMN[experiment]])


def plot_ssl(experiment: str, table: pd.DataFrame, style: FigureStyle | None = None):
    """:func:`_plot_ssl` with seaborn's strip-plot jitter drawn from a fixed seed: seaborn draws it from
    NumPy's global generator, so without this the same table gives other bytes in every process. The
    caller's global state is restored afterwards."""
    state = np.random.get_state()  # noqa: NPY002 (seaborn's jitter reads the global generator)
    np.random.seed(0)  # noqa: NPY002
    try:
        return _plot_ssl(experiment, table, style)
    finally:
        np.random.set_state(state)  # noqa: NPY002


def _plot_ssl(experiment: str, table: pd.DataFrame, style: FigureStyle | None = None):
    """Paper 3: top-1 of every probe (linear, k-NN, few-label; S3 also the tail classes) per arm of the
    experiment, beside the baselines (raw pixels, untrained encoder) on the same axis (points: seeds;
    marker and bar: mean and range; diverged runs marked). S1 adds Thms 4.4 and 4.6 per run (left
    against right side), S4 the prototype bias against accuracy."""
    apply_style(style)
    table = table.copy()
    table["arm"] = [_ssl_arm(row, experiment) for row in table.to_dict("records")]
    if "diverged" in table:
        table["diverged"] = table["diverged"].fillna(False).astype(bool)
    else:
        table["diverged"] = False
    metrics = [m for m in SSL_EVALUATIONS if m in table and (m != "linear_top1_tail" or experiment == "S3")]
    few = sorted((c for c in table if c.startswith("few") and c.endswith("_top1")), key=lambda c: int(c[3:-5]))
    metrics += few + ([f"{c}_tail" for c in few if f"{c}_tail" in table] if experiment == "S3" else [])
    long = table.melt(id_vars=["arm", "seed", "diverged"], value_vars=metrics, var_name="evaluation", value_name="top-1")

    def label(metric: str) -> str:
        if metric in SSL_EVALUATIONS:
            return SSL_EVALUATIONS[metric]
        count = metric[3:].split("_")[0]
        return f"{count} label(s)/class" + (", tail classes" if metric.endswith("_tail") else "")

    long["evaluation"] = long["evaluation"].map(label)
    panels = 2 if experiment in ("S1", "S4") else 1
    fig, axes = plt.subplots(
        1,
        panels,
        figsize=(6.4 if panels == 1 else 9.2, 4.2),  # at most 9.2 inches wide, the second panel's legend beside it
        constrained_layout=True,
        squeeze=False,
        gridspec_kw={"width_ratios": [1.4, 1] if panels == 2 else [1]},
    )
    ax = axes[0, 0]
    order = list(dict.fromkeys(table["arm"]))
    sns.pointplot(
        data=long,
        x="arm",
        y="top-1",
        hue="evaluation",
        order=order,
        errorbar=("pi", 100),
        dodge=0.5,
        linestyles="none",
        capsize=0.05,
        ax=ax,
        markersize=4,
    )
    sns.stripplot(
        data=long,
        x="arm",
        y="top-1",
        hue="evaluation",
        order=order,
        dodge=True,
        ax=ax,
        palette="dark:0.4",
        legend=False,
        size=2,
        alpha=0.5,
    )
    trained = int((table.get("model", pd.Series("trained", index=table.index)) == "trained").groupby(table["arm"]).any().sum())
    if trained < len(order):
        ax.axvline(trained - 0.5, color="0.6", linestyle=":")
    for i, value in enumerate(order):
        diverged = int(table.loc[table["arm"] == value, "diverged"].sum())
        if diverged:
            ax.annotate(
                f"diverged: {diverged}/{(table['arm'] == value).sum()}",
                (i, 0.05),
                xycoords=("data", "axes fraction"),
                ha="center",
                fontsize=7,
                color="C3",
            )
    ax.set(xlabel="", title=SSL_TITLE[experiment] + "\n(right of the dotted line: baselines)")  # two lines: it fits
    ax.tick_params(axis="x", labelrotation=30, labelsize=8)
    ax.legend(fontsize=7, ncols=3, loc="upper center", bbox_to_anchor=(0.5, -0.22), frameon=False)
    trained_runs = (
        table[(table.get("model", "trained") == "trained") & ~table["diverged"]]
        if "model" in table
        else table[~table["diverged"]]
    )
    if experiment == "S4":
        y = few[0] if few else "linear_top1"  # the probe with the most headroom
        relative = "prototype_bias_relative" in trained_runs  # the scale-invariant bias S4's ordering claims test
        sns.scatterplot(
            data=trained_runs,
            x="prototype_bias_relative" if relative else "prototype_bias",
            y=y,
            hue="augmentation",
            ax=axes[0, 1],
            s=40,
        )
        axes[0, 1].set(
            xlabel="prototype bias ÷ prototypes' spread" if relative else "prototype representation bias (unit features)",
            ylabel=f"{label(y)} top-1",
            title="bias vs accuracy (each point a run)",
        )
    if experiment == "S1" and "attraction_lhs" in table:
        ax = axes[0, 1]
        side = "worst_" if "attraction_worst_lhs" in trained_runs else ""  # the claims' points: each run's worst
        slack = pd.concat(
            [
                pd.DataFrame(
                    {
                        "bound": label,
                        "arm": trained_runs["arm"],
                        "slack": trained_runs[f"{name}_{side}rhs"] - trained_runs[f"{name}_{side}lhs"],
                    }
                )
                for name, label in (("attraction", "Thm 4.4\n(attraction)"), ("repulsion", "Thm 4.6\n(repulsion)"))
            ]
        )
        sns.stripplot(data=slack, x="bound", y="slack", hue="arm", ax=ax, size=4, jitter=0.25)
        ax.axhline(0.0, color="C3", linestyle="--", linewidth=1)
        ax.set_yscale("symlog", linthresh=1e-4)
        ax.margins(y=0.15)
        ax.set(
            xlabel="",
            ylabel=f"right side − left side ({'worst point' if side else 'mean'} of each run; symlog)",
            title="Sec. 4 bounds (violated below the red line)",
        )
        # beside the panel, where it hides no run
        ax.legend(fontsize=7, title="run", title_fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    return fig
