"""A distribution whose PMI spectrum decays polynomially, for paper 2's polynomial-decay corollary.

Paper 2 (Sec. 3): when the eigenvalues of the PMI operator decay as λ_i ≍ i^(−γ), γ > 1, the approximation error
inf over rank-D scores of L(s) − L* ≲ Σ_{i>D} λ_i converges at the rate (D+1)^(1−γ)/(γ−1). Paper 2's own Gaussian
mixture cannot show it: its spectrum decays faster than any power. Here a pair of views on the circle, x, y uniform
on [0, 1), with a translation-invariant dependence,

    p(x, y) = e^{k(x − y)} / Z,     k(t) = 2 Σ_{j=1}^{J} a_j cos(2π j t),     a_j = A · j^(−γ/2),     Z = ∫_0^1 e^{k(t)} dt,

has uniform marginals for every k (∫_0^1 e^{k(x−y)} dy = Z for every x), so PMI(x, y) = k(x − y) − log Z. Its
operator (Tf)(y) = ∫ PMI(x, y) f(x) dx is diagonal in the Fourier basis: singular value |log Z| on the constants and
a_j, twice (√2 cos 2πjx and √2 sin 2πjx), at frequency j. The eigenvalues λ = a_j² = A² j^(−γ) therefore decay
polynomially with exponent γ in j (in the index i, each value taken twice: λ_i ≈ A² (i/2)^(−γ)), exactly, up to the
series' last mode J (the tail beyond it is Σ_{j>J} 2a_j² ≈ 2A² J^(1−γ)/(γ−1), which the table reports).

The equispaced rule on the circle with N > 2J nodes integrates every product of the modes exactly (the discrete
Fourier basis is orthogonal below N/2), so the operator's SVD on it is exact; the loss's integrands carry e^{k} and
e^{s/τ}, whose Fourier series do not end at J, and converge geometrically in N (the trapezoidal rule on a periodic
analytic function): the table's quadrature error compares N with N/2.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from crlrepro.theory.numerics import log_sum_exp
from crlrepro.theory.quadrature import PopulationGrid, QuadratureRule

__all__ = ["CircularPMI", "POLYNOMIAL_DECAY_NOT_APPLICABLE", "polynomial_decay_table", "window_rate"]


@dataclass(frozen=True)
class CircularPMI:
    """The circle model of the module docstring: decay exponent ``gamma`` > 1 of the eigenvalues, ``amplitude`` A > 0
    of the first mode, ``modes`` J ≥ 1 terms of the series."""

    gamma: float
    amplitude: float
    modes: int

    def __post_init__(self):
        if not (np.isfinite(self.gamma) and self.gamma > 1):
            raise ValueError(f"gamma must be a number > 1 (a summable spectrum), got {self.gamma!r}")
        if not (np.isfinite(self.amplitude) and self.amplitude > 0):
            raise ValueError(f"amplitude must be a number > 0, got {self.amplitude!r}")
        if isinstance(self.modes, bool) or not isinstance(self.modes, (int, np.integer)) or self.modes < 1:
            raise ValueError(f"modes must be an integer ≥ 1, got {self.modes!r}")

    def coefficients(self) -> np.ndarray:
        """a_j = A · j^(−γ/2), j = 1..J."""
        return self.amplitude * np.arange(1, self.modes + 1, dtype=float) ** (-self.gamma / 2)

    def kernel(self, t) -> np.ndarray:
        """k(t) = 2 Σ_j a_j cos(2π j t), for any array of differences t."""
        t = np.asarray(t, dtype=float)
        j = np.arange(1, self.modes + 1, dtype=float)
        out = np.zeros(t.shape)
        for start in range(0, self.modes, 256):  # modes in blocks: a (len(t), J) array at once would be large
            block = slice(start, start + 256)
            out += 2.0 * np.cos(2.0 * np.pi * np.multiply.outer(t, j[block])) @ self.coefficients()[block]
        return out

    def log_normaliser(self) -> float:
        """log Z = log ∫_0^1 e^{k(t)} dt by the trapezoidal rule on 64·J + 64 points (geometric convergence: e^k is
        periodic and entire)."""
        t = np.arange(64 * self.modes + 64) / (64 * self.modes + 64)
        return float(log_sum_exp(self.kernel(t), axis=0) - np.log(t.size))

    def pmi(self, x, y) -> np.ndarray:
        """PMI(x, y) = k(x − y) − log Z, shape (len(x), len(y)); k is evaluated once per distinct difference (an
        equispaced rule has 2N − 1 of them among its N² pairs)."""
        x, y = np.atleast_1d(np.asarray(x, dtype=float)), np.atleast_1d(np.asarray(y, dtype=float))
        differences, where = np.unique(np.subtract.outer(x, y), return_inverse=True)
        return (self.kernel(differences) - self.log_normaliser())[where].reshape(x.size, y.size)

    def eigenvalues(self) -> np.ndarray:
        """The operator's eigenvalues, exactly, in decreasing order: (log Z)² once and a_j² twice for j = 1..J."""
        a2 = self.coefficients() ** 2
        return np.sort(np.concatenate([[self.log_normaliser() ** 2], a2, a2]))[::-1]

    def grid(self, nodes: int) -> PopulationGrid:
        """The equispaced rule i/N, i = 0..N−1, for both uniform views, with PMI on its nodes (module docstring)."""
        n = int(nodes)
        if n <= 2 * self.modes:
            raise ValueError(f"nodes must exceed 2 × modes = {2 * self.modes} for the spectrum to be exact, got {nodes}")
        rule = QuadratureRule(nodes=np.arange(n) / n, weights=np.full(n, 1.0 / n))
        return PopulationGrid(x=rule, y=rule, log_ratio=self.pmi(rule.nodes, rule.nodes))


