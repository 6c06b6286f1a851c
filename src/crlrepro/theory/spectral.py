"""Spectral analysis of the PMI integral operator (paper 2, Sec. 3).

The operator T: L2(P_X) → L2(P_Y) with kernel k,

    (T f)(y) = ∫ k(x, y) f(x) dP_X(x),

is Hilbert–Schmidt when k ∈ L2(P_X ⊗ P_Y); its singular system gives

    k(x, y) = Σ_i √λ_i ψ_i(x) φ_i(y),     λ_1 ≥ λ_2 ≥ … ≥ 0,

with {ψ_i} orthonormal in L2(P_X), {φ_i} orthonormal in L2(P_Y), and λ_i the eigenvalues of
T*T (squared singular values). For k = PMI the best D-dimensional inner-product score in
L2(P_X ⊗ P_Y) is the truncation s_D(x, y) = τ Σ_{i≤D} √λ_i ψ_i(x) φ_i(y), whose squared distance
to τ·PMI is τ² Σ_{i>D} λ_i (the tail sum of paper 2, Table 1, column 1).

Discretisation (Nyström). With quadrature rules (x_a, wx_a) for P_X and (y_b, wy_b) for P_Y,
the SVD of A_ab = √wx_a k(x_a, y_b) √wy_b = U S Vᵀ gives √λ_i ≈ S_i. The singular functions are
evaluated anywhere by the Nyström extension

    ψ_i(x) = (1/√λ_i) Σ_b k(x, y_b) √wy_b V_bi,      √λ_i φ_i(y) = Σ_a √wx_a k(x_a, y) U_ai,

which never divides by a small quadrature weight (dividing U_ai by √wx_a would amplify
rounding by up to 10^20 at the outermost nodes, where the density is ~10^-22).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from crlrepro.theory.bounds import approximation_bound_constant, density_ratio_bound, score_sup_norm
from crlrepro.theory.gmm import LatentClassGMM
from crlrepro.theory.oracles import (
    L2_DEFINITIONS,
    excess_contrastive_risk,
    l2_distance_to_bayes_score,
    l2_distances_from_difference,
    mutual_information,
)
from crlrepro.theory.quadrature import SUPPORT_HALF_WIDTH, PopulationGrid, QuadratureRule

__all__ = [
    "DECAY_NOT_APPLICABLE",
    "L2_MINIMA_NOT_APPLICABLE",
    "CONVERGENCE_NOT_APPLICABLE",
    "approximation_bound_table",
    "convergence_table",
    "DECAY_FEATURES",
    "eigenvalue_decay",
    "l2_minima_table",
    "MIN_DECAY_GROUPS",
    "operator_svd",
    "pmi_spectrum",
    "rank_d_l2_fit",
    "rank_d_l2_minimum",
    "RankDFit",
    "significant_digits",
    "SingularSystem",
    "truncated_score",
    "truncation_metrics",
    "truncation_on_grid",
    "truncation_table",
]

Kernel = Callable[[np.ndarray, np.ndarray], np.ndarray]

# Singular values below this fraction of the largest are rounding noise: they are dropped from
# truncations (their contribution to any kernel value is below double precision anyway).
_RANK_RTOL = 1e-13
# Two singular values closer than this fraction of the largest are one (degenerate) value: a symmetric mixture
# has exact pairs, which the SVD returns equal to ~1e-15 (distinct ones differ by > 1e-4 in this project's mixtures).
_TIE_RTOL = 1e-10


@dataclass(frozen=True)
class SingularSystem:
    """Discretised singular system of an integral operator (module docstring)."""

    kernel: Kernel
    x: QuadratureRule
    y: QuadratureRule
    singular_values: np.ndarray  # √λ_i, non-increasing
    left: np.ndarray  # U: √wx_a ψ_i(x_a)
    right: np.ndarray  # V: √wy_b φ_i(y_b)
    kernel_on_grid: np.ndarray  # k(x_a, y_b), reused when functions are evaluated on the nodes

    def _kernel(self, x, y) -> np.ndarray:
        if np.array_equal(x, self.x.nodes) and np.array_equal(y, self.y.nodes):
            return self.kernel_on_grid
        return np.asarray(self.kernel(x, y), dtype=float)

    @property
    def eigenvalues(self) -> np.ndarray:
        """λ_i: eigenvalues of T*T, the squared singular values."""
        return self.singular_values**2

    @property
    def numerical_rank(self) -> int:
        s = self.singular_values
        return int(np.count_nonzero(s > _RANK_RTOL * s[0])) if s.size and s[0] > 0 else 0

    def tail_sum(self, dim: int) -> float:
        """Σ_{i>D} λ_i: squared L2(P_X⊗P_Y) distance from the kernel to its rank-D truncation."""
        _check_dim(dim)
        return float(np.sum(self.eigenvalues[dim:]))

    def left_functions(self, x, dim: int) -> np.ndarray:
        """ψ_1..ψ_D at points x by the Nyström extension, shape (len(x), D)."""
        d = min(_check_dim(dim), self.numerical_rank)
        kxy = self._kernel(np.asarray(x, float), self.y.nodes)
        return (kxy * np.sqrt(self.y.weights)[None, :]) @ self.right[:, :d] / self.singular_values[:d]

    def scaled_right_functions(self, y, dim: int) -> np.ndarray:
        """√λ_i φ_i(y) for i ≤ D at points y (Nyström, no division), shape (len(y), D)."""
        d = min(_check_dim(dim), self.numerical_rank)
        kxy = self._kernel(self.x.nodes, np.asarray(y, float))
        return kxy.T @ (np.sqrt(self.x.weights)[:, None] * self.left[:, :d])

    def right_functions(self, y, dim: int) -> np.ndarray:
        """φ_1..φ_D at points y, shape (len(y), D)."""
        d = min(_check_dim(dim), self.numerical_rank)
        return self.scaled_right_functions(y, d) / self.singular_values[:d]

    def truncation_is_unique(self, dim: int) -> bool:
        """Whether the best rank-D approximation is unique: σ_D > σ_{D+1} (Eckart–Young). Where σ_D = σ_{D+1}
        (to _TIE_RTOL of σ_1) the truncation keeps an arbitrary part of a degenerate singular space, picked by
        rounding, so s_D and everything measured on it can change with the last bits of the kernel."""
        d, s = _check_dim(dim), self.singular_values
        return d >= s.size or bool(s[d - 1] - s[d] > _TIE_RTOL * s[0])

    def truncation(self, dim: int) -> Kernel:
        """The rank-D truncation k_D(x, y) = Σ_{i≤D} √λ_i ψ_i(x) φ_i(y), as a function."""
        _check_dim(dim)

        def k_dim(x, y):
            return self.left_functions(x, dim) @ self.scaled_right_functions(y, dim).T

        return k_dim


def _check_dim(dim) -> int:
    if isinstance(dim, bool) or not isinstance(dim, (int, np.integer)) or dim < 1:
        raise ValueError(f"representation dimension D must be an integer >= 1, got {dim!r}")
    return int(dim)


def operator_svd(kernel: Kernel, x: QuadratureRule, y: QuadratureRule) -> SingularSystem:
    """Singular system of (Tf)(y) = ∫ k(x, y) f(x) dP_X(x) on the given quadrature rules.

    Signs are fixed so that the largest-magnitude entry of each left vector is positive, which
    makes the output deterministic across LAPACK builds."""
    kxy = np.asarray(kernel(x.nodes, y.nodes), dtype=float)
    a = np.sqrt(x.weights)[:, None] * kxy * np.sqrt(y.weights)[None, :]
    u, s, vt = np.linalg.svd(a, full_matrices=False)
    sign = np.sign(u[np.argmax(np.abs(u), axis=0), np.arange(u.shape[1])])
    sign[sign == 0] = 1.0
    return SingularSystem(kernel, x, y, s, u * sign, vt.T * sign, kxy)


def pmi_spectrum(gmm: LatentClassGMM, nodes: int) -> SingularSystem:
    """Singular system of the PMI operator of ``gmm`` on a ``nodes``--node quadrature."""
    grid = gmm.grid(nodes)
    return operator_svd(gmm.pmi, grid.x, grid.y)


def truncated_score(system: SingularSystem, dim: int, tau: float) -> Kernel:
    """s_D(x, y) = τ Σ_{i≤D} √λ_i ψ_i(x) φ_i(y): the best rank-D inner-product approximation of τ·PMI."""
    k_dim = system.truncation(dim)
    return lambda x, y: tau * k_dim(x, y)


def truncation_table(gmm: LatentClassGMM, tau: float, dims, nodes: int, half_width: float = SUPPORT_HALF_WIDTH) -> pd.DataFrame:
    """Paper 2, Table 1, columns 1–2: per D, the tail sum Σ_{i>D} λ_i and the population excess
    contrastive risk L(s_D) − L* of the spectral truncation, both by quadrature (``nodes`` per view over
    ``half_width`` standard deviations)."""
    return truncation_on_grid(gmm.grid(nodes, half_width), gmm.pmi, tau, dims)


def _truncations(grid: PopulationGrid, pmi: Kernel, tau: float, dims):
    """The singular system on ``grid`` and (D, s_D) for every D, from one SVD of the PMI operator."""
    system = operator_svd(pmi, grid.x, grid.y)
    return system, [(int(d), truncated_score(system, int(d), tau)) for d in dims]


def truncation_on_grid(grid: PopulationGrid, pmi: Kernel, tau: float, dims) -> pd.DataFrame:
    """:func:`truncation_table` on a given quadrature grid (any rule for P_X ⊗ P_Y)."""
    system, truncations = _truncations(grid, pmi, tau, dims)
    rows = [
        {"D": d, "tail_sum": system.tail_sum(d), "trunc_excess_risk": excess_contrastive_risk(s_d, grid, tau)}
        for d, s_d in truncations
    ]
    return pd.DataFrame(rows, columns=["D", "tail_sum", "trunc_excess_risk"])


def significant_digits(value: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """Number of correct significant digits, −log10(|value − reference| / |reference|); inf if equal."""
    value, reference = np.asarray(value, float), np.asarray(reference, float)
    with np.errstate(divide="ignore"):
        return -np.log10(np.abs(value - reference) / np.abs(reference))


# Columns where an empty cell means "not applicable" (crlrepro.runtime.artifacts.nonfinite_problems): the correct digits
# of the reference rule itself; the rank-0 rows of the L2 minima (no minimiser, no search); the last group's ratio and
# local power (no next group) and the decay fits of a spectrum with too few groups to fit (MIN_DECAY_GROUPS).
CONVERGENCE_NOT_APPLICABLE = ("*_digits",)
L2_MINIMA_NOT_APPLICABLE = ("minimiser_*", "starts", "start_spread", "best_share", "iterations")
DECAY_NOT_APPLICABLE = ("ratio_next", "local_power", "fit_*", "value", "rms_log", "intercept", "slope")


def convergence_table(gmm: LatentClassGMM, tau: float, dims, nodes_list, support_widths=(SUPPORT_HALF_WIDTH,)) -> pd.DataFrame:
    """The truncation table at every quadrature size in ``nodes_list`` on the default support, and at the
    largest size on every half-width in ``support_widths`` (the loss carries e^{s_D/τ}, which far out can
    outgrow the density: the support must converge too), with the correct significant digits of each value
    against the reference, the largest size on the widest support (left empty on that row itself)."""
    nodes_list = sorted(int(n) for n in nodes_list)
    widths = sorted({float(SUPPORT_HALF_WIDTH), *(float(w) for w in support_widths)})
    cases = [(n, SUPPORT_HALF_WIDTH) for n in nodes_list] + [(nodes_list[-1], w) for w in widths if w != SUPPORT_HALF_WIDTH]
    tables = {case: truncation_table(gmm, tau, dims, *case) for case in cases}
    reference_case = (nodes_list[-1], widths[-1])
    reference = tables[reference_case]
    rows = []
    for case in cases:
        t = tables[case].copy()
        t.insert(0, "half_width", case[1])
        t.insert(0, "nodes", case[0])
        for col in ("tail_sum", "trunc_excess_risk"):
            digits = significant_digits(t[col].to_numpy(), reference[col].to_numpy())
            t[f"{col}_digits"] = np.where(case == reference_case, np.nan, np.minimum(digits, 16.0))
        rows.append(t)
    return pd.concat(rows, ignore_index=True)


def truncation_metrics(gmm: LatentClassGMM, dims, tau: float, nodes: int) -> pd.DataFrame:
    """Per D, the population excess risk and the shift-removed L2 distance to τ·PMI of the spectral
    truncation s_D: the like-for-like reference for a learned D-dimensional score (A2)."""
    grid = gmm.grid(nodes)
    _, truncations = _truncations(grid, gmm.pmi, tau, dims)
    return pd.DataFrame(
        [
            {
                "D": d,
                "spectral_excess_risk": excess_contrastive_risk(s_d, grid, tau),
                "spectral_l2_distance": l2_distance_to_bayes_score(s_d, grid, tau),
            }
            for d, s_d in truncations
        ]
    )


# --- the minimum over rank-D scores of each candidate L2 distance to τ·PMI --------------------------------------
#
# Paper 2 reports an "L2 distance to the Bayes score" without defining the norm. For each definition of
# crlrepro.theory.oracles.l2_distances_to_bayes_score, the functions below compute min over s(x, y) = f(x)ᵀ g(y), f, g ∈ ℝ^D,
# of that distance (K = τ·PMI throughout; ‖·‖ is L2(P_X⊗P_Y) unless said otherwise):
#
#   plain                min_s ‖K − s‖                       = τ (Σ_{i>D} λ_i)^½               (Eckart–Young)
#   x_shift_removed      min_{s, c} ‖K − s − c(x)‖           = (Σ_{i>D} λ_i(P_y K))^½          (Eckart–Young)
#   both_shifts_removed  min_{s, c, d} ‖K − s − c(x) − d(y)‖ = (Σ_{i>D} λ_i(P_x P_y K))^½      (Eckart–Young)
#   joint                min_{s, c} E_p (K − s − c(x))²      : weighted low-rank approximation (ALS, no closed form)
#   joint_plain          min_s E_p (K − s)²                  : the same without the shift
#
# with P_y h = h − E_{y'~P_Y} h(·, y'), P_x h = h − E_{x'~P_X} h(x', ·) and λ_i(h) the squared singular values of the
# integral operator with kernel h. Proofs: see rank_d_l2_fit.

_ALS_DEFINITIONS = ("joint", "joint_plain")


@dataclass(frozen=True)
class RankDFit:
    """A rank-D score s(x_a, y_b) = f(x_a)ᵀ g(y_b) on the nodes of a grid that minimises one L2 distance to τ·PMI.

    ``value`` is the minimum (the distance of s under ``definition``); for the ALS definitions ``start_values``
    holds the converged value from every start (the first is the SVD start), ``iterations`` the sweeps each took and
    ``history`` the squared objective after every sweep of the best start. For the Eckart–Young definitions these
    are the single value, zero sweeps and an empty history."""

    definition: str
    dim: int
    x_nodes: np.ndarray
    y_nodes: np.ndarray
    f: np.ndarray  # (len(x_nodes), D): f(x_a)
    g: np.ndarray  # (len(y_nodes), D): g(y_b)
    value: float
    start_values: np.ndarray
    iterations: np.ndarray
    history: np.ndarray

    def score(self, x, y) -> np.ndarray:
        """s(x, y) = f(x)ᵀ g(y), defined on the grid's own nodes only (what PopulationGrid.evaluate passes)."""
        if not (np.array_equal(x, self.x_nodes) and np.array_equal(y, self.y_nodes)):
            raise ValueError("a RankDFit score is known on its grid's nodes only")
        return self.f @ self.g.T

    @property
    def start_spread(self) -> float:
        """(max − min) / min of the values reached from the different starts: 0 when all starts agree."""
        v = self.start_values
        return float((v.max() - v.min()) / v.min()) if v.size and v.min() > 0 else float(v.max() - v.min())

    @property
    def best_share(self) -> float:
        """Fraction of the starts that reached the best value (to 1e-8 relative): below 1 flags local minima."""
        v = self.start_values
        return float(np.mean(v <= v.min() * (1 + 1e-8) + 1e-300))


