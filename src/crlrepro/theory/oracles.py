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

from typing import TYPE_CHECKING

import numpy as np
from scipy.special import ndtr

from crlrepro.theory.numerics import check_temperature, log_sum_exp
from crlrepro.theory.quadrature import PopulationGrid

__all__ = [
    "bayes_auc",
    "excess_contrastive_risk",
    "L2_DEFINITIONS",
    "l2_distance_to_bayes_score",
    "l2_distances_from_difference",
    "l2_distances_to_bayes_score",
    "monte_carlo_oracles",
    "mutual_information",
    "optimal_contrastive_loss",
    "oracle_table",
    "population_contrastive_loss",
    "retrieval_auc",
    "TIE_ULPS",
]

if TYPE_CHECKING:  # pandas is imported where a table is built, not at import time
    import pandas as pd


def mutual_information(grid: PopulationGrid) -> float:
    """I(X;Y) = E_p[PMI(x, y)] in nats."""
    return float(np.sum(grid.joint_weights() * grid.log_ratio))


def optimal_contrastive_loss(grid: PopulationGrid, tau: float) -> float:
    """L* = L(τ·PMI) = −τ·I(X;Y)."""
    return -check_temperature(tau) * mutual_information(grid)


def _log_partition(s_over_tau: np.ndarray, grid: PopulationGrid) -> np.ndarray:
    """log E_{y'~P_Y} exp(s(x, y')/τ) at every x node (log-sum-exp over the y rule)."""
    return log_sum_exp(s_over_tau + np.log(grid.y.weights)[None, :], axis=1)


def population_contrastive_loss(score, grid: PopulationGrid, tau: float) -> float:
    """L(s) (module docstring) for a score function s(x, y) -> (len(x), len(y))."""
    tau = check_temperature(tau)
    s = grid.evaluate(score) / tau
    per_pair = tau * (_log_partition(s, grid)[:, None] - s)
    return float(np.sum(grid.joint_weights() * per_pair))


def excess_contrastive_risk(score, grid: PopulationGrid, tau: float) -> float:
    """L(s) − L* = τ E_x KL(p(·|x) ‖ q_s(·|x)) (module docstring), computed without cancellation."""
    tau = check_temperature(tau)
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
    tau = check_temperature(tau)
    diff = grid.evaluate(score) - tau * grid.log_ratio
    centred = diff - (diff @ grid.y.weights)[:, None]
    return float(np.sqrt(grid.x.weights @ (centred**2) @ grid.y.weights))


def _mixture_cdf(t: np.ndarray, weights, means, stds) -> np.ndarray:
    return np.sum(weights * ndtr((np.asarray(t)[..., None] - means) / stds), axis=-1)


_DENSE_RUNS = 64  # more monotone runs than this in a row: its crossed cells by one dense comparison instead


def _monotone_runs(u: np.ndarray) -> list[tuple[int, int, bool]]:
    """The cells (j, j+1) of a sequence u split into maximal runs [a, b) over which u is monotone, and whether each
    run rises. A flat cell joins the run before it (leading flat cells the first run after them)."""
    step = np.sign(np.diff(u))
    nonzero = np.flatnonzero(step)
    if nonzero.size == 0:
        return [(0, step.size, True)]
    direction = step[np.maximum.accumulate(np.where(step != 0, np.arange(step.size), nonzero[0]))]
    breaks = np.flatnonzero(direction[1:] != direction[:-1]) + 1
    starts, ends = np.concatenate([[0], breaks]), np.concatenate([breaks, [step.size]])
    return [(int(a), int(b), bool(direction[a] > 0)) for a, b in zip(starts, ends, strict=True)]


