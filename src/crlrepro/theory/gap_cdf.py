"""The exact CDF of the density-ratio gap (paper 2, Sec. 5.3; the Tsybakov condition of :mod:`crlrepro.theory.tsybakov`):

    F(t) = P( |r(x, y) − r(x, y')| ≤ t ),   r = p(y|x)/p(y),   (x, y) ~ p, y' ~ P_Y,

and its density F'(t), for a 1-D latent-class mixture.

For the 1-D latent-class mixture F(t) = P(|r(x,y) − r(x,y')| ≤ t) is an integral, done
here by deterministic quadrature. With d_k(x) = p(z=k|x)/π_k − 1 and δ_u(y) = Σ_k u_k q_k(y), q_k = p(z=k|y),
u = d/‖d‖ (as in bayes_ranking), r(x, y) = 1 + ‖d(x)‖ δ_u(y), so at τ = t/‖d(x)‖

    F(t) = ∫ p(x) F_x(τ) dx,   F_x(τ) = ∫ p(y') M_x(y') dy',   M_x(y') = P_{Y~p(·|x)}( |δ(Y) − δ(y')| ≤ τ ),

    M_x(y') = Σ_pieces P_{Y~p(·|x)}( Y on the piece, δ(Y) ∈ [v − τ, v + τ] ),   v = δ(y'),

the pieces being the monotone stretches of δ between its critical points (piecewise.structure); F_x = 1 where
τ ≥ max δ − min δ. On each piece the ends of the set solve δ(a + s) − δ(a) = ±τ − (δ(a) − v) from an anchor a
(y' itself on its own piece, else the preimage of v): the increment is evaluated as Σ_{k<j} (u_k − u_j)
(q_k(y₁) q_j(y₀) − q_k(y₀) q_j(y₁)) through expm1 (_increment), so the offsets s, and with them the length of a
short interval, carry full relative precision even at τ ~ 1e-10; short intervals get their mass by Gauss–Legendre
on the density, long ones by normal CDFs from the nearer tail. The derivative ∂M/∂τ is the sum of p(·|x)/|δ'| at
the unclipped ends, so F'(t) = ∫ p(x) ∂_τF_x / ‖d‖ dx comes with the same nodes (gap_density).

The integrands are analytic except at known points, where the rules are split (_graded_parts): in y', the
preimages of V_c ± τ on every piece (V_c the interior critical values: square-root points, with the end map of
bayes_ranking) and of V_far ± τ (V_far = δ at μ ± 8.5σ: where an end of the set runs into a tail in which δ
creeps to its asymptote, the mass beyond it is a function of the log of the distance); in x, the ranking
breakpoints, the minima of ‖d‖, the zeros of d_i − d_j and, per t, the roots of ‖d‖ R = t (F_x = 1 beyond),
of |d_i − d_j| = t (the t/|x − z| profile around a zero z where r(z, ·) is flat on some mass: for K = 2 the zero
of d at x = 0 on paper 2's mixture, the source of F ~ c t log(1/t)) and of |V_a − V_b| ‖d‖ = t for two special
values (critical values and the asymptotes: the density of the gap has log or jump singularities at their
differences). Next to a point where the integrand varies on a scale ε the parts are uniform in log(distance to
the singular centre), so the number of parts grows like log(1/ε), not 1/ε. A y' part whose last two Legendre
coefficients exceed 1e-9 of its row's F_x is halved (up to 24 times): that catches near-singularities no point
names (δ' ≈ 0 at an inflection next to the birth of a pair of critical points).

Accuracy (measured, nodes=16): on paper 2's mixture gap_cdf agrees with an independent factorised quadrature
(r = 1 + tanh(1.2x) tanh(1.2y); tests/theory/test_tsybakov_exact.py) to ≤ 1.1e-10 relative over t ∈ [1e-9, 1] (≤ 1e-9
with nodes=12); its t F'/F (gap_density) matches the five-point difference of log F to < 1e-6 (per x, nodes 16 and 40
agree to ~1e-8); 60 values of t take ~14 s on one core. On paper 1's K = 4 mixture
nodes=16 and nodes=24 agree to ≤ 1.2e-9 relative over t ∈ [1e-9, 1], and Monte Carlo agrees within its error;
such mixtures cost ~15 s per value of t (~2000 x nodes, each a y' integral over up to 3 pieces). gap_density
is not reliable at small t where r(x, ·) has critical points (its 1/sqrt end points are known to rounding only);
gap_cdf_local_slope therefore defaults to a five-point difference of log F.
"""

from __future__ import annotations

import numpy as np
from scipy.special import ndtr

from crlrepro.theory.gmm import LatentClassGMM
from crlrepro.theory.piecewise import (
    YView,
    check_nodes,
    direction,
    invert,
    legendre_tables,
    mixture_density,
    ranking_breakpoints,
    split_long,
    structure,
    support,
)
from crlrepro.theory.quadrature import trapezoid_mixture

__all__ = ["check_quadrature", "check_thresholds", "gap_cdf", "gap_cdf_and_density", "gap_density", "monotone_in_y"]


_GRADE_MIN = 4.0  # a segment longer than this many ε is graded toward that end (ε: distance to the singular centre)
_LOG_PART = 3.0  # graded parts span this much of log(distance to the centre): a length ratio e³ ≈ 20
_MAX_PART_SIGMAS = 2.5  # a part is at most this many of the view's smallest standard deviations long
_SHORT_SIGMAS = 0.5  # an interval shorter than this (smallest σ) gets its mass from Gauss–Legendre on the density
_TAIL_SIGMAS = 8.5  # p(·|x) has mass < 1e-16 beyond max_k μ_k + 8.5 σ_k (and below the mirror point)
_Y_RTOL = (1e-9, np.inf)  # a y' part whose Legendre tail exceeds this fraction of its row's F_x is halved (∂F_x/∂τ:
# its 1/sqrt end points are known only to ~1e-13, and deep halvings toward them measure rounding, not the integrand)
_MAX_HALVINGS = 24
_NEGLIGIBLE_DENSITY = 1e-14  # quadrature nodes where the marginal density is below this are skipped
_ROOT_ACCEPT = 1e-7  # a Newton step below this fraction of the offset is the last (the error after it is about its square)
_TABLE_POINTS = 257  # δ tabulated on the y support, per x: the starting brackets of the root solves
_CHUNK_ROWS = 256  # x values whose inner integrals are computed together (memory)
_FLAT_MASS = 1e-5  # a zero of d_i − d_j is graded for at t when r(z, ·) is flat to within t on more P_Y-mass than this
_X_SCAN = 2001  # scan of the x support for the minima of ‖d(x)‖ and the roots of ‖d(x)‖ R(x) = t


