"""Figures, drawn with seaborn in a style readable in a paper. Plotting only: no computation
beyond reshaping tables, so restyling never recomputes anything."""

from __future__ import annotations

from dataclasses import dataclass

import matplotlib
import matplotlib.ticker

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import seaborn as sns  # noqa: E402

from crlrepro.theory.tsybakov import admissible_exponent  # noqa: E402

__all__ = [
    "CONTEXTS", "FigureStyle", "PALETTES", "plot_budget", "plot_calibration", "plot_gmm_mlp", "plot_gmm_spectrum",
    "plot_lcgm", "plot_scaling", "plot_ssl", "plot_tsybakov", "SSL_COLUMN", "SSL_EVALUATIONS", "SSL_TITLE",
    "THEMES"
]


CONTEXTS = ("paper", "notebook", "talk", "poster")
THEMES = ("white", "whitegrid", "dark", "darkgrid", "ticks")
PALETTES = ("deep", "muted", "bright", "pastel", "dark", "colorblind")


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
        for name, value, allowed in (("context", self.context, CONTEXTS), ("theme", self.theme, THEMES),
                                     ("palette", self.palette, PALETTES)):
            if value not in allowed:
                raise ValueError(f"figure style {name} {value!r} is not one of {', '.join(allowed)}")
        if not self.font_scale > 0 or not self.dpi > 0:
            raise ValueError(f"figure style needs font_scale > 0 and dpi > 0, got {self.font_scale!r} and {self.dpi!r}")

    def apply(self) -> None:
        sns.set_theme(context=self.context, style=self.theme, font_scale=self.font_scale, palette=self.palette)


def _style(style: FigureStyle | None):
    (style or FigureStyle()).apply()


def plot_gmm_spectrum(spectrum: pd.DataFrame, truncation: pd.DataFrame, reference: dict | None = None, style: FigureStyle | None = None):
    """A1: (a) eigenvalue decay λ_i of the PMI operator; (b) tail sum Σ_{i>D} λ_i and excess risk
    L(s_D) − L* of the truncation vs D, with the paper's Table 1 values overlaid when given."""
    _style(style)
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


def _log_ticks_at(ax, values):
    """A log x axis labelled at the sweep's own values (no crowded minor labels)."""
    values = sorted(int(v) for v in values)
    ax.set_xscale("log")
    ax.set_xticks(values, labels=[str(v) for v in values])
    ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())


def _log2_dims_axis(ax, dims):
    ax.set_xscale("log", base=2)
    dims = sorted(dims)
    ax.set_xticks(dims, labels=[str(d) for d in dims])
    ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())


