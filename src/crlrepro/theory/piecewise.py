"""The piecewise structure of paper 2's 1-D latent-class mixture as the Bayes ranking sees it, shared by the Bayes
AUC (crlrepro.theory.bayes_ranking) and the exact Tsybakov gap distribution (crlrepro.theory.tsybakov).

For an anchor x with posterior p(z | x) and u_k = E-weights of the classes, the ranking score of a target y is
δ_u(y) = Σ_{k<j} (u_k − u_j) q_k(y) q_j(y)-type contrasts of the y-view's posterior q(y) = p(z | y) (:class:`YView`);
its critical points (:func:`critical_points`) split the y support into monotone stretches (:func:`structure`), on
which δ is inverted by safeguarded Newton (:func:`invert`). Along x, the number of critical points and the order
of the special values change only at finitely many points (:func:`ranking_breakpoints`, from a scan of ranking
signatures, :func:`ranking_signatures`, refined by bisection); integrals over x and y are split there and on each part
taken by Gauss–Legendre rules (:func:`legendre_tables`), adaptively halved where the last Legendre coefficients
are not small (:func:`adaptive_integral`). The module docstring of crlrepro.theory.bayes_ranking states the
accuracy these tolerances give.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from crlrepro.theory.quadrature import SUPPORT_HALF_WIDTH

__all__ = [
    "adaptive_integral",
    "BREAKPOINT_TOL",
    "check_nodes",
    "critical_points",
    "direction",
    "invert",
    "legendre_tables",
    "MAX_DEPTH",
    "MIN_ADAPTIVE_NODES",
    "mixture_density",
    "NEGLIGIBLE_DENSITY",
    "NODES_PER_SIGMA",
    "ranking_breakpoints",
    "ranking_signatures",
    "ROW_CHUNK",
    "split_long",
    "structure",
    "support",
    "TABLE_POINTS",
    "TIE_TOL",
    "UNINFORMATIVE",
    "X_SCAN_POINTS",
    "Y_SCAN_POINTS",
    "YView",
]

X_SCAN_POINTS = 2001  # ranking-signature scan of the x support
Y_SCAN_POINTS = 1201  # sign scan of δ' on the y support (two roots within a step are caught by a dip test)
BREAKPOINT_TOL = 1e-13
TIE_TOL = 1e-13  # special values closer than this fraction of their spread count as tied in the signature
NODES_PER_SIGMA = 8.0  # an initial part is at most max(nodes, 16)/NODES_PER_SIGMA smallest standard deviations long
X_TOL, Y_TOL = 1e-13, 4e-15  # Legendre-tail tolerances of a part (absolute; y in units of D)
MAX_DEPTH = 16  # halvings of a part at most
MIN_ADAPTIVE_NODES = 8  # with fewer nodes the last Legendre coefficients say nothing: no halving
NEGLIGIBLE_DENSITY = 1e-19  # below this density a node's contribution (|A|, |Γ| ≤ 2) is skipped
UNINFORMATIVE = 1e-14  # ‖d(x)‖ below this counts as 0: x says nothing about z
ROW_CHUNK = 64  # x values handled together in the inner integral (memory)
TABLE_POINTS = 17  # δ tabulated along each root bracket, for Newton's starting point
# Root accuracy (last Newton step, relative): split points carry a 3/2-power singularity and must be exact;
# a cut at a node moves Γ only at second order (Γ' = 2F − 1 is continuous), so 1e-6 leaves ~1e-20.
ROOT_TOL_SPLIT, ROOT_TOL_NODE = 1e-10, 1e-6


def check_nodes(nodes) -> int:
    n = int(nodes)
    if n != nodes or n < 2:
        raise ValueError(f"nodes must be an integer >= 2 (Gauss–Legendre points per part), got {nodes!r}")
    return n


def support(means, stds) -> tuple[float, float]:
    return float(np.min(means - SUPPORT_HALF_WIDTH * stds)), float(np.max(means + SUPPORT_HALF_WIDTH * stds))


def mixture_density(t, weights, means, stds) -> np.ndarray:
    """Σ_k π_k N(t; μ_k, σ_k²) for a flat array t (components along the first axis for speed)."""
    z = (t[None, :] - means[:, None]) / stds[:, None]
    return np.exp(np.log(weights / stds)[:, None] - 0.5 * z**2).sum(axis=0) / np.sqrt(2.0 * np.pi)


# -- adaptive piecewise Gauss–Legendre -----------------------------------------------------------------


@lru_cache(maxsize=32)
def legendre_tables(nodes: int):
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


def split_long(lo, hi, singular_lo, singular_hi, max_length):
    """Cut each [lo, hi] into equal parts no longer than max_length; only the original ends keep their flags."""
    count = np.maximum(1, np.ceil((hi - lo) / max_length).astype(int))
    owner = np.repeat(np.arange(lo.size), count)
    k = np.arange(owner.size) - np.repeat(np.cumsum(count) - count, count)
    step = (hi - lo)[owner] / count[owner]
    part_lo = lo[owner] + k * step
    part_hi = np.where(k == count[owner] - 1, hi[owner], part_lo + step)
    return part_lo, part_hi, singular_lo[owner] & (k == 0), singular_hi[owner] & (k == count[owner] - 1), owner


def adaptive_integral(lo, hi, singular_lo, singular_hi, nodes, integrand, tol) -> np.ndarray:
    """∫_{lo_i}^{hi_i} f for every interval i, f = integrand(i, t) on flat arrays. Each part gets ``nodes``
    Gauss–Legendre points after the end map of legendre_tables; a part whose last two Legendre coefficients
    exceed tol is halved (the new ends are regular) until MAX_DEPTH."""
    weights, phi, dphi, tail_map = legendre_tables(nodes)
    count = lo.size
    result = np.zeros(count)
    origin = np.arange(count)
    budget = 16 * count  # parts redone in all, at most: refinement is for isolated near-singularities
    depths = MAX_DEPTH if nodes >= MIN_ADAPTIVE_NODES else 1
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


class YView:
    """The y view's parameters, the scan grid and the pair tables (a namespace)."""

    def __init__(self, gmm):
        self.weights, self.means, self.stds = gmm.weights[:, None], gmm.mean_y[:, None], gmm.std_y[:, None]
        self.log_scale = np.log(self.weights / self.stds)
        self.lo, self.hi = support(gmm.mean_y, gmm.std_y)
        self.first, self.second = np.triu_indices(gmm.num_components, k=1)
        self.scan = np.linspace(self.lo, self.hi, Y_SCAN_POINTS)
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