def check_thresholds(t) -> np.ndarray:
    try:
        arr = np.asarray(t, dtype=float)
    except (TypeError, ValueError) as error:
        raise ValueError(f"thresholds t must be numbers, got {t!r}") from error
    if arr.ndim > 1:
        raise ValueError(f"thresholds t must be a scalar or a 1-D array, got shape {arr.shape}")
    arr = np.atleast_1d(arr)
    if arr.size == 0:
        raise ValueError("thresholds t are empty: need at least one t > 0")
    bad = arr[~(np.isfinite(arr) & (arr > 0))]
    if bad.size:
        raise ValueError(f"thresholds t must be finite and > 0, got {bad[:5].tolist()}")
    return arr


def _normal_mass(za, zb):
    """Φ(zb) − Φ(za) for za ≤ zb, from the tail nearer to the interval (no cancellation in either tail)."""
    return np.where(za > 0, ndtr(-za) - ndtr(-zb), ndtr(zb) - ndtr(za))


def _conditional_density(view, weights, y):
    """p(y | x) = Σ_k p(z=k|x) N(y; μy_k, σy_k²) at points y (N,) with posterior columns weights (K, N)."""
    z = (y - view.means) / view.stds
    return np.sum(weights * np.exp(-0.5 * z**2) / view.stds, axis=0) / np.sqrt(2.0 * np.pi)


# -- quadrature parts: linear, or graded in log-distance to a singular centre --------------------------------------


def _sorted_points(group, position, singular, scale_left, scale_right):
    """Breakpoints sorted by (group, position), coincident ones (within 1e-13 relative) merged: singular if any is,
    the smallest intrinsic scales."""
    order = np.lexsort((position, group))
    group, position, singular = group[order], position[order], singular[order]
    scale_left, scale_right = scale_left[order], scale_right[order]
    new = np.ones(group.size, bool)
    new[1:] = (group[1:] != group[:-1]) | (position[1:] - position[:-1] > 1e-13 * (1.0 + np.abs(position[1:])))
    starts = np.nonzero(new)[0]
    return (
        group[starts],
        position[starts],
        np.maximum.reduceat(singular.astype(int), starts).astype(bool),
        np.minimum.reduceat(scale_left, starts),
        np.minimum.reduceat(scale_right, starts),
    )


def _log_parts(near, length, eps, sign, sing_near, sing_far):
    """Sub-parts of [near, near + sign·length] uniform in ξ = log(distance to the centre near − sign·ε)."""
    x1, x2 = np.log(eps), np.log(eps + length)
    n = np.maximum(1, np.ceil((x2 - x1) / _LOG_PART)).astype(int)
    owner = np.repeat(np.arange(near.size), n)
    k = np.arange(owner.size) - np.repeat(np.cumsum(n) - n, n)
    step = ((x2 - x1) / n)[owner]
    lo = x1[owner] + k * step
    hi = np.where(k == n[owner] - 1, x2[owner], lo + step)
    return {
        "var_lo": lo,
        "var_hi": hi,
        "sing_lo": sing_near[owner] & (k == 0),
        "sing_hi": sing_far[owner] & (k == n[owner] - 1),
        "centre": (near - sign * eps)[owner],
        "mode": np.full(owner.size, sign),
        "owner": owner,
    }


def _graded_parts(group, position, singular, scale_left, scale_right, max_length) -> dict:
    """Quadrature parts between consecutive breakpoints of each group (sorted and merged by _sorted_points).

    The end a of a segment [a, b] has a singular centre at distance ε_a beyond it: ε_a = min(distance from a to
    its other neighbour, a's intrinsic scale on that side). A singularity of the integrand sitting there (a
    square root of the neighbouring breakpoint, t/|x| around a zero of ‖d‖, …) would make Gauss–Legendre on
    [a, b] converge slowly when b − a ≫ ε_a. So when b − a > _GRADE_MIN ε_a the stretch next to a (half the
    segment if both ends are graded, at most max_length) is integrated in ξ = log(y − centre), in parts of
    _LOG_PART in ξ: functions of the kind sqrt, 1/sqrt, log of the distance to the centre are analytic in ξ,
    and the parts need only grow in number like log(length/ε). The rest is linear, in parts of at most
    max_length. Only the segment's own ends keep their singular flags (for the end maps of legendre_tables).
    (In x, letting only the crossings of special values take their neighbour's distance as a scale halves the nodes
    but cost 2e-5 of F on paper 1's mixture at small t: every breakpoint keeps it.)"""
    same = group[1:] == group[:-1]
    seg = np.nonzero(same)[0]
    a, b, seg_group = position[seg], position[seg + 1], group[seg]
    gap = np.where(same, np.diff(position), np.inf)
    before, after = np.concatenate([[np.inf], gap]), np.concatenate([gap, [np.inf]])  # distances to the neighbours
    floor = 1e-16 * (1.0 + np.abs(position))  # finer scales than rounding say nothing (and hold no mass)
    eps_a = np.maximum(np.minimum(before[seg], scale_right[seg]), floor[seg])
    eps_b = np.maximum(np.minimum(after[seg + 1], scale_left[seg + 1]), floor[seg + 1])
    length = b - a
    grade_a, grade_b = eps_a * _GRADE_MIN < length, eps_b * _GRADE_MIN < length
    both = grade_a & grade_b
    reach = np.minimum(np.where(both, length / 2.0, length), max_length)
    whole_a = grade_a & ~grade_b & (length <= max_length)  # the graded stretch is the whole segment: exact ends
    whole_b = grade_b & ~grade_a & (length <= max_length)
    end_a = np.where(whole_a, b, np.where(grade_a, a + reach, a))
    start_b = np.where(whole_b, a, np.where(grade_b, np.maximum(b - reach, end_a), b))
    sa, sb = singular[seg], singular[seg + 1]
    pieces = []
    i = np.nonzero(grade_a)[0]
    if i.size:
        part = _log_parts(a[i], np.where(whole_a[i], length[i], reach[i]), eps_a[i], 1.0, sa[i], sb[i] & whole_a[i])
        pieces.append((i[part.pop("owner")], part))
    i = np.nonzero(grade_b)[0]
    if i.size:
        part = _log_parts(b[i], np.where(whole_b[i], length[i], b[i] - start_b[i]), eps_b[i], -1.0, sb[i], sa[i] & whole_b[i])
        pieces.append((i[part.pop("owner")], part))
    i = np.nonzero((start_b > end_a) & ~whole_a & ~whole_b)[0]
    if i.size:
        lo, hi, s_lo, s_hi, owner = split_long(end_a[i], start_b[i], sa[i] & ~grade_a[i], sb[i] & ~grade_b[i], max_length)
        pieces.append(
            (
                i[owner],
                {
                    "var_lo": lo,
                    "var_hi": hi,
                    "sing_lo": s_lo,
                    "sing_hi": s_hi,
                    "centre": np.zeros(lo.size),
                    "mode": np.zeros(lo.size),
                },
            )
        )
    owner = np.concatenate([p[0] for p in pieces])
    parts = {key: np.concatenate([p[1][key] for p in pieces]) for key in pieces[0][1]}
    parts["group"] = seg_group[owner]
    return parts