def plot_gmm_mlp(table: pd.DataFrame, reference: dict | None = None, style: FigureStyle | None = None,
                 minima: pd.DataFrame | None = None, bound: pd.DataFrame | None = None,
                 decay: pd.DataFrame | None = None, groups: pd.DataFrame | None = None):
    """A2: (a) population excess risk and (b) shift-removed L2 distance to τ·PMI vs D, for the two-tower MLP (mean
    over seeds, bars: min–max) and for the spectral truncation s_D; paper 2 Table 1 columns 3–4 overlaid when
    comparable. With ``minima``: (c) the MLP's distance under every candidate definition (solid) beside the smallest
    distance any rank-D score attains under it (dashed) and the paper's column. With ``bound``: (d) (inf L − L*) over
    the tail Σ_{i>D} λ_i for s_D and the best MLP against the bound's constant C(α, B). With ``decay`` and ``groups``:
    (e) the spectrum in pairs with its geometric, power and stretched-exponential fits, (f) the pair ratio."""
    _style(style)
    extra = minima is not None or bound is not None or groups is not None
    fig, axes = plt.subplots(2 if extra else 1, 3 if extra else 2, figsize=(13.5, 7.2) if extra else (9.0, 3.6),
                             constrained_layout=True, squeeze=False)
    axes = axes.ravel()
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
        handles += [matplotlib.lines.Line2D([], [], color="0.3", marker="o", linestyle="-", label="two-tower MLP"),
                    matplotlib.lines.Line2D([], [], color="0.3", marker="s", linestyle="--", label="rank-D minimum")]
        if reference is not None:
            _overlay_reference(ax, reference, "l2_distance", "k", "paper's column")
            handles += [h for h, label in zip(*ax.get_legend_handles_labels()) if label == "paper's column"]
        ax.set(yscale="log", xlabel="representation dimension D", ylabel="L2 distance to τ·PMI",
               title="(c) the L2 column under each definition")
        _log2_dims_axis(ax, ranked["D"].unique())
        ax.legend(handles=handles, fontsize=7, title="definition (colour), score (line)", title_fontsize=7)
    if bound is not None:
        ax = axes[3]
        ax.plot(bound["D"], bound["spectral_ratio"], "s--", color="C2", label=r"$s_D$: $(L-L^*)/\sum_{i>D}\lambda_i$")
        ax.plot(bound["D"], bound["trained_ratio"], "o-", color="C0", label="best MLP: same ratio")
        ax.plot(bound["D"], bound["constant"], "^:", color="C3", label=r"bound's constant $C(\alpha, B_D)$")
        ax.set(yscale="log", xlabel="representation dimension D", ylabel="ratio to the spectral tail",
               title="(d) Sec. 3 bound: excess / tail vs its constant")
        _log2_dims_axis(ax, bound["D"].unique())
        ax.legend(fontsize=7)
    if groups is not None and decay is not None:
        ax = axes[4]
        j = groups["group"].to_numpy(dtype=float)
        ax.plot(j, groups["sum"], "o", color="C0", label=r"$\lambda_{2j-1}+\lambda_{2j}$")
        for _, fit in decay[decay["group_size"] == 2].iterrows():
            ax.plot(j, groups[f"fit_{fit['model']}"], "-", label=f"{fit['model']} ({fit['parameter']} {fit['value']:.3g}), "
                                                         f"rms log {fit['rms_log']:.2f}")
        ax.set(yscale="log", xlabel="pair j", ylabel="pair sum", title="(e) spectrum in pairs and its decay fits")
        ax.legend(fontsize=6.5)
        ax = axes[5]
        ax.plot(j, groups["ratio_next"], "o-", color="C1")
        ax.set(xlabel="pair j", ylabel=r"$P_{j+1}/P_j$", title="(f) pair ratio: constant if geometric")
    for ax in axes[(4 if groups is None else 6):]:
        ax.set_visible(False)
    return fig


