"""The 1-D latent-class Gaussian mixture of paper 2 (Sec. 6) and paper 1's synthetic checks.

    z ~ Categorical(π),   x | z=k ~ N(μx_k, σx_k²),   y | z=k ~ N(μy_k, σy_k²),   x ⟂ y | z.

Its pointwise mutual information is available in closed form,

    PMI(x, y) = log p(x, y) / (p(x) p(y)) = log Σ_k p(z=k|x) p(z=k|y) / π_k,

which makes every population quantity of the papers an ordinary integral.
Paper 2's setting: K=2, π=(½,½), μx=μy=(1.2, −1.2), σ=1.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from crlrepro.theory.numerics import log_sum_exp
from crlrepro.theory.quadrature import SUPPORT_HALF_WIDTH, PopulationGrid, trapezoid_mixture

__all__ = ["LatentClassGMM"]

_LOG_SQRT_2PI = 0.5 * np.log(2.0 * np.pi)
_TINY_SUM = float(np.exp(-600.0))  # PMI's factorised sum below this is recomputed by a plain log-sum-exp


def _log_normal(t: np.ndarray, mean: np.ndarray, std: np.ndarray) -> np.ndarray:
    """log N(t; mean_k, std_k²) for every point and component: shape (len(t), K)."""
    z = (np.asarray(t, dtype=float)[:, None] - mean[None, :]) / std[None, :]
    return -0.5 * z**2 - np.log(std)[None, :] - _LOG_SQRT_2PI


@dataclass(frozen=True)
class LatentClassGMM:
    """A K-component latent-class mixture of two 1-D Gaussian views (see the module docstring)."""

    weights: np.ndarray
    mean_x: np.ndarray
    std_x: np.ndarray
    mean_y: np.ndarray
    std_y: np.ndarray

    def __post_init__(self):
        fields = ("weights", "mean_x", "std_x", "mean_y", "std_y")
        arrays = {f: np.atleast_1d(np.asarray(getattr(self, f), dtype=float)) for f in fields}
        k = arrays["weights"].size
        for name, arr in arrays.items():
            if arr.ndim != 1 or arr.size != k:
                raise ValueError(f"gmm.{name} has {arr.size} entries, gmm.weights has {k}")
            if not np.all(np.isfinite(arr)):
                raise ValueError(f"gmm.{name} must be finite, got {arr.tolist()}")
            object.__setattr__(self, name, arr)
        if k < 2:
            raise ValueError(f"gmm needs at least 2 components, got {k}")
        if np.any(arrays["weights"] <= 0) or abs(arrays["weights"].sum() - 1.0) > 1e-6:
            raise ValueError(f"gmm.weights must be positive and sum to 1, got {arrays['weights'].tolist()}")
        for name in ("std_x", "std_y"):
            if np.any(arrays[name] <= 0):
                raise ValueError(f"gmm.{name} must be > 0, got {arrays[name].tolist()}")

    @classmethod
    def from_config(cls, gmm: dict) -> LatentClassGMM:
        """Build from the config's ``gmm:`` block (keys weights, mean_x, std_x, mean_y, std_y)."""
        return cls(**{k: gmm[k] for k in ("weights", "mean_x", "std_x", "mean_y", "std_y")})

    @property
    def num_components(self) -> int:
        return self.weights.size

    def swapped(self) -> LatentClassGMM:
        """The same model with the roles of x and y exchanged."""
        return LatentClassGMM(self.weights, self.mean_y, self.std_y, self.mean_x, self.std_x)

    def permuted(self, order) -> LatentClassGMM:
        """The same distribution with its components relabelled by ``order``."""
        order = np.asarray(order)
        return LatentClassGMM(self.weights[order], self.mean_x[order], self.std_x[order], self.mean_y[order], self.std_y[order])

    # -- densities ---------------------------------------------------------------------------
    def _log_joint_class(self, t, mean, std) -> np.ndarray:
        return np.log(self.weights)[None, :] + _log_normal(t, mean, std)

    def log_marginal_x(self, x) -> np.ndarray:
        """log p(x) = log Σ_k π_k N(x; μx_k, σx_k²)."""
        return log_sum_exp(self._log_joint_class(x, self.mean_x, self.std_x), axis=1)

    def log_marginal_y(self, y) -> np.ndarray:
        """log p(y) = log Σ_k π_k N(y; μy_k, σy_k²)."""
        return log_sum_exp(self._log_joint_class(y, self.mean_y, self.std_y), axis=1)

    def log_posterior_x(self, x) -> np.ndarray:
        """log p(z=k | x), shape (len(x), K)."""
        a = self._log_joint_class(x, self.mean_x, self.std_x)
        return a - log_sum_exp(a, axis=1, keepdims=True)

    def log_posterior_y(self, y) -> np.ndarray:
        """log p(z=k | y), shape (len(y), K)."""
        a = self._log_joint_class(y, self.mean_y, self.std_y)
        return a - log_sum_exp(a, axis=1, keepdims=True)

    def pmi(self, x, y) -> np.ndarray:
        """PMI(x_a, y_b) = log Σ_k p(z=k|x_a) p(z=k|y_b) / π_k for all pairs, shape (len(x), len(y)).

        Evaluated as a log-sum-exp factorised into a matrix product: with A_ak = log p(k|x_a) − log π_k
        and B_bk = log p(k|y_b), each shifted by its row maximum,

            PMI_ab = max_k A_ak + max_k B_bk + log Σ_k e^{A_ak − max A_a} e^{B_bk − max B_b},

        exact to rounding (every term of the sum is in (0, 1], one factor of each row is 1); entries whose
        sum underflows (far in the tails) are recomputed by a plain log-sum-exp, so they stay finite.
        """
        a = self.log_posterior_x(x) - np.log(self.weights)[None, :]
        b = self.log_posterior_y(y)
        a_max, b_max = a.max(axis=1, keepdims=True), b.max(axis=1, keepdims=True)
        out = np.exp(a - a_max) @ np.exp(b - b_max).T  # the sum, in (0, K]; in place below (one pass each)
        # Entries whose log-sum is below −600 (or NaN) are recomputed; one reduction says whether there are any
        # (rarely: far tails), a sixth of the cost of locating them (min propagates NaN, so NaN counts).
        tiny = np.nonzero(~(out >= _TINY_SUM)) if out.size and not out.min() >= _TINY_SUM else None
        with np.errstate(divide="ignore"):
            np.log(out, out=out)
        out += a_max
        out += b_max.T
        if tiny is not None:
            out[tiny] = log_sum_exp(a[tiny[0]] + b[tiny[1]], axis=1)
        return out

    def pmi_pairs(self, x, y) -> np.ndarray:
        """PMI(x_i, y_i) for aligned pairs, shape (n,): the diagonal of :meth:`pmi` without the matrix."""
        a = self.log_posterior_x(x) - np.log(self.weights)[None, :]
        return log_sum_exp(a + self.log_posterior_y(y), axis=1)

    # -- sampling and integration --------------------------------------------------------------
    def sample(self, n: int, rng: np.random.Generator):
        """Draw n pairs (x, y) from p(x, y) with their latent classes z."""
        z = rng.choice(self.num_components, size=n, p=self.weights)
        x = self.mean_x[z] + self.std_x[z] * rng.standard_normal(n)
        y = self.mean_y[z] + self.std_y[z] * rng.standard_normal(n)
        return x, y, z

    def grid(self, nodes: int, half_width: float = SUPPORT_HALF_WIDTH) -> PopulationGrid:
        """Product quadrature of P_X ⊗ P_Y (``nodes`` trapezoidal points per view over ``half_width``
        standard deviations beyond the outermost means) carrying the log density ratio PMI on its
        nodes; see :class:`PopulationGrid`."""
        x = trapezoid_mixture(self.weights, self.mean_x, self.std_x, nodes, half_width)
        y = trapezoid_mixture(self.weights, self.mean_y, self.std_y, nodes, half_width)
        return PopulationGrid(x=x, y=y, log_ratio=self.pmi(x.nodes, y.nodes))
