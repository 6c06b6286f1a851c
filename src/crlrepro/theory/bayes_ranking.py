"""The Bayes retrieval AUC E* of the 1-D latent-class mixture to 10+ digits, by piecewise Gauss–Legendre
quadrature split at every point where the integrand is not analytic.

Definition (paper 1, Sec. 3), (x, y) ~ p, y' ~ P_Y independent, s* = PMI (any increasing transform ranks alike):

    E* = P[s*(x,y) > s*(x,y')] + ½ P[s*(x,y) = s*(x,y')] = ∫ p(x) A(x) dx,

    A(x) = ∫ p(y|x) F_x(h_x(y)) dy,   F_x(v) = P_{Y'~P_Y}(h_x(Y') < v) + ½ P(h_x(Y') = v),

    h_x(y) = p(y|x) / p(y) = e^{PMI(x,y)} = Σ_k c_k(x) q_k(y),   c_k(x) = p(z=k|x) / π_k,   q_k(y) = p(z=k|y).

Gini form. Since p(y|x) = h_x(y) p(y), symmetrising the pair (y, y') gives A(x) = ½ E_{Y,Y'~P_Y} max(h_x(Y), h_x(Y'))
and, with E_{P_Y} h_x = 1,

    A(x) = ½ + ¼ E_{Y,Y'~P_Y} |δ_x(Y) − δ_x(Y')| = ½ + ¼ ∫ p(y) Γ_x(δ_x(y)) dy,   δ_x = h_x − 1 = Σ_k d_k q_k,

    Γ_x(v) = E_{P_Y} |δ_x(Y') − v| = v (2 F_x(v) − 1) + E δ_x − 2 M_x(v),
    M_x(v) = E_{P_Y}[δ_x(Y') 1{δ_x(Y') < v}] = Σ_k d_k π_k P_{N(μy_k, σy_k²)}(δ_x < v),

with d_k(x) = c_k(x) − 1. This is what is computed: it is Lipschitz in the ranking (a pair misordered by
rounding costs |δ(y) − δ(y')|, not a whole indicator), so flat stretches of h_x and ties need no care, and
A(x) = ½ exactly where d(x) = 0 (x uninformative, h_x constant, every pair tied). Γ is homogeneous of
degree one in d, so it is evaluated for the unit direction u = d/‖d‖ and A(x) = ½ + ¼ ‖d(x)‖ D(u(x)).

Inner integral (fixed x). The critical points of δ (roots of δ'(y) ∝ Σ_{k<j} q_k q_j (u_k − u_j)(ℓ_k' − ℓ_j'),
ℓ_k' = −(y − μy_k)/σy_k²) cut the y support [L, U] (mixture ±10σ, as in quadrature.py) into monotone
pieces. On each piece {δ < v} is an interval ended by the root of δ = v (safeguarded Newton), and its
P_Y and N(μy_k, σy_k²) masses are exact through the normal CDF, so Γ(δ(y)) is exact at any y. On a
monotone piece the integrand p(y) Γ(δ(y)) is analytic except where δ(y) equals a special value (a
critical value, or δ(L), δ(U): the asymptotes as far as the support sees them) attained on another
piece: there Γ has a (v − v_c)^{3/2} term (the mass of {δ < v} near a local extremum changes like
√|v − v_c|). The y line is split at all such preimages; each part gets Gauss–Legendre in θ after
y = a + (b − a) φ(θ), with φ quadratic at a singular end (1 − cos(πθ/2) one-sided, (1 − cos πθ)/2
two-sided), which makes (y − a)^{3/2} analytic in θ, so convergence is exponential.

Outer integral. A(x) is analytic except where the ranking structure changes: d(x) = 0 (for K = 2 the kink
at p(z|x) = π, e.g. x = 0 on the symmetric paper mixture), critical points of δ_x born or dying, and two
special values crossing. A "ranking signature" (number of critical points and the order of the special
values, ties within piecewise.TIE_TOL of their spread merged) is scanned on piecewise.X_SCAN_POINTS points of the x support;
every change is located by bisection to piecewise.BREAKPOINT_TOL and the x integral split there, with the same rule.

Adaptivity. Near-events (a pair of critical points almost born: complex critical points close to the real
axis) leave A(x) and the y integrand analytic but with singularities a short way off the real line. So
every part, in x and in y, is checked: the last two Legendre coefficients of its integrand, read off the
``nodes`` samples, must be below piecewise.X_TOL (x) or piecewise.Y_TOL (y), else it is halved and redone (for nodes ≥ 8).
Parts are at most max(nodes, 16)/piecewise.NODES_PER_SIGMA of the view's smallest standard deviation long to start.

Accuracy: 32, 64 and 128 nodes agree to ~1e-14 on the mixtures of tests/theory/test_bayes_ranking.py (K ≤ 4,
unequal variances included), and the result agrees with Monte Carlo, a sorted-ranks brute force and the
trapezoid rule of oracles.bayes_auc within their own errors; E* of paper 2's mixture is 0.675203729921.

Monotone scores (the power check). For a score increasing in y at fixed x, A₊(x) = P(Y > Y' | x)
= Σ_k p(z=k|x) B_k with B_k = Σ_j π_j Φ((μy_k − μy_j)/√(σy_k² + σy_j²)), and

    E(x·y) = ∫ p(x) [A₊(x) if x > 0 else 1 − A₊(x)] dx,   E_mono = ∫ p(x) max(A₊(x), 1 − A₊(x)) dx.
"""

