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
values, ties within _TIE_TOL of their spread merged) is scanned on _X_SCAN_POINTS points of the x support;
every change is located by bisection to _BREAKPOINT_TOL and the x integral split there, with the same rule.

Adaptivity. Near-events (a pair of critical points almost born: complex critical points close to the real
axis) leave A(x) and the y integrand analytic but with singularities a short way off the real line. So
every part, in x and in y, is checked: the last two Legendre coefficients of its integrand, read off the
``nodes`` samples, must be below _X_TOL (x) or _Y_TOL (y), else it is halved and redone (for nodes ≥ 8).
Parts are at most max(nodes, 16)/_NODES_PER_SIGMA of the view's smallest standard deviation long to start.

Accuracy: 32, 64 and 128 nodes agree to ~1e-14 on the mixtures of tests/test_bayes_ranking.py (K ≤ 4,
unequal variances included), and the result agrees with Monte Carlo, a sorted-ranks brute force and the
trapezoid rule of oracles.bayes_auc within their own errors; E* of paper 2's mixture is 0.675203729921.

Monotone scores (the power check). For a score increasing in y at fixed x, A₊(x) = P(Y > Y' | x)
= Σ_k p(z=k|x) B_k with B_k = Σ_j π_j Φ((μy_k − μy_j)/√(σy_k² + σy_j²)), and

    E(x·y) = ∫ p(x) [A₊(x) if x > 0 else 1 − A₊(x)] dx,   E_mono = ∫ p(x) max(A₊(x), 1 − A₊(x)) dx.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from scipy.special import ndtr

from crlrepro.theory.quadrature import SUPPORT_HALF_WIDTH

_X_SCAN_POINTS = 2001  # ranking-signature scan of the x support
_Y_SCAN_POINTS = 1201  # sign scan of δ' on the y support (two roots within a step are caught by a dip test)
_BREAKPOINT_TOL = 1e-13
_TIE_TOL = 1e-13  # special values closer than this fraction of their spread count as tied in the signature
_NODES_PER_SIGMA = 8.0  # an initial part is at most max(nodes, 16)/_NODES_PER_SIGMA smallest standard deviations long
_X_TOL, _Y_TOL = 1e-13, 4e-15  # Legendre-tail tolerances of a part (absolute; y in units of D)
_MAX_DEPTH = 16  # halvings of a part at most
_MIN_ADAPTIVE_NODES = 8  # with fewer nodes the last Legendre coefficients say nothing: no halving
_NEGLIGIBLE_DENSITY = 1e-19  # below this density a node's contribution (|A|, |Γ| ≤ 2) is skipped
_UNINFORMATIVE = 1e-14  # ‖d(x)‖ below this counts as 0: x says nothing about z
_ROW_CHUNK = 64  # x values handled together in the inner integral (memory)
_TABLE_POINTS = 17  # δ tabulated along each root bracket, for Newton's starting point
# Root accuracy (last Newton step, relative): split points carry a 3/2-power singularity and must be exact;
# a cut at a node moves Γ only at second order (Γ' = 2F − 1 is continuous), so 1e-6 leaves ~1e-20.
_ROOT_TOL_SPLIT, _ROOT_TOL_NODE = 1e-10, 1e-6


def _check_nodes(nodes) -> int:
    n = int(nodes)
    if n != nodes or n < 2:
        raise ValueError(f"nodes must be an integer >= 2 (Gauss–Legendre points per part), got {nodes!r}")
    return n


def _support(means, stds) -> tuple[float, float]:
    return float(np.min(means - SUPPORT_HALF_WIDTH * stds)), float(np.max(means + SUPPORT_HALF_WIDTH * stds))


def _mixture_density(t, weights, means, stds) -> np.ndarray:
    """Σ_k π_k N(t; μ_k, σ_k²) for a flat array t (components along the first axis for speed)."""
    z = (t[None, :] - means[:, None]) / stds[:, None]
    return np.exp(np.log(weights / stds)[:, None] - 0.5 * z**2).sum(axis=0) / np.sqrt(2.0 * np.pi)


# -- adaptive piecewise Gauss–Legendre -----------------------------------------------------------------


@lru_cache(maxsize=32)
def _legendre_tables(nodes: int):
    """θ, weights on [0, 1]; φ(θ) and φ'(θ) for the four end treatments (row = singular_lo + 2·singular_hi:
    none θ, low end 1 − cos(πθ/2), high end sin(πθ/2), both (1 − cos πθ)/2); and the map from samples to
    the last two Legendre coefficients, c_k = (2k+1)/2 Σ_i w_i P_k(t_i) f_i."""
    t, w = np.polynomial.legendre.leggauss(nodes)
    theta, half = (t + 1.0) / 2.0, np.pi / 2.0
    phi = np.stack([theta, 1.0 - np.cos(half * theta), np.sin(half * theta), (1.0 - np.cos(np.pi * theta)) / 2.0])
    dphi = np.stack([np.ones_like(theta), half * np.sin(half * theta), half * np.cos(half * theta), half * np.sin(np.pi * theta)])
    last = np.arange(max(nodes - 2, 0), nodes)
    tail = np.polynomial.legendre.legvander(t, nodes - 1)[:, last] * w[:, None] * (2 * last + 1) / 2.0
    return w / 2.0, phi, dphi, tail


def _split_long(lo, hi, singular_lo, singular_hi, max_length):
    """Cut each [lo, hi] into equal parts no longer than max_length; only the original ends keep their flags."""
    count = np.maximum(1, np.ceil((hi - lo) / max_length).astype(int))
    owner = np.repeat(np.arange(lo.size), count)
    k = np.arange(owner.size) - np.repeat(np.cumsum(count) - count, count)
    step = (hi - lo)[owner] / count[owner]
    part_lo = lo[owner] + k * step
    part_hi = np.where(k == count[owner] - 1, hi[owner], part_lo + step)
    return part_lo, part_hi, singular_lo[owner] & (k == 0), singular_hi[owner] & (k == count[owner] - 1), owner


def _adaptive_integral(lo, hi, singular_lo, singular_hi, nodes, integrand, tol) -> np.ndarray:
    """∫_{lo_i}^{hi_i} f for every interval i, f = integrand(i, t) on flat arrays. Each part gets ``nodes``
    Gauss–Legendre points after the end map of _legendre_tables; a part whose last two Legendre coefficients
    exceed tol is halved (the new ends are regular) until _MAX_DEPTH."""
    weights, phi, dphi, tail_map = _legendre_tables(nodes)
    count = lo.size
    result = np.zeros(count)
    origin = np.arange(count)
    budget = 16 * count  # parts redone in all, at most: refinement is for isolated near-singularities
    depths = _MAX_DEPTH if nodes >= _MIN_ADAPTIVE_NODES else 1
    for depth in range(depths):
        kind = singular_lo.astype(int) + 2 * singular_hi.astype(int)
        length = (hi - lo)[:, None]
        t = lo[:, None] + length * phi[kind]
        f = integrand(np.repeat(origin, nodes), t.ravel()).reshape(t.shape) * length * dphi[kind]
        done = np.abs(f @ tail_map).sum(axis=1) <= tol
        budget -= 2 * np.sum(~done)
        if depth == depths - 1 or budget < 0:
            done[:] = True
        result += np.bincount(origin[done], weights=(f @ weights)[done], minlength=count)
        if done.all():
            break
        mid = (lo + hi) / 2.0
        redo = ~done
        origin = np.tile(origin[redo], 2)
        lo, hi = np.concatenate([lo[redo], mid[redo]]), np.concatenate([mid[redo], hi[redo]])
        singular_lo = np.concatenate([singular_lo[redo], np.zeros(redo.sum(), bool)])
        singular_hi = np.concatenate([np.zeros(redo.sum(), bool), singular_hi[redo]])
    return result


# -- the ranking function δ_u(y) = Σ_k u_k q_k(y); arrays carry the K components on the first axis ------


class _YView:
    """The y view's parameters, the scan grid and the pair tables (a namespace)."""

    def __init__(self, gmm):
        self.weights, self.means, self.stds = gmm.weights[:, None], gmm.mean_y[:, None], gmm.std_y[:, None]
        self.log_scale = np.log(self.weights / self.stds)
        self.lo, self.hi = _support(gmm.mean_y, gmm.std_y)
        self.first, self.second = np.triu_indices(gmm.num_components, k=1)
        self.scan = np.linspace(self.lo, self.hi, _Y_SCAN_POINTS)
        self.scan_pair_terms = self.pair_terms(self.scan)

    def posterior_and_slope(self, y):
        """q_k(y) and ℓ_k'(y) = −(y − μy_k)/σy_k², both (K, N)."""
        z = (y - self.means) / self.stds
        a = self.log_scale - 0.5 * z**2
        e = np.exp(a - a.max(axis=0))
        return e / e.sum(axis=0), -z / self.stds

    def delta(self, u, y):
        """δ_u(y) and δ_u'(y) = Σ_k q_k (u_k − δ) ℓ_k' for aligned columns u (K, N) and points y (N,)."""
        q, slope = self.posterior_and_slope(y)
        value = np.sum(u * q, axis=0)
        return value, np.sum(q * (u - value) * slope, axis=0)

    def pair_terms(self, y):
        """e^{log q_k + log q_j − m(y)} (ℓ_k' − ℓ_j') for k < j, (pairs, N), m(y) the largest log q_k + log q_j
        (so the terms never all underflow). δ_u' e^{−m} is their sum weighted by u_k − u_j: no term cancels."""
        z = (y - self.means) / self.stds
        a = self.log_scale - 0.5 * z**2
        e = a[self.first] + a[self.second]
        return np.exp(e - e.max(axis=0)) * (z[self.second] / self.stds[self.second] - z[self.first] / self.stds[self.first])

    def pair_coefficients(self, u):
        """u_k − u_j for k < j, (pairs, N) from u (K, N)."""
        return u[self.first] - u[self.second]


def _critical_points(view: _YView, u) -> np.ndarray:
    """Roots of δ_u' in (L, U) for every column of u (K, R), sorted, NaN-padded to (R, m).

    Sign changes on the scan grid are refined by bisection. Two roots inside one grid step show as a local
    minimum of |δ'| without a sign change; the minimum of sign·δ' there is found by golden section and, if it
    has the other sign, the two roots on either side of it are bisected as well."""
    coef = view.pair_coefficients(u)
    g = coef.T @ view.scan_pair_terms  # (R, S), δ' times a positive factor
    positive = g >= 0
    rows, idx = np.nonzero(positive[:, :-1] != positive[:, 1:])
    lo, hi = view.scan[idx], view.scan[idx + 1]
    absg = np.abs(g)
    same = (positive[:, :-2] == positive[:, 1:-1]) & (positive[:, 1:-1] == positive[:, 2:])
    dip_rows, dip_idx = np.nonzero(same & (absg[:, 1:-1] < absg[:, :-2]) & (absg[:, 1:-1] <= absg[:, 2:]))
    if dip_rows.size:
        sign = np.where(positive[dip_rows, dip_idx + 1], 1.0, -1.0)
        c = coef[:, dip_rows]
        a, b = view.scan[dip_idx], view.scan[dip_idx + 2]
        golden = (np.sqrt(5.0) - 1.0) / 2.0
        for _ in range(30):  # golden section on sign·δ' (its value at the minimum is what matters)
            left, right = b - golden * (b - a), a + golden * (b - a)
            lower = sign * np.sum(c * view.pair_terms(left), axis=0) < sign * np.sum(c * view.pair_terms(right), axis=0)
            a, b = np.where(lower, a, left), np.where(lower, right, b)
        middle = (a + b) / 2.0
        crossed = sign * np.sum(c * view.pair_terms(middle), axis=0) < 0
        rows = np.concatenate([rows, dip_rows[crossed], dip_rows[crossed]])
        lo = np.concatenate([lo, view.scan[dip_idx[crossed]], middle[crossed]])
        hi = np.concatenate([hi, middle[crossed], view.scan[dip_idx[crossed] + 2]])
    if not rows.size:
        return np.full((u.shape[1], 0), np.nan)
    c = coef[:, rows]
    lo_positive = np.sum(c * view.pair_terms(lo), axis=0) >= 0
    for _ in range(36):  # bisection on the sign of δ' to ~1e-12 (a boundary off by ε moves D by O(ε²))
        mid = (lo + hi) / 2.0
        same_as_lo = (np.sum(c * view.pair_terms(mid), axis=0) >= 0) == lo_positive
        lo, hi = np.where(same_as_lo, mid, lo), np.where(same_as_lo, hi, mid)
    found = (lo + hi) / 2.0
    order = np.lexsort((found, rows))
    rows, found = rows[order], found[order]
    counts = np.bincount(rows, minlength=u.shape[1])
    roots = np.full((u.shape[1], counts.max()), np.nan)
    roots[rows, np.arange(rows.size) - np.repeat(np.cumsum(counts) - counts, counts)] = found
    return roots


def _invert(view: _YView, u, level, lo, hi, value_lo, value_hi, step_tol) -> np.ndarray:
    """The root of δ_u(r) = level between lo and hi, where δ_u is monotone with values value_lo, value_hi
    (flat arrays, u (K, N)): Newton from the secant guess, bisecting whenever a step leaves the bracket, done
    after a Newton step below step_tol·(1 + |r|) (it leaves an error of order step²·δ''/δ') or a bracket at
    rounding level."""
    span = value_hi - value_lo
    with np.errstate(divide="ignore", invalid="ignore"):
        r = lo + np.clip(np.where(span != 0, (level - value_lo) / span, 0.5), 0.0, 1.0) * (hi - lo)
    left, right = np.minimum(lo, hi), np.maximum(lo, hi)
    rising = span * (hi - lo) >= 0  # δ increases from left to right
    active = np.arange(r.size)
    for _ in range(200):
        ra, target = r[active], level[active]
        value, slope = view.delta(u[:, active], ra)
        right_of = (value < target) == rising[active]  # the root lies to the right of ra
        la, rb = np.where(right_of, ra, left[active]), np.where(right_of, right[active], ra)
        with np.errstate(divide="ignore", invalid="ignore"):
            newton = ra - (value - target) / slope
        inside = np.isfinite(newton) & (newton > la) & (newton < rb)
        exact = value == target
        new = np.where(exact, ra, np.where(inside, newton, (la + rb) / 2.0))
        left[active], right[active], r[active] = la, rb, new
        scale = 1.0 + np.abs(ra)
        converged = exact | (inside & (np.abs(newton - ra) <= step_tol * scale)) | (rb - la <= 4e-16 * scale)
        active = active[~converged]
        if not active.size:
            break
    return r


# -- structure of δ_u on the y line ---------------------------------------------------------------------


def _structure(view: _YView, u) -> dict:
    """Monotone pieces of δ_u for the columns of u (K, R): boundaries [L, critical points, U] (R, B), padded
    with U (empty pieces); their values; the sorted special values V_t; each boundary's rank t among them."""
    critical = _critical_points(view, u)
    rows = u.shape[1]
    bounds = np.concatenate([np.full((rows, 1), view.lo), np.where(np.isnan(critical), view.hi, critical),
                             np.full((rows, 1), view.hi)], axis=1)
    values = view.delta(np.repeat(u, bounds.shape[1], axis=1), bounds.ravel())[0].reshape(bounds.shape)
    order = np.argsort(values, axis=1, kind="stable")
    rank = np.empty_like(order)
    np.put_along_axis(rank, order, np.arange(bounds.shape[1])[None, :], axis=1)
    return {"bounds": bounds, "values": values, "special": np.take_along_axis(values, order, axis=1), "rank": rank,
            "count": np.sum(~np.isnan(critical), axis=1)}


def _signatures(view: _YView, u, informative) -> list:
    """Ranking signature of each column of u: number of critical points, tie-merged order of the special values."""
    s = _structure(view, u)
    special = s["special"]
    step = np.diff(special, axis=1) > _TIE_TOL * (special[:, -1] - special[:, 0])[:, None]
    dense = np.concatenate([np.zeros((special.shape[0], 1), int), np.cumsum(step, axis=1)], axis=1)
    merged = np.take_along_axis(dense, s["rank"], axis=1)
    return [(int(m),) + tuple(merged[i, : m + 2].tolist()) if ok else (-1,)
            for i, (ok, m) in enumerate(zip(informative, s["count"]))]


def _direction(gmm, x):
    """‖d(x)‖ and u(x) = d/‖d‖ as (K, N), d_k = p(z=k|x)/π_k − 1. Where ‖d‖ is at rounding level the direction
    is noise, so d is taken as 0 (A = ½; the error, at most ¼‖d‖ max D ≤ ‖d‖/2, is below 1e-14)."""
    d = np.expm1(gmm.log_posterior_x(np.atleast_1d(np.asarray(x, dtype=float))) - np.log(gmm.weights)).T
    norm = np.sqrt(np.sum(d**2, axis=0))
    norm = np.where(norm > _UNINFORMATIVE, norm, 0.0)
    return norm, d / np.where(norm > 0, norm, 1.0)


def ranking_breakpoints(gmm) -> np.ndarray:
    """The x values where the ranking of y by PMI(x, ·) changes structure (module docstring), sorted.

    A signature change between two scan points is bisected to _BREAKPOINT_TOL; if the signature just right of
    it still differs from the right scan point, the rest of that cell is searched again."""
    view = _YView(gmm)
    lo, hi = _support(gmm.mean_x, gmm.std_x)
    # An irrational offset keeps the scan off points that symmetry makes special (such as x = 0).
    x = lo + (hi - lo) * (np.arange(_X_SCAN_POINTS) + 0.5 - 0.5 / np.pi) / _X_SCAN_POINTS

    def signatures(points):
        norm, u = _direction(gmm, points)
        return _signatures(view, u, norm > 0)

    sig = signatures(x)
    cells = np.array([i for i in range(x.size - 1) if sig[i] != sig[i + 1]], dtype=int)
    a, b = x[cells], x[cells + 1]
    sig_a, sig_b = [sig[i] for i in cells], [sig[i + 1] for i in cells]
    found = []
    for _ in range(20):  # rounds: each finds the first change left in every open cell
        if not a.size:
            break
        left, right = a.copy(), b.copy()
        while np.any(right - left > np.maximum(_BREAKPOINT_TOL, 4.0 * np.spacing(np.abs(left)))):
            mid = (left + right) / 2.0
            stays = np.array([s == t for s, t in zip(signatures(mid), sig_a)])
            left, right = np.where(stays, mid, left), np.where(stays, right, mid)
        found.extend(((left + right) / 2.0).tolist())
        after = signatures(right)
        again = np.array([i for i in range(a.size) if after[i] != sig_b[i]], dtype=int)
        a, b = right[again], b[again]
        sig_a, sig_b = [after[i] for i in again], [sig_b[i] for i in again]
    points = np.sort(np.array(found, dtype=float))
    if points.size:  # one change seen from two cells (a scan point on it) is one breakpoint
        points = points[np.concatenate([[True], np.diff(points) > 1e3 * _BREAKPOINT_TOL])]
    return points


# -- the inner integral D(u) = E|δ_u(Y) − δ_u(Y')| -----------------------------------------------------


def _gini(view: _YView, u, nodes: int) -> np.ndarray:
    """D(u) = ∫ p(y) Γ_u(δ_u(y)) dy for every column of u (K, R), by the rule of the module docstring."""
    s = _structure(view, u)
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
    pre[ir, ij, it] = _invert(view, u[:, ir], special[ir, it], bounds[ir, ij], bounds[ir, ij + 1], values[ir, ij],
                              values[ir, ij + 1], _ROOT_TOL_SPLIT)
    # Parts: piece i between the preimages of consecutive special values V_t, V_{t+1}; an end that is not a
    # boundary of the piece is a preimage of another piece's special value, where Γ(δ(y)) has a 3/2 power.
    sr, si, st = np.nonzero((t[:-1] >= first[..., None]) & (t[:-1] < last[..., None]) & ~empty[..., None])
    end_a, end_b = pre[sr, si, st], pre[sr, si, st + 1]
    singular_a = (st != rank_lo[sr, si]) & (st != rank_hi[sr, si])
    singular_b = (st + 1 != rank_lo[sr, si]) & (st + 1 != rank_hi[sr, si])
    swap = end_b < end_a
    lo, hi = np.where(swap, end_b, end_a), np.where(swap, end_a, end_b)
    keep = hi > lo
    lo, hi, sing_lo, sing_hi, owner = _split_long(
        lo[keep], hi[keep], np.where(swap, singular_b, singular_a)[keep], np.where(swap, singular_a, singular_b)[keep],
        max(nodes, 16) / _NODES_PER_SIGMA * view.stds.min())
    part_row, part_piece, part_level = sr[keep][owner], si[keep][owner], st[keep][owner]
    # Starting brackets for the roots: δ tabulated on _TABLE_POINTS points from pre[r, j, t] to pre[r, j, t+1].
    bracket = np.full(empty.shape + (num_bounds - 1,), -1)
    bracket[sr, si, st] = np.arange(sr.size)
    table_y = end_a[:, None] + (end_b - end_a)[:, None] * np.linspace(0.0, 1.0, _TABLE_POINTS)
    table_v = view.delta(np.repeat(u[:, sr], _TABLE_POINTS, axis=1), table_y.ravel())[0].reshape(table_y.shape)
    table_v[:, 0], table_v[:, -1] = special[sr, st], special[sr, st + 1]
    cdf_bounds = ndtr((bounds[None] - view.means[..., None]) / view.stds[..., None])  # (K, R, B)
    piece_mass = view.weights[..., None] * np.diff(cdf_bounds, axis=2)  # π_k N_k(piece), (K, R, P)
    piece_below, piece_below_mean = piece_mass.sum(axis=0), np.sum(u[..., None] * piece_mass, axis=0)  # (R, P)
    mass_total, mean_delta = piece_below.sum(axis=1), piece_below_mean.sum(axis=1)  # P_Y[L, U] and E δ on it

    def integrand(part, y):
        density = _mixture_density(y, view.weights[:, 0], view.means[:, 0], view.stds[:, 0])
        out = np.zeros(y.size)
        used = np.nonzero(density > _NEGLIGIBLE_DENSITY)[0]
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
            cut[solve] = _invert(view, u[:, row[node[solve]]], target, table_y[b, k], table_y[b, k + 1], table_v[b, k],
                                 table_v[b, k + 1], _ROOT_TOL_NODE)
        r = row[node]
        cdf_cut = ndtr((cut - view.means) / view.stds)
        part_mass = view.weights * np.where(rising[r, piece], cdf_cut - cdf_bounds[:, r, piece],
                                            cdf_bounds[:, r, piece + 1] - cdf_cut)
        below += np.bincount(node, weights=part_mass.sum(axis=0), minlength=y.size)
        below_mean += np.bincount(node, weights=np.sum(u[:, r] * part_mass, axis=0), minlength=y.size)
        out[used] = density[used] * (level * (2.0 * below - mass_total[row]) + mean_delta[row] - 2.0 * below_mean)
        return out

    parts = _adaptive_integral(lo, hi, sing_lo, sing_hi, nodes, integrand, _Y_TOL)
    return np.bincount(part_row, weights=parts, minlength=rows_n)


def _conditional_auc(gmm, view: _YView, x, nodes: int) -> np.ndarray:
    norm, u = _direction(gmm, x)
    auc = np.full(norm.size, 0.5)
    informative = np.nonzero(norm > 0)[0]
    for start in range(0, informative.size, _ROW_CHUNK):
        rows = informative[start : start + _ROW_CHUNK]
        auc[rows] += 0.25 * norm[rows] * _gini(view, u[:, rows], nodes)
    return auc


def conditional_auc(gmm, x, nodes: int) -> np.ndarray:
    """A(x) = P[s*(x, Y) > s*(x, Y') | x] + ½ P[= | x] at each x, ``nodes`` Gauss–Legendre points per part."""
    return _conditional_auc(gmm, _YView(gmm), np.atleast_1d(np.asarray(x, dtype=float)), _check_nodes(nodes))


def _integrate_x(gmm, nodes: int, breakpoints, function) -> float:
    """∫ p(x) function(x) dx over the x support, split at ``breakpoints`` (singular ends), adaptively."""
    lo, hi = _support(gmm.mean_x, gmm.std_x)
    inner = np.unique(np.asarray([b for b in breakpoints if lo < b < hi], dtype=float))
    edges = np.concatenate([[lo], inner, [hi]])
    singular = np.concatenate([[False], np.ones(inner.size, bool), [False]])
    longest = max(nodes, 16) / _NODES_PER_SIGMA * gmm.std_x.min()
    parts = _split_long(edges[:-1], edges[1:], singular[:-1], singular[1:], longest)[:4]

    def integrand(_, x):
        density = _mixture_density(x, gmm.weights, gmm.mean_x, gmm.std_x)
        out = np.zeros(x.size)
        used = density > _NEGLIGIBLE_DENSITY
        out[used] = density[used] * function(x[used])
        return out

    return float(np.sum(_adaptive_integral(*parts, nodes, integrand, _X_TOL)))


def bayes_auc_piecewise(gmm, nodes: int) -> float:
    """E* = ∫ p(x) A(x) dx with ``nodes`` Gauss–Legendre points per part in x and in y (module docstring)."""
    nodes = _check_nodes(nodes)
    view = _YView(gmm)
    return _integrate_x(gmm, nodes, ranking_breakpoints(gmm), lambda x: _conditional_auc(gmm, view, x, nodes))


# -- scores monotone in y --------------------------------------------------------------------------------


def monotone_auc(gmm, nodes: int) -> dict:
    """E of the scores monotone in y: x·y, −x·y and the best per-x direction (module docstring). A₊(x) is in
    closed form; the x integrals are split at x = 0 and at the roots of A₊(x) = ½, where max(A₊, 1 − A₊) kinks."""
    nodes = _check_nodes(nodes)
    gap = (gmm.mean_y[:, None] - gmm.mean_y[None, :]) / np.hypot(gmm.std_y[:, None], gmm.std_y[None, :])
    excess_rate = ndtr(gap) @ gmm.weights - 0.5  # B_k − ½, B_k = P(Y_k > Y')

    def excess(x):  # A₊(x) − ½ = Σ_k p(z=k|x) (B_k − ½)
        return np.exp(gmm.log_posterior_x(x)) @ excess_rate

    lo, hi = _support(gmm.mean_x, gmm.std_x)
    scan = np.linspace(lo, hi, _X_SCAN_POINTS)
    f = excess(scan) >= 0
    cells = np.nonzero(f[:-1] != f[1:])[0]
    a, b = scan[cells], scan[cells + 1]
    for _ in range(60):
        mid = (a + b) / 2.0
        stays = (excess(mid) >= 0) == f[cells]
        a, b = np.where(stays, mid, a), np.where(stays, b, mid)
    split = np.concatenate([[0.0], (a + b) / 2.0])
    xy = _integrate_x(gmm, nodes, split, lambda x: 0.5 + np.where(x > 0, 1.0, -1.0) * excess(x))
    return {"xy": xy, "minus_xy": _integrate_x(gmm, nodes, split, lambda x: 0.5 - np.where(x > 0, 1.0, -1.0) * excess(x)),
            "best_monotone": _integrate_x(gmm, nodes, split, lambda x: 0.5 + np.abs(excess(x)))}