def critical_points(view: YView, u) -> np.ndarray:
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


def invert(view: YView, u, level, lo, hi, value_lo, value_hi, step_tol) -> np.ndarray:
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


def structure(view: YView, u) -> dict:
    """Monotone pieces of δ_u for the columns of u (K, R): boundaries [L, critical points, U] (R, B), padded
    with U (empty pieces); their values; the sorted special values V_t; each boundary's rank t among them."""
    critical = critical_points(view, u)
    rows = u.shape[1]
    bounds = np.concatenate(
        [np.full((rows, 1), view.lo), np.where(np.isnan(critical), view.hi, critical), np.full((rows, 1), view.hi)], axis=1
    )
    values = view.delta(np.repeat(u, bounds.shape[1], axis=1), bounds.ravel())[0].reshape(bounds.shape)
    order = np.argsort(values, axis=1, kind="stable")
    rank = np.empty_like(order)
    np.put_along_axis(rank, order, np.arange(bounds.shape[1])[None, :], axis=1)
    return {
        "bounds": bounds,
        "values": values,
        "special": np.take_along_axis(values, order, axis=1),
        "rank": rank,
        "count": np.sum(~np.isnan(critical), axis=1),
    }


def ranking_signatures(view: YView, u, informative) -> list:
    """Ranking signature of each column of u: number of critical points, tie-merged order of the special values."""
    s = structure(view, u)
    special = s["special"]
    step = np.diff(special, axis=1) > TIE_TOL * (special[:, -1] - special[:, 0])[:, None]
    dense = np.concatenate([np.zeros((special.shape[0], 1), int), np.cumsum(step, axis=1)], axis=1)
    merged = np.take_along_axis(dense, s["rank"], axis=1)
    return [
        (int(m),) + tuple(merged[i, : m + 2].tolist()) if ok else (-1,)
        for i, (ok, m) in enumerate(zip(informative, s["count"], strict=True))
    ]


def direction(gmm, x):
    """‖d(x)‖ and u(x) = d/‖d‖ as (K, N), d_k = p(z=k|x)/π_k − 1. Where ‖d‖ is at rounding level the direction
    is noise, so d is taken as 0 (A = ½; the error, at most ¼‖d‖ max D ≤ ‖d‖/2, is below 1e-14)."""
    d = np.expm1(gmm.log_posterior_x(np.atleast_1d(np.asarray(x, dtype=float))) - np.log(gmm.weights)).T
    norm = np.sqrt(np.sum(d**2, axis=0))
    norm = np.where(norm > UNINFORMATIVE, norm, 0.0)
    return norm, d / np.where(norm > 0, norm, 1.0)


def ranking_breakpoints(gmm) -> np.ndarray:
    """The x values where the ranking of y by PMI(x, ·) changes structure (module docstring), sorted.

    A signature change between two scan points is bisected to BREAKPOINT_TOL; if the signature just right of
    it still differs from the right scan point, the rest of that cell is searched again."""
    view = YView(gmm)
    lo, hi = support(gmm.mean_x, gmm.std_x)
    # An irrational offset keeps the scan off points that symmetry makes special (such as x = 0).
    x = lo + (hi - lo) * (np.arange(X_SCAN_POINTS) + 0.5 - 0.5 / np.pi) / X_SCAN_POINTS

    def signatures(points):
        norm, u = direction(gmm, points)
        return ranking_signatures(view, u, norm > 0)

    sig = signatures(x)
    cells = np.array([i for i in range(x.size - 1) if sig[i] != sig[i + 1]], dtype=int)
    a, b = x[cells], x[cells + 1]
    sig_a, sig_b = [sig[i] for i in cells], [sig[i + 1] for i in cells]
    found = []
    for _ in range(20):  # rounds: each finds the first change left in every open cell
        if not a.size:
            break
        left, right = a.copy(), b.copy()
        while np.any(right - left > np.maximum(BREAKPOINT_TOL, 4.0 * np.spacing(np.abs(left)))):
            mid = (left + right) / 2.0
            stays = np.array([s == t for s, t in zip(signatures(mid), sig_a, strict=True)])
            left, right = np.where(stays, mid, left), np.where(stays, right, mid)
        found.extend(((left + right) / 2.0).tolist())
        after = signatures(right)
        again = np.array([i for i in range(a.size) if after[i] != sig_b[i]], dtype=int)
        a, b = right[again], b[again]
        sig_a, sig_b = [after[i] for i in again], [sig_b[i] for i in again]
    points = np.sort(np.array(found, dtype=float))
    if points.size:  # one change seen from two cells (a scan point on it) is one breakpoint
        points = points[np.concatenate([[True], np.diff(points) > 1e3 * BREAKPOINT_TOL])]
    return points


# -- the inner integral D(u) = E|δ_u(Y) − δ_u(Y')| -----------------------------------------------------