from __future__ import annotations

import numpy as np
from scipy.special import ndtr

from crlrepro.theory.piecewise import (
    NEGLIGIBLE_DENSITY,
    NODES_PER_SIGMA,
    ROOT_TOL_NODE,
    ROOT_TOL_SPLIT,
    ROW_CHUNK,
    TABLE_POINTS,
    X_SCAN_POINTS,
    X_TOL,
    Y_TOL,
    YView,
    adaptive_integral,
    check_nodes,
    direction,
    invert,
    mixture_density,
    ranking_breakpoints,
    split_long,
    structure,
    support,
)

__all__ = ["bayes_auc_piecewise", "conditional_auc", "monotone_auc"]


def _gini(view: YView, u, nodes: int) -> np.ndarray:
    """D(u) = ∫ p(y) Γ_u(δ_u(y)) dy for every column of u (K, R), by the rule of the module docstring."""
    s = structure(view, u)
    bounds, values, special, rank = s["bounds"], s["values"], s["special"], s["rank"]
    rows_n, num_bounds = bounds.shape
    rank_lo, rank_hi = rank[:, :-1], rank[:, 1:]
    first, last, rising = np.minimum(rank_lo, rank_hi), np.maximum(rank_lo, rank_hi), rank_hi > rank_lo
    empty = bounds[:, 1:] <= bounds[:, :-1]
    # pre[r, j, t]: where δ = V_t on piece j (its own ends, else the root).
    pre = np.full((rows_n, num_bounds - 1, num_bounds), np.nan)
    rr, jj = np.meshgrid(np.arange(rows_n), np.arange(num_bounds - 1), indexing="ij")
    pre[rr, jj, rank_lo], pre[rr, jj, rank_hi] = bounds[:, :-1], bounds[:, 1:]
    t = np.arange(num_bounds)
    ir, ij, it = np.nonzero((t > first[..., None]) & (t < last[..., None]) & ~empty[..., None])
    pre[ir, ij, it] = invert(
        view, u[:, ir], special[ir, it], bounds[ir, ij], bounds[ir, ij + 1], values[ir, ij], values[ir, ij + 1], ROOT_TOL_SPLIT
    )
    # Parts: piece i between the preimages of consecutive special values V_t, V_{t+1}; an end that is not a
    # boundary of the piece is a preimage of another piece's special value, where Γ(δ(y)) has a 3/2 power.
    sr, si, st = np.nonzero((t[:-1] >= first[..., None]) & (t[:-1] < last[..., None]) & ~empty[..., None])
    end_a, end_b = pre[sr, si, st], pre[sr, si, st + 1]
    singular_a = (st != rank_lo[sr, si]) & (st != rank_hi[sr, si])
    singular_b = (st + 1 != rank_lo[sr, si]) & (st + 1 != rank_hi[sr, si])
    swap = end_b < end_a
    lo, hi = np.where(swap, end_b, end_a), np.where(swap, end_a, end_b)
    keep = hi > lo
    lo, hi, sing_lo, sing_hi, owner = split_long(
        lo[keep],
        hi[keep],
        np.where(swap, singular_b, singular_a)[keep],
        np.where(swap, singular_a, singular_b)[keep],
        max(nodes, 16) / NODES_PER_SIGMA * view.stds.min(),
    )
    part_row, part_piece, part_level = sr[keep][owner], si[keep][owner], st[keep][owner]
    # Starting brackets for the roots: δ tabulated on TABLE_POINTS points from pre[r, j, t] to pre[r, j, t+1].
    bracket = np.full(empty.shape + (num_bounds - 1,), -1)
    bracket[sr, si, st] = np.arange(sr.size)
    table_y = end_a[:, None] + (end_b - end_a)[:, None] * np.linspace(0.0, 1.0, TABLE_POINTS)
    table_v = view.delta(np.repeat(u[:, sr], TABLE_POINTS, axis=1), table_y.ravel())[0].reshape(table_y.shape)
    table_v[:, 0], table_v[:, -1] = special[sr, st], special[sr, st + 1]
    cdf_bounds = ndtr((bounds[None] - view.means[..., None]) / view.stds[..., None])  # (K, R, B)
    piece_mass = view.weights[..., None] * np.diff(cdf_bounds, axis=2)  # π_k N_k(piece), (K, R, P)
    piece_below, piece_below_mean = piece_mass.sum(axis=0), np.sum(u[..., None] * piece_mass, axis=0)  # (R, P)
    mass_total, mean_delta = piece_below.sum(axis=1), piece_below_mean.sum(axis=1)  # P_Y[L, U] and E δ on it

    def integrand(part, y):
        density = mixture_density(y, view.weights[:, 0], view.means[:, 0], view.stds[:, 0])
        out = np.zeros(y.size)
        used = np.nonzero(density > NEGLIGIBLE_DENSITY)[0]
        y, part = y[used], part[used]
        row, own_piece, level_index = part_row[part], part_piece[part], part_level[part]
        level = view.delta(u[:, row], y)[0]
        # {δ < level} misses piece j (V_{t+1} ≤ its lowest value), covers it (V_t ≥ its highest) or is cut in it.
        nothing = (level_index[:, None] < first[row]) | empty[row]
        everything = (level_index[:, None] >= last[row]) & ~nothing
        below = np.sum(everything * piece_below[row], axis=1)  # P_Y(δ < level) and E[δ 1{δ < level}]
        below_mean = np.sum(everything * piece_below_mean[row], axis=1)
        node, piece = np.nonzero(~nothing & ~everything)
        cut = y[node]  # on the node's own piece the cut is the node itself
        solve = np.nonzero(piece != own_piece[node])[0]
        if solve.size:
            b, target = bracket[row[node[solve]], piece[solve], level_index[node[solve]]], level[node[solve]]
            k = np.sum(table_v[b, 1:-1] < target[:, None], axis=1)  # δ rises along the table
            cut[solve] = invert(
                view,
                u[:, row[node[solve]]],
                target,
                table_y[b, k],
                table_y[b, k + 1],
                table_v[b, k],
                table_v[b, k + 1],
                ROOT_TOL_NODE,
            )
        r = row[node]
        cdf_cut = ndtr((cut - view.means) / view.stds)
        part_mass = view.weights * np.where(
            rising[r, piece], cdf_cut - cdf_bounds[:, r, piece], cdf_bounds[:, r, piece + 1] - cdf_cut
        )
        below += np.bincount(node, weights=part_mass.sum(axis=0), minlength=y.size)
        below_mean += np.bincount(node, weights=np.sum(u[:, r] * part_mass, axis=0), minlength=y.size)
        out[used] = density[used] * (level * (2.0 * below - mass_total[row]) + mean_delta[row] - 2.0 * below_mean)
        return out

    parts = adaptive_integral(lo, hi, sing_lo, sing_hi, nodes, integrand, Y_TOL)
    return np.bincount(part_row, weights=parts, minlength=rows_n)