def plot_lcgm(table: pd.DataFrame, elbow: dict, style: FigureStyle | None = None, spectrum: pd.DataFrame | None = None,
              noise: pd.DataFrame | None = None, rank: dict | None = None, sensitivity: pd.DataFrame | None = None,
              sensitivity_elbows: pd.DataFrame | None = None):
    """A3: linear-probe R² of f(x) → p(z|x) and g(y) → log p(z|y)/π_k, and the held-out excess risk,
    vs D (mean over seeds, bars: min–max), with D = K and the detected elbow marked. With ``spectrum``, ``noise``
    and ``rank`` (crlrepro.theory.lcgm.rank_k_evidence): (c) the operator's own spectrum with its floor and the
    exact-rank-K reference, (d) λ_{K+1}/λ_K and the detected rank against the anchors' noise. With
    ``sensitivity``: (e) R²_f − R²_g at D = K over the grid of target noise and class separation; with
    ``sensitivity_elbows`` (crlrepro.experiments.evaluation.sensitivity_elbows) also (f) the alignment (R²_f + R²_g)/2 against D at
    every grid point with a D sweep, its elbow marked."""
    _style(style)
    extra = spectrum is not None and noise is not None and rank is not None
    sweeps = sensitivity_elbows is not None and sensitivity is not None and len(sensitivity_elbows) > 0
    panels = (4 if extra else 2) + (sensitivity is not None) + sweeps
    fig, axes = plt.subplots(1, panels, figsize=(4.25 * panels, 3.6), constrained_layout=True)
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
    ax_risk.set(yscale="log", ylabel=r"held-out $\hat L(s)-\hat L(\tau\,\mathrm{PMI})$", title="(b) held-out excess risk")
    if not extra:
        return fig
    ax, k = axes[2], int(rank["classes"])
    ax.errorbar(spectrum["i"], spectrum["mean"], yerr=spectrum["sd"], fmt="o", color="C0", capsize=2,
                label=f"LCGM, {rank['samples']} held-out x, y × {rank['repeats']}")
    ax.plot(spectrum["i"], spectrum["floor"], "--", color="C3", label=f"floor ({rank['floor']['rtol']:g}·Σλ + z·se)")
    positive = spectrum[spectrum["deterministic"] > 0]
    ax.plot(positive["i"], positive["deterministic"], "x", color="0.4",
            label="deterministic anchors (rank K exactly; beyond K ~1e-31·λ₁, off the axis)")
    ax.axvline(k + 0.5, color="0.3", linestyle=":", linewidth=1)
    ax.set(yscale="log", xlabel="index i", ylabel=r"eigenvalue $\lambda_i$ of $T^*T$",
           title=f"(c) the operator's own spectrum: rank {rank['floor']['detected_rank']} detected, K = {k}")
    ax.set_ylim(bottom=max(1e-12, float(spectrum["mean"].min()) / 10))
    ax.legend(fontsize=7)
    ax = axes[3]
    ax.plot(noise["noise_x"], noise["ratio"], "o-", color="C0", label=r"$\lambda_{K+1}/\lambda_K$")
    ax.set(xscale="log", yscale="log", xlabel="anchor noise σx", ylabel=r"$\lambda_{K+1}/\lambda_K$",
           title="(d) rank K needs deterministic anchors")
    ax.set_xticks(noise["noise_x"].to_numpy(), [f"{v:g}" for v in noise["noise_x"]])
    ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    config_noise = float((noise["noise_x"] / noise["factor"]).iloc[0])  # the sweep's multiples of the config's σx
    ax.axvline(config_noise, color="0.3", linestyle=":", linewidth=1, label="config")
    twin = ax.twinx()
    twin.step(noise["noise_x"], noise["detected_rank"], where="mid", color="C3", label="detected rank")
    twin.set_ylabel("detected rank", color="C3")
    ax.legend(fontsize=7, loc="upper left")
    if sensitivity is not None:
        ax = axes[-1 - sweeps]
        at_k = sensitivity[sensitivity["D"] == elbow["classes"]] if "D" in sensitivity else sensitivity
        grid = at_k.pivot_table(index="noise_y", columns="separation", values="r2_f_minus_r2_g")
        sns.heatmap(grid, annot=at_k.pivot_table(index="noise_y", columns="separation", values="r2_f").round(3)
                    .astype(str) + "\n" + at_k.pivot_table(index="noise_y", columns="separation", values="r2_g")
                    .round(3).astype(str), fmt="", cmap="RdBu", center=0.0, ax=ax, annot_kws={"fontsize": 7},
                    cbar_kws={"label": r"$R^2_f - R^2_g$"})
        ax.set(xlabel="class separation", ylabel="target noise σy",
               title="(e) R²_f (top) and R²_g at D = K: the setting decides the order")
    if sweeps:
        ax = axes[-1]
        for i, row in enumerate(sensitivity_elbows.itertuples()):
            curve = sensitivity[(sensitivity["noise_y"] == row.noise_y) & (sensitivity["separation"] == row.separation)]
            curve = curve.assign(alignment=(curve["r2_f"] + curve["r2_g"]) / 2).sort_values("D")
            line, = ax.plot(curve["D"], curve["alignment"], marker="o", markersize=3, color=f"C{i}",
                            label=f"σy = {row.noise_y:g}, sep. {row.separation:g}: elbow {row.elbow}")
            at = curve[curve["D"] == row.elbow]
            ax.plot(at["D"], at["alignment"], marker="*", markersize=12, color=line.get_color(), linestyle="none")
        ax.axvline(elbow["classes"], color="0.3", linestyle="--", linewidth=1)
        ax.set(xlabel="representation dimension D", ylabel=r"alignment $(R^2_f+R^2_g)/2$",
               title="(f) the elbow (★) across the setting")
        ax.set_xticks(sorted(sensitivity["D"].unique()))
        ax.legend(fontsize=7)
    return fig


