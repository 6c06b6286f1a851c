"""Population oracles: contrastive risk, its minimum and the excess risk of any score, by quadrature.

Population contrastive loss (paper 2, eq. for L(s); paper 1, Sec. 3), temperature τ > 0:

    L(s) = E_{(x,y)~p} [ τ log E_{y'~P_Y} exp((s(x,y') − s(x,y)) / τ) ].

It is minimised by s* = τ·PMI (up to an x-only shift), with L* = −τ·I(X;Y) and
I(X;Y) = E_p[PMI]. The excess risk is an expected Kullback–Leibler divergence,

    L(s) − L* = τ E_{x~P_X} KL( p(·|x) ‖ q_s(·|x) ),    q_s(y|x) = p(y) e^{s(x,y)/τ} / E_{y'} e^{s(x,y')/τ},

which is how it is computed here: with δ = PMI − s/τ + log E_{y'} e^{s(x,y')/τ}, the integrand
δ − 1 + e^{−δ} is non-negative pointwise, so no two large numbers are subtracted and the result
keeps its relative accuracy when the excess risk is 10⁻⁷ next to a loss of order 1.
"""

from __future__ import annotations

import numpy as np
from scipy.special import logsumexp

from crlrepro.quadrature import PopulationGrid


def _check_tau(tau: float) -> float:
    tau = float(tau)
    if not np.isfinite(tau) or tau <= 0:
        raise ValueError(f"temperature tau must be a finite number > 0, got {tau!r}")
    return tau


def mutual_information(grid: PopulationGrid) -> float:
    """I(X;Y) = E_p[PMI(x, y)] in nats."""
    return float(np.sum(grid.joint_weights() * grid.log_ratio))


def optimal_contrastive_loss(grid: PopulationGrid, tau: float) -> float:
    """L* = L(τ·PMI) = −τ·I(X;Y)."""
    return -_check_tau(tau) * mutual_information(grid)


def _log_partition(s_over_tau: np.ndarray, grid: PopulationGrid) -> np.ndarray:
    """log E_{y'~P_Y} exp(s(x, y')/τ) at every x node (log-sum-exp over the y rule)."""
    return logsumexp(s_over_tau + np.log(grid.y.weights)[None, :], axis=1)


def population_contrastive_loss(score, grid: PopulationGrid, tau: float) -> float:
    """L(s) (module docstring) for a score function s(x, y) -> (len(x), len(y))."""
    tau = _check_tau(tau)
    s = grid.evaluate(score) / tau
    per_pair = tau * (_log_partition(s, grid)[:, None] - s)
    return float(np.sum(grid.joint_weights() * per_pair))


def excess_contrastive_risk(score, grid: PopulationGrid, tau: float) -> float:
    """L(s) − L* = τ E_x KL(p(·|x) ‖ q_s(·|x)) (module docstring), computed without cancellation."""
    tau = _check_tau(tau)
    s = grid.evaluate(score) / tau
    delta = grid.log_ratio - s + _log_partition(s, grid)[:, None]
    weights = grid.joint_weights()
    # δ − 1 + e^{−δ} ≥ 0: with expm1 where δ is small (exact to rounding); where δ ≪ 0 in the far
    # tails the weight goes inside the exponential so that 0 · e^{large} never overflows.
    small = delta > -1.0
    with np.errstate(over="ignore", divide="ignore"):
        near = np.where(small, weights * (delta + np.expm1(-np.where(small, delta, 0.0))), 0.0)
        log_w = np.log(np.where(small, 1.0, weights))
        far = np.where(small, 0.0, weights * (delta - 1.0) + np.exp(log_w - np.where(small, 0.0, delta)))
    return float(tau * np.sum(near + far))


def l2_distance_to_bayes_score(score, grid: PopulationGrid, tau: float) -> float:
    """Distance of s to the Bayes score τ·PMI in L2(P_X ⊗ P_Y), modulo the x-only shifts the loss
    cannot see:

        d(s) = min_c ‖s + c(x) − τ·PMI‖ = ‖ s̃ − τ·P̃MI ‖,    h̃(x, y) = h(x, y) − E_{y'~P_Y} h(x, y'),

    the minimising shift being c(x) = E_{y'}[τ·PMI(x, y') − s(x, y')] (centre both in y under P_Y)."""
    tau = _check_tau(tau)
    diff = grid.evaluate(score) - tau * grid.log_ratio
    centred = diff - (diff @ grid.y.weights)[:, None]
    return float(np.sqrt(grid.x.weights @ (centred**2) @ grid.y.weights))