def _map_parts(parts, var):
    """y for the parts' variable: y = var (linear), centre ± e^var (graded); and dy/dvar."""
    mode = parts["mode"] if np.ndim(var) == 1 else parts["mode"][:, None]
    centre = parts["centre"] if np.ndim(var) == 1 else parts["centre"][:, None]
    scale = np.where(mode == 0, 1.0, np.exp(np.where(mode == 0, 0.0, var)))
    return np.where(mode == 0, var, centre + mode * scale), scale


def _nodes(parts, nodes):
    """Gauss–Legendre nodes and weights of the parts (end maps of piecewise.legendre_tables), flattened:
    (group, point, weight, part index)."""
    weights, phi, dphi, _ = legendre_tables(nodes)
    kind = parts["sing_lo"].astype(int) + 2 * parts["sing_hi"].astype(int)
    span = (parts["var_hi"] - parts["var_lo"])[:, None]
    var = parts["var_lo"][:, None] + span * phi[kind]
    point, jacobian = _map_parts(parts, var)
    weight = weights[None, :] * span * dphi[kind] * jacobian
    count = parts["var_lo"].size
    return np.repeat(parts["group"], nodes), point.ravel(), weight.ravel(), np.repeat(np.arange(count), nodes)


def _halve(parts, which):
    """The parts ``which`` cut in two at the middle of their variable (the new ends are regular)."""
    out = {}
    for key, value in parts.items():
        out[key] = np.concatenate([value[which], value[which]])
    mid = (parts["var_lo"][which] + parts["var_hi"][which]) / 2.0
    n = which.size
    out["var_hi"][:n], out["var_lo"][n:] = mid, mid
    out["sing_hi"][:n], out["sing_lo"][n:] = False, False
    return out


def _adaptive_sum(parts, nodes, groups, evaluate, rtol):
    """Σ over the parts of ∫ f, per group, for the integrands f = evaluate(parts, part index, point) (a tuple of arrays
    over the nodes), with
    ``nodes`` Gauss–Legendre points per part. A part whose last two Legendre coefficients (read off its samples)
    exceed rtol (one per integrand) times its group's total (first pass) for any integrand is halved and redone, up
    to _MAX_HALVINGS times: this catches near-singularities the breakpoints do not name (an inflection of δ with δ' ≈ 0 next to a
    ranking breakpoint, where a pair of critical points is about to be born)."""
    weights, phi, dphi, tail_map = legendre_tables(nodes)
    totals, scale = None, None
    for depth in range(_MAX_HALVINGS + 1):
        _, point, weight, index = _nodes(parts, nodes)
        values = evaluate(parts, index, point)
        count = parts["var_lo"].size
        samples = [(v * weight).reshape(count, nodes) / weights[None, :] for v in values]  # integrand × Jacobian
        integrals = [f @ weights for f in samples]
        if totals is None:
            totals = [np.bincount(parts["group"], weights=i, minlength=groups) for i in integrals]
            scale = [np.abs(t) for t in totals]
            totals = [np.zeros(groups) for _ in totals]
        bad = np.zeros(count, bool)
        if depth < _MAX_HALVINGS and nodes >= 8:
            for f, sc, tol in zip(samples, scale, rtol, strict=True):
                if np.isfinite(tol):
                    bad |= np.abs(f @ tail_map).sum(axis=1) > tol * sc[parts["group"]] + 1e-300
        good = ~bad
        for t, i in zip(totals, integrals, strict=True):
            t += np.bincount(parts["group"][good], weights=i[good], minlength=groups)
        if not bad.any():
            break
        parts = _halve(parts, np.nonzero(bad)[0])
    return totals


# -- the inner integrals ------------------------------------------------------------------------------------------


def _posterior_from_z(view, z):
    """q_k at standardised points z = (y − μy)/σy (K, N)."""
    a = view.log_scale - 0.5 * z**2
    q = np.exp(a - a.max(axis=0))
    return q / q.sum(axis=0)


def _increment(view, coef, z0, q0, s):
    """δ_u(y₀ + s) − δ_u(y₀) and δ_u'(y₀ + s) for aligned columns z0 = (y₀ − μy)/σy, q0 = q(y₀) (K, N), pair
    coefficients coef = u_k − u_j (pairs k < j, N) and offsets s (N,), without cancellation between the two values:

        δ(y₁) − δ(y₀) = Σ_{k<j} (u_k − u_j) (q_k(y₁) q_j(y₀) − q_k(y₀) q_j(y₁)),
        q_k(y₁) q_j(y₀) − q_k(y₀) q_j(y₁) = q_k(y₀) q_j(y₁) expm1(Δ_k − Δ_j) = −q_k(y₁) q_j(y₀) expm1(Δ_j − Δ_k),

    Δ_k = −s (z₀_k + z₁_k) / (2σ_k) the change of log π_k N_k, taking the branch whose expm1 argument is ≤ 0
    (bounded terms). δ' = Σ_{k<j} (u_k − u_j) q_k q_j (ℓ_k' − ℓ_j'), ℓ_k' = −z_k/σ_k, has no spurious cancellation."""
    z1 = z0 + s / view.stds
    q1 = _posterior_from_z(view, z1)
    k, j = view.first, view.second
    step = -0.5 * s * (z0 + z1) / view.stds
    gap = step[k] - step[j]
    pair = np.expm1(-np.abs(gap)) * np.where(gap <= 0, q0[k] * q1[j], -q1[k] * q0[j])
    slope = q1[k] * q1[j] * (z1[j] / view.stds[j] - z1[k] / view.stds[k])
    return np.sum(coef * pair, axis=0), np.sum(coef * slope, axis=0)


def _solve_offset(view, u, z0, target, lo, hi, increasing, s0):
    """The offset s in [lo, hi] with δ(y₀ + s) − δ(y₀) = target, the increment monotone there (increasing or not):
    safeguarded Newton on _increment from s0, bisecting whenever a step leaves the bracket. A Newton step below
    _ROOT_ACCEPT |s| is taken and ends the solve (the error after it is of the order of its square). Returns s and δ' at the last
    evaluation (a relative step of at most _ROOT_ACCEPT away)."""
    out_s, out_slope = s0.copy(), np.zeros_like(s0)
    coef, q0 = view.pair_coefficients(u), _posterior_from_z(view, z0)
    # Working copies of the unconverged entries, compacted as they converge.
    idx, lo, hi, s, target, increasing = np.arange(s0.size), lo.copy(), hi.copy(), s0.copy(), target.copy(), increasing.copy()
    for _ in range(200):
        value, derivative = _increment(view, coef, z0, q0, s)
        f = value - target
        right = (f < 0) == increasing  # the root lies right of s
        lo, hi = np.where(right, s, lo), np.where(right, hi, s)
        with np.errstate(divide="ignore", invalid="ignore"):
            newton = s - f / derivative
        inside = np.isfinite(newton) & (newton > lo) & (newton < hi)
        new = np.where(f == 0, s, np.where(inside, newton, (lo + hi) / 2.0))
        done = (
            (f == 0)
            | (inside & (np.abs(newton - s) <= _ROOT_ACCEPT * np.abs(s)))
            | (hi - lo <= 4.0 * np.spacing(np.maximum(np.abs(lo), np.abs(hi))))
        )
        out_s[idx], out_slope[idx] = new, derivative
        keep = ~done
        if not keep.any():
            break
        idx, lo, hi, s, target, increasing = idx[keep], lo[keep], hi[keep], new[keep], target[keep], increasing[keep]
        coef, z0, q0 = coef[:, keep], z0[:, keep], q0[:, keep]
    s, slope = out_s, out_slope
    return s, slope