def plot_tsybakov(cdf: pd.DataFrame, table: pd.DataFrame, reference: dict | None = None, style: FigureStyle | None = None, *,
                  curve: pd.DataFrame | None = None, windows: pd.DataFrame | None = None, tolerance: float = 0.05):
    """A4: (a) P(|r(x,y) − r(x,y')| ≤ t) on log-log axes: the exact F (``curve``, quadrature) with the Monte-Carlo
    F̂ beside it and the fit c·t^μ̂ over the configured window; (b) the local slope d log F / d log t of the exact F
    over t, with the paper's μ̂ ± ``tolerance`` and the slope's small-t limit μ₀ (tsybakov.admissible_exponent); (c) the
    exact slope over every scanned window [t_min, t_min·10^w]
    (``windows``) against t_min, one line per width w, with the Monte-Carlo μ̂ of the configured windows (bootstrap
    intervals). Without ``curve`` and ``windows`` only the Monte-Carlo panels are drawn."""
    _style(style)
    exact = curve is not None and windows is not None
    fig, axes = plt.subplots(1, 3 if exact else 2, figsize=(13.5 if exact else 9.0, 3.8), constrained_layout=True)
    ax_cdf = axes[0]
    if exact:
        ax_cdf.plot(curve["t"], curve["cdf"], color="k", linewidth=1.5, label="exact F(t) (quadrature)")
    ax_cdf.plot(cdf["t"], cdf["cdf"], "o", color="C0", markersize=3, label=r"Monte Carlo $\hat F(t)$")
    fit = table.iloc[0]
    t = cdf["t"][(cdf["t"] >= fit["t_min"]) & (cdf["t"] <= fit["t_max"])]
    ax_cdf.plot(t, np.exp(fit["log_c"]) * t ** fit["mu_hat"], color="C1", linewidth=3, alpha=0.7,
                label=rf"fit on [{fit['t_min']:.0e}, {fit['t_max']:.0e}]: $\hat\mu$ = {fit['mu_hat']:.3f}")
    ax_cdf.set(xscale="log", yscale="log", xlabel="t", ylabel=r"$P(|r(x,y)-r(x,y')|\leq t)$", title="(a) margin of the density ratio")
    ax_cdf.legend(fontsize=8)
    if not exact:
        ax_mu = axes[1]
        labels = [f"[{a:.0e}, {b:.0e}]" for a, b in zip(table["t_min"], table["t_max"])]
        y = np.arange(len(table))
        ax_mu.errorbar(table["mu_hat"], y, xerr=[table["mu_hat"] - table["ci_low"], table["ci_high"] - table["mu_hat"]],
                       fmt="o", color="C0", capsize=3)
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
    limit = admissible_exponent(curve["t"].to_numpy(), curve["local_slope"].to_numpy())
    if np.isfinite(limit["limit"]):
        ax_local.axhline(limit["limit"], color="0.4", linewidth=1.0, linestyle=":",
                         label=rf"small-t limit $\mu_0$ = {limit['limit']:.3f} (extrapolated: admissible exponent)")
    ax_local.set(xscale="log", xlabel="t", ylabel="local slope", title="(b) the exponent depends on t")
    ax_local.legend(fontsize=8)
    scan = windows[~windows["configured"]] if "configured" in windows else windows
    for i, (width, rows) in enumerate(scan.groupby("width")):
        ax_win.plot(rows["t_min"], rows["slope"], color=f"C{i}", marker=".", label=f"exact, {width:g}-decade windows")
    ax_win.errorbar(table["t_min"], table["mu_hat"], yerr=[table["mu_hat"] - table["ci_low"], table["ci_high"] - table["mu_hat"]],
                    fmt="s", color="C4", markersize=4, capsize=3, label="Monte Carlo, configured windows")
    ax_win.set(xscale="log", xlabel=r"window start $t_{min}$", ylabel="log-log slope over the window",
               title=r"(c) which windows give the paper's $\hat\mu$")
    ax_win.legend(fontsize=8)
    return fig