def _conditional_auc(gmm, view: YView, x, nodes: int) -> np.ndarray:
    norm, u = direction(gmm, x)
    auc = np.full(norm.size, 0.5)
    informative = np.nonzero(norm > 0)[0]
    for start in range(0, informative.size, ROW_CHUNK):
        rows = informative[start : start + ROW_CHUNK]
        auc[rows] += 0.25 * norm[rows] * _gini(view, u[:, rows], nodes)
    return auc


def conditional_auc(gmm, x, nodes: int) -> np.ndarray:
    """A(x) = P[s*(x, Y) > s*(x, Y') | x] + ½ P[= | x] at each x, ``nodes`` Gauss–Legendre points per part."""
    return _conditional_auc(gmm, YView(gmm), np.atleast_1d(np.asarray(x, dtype=float)), check_nodes(nodes))


def _integrate_x(gmm, nodes: int, breakpoints, function) -> float:
    """∫ p(x) function(x) dx over the x support, split at ``breakpoints`` (singular ends), adaptively."""
    lo, hi = support(gmm.mean_x, gmm.std_x)
    inner = np.unique(np.asarray([b for b in breakpoints if lo < b < hi], dtype=float))
    edges = np.concatenate([[lo], inner, [hi]])
    singular = np.concatenate([[False], np.ones(inner.size, bool), [False]])
    longest = max(nodes, 16) / NODES_PER_SIGMA * gmm.std_x.min()
    parts = split_long(edges[:-1], edges[1:], singular[:-1], singular[1:], longest)[:4]

    def integrand(_, x):
        density = mixture_density(x, gmm.weights, gmm.mean_x, gmm.std_x)
        out = np.zeros(x.size)
        used = density > NEGLIGIBLE_DENSITY
        out[used] = density[used] * function(x[used])
        return out

    return float(np.sum(adaptive_integral(*parts, nodes, integrand, X_TOL)))


