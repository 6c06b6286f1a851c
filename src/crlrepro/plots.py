"""Figures, drawn with seaborn in a style readable in a paper. Plotting only: no computation
beyond reshaping tables, so restyling never recomputes anything."""

from __future__ import annotations

import matplotlib
import matplotlib.ticker

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
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
    if reference is not None:
        for key, color in (("tail_sum", "C0"), ("trunc_excess_risk", "C1")):
            dims = sorted(int(d) for d in reference[key])
            ax_trunc.scatter(dims, [reference[key][d] for d in dims], s=90, facecolors="none", edgecolors=color,
                             linewidths=1.5, label=f"paper: {names[key]}", zorder=3)
    ax_trunc.set_xscale("log", base=2)
    ax_trunc.set(yscale="log", xlabel="representation dimension D", ylabel="value", title="(b) spectral truncation")
    dims = sorted(truncation["D"].unique())
    ax_trunc.set_xticks(dims, labels=[str(d) for d in dims])
    ax_trunc.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    ax_trunc.legend(title=None, fontsize=8)
    return fig