def _as_grid(gmm_or_grid, nodes) -> PopulationGrid:
    if isinstance(gmm_or_grid, PopulationGrid):
        if nodes is not None:
            raise ValueError("nodes is for a LatentClassGMM; a PopulationGrid already fixes its nodes")
        return gmm_or_grid
    if nodes is None:
        raise ValueError("nodes is required with a LatentClassGMM")
    return gmm_or_grid.grid(int(nodes))


def _eckart_young_fit(grid: PopulationGrid, tau: float, dim: int, definition: str) -> RankDFit:
    """Truncated SVD of the (centred) kernel in the weighted coordinates √wx_a h_ab √wy_b (rank_d_l2_fit)."""
    wx, wy = grid.x.weights, grid.y.weights
    kernel = tau * grid.log_ratio
    if definition in ("x_shift_removed", "both_shifts_removed"):
        kernel = kernel - (kernel @ wy)[:, None]
    if definition == "both_shifts_removed":
        kernel = kernel - (wx @ kernel)[None, :]
    u, s, vt = np.linalg.svd(np.sqrt(wx)[:, None] * kernel * np.sqrt(wy)[None, :], full_matrices=False)
    rank = int(np.count_nonzero(s > _RANK_RTOL * s[0])) if s.size and s[0] > 0 else 0
    d = min(dim, rank)
    # Nyström on the nodes, no division by a quadrature weight: f = √λ ψ = h √wy V, g = φ = hᵀ √wx U / √λ,
    # so that √wx (f gᵀ) √wy = U_D S_D V_Dᵀ exactly.
    f = np.zeros((len(grid.x), dim))
    g = np.zeros((len(grid.y), dim))
    f[:, :d] = kernel @ (np.sqrt(wy)[:, None] * vt[:d].T)
    g[:, :d] = kernel.T @ (np.sqrt(wx)[:, None] * u[:, :d]) / s[:d]
    value = float(np.sqrt(np.sum(s[dim:] ** 2)))
    return RankDFit(definition, dim, grid.x.nodes, grid.y.nodes, f, g, value, np.array([value]), np.array([0]), np.empty(0))


