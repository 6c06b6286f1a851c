"""Figures, drawn with seaborn in a style readable in a paper. Plotting only: no computation
beyond reshaping tables, so restyling never recomputes anything."""

from __future__ import annotations

import matplotlib
import matplotlib.ticker

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import seaborn as sns  # noqa: E402


def _style():
    sns.set_theme(context="paper", style="whitegrid", font_scale=1.1)


def plot_gmm_spectrum(spectrum: pd.DataFrame, truncation: pd.DataFrame, reference: dict | None = None):
    """A1: (a) eigenvalue decay λ_i of the PMI operator; (b) tail sum Σ_{i>D} λ_i and excess risk
    L(s_D) − L* of the truncation vs D, with the paper's Table 1 values overlaid when given."""
    _style()
    fig, (ax_spec, ax_trunc) = plt.subplots(1, 2, figsize=(9.0, 3.6), constrained_layout=True)

    positive = spectrum[spectrum["eigenvalue"] > 0]
    sns.lineplot(data=positive, x="index", y="eigenvalue", marker="o", ax=ax_spec, color="C0")
    ax_spec.set(yscale="log", xlabel="index i", ylabel=r"eigenvalue $\lambda_i$", title="(a) spectrum of the PMI operator")

    long = truncation.melt(id_vars="D", value_vars=["tail_sum", "trunc_excess_risk"], var_name="quantity", value_name="value")
    names = {"tail_sum": r"tail sum $\sum_{i>D}\lambda_i$", "trunc_excess_risk": r"excess risk $L(s_D)-L^*$"}
    long["quantity"] = long["quantity"].map(names)
    sns.lineplot(data=long, x="D", y="value", hue="quantity", marker="o", ax=ax_trunc, palette=["C0", "C1"])
    for key, color in (("tail_sum", "C0"), ("trunc_excess_risk", "C1")):
        _overlay_reference(ax_trunc, reference, key, color, f"paper: {names[key]}")
    ax_trunc.set(yscale="log", xlabel="representation dimension D", ylabel="value", title="(b) spectral truncation")
    _log2_dims_axis(ax_trunc, truncation["D"].unique())
    ax_trunc.legend(title=None, fontsize=8)
    return fig


def _overlay_reference(ax, reference: dict | None, key: str, color: str, label: str):
    if reference is None:
        return
    dims = sorted(int(d) for d in reference[key])
    ax.scatter(dims, [reference[key][d] for d in dims], s=90, facecolors="none", edgecolors=color,
               linewidths=1.5, label=label, zorder=3)


def _log2_dims_axis(ax, dims):
    ax.set_xscale("log", base=2)
    dims = sorted(dims)
    ax.set_xticks(dims, labels=[str(d) for d in dims])
    ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())


def plot_gmm_mlp(table: pd.DataFrame, reference: dict | None = None):
    """A2: population excess risk and shift-removed L2 distance to τ·PMI vs D, for the two-tower
    MLP (mean over seeds, bars: min–max) and for the spectral truncation s_D; paper 2 Table 1
    columns 3–4 overlaid when comparable."""
    _style()
    fig, axes = plt.subplots(1, 2, figsize=(9.0, 3.6), constrained_layout=True)
    panels = (("excess_risk", "spectral_excess_risk", r"excess risk $L(s)-L^*$", "(a) excess contrastive risk"),
              ("l2_distance", "spectral_l2_distance", r"$\min_c\|s+c(x)-\tau\,\mathrm{PMI}\|_{L_2}$", "(b) distance to the Bayes score"))
    for ax, (mlp_col, spec_col, ylabel, title) in zip(axes, panels):
        sns.lineplot(data=table, x="D", y=mlp_col, errorbar=("pi", 100), marker="o", ax=ax, color="C0", label="two-tower MLP")
        spectral = table.groupby("D", as_index=False)[spec_col].first()
        sns.lineplot(data=spectral, x="D", y=spec_col, marker="s", linestyle="--", ax=ax, color="C2", label=r"spectral truncation $s_D$")
        _overlay_reference(ax, reference, mlp_col, "C0", "paper: MLP")
        ax.set(yscale="log", xlabel="representation dimension D", ylabel=ylabel, title=title)
        _log2_dims_axis(ax, table["D"].unique())
        ax.legend(fontsize=8)
    return fig


def plot_lcgm(table: pd.DataFrame, elbow: dict):
    """A3: linear-probe R² of f(x) → p(z|x) and g(y) → log p(z|y)/π_k, and the held-out excess risk,
    vs D (mean over seeds, bars: min–max), with D = K and the detected elbow marked."""
    _style()
    fig, (ax_r2, ax_risk) = plt.subplots(1, 2, figsize=(9.0, 3.6), constrained_layout=True)
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
    ax_risk.set(yscale="log", ylabel=r"held-out $\hat L(s)-\hat L(\tau\,\mathrm{PMI})$", title="(b) held-out excess risk")
    return fig


def plot_tsybakov(cdf: pd.DataFrame, table: pd.DataFrame, reference: dict | None = None):
    """A4: (a) empirical P(|r(x,y) − r(x,y')| ≤ t) on log-log axes with the fitted c·t^μ̂ over the
    configured window; (b) μ̂ and its bootstrap interval for every window, paper's μ̂ as a line."""
    _style()
    fig, (ax_cdf, ax_mu) = plt.subplots(1, 2, figsize=(9.0, 3.6), constrained_layout=True)
    sns.lineplot(data=cdf, x="t", y="cdf", ax=ax_cdf, color="C0", label=r"$\hat F(t)$")
    fit = table.iloc[0]
    t = cdf["t"][(cdf["t"] >= fit["t_min"]) & (cdf["t"] <= fit["t_max"])]
    ax_cdf.plot(t, np.exp(fit["log_c"]) * t ** fit["mu_hat"], color="C1", linewidth=3, alpha=0.7,
                label=rf"fit on [{fit['t_min']:.0e}, {fit['t_max']:.0e}]: $\hat\mu$ = {fit['mu_hat']:.3f}")
    ax_cdf.set(xscale="log", yscale="log", xlabel="t", ylabel=r"$P(|r(x,y)-r(x,y')|\leq t)$", title="(a) margin of the density ratio")
    ax_cdf.legend(fontsize=8)
    labels = [f"[{a:.0e}, {b:.0e}]" for a, b in zip(table["t_min"], table["t_max"])]
    y = np.arange(len(table))
    ax_mu.errorbar(table["mu_hat"], y, xerr=[table["mu_hat"] - table["ci_low"], table["ci_high"] - table["mu_hat"]],
                   fmt="o", color="C0", capsize=3)
    ax_mu.scatter([fit["mu_hat"]], [0], s=120, facecolors="none", edgecolors="C1", linewidths=2, label="configured window")
    if reference is not None:
        ax_mu.axvline(reference["mu_hat"], color="C3", linestyle="--", label=rf"paper: $\hat\mu$ = {reference['mu_hat']:.4f}")
    ax_mu.set_yticks(y, labels=labels)
    ax_mu.invert_yaxis()
    ax_mu.set(xlabel=r"$\hat\mu$ (95% bootstrap interval)", ylabel="fit window", title=r"(b) $\hat\mu$ depends on the window")
    ax_mu.legend(fontsize=8)
    return fig