def _crossed_cells(u: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every (cell j, level index) with exactly one end of the cell below the level, (u_j < v) ≠ (u_{j+1} < v), and
    whether it is the left end (u rising through v). Found by bisection in each monotone run of u (at most one
    crossed cell per run and level); where u has more than _DENSE_RUNS runs, by comparing every cell with every
    level. u and v hold no NaN."""
    runs = _monotone_runs(u)
    if len(runs) > _DENSE_RUNS:
        level, j = np.nonzero((u[None, :-1] < v[:, None]) != (u[None, 1:] < v[:, None]))
        return j, level, u[j] < v[level]
    cells, levels, rising = [], [], []
    for a, b, up in runs:
        run = u[a : b + 1] if up else u[a : b + 1][::-1]
        i = np.searchsorted(run, v, side="left")  # run[i − 1] < v ≤ run[i]: v crosses that cell
        hit = np.flatnonzero((i > 0) & (i <= b - a))
        cells.append(a + i[hit] - 1 if up else b - i[hit])
        levels.append(hit)
        rising.append(np.full(hit.size, up))
    return np.concatenate(cells), np.concatenate(levels), np.concatenate(rising)


TIE_ULPS = 64  # scores that agree to within this many units in the last place of the score's scale are tied


def retrieval_auc(score, gmm, nodes: int, inner_nodes: int, chunk: int = 16, tie_tolerance: float | None = None) -> float:
    """The AUC-type retrieval criterion of paper 1 (Sec. 3) by quadrature,

        E(s) = P[s(x, y) > s(x, y')] + ½ P[s(x, y) = s(x, y')],   (x, y) ~ p,  y' ~ P_Y,

    as E(s) = E_{(x,y)~p} G_x(s(x, y)) with G_x(v) = P_{Y'}(s(x, Y') < v) + ½ P_{Y'}(s(x, Y') = v). The outer expectation uses
    the joint rule of ``gmm.grid(nodes)``. The inner probability is integrated exactly for the
    piecewise-linear interpolant u of s(x, ·) on ``inner_nodes`` equispaced points t_j of P_Y's support:

        G_x(v) = Σ_{j: max(u_j, u_{j+1}) < v} (F(t_{j+1}) − F(t_j)) + Σ_{j: v crosses cell j} mass below v in it
                 + ½ Σ_{j: u_j = u_{j+1} = v} (F(t_{j+1}) − F(t_j)),

    F the mixture's normal CDF; in a crossed cell the level's crossing point t* is found and the mass below
    it is F(t*) − F(t_j) (u rising) or F(t_{j+1}) − F(t*) (u falling), so the discontinuous indicator costs
    no accuracy beyond the O(h²) interpolation of s. The whole cells below v are one cumulative sum over
    the cells sorted by their maximum; the crossed cells, at most one per monotone run of u, are found by
    bisection in each run, so a row costs O((M + n) log M) instead of O(M n) (_crossed_cells). Ties: u equals v on a
    set of positive P_Y-mass only on flat cells at level v (a non-flat cell meets v at one point), whose mass counts
    half, found by bisection among the flat cells sorted by level. So a constant score has E = ½ (times the rule's
    P_Y-mass of the support), and a score flat in y' at some x (x·y at x = 0, a node of an odd-sized rule on a
    symmetric mixture) is not biased there. A score that is NaN anywhere on the rule gives NaN.

    Rounding: a score computed in floating point is flat only to within its rounding error (τ·PMI at x = 0 on a
    symmetric mixture is ±3e-15, not 0). A row x whose values on the rule all lie within ``tie_tolerance`` of each
    other is taken as exactly flat (its levels, and the positives' levels within the tolerance, set to the row's
    median), so its pairs tie. The default tolerance is :data:`TIE_ULPS` units in the last place of the score's
    scale, max |s| over the outer rule's nodes.

    Flat ranges within a row (a clipped score, a step function) must be exactly flat and span at least one cell of
    the inner rule. A range flat only to rounding is ranked as computed: its pairs compare by their rounding errors,
    which is E of the score as computed. (Tying such ranges by the tolerance, as whole rows are, also ties a score's
    approach to an asymptote, as τ·PMI's tails on a mixture with unequal variances, at a boundary set by rounding: it
    moved E by up to 1e-8 under monotone transforms of τ·PMI on a coarse rule, where exact comparison moves it by
    less than 1e-9.) A score meant to be flat there can be made exactly flat by rounding it, e.g. ``np.round(s, 12)``.
    Where an exactly flat range ends inside a cell, the straight line across that cell would miss the end and
    count the range's mass there as below or above instead of tied, an error first order in h; the end is located
    by bisection on s itself and added as a node (:func:`_flat_ends`), so the rule stays second order for such
    scores too (at the cost of 48 score calls per chunk of rows that has such ends)."""
    grid = gmm.grid(nodes)
    if tie_tolerance is None:
        scale = np.abs(np.asarray(score(grid.x.nodes, grid.y.nodes), dtype=float))
        tie_tolerance = TIE_ULPS * np.finfo(float).eps * (float(np.nanmax(scale)) if np.isfinite(scale).any() else 0.0)
    if not tie_tolerance >= 0:
        raise ValueError(f"tie_tolerance must be a number ≥ 0, got {tie_tolerance!r}")
    lo, hi = grid.y.nodes[0], grid.y.nodes[-1]
    t = np.linspace(lo, hi, int(inner_nodes))
    cdf_args = (gmm.weights, gmm.mean_y, gmm.std_y)
    cdf = _mixture_cdf(t, *cdf_args)
    joint = grid.joint_weights()
    total = 0.0
    for start in range(0, len(grid.x), chunk):
        xs = grid.x.nodes[start : start + chunk]
        u_rows = np.asarray(score(xs, t), dtype=float)  # (c, M) score on the fine y' grid
        v_rows = np.asarray(score(xs, grid.y.nodes), dtype=float)  # (c, n_y) levels at the positives
        _snap_flat_rows(u_rows, v_rows, tie_tolerance)
        if np.isnan(u_rows).any() or np.isnan(v_rows).any():
            return float("nan")  # a score that is not a number somewhere has no ranking there
        ends = _flat_ends(score, xs, t, u_rows, tie_tolerance)
        for row, (u, v, (nodes, levels)) in enumerate(zip(u_rows, v_rows, ends, strict=True)):
            t_row, u_row, cdf_row = _with_nodes(t, u, cdf, nodes, levels, cdf_args)
            total += float(joint[start + row] @ _mass_below(u_row, v, t_row, cdf_row, cdf_args))
    return total


def _mass_below(u: np.ndarray, v: np.ndarray, t: np.ndarray, cdf: np.ndarray, cdf_args) -> np.ndarray:
    """G_x(v) of :func:`retrieval_auc` at every level v for one row: u the score on the nodes t (increasing, any
    spacing) of the inner rule, cdf = F(t). Whole cells below v by a cumulative sum over the cells sorted by their
    maximum, crossed cells by their crossing point, flat cells at level v half."""
    cell_mass = np.diff(cdf)
    top = np.maximum(u[:-1], u[1:])  # a cell lies wholly below v when its maximum does
    order = np.argsort(top, kind="stable")
    below = np.concatenate([[0.0], np.cumsum(cell_mass[order])])
    mass = below[np.searchsorted(top[order], v, side="left")]
    j, level, up = _crossed_cells(u, v)
    if j.size:
        ul, ur, lv = u[j], u[j + 1], v[level]
        t_star = t[j] + (lv - ul) / (ur - ul) * (t[j + 1] - t[j])
        f_star = _mixture_cdf(t_star, *cdf_args)
        np.add.at(mass, level, np.where(up, f_star - cdf[j], cdf[j + 1] - f_star))
    flat = np.flatnonzero(u[:-1] == u[1:])  # cells where s(x, ·) is constant: P[s = v] > 0 when v is that level
    if flat.size:
        by_level = np.argsort(u[flat], kind="stable")
        levels, tied = u[flat][by_level], np.concatenate([[0.0], np.cumsum(cell_mass[flat][by_level])])
        mass = mass + 0.5 * (tied[np.searchsorted(levels, v, side="right")] - tied[np.searchsorted(levels, v, side="left")])
    return mass


_FLAT_END_BISECTIONS = 48  # halvings of a cell's width that locate where a flat range ends inside it (2^-48 h)


def _flat_ends(score, xs: np.ndarray, t: np.ndarray, u_rows: np.ndarray, tolerance: float) -> list[tuple]:
    """For every row of a chunk, the ends of its flat ranges that lie inside cells of the inner rule, as (nodes,
    levels) to add. A cell j that is not flat but borders a flat cell at the level of its shared end (u_j = u_{j−1}:
    a flat range coming from the left; u_{j+1} = u_{j+2}: one going on to the right) holds the end of that range
    somewhere inside it, which the straight line from u_j to u_{j+1} misses: the range's mass in the cell would count
    as below or above instead of tied, an error first order in the cell's width. Each such end is found by bisection
    on s(x, ·) itself (the last point, from the flat side, where s equals the level exactly, as the flat cells do, to
    2^-48 of the cell; all the chunk's ends at once, one call of the score per halving) and added as a node at that
    level, so the range's part of the cell is a flat cell and the rest is interpolated as before (second order). A
    step between two flat levels gets two nodes at (nearly) one point. A neighbouring cell that moves by no more than
    ``tolerance`` (the rounding-level tie tolerance) borders a score that only approaches its level (an asymptote flat
    to rounding, as τ·PMI in a mixture's far tails), not a range that ends there: it is left alone. A flat range
    narrower than a cell of the rule is not seen."""
    flat = u_rows[:, :-1] == u_rows[:, 1:]
    moves = np.abs(np.diff(u_rows, axis=1)) > tolerance
    before = np.zeros_like(flat)
    before[:, 1:] = flat[:, :-1]
    after = np.zeros_like(flat)
    after[:, :-1] = flat[:, 1:]
    rows_l, cells_l = np.nonzero(moves & before)  # the flat range on the left ends inside cell j
    rows_r, cells_r = np.nonzero(moves & after)  # the flat range on the right begins inside cell j
    rows = np.concatenate([rows_l, rows_r])
    if not rows.size:
        return [((), ()) for _ in range(len(xs))]
    level = np.concatenate([u_rows[rows_l, cells_l], u_rows[rows_r, cells_r + 1]])
    inside = np.concatenate([t[cells_l], t[cells_r + 1]])  # s = level here
    outside = np.concatenate([t[cells_l + 1], t[cells_r]])  # and not here
    used = np.unique(rows)
    position = np.searchsorted(used, rows)
    for _ in range(_FLAT_END_BISECTIONS):
        middle = 0.5 * (inside + outside)
        values = np.asarray(score(xs[used], middle), dtype=float)[position, np.arange(middle.size)]
        on_level = values == level
        inside, outside = np.where(on_level, middle, inside), np.where(on_level, outside, middle)
    return [(inside[rows == r], level[rows == r]) for r in range(len(xs))]


def _with_nodes(t: np.ndarray, u: np.ndarray, cdf: np.ndarray, nodes, levels, cdf_args):
    """One row's inner rule (t, u, F(t)) with ``nodes`` at ``levels`` added, in order of t."""
    if not len(nodes):
        return t, u, cdf
    order = np.argsort(np.concatenate([t, nodes]), kind="stable")
    return (
        np.concatenate([t, nodes])[order],
        np.concatenate([u, levels])[order],
        np.concatenate([cdf, _mixture_cdf(np.asarray(nodes), *cdf_args)])[order],
    )


def _snap_flat_rows(u_rows: np.ndarray, v_rows: np.ndarray, tolerance: float) -> None:
    """In place: each row whose levels on the inner rule span at most ``tolerance`` set to its median, and the
    positives' levels within ``tolerance`` of it likewise (rows holding NaN are left as they are)."""
    with np.errstate(invalid="ignore"):
        flat = np.flatnonzero(u_rows.max(axis=1) - u_rows.min(axis=1) <= tolerance)
    for row in flat:
        level = float(np.median(u_rows[row]))
        u_rows[row] = level
        v_rows[row, np.abs(v_rows[row] - level) <= tolerance] = level


def bayes_auc(gmm, nodes: int, inner_nodes: int) -> float:
    """E* = E(s*) with s* = τ·PMI (any τ > 0 gives the same ranking) on the same rule as :func:`retrieval_auc`,
    so that a regret E* − E(s) carries no rule-to-rule error. The rule is second-order here (the Bayes
    ranking has kinks); E* itself to 10+ digits is :func:`crlrepro.theory.bayes_ranking.bayes_auc_piecewise`."""
    return retrieval_auc(gmm.pmi, gmm, nodes, inner_nodes)


def monte_carlo_oracles(gmm, tau: float, samples: int, seed: int) -> dict:
    """Independent Monte-Carlo estimates (with standard errors) of I(X;Y), L* = −τ·I and E*, from
    ``samples`` pairs (x, y) ~ p and as many y' ~ P_Y: a check on the quadrature, never the value."""
    tau = check_temperature(tau)
    rng = np.random.default_rng(seed)
    x, y, _ = gmm.sample(samples, rng)
    _, y_neg, _ = gmm.sample(samples, rng)
    pmi_pos, pmi_neg = gmm.pmi_pairs(x, y), gmm.pmi_pairs(x, y_neg)
    wins = (pmi_pos > pmi_neg) + 0.5 * (pmi_pos == pmi_neg)
    root_n = np.sqrt(samples)
    return {
        "mutual_information": float(pmi_pos.mean()),
        "mutual_information_se": float(pmi_pos.std(ddof=1) / root_n),
        "L_star": float(-tau * pmi_pos.mean()),
        "L_star_se": float(tau * pmi_pos.std(ddof=1) / root_n),
        "E_star": float(wins.mean()),
        "E_star_se": float(wins.std(ddof=1) / root_n),
        "samples": int(samples),
    }


def oracle_table(gmm, tau: float, nodes_list, auc_nodes_list, others: dict | None = None) -> pd.DataFrame:
    """C1 convergence study, one row per (quantity, rule, nodes): I(X;Y) and L* = −τ·I by the trapezoidal
    product rule at every size in ``nodes_list``; E* by the piecewise Gauss–Legendre rule of
    :func:`crlrepro.theory.bayes_ranking.bayes_auc_piecewise` (split where the Bayes ranking has kinks) at every
    size in ``auc_nodes_list`` (nodes per part); and E* of every mixture in ``others`` ({name: gmm}) as
    quantity ``E_star_<name>`` with the same rule."""
    import pandas as pd

    from crlrepro.theory.bayes_ranking import bayes_auc_piecewise

    rows = []
    for n in sorted(int(n) for n in nodes_list):
        mi = mutual_information(gmm.grid(n))
        rows += [
            {"quantity": "mutual_information", "rule": "trapezoid", "nodes": n, "value": mi},
            {"quantity": "L_star", "rule": "trapezoid", "nodes": n, "value": -tau * mi},
        ]
    for n in sorted(int(n) for n in auc_nodes_list):
        rows.append({"quantity": "E_star", "rule": "piecewise Gauss-Legendre", "nodes": n, "value": bayes_auc_piecewise(gmm, n)})
        for name, other in (others or {}).items():
            rows.append(
                {
                    "quantity": f"E_star_{name}",
                    "rule": "piecewise Gauss-Legendre",
                    "nodes": n,
                    "value": bayes_auc_piecewise(other, n),
                }
            )
    return pd.DataFrame(rows)


# --- candidate definitions of "the L2 distance to the Bayes score" (paper 2 does not define its norm) ------------

L2_DEFINITIONS = ("plain", "x_shift_removed", "both_shifts_removed", "joint", "joint_plain")


def l2_distances_from_difference(diff: np.ndarray, grid: PopulationGrid) -> dict:
    """The five distances of :func:`l2_distances_to_bayes_score` for a difference Δ = s − τ·PMI given on the
    nodes of ``grid`` (shape (len(grid.x), len(grid.y)))."""
    diff = np.asarray(diff, dtype=float)
    wx, wy = grid.x.weights, grid.y.weights
    y_centred = diff - (diff @ wy)[:, None]
    double_centred = y_centred - (wx @ y_centred)[None, :]
    joint = grid.joint_weights()
    row_mass = joint.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        shift = np.where(row_mass > 0, np.sum(joint * diff, axis=1) / row_mass, 0.0)  # −c(x) = E_{p(y|x)} Δ
    return {
        "plain": float(np.sqrt(wx @ diff**2 @ wy)),
        "x_shift_removed": float(np.sqrt(wx @ (y_centred**2) @ wy)),
        "both_shifts_removed": float(np.sqrt(wx @ double_centred**2 @ wy)),
        "joint": float(np.sqrt(np.sum(joint * (diff - shift[:, None]) ** 2))),
        "joint_plain": float(np.sqrt(np.sum(joint * diff**2))),
    }


def l2_distances_to_bayes_score(score, grid: PopulationGrid, tau: float) -> dict:
    """Every candidate L2 distance of a score s to the Bayes score K = τ·PMI, keyed as :data:`L2_DEFINITIONS`.

    With Δ(x, y) = s(x, y) − K(x, y) and ‖h‖² = E_{P_X⊗P_Y} h² (the product rule of ``grid``):

        plain                ‖Δ‖
        x_shift_removed      min_c ‖Δ + c(x)‖ = ‖Δ − E_{y'~P_Y} Δ(x, y')‖        (= l2_distance_to_bayes_score)
        both_shifts_removed  min_{c,d} ‖Δ + c(x) + d(y)‖ = ‖Δ − E_{y'} Δ(x, y') − E_{x'} Δ(x', y) + E_{x',y'} Δ(x', y')‖
        joint                min_c (E_p (Δ + c(x))²)^½,   c(x) = −E_{y~p(·|x)} Δ(x, y),   p(x, y) = e^{PMI} p(x) p(y)
        joint_plain          (E_p Δ²)^½

    The contrastive loss is blind to c(x) but not to d(y), so ``both_shifts_removed`` removes more than the loss
    can see. E_p uses the joint rule wx_a wy_b e^{PMI_ab}; the conditional mean E_{p(·|x)} is normalised by the
    rule's own row mass Σ_b wy_b e^{PMI_ab} (1 up to quadrature error), so the removed c(x) is the exact minimiser
    of the discrete objective. Ordering for every s: plain ≥ x_shift_removed ≥ both_shifts_removed and
    joint_plain ≥ joint (each minimises over a larger set of shifts)."""
    tau = check_temperature(tau)
    return l2_distances_from_difference(grid.evaluate(score) - tau * grid.log_ratio, grid)
