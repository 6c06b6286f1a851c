"""The figure of A1, drawn with seaborn in the pipeline's style: plotting only, no computation beyond
reshaping tables, so restyling never recomputes anything.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns

from crlrepro.runtime.figures import FigureStyle, apply_style, log2_dims_axis, overlay_reference

__all__ = ["plot_gmm_spectrum"]


def plot_gmm_spectrum(
    spectrum: pd.DataFrame, truncation: pd.DataFrame, reference: dict | None = None, style: FigureStyle | None = None
):
    """A1: (a) eigenvalue decay λ_i of the PMI operator; (b) tail sum Σ_{i>D} λ_i and excess risk
    L(s_D) − L* of the truncation vs D, with the paper's Table 1 values overlaid when given."""
    apply_style(style)
    fig, (ax_spec, ax_trunc) = plt.subplots(1, 2, figsize=(9.0, 3.6), constrained_layout=True)

    positive = spectrum[spectrum["eigenvalue"] > 0]
    sns.lineplot(data=positive, x="index", y="eigenvalue", marker="o", ax=ax_spec, color="C0")
    ax_spec.set(yscale="log", xlabel="index i", ylabel=r"eigenvalue $\lambda_i$", title="(a) spectrum of the PMI operator")

    long = truncation.melt(id_vars="D", value_vars=["tail_sum", "trunc_excess_risk"], var_name="quantity", value_name="value")
    names = {"tail_sum": r"tail sum $\sum_{i>D}\lambda_i$", "trunc_excess_risk": r"excess risk $L(s_D)-L^*$"}
    long["quantity"] = long["quantity"].map(names)
    sns.lineplot(data=long, x="D", y="value", hue="quantity", marker="o", ax=ax_trunc, palette=["C0", "C1"])
    for key, color in (("tail_sum", "C0"), ("trunc_excess_risk", "C1")):
        overlay_reference(ax_trunc, reference, key, color, f"paper: {names[key]}")
    ax_trunc.set(yscale="log", xlabel="representation dimension D", ylabel="value", title="(b) spectral truncation")
    log2_dims_axis(ax_trunc, truncation["D"].unique())
    ax_trunc.legend(title=None, fontsize=8)
    return fig