def _table_bracket(table_y, table_v, row, lo_y, hi_y, level, rising):
    """A bracket [y_left, y_right] ⊂ [lo_y, hi_y] of the root of δ = level on a monotone piece, from δ tabulated at
    table_y (rows table_v): the table cell holding the level, widened by one cell each side (rounding); and the
    linear interpolation of the table in that cell (a starting point)."""
    size, step = table_y.size, table_y[1] - table_y[0]
    first = np.clip(np.ceil((lo_y - table_y[0]) / step).astype(int), 0, size)
    last = np.clip(np.floor((hi_y - table_y[0]) / step).astype(int), -1, size - 1)
    left, right = first - 1, last + 1  # virtual entries: the piece's own ends
    while True:
        open_ = right - left > 1
        if not open_.any():
            break
        mid = (left + right) // 2
        go_right = (table_v[row, np.clip(mid, 0, size - 1)] < level) == rising
        left, right = np.where(open_ & go_right, mid, left), np.where(open_ & ~go_right, mid, right)
    inner = (left >= first) & (right <= last)
    y_a, y_b = table_y[np.clip(left, 0, size - 1)], table_y[np.clip(right, 0, size - 1)]
    v_a, v_b = table_v[row, np.clip(left, 0, size - 1)], table_v[row, np.clip(right, 0, size - 1)]
    with np.errstate(divide="ignore", invalid="ignore"):
        guess = np.where(inner, y_a + (level - v_a) / (v_b - v_a) * (y_b - y_a), np.nan)
    left, right = left - 1, right + 1
    y_left = np.where(left >= first, table_y[np.clip(left, 0, size - 1)], lo_y)
    y_right = np.where(right <= last, table_y[np.clip(right, 0, size - 1)], hi_y)
    return np.maximum(y_left, lo_y), np.minimum(y_right, hi_y), guess


def _interval_masses(view, post, rows, anchor, s_a, s_b, short, mass_nodes):
    """p(·|x)-mass of [anchor + s_a, anchor + s_b] (s_a ≤ s_b): Gauss–Legendre on the density when shorter than
    ``short`` (no cancellation: the length is the exact difference of the offsets), else normal CDFs."""
    mass = np.zeros(anchor.size)
    length = s_b - s_a
    near = np.nonzero(length <= short)[0]
    if near.size:
        theta, weights = np.polynomial.legendre.leggauss(mass_nodes)
        theta, weights = (theta + 1.0) / 2.0, weights / 2.0
        points = (anchor[near] + s_a[near])[:, None] + length[near, None] * theta[None, :]
        density = _conditional_density(view, np.repeat(post[:, rows[near]], mass_nodes, axis=1), points.ravel())
        mass[near] = length[near] * (density.reshape(points.shape) @ weights)
    far = np.nonzero(length > short)[0]
    if far.size:
        za = (anchor[far] + s_a[far] - view.means) / view.stds
        zb = (anchor[far] + s_b[far] - view.means) / view.stds
        mass[far] = np.sum(post[:, rows[far]] * _normal_mass(za, zb), axis=0)
    return mass


def _y_breakpoints(view, u, tau, bounds, values, count, lo_y, hi_y, v_a, v_b, vmin, vmax, rising, nonempty):
    """Breakpoints of the y' integrals of the rows (module docstring): group, position, singular, scales left/right."""
    rows, num_bounds = bounds.shape
    group = [np.repeat(np.arange(rows), num_bounds)]
    point = [bounds.ravel()]
    singular = [np.zeros(bounds.size, bool)]
    left, right = [np.full(bounds.size, np.inf)], [np.full(bounds.size, np.inf)]
    # Square-root points: the preimages, on every piece, of V_c ± τ for the interior critical values V_c.
    crit = np.arange(1, num_bounds - 1)
    levels = values[:, 1:-1, None] + np.array([-1.0, 1.0]) * tau[:, None, None]  # (R, C, 2)
    hit = (
        (crit[None, :] <= count[:, None])[..., None, None]
        & nonempty[:, None, None, :]
        & (vmin[:, None, None, :] < levels[..., None])
        & (levels[..., None] < vmax[:, None, None, :])
    )
    hr, hc, hs, hj = np.nonzero(hit)
    group.append(hr)
    point.append(invert(view, u[:, hr], levels[hr, hc, hs], lo_y[hr, hj], hi_y[hr, hj], v_a[hr, hj], v_b[hr, hj], 1e-12))
    singular.append(np.ones(hr.size, bool))
    left.append(np.full(hr.size, np.inf))
    right.append(np.full(hr.size, np.inf))
    # Asymptote points: where an end of {|δ − v| ≤ τ} on a tail piece reaches y_far (V_far = δ(y_far)): on the side
    # where it moves into the bulk, the mass beyond it is a function of log(distance to where it reaches the
    # support's end), graded with ε = |V_end − V_far| / |δ'|.
    y_far = np.array(
        [max(view.lo, np.min(view.means - _TAIL_SIGMAS * view.stds)), min(view.hi, np.max(view.means + _TAIL_SIGMAS * view.stds))]
    )
    v_far = view.delta(np.repeat(u, 2, axis=1), np.tile(y_far, rows))[0].reshape(rows, 2)
    v_end = np.stack([values[:, 0], values[:, -1]], axis=1)
    bulk = np.stack([np.where(rising[:, 0], 1.0, -1.0), np.where(rising[np.arange(rows), count], -1.0, 1.0)], axis=1)
    levels = v_far[:, :, None] + np.array([-1.0, 1.0]) * tau[:, None, None]  # (R, end, 2)
    hit = nonempty[:, None, None, :] & (vmin[:, None, None, :] < levels[..., None]) & (levels[..., None] < vmax[:, None, None, :])
    hr, he, hs, hj = np.nonzero(hit)
    at = invert(view, u[:, hr], levels[hr, he, hs], lo_y[hr, hj], hi_y[hr, hj], v_a[hr, hj], v_b[hr, hj], 1e-12)
    with np.errstate(divide="ignore"):
        eps = np.abs(v_end[hr, he] - v_far[hr, he]) / np.abs(view.delta(u[:, hr], at)[1])
    eps = np.where(np.isfinite(eps), eps, np.inf)  # 0 (δ at its asymptote already at y_far): graded to rounding level
    toward_right = (bulk[hr, he] > 0) == rising[hr, hj]
    group.append(hr)
    point.append(at)
    singular.append(np.zeros(hr.size, bool))
    left.append(np.where(toward_right, np.inf, eps))
    right.append(np.where(toward_right, eps, np.inf))
    return _sorted_points(*(np.concatenate(a) for a in (group, point, singular, left, right)))


