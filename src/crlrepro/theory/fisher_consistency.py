"""Paper 1, Lemmas 3.2 and 3.3 (Fisher consistency of the contrastive loss for the AUC-type criterion). Lemma 3.2:
the population minimisers of the contrastive loss are s*(x, y) = τ·PMI(x, y) + g(x) for any g of the anchor alone,

    L(τ·PMI + g) = L*,

since g(x) cancels between the positive's score and the log-partition over candidates. Lemma 3.3: every such
minimiser maximises

    E(s) = P[s(x, y) > s(x, y')] + ½ P[s(x, y) = s(x, y')],

because a function g of the anchor alone shifts s(x, y) and s(x, y') by the same amount: E(τ·PMI + g) = E* for
every g. Checked here on the quadrature of :func:`crlrepro.theory.oracles.retrieval_auc`, for shifts that are smooth,
oscillating, bounded and constant, and (its converse, what makes the check able to fail) a shift that depends on y.
"""

from __future__ import annotations

import numpy as np

from crlrepro.theory.numerics import log_sum_exp
from crlrepro.theory.oracles import retrieval_auc

__all__ = ["ANCHOR_SHIFTS", "anchor_shift_errors", "anchor_shift_excess", "contrastive_loss"]

# g(x) of Lemma 3.2's family of minimisers, on arrays of anchors.
ANCHOR_SHIFTS = {
    "x^2": lambda x: x**2,
    "sin(3x)": lambda x: np.sin(3.0 * x),
    "5 tanh(x)": lambda x: 5.0 * np.tanh(x),
    "constant 7": lambda x: np.full_like(x, 7.0),
}


def anchor_shift_errors(gmm, tau: float, nodes: int = 200, inner_nodes: int = 400) -> dict:
    """E(τ·PMI + g(x)) − E(τ·PMI) for every g of :data:`ANCHOR_SHIFTS` (0 up to rounding by Lemma 3.3), and, under
    ``"y-shift sin(3y)"``, the same for the shift sin(3y) of the candidate (not a function of x alone: it reorders the
    candidates, so its difference is not 0). ``nodes`` and ``inner_nodes``: the rule of
    :func:`crlrepro.theory.oracles.retrieval_auc`."""
    tau = float(tau)
    base = retrieval_auc(lambda x, y: tau * gmm.pmi(x, y), gmm, nodes, inner_nodes)
    errors = {
        name: retrieval_auc(
            lambda x, y, g=g: tau * gmm.pmi(x, y) + g(np.asarray(x, dtype=float))[:, None], gmm, nodes, inner_nodes
        )
        - base
        for name, g in ANCHOR_SHIFTS.items()
    }
    shifted = retrieval_auc(
        lambda x, y: tau * gmm.pmi(x, y) + np.sin(3.0 * np.asarray(y, dtype=float))[None, :], gmm, nodes, inner_nodes
    )
    return {**errors, "y-shift sin(3y)": shifted - base, "E_star": base}


def contrastive_loss(score, grid, tau: float) -> float:
    """The population contrastive loss of a score on a product quadrature ``grid`` (:meth:`gmm.grid`), from its
    definition, with no rewriting in which an anchor shift cancels before the arithmetic does:

        L(s) = τ E_{P_X}[ log E_{y'~P_Y} e^{s(x, y')/τ} ] − E_{p(x, y)}[ s(x, y) ],

    the inner expectation a log-sum-exp over the y nodes (weights w_y), the joint expectation with the grid's joint
    weights w_x w_y e^{PMI}."""
    tau = float(tau)
    s = grid.evaluate(score)
    partition = tau * log_sum_exp(s / tau + np.log(grid.y.weights)[None, :], axis=1)
    return float(grid.x.weights @ partition - np.sum(grid.joint_weights() * s))


def anchor_shift_excess(gmm, tau: float, nodes: int = 200) -> dict:
    """Lemma 3.2 on the trapezoidal rule of :meth:`gmm.grid`: L(τ·PMI + g) − L* for every g of :data:`ANCHOR_SHIFTS`
    (0 up to rounding and the rule's error in ∫ p(y|x) dy = 1), and, under ``"y-shift sin(3y)"``, for the shift sin(3y)
    of the candidate, which does not cancel and so costs loss (positive: what makes the check able to fail). L comes
    from its definition (:func:`contrastive_loss`: g(x) enters both terms and cancels only in the arithmetic), L* from
    the mutual information, L* = −τ I(X; Y) = −τ E_{p(x, y)} PMI, on the same rule."""
    tau = float(tau)
    grid = gmm.grid(nodes)
    l_star = -tau * float(np.sum(grid.joint_weights() * grid.log_ratio))
    out = {
        name: contrastive_loss(lambda x, y, g=g: tau * gmm.pmi(x, y) + g(np.asarray(x, dtype=float))[:, None], grid, tau) - l_star
        for name, g in ANCHOR_SHIFTS.items()
    }
    out["y-shift sin(3y)"] = (
        contrastive_loss(lambda x, y: tau * gmm.pmi(x, y) + np.sin(3.0 * np.asarray(y, dtype=float))[None, :], grid, tau) - l_star
    )
    return out
