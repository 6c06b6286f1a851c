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

from dataclasses import dataclass
from typing import Callable

import numpy as np
import pandas as pd

from crlrepro.gmm import LatentClassGMM
from crlrepro.oracles import excess_contrastive_risk, l2_distance_to_bayes_score
from crlrepro.quadrature import PopulationGrid, QuadratureRule

Kernel = Callable[[np.ndarray, np.ndarray], np.ndarray]

# Singular values below this fraction of the largest are rounding noise: they are dropped from
# truncations (their contribution to any kernel value is below double precision anyway).
_RANK_RTOL = 1e-13


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


def truncation_table(gmm: LatentClassGMM, tau: float, dims, nodes: int) -> pd.DataFrame:
    """Paper 2, Table 1, columns 1–2: per D, the tail sum Σ_{i>D} λ_i and the population excess
    contrastive risk L(s_D) − L* of the spectral truncation, both by quadrature."""
    return truncation_on_grid(gmm.grid(nodes), gmm.pmi, tau, dims)


def _truncations(grid: PopulationGrid, pmi: Kernel, tau: float, dims):
    """The singular system on ``grid`` and (D, s_D) for every D, from one SVD of the PMI operator."""
    system = operator_svd(pmi, grid.x, grid.y)
    return system, [(int(d), truncated_score(system, int(d), tau)) for d in dims]


def truncation_on_grid(grid: PopulationGrid, pmi: Kernel, tau: float, dims) -> pd.DataFrame:
    """:func:`truncation_table` on a given quadrature grid (any rule for P_X ⊗ P_Y)."""
    system, truncations = _truncations(grid, pmi, tau, dims)
    rows = [{"D": d, "tail_sum": system.tail_sum(d), "trunc_excess_risk": excess_contrastive_risk(s_d, grid, tau)}
            for d, s_d in truncations]
    return pd.DataFrame(rows, columns=["D", "tail_sum", "trunc_excess_risk"])


def significant_digits(value: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """Number of correct significant digits, −log10(|value − reference| / |reference|); inf if equal."""
    value, reference = np.asarray(value, float), np.asarray(reference, float)
    with np.errstate(divide="ignore"):
        return -np.log10(np.abs(value - reference) / np.abs(reference))


def convergence_table(gmm: LatentClassGMM, tau: float, dims, nodes_list) -> pd.DataFrame:
    """The truncation table at every quadrature size in ``nodes_list``, with the correct significant
    digits of each value against the finest size (left empty on the finest row itself)."""
    nodes_list = sorted(int(n) for n in nodes_list)
    tables = {n: truncation_table(gmm, tau, dims, n) for n in nodes_list}
    finest = tables[nodes_list[-1]]
    rows = []
    for n in nodes_list:
        t = tables[n].copy()
        t.insert(0, "nodes", n)
        for col in ("tail_sum", "trunc_excess_risk"):
            digits = significant_digits(t[col].to_numpy(), finest[col].to_numpy())
            t[f"{col}_digits"] = np.where(n == nodes_list[-1], np.nan, np.minimum(digits, 16.0))
        rows.append(t)
    return pd.concat(rows, ignore_index=True)


def truncation_metrics(gmm: LatentClassGMM, dims, tau: float, nodes: int) -> pd.DataFrame:
    """Per D, the population excess risk and the shift-removed L2 distance to τ·PMI of the spectral
    truncation s_D: the like-for-like reference for a learned D-dimensional score (A2)."""
    grid = gmm.grid(nodes)
    _, truncations = _truncations(grid, gmm.pmi, tau, dims)
    return pd.DataFrame([{"D": d, "spectral_excess_risk": excess_contrastive_risk(s_d, grid, tau),
                          "spectral_l2_distance": l2_distance_to_bayes_score(s_d, grid, tau)} for d, s_d in truncations])