def _row_structure(gmm, view, x, tau) -> dict:
    """Everything the inner integrals of the rows x (with thresholds τ on δ_u) share: direction, pieces of δ_u,
    their value ranges and p(·|x)-masses, δ tabulated on the y support. Rows where τ ≥ the range of δ (F_x = 1) or
    ‖d‖ = 0 are left out (``active`` lists the others)."""
    norm, u = direction(gmm, x)
    s = structure(view, u)
    spread = s["values"].max(axis=1) - s["values"].min(axis=1)
    active = np.nonzero((norm > 0) & (tau < spread))[0]
    u, tau = u[:, active], tau[active]
    bounds, values, count = s["bounds"][active], s["values"][active], s["count"][active]
    post = np.exp(gmm.log_posterior_x(x[active])).T  # (K, R)
    lo_y, hi_y, v_a, v_b = bounds[:, :-1], bounds[:, 1:], values[:, :-1], values[:, 1:]
    cdf_bounds = ndtr((bounds[None] - view.means[..., None]) / view.stds[..., None])  # (K, R, B)
    table_y = np.linspace(view.lo, view.hi, _TABLE_POINTS)
    table_v = view.delta(np.repeat(u, _TABLE_POINTS, axis=1), np.tile(table_y, active.size))[0]
    table_v = table_v.reshape(active.size, _TABLE_POINTS)
    return {
        "active": active,
        "u": u,
        "tau": tau,
        "bounds": bounds,
        "values": values,
        "count": count,
        "post": post,
        "lo_y": lo_y,
        "hi_y": hi_y,
        "v_a": v_a,
        "v_b": v_b,
        "vmin": np.minimum(v_a, v_b),
        "vmax": np.maximum(v_a, v_b),
        "rising": v_b > v_a,
        "nonempty": hi_y > lo_y,
        "table_y": table_y,
        "table_v": table_v,
        "piece_mass": np.sum(post[..., None] * np.diff(cdf_bounds, axis=2), axis=0),
    }  # (R, P)


def _own_piece(st, row, y):
    """Index of the monotone piece of δ_u (row) that holds y."""
    return np.clip(np.sum(st["bounds"][row] <= y[:, None], axis=1) - 1, 0, st["bounds"].shape[1] - 2)


def _inner_masses(view, st, node_row, y, own, mass_nodes):
    """M(y') = P_{Y~p(·|x)}(|δ(Y) − δ(y')| ≤ τ) and ∂M/∂τ = Σ over the ends of the set of p(·|x)/|δ'| there, at the
    nodes y' (rows node_row, y' on piece own) (module docstring: the exact CDF)."""
    u, tau, post = st["u"], st["tau"], st["post"]
    table_y, table_v = st["table_y"], st["table_v"]
    v = view.delta(u[:, node_row], y)[0]
    short = _SHORT_SIGMAS * view.stds.min()
    mass, dens = np.zeros(y.size), np.zeros(y.size)
    for j in range(st["bounds"].shape[1] - 1):
        r, t = node_row, tau[node_row]
        lo_v, hi_v = st["vmin"][r, j], st["vmax"][r, j]
        overlap = st["nonempty"][r, j] & (v + t > lo_v) & (v - t < hi_v)
        full = overlap & (v - t <= lo_v) & (v + t >= hi_v)
        mass[full] += st["piece_mass"][r[full], j]
        part = np.nonzero(overlap & ~full)[0]
        if not part.size:
            continue
        r, t, vv = r[part], t[part], v[part]
        a_y, b_y, lo_v, hi_v, up = st["lo_y"][r, j], st["hi_y"][r, j], lo_v[part], hi_v[part], st["rising"][r, j]
        y_at_min, y_at_max = np.where(up, a_y, b_y), np.where(up, b_y, a_y)
        cu = u[:, r]
        # The anchor: y' itself on its own piece, else the preimage of v (or the end nearest to v in value).
        is_own = own[part] == j
        anchor = np.where(is_own, y[part], np.where(vv >= hi_v, y_at_max, y_at_min))
        excess = np.where(is_own, 0.0, np.where(vv >= hi_v, hi_v - vv, lo_v - vv))  # δ(anchor) − v
        inside = np.nonzero(~is_own & (vv > lo_v) & (vv < hi_v))[0]
        if inside.size:
            i, ri = inside, r[inside]
            left, right, guess = _table_bracket(table_y, table_v, ri, a_y[i], b_y[i], vv[i], up[i])
            ref = np.where(up[i], left, right)  # δ(ref) ≤ v: solve δ(ref + s) − δ(ref) = v − δ(ref) ≥ 0 towards the other end
            z_ref = (ref - view.means) / view.stds
            v_ref = view.delta(cu[:, i], ref)[0]
            span = right - left
            lo_s, hi_s = np.where(up[i], 0.0, -span), np.where(up[i], span, 0.0)
            start = np.where((guess - ref > lo_s) & (guess - ref < hi_s), guess - ref, (lo_s + hi_s) / 2.0)
            sol = _solve_offset(view, cu[:, i], z_ref, vv[i] - v_ref, lo_s, hi_s, up[i], start)[0]
            anchor[i] = ref + sol
            excess[i] = view.delta(cu[:, i], anchor[i])[0] - vv[i]
        z0 = (anchor - view.means) / view.stds
        slope0 = view.delta(cu, anchor)[1]
        # Each end of {|δ − v| ≤ τ} on this piece: the end where δ = vmin (vmax) if v − τ ≤ vmin (v + τ ≥ vmax), else
        # the root of δ(anchor + s) − δ(anchor) = ∓τ − excess.
        offsets = [y_at_min - anchor, y_at_max - anchor]
        request = [np.nonzero(vv - t > lo_v)[0], np.nonzero(vv + t < hi_v)[0]]
        side = np.concatenate([np.zeros(request[0].size, int), np.ones(request[1].size, int)])
        i = np.concatenate(request)
        if i.size:
            sign = np.where(side == 1, 1.0, -1.0)
            target = sign * t[i] - excess[i]
            y_end = np.where(side == 1, y_at_max[i], y_at_min[i])
            left, right, guess = _table_bracket(table_y, table_v, r[i], a_y[i], b_y[i], vv[i] + sign * t[i], up[i])
            lo_s = np.maximum(np.minimum(anchor[i], y_end), left) - anchor[i]
            hi_s = np.minimum(np.maximum(anchor[i], y_end), right) - anchor[i]
            with np.errstate(divide="ignore", invalid="ignore"):
                tangent = target / slope0[i]
            guess = guess - anchor[i]
            small = np.isfinite(tangent) & (tangent > lo_s) & (tangent < hi_s) & (np.abs(tangent) < table_y[1] - table_y[0])
            start = np.where(small, tangent, np.where((guess > lo_s) & (guess < hi_s), guess, (lo_s + hi_s) / 2.0))
            sol, slope = _solve_offset(view, cu[:, i], z0[:, i], target, lo_s, hi_s, up[i], start)
            for k in (0, 1):
                sel = side == k
                offsets[k][i[sel]] = sol[sel]
            dens[part] += np.bincount(
                i, weights=_conditional_density(view, post[:, r[i]], anchor[i] + sol) / np.abs(slope), minlength=part.size
            )
        s_a, s_b = np.minimum(*offsets), np.maximum(*offsets)
        mass[part] += _interval_masses(view, post, r, anchor, s_a, s_b, short, mass_nodes)
    return mass, dens


