"""The best rank-D excess risk (paper 2, Sec. 3): the smallest L(s) − L* over scores s(x, y) = f(x)ᵀ g(y) of
dimension D, by optimisation on a quadrature grid, beside the spectral truncation s_D that the approximation bound
is stated for.

s_D minimises the L2 distance to τ·PMI (Eckart–Young, :mod:`crlrepro.theory.spectral`), not the contrastive loss: its
excess L(s_D) − L* is an upper bound on inf over rank-D scores of L − L*, the quantity a trained rank-D model is
compared with. This module computes that infimum (an upper bound on it that more starts can only lower).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from crlrepro.theory.numerics import log_sum_exp
from crlrepro.theory.oracles import excess_contrastive_risk
from crlrepro.theory.quadrature import PopulationGrid
from crlrepro.theory.spectral import RankDFit, _check_dim, operator_svd, rank_d_l2_fit, truncated_score

__all__ = ["EXCESS_MINIMA_NOT_APPLICABLE", "excess_minima_table", "rank_d_excess_fit"]

# Columns of excess_minima_table that are empty where D is a row of the shape series only (not in the dims optimised).
EXCESS_MINIMA_NOT_APPLICABLE = ("minimum", "minimum_ratio", "starts", "start_spread", "best_share", "iterations")


def _excess_objective(theta, grid: PopulationGrid, tau: float, dim: int, scale_x, scale_y, joint=None):
    """L(F Gᵀ) − L* on the grid and its gradient in the preconditioned variables F̃ = F/scale_x, G̃ = G/scale_y
    (rank_d_excess_fit); ``joint``: the grid's joint weights, computed once by the caller of an optimiser's loop."""
    nx, ny = len(grid.x), len(grid.y)
    f = theta[: nx * dim].reshape(nx, dim) * scale_x
    g = theta[nx * dim :].reshape(ny, dim) * scale_y
    s = f @ g.T / tau
    logits = s + np.log(grid.y.weights)[None, :]
    log_z = log_sum_exp(logits, axis=1)
    joint = grid.joint_weights() if joint is None else joint
    value = tau * float(np.sum(joint * (grid.log_ratio - s + log_z[:, None])))
    d_s = joint.sum(axis=1)[:, None] * np.exp(logits - log_z[:, None]) - joint  # ∂/∂S of the value, times 1/τ·τ
    return value, np.concatenate([((d_s @ g) * scale_x).ravel(), ((d_s.T @ f) * scale_y).ravel()])


def rank_d_excess_fit(
    grid: PopulationGrid, tau: float, dim: int, *, starts: int = 4, seed: int = 0, max_iter: int = 2000
) -> RankDFit:
    """The rank-D score nearest to the Bayes score in the contrastive loss itself: the best rank-D excess risk

        min over F (nx × D), G (ny × D) of  L(s) − L*,   s(x_a, y_b) = F_aᵀ G_b,
        L(s) − L* = τ Σ_ab P_ab [PMI_ab − s_ab/τ + log Σ_b' wy_b' e^{s_ab'/τ}]     (P_ab = wx_a wy_b e^{PMI_ab}),

    on the product rule of ``grid`` (the ``definition`` of the returned fit is ``"excess"``, its ``value`` the excess
    of the best start by :func:`crlrepro.theory.oracles.excess_contrastive_risk`, the A1 truncation's evaluator). The
    truncation s_D minimises the L2 distance to τ·PMI, not the loss, so L(s_D) − L* is only an upper bound on this
    minimum (on paper 2's mixture it is 3.8× the minimum at D = 1, 4× at D = 4).

    Method: L-BFGS on (F, G) with the gradient ∂/∂S_ab = p_X(x_a) q_s(y_b | x_a) − P_ab (q_s the model's conditional on
    the nodes), in the variables F̃_a = √p_X(a) F_a, G̃_b = √p_Y(b) G_b: the loss weighs row a by its mass p_X(a), so
    without that diagonal preconditioning the far-tail rows (mass ~1e-20) converge thousands of times more slowly.
    Starts: the truncation s_D (its Nyström factors), then ``starts`` − 1 copies of it with the columns of f and of
    g mixed by I + M, M with N(0, 1/(4D)) entries (``seed``): smooth perturbations of the score within the
    truncation's functions. Each start stops after ``max_iter`` steps at most. A local method on a non-convex problem:
    the value is the best the starts reached, an
    upper bound on the global minimum that more starts can only lower; :attr:`RankDFit.start_spread` and
    :attr:`RankDFit.best_share` say whether the starts agreed."""
    from scipy.optimize import minimize

    _check_dim(dim)
    tau, dim = float(tau), int(dim)
    nx, ny = len(grid.x), len(grid.y)
    joint = grid.joint_weights()
    scale_x = 1.0 / np.sqrt(np.maximum(joint.sum(axis=1), np.finfo(float).tiny))[:, None]
    scale_y = 1.0 / np.sqrt(np.maximum(joint.sum(axis=0), np.finfo(float).tiny))[:, None]
    start = rank_d_l2_fit(grid, tau, dim, "plain")  # the truncation s_D = f gᵀ on the nodes (Eckart–Young)
    f0, g0 = start.f, start.g
    rng = np.random.default_rng(seed)
    initial = [(f0, g0)] + [
        (
            f0 @ (np.eye(dim) + rng.standard_normal((dim, dim)) / (2 * np.sqrt(dim))),
            g0 @ (np.eye(dim) + rng.standard_normal((dim, dim)) / (2 * np.sqrt(dim))),
        )
        for _ in range(max(int(starts), 1) - 1)
    ]
    fits = []
    for f, g in initial:
        result = minimize(
            _excess_objective,
            np.concatenate([(f / scale_x).ravel(), (g / scale_y).ravel()]),
            args=(grid, tau, dim, scale_x, scale_y, joint),
            jac=True,
            method="L-BFGS-B",
            options={"maxiter": int(max_iter), "maxfun": 2 * int(max_iter), "ftol": 0.0, "gtol": 1e-14, "maxcor": 30},
        )
        f = result.x[: nx * dim].reshape(nx, dim) * scale_x
        g = result.x[nx * dim :].reshape(ny, dim) * scale_y
        fits.append((excess_contrastive_risk(lambda x, y, f=f, g=g: f @ g.T, grid, tau), f, g, int(result.nit)))
    values = np.array([v for v, *_ in fits])
    _, f, g, _ = fits[int(np.argmin(values))]
    return RankDFit(
        "excess", dim, grid.x.nodes, grid.y.nodes, f, g, float(values.min()), values, np.array([n for *_, n in fits]), np.empty(0)
    )


def excess_minima_table(
    gmm, tau: float, dims, nodes: int, shape_dims: int = 16, *, starts: int = 4, seed: int = 0
) -> pd.DataFrame:
    """Paper 2, Sec. 3, the best rank-D excess risk and the bound's shape, per D = 1 … max(``shape_dims``, max dims):

    tail_sum Σ_{i>D} λ_i, truncation_excess L(s_D) − L* and truncation_ratio (L(s_D) − L*) / Σ_{i>D} λ_i (the shape
    of the ≲ bound: a bounded ratio at every finite D is what "≲ with a constant" can be checked against); and for D
    in ``dims`` the minimum over rank-D scores of L − L* (:func:`rank_d_excess_fit`), minimum_ratio (minimum / tail),
    starts, start_spread, best_share and iterations (the most L-BFGS steps a start took); empty elsewhere
    (:data:`EXCESS_MINIMA_NOT_APPLICABLE`). ``quadrature_error``: |L(s_D) − L*| at ``nodes`` less the same at
    ``nodes`` // 2 (the rule's error is far smaller; this bounds it); ``zero_excess``: L(0) − L* = τ·I(X; Y), the
    excess of a score that learned nothing; ``resolved`` is False where the tail is below 1e-12 of Σλ_i, where the
    ratio is rounding."""
    grid = gmm.grid(int(nodes))
    system = operator_svd(gmm.pmi, grid.x, grid.y)
    top = max(int(shape_dims), *(int(d) for d in dims))
    if top >= system.eigenvalues.size:
        raise ValueError(f"D up to {top} needs more than {system.eigenvalues.size} eigenvalues: raise nodes ({nodes})")
    total = float(np.sum(system.eigenvalues))
    zero = excess_contrastive_risk(lambda x, y: np.zeros((len(x), len(y))), grid, tau)
    coarse = gmm.grid(int(nodes) // 2)
    coarse_system = operator_svd(gmm.pmi, coarse.x, coarse.y)
    rows = []
    for d in range(1, top + 1):
        tail = system.tail_sum(d)
        excess = excess_contrastive_risk(truncated_score(system, d, tau), grid, tau)
        row = {"D": d, "tail_sum": tail, "truncation_excess": excess, "truncation_ratio": excess / tail}
        coarse_excess = excess_contrastive_risk(truncated_score(coarse_system, d, tau), coarse, tau)
        row |= {"quadrature_error": abs(excess - coarse_excess), "zero_excess": zero, "resolved": bool(tail > 1e-12 * total)}
        if d in {int(k) for k in dims}:
            fit = rank_d_excess_fit(grid, tau, d, starts=starts, seed=seed)
            row |= {
                "minimum": fit.value,
                "minimum_ratio": fit.value / tail,
                "starts": int(fit.start_values.size),
                "start_spread": fit.start_spread,
                "best_share": fit.best_share,
                "iterations": int(fit.iterations.max()),
            }
        rows.append(row)
    return pd.DataFrame(rows)
