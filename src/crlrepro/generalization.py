"""Paper 1, Sec. 4: generalization of contrastive learning in the number of anchors n and of
negatives m, for the two ways of drawing negatives (C3), and the split of a fixed budget N = n·m (C4).

A training sample S holds n anchor pairs (x_i, y_i) ~ p and negatives y' ~ P_Y drawn in one of two
regimes (``REGIMES``):

* ``scrl``  (supervised CRL, eq. 5): each anchor has its own m fresh negatives y'_i1..y'_im;
* ``sscrl`` (self-supervised CRL, eq. 8): one pool y'_1..y'_m shared by all anchors.

The empirical objective (crlrepro.losses.log_mean_exp_loss) is

    L̂_S(s) = (1/n) Σ_i τ log (1/m) Σ_j exp((s(x_i, y'_ij) − s(x_i, y_i)) / τ)

(y'_ij = y'_j under SSCRL), the population loss L(s) = E τ log E_{y'} exp((s(x,y') − s(x,y))/τ) is
computed by quadrature (crlrepro.oracles), and the generalization gap of a trained ŵ is
L(ŵ) − L̂_S(ŵ). Thm 4.5 bounds sup_w |L(s_w) − L̂_S(s_w)| by O(1/m + 1/√n) under SCRL and by
O(1/√m + 1/√n) under SSCRL.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np
import torch

from crlrepro.gmm import LatentClassGMM
from crlrepro.losses import info_nce_independent, info_nce_shared
from crlrepro.metrics import loglog_slope, recall_at_k
from crlrepro.networks import TwoTower, numpy_score
from crlrepro.oracles import excess_contrastive_risk, population_contrastive_loss, retrieval_auc
from crlrepro.train import TrainSettings, seed_everything, train

if TYPE_CHECKING:  # pandas is imported where a table is built, not at import time
    import pandas as pd

REGIMES = ("scrl", "sscrl")


def _check_regime(regime: str) -> str:
    if regime not in REGIMES:
        raise ValueError(f"unknown negative-sampling regime {regime!r}; expected one of {', '.join(REGIMES)}")
    return regime


@dataclass(frozen=True)
class NegativeSample:
    """A contrastive training sample: anchors ``x`` (n, d), positives ``y`` (n, d) and ``negatives``,
    (n, m, d) under SCRL, (m, d) under SSCRL."""

    regime: str
    x: np.ndarray
    y: np.ndarray
    negatives: np.ndarray

    @property
    def n(self) -> int:
        return self.x.shape[0]

    @property
    def m(self) -> int:
        return self.negatives.shape[1] if self.regime == "scrl" else self.negatives.shape[0]


def draw_negative_sample(gmm: LatentClassGMM, regime: str, n: int, m: int, rng: np.random.Generator) -> NegativeSample:
    """n pairs (x_i, y_i) ~ p and negatives y' ~ P_Y (the y of fresh pairs): m per anchor under SCRL,
    one pool of m under SSCRL."""
    _check_regime(regime)
    if int(n) < 1 or int(m) < 1:
        raise ValueError(f"need n >= 1 anchors and m >= 1 negatives, got n={n}, m={m}")
    x, y, _ = gmm.sample(int(n), rng)
    count = int(n) * int(m) if regime == "scrl" else int(m)
    _, negatives, _ = gmm.sample(count, rng)
    shape = (int(n), int(m), 1) if regime == "scrl" else (int(m), 1)
    return NegativeSample(regime, x[:, None], y[:, None], negatives.reshape(shape))


def sample_objective(model: TwoTower, x: torch.Tensor, y: torch.Tensor, negatives: torch.Tensor, regime: str, tau: float) -> torch.Tensor:
    """L̂ (module docstring) of ``model`` on anchors x, positives y and their negatives: SCRL with
    :func:`crlrepro.losses.info_nce_independent`, SSCRL with :func:`crlrepro.losses.info_nce_shared`."""
    fx = model.f(x)
    if _check_regime(regime) == "scrl":
        n, m = negatives.shape[:2]
        g = model.g(torch.cat([y, negatives.reshape(n * m, -1)]))
        return info_nce_independent(fx, g[:n], g[n:].reshape(n, m, -1), tau)
    g = model.g(torch.cat([y, negatives]))
    n = y.shape[0]
    return info_nce_shared(fx, g[:n], g[n:], tau)


@torch.no_grad()
def empirical_contrastive_loss(model: TwoTower, sample: NegativeSample, tau: float, chunk_pairs: int = 1 << 20) -> float:
    """L̂_S(ŵ) on the whole training sample, in float64 on the CPU, over chunks of anchors (about
    ``chunk_pairs`` anchor–negative scores at a time, so memory stays bounded for any n·m)."""
    frozen = TwoTower(**model.architecture).double()
    frozen.load_state_dict({k: v.detach().cpu().double() for k, v in model.state_dict().items()})
    x, y, neg = (torch.from_numpy(np.asarray(a, dtype=np.float64)) for a in (sample.x, sample.y, sample.negatives))
    step = max(1, chunk_pairs // sample.m)
    total = 0.0
    for start in range(0, sample.n, step):
        part = slice(start, start + step)
        negatives = neg[part] if sample.regime == "scrl" else neg
        rows = x[part].shape[0]
        total += rows * float(sample_objective(frozen.eval(), x[part], y[part], negatives, sample.regime, tau))
    return total / sample.n


def train_on_sample(sample: NegativeSample, tau: float, settings: TrainSettings, *, dim: int, hidden: int, layers: int,
                    score_bound: float | None, steps: int) -> tuple[TwoTower, list]:
    """Minimise L̂_S over a two-tower model with the project's trainer: minibatches of anchors (each with
    its own negatives under SCRL, all with the whole pool under SSCRL) for about ``steps`` AdamW steps
    (whole epochs: ⌈steps / ⌊n / batch⌋⌉ of them, so small samples are revisited more often)."""
    batch = min(settings.batch_size, sample.n)
    per_epoch = sample.n // batch
    epochs = -(-int(steps) // per_epoch)
    settings = replace(settings, batch_size=batch, epochs=epochs)
    seed_everything(settings.seed)
    model = TwoTower(sample.x.shape[1], sample.y.shape[1], dim, hidden=hidden, layers=layers, score_bound=score_bound)
    as_tensor = lambda a: torch.as_tensor(np.asarray(a, dtype=np.float32))  # noqa: E731
    x, y, neg = as_tensor(sample.x), as_tensor(sample.y), as_tensor(sample.negatives)
    if sample.regime == "scrl":
        data = [x, y, neg]

        def batch_loss(model, batch, rng):
            return sample_objective(model, *batch, "scrl", tau)
    else:
        data = [x, y]
        pool = neg.to(settings.device)

        def batch_loss(model, batch, rng):
            return sample_objective(model, *batch, pool, "sscrl", tau)

    history = train(model, batch_loss, data, settings)
    return model.cpu().eval(), history


def gallery_recall(score, gmm: LatentClassGMM, gallery_size: int, galleries: int, rng: np.random.Generator) -> float:
    """Recall@1 of ``score`` over ``galleries`` independent galleries of ``gallery_size`` fresh pairs:
    each x_i is a query whose match y_i hides among the gallery's other targets (crlrepro.metrics.recall_at_k)."""
    x, y, _ = gmm.sample(int(gallery_size) * int(galleries), rng)
    x, y = x.reshape(galleries, gallery_size), y.reshape(galleries, gallery_size)
    return float(np.mean([recall_at_k(score(x[k], y[k]), 1) for k in range(int(galleries))]))


