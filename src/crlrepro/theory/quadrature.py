"""Quadrature rules for population integrals: every population quantity of the papers is computed
here as a weighted sum over nodes, never as a minibatch estimate.

Mixture rule. For P = Σ_k π_k N(μ_k, σ_k²) with density p, the trapezoidal rule on the effective
support [min_k μ_k − cσ_k, max_k μ_k + cσ_k] (c = 10: the mass outside is below 10⁻²²),

    ∫ h dP  ≈  Σ_j w_j h(t_j),     t_j equispaced with step Δ,   w_j ∝ p(t_j) Δ,   Σ_j w_j = 1,

converges geometrically, like exp(−2πa/Δ), for integrands analytic in a strip of half-width a
and decaying like a Gaussian (Trefethen & Weideman, SIAM Rev. 2014). PMI-based integrands are
such functions; a few hundred nodes give 12–15 digits, where a per-component Gauss–Hermite rule
stalls at 2–5 digits once the component variances differ (the posteriors' complex poles approach
the real axis in the tails). PMI is bounded above by log max_k 1/π_k, so ±10σ suffices for integrals of
PMI itself; an integrand that grows in the tails needs more. The contrastive loss of a score s carries
e^{s/τ}: where s is large far out (the Nyström truncations s_D of a mixture with unequal variances reach
|s| ≈ 65 at τ = 1) e^{s/τ} outgrows the density's e^{−c²/2}, and the support itself must be converged
(crlrepro.theory.spectral.convergence_table varies it).

Joint expectations use the product rule of the two marginals and the density ratio:

    E_{(x,y)~p}[h] = E_{P_X ⊗ P_Y}[ e^{PMI(x,y)} h(x, y) ]  ≈  Σ_a Σ_b wx_a wy_b e^{PMI_ab} h(x_a, y_b).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from crlrepro.theory.numerics import log_sum_exp

__all__ = ["PopulationGrid", "QuadratureRule", "SUPPORT_HALF_WIDTH", "trapezoid_mixture"]


@dataclass(frozen=True)
class QuadratureRule:
    """Nodes and weights (summing to 1) of a rule for a probability measure on the line."""

    nodes: np.ndarray
    weights: np.ndarray

    def __len__(self) -> int:
        return self.nodes.size

    def expect(self, values: np.ndarray) -> float:
        """∫ h dP ≈ Σ_j w_j h(t_j) for values h(t_j) along the first axis."""
        return np.tensordot(self.weights, values, axes=(0, 0))


SUPPORT_HALF_WIDTH = 10.0  # in component standard deviations


def trapezoid_mixture(weights, means, stds, nodes: int, half_width: float = SUPPORT_HALF_WIDTH) -> QuadratureRule:
    """Trapezoidal rule with ``nodes`` equispaced points for Σ_k π_k N(μ_k, σ_k²) (module docstring) on
    [min_k μ_k − cσ_k, max_k μ_k + cσ_k], c = ``half_width``."""
    n = int(nodes)
    if n < 2:
        raise ValueError(f"a quadrature needs at least 2 nodes, got {nodes}")
    weights, means, stds = (np.atleast_1d(np.asarray(a, dtype=float)) for a in (weights, means, stds))
    if not (np.isfinite(half_width) and half_width > 0):
        raise ValueError(f"half_width must be a finite number of standard deviations > 0, got {half_width!r}")
    lo = np.min(means - half_width * stds)
    hi = np.max(means + half_width * stds)
    t = np.linspace(lo, hi, n)
    z = (t[:, None] - means[None, :]) / stds[None, :]
    log_density = log_sum_exp(np.log(weights)[None, :] - 0.5 * z**2 - np.log(stds)[None, :], axis=1)
    w = np.exp(log_density - log_density.max())
    return QuadratureRule(nodes=t, weights=w / w.sum())


@dataclass(frozen=True)
class PopulationGrid:
    """Product rule for P_X ⊗ P_Y with the log density ratio log p(x,y)/(p(x)p(y)) on its nodes.

    ``log_ratio[a, b]`` is PMI(x_a, y_b); it is what turns the product rule into a rule for the
    joint law p (module docstring)."""

    x: QuadratureRule
    y: QuadratureRule
    log_ratio: np.ndarray

    def evaluate(self, score) -> np.ndarray:
        """A score function s(x, y) -> (len(x), len(y)) array, evaluated on the grid."""
        values = np.asarray(score(self.x.nodes, self.y.nodes), dtype=float)
        expected = (len(self.x), len(self.y))
        if values.shape != expected:
            raise ValueError(f"score returned shape {values.shape}, expected {expected}")
        return values

    def joint_weights(self) -> np.ndarray:
        """Weights of the rule for p: wx_a wy_b e^{PMI_ab} (they sum to 1 up to quadrature error)."""
        return self.x.weights[:, None] * self.y.weights[None, :] * np.exp(self.log_ratio)
