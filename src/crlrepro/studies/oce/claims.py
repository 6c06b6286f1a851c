"""The claims of C5: its result tables turned into claim rows (:class:`crlrepro.claims.verdicts.Claim`)
whose kinds and comparability keys come from the study's entry (:mod:`crlrepro.studies.oce`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from crlrepro.claims.verdicts import (
    Claim,
    Decision,
    claim,
    decide_identity,
)
from crlrepro.studies.oce import STUDY

__all__ = ["c5_claims", "stability_claim"]


def c5_claims(table: pd.DataFrame, stability: pd.DataFrame, *, tolerance: float) -> list[Claim]:
    """C5: Lemma 4.2 at every (m, τ) of the table: the minimum over |μ| ≤ 2B equals the log-mean-exp (worst gap
    relative to max(1, |lhs|), at most ``tolerance``), and the minimiser found numerically inside the constraint
    is the closed form μ* = τ log mean e^{Δ/τ} (worst gap relative to max(1, |μ*|), at most √tolerance: the
    objective is quadratic at its minimum, so a value accurate to ε places the minimiser to √ε), which for
    scores bounded by B lies in |μ| ≤ 2B, so the constraint is never active. Then the step of Lemma 4.3 at every
    (m, τ) of ``stability`` (:func:`crlrepro.theory.bounds.oce_stability_table`): see :func:`stability_claim`."""
    spec_of = STUDY.experiment("C5").claim
    relative = float((table["abs_diff"] / np.maximum(1.0, table["lhs"].abs())).max())
    spec = spec_of("oce")
    rows = [
        claim(
            "C5",
            "C5.oce",
            f"{spec.statement}: worst relative gap over {len(table)} (m, τ) settings",
            "identity",
            decide_identity(relative, tolerance),
            measured=relative,
            tolerance=f"at most {tolerance:g}",
        )
    ]
    spec = spec_of("constraint")
    closed = table["mu_closed_form"]
    mismatch = float(((table["mu_star"] - closed).abs() / np.maximum(1.0, closed.abs())).max())
    reach = float((closed.abs() / (2.0 * table["score_bound"])).max())
    rows.append(
        claim(
            "C5",
            "C5.constraint",
            f"{spec.statement}: worst relative gap between the numerical minimiser over "
            f"|μ| ≤ 2B and the closed form, over {len(table)} (m, τ) settings (largest |μ*| / 2B = {reach:.3g}, "
            f"largest |Δ| = {float(table['max_abs_delta'].max()):.4g}, 2B = {2 * float(table['score_bound'].max()):g})",
            "identity",
            decide_identity(mismatch, np.sqrt(tolerance)),
            measured=mismatch,
            tolerance=f"at most √{tolerance:g} = {np.sqrt(tolerance):.3g}",
        )
    )
    rows.append(stability_claim(stability, tolerance=tolerance))
    return rows


def stability_claim(table: pd.DataFrame, *, tolerance: float) -> Claim:
    """C5.stability: the error is the largest of (a) the searched worst-case change of μ* above or below the closed
    form, relative to it (the closed form must be the sup: attained, never exceeded), and (b) the closed form's excess
    over the strong-convexity bound, relative to the bound (the bound must hold at every m); at most ``tolerance``.
    The reason adds how informative the bound is: the settings where it is below the trivial 4B (|μ*| ≤ 2B), and how
    near m · change is to its limit τ(e^{4B/τ} − 1) at the largest m."""
    spec = STUDY.experiment("C5").claim("stability")
    worst, searched, bound = (table[c].to_numpy(float) for c in ("worst_change", "searched_change", "stability_bound"))
    exactness = float(np.max(np.abs(searched - worst) / worst))
    excess = float(np.max(np.maximum(worst - bound, 0.0) / bound))
    decision = decide_identity(max(exactness, excess), tolerance)
    trivial = 4.0 * table["score_bound"].to_numpy(float)
    largest = table[table["m"] == table["m"].max()]
    limits = ", ".join(f"τ = {r.tau:g}: {r.m_times_change / r.limit_m_times_change:.3g}" for r in largest.itertuples())
    reason = (
        f"{decision.reason} (searched sup against the closed form {exactness:.4g}; bound exceeded by {excess:.4g}); the "
        f"bound is below the trivial 4B at {int(np.sum(bound < trivial))} of {len(table)} (m, τ): its constant "
        f"e^{{4B/τ}} makes it vacuous until m ≫ e^{{4B/τ}}; m · change over its limit at m = {int(table['m'].max())}: "
        f"{limits}"
    )
    return claim(
        "C5",
        "C5.stability",
        f"{spec.statement}: over {len(table)} (m, τ) settings, B = {float(table['score_bound'].max()):g}",
        "identity",
        Decision(decision.verdict, reason, decision.power),
        measured=max(exactness, excess),
        tolerance=f"at most {tolerance:g}",
    )
