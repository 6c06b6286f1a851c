"""The claims of C5: its result tables turned into claim rows (:class:`crlrepro.claims.verdicts.Claim`)
whose kinds and comparability keys come from the study's entry (:mod:`crlrepro.studies.oce`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from crlrepro.claims.verdicts import (
    Claim,
    claim,
    decide_identity,
)
from crlrepro.studies.oce import STUDY

__all__ = ["c5_claims"]


def c5_claims(table: pd.DataFrame, *, tolerance: float) -> list[Claim]:
    """C5: Lemma 4.2 at every (m, τ) of the table: the minimum over |μ| ≤ 2B equals the log-mean-exp (worst gap
    relative to max(1, |lhs|), at most ``tolerance``), and the minimiser found numerically inside the constraint
    is the closed form μ* = τ log mean e^{Δ/τ} (worst gap relative to max(1, |μ*|), at most √tolerance: the
    objective is quadratic at its minimum, so a value accurate to ε places the minimiser to √ε), which for
    scores bounded by B lies in |μ| ≤ 2B, so the constraint is never active."""
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
    return rows