def bayes_auc_piecewise(gmm, nodes: int) -> float:
    """E* = ∫ p(x) A(x) dx with ``nodes`` Gauss–Legendre points per part in x and in y (module docstring)."""
    nodes = check_nodes(nodes)
    view = YView(gmm)
    return _integrate_x(gmm, nodes, ranking_breakpoints(gmm), lambda x: _conditional_auc(gmm, view, x, nodes))


# -- scores monotone in y --------------------------------------------------------------------------------


def monotone_auc(gmm, nodes: int) -> dict:
    """E of the scores monotone in y: x·y, −x·y and the best per-x direction (module docstring). A₊(x) is in
    closed form; the x integrals are split at x = 0 and at the roots of A₊(x) = ½, where max(A₊, 1 − A₊) kinks."""
    nodes = check_nodes(nodes)
    gap = (gmm.mean_y[:, None] - gmm.mean_y[None, :]) / np.hypot(gmm.std_y[:, None], gmm.std_y[None, :])
    excess_rate = ndtr(gap) @ gmm.weights - 0.5  # B_k − ½, B_k = P(Y_k > Y')

    def excess(x):  # A₊(x) − ½ = Σ_k p(z=k|x) (B_k − ½)
        return np.exp(gmm.log_posterior_x(x)) @ excess_rate

    lo, hi = support(gmm.mean_x, gmm.std_x)
    scan = np.linspace(lo, hi, X_SCAN_POINTS)
    f = excess(scan) >= 0
    cells = np.nonzero(f[:-1] != f[1:])[0]
    a, b = scan[cells], scan[cells + 1]
    for _ in range(60):
        mid = (a + b) / 2.0
        stays = (excess(mid) >= 0) == f[cells]
        a, b = np.where(stays, mid, a), np.where(stays, b, mid)
    split = np.concatenate([[0.0], (a + b) / 2.0])
    xy = _integrate_x(gmm, nodes, split, lambda x: 0.5 + np.where(x > 0, 1.0, -1.0) * excess(x))
    return {
        "xy": xy,
        "minus_xy": _integrate_x(gmm, nodes, split, lambda x: 0.5 - np.where(x > 0, 1.0, -1.0) * excess(x)),
        "best_monotone": _integrate_x(gmm, nodes, split, lambda x: 0.5 + np.abs(excess(x))),
    }
