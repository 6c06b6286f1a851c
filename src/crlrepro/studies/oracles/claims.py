"""The claims of C1: its result tables turned into claim rows (:class:`crlrepro.claims.verdicts.Claim`)
whose kinds and comparability keys come from the study's entry (:mod:`crlrepro.studies.oracles`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from crlrepro.claims.verdicts import (
    Claim,
    claim,
    decide_identity,
)
from crlrepro.studies.oracles import STUDY

__all__ = [
    "SHIFT_TOLERANCE",
    "LOSS_SHIFT_TOLERANCE",
    "shift_invariance_claim",
    "loss_shift_invariance_claim",
    "c1_claims",
    "ORACLES",
]


# each with its unit: information and losses in nats (natural logarithms); an AUC is a probability
ORACLES = (("mutual_information", "I(X;Y) in nats"), ("L_star", "L* = −τ I(X;Y) in nats"), ("E_star", "Bayes AUC E*"))


def c1_claims(oracle: dict, convergence: pd.DataFrame, *, standard_errors: float, digits: float) -> list[Claim]:
    """C1: each quadrature oracle within ``standard_errors`` Monte-Carlo standard errors of an
    independent Monte-Carlo estimate, and converged to ≥ ``digits`` significant digits against the
    finest rule of its convergence study (``convergence``: quantity, rule, nodes, value); E* of any other
    mixture in the study (quantity ``E_star_<name>``) converged between its two finest sizes."""
    spec_of = STUDY.experiment("C1").claim
    mc = oracle["monte_carlo"]
    converged = spec_of("converged")

    def converged_row(key: str, label: str, value: float, finest: pd.Series, against: str) -> Claim:
        relative = abs(value - finest["value"]) / abs(finest["value"])
        return claim(
            "C1",
            f"C1.{converged.key}.{key}",
            f"{label}: {converged.statement} (significant digits {against} "
            f"the {finest['rule']} rule with {int(finest['nodes'])} nodes)",
            "identity",
            decide_identity(relative, 10.0**-digits),
            measured=min(16.0, float(-np.log10(relative + 1e-300))),
            tolerance=f"at least {digits:g} digits (relative error ≤ 1e-{digits:g})",
        )

    rows = []
    for key, label in ORACLES:
        se = mc[f"{key}_se"]
        spec = spec_of("monte_carlo")
        rows.append(
            claim(
                "C1",
                f"C1.{spec.key}.{key}",
                f"{label}: {spec.statement} (n = {mc['samples']})",
                "identity",
                decide_identity(abs(oracle[key] - mc[key]) / se, standard_errors),
                measured=oracle[key],
                low=mc[key] - standard_errors * se,
                high=mc[key] + standard_errors * se,
                tolerance=f"{standard_errors:g} Monte-Carlo standard errors (interval: Monte Carlo ± that)",
            )
        )
        finest = convergence[convergence["quantity"] == key].sort_values("nodes").iloc[-1]
        rows.append(converged_row(key, label, oracle[key], finest, "against"))
    for quantity, study in convergence[convergence["quantity"].str.startswith("E_star_")].groupby("quantity", sort=True):
        study = study.sort_values("nodes")  # another mixture's E*: the next-finest size against the finest
        rows.append(
            converged_row(
                quantity,
                f"Bayes AUC E* of {quantity.removeprefix('E_star_')} = {study['value'].iloc[-1]:.12g}",
                float(study["value"].iloc[-2]),
                study.iloc[-1],
                f"at {int(study['nodes'].iloc[-2])} nodes against",
            )
        )
    if "anchor_shifts" in oracle:
        rows.append(shift_invariance_claim(oracle["anchor_shifts"]))
    if "anchor_shift_excess" in oracle:
        rows.append(loss_shift_invariance_claim(oracle["anchor_shift_excess"]))
    return rows


SHIFT_TOLERANCE = 1e-9  # rounding: each cell's crossing point is solved from differences of shifted scores (~1e-10 seen)


def shift_invariance_claim(errors: dict) -> Claim:
    """Lemma 3.3 on our quadrature (``errors``: :func:`crlrepro.theory.fisher_consistency.anchor_shift_errors`): the
    largest |E(τ·PMI + g) − E*| over the anchor shifts g, verified at most :data:`SHIFT_TOLERANCE`; the y-shift's
    difference, which the lemma does not cover, is stated beside it."""
    return _anchor_shift_claim(
        "shift_invariance",
        errors,
        f"E* = {float(errors['E_star']):.6g} on this rule; a shift sin(3y) of the candidate instead moves E by "
        f"{float(errors['y-shift sin(3y)']):.3g}",
        "|E(τ·PMI + g) − E*|",
        SHIFT_TOLERANCE,
    )


LOSS_SHIFT_TOLERANCE = 1e-12  # L from its definition, against −τ I: rounding leaves ~1e-15 (a y-shift costs ~0.4)


def loss_shift_invariance_claim(excess: dict) -> Claim:
    """Lemma 3.2 on our quadrature (``excess``: :func:`crlrepro.theory.fisher_consistency.anchor_shift_excess`): the
    largest L(τ·PMI + g) − L* over the anchor shifts g, verified at most :data:`LOSS_SHIFT_TOLERANCE`; the y-shift's
    excess, which the lemma does not cover, is stated beside it."""
    return _anchor_shift_claim(
        "loss_shift_invariance",
        excess,
        f"a shift sin(3y) of the candidate instead costs {float(excess['y-shift sin(3y)']):.3g} of loss",
        "|L(τ·PMI + g) − L*|",
        LOSS_SHIFT_TOLERANCE,
    )


def _anchor_shift_claim(key: str, values: dict, beside: str, quantity: str, tolerance: float) -> Claim:
    """The identity row ``C1.<key>`` of a lemma checked over the anchor shifts g of ``values`` (every entry but
    ``E_star`` and the y-shift's): the largest |value|, verified at most ``tolerance``; ``beside`` names the y-shift."""
    spec = STUDY.experiment("C1").claim(key)
    shifts = {k: float(v) for k, v in values.items() if k not in ("E_star", "y-shift sin(3y)")}
    worst = max(abs(v) for v in shifts.values())
    return claim(
        "C1",
        f"C1.{spec.key}",
        f"{spec.statement} (g ∈ {{{', '.join(shifts)}}}; {beside})",
        "identity",
        decide_identity(worst, tolerance),
        measured=worst,
        tolerance=f"{quantity} ≤ {tolerance:g} (rounding)",
    )