def plot_calibration(table: pd.DataFrame, fit: dict, tau: float, tsybakov_rate: float | None = None, style: FigureStyle | None = None,
                     families: pd.DataFrame | None = None):
    """C2: every checkpoint as a point (L(s) − L*, E* − E(s)) on log-log axes, coloured by model and
    sized by epoch; the bound √(2/τ·(L − L*)) as a line; the largest possible regret 2E* − 1 (the bound is
    informative below it); the fitted power law over the points used (trained, informative checkpoints); each score
    family as a line through its members, the truncations that are not unique (``unique`` False) as hollow circles."""
    _style(style)
    fig, ax = plt.subplots(figsize=(8.0, 4.4), constrained_layout=True)
    shown = table[(table["excess_auc"] > 0) & (table["excess_loss"] > 0)]
    sns.scatterplot(data=shown, x="excess_loss", y="excess_auc", hue="model", size="checkpoint", sizes=(15, 70),
                    ax=ax, palette="viridis", legend="brief")
    losses = table["excess_loss"] if families is None else pd.concat([table["excess_loss"], families["excess_loss"]])
    x = np.geomspace(losses[losses > 0].min() / 2, losses.max() * 2, 200)
    ax.plot(x, np.sqrt(2.0 / tau * x), color="C3", linewidth=2, label=r"bound $\sqrt{2(L-L^*)/\tau}$ (Thm 3.4)")
    ax.plot(x, np.exp(fit["log_constant"]) * x ** fit["exponent"], color="k", linestyle="--",
            label=rf"fit: exponent {fit['exponent']:.2f} [{fit['low']:.2f}, {fit['high']:.2f}]")
    if tsybakov_rate is not None:
        anchor = np.exp(fit["log_constant"]) * np.median(x) ** fit["exponent"]
        ax.plot(x, anchor * (x / np.median(x)) ** tsybakov_rate, color="C1", linestyle=":",
                label=rf"slope $(\mu+1)/(\mu+2)$ = {tsybakov_rate:.3f} (this mixture's small-t $\mu$)")
    if families is not None:
        markers = ["X", "P", "D", "^", "v"]
        positive = (families["excess_auc"] > 0) & (families["excess_loss"] > 0)
        unique = families["unique"].astype(bool)
        for i, (name, members) in enumerate(families[positive & unique].groupby("model", sort=False)):
            ax.plot(members["excess_loss"], members["excess_auc"], marker=markers[i % len(markers)], linestyle="-",
                    linewidth=0.8, markersize=5, color=f"C{(i + 4) % 10}", alpha=0.8, label=f"family: {name}")
        tied = families[positive & ~unique]
        if len(tied):  # not a well-defined score (calibration.score_family_table): shown apart, not on its family's line
            ax.scatter(tied["excess_loss"], tied["excess_auc"], marker="o", facecolors="none", edgecolors="0.35", s=36,
                       label="truncation inside a degenerate singular space (not unique; not fitted)")
    ax.axhline(fit["floor"], color="0.6", linewidth=0.8, linestyle="-.", label="regret floor of the fit")
    if "informative" in table:
        largest = float(2.0 * table["E_star"].iloc[0] - 1.0)
        share = float(table["informative"].mean())
        ax.axhline(largest, color="C3", linewidth=0.8, linestyle="--",
                   label=f"largest possible regret 2E*−1 = {largest:.3f} (bound informative below it: {share:.0%})")
    ax.set(xscale="log", yscale="log", xlabel=r"excess contrastive risk $L(s)-L^*$",
           ylabel=r"retrieval regret $\mathcal{E}^*-\mathcal{E}(s)$", title="Calibration along training and along score families (C2)")
    ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), ncol=1)
    return fig


def _slope_guide(ax, xs, top: float, slope: float, color: str, label: str):
    """A segment of the given log-log ``slope`` over the middle of ``xs``, drawn above the data (its start at
    ``top``): a theorem's rate O(x^slope) has no known constant, so its line shows a slope, not a level."""
    xs = np.sort(np.asarray(xs, dtype=float))
    lo, hi = np.exp(np.log(xs[0]) + np.array([0.25, 0.75]) * (np.log(xs[-1]) - np.log(xs[0])))
    seg = np.geomspace(lo, hi, 8)
    ax.plot(seg, top * (seg / lo) ** slope, color=color, linestyle=":", linewidth=1.6, label=label)