def _conditional_gap(gmm, view, x, tau, nodes, mass_nodes):
    """F_x(τ) = P(|δ_u(Y) − δ_u(Y')| ≤ τ) with Y ~ p(·|x), Y' ~ P_Y, and ∂F_x/∂τ, for aligned rows x, τ (module
    docstring: the exact CDF)."""
    cdf, derivative = np.ones(x.size), np.zeros(x.size)
    st = _row_structure(gmm, view, x, tau)
    rows = st["active"].size
    if not rows:
        return cdf, derivative
    bp = _y_breakpoints(
        view,
        st["u"],
        st["tau"],
        st["bounds"],
        st["values"],
        st["count"],
        st["lo_y"],
        st["hi_y"],
        st["v_a"],
        st["v_b"],
        st["vmin"],
        st["vmax"],
        st["rising"],
        st["nonempty"],
    )
    parts = _graded_parts(*bp, _MAX_PART_SIGMAS * view.stds.min())
    parts["piece"] = _own_piece(st, parts["group"], _map_parts(parts, (parts["var_lo"] + parts["var_hi"]) / 2.0)[0])

    def evaluate(parts, index, y):
        marginal = mixture_density(y, gmm.weights, gmm.mean_y, gmm.std_y)
        mass, dens = np.zeros(y.size), np.zeros(y.size)
        keep = np.nonzero(marginal > _NEGLIGIBLE_DENSITY)[0]
        m, d = _inner_masses(view, st, parts["group"][index[keep]], y[keep], parts["piece"][index[keep]], mass_nodes)
        mass[keep], dens[keep] = marginal[keep] * m, marginal[keep] * d
        return mass, dens

    cdf_rows, derivative_rows = _adaptive_sum(parts, nodes, rows, evaluate, _Y_RTOL)
    cdf[st["active"]], derivative[st["active"]] = cdf_rows, derivative_rows
    return cdf, derivative


# -- the outer integral over x ------------------------------------------------------------------------------------


def _reach(gmm, view, x, y_lo, y_hi) -> np.ndarray:
    """‖d(x)‖ R(x), R the range of δ_u on [y_lo, y_hi]: the largest gap |r(x, y) − r(x, y')| with y, y' there."""
    norm, u = direction(gmm, x)
    s = structure(view, u)
    inner = (s["bounds"] > y_lo) & (s["bounds"] < y_hi)
    ends = view.delta(np.repeat(u, 2, axis=1), np.tile([y_lo, y_hi], x.size))[0].reshape(x.size, 2)
    top = np.maximum(np.where(inner, s["values"], -np.inf).max(axis=1), ends.max(axis=1))
    bottom = np.minimum(np.where(inner, s["values"], np.inf).min(axis=1), ends.min(axis=1))
    return norm * (top - bottom)


def _pair_gaps(gmm, x) -> np.ndarray:
    """d_i(x) − d_j(x) = p(z=i|x)/π_i − p(z=j|x)/π_j for the pairs i < j, (pairs, N)."""
    d = np.exp(gmm.log_posterior_x(np.atleast_1d(x)) - np.log(gmm.weights)).T
    i, j = np.triu_indices(gmm.num_components, k=1)
    return d[i] - d[j]


def _bisect(function, a, b, a_value, steps):
    """Bisection of sign changes: function(points, index) > 0 differs between a and b (a_value at a)."""
    index = np.arange(a.size)
    for _ in range(steps):
        mid = (a + b) / 2.0
        same = function(mid, index) == a_value
        a, b = np.where(same, mid, a), np.where(same, b, mid)
    return (a + b) / 2.0


def _x_scan(lo, hi):
    """The scan of the x support (an irrational offset keeps it off points symmetry makes special, such as x = 0)."""
    return lo + (hi - lo) * (np.arange(_X_SCAN) + 0.5 - 0.5 / np.pi) / _X_SCAN


def _beside(ranking):
    """Points just either side of each ranking breakpoint (a relative 1e-8 away)."""
    step = 1e-8 * (1.0 + np.abs(ranking))
    return np.concatenate([ranking - step, ranking + step])


def _x_landmarks(gmm, view) -> dict:
    """What the x rule needs for every t (module docstring: the exact CDF): the support, the ranking breakpoints, the
    local minima of ‖d(x)‖ with their scale ‖d‖_min / max|‖d‖'| (∞ where ‖d‖ = 0), the zeros of d_i − d_j, and on a
    scan holding all of these: g(x) = ‖d(x)‖ R_far(x) (R_far: the range of δ_u on [y_far_lo, y_far_hi], beyond
    which p(·|x) has no mass to speak of), d_i − d_j, and the special values (r at L, at the critical points, at U)."""
    lo, hi = support(gmm.mean_x, gmm.std_x)
    scan = _x_scan(lo, hi)
    norm = direction(gmm, scan)[0]
    dip = 1e-9 * norm.max()  # strict minima only: not the rounding-level ripples where ‖d‖ saturates in the tails
    i = np.nonzero((norm[1:-1] < norm[:-2] - dip) & (norm[1:-1] < norm[2:] - dip))[0] + 1
    a, b = scan[i - 1], scan[i + 1]
    golden = (np.sqrt(5.0) - 1.0) / 2.0
    for _ in range(90):
        left, right = b - golden * (b - a), a + golden * (b - a)
        lower = direction(gmm, left)[0] < direction(gmm, right)[0]
        a, b = np.where(lower, a, left), np.where(lower, right, b)
    minima = (a + b) / 2.0
    depth = direction(gmm, minima)[0]
    lipschitz = np.max(np.abs(np.diff(norm) / np.diff(scan)))
    gaps = _pair_gaps(gmm, scan) > 0
    pair, cell = np.nonzero(gaps[:, 1:] != gaps[:, :-1])
    zeros = _bisect(lambda z, k: _pair_gaps(gmm, z)[pair[k], k] > 0, scan[cell], scan[cell + 1], gaps[pair, cell], 90)
    flat = _flat_deviation(gmm, view, zeros, pair)
    ranking = ranking_breakpoints(gmm)
    # Points just either side of each ranking breakpoint: where a pair of critical points is born there, the scan cell
    # next to it then has a constant count, so the crossing of the new pair's values t apart is found.
    aside = _beside(ranking)
    points = np.unique(np.concatenate([scan, ranking, aside, minima, zeros]))
    y_far = (
        max(view.lo, np.min(view.means - _TAIL_SIGMAS * view.stds)),
        min(view.hi, np.max(view.means + _TAIL_SIGMAS * view.stds)),
    )
    norm, u = direction(gmm, points)
    critical = structure(view, u)
    return {
        "lo": lo,
        "hi": hi,
        "ranking": ranking,
        "minima": minima,
        "y_far": y_far,
        "pair_zeros": zeros,
        "zero_pair": pair,
        "flat": flat,
        "minima_scale": np.where(depth > 0, depth / max(lipschitz, 1e-300), np.inf),
        "scan": points,
        "reach": _reach(gmm, view, points, *y_far),
        "pair_gaps": _pair_gaps(gmm, points),
        "special": critical["values"] * norm[:, None],
        "count": critical["count"],
    }


