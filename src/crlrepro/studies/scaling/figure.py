"""The figure of C3, C4, drawn with seaborn in the pipeline's style: plotting only, no computation beyond
reshaping tables, so restyling never recomputes anything.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns

from crlrepro.runtime.figures import FigureStyle, apply_style, log_ticks_at, slope_guide

__all__ = ["held_at", "plot_budget", "plot_scaling"]


def _mechanism_panel(ax, deviations: pd.DataFrame, deviation_slopes: pd.DataFrame, axis: str, colors: dict):
    """One axis of C3's mechanism: every fixed score's deviation (thin) and the family's supremum (thick, with
    its bootstrap band) per regime, the fit window shaded and the predicted slope through the window's start."""
    for regime, rows in deviations[deviations["axis"] == axis].groupby("regime", sort=True):
        color = colors.get(regime, "C2")
        for _, line in rows[rows["score"] != "sup"].groupby("score"):
            ax.plot(line["at"], line["deviation"], color=color, linewidth=0.7, alpha=0.35)
        sup = rows[rows["score"] == "sup"].sort_values("at")
        fit = deviation_slopes[
            (deviation_slopes["regime"] == regime) & (deviation_slopes["axis"] == axis) & (deviation_slopes["score"] == "sup")
        ].iloc[0]
        name = {"both": "both regimes", "inbatch": "in-batch"}.get(regime, regime.upper())
        ax.plot(
            sup["at"],
            sup["deviation"],
            "o-",
            color=color,
            linewidth=2,
            label=f"{name} sup: slope {fit['slope']:.2f} [{fit['low']:.2f}, {fit['high']:.2f}]",
        )
        ax.fill_between(sup["at"], sup["low"], sup["high"], color=color, alpha=0.2)
        xs = sup["at"][sup["at"] >= fit["fit_from"]].to_numpy(dtype=float)
        slope_guide(
            ax,
            xs,
            2.0 * float(sup["high"].max()),
            fit["predicted"],
            color,
            f"{'SCRL law' if regime == 'inbatch' else 'Thm 4.5'}: slope {fit['predicted']:g} (guide)",
        )
        ax.axvspan(fit["fit_from"], fit["fit_to"], color="0.95", zorder=0)
    ax.set(xscale="log", yscale="log")
    log_ticks_at(ax, deviations[deviations["axis"] == axis]["at"].unique())
    ax.legend(fontsize=7.5)


def held_at(runs: pd.DataFrame, fixed: str) -> str:
    """The value a sweep holds fixed, for a panel's title: "m = 64", or per regime where the regimes' differ
    ("m = 64 (SCRL), 256 (SSCRL)")."""
    values = runs.groupby("regime", sort=True)[fixed].first()
    if values.nunique() == 1:
        return f"{fixed} = {int(values.iloc[0])}"
    return f"{fixed} = " + ", ".join(f"{int(value)} ({regime.upper()})" for regime, value in values.items())