def _mechanism_panel(ax, deviations: pd.DataFrame, deviation_slopes: pd.DataFrame, axis: str, colors: dict):
    """One axis of C3's mechanism: every fixed score's deviation (thin) and the family's supremum (thick, with
    its bootstrap band) per regime, the fit window shaded and the predicted slope through the window's start."""
    for regime, rows in deviations[deviations["axis"] == axis].groupby("regime", sort=True):
        color = colors.get(regime, "C2")
        for score, line in rows[rows["score"] != "sup"].groupby("score"):
            ax.plot(line["at"], line["deviation"], color=color, linewidth=0.7, alpha=0.35)
        sup = rows[rows["score"] == "sup"].sort_values("at")
        fit = deviation_slopes[(deviation_slopes["regime"] == regime) & (deviation_slopes["axis"] == axis)
                               & (deviation_slopes["score"] == "sup")].iloc[0]
        name = {"both": "both regimes", "inbatch": "in-batch"}.get(regime, regime.upper())
        ax.plot(sup["at"], sup["deviation"], "o-", color=color, linewidth=2,
                label=f"{name} sup: slope {fit['slope']:.2f} [{fit['low']:.2f}, {fit['high']:.2f}]")
        ax.fill_between(sup["at"], sup["low"], sup["high"], color=color, alpha=0.2)
        xs = sup["at"][sup["at"] >= fit["fit_from"]].to_numpy(dtype=float)
        _slope_guide(ax, xs, 2.0 * float(sup["high"].max()), fit["predicted"], color,
                     f"{'SCRL law' if regime == 'inbatch' else 'Thm 4.5'}: slope {fit['predicted']:g} (guide)")
        ax.axvspan(fit["fit_from"], fit["fit_to"], color="0.95", zorder=0)
    ax.set(xscale="log", yscale="log")
    _log_ticks_at(ax, deviations[deviations["axis"] == axis]["at"].unique())
    ax.legend(fontsize=6.5)


def plot_scaling(table: pd.DataFrame, slopes: pd.DataFrame, deviations: pd.DataFrame | None = None,
                 deviation_slopes: pd.DataFrame | None = None, style: FigureStyle | None = None,
                 e_star: float | None = None):
    """C3. Top: Thm 4.5's mechanism at fixed scores, (a) the inner term's deviation against m at n = ∞ (SCRL:
    the bias |E inner|; SSCRL: E|inner| of the shared pool; in-batch: the bias of a batch of m + 1 pairs) and (b) the outer term's against n at m = ∞, every
    score thin and the family's supremum thick with its band; then the trained model's |gap| against (c) m and
    (d) n (mean over seeds, bars: min–max), each with its bound's slope as a guide (a rate, whose constant is
    unknown, so the guide is not anchored to the data). Bottom: downstream AUC and recall@1 against m and n, the AUC
    with the Bayes-optimal E* (``e_star``) and chance (½)."""
    _style(style)
    fig, axes = plt.subplots(2, 4, figsize=(17.0, 7.6), constrained_layout=True)
    colors = {"scrl": "C0", "sscrl": "C1", "both": "C2", "inbatch": "C3"}
    if deviations is not None and deviation_slopes is not None:
        _mechanism_panel(axes[0, 0], deviations, deviation_slopes, "m", colors)
        axes[0, 0].set(xlabel="negatives m", ylabel=r"inner-term deviation", title="(a) fixed scores, n = ∞: inner term vs m")
        _mechanism_panel(axes[0, 1], deviations, deviation_slopes, "n", colors)
        axes[0, 1].set(xlabel="anchors n", ylabel=r"$\mathbb{E}|$outer term$|$", title="(b) fixed scores, m = ∞: outer term vs n")
    for ax, axis, letter in ((axes[0, 2], "m", "c"), (axes[0, 3], "n", "d")):
        for regime, runs in table[table["sweep"] == axis].groupby("regime", sort=True):
            gap = runs.assign(abs_gap=runs["gap"].abs()).groupby(axis)["abs_gap"]
            mean, lo, hi = gap.mean(), gap.min(), gap.max()
            fit = slopes[(slopes["regime"] == regime) & (slopes["axis"] == axis) & (slopes["quantity"] == "gap")].iloc[0]
            ax.errorbar(mean.index, mean, yerr=[mean - lo, hi - mean], fmt="o-", color=colors[regime], capsize=3,
                        label=f"{regime.upper()}: slope {fit['slope']:.2f} [{fit['low']:.2f}, {fit['high']:.2f}]")
            _slope_guide(ax, mean.index, 2.0 * float(hi.max()), fit["predicted"], colors[regime],
                         f"bound's slope {fit['predicted']:g} (guide)")
        fixed = "n" if axis == "m" else "m"
        value = int(table[table["sweep"] == axis][fixed].iloc[0])
        ax.set(xscale="log", yscale="log", xlabel=axis, ylabel=r"$|L(\hat w)-\hat L_S(\hat w)|$",
               title=f"({letter}) trained model's gap vs {axis} ({fixed} = {value})")
        _log_ticks_at(ax, table[table["sweep"] == axis][axis].unique())
        ax.legend(fontsize=6.5)
    for col, (axis, metric, label) in enumerate((("m", "auc", r"retrieval AUC $\mathcal{E}(\hat w)$"),
                                                 ("m", "recall_at_1", "recall@1"),
                                                 ("n", "auc", r"retrieval AUC $\mathcal{E}(\hat w)$"),
                                                 ("n", "recall_at_1", "recall@1"))):
        ax = axes[1, col]
        runs = table[table["sweep"] == axis]
        sns.lineplot(data=runs, x=axis, y=metric, hue="regime", marker="o", errorbar=("pi", 100), ax=ax, palette=colors)
        if metric == "auc":
            if e_star is not None:
                ax.axhline(e_star, color="k", linestyle="--", linewidth=1, label=f"Bayes E* = {e_star:.3f}")
            ax.axhline(0.5, color="0.5", linestyle=":", linewidth=1, label="chance ½")
            ax.legend(fontsize=6.5)
        ax.set(xscale="log", xlabel=axis, ylabel=label, title=f"({'efgh'[col]}) downstream {label.split(' $')[0]} vs {axis}")
        _log_ticks_at(ax, runs[axis].unique())
    return fig