def _reach_roots(gmm, view, marks, t):
    """The x where g(x) = ‖d(x)‖ R_far(x) = t_i, by bisection from the sign changes on the scan: (index i, x, scale
    on the left, scale on the right). On the side where g < t, F_x(t) = 1 to within 1e-16; on the other, 1 − F_x is
    a function of log(x − x_t), x_t the nearby point where the full range ‖d‖ R reaches t: the scale there is
    ε = |x − x_t| ≈ ‖d‖ (R − R_far) / |g'|, g' by a central difference. Bisection to ~1e-27 absolute keeps roots next to
    a zero of ‖d‖ (t ~ 1e-9 away) to ~1e-18 relative."""
    scan, reach = marks["scan"], marks["reach"]
    above = reach[None, :] > t[:, None]
    which, cell = np.nonzero(above[:, 1:] != above[:, :-1])
    root = _bisect(
        lambda z, k: _reach(gmm, view, z, *marks["y_far"]) > t[which], scan[cell], scan[cell + 1], above[which, cell], 84
    )
    h = 1e-3 * np.minimum(root - scan[cell], scan[cell + 1] - root)  # inside the scan cell, where g is smooth
    slope = (_reach(gmm, view, root + h, *marks["y_far"]) - _reach(gmm, view, root - h, *marks["y_far"])) / (2.0 * h)
    excess = _reach(gmm, view, root, view.lo, view.hi) - _reach(gmm, view, root, *marks["y_far"])  # ‖d‖ (R − R_far)
    with np.errstate(divide="ignore", invalid="ignore"):
        eps = np.where(np.abs(slope) > 0, excess / np.abs(slope), np.inf)
    eps = np.where(np.isfinite(eps) & (eps >= 0), eps, np.inf)  # 0: graded down to rounding level
    rising = ~above[which, cell]  # g crosses t upwards: the side g > t is on the right
    return which, root, np.where(rising, np.inf, eps), np.where(rising, eps, np.inf)


def _flat_deviation(gmm, view, zeros, pair):
    """For each zero z of d_i − d_j: the sorted deviations e(y) = Σ_{k ≠ i,j} |d_k(z) − d_i(z)| q_k(y) of r(z, ·) from
    being flat, on a trapezoid rule of P_Y, with the cumulative weights: P_Y(e(Y) < t) by interpolation. Where this
    mass is small, no y holds r(z, ·) flat to within t and the zero leaves no mark on F at that t."""
    rule = trapezoid_mixture(gmm.weights, gmm.mean_y, gmm.std_y, 801)
    q = np.exp(gmm.log_posterior_y(rule.nodes))  # (N, K)
    d = np.exp(gmm.log_posterior_x(zeros) - np.log(gmm.weights))  # (Z, K)
    first, second = np.triu_indices(gmm.num_components, k=1)
    others = np.ones((zeros.size, gmm.num_components), bool)
    others[np.arange(zeros.size), first[pair]] = False
    others[np.arange(zeros.size), second[pair]] = False
    coef = np.abs(d - d[np.arange(zeros.size), first[pair]][:, None]) * others
    deviation = coef @ q.T  # (Z, N)
    order = np.argsort(deviation, axis=1)
    return np.take_along_axis(deviation, order, axis=1), np.cumsum(rule.weights[order], axis=1)


def _pair_roots(gmm, marks, t):
    """The x where |d_i(x) − d_j(x)| = t_m (index m, x): around a zero of d_i − d_j, r(x, ·) is flat wherever only
    components i and j have posterior mass, and F_x(t) changes on the scale where |d_i − d_j| ~ t."""
    gaps = np.abs(marks["pair_gaps"])  # (pairs, S)
    above = gaps[None] > t[:, None, None]
    which, pair, cell = np.nonzero(above[..., 1:] != above[..., :-1])
    scan = marks["scan"]
    root = _bisect(
        lambda z, k: np.abs(_pair_gaps(gmm, z)[pair[k], k]) > t[which[k]],
        scan[cell],
        scan[cell + 1],
        above[which, pair, cell],
        84,
    )
    # Graded away from the nearest zero of the same pair (the centre of the t/|x − z| profile), if r(z, ·) is flat to
    # within t on a P_Y-mass above _FLAT_MASS.
    zeros, zero_pair = marks["pair_zeros"], marks["zero_pair"]
    left, right = np.full(root.size, np.inf), np.full(root.size, np.inf)
    for k in range(root.size):
        mine = np.nonzero(zero_pair == pair[k])[0]
        if not mine.size:
            continue
        near = mine[np.argmin(np.abs(zeros[mine] - root[k]))]
        values, cumulative = marks["flat"][0][near], marks["flat"][1][near]
        mass = cumulative[np.searchsorted(values, t[which[k]]) - 1] if values[0] < t[which[k]] else 0.0
        if mass > _FLAT_MASS:
            if root[k] > zeros[near]:
                right[k] = root[k] - zeros[near]
            else:
                left[k] = zeros[near] - root[k]
    return which, root, left, right


def _special_crossings(gmm, view, marks, t):
    """The x where two special values of r(x, ·) (at L, at the interior critical points, at U) are t apart: the
    density of the gap has a log or jump singularity at their difference, so F_x(t) is singular there. Returns
    (index m, x, intrinsic scale ∞): a split with the end map, graded by the distance to the neighbouring breakpoint."""
    special, count, scan = marks["special"], marks["count"], marks["scan"]
    first, second = np.triu_indices(special.shape[1], k=1)
    diff = special[:, first] - special[:, second]  # (S, pairs)
    valid = (second[None, :] <= count[:-1, None] + 1) & (count[1:] == count[:-1])[:, None]
    above = np.abs(diff)[None] > t[:, None, None]  # (T, S, pairs)
    change = (above[:, 1:] != above[:, :-1]) & valid[None]
    which, cell, pair = np.nonzero(change)
    if not which.size:
        return which, np.zeros(0), np.zeros(0)

    def side(z, k):
        norm, u = direction(gmm, z)
        values = structure(view, u)["values"] * norm[:, None]
        return np.abs(values[k, first[pair[k]]] - values[k, second[pair[k]]]) > t[which[k]]

    root = _bisect(side, scan[cell], scan[cell + 1], above[which, cell, pair], 60)
    return which, root, np.full(root.size, np.inf)