def _normalised_rows(log_w: np.ndarray) -> np.ndarray:
    """exp(log_w) with every row divided by its sum, computed in logs (no underflow of whole rows)."""
    with np.errstate(invalid="ignore"):
        w = np.exp(log_w - np.max(log_w, axis=1, keepdims=True))
        w = w / w.sum(axis=1, keepdims=True)
    return np.nan_to_num(w, nan=0.0)


def _batched_solve(normal: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """Solve the stacked normal equations normal[i] z_i = rhs[i]; a pseudo-inverse where a stack is singular."""
    try:
        return np.linalg.solve(normal, rhs[..., None])[..., 0]
    except np.linalg.LinAlgError:
        return (np.linalg.pinv(normal, rcond=1e-13) @ rhs[..., None])[..., 0]


def _als_sweeps(kernel, joint, row_w, col_w, g, shift: bool, max_iter: int, tol: float):
    """Alternating least squares for min Σ_ab W_ab (f_aᵀ g_b + c_a − K_ab)² from a starting g (rank_d_l2_fit)."""
    nx, ny = kernel.shape
    dim = g.shape[1]
    scale = float(np.sum(joint * kernel**2))
    history = []
    c = np.zeros(nx)
    for _ in range(max_iter):
        # Rows: (f_a, c_a) solve Σ_b ω_ab ĝ_b ĝ_bᵀ z_a = Σ_b ω_ab K_ab ĝ_b, ĝ_b = (g_b, 1), ω_ab ∝ wy_b r_ab.
        gh = np.hstack([g, np.ones((ny, 1))]) if shift else g
        p = gh.shape[1]
        normal = (row_w @ (gh[:, :, None] * gh[:, None, :]).reshape(ny, p * p)).reshape(nx, p, p)
        z = _batched_solve(normal, (row_w * kernel) @ gh)
        f, c = (z[:, :dim], z[:, dim]) if shift else (z, c)
        # Columns: g_b solves Σ_a ω'_ab f_a f_aᵀ g_b = Σ_a ω'_ab (K_ab − c_a) f_a, ω'_ab ∝ wx_a r_ab.
        normal = (col_w.T @ (f[:, :, None] * f[:, None, :]).reshape(nx, dim * dim)).reshape(ny, dim, dim)
        g = _batched_solve(normal, (col_w * (kernel - c[:, None])).T @ f)
        history.append(float(np.sum(joint * (f @ g.T + c[:, None] - kernel) ** 2)))
        if len(history) > 1 and abs(history[-2] - history[-1]) <= tol * history[-1] + 1e-30 * scale:
            break
    return f, g, c, np.array(history)


def _als_fit(
    grid: PopulationGrid, tau: float, dim: int, definition: str, starts: int, seed: int, max_iter: int, tol: float
) -> RankDFit:
    """Weighted low-rank approximation under the joint law by alternating least squares (rank_d_l2_fit)."""
    shift = definition == "joint"
    kernel = tau * grid.log_ratio
    joint = grid.joint_weights()
    with np.errstate(divide="ignore"):
        log_wx, log_wy = np.log(grid.x.weights), np.log(grid.y.weights)
    row_w = _normalised_rows(log_wy[None, :] + grid.log_ratio)  # ω_ab = wy_b r_ab / Σ_b' wy_b' r_ab'
    col_w = _normalised_rows(log_wx[None, :] + grid.log_ratio.T).T  # ω'_ab = wx_a r_ab / Σ_a' wx_a' r_a'b
    svd_start = _eckart_young_fit(grid, tau, dim, "x_shift_removed" if shift else "plain").g
    rng = np.random.default_rng(seed)
    initial = [svd_start] + [rng.standard_normal((len(grid.y), dim)) for _ in range(max(starts, 1) - 1)]
    results = [_als_sweeps(kernel, joint, row_w, col_w, g0, shift, max_iter, tol) for g0 in initial]
    values = np.array([np.sqrt(max(r[3][-1], 0.0)) for r in results])
    f, g, c, history = results[int(np.argmin(values))]
    if shift:  # gauge: g centred under P_Y (g + 1vᵀ, c − f v is the same fit); the removed mean is an x-only shift
        g = g - grid.y.weights @ g
    return RankDFit(
        definition,
        dim,
        grid.x.nodes,
        grid.y.nodes,
        f,
        g,
        float(values.min()),
        values,
        np.array([len(r[3]) for r in results]),
        history,
    )


def rank_d_l2_fit(
    grid: PopulationGrid,
    tau: float,
    dim: int,
    definition: str,
    *,
    starts: int = 8,
    seed: int = 0,
    max_iter: int = 5000,
    tol: float = 1e-12,
) -> RankDFit:
    """The rank-D score s = f(x)ᵀ g(y) nearest to K = τ·PMI under one definition of L2_DEFINITIONS (oracles).

    Eckart–Young routes (exact). For a bounded linear map Q on L2(P_X⊗P_Y) write λ_i(h) for the squared singular
    values of the integral operator with kernel h, computed as the SVD of √wx_a h_ab √wy_b on the product rule.

      plain: min_s ‖K − s‖ = (Σ_{i>D} λ_i(K))^½ = τ (Σ_{i>D} λ_i(PMI))^½ — Eckart–Young, attained by s_D.

      x_shift_removed: m_D = min_{s, c} ‖K − s − c(x)‖ = (Σ_{i>D} λ_i(P_y K))^½, P_y h = h − E_{y'~P_Y} h(·, y').
        Proof. P_y is the orthogonal projection onto the functions with E_y h(x, ·) = 0; its complement is the x-only
        functions. Write s + c = P_y s + ((I − P_y) s + c): the bracket is a function of x only, so
        min_c ‖K − s − c‖ = ‖P_y(K − s)‖ = ‖P_y K − P_y s‖. P_y s = s (I − 1⊗E_y) has rank ≤ D, so m_D ≥ the
        Eckart–Young tail of P_y K. Conversely the rank-D truncation R of P_y K has right singular functions
        orthogonal to the constants (they span the range of (P_y K)*, which is centred), so P_y R = R and s = R
        attains the tail. ∎

      both_shifts_removed: what is minimised is min over rank-D s AND free c(x), d(y) of ‖K − s − c(x) − d(y)‖.
        The shift d(y) = 1(x)·d(y) is not absorbed by s for free (it would cost one rank), but it need not be: the
        definition lets c and d range over all functions, and the additive functions c(x) + d(y) form a closed
        subspace whose orthogonal complement is the range of Q = P_x P_y (double centring). Hence
        min_{c,d} ‖K − s − c − d‖ = ‖Q K − Q s‖, Q s = (I − E_x) s (I − E_y) has rank ≤ D, and the truncation R of Q K
        has left and right singular functions centred, so Q R = R: the minimum is (Σ_{i>D} λ_i(Q K))^½, attained by a
        rank-D score that is itself double-centred. (Requiring d(y) to be carried by s instead gives back
        x_shift_removed.) Since every distance is ordered plain ≥ x_shift_removed ≥ both_shifts_removed, so are
        the minima.

    ALS routes (no closed form: weighted low-rank approximation). With W_ab = wx_a wy_b r_ab, r = e^{PMI},

        min over F (nx × D), G (ny × D), c (nx)  of  Σ_ab W_ab (F_aᵀ G_b + c_a − K_ab)²      (c ≡ 0 for joint_plain)

    alternates exact row solves for (F_a, c_a) given G and column solves for G_b given (F, c), each a (D+1)×(D+1)
    or D×D weighted least-squares problem, all rows (columns) at once by a batched solve of stacked normal
    equations; the weights of a row (column) are renormalised to sum to 1, which leaves its solution unchanged and
    keeps the far-tail rows well scaled. Each half-step minimises exactly, so the objective never increases. The
    iteration stops when a sweep changes the objective by less than ``tol`` relative, or after ``max_iter`` sweeps.
    Starts: G from the SVD (the Eckart–Young g of x_shift_removed for joint, of plain for joint_plain) plus
    ``starts`` − 1 Gaussian random G (``seed``); the best value is returned, the others are kept to expose local
    minima (:attr:`RankDFit.start_spread`, :attr:`RankDFit.best_share`). Weighted low-rank approximation does have
    them: on the paper GMM 40 starts all agree for joint at D = 1…8, but on an asymmetric 4-component mixture only
    30–40 % of random starts reach the best value at D = 1, 2 (and the SVD start does not at D = 1), so the value is
    the best of the starts tried, an upper bound on the global minimum that more starts can only lower."""
    _check_dim(dim)
    tau = float(tau)
    if definition not in L2_DEFINITIONS:
        raise ValueError(f"definition must be one of {L2_DEFINITIONS}, got {definition!r}")
    if definition in _ALS_DEFINITIONS:
        return _als_fit(grid, tau, int(dim), definition, int(starts), int(seed), int(max_iter), float(tol))
    return _eckart_young_fit(grid, tau, int(dim), definition)


def rank_d_l2_minimum(
    gmm_or_grid,
    tau: float,
    dims,
    nodes: int | None = None,
    *,
    starts: int = 8,
    seed: int = 0,
    max_iter: int = 5000,
    tol: float = 1e-12,
) -> pd.DataFrame:
    """Per D in ``dims`` and per definition in L2_DEFINITIONS, the minimum over rank-D scores s = f(x)ᵀ g(y) of that
    L2 distance to τ·PMI (:func:`rank_d_l2_fit`), on ``gmm.grid(nodes)`` or on a given PopulationGrid.

    Columns: D, definition, minimum; ``minimiser_<name>``: the distances of the minimiser under every definition
    (the one minimised equals ``minimum``; for joint the minimiser is fixed up to x-only shifts, so its plain and
    joint_plain distances are those of the gauge with g centred under P_Y); starts, start_spread ((max − min)/min
    over the ALS starts, 0 for the exact routes), best_share (the fraction of starts that reached the minimum: below 1
    where ALS met other local minima, as on asymmetric mixtures at small D) and iterations (the most sweeps any start
    took)."""
    grid = _as_grid(gmm_or_grid, nodes)
    rows = []
    for d in dims:
        for name in L2_DEFINITIONS:
            fit = rank_d_l2_fit(grid, tau, int(d), name, starts=starts, seed=seed, max_iter=max_iter, tol=tol)
            distances = l2_distances_from_difference(fit.f @ fit.g.T - tau * grid.log_ratio, grid)
            rows.append(
                {
                    "D": int(d),
                    "definition": name,
                    "minimum": fit.value,
                    **{f"minimiser_{k}": v for k, v in distances.items()},
                    "starts": int(fit.start_values.size),
                    "start_spread": fit.start_spread,
                    "best_share": fit.best_share,
                    "iterations": int(fit.iterations.max()),
                }
            )
    return pd.DataFrame(rows)


def approximation_bound_table(gmm, tau: float, dims, nodes: int, trained=None) -> pd.DataFrame:
    """Per D: the tail Σ_{i>D} λ_i, the excess risk of s_D and (``trained``: a table with D and excess_risk,
    e.g. the A2 MLPs) of the best trained rank-D model, their ratios to the tail, the best of them as the
    estimate of inf_{S_D} L − L*, α, B = ‖s_D‖∞ (and whether it is finite), the constant C and the bound C·tail."""
    grid = gmm.grid(nodes)
    system = operator_svd(gmm.pmi, grid.x, grid.y)
    too_large = [int(d) for d in dims if int(d) >= system.eigenvalues.size]
    if too_large:
        raise ValueError(
            f"D = {too_large} is not below the {system.eigenvalues.size} singular values of the operator on "
            f"this {nodes}-node rule: its tail Σ_(i>D) λ_i is exactly 0 and the ratios to it are undefined; "
            "use a smaller D or more nodes"
        )
    alpha = density_ratio_bound(gmm)
    rows = []
    for d in sorted(int(d) for d in dims):
        s_d = truncated_score(system, d, tau)
        tail = system.tail_sum(d)
        spectral = excess_contrastive_risk(s_d, grid, tau)
        best_trained = np.nan
        if trained is not None and (trained["D"] == d).any():
            best_trained = float(trained.loc[trained["D"] == d, "excess_risk"].min())
        sup, bounded = score_sup_norm(s_d, gmm)
        constant = approximation_bound_constant(alpha, sup if bounded else np.inf, tau)
        best = float(np.nanmin([spectral, best_trained]))
        rows.append(
            {
                "D": d,
                "tail_sum": tail,
                "spectral_excess_risk": spectral,
                "trained_excess_risk": best_trained,
                "inf_estimate": best,
                "spectral_ratio": spectral / tail,
                "trained_ratio": best_trained / tail,
                "alpha": alpha,
                "score_bound": sup,
                "bounded": bounded,
                "constant": constant,
                "bound": constant * tail,
                "trivial_excess": float(tau * mutual_information(grid)),
            }
        )
    return pd.DataFrame(rows)


DECAY_FEATURES = {  # log P_j = intercept − slope · feature(j, β) for each decay model of eigenvalue_decay
    "geometric": lambda j, beta: np.asarray(j, dtype=float),
    "power": lambda j, beta: np.log(np.asarray(j, dtype=float)),
    "stretched": lambda j, beta: np.asarray(j, dtype=float) ** beta,
}


MIN_DECAY_GROUPS = 4  # three parameters at most (the stretched fit's a, c and β): four groups to fit them


def eigenvalue_decay(eigenvalues, group: int = 2, floor: float = 1e-13) -> tuple[pd.DataFrame, pd.DataFrame]:
    """How λ_i decays, in groups of ``group`` consecutive eigenvalues (paper 2's symmetric GMM has them in pairs):
    per group j, the sum P_j and the local ratio P_{j+1}/P_j and local power exponent log(P_j/P_{j+1})/log((j+1)/j);
    and least-squares fits of log P_j over the groups above ``floor``·P_1 (below it the SVD's rounding) to

        geometric  log P_j = a − j log(1/ρ)          (λ ≍ ρ^i),
        power      log P_j = a − γ log j             (λ ≍ i^{−γ}, paper 2's assumption for its rate),
        stretched  log P_j = a − c j^β               (λ ≍ e^{−c i^β}; β by a grid search in (0, 2]),

    each with its rms residual in log P, its intercept a and its slope (log(1/ρ), γ or c) on the model's feature
    (:data:`DECAY_FEATURES`); ``groups`` carries each fit's curve (``fit_<model>``). With fewer than
    :data:`MIN_DECAY_GROUPS` groups above the floor (a spectrum that vanishes within a few eigenvalues, e.g. two
    nearly merged components) the fits are NaN and ``fits.groups`` says how many there were. Returns (groups, fits)."""
    lam = np.asarray(eigenvalues, dtype=float)
    count = lam.size // int(group)
    sums = lam[: count * group].reshape(count, group).sum(axis=1)
    keep = sums > floor * sums[0]
    sums = sums[keep]
    j = np.arange(1, sums.size + 1, dtype=float)
    log_p = np.log(sums)
    groups = pd.DataFrame(
        {
            "group": j.astype(int),
            "sum": sums,
            "ratio_next": np.append(sums[1:] / sums[:-1], np.nan),
            "local_power": np.append(np.log(sums[:-1] / sums[1:]) / np.log(j[1:] / j[:-1]), np.nan),
        }
    )
    if sums.size < MIN_DECAY_GROUPS:  # a spectrum that falls to the floor within a few groups: no shape to fit
        for model in DECAY_FEATURES:
            groups[f"fit_{model}"] = np.nan
        fits = pd.DataFrame(
            [
                {"model": model, "parameter": parameter, "value": np.nan, "rms_log": np.nan, "intercept": np.nan, "slope": np.nan}
                for model, parameter in (("geometric", "rho"), ("power", "gamma"), ("stretched", "beta"))
            ]
        )
        return groups, fits.assign(groups=int(sums.size), group_size=int(group))

    def fit(feature):
        design = np.column_stack([np.ones_like(j), -feature])
        coef, *_ = np.linalg.lstsq(design, log_p, rcond=None)
        return coef, float(np.sqrt(np.mean((design @ coef - log_p) ** 2)))

    betas = np.linspace(0.05, 2.0, 391)
    stretched = [fit(DECAY_FEATURES["stretched"](j, b)) for b in betas]
    best = int(np.argmin([rms for _, rms in stretched]))
    rows = []
    for model, parameter, (coef, rms) in (
        ("geometric", "rho", fit(DECAY_FEATURES["geometric"](j, None))),
        ("power", "gamma", fit(DECAY_FEATURES["power"](j, None))),
        ("stretched", "beta", stretched[best]),
    ):
        value = {"geometric": np.exp(-coef[1]), "power": coef[1], "stretched": betas[best]}[model]
        rows.append(
            {
                "model": model,
                "parameter": parameter,
                "value": float(value),
                "rms_log": rms,
                "intercept": float(coef[0]),
                "slope": float(coef[1]),
            }
        )
        groups[f"fit_{model}"] = np.exp(coef[0] - coef[1] * DECAY_FEATURES[model](j, betas[best]))
    fits = pd.DataFrame(rows).assign(groups=int(sums.size), group_size=int(group))
    return groups, fits


def l2_minima_table(gmm, tau: float, dims, nodes: int) -> pd.DataFrame:
    """:func:`rank_d_l2_minimum` for every D in ``dims`` and, as D = 0, each definition's distance of the zero score
    (the rank-0 minimum: what a score that learned nothing is at), the level below which a bound on the distance
    says something."""
    grid = gmm.grid(nodes)
    zero = l2_distances_from_difference(-tau * grid.log_ratio, grid)
    rows = pd.DataFrame([{"D": 0, "definition": name, "minimum": zero[name]} for name in L2_DEFINITIONS])
    return pd.concat([rows, rank_d_l2_minimum(grid, tau, dims)], ignore_index=True)
