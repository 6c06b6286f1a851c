"""The figure of A4, drawn with seaborn in the pipeline's style: plotting only, no computation beyond
reshaping tables, so restyling never recomputes anything.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from crlrepro.runtime.figures import FigureStyle, apply_style

__all__ = ["plot_tsybakov"]


def plot_tsybakov(
    cdf: pd.DataFrame,
    table: pd.DataFrame,
    reference: dict | None = None,
    style: FigureStyle | None = None,
    *,
    curve: pd.DataFrame | None = None,
    windows: pd.DataFrame | None = None,
    limit: dict | None = None,
    tolerance: float = 0.05,
):
    """A4: (a) P(|r(x,y) − r(x,y')| ≤ t) on log-log axes: the exact F (``curve``, quadrature) with the Monte-Carlo
    F̂ beside it and the fit c·t^μ̂ over the configured window; (b) the local slope d log F / d log t of the exact F
    over t, with the paper's μ̂ ± ``tolerance`` and the slope's small-t limit μ₀ (``limit``, as rule tsybakov_exact wrote
    it: crlrepro.theory.tsybakov.admissible_exponent); (c) the
    exact slope over every scanned window [t_min, t_min·10^w]
    (``windows``) against t_min, one line per width w, with the Monte-Carlo μ̂ of the configured windows (bootstrap
    intervals). Without ``curve`` and ``windows`` only the Monte-Carlo panels are drawn."""
    apply_style(style)
    exact = curve is not None and windows is not None
    # at most 9 inches wide (crlrepro.runtime.figures.MAX_FIGURE_INCHES): the exact study's three panels in a grid
    if exact:
        fig, grid = plt.subplots(2, 2, figsize=(9.0, 7.4), constrained_layout=True)
        grid[1, 1].remove()
        axes = [grid[0, 0], grid[0, 1], grid[1, 0]]
    else:
        fig, axes = plt.subplots(1, 2, figsize=(9.0, 3.8), constrained_layout=True)
    ax_cdf = axes[0]
    if exact:
        ax_cdf.plot(curve["t"], curve["cdf"], color="k", linewidth=1.5, label="exact F(t) (quadrature)")
    ax_cdf.plot(cdf["t"], cdf["cdf"], "o", color="C0", markersize=3, label=r"Monte Carlo $\hat F(t)$")
    fit = table.iloc[0]
    t = cdf["t"][(cdf["t"] >= fit["t_min"]) & (cdf["t"] <= fit["t_max"])]
    ax_cdf.plot(
        t,
        np.exp(fit["log_c"]) * t ** fit["mu_hat"],
        color="C1",
        linewidth=3,
        alpha=0.7,
        label=rf"fit on [{fit['t_min']:.0e}, {fit['t_max']:.0e}]: $\hat\mu$ = {fit['mu_hat']:.3f}",
    )
    ax_cdf.set(
        xscale="log", yscale="log", xlabel="t", ylabel=r"$P(|r(x,y)-r(x,y')|\leq t)$", title="(a) margin of the density ratio"
    )
    ax_cdf.legend(fontsize=8)
    if not exact:
        ax_mu = axes[1]
        labels = [f"[{a:.0e}, {b:.0e}]" for a, b in zip(table["t_min"], table["t_max"], strict=True)]
        y = np.arange(len(table))
        ax_mu.errorbar(
            table["mu_hat"],
            y,
            xerr=[table["mu_hat"] - table["ci_low"], table["ci_high"] - table["mu_hat"]],
            fmt="o",
            color="C0",
            capsize=3,
        )
        if reference is not None:
            ax_mu.axvline(reference["mu_hat"], color="C3", linestyle="--", label=rf"paper: $\hat\mu$ = {reference['mu_hat']:.4f}")
            ax_mu.legend(fontsize=8)
        ax_mu.set_yticks(y, labels=labels)
        ax_mu.invert_yaxis()
        ax_mu.set(xlabel=r"$\hat\mu$ (95% bootstrap interval)", ylabel="fit window", title=r"(b) $\hat\mu$ depends on the window")
        return fig
    ax_local, ax_win = axes[1], axes[2]
    ax_local.plot(curve["t"], curve["local_slope"], color="k", marker=".", label=r"$d\log F/d\log t$ (exact)")
    for ax in (ax_local, ax_win):
        if reference is not None:
            mu = float(reference["mu_hat"])
            ax.axhspan(mu - tolerance, mu + tolerance, color="C3", alpha=0.12)
            ax.axhline(mu, color="C3", linestyle="--", label=rf"paper: $\hat\mu$ = {mu:.4f} ± {tolerance:g}")
    if limit is not None and np.isfinite(limit["limit"]):
        ax_local.axhline(
            limit["limit"],
            color="0.4",
            linewidth=1.0,
            linestyle=":",
            label=rf"small-t limit $\mu_0$ = {limit['limit']:.3f} (extrapolated: admissible exponent)",
        )
    ax_local.set(xscale="log", xlabel="t", ylabel="local slope", title="(b) the exponent depends on t")
    ax_local.legend(fontsize=8)
    scan = windows[~windows["configured"]] if "configured" in windows else windows
    for i, (width, rows) in enumerate(scan.groupby("width")):
        ax_win.plot(rows["t_min"], rows["slope"], color=f"C{i}", marker=".", label=f"exact, {width:g}-decade windows")
    ax_win.errorbar(
        table["t_min"],
        table["mu_hat"],
        yerr=[table["mu_hat"] - table["ci_low"], table["ci_high"] - table["mu_hat"]],
        fmt="s",
        color="C4",
        markersize=4,
        capsize=3,
        label="Monte Carlo, configured windows",
    )
    ax_win.set(
        xscale="log",
        xlabel=r"window start $t_{min}$",
        ylabel="log-log slope over the window",
        title=r"(c) which windows give the paper's $\hat\mu$",
    )
    ax_win.legend(fontsize=8)
    return fig