def _x_rule(gmm, view, marks, t, nodes):
    """Quadrature nodes for ∫ p(x) · dx, one rule per t (module docstring): split at the support ends, the ranking
    breakpoints, the minima of ‖d(x)‖, the zeros of d_i − d_j, the roots of ‖d(x)‖ R_far(x) = t and of |d_i − d_j| = t,
    and where two special values are t apart; graded toward each (_graded_parts). Returns (t index, x, weight)."""
    n = t.size
    reach = _reach_roots(gmm, view, marks, t)
    pairs = _pair_roots(gmm, marks, t)
    cross = _special_crossings(gmm, view, marks, t)
    fixed = np.concatenate([[marks["lo"], marks["hi"]], marks["ranking"], marks["minima"], marks["pair_zeros"]])
    fixed_singular = np.zeros(fixed.size, bool)
    fixed_singular[2 : 2 + marks["ranking"].size] = True
    fixed_scale = np.concatenate(
        [np.full(2 + marks["ranking"].size, np.inf), marks["minima_scale"], np.full(marks["pair_zeros"].size, np.inf)]
    )
    group = np.concatenate([np.repeat(np.arange(n), fixed.size), reach[0], pairs[0], cross[0]])
    point = np.concatenate([np.tile(fixed, n), reach[1], pairs[1], cross[1]])
    singular = np.concatenate(
        [np.tile(fixed_singular, n), np.zeros(reach[0].size + pairs[0].size, bool), np.ones(cross[0].size, bool)]
    )
    left = np.concatenate([np.tile(fixed_scale, n), reach[2], pairs[2], cross[2]])
    right = np.concatenate([np.tile(fixed_scale, n), reach[3], pairs[3], cross[2]])
    parts = _graded_parts(*_sorted_points(group, point, singular, left, right), _MAX_PART_SIGMAS * gmm.std_x.min())
    index, x, weight, _ = _nodes(parts, nodes)
    density = mixture_density(x, gmm.weights, gmm.mean_x, gmm.std_x)
    keep = density > _NEGLIGIBLE_DENSITY
    return index[keep], x[keep], weight[keep] * density[keep]


def _gap_cdf_and_density(gmm, t, nodes: int, mass_nodes: int):
    """(F(t), F'(t)) for checked thresholds t (module docstring: the exact CDF)."""
    view = YView(gmm)
    marks = _x_landmarks(gmm, view)
    index, x, weight = _x_rule(gmm, view, marks, t, nodes)
    norm = direction(gmm, x)[0]
    with np.errstate(divide="ignore"):
        tau = np.where(norm > 0, t[index] / np.where(norm > 0, norm, 1.0), np.inf)
    cdf_x, slope_x = np.ones(x.size), np.zeros(x.size)
    for start in range(0, x.size, _CHUNK_ROWS):
        block = slice(start, start + _CHUNK_ROWS)
        cdf_x[block], slope_x[block] = _conditional_gap(gmm, view, x[block], tau[block], nodes, mass_nodes)
    per_t = np.where(norm > 0, slope_x / np.where(norm > 0, norm, 1.0), 0.0)
    cdf = np.bincount(index, weights=weight * cdf_x, minlength=t.size)
    density = np.bincount(index, weights=weight * per_t, minlength=t.size)
    return np.minimum(cdf, 1.0), density


def check_quadrature(nodes, mass_nodes) -> tuple[int, int]:
    nodes = check_nodes(nodes)
    m = int(mass_nodes) if np.ndim(mass_nodes) == 0 and float(mass_nodes).is_integer() else -1
    if m < 2:
        raise ValueError(f"mass_nodes must be an integer >= 2, got {mass_nodes!r}")
    return nodes, m


def monotone_in_y(gmm: LatentClassGMM) -> bool:
    """Whether r(x, ·) is monotone on the y support for every informative x (δ_u has no interior critical point):
    the setting where :func:`gap_density` is reliable (module docstring: accuracy), e.g. K = 2 with equal σy. The
    number of critical points changes only at the ranking breakpoints (piecewise.ranking_breakpoints), so it is
    checked on the x scan, on both sides of every breakpoint and between each two of them."""
    view = YView(gmm)
    lo, hi = support(gmm.mean_x, gmm.std_x)
    ranking = ranking_breakpoints(gmm)
    edges = np.concatenate([[lo], ranking, [hi]])
    points = np.concatenate([_x_scan(lo, hi), _beside(ranking), (edges[1:] + edges[:-1]) / 2.0])
    norm, u = direction(gmm, points)
    return not structure(view, u[:, norm > 0])["count"].any()


def gap_cdf(gmm: LatentClassGMM, t, *, nodes: int = 16, mass_nodes: int = 8) -> np.ndarray:
    """F(t) = P(|r(x, y) − r(x, y')| ≤ t), (x, y) ~ p, y' ~ P_Y, by deterministic quadrature (module docstring: the
    exact CDF), for thresholds t > 0 (scalar or 1-D array; the result has t's shape). ``nodes`` Gauss–Legendre points
    per part in x and y', ``mass_nodes`` per short interval mass."""
    arr = check_thresholds(t)
    nodes, mass_nodes = check_quadrature(nodes, mass_nodes)
    return _gap_cdf_and_density(gmm, arr, nodes, mass_nodes)[0].reshape(np.shape(t))


def gap_density(gmm: LatentClassGMM, t, *, nodes: int = 16, mass_nodes: int = 8) -> np.ndarray:
    """F'(t), the density of the gap |r(x, y) − r(x, y')| at t, by the same quadrature as gap_cdf (module docstring;
    reliable where r(x, ·) has no critical points, e.g. paper 2's mixture, see the accuracy paragraph)."""
    arr = check_thresholds(t)
    nodes, mass_nodes = check_quadrature(nodes, mass_nodes)
    return _gap_cdf_and_density(gmm, arr, nodes, mass_nodes)[1].reshape(np.shape(t))


def gap_cdf_and_density(gmm: LatentClassGMM, t, *, nodes: int = 16, mass_nodes: int = 8) -> tuple[np.ndarray, np.ndarray]:
    """(F(t), F'(t)) from one pass of the quadrature of :func:`gap_cdf` and :func:`gap_density`, each of t's shape."""
    arr = check_thresholds(t)
    nodes, mass_nodes = check_quadrature(nodes, mass_nodes)
    cdf, density = _gap_cdf_and_density(gmm, arr, nodes, mass_nodes)
    return cdf.reshape(np.shape(t)), density.reshape(np.shape(t))
