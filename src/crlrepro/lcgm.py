"""The latent-class generative model (LCGM) of paper 2, Sec. 5, with Gaussian views:

    z ~ Categorical(π),   x | z=k ~ N(μx_k, σx² I_{d1}),   y | z=k ~ N(μy_k, σy² I_{d2}),   x ⟂ y | z.

Posteriors are closed-form softmaxes, p(z=k|x) ∝ π_k exp(−‖x − μx_k‖²/(2σx²)), and
PMI(x, y) = log Σ_k p(z=k|x) p(z=k|y)/π_k. With σx small the anchors are nearly deterministic
(p(z = z_x | x) ≈ 1) and the PMI operator has rank K, with singular subspaces
span{p(z=k|x)} and span{log p(z=k|y)/π_k} (paper 2, Prop. 5.6).

Class means are drawn once from a seeded generator: μ_k = separation · u_k with u_k uniform on
the unit sphere, independently for each view.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import logsumexp


def _unit_rows(rng: np.random.Generator, k: int, d: int) -> np.ndarray:
    v = rng.standard_normal((k, d))
    return v / np.linalg.norm(v, axis=1, keepdims=True)


@dataclass(frozen=True)
class LatentClassModel:
    weights: np.ndarray
    means_x: np.ndarray  # (K, d1)
    means_y: np.ndarray  # (K, d2)
    noise_x: float
    noise_y: float

    @classmethod
    def from_config(cls, lcgm: dict) -> "LatentClassModel":
        """Build from the config's ``lcgm:`` block (classes, dim_x, dim_y, noise_x, noise_y,
        separation, mean_seed); class probabilities are uniform."""
        k = int(lcgm["classes"])
        rng = np.random.default_rng(lcgm["mean_seed"])
        return cls(
            weights=np.full(k, 1.0 / k),
            means_x=lcgm["separation"] * _unit_rows(rng, k, int(lcgm["dim_x"])),
            means_y=lcgm["separation"] * _unit_rows(rng, k, int(lcgm["dim_y"])),
            noise_x=float(lcgm["noise_x"]),
            noise_y=float(lcgm["noise_y"]),
        )

    @property
    def num_classes(self) -> int:
        return self.weights.size

    @staticmethod
    def _log_posterior(t, means, noise, log_weights) -> np.ndarray:
        t = np.asarray(t, dtype=float)
        sq = (t**2).sum(1)[:, None] - 2 * t @ means.T + (means**2).sum(1)[None, :]
        a = log_weights[None, :] - sq / (2 * noise**2)
        return a - logsumexp(a, axis=1, keepdims=True)

    def log_posterior_x(self, x) -> np.ndarray:
        """log p(z=k | x), shape (n, K)."""
        return self._log_posterior(x, self.means_x, self.noise_x, np.log(self.weights))

    def log_posterior_y(self, y) -> np.ndarray:
        """log p(z=k | y), shape (n, K)."""
        return self._log_posterior(y, self.means_y, self.noise_y, np.log(self.weights))

    def pmi(self, x, y, chunk: int = 256) -> np.ndarray:
        """PMI(x_a, y_b) for all pairs, shape (len(x), len(y)), in row chunks to bound memory."""
        a, b = self.log_posterior_x(x), self.log_posterior_y(y) - np.log(self.weights)[None, :]
        return np.concatenate(
            [logsumexp(a[i : i + chunk, None, :] + b[None, :, :], axis=2) for i in range(0, len(a), chunk)]
        )

    def sample(self, n: int, rng: np.random.Generator):
        """n pairs (x, y) with their classes z."""
        z = rng.choice(self.num_classes, size=n, p=self.weights)
        x = self.means_x[z] + self.noise_x * rng.standard_normal((n, self.means_x.shape[1]))
        y = self.means_y[z] + self.noise_y * rng.standard_normal((n, self.means_y.shape[1]))
        return x, y, z