def evaluate_trained_model(model: TwoTower, sample: NegativeSample, gmm: LatentClassGMM, tau: float, *, nodes: int,
                           inner_nodes: int, gallery_size: int, galleries: int, seed: int) -> dict:
    """C3/C4 measurements of a trained ŵ: empirical_loss L̂_S(ŵ) on its own training sample,
    population_loss L(ŵ) and excess_risk L(ŵ) − L* by quadrature (``nodes`` per view), the gap
    L(ŵ) − L̂_S(ŵ), the retrieval AUC E(ŵ) by quadrature and recall@1 over fresh galleries."""
    score = numpy_score(model)
    grid = gmm.grid(nodes)
    empirical = empirical_contrastive_loss(model, sample, tau)
    population = population_contrastive_loss(score, grid, tau)
    return {
        "empirical_loss": empirical,
        "population_loss": population,
        "gap": population - empirical,
        "excess_risk": excess_contrastive_risk(score, grid, tau),
        "auc": retrieval_auc(score, gmm, nodes, inner_nodes),
        "recall_at_1": gallery_recall(score, gmm, gallery_size, galleries, np.random.default_rng([seed, 7])),
    }


def run_negative_sampling(gmm: LatentClassGMM, regime: str, n: int, m: int, seed: int, tau: float, scaling: dict,
                          device: str = "cpu") -> dict:
    """One C3/C4 point under the config's ``consistency.scaling`` block: draw S (generator seeded by
    (seed, n, m, regime)), train ŵ on it with :func:`train_on_sample`, evaluate with
    :func:`evaluate_trained_model`."""
    rng = np.random.default_rng([int(seed), int(n), int(m), REGIMES.index(_check_regime(regime))])
    sample = draw_negative_sample(gmm, regime, n, m, rng)
    settings = TrainSettings(epochs=1, batch_size=scaling["batch_size"], learning_rate=scaling["learning_rate"],
                             weight_decay=scaling["weight_decay"], seed=int(seed), device=device,
                             name=f"{regime} n={n} m={m}")
    trained, history = train_on_sample(sample, tau, settings, dim=scaling["dim"], hidden=scaling["hidden"],
                                       layers=scaling["layers"], score_bound=scaling["score_bound"], steps=scaling["steps"])
    row = {"regime": regime, "n": int(n), "m": int(m), "seed": int(seed),
           "steps": len(history) * (int(n) // min(int(scaling["batch_size"]), int(n)))}
    row.update(evaluate_trained_model(trained, sample, gmm, tau, nodes=scaling["nodes"], inner_nodes=scaling["inner_nodes"],
                                      gallery_size=scaling["gallery_size"], galleries=scaling["galleries"], seed=seed))
    return row


def scaling_slope(runs, axis: str, value: str, bootstrap: int, rng: np.random.Generator, level: float = 0.95) -> dict:
    """The log-log slope of mean_seeds |value| against ``axis`` (n or m), with a percentile bootstrap
    interval that resamples the seeds at every point of the sweep (|·|: the theorem bounds |L − L̂_S|)."""
    groups = [(float(k), np.abs(g[value].to_numpy(dtype=float))) for k, g in runs.groupby(axis)]
    if len(groups) < 2:
        raise ValueError(f"a slope in {axis} needs at least two values of {axis}, got {len(groups)}")
    xs = np.array([k for k, _ in groups])
    point = float(loglog_slope(xs, [v.mean() for _, v in groups]))
    draws = np.stack([
        np.mean(v[rng.integers(0, v.size, size=(bootstrap, v.size))], axis=1) for _, v in groups
    ], axis=1)  # (bootstrap, points)
    slopes = loglog_slope(xs, np.maximum(draws, np.finfo(float).tiny))
    low, high = np.quantile(slopes, [(1 - level) / 2, (1 + level) / 2])
    return {"slope": point, "low": float(low), "high": float(high), "points": len(groups)}


def scaling_slopes(table, predicted: dict, bootstrap: int, seed: int) -> "pd.DataFrame":
    """C3: for every regime, the log-log slopes of mean |gap| in m (the m sweep) and in n (the n sweep)
    with bootstrap intervals (:func:`scaling_slope`), beside the ``predicted`` slopes
    {"m": {regime: slope}, "n": {regime: slope}}; the excess risk's slopes are given too."""
    import pandas as pd

    rng = np.random.default_rng(seed)
    rows = []
    for (regime, sweep), runs in table.groupby(["regime", "sweep"], sort=True):
        for value in ("gap", "excess_risk"):
            fit = scaling_slope(runs, sweep, value, bootstrap, rng)
            rows.append({"regime": regime, "axis": sweep, "quantity": value, **fit,
                         "predicted": float(predicted[sweep][regime]) if value == "gap" else float("nan")})
    return pd.DataFrame(rows)


def fit_budget_model(m, n, excess) -> dict:
    """Fit excess risk ≈ a + b/m + c/√n (the shape of Thm 4.5's bound) by non-negative least squares
    on relative residuals, min_{a,b,c ≥ 0} Σ_k ((e_k − a − b/m_k − c/√n_k) / e_k)²: the excess risks
    of a budget grid span orders of magnitude, and plain least squares would fit only the largest
    ones (and return a negative floor a). Also returns the rms relative error of the fit."""
    from scipy.optimize import nnls

    m, n, excess = (np.asarray(v, dtype=float) for v in (m, n, excess))
    if np.any(excess <= 0):
        raise ValueError("excess risks must be > 0 for a relative fit")
    design = np.column_stack([np.ones_like(m), 1.0 / m, 1.0 / np.sqrt(n)])
    (a, b, c), _ = nnls(design / excess[:, None], np.ones_like(excess))
    relative = (design @ np.array([a, b, c]) - excess) / excess
    return {"a": float(a), "b": float(b), "c": float(c), "relative_rms": float(np.sqrt(np.mean(relative**2)))}


def recommended_split(b: float, c: float, budget: int) -> float:
    """The m in [1, N] minimising b/m + c/√(N/m) for a budget N = n·m:

        d/dm [b/m + c·√m/√N] = 0  ⇔  m* = (2 b √N / c)^{2/3}   (b, c > 0),

    clipped to [1, N]. With b ≤ 0 < c more anchors always help (m = 1); with c ≤ 0 < b more
    negatives always help (m = N); with b, c ≤ 0 the fit has no minimum to offer (NaN)."""
    if b > 0 and c > 0:
        return float(np.clip((2.0 * b * np.sqrt(budget) / c) ** (2.0 / 3.0), 1.0, budget))
    if b <= 0 < c:
        return 1.0
    if c <= 0 < b:
        return float(budget)
    return float("nan")


def budget_summary(table, total: int) -> "pd.DataFrame":
    """C4 per regime: the measured best split (highest mean AUC, and lowest mean excess risk, over
    seeds), the fit excess ≈ a + b/m + c/√n on all runs and the split m* it recommends for N."""
    import pandas as pd

    rows = []
    for regime, runs in table.groupby("regime", sort=True):
        means = runs.groupby("m")[["auc", "excess_risk"]].mean()
        fit = fit_budget_model(runs["m"], runs["n"], runs["excess_risk"])
        m_star = recommended_split(fit["b"], fit["c"], total)
        rows.append({"regime": regime, "total": int(total), "best_m_auc": int(means["auc"].idxmax()),
                     "best_m_excess": int(means["excess_risk"].idxmin()), "smallest_m": int(means.index.min()),
                     "largest_m": int(means.index.max()), **fit, "recommended_m": m_star,
                     "recommended_n": total / m_star if np.isfinite(m_star) else float("nan")})
    return pd.DataFrame(rows)