def plot_budget(table: pd.DataFrame, summary: pd.DataFrame, style: FigureStyle | None = None):
    """C4: excess risk and AUC per split m (n = N/m) of the fixed budget N = n·m anchor–negative pairs scored,
    both regimes (mean over seeds, bars: min–max), with each regime's fitted shape (a + b/m + c/√n for SCRL,
    a + b/√m + c/√n for SSCRL) and the m* it recommends."""
    _style(style)
    fig, (ax_risk, ax_auc) = plt.subplots(1, 2, figsize=(9.5, 3.8), constrained_layout=True)
    colors = {"scrl": "C0", "sscrl": "C1"}
    for regime, runs in table.groupby("regime", sort=True):
        s = summary[summary["regime"] == regime].iloc[0]
        risk = runs.groupby("m")["excess_risk"]
        mean = risk.mean()
        ax_risk.errorbar(mean.index, mean, yerr=[mean - risk.min(), risk.max() - mean], fmt="o", color=colors[regime],
                         capsize=3, label=f"{regime.upper()} measured")
        m = np.geomspace(mean.index.min(), mean.index.max(), 200)
        inner = 1.0 / m if regime == "scrl" else 1.0 / np.sqrt(m)
        ax_risk.plot(m, s["a"] + s["b"] * inner + s["c"] / np.sqrt(s["total"] / m), color=colors[regime], linestyle="--",
                     label=f"fit {s['shape']}, m* = {s['recommended_m']:.3g}")
        if np.isfinite(s["recommended_m"]):
            ax_risk.axvline(s["recommended_m"], color=colors[regime], linestyle=":", linewidth=1)
    sns.lineplot(data=table, x="m", y="auc", hue="regime", marker="o", errorbar=("pi", 100), ax=ax_auc, palette=colors)
    total = int(summary["total"].iloc[0])
    ax_risk.set(yscale="log", xlabel=f"negatives per anchor m (n = {total}/m)", ylabel=r"excess risk $L(\hat w)-L^*$",
                title=f"(a) fixed budget N = n·m = {total}")
    ax_risk.legend(fontsize=7)
    ax_auc.set(xlabel="m", ylabel=r"retrieval AUC $\mathcal{E}(\hat w)$", title="(b) downstream AUC per split")
    for ax in (ax_risk, ax_auc):
        _log_ticks_at(ax, table["m"].unique())
    return fig


SSL_COLUMN = {"S1": "ratio", "S2": "similarity", "S3": "balance", "S4": "augmentation"}
SSL_TITLE = {"S1": "S1: balanced loss (λ/ν) and the loss variants", "S2": "S2: similarity", "S3": "S3: training-data balance",
             "S4": "S4: augmentations and prototype bias"}
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
    state = np.random.get_state()
    np.random.seed(0)
    try:
        return _plot_ssl(experiment, table, style)
    finally:
        np.random.set_state(state)