def polynomial_decay_table(gammas, amplitude: float, modes: int, tau: float, dims, nodes: int):
    """Per γ of ``gammas`` and D of ``dims``, on :class:`CircularPMI` (``amplitude``, ``modes``): the tail sum
    Σ_{i>D} λ_i from the operator's SVD on ``nodes`` points and exactly (``tail_exact``), the truncation's excess risk
    L(s_D) − L* (:func:`crlrepro.theory.spectral.truncation_on_grid`) on ``nodes`` and on ``nodes``/2 points (its
    quadrature error), their ratio (the constant of ``≲`` at that D), the corollary's (D+1)^(1−γ)/(γ−1), and the local
    log-log slope of the excess in D + 1 from the previous D."""
    import pandas as pd

    from crlrepro.theory.spectral import truncation_on_grid

    dims = sorted(int(d) for d in dims)
    frames = []
    for gamma in gammas:
        model = CircularPMI(float(gamma), float(amplitude), int(modes))
        fine = truncation_on_grid(model.grid(int(nodes)), model.pmi, tau, dims)
        coarse = truncation_on_grid(model.grid(int(nodes) // 2), model.pmi, tau, dims)
        eigenvalues = model.eigenvalues()
        excess = fine["trunc_excess_risk"].to_numpy()
        d = np.asarray(dims, dtype=float)
        frames.append(
            pd.DataFrame(
                {
                    "gamma": float(gamma),
                    "D": dims,
                    "tail_sum": fine["tail_sum"],
                    "tail_exact": [float(eigenvalues[k:].sum()) for k in dims],
                    "trunc_excess_risk": excess,
                    "trunc_excess_coarse": coarse["trunc_excess_risk"].to_numpy(),
                    "excess_over_tail": excess / fine["tail_sum"].to_numpy(),
                    "corollary_rate": (d + 1) ** (1 - float(gamma)) / (float(gamma) - 1),
                    "local_slope": np.concatenate([[np.nan], np.diff(np.log(excess)) / np.diff(np.log(d + 1))]),
                }
            )
        )
    return pd.concat(frames, ignore_index=True)


POLYNOMIAL_DECAY_NOT_APPLICABLE = ("local_slope",)  # the first D of each γ has no previous D


def window_rate(table, gamma: float, window) -> dict:
    """The rate of the truncation's excess in D + 1 over ``window`` = [D_lo, D_hi] for one γ of
    :func:`polynomial_decay_table`: the least-squares slope of log excess on log(D + 1) at the window's D, with the
    range it could take: the smallest and largest local slope inside the window, on the fine rule and on the coarse
    one (the quadrature's error), and the fine rule's local slopes in order. The quantities are deterministic: the range
    is the curve's own spread, not noise."""
    rows = table[(table["gamma"] == gamma) & (table["D"] >= window[0]) & (table["D"] <= window[1])]
    if len(rows) < 2:
        raise ValueError(f"the window {list(window)} holds {len(rows)} of the table's D for γ = {gamma}: a slope needs 2")
    x = np.log(rows["D"].to_numpy(dtype=float) + 1)
    slopes = []
    for column in ("trunc_excess_risk", "trunc_excess_coarse"):
        y = np.log(rows[column].to_numpy(dtype=float))
        slopes.append(np.diff(y) / np.diff(x))
    fit = float(np.polyfit(x, np.log(rows["trunc_excess_risk"].to_numpy(dtype=float)), 1)[0])
    every = np.concatenate(slopes + [[fit]])
    return {
        "slope": fit,
        "low": float(every.min()),
        "high": float(every.max()),
        "quadrature_error": float(np.max(np.abs(slopes[0] - slopes[1]))),
        "predicted": 1.0 - float(gamma),
        "dims": [int(d) for d in rows["D"]],
        "local_slopes": [float(v) for v in slopes[0]],
        "ratio_first": float(rows["excess_over_tail"].iloc[0]),
        "ratio_last": float(rows["excess_over_tail"].iloc[-1]),
    }