def plot_scaling(
    table: pd.DataFrame,
    slopes: pd.DataFrame,
    deviations: pd.DataFrame | None = None,
    deviation_slopes: pd.DataFrame | None = None,
    style: FigureStyle | None = None,
    e_star: float | None = None,
    gap_rates: pd.DataFrame | None = None,
    design: pd.DataFrame | None = None,
    auc_rates: pd.DataFrame | None = None,
):
    """C3. Top: Thm 4.5's mechanism at fixed scores, (a) the inner term's deviation against m at n = ∞ (SCRL:
    the bias |E inner|; SSCRL: E|inner| of the shared pool; in-batch: the bias of a batch of m + 1 pairs) and (b) the
    outer term's against n at m = ∞, every
    score thin and the family's supremum thick with its band; then the trained model's |gap| against (c) m and
    (d) n (mean over seeds, bars: min–max), each with its bound's slope as a guide (a rate, whose constant is
    unknown, so the guide is not anchored to the data) and, with ``gap_rates``
    (:func:`crlrepro.experiments.rate_fits.gap_rate_table`), the fit c + a·x^(−r) the claim rows read, drawn over its
    window with r in the legend (the log-log slope, which the floor bends toward 0, stays in the legend only where no
    fit is given). Bottom: downstream AUC and recall@1 against m and n, the AUC
    with the Bayes-optimal E* (``e_star``) and chance (½). ``design``: the marginal-gain design's runs (n_sweep.gain,
    its own n and seeds), drawn in the AUC-vs-n panel beside the n sweep (hollow squares, mean over its seeds), with the
    fit E* − c − a·n^(−r) that C3.marginal_gain_n reads from ``auc_rates`` where it was made; that panel then spans
    the AUCs and E* (the approach the design is for), and chance only where it falls within."""
    apply_style(style)
    # Eight panels in a grid of two columns, 8.5 inches wide: shown at a page's width (about 750 px) its 7.5-point
    # legends stay about 9 px tall (two rows of four, 17 inches wide, showed them at about 4 px)
    fig, grid = plt.subplots(4, 2, figsize=(8.5, 15.0), constrained_layout=True)
    axes = np.array([[grid[0, 0], grid[0, 1], grid[1, 0], grid[1, 1]], [grid[2, 0], grid[2, 1], grid[3, 0], grid[3, 1]]])
    colors = {"scrl": "C0", "sscrl": "C1", "both": "C2", "inbatch": "C3"}
    if deviations is not None and deviation_slopes is not None:
        _mechanism_panel(axes[0, 0], deviations, deviation_slopes, "m", colors)
        axes[0, 0].set(xlabel="negatives m", ylabel=r"inner-term deviation", title="(a) fixed scores, n = ∞: inner term vs m")
        _mechanism_panel(axes[0, 1], deviations, deviation_slopes, "n", colors)
        axes[0, 1].set(xlabel="anchors n", ylabel=r"$\mathbb{E}|$outer term$|$", title="(b) fixed scores, m = ∞: outer term vs n")
    for ax, axis, letter in ((axes[0, 2], "m", "c"), (axes[0, 3], "n", "d")):
        ends = []  # every bar's ends: the axis spans them all (a min–max bar ran off the bottom of the log axis)
        for regime, runs in table[table["sweep"] == axis].groupby("regime", sort=True):
            gap = runs.assign(abs_gap=runs["gap"].abs()).groupby(axis)["abs_gap"]
            mean, lo, hi = gap.mean(), gap.min(), gap.max()
            ends += [*lo[lo > 0], *hi[hi > 0]]
            fit = slopes[(slopes["regime"] == regime) & (slopes["axis"] == axis) & (slopes["quantity"] == "gap")].iloc[0]
            label = f"{regime.upper()}: slope {fit['slope']:.2f} [{fit['low']:.2f}, {fit['high']:.2f}]"
            rate = None
            if gap_rates is not None:
                sweep = gap_rates["sweep"] if "sweep" in gap_rates else gap_rates["axis"]
                match = gap_rates[(gap_rates["regime"] == regime) & (sweep == axis)]
                rate = match.iloc[0] if len(match) else None
            if rate is not None and np.isfinite(rate["rate"]):
                grid = np.geomspace(float(rate["window_from"]), float(rate["fit_to"]), 50)
                tail = "" if bool(rate["fits"]) else "\nno tail fits: pre-asymptotic"  # a second line: the panel is narrow
                label = (
                    f"{regime.upper()}: r = {rate['rate']:.2f} [{rate['rate_low']:.2f}, {rate['rate_high']:.2f}] "
                    f"of c + a·{axis}^(−r), {axis} ≥ {rate['window_from']:g}{tail}"
                )
                ax.plot(grid, rate["floor"] + rate["amplitude"] * grid ** (-rate["rate"]), "--", color=colors[regime], lw=1)
            elif rate is not None and "trained_from" in rate.index:  # no rate read: say why beside the plain slope
                start = float(rate["trained_from"])
                if not np.isfinite(start):
                    label += "\ndid not train: no rate read"
                elif start > float(mean.index.min()):
                    label += f"\ntrained from {axis} = {start:g} only: no rate read"
            ax.errorbar(mean.index, mean, yerr=[mean - lo, hi - mean], fmt="o-", color=colors[regime], capsize=3, label=label)
            slope_guide(
                ax,
                mean.index,
                2.0 * float(hi.max()),
                fit["predicted"],
                colors[regime],
                f"bound's slope {fit['predicted']:g} (guide)",
            )
        fixed = "n" if axis == "m" else "m"
        ax.set(
            xscale="log",
            yscale="log",
            xlabel=axis,
            ylabel=r"$|L(\hat w)-\hat L_S(\hat w)|$ (nats)",
            title=f"({letter}) trained model's gap vs {axis} ({held_at(table[table['sweep'] == axis], fixed)})",
        )
        log_ticks_at(ax, table[table["sweep"] == axis][axis].unique())
        if ends:
            bottom, top = ax.get_ylim()
            ax.set_ylim(min(bottom, min(ends) / 1.5), max(top, max(ends) * 1.5))
        ax.legend(fontsize=7.5)
    for col, (axis, metric, label) in enumerate(
        (
            ("m", "auc", r"retrieval AUC $\mathcal{E}(\hat w)$"),
            ("m", "recall_at_1", "recall@1"),
            ("n", "auc", r"retrieval AUC $\mathcal{E}(\hat w)$"),
            ("n", "recall_at_1", "recall@1"),
        )
    ):
        ax = axes[1, col]
        runs = table[table["sweep"] == axis].assign(regime=lambda t: t["regime"].str.upper())  # SCRL, as elsewhere
        palette = {name.upper(): colour for name, colour in colors.items()}
        sns.lineplot(data=runs, x=axis, y=metric, hue="regime", marker="o", errorbar=("pi", 100), ax=ax, palette=palette)
        zoomed = metric == "auc" and axis == "n" and design is not None and len(design) > 0
        if zoomed:  # the approach to the plateau, which the design is for: the axis spans the AUCs and E*, not chance
            _design_curve(ax, design, auc_rates, e_star, colors)
            low = min(float(runs["auc"].min()), float(design["auc"].min()))
            high = max(float(runs["auc"].max()), float(design["auc"].max()), e_star if e_star is not None else 0.0)
            pad = 0.05 * (high - low)
            ax.set_ylim(low - pad, high + pad)
        if metric == "auc":
            if e_star is not None:
                ax.axhline(e_star, color="k", linestyle="--", linewidth=1, label=f"Bayes E* = {e_star:.3f}")
            if not zoomed or low - pad <= 0.5:
                ax.axhline(0.5, color="0.5", linestyle=":", linewidth=1, label="chance ½")
            ax.legend(fontsize=7.5, loc="lower right" if zoomed else "best")
        title = f"({'efgh'[col]}) {label.split(' $')[0]} vs {axis} ({held_at(runs, 'n' if axis == 'm' else 'm')})"
        ax.set(xscale="log", xlabel=axis, ylabel=label, title=title)
        log_ticks_at(ax, runs[axis].unique())
    return fig