def _plot_ssl(experiment: str, table: pd.DataFrame, style: FigureStyle | None = None):
    """Paper 3: top-1 of every probe (linear, k-NN, few-label; S3 also the tail classes) per arm of the
    experiment, beside the baselines (raw pixels, untrained encoder) on the same axis (points: seeds;
    marker and bar: mean and range; diverged runs marked). S1 adds Thms 4.4 and 4.6 per run (left
    against right side), S4 the prototype bias against accuracy."""
    _style(style)
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
    fig, axes = plt.subplots(1, panels, figsize=(6.4 * panels if panels == 1 else 6.4 + 4.6, 4.0), constrained_layout=True,
                             squeeze=False, gridspec_kw={"width_ratios": [1.4, 1] if panels == 2 else [1]})
    ax = axes[0, 0]
    order = list(dict.fromkeys(table["arm"]))
    sns.pointplot(data=long, x="arm", y="top-1", hue="evaluation", order=order, errorbar=("pi", 100), dodge=0.5,
                  linestyles="none", capsize=0.05, ax=ax, markersize=4)
    sns.stripplot(data=long, x="arm", y="top-1", hue="evaluation", order=order, dodge=True, ax=ax, palette="dark:0.4",
                  legend=False, size=2, alpha=0.5)
    trained = int((table.get("model", pd.Series("trained", index=table.index)) == "trained").groupby(table["arm"]).any().sum())
    if trained < len(order):
        ax.axvline(trained - 0.5, color="0.6", linestyle=":")
    for i, value in enumerate(order):
        diverged = int(table.loc[table["arm"] == value, "diverged"].sum())
        if diverged:
            ax.annotate(f"diverged: {diverged}/{(table['arm'] == value).sum()}", (i, 0.05), xycoords=("data", "axes fraction"),
                        ha="center", fontsize=7, color="C3")
    ax.set(xlabel="", title=SSL_TITLE[experiment] + "; right of the dotted line: baselines")
    ax.tick_params(axis="x", labelrotation=30, labelsize=8)
    ax.legend(fontsize=7, ncols=3, loc="upper center", bbox_to_anchor=(0.5, -0.22), frameon=False)
    trained_runs = table[(table.get("model", "trained") == "trained") & ~table["diverged"]] if "model" in table else table[~table["diverged"]]
    if experiment == "S4":
        y = few[0] if few else "linear_top1"  # the probe with the most headroom
        relative = "prototype_bias_relative" in trained_runs  # the scale-invariant bias S4's ordering claims test
        sns.scatterplot(data=trained_runs, x="prototype_bias_relative" if relative else "prototype_bias", y=y, hue="augmentation",
                        ax=axes[0, 1], s=40)
        axes[0, 1].set(xlabel="prototype bias ÷ prototypes' spread" if relative else "prototype representation bias (unit features)",
                       ylabel=f"{label(y)} top-1",
                       title="bias vs accuracy (each point a run)")
    if experiment == "S1" and "attraction_lhs" in table:
        ax = axes[0, 1]
        side = "worst_" if "attraction_worst_lhs" in trained_runs else ""  # the claims' points: each run's worst
        slack = pd.concat([pd.DataFrame({"bound": label, "arm": trained_runs["arm"],
                                         "slack": trained_runs[f"{name}_{side}rhs"] - trained_runs[f"{name}_{side}lhs"]})
                           for name, label in (("attraction", "Thm 4.4\n(attraction)"), ("repulsion", "Thm 4.6\n(repulsion)"))])
        sns.stripplot(data=slack, x="bound", y="slack", hue="arm", ax=ax, size=4, jitter=0.25)
        ax.axhline(0.0, color="C3", linestyle="--", linewidth=1)
        ax.set_yscale("symlog", linthresh=1e-4)
        ax.margins(y=0.15)
        ax.set(xlabel="", ylabel=f"right side − left side ({'worst point' if side else 'mean'} of each run; symlog)",
               title="Sec. 4 bounds (violated below the red line)")
        ax.legend(fontsize=7, title="run", title_fontsize=7)
    return fig