def _design_curve(ax, design: pd.DataFrame, auc_rates: pd.DataFrame | None, e_star: float | None, colors: dict):
    """The marginal-gain design's mean AUC per n and regime (hollow squares), and the fit its row reads (dotted)."""
    seeds = sorted(int(s) for s in design["seed"].unique())
    for regime, runs in design.groupby("regime", sort=True):
        mean = runs.groupby("n")["auc"].mean()
        label = f"{regime.upper()}: marginal-gain design ({len(seeds)} seeds, {seeds[0]}–{seeds[-1]})"
        rate = None
        if auc_rates is not None and "sweep" in auc_rates:
            match = auc_rates[(auc_rates["regime"] == regime) & (auc_rates["sweep"] == "gain")]
            rate = match.iloc[0] if len(match) else None
        if rate is not None and e_star is not None and np.isfinite(rate["rate"]):
            grid = np.geomspace(float(rate["window_from"]), float(mean.index.max()), 50)
            ax.plot(grid, e_star - rate["floor"] - rate["amplitude"] * grid ** (-rate["rate"]), ":", color=colors[regime], lw=1)
            label += f": r = {rate['rate']:.2f} [{rate['rate_low']:.2f}, {rate['rate_high']:.2f}]"
        ax.plot(mean.index, mean, "s", mfc="none", color=colors[regime], ms=5, label=label)


def plot_budget(table: pd.DataFrame, summary: pd.DataFrame, style: FigureStyle | None = None):
    """C4: excess risk and AUC per split m (n = N/m) of the fixed budget N = n·m anchor–negative pairs scored,
    both regimes (mean over seeds, bars: min–max), with each regime's fitted shape (a + b/m + c/√n for SCRL,
    a + b/√m + c/√n for SSCRL) and the m* it recommends."""
    apply_style(style)
    fig, (ax_risk, ax_auc) = plt.subplots(1, 2, figsize=(9.5, 3.8), constrained_layout=True)
    colors = {"scrl": "C0", "sscrl": "C1"}
    for regime, runs in table.groupby("regime", sort=True):
        s = summary[summary["regime"] == regime].iloc[0]
        risk = runs.groupby("m")["excess_risk"]
        mean = risk.mean()
        ax_risk.errorbar(
            mean.index,
            mean,
            yerr=[mean - risk.min(), risk.max() - mean],
            fmt="o",
            color=colors[regime],
            capsize=3,
            label=f"{regime.upper()} measured",
        )
        m = np.geomspace(mean.index.min(), mean.index.max(), 200)
        inner = 1.0 / m if regime == "scrl" else 1.0 / np.sqrt(m)
        ax_risk.plot(
            m,
            s["a"] + s["b"] * inner + s["c"] / np.sqrt(s["total"] / m),
            color=colors[regime],
            linestyle="--",
            label=f"fit {s['shape']}, m* = {s['recommended_m']:.3g}",
        )
        if np.isfinite(s["recommended_m"]):
            ax_risk.axvline(s["recommended_m"], color=colors[regime], linestyle=":", linewidth=1)
    sns.lineplot(data=table, x="m", y="auc", hue="regime", marker="o", errorbar=("pi", 100), ax=ax_auc, palette=colors)
    total = int(summary["total"].iloc[0])
    ax_risk.set(
        yscale="log",
        xlabel=f"negatives per anchor m (n = {total}/m)",
        ylabel=r"excess risk $L(\hat w)-L^*$ (nats)",
        title=f"(a) fixed budget N = n·m = {total}",
    )
    ax_risk.legend(fontsize=7)
    ax_auc.set(xlabel="m", ylabel=r"retrieval AUC $\mathcal{E}(\hat w)$", title="(b) downstream AUC per split")
    for ax in (ax_risk, ax_auc):
        log_ticks_at(ax, table["m"].unique())
    return fig
