"""Paper 1, Sec. 4: generalization of contrastive learning in the number of anchors n and of
negatives m, for the two ways of drawing negatives (C3), and the split of a fixed budget N = n·m (C4).

A training sample S holds n anchor pairs (x_i, y_i) ~ p and negatives y' ~ P_Y drawn in one of two
regimes (``REGIMES``):

* ``scrl``  (supervised CRL, eq. 5): each anchor has its own m fresh negatives y'_i1..y'_im;
* ``sscrl`` (self-supervised CRL, eq. 8): one pool y'_1..y'_m shared by all anchors.

The empirical objective (crlrepro.learning.losses.log_mean_exp_loss) is

    L̂_S(s) = (1/n) Σ_i τ log (1/m) Σ_j exp((s(x_i, y'_ij) − s(x_i, y_i)) / τ)

(y'_ij = y'_j under SSCRL), the population loss L(s) = E τ log E_{y'} exp((s(x,y') − s(x,y))/τ) is
computed by quadrature (crlrepro.theory.oracles), and the generalization gap of a trained ŵ is
L(ŵ) − L̂_S(ŵ). Thm 4.5 bounds sup_w |L(s_w) − L̂_S(s_w)| by O(1/m + 1/√n) under SCRL and by
O(1/√m + 1/√n) under SSCRL.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

from crlrepro.learning.metrics import recall_at_k
from crlrepro.theory.gmm import LatentClassGMM
from crlrepro.theory.numerics import log_sum_exp, loglog_slope
from crlrepro.theory.oracles import excess_contrastive_risk, population_contrastive_loss, retrieval_auc
from crlrepro.theory.quadrature import trapezoid_mixture

__all__ = [
    "BUDGET_NOT_APPLICABLE",
    "SLOPES_NOT_APPLICABLE",
    "budget_summary",
    "deviation_rates",
    "DEVIATIONS",
    "draw_negative_sample",
    "empirical_contrastive_loss",
    "evaluate_trained_model",
    "fit_budget_model",
    "fixed_score_deviations",
    "fixed_score_family",
    "FixedScore",
    "gallery_recall",
    "in_batch_inner_draws",
    "IN_BATCH_SLOPE_M",
    "inner_term_draws",
    "log_partition",
    "nearest_split",
    "NegativeSample",
    "outer_term_draws",
    "recommended_split",
    "REGIMES",
    "run_negative_sampling",
    "sample_objective",
    "scaling_slope",
    "scaling_slopes",
    "SHAPES",
    "SUPREMUM",
    "sweep_rows",
    "train_on_sample",
    "train_on_samples",
    "trained_fixed_scores",
    "two_tower_score",
]

# torch (networks, losses, the trainer) is imported in the functions that train or score a model, so the rules
# that only fit and summarise the runs' tables (scaling, budget, deviation) start without it; pandas is imported
# where a table is built.
if TYPE_CHECKING:
    import pandas as pd
    import torch

    from crlrepro.learning.networks import TwoTower
    from crlrepro.learning.train import TrainSettings

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


def sample_objective(
    model: TwoTower, x: torch.Tensor, y: torch.Tensor, negatives: torch.Tensor, regime: str, tau: float
) -> torch.Tensor:
    """L̂ (module docstring) of ``model`` on anchors x, positives y and their negatives: SCRL with
    :func:`crlrepro.learning.losses.info_nce_independent`, SSCRL with :func:`crlrepro.learning.losses.info_nce_shared`."""
    import torch

    from crlrepro.learning.losses import info_nce_independent, info_nce_shared

    fx = model.f(x)
    lead = x.shape[:-2]  # an ensemble's member dimension (crlrepro.learning.networks.TwoTowerEnsemble), or none
    if _check_regime(regime) == "scrl":
        n, m = negatives.shape[-3:-1]
        g = model.g(torch.cat([y, negatives.reshape(*lead, n * m, -1)], dim=-2))
        return info_nce_independent(fx, g[..., :n, :], g[..., n:, :].reshape(*lead, n, m, -1), tau)
    g = model.g(torch.cat([y, negatives], dim=-2))
    n = y.shape[-2]
    return info_nce_shared(fx, g[..., :n, :], g[..., n:, :], tau)


def empirical_contrastive_loss(model: TwoTower, sample: NegativeSample, tau: float, chunk_pairs: int = 1 << 20) -> float:
    """L̂_S(ŵ) on the whole training sample, in float64 on the CPU, over chunks of anchors (about
    ``chunk_pairs`` anchor–negative scores at a time, so memory stays bounded for any n·m)."""
    import torch

    from crlrepro.learning.networks import TwoTower

    frozen = TwoTower(**model.architecture).double()
    frozen.load_state_dict({k: v.detach().cpu().double() for k, v in model.state_dict().items()})
    x, y, neg = (torch.from_numpy(np.asarray(a, dtype=np.float64)) for a in (sample.x, sample.y, sample.negatives))
    step = max(1, chunk_pairs // sample.m)
    total = 0.0
    with torch.no_grad():
        for start in range(0, sample.n, step):
            part = slice(start, start + step)
            negatives = neg[part] if sample.regime == "scrl" else neg
            rows = x[part].shape[0]
            total += rows * float(sample_objective(frozen.eval(), x[part], y[part], negatives, sample.regime, tau))
    return total / sample.n


def train_on_sample(
    sample: NegativeSample,
    tau: float,
    settings: TrainSettings,
    *,
    dim: int,
    hidden: int,
    layers: int,
    score_bound: float | None,
    steps: int,
) -> tuple[TwoTower, list]:
    """Minimise L̂_S over a two-tower model with the project's trainer: minibatches of anchors (each with
    its own negatives under SCRL, all with the whole pool under SSCRL) for about ``steps`` AdamW steps
    (whole epochs: ⌈steps / ⌊n / batch⌋⌉ of them, so small samples are revisited more often). The one-member
    case of :func:`train_on_samples`."""
    ((model, history),) = train_on_samples(
        [sample], [settings.seed], tau, settings, dim=dim, hidden=hidden, layers=layers, score_bound=score_bound, steps=steps
    )
    return model, history


def train_on_samples(
    samples: list[NegativeSample],
    seeds,
    tau: float,
    settings: TrainSettings,
    *,
    dim: int,
    hidden: int,
    layers: int,
    score_bound: float | None,
    steps: int,
) -> list[tuple[TwoTower, list]]:
    """:func:`train_on_sample` for several seeds at once, each on its own sample (all of one regime, n and m): one
    batched ensemble (crlrepro.learning.networks.TwoTowerEnsemble) whose member k is initialised under seeds[k], shuffled
    by seeds[k]'s generators and trained on samples[k], all members in one optimiser step. Returns each member's
    (model, history); a member's training differs from a lone one's only in the last bits of batched matmuls."""
    import torch

    from crlrepro.learning.networks import TwoTower, TwoTowerEnsemble
    from crlrepro.learning.train import seed_everything, train

    seeds = [int(seed) for seed in seeds]
    if len(samples) != len(seeds) or not samples:
        raise ValueError(f"need one sample per seed, got {len(samples)} samples and {len(seeds)} seeds")
    shapes = {(s.regime, s.x.shape, s.y.shape, s.negatives.shape) for s in samples}
    if len(shapes) != 1:
        raise ValueError(f"an ensemble's samples must share regime and shapes, got {sorted(map(str, shapes))}")
    sample = samples[0]
    batch = min(settings.batch_size, sample.n)
    per_epoch = sample.n // batch
    epochs = -(-int(steps) // per_epoch)
    settings = replace(settings, batch_size=batch, epochs=epochs)
    members = []
    for seed in seeds:  # each member's initialisation is the one it would get alone
        seed_everything(seed)
        members.append(TwoTower(sample.x.shape[1], sample.y.shape[1], dim, hidden=hidden, layers=layers, score_bound=score_bound))
    model = TwoTowerEnsemble(members)
    stack = lambda field: torch.as_tensor(np.stack([np.asarray(getattr(s, field), dtype=np.float32) for s in samples]))  # noqa: E731
    x, y, neg = stack("x"), stack("y"), stack("negatives")
    if sample.regime == "scrl":
        data = [x, y, neg]

        def batch_loss(model, batch, rng):
            return sample_objective(model, *batch, "scrl", tau)
    else:
        data = [x, y]
        pool = neg.to(settings.device)

        def batch_loss(model, batch, rng):
            return sample_objective(model, *batch, pool, "sscrl", tau)

    histories = train(model, batch_loss, data, settings, members=seeds)
    return [(model.member(k), history) for k, history in enumerate(histories)]


def gallery_recall(score, gmm: LatentClassGMM, gallery_size: int, galleries: int, rng: np.random.Generator) -> float:
    """Recall@1 of ``score`` over ``galleries`` independent galleries of ``gallery_size`` fresh pairs:
    each x_i is a query whose match y_i hides among the gallery's other targets (crlrepro.learning.metrics.recall_at_k)."""
    x, y, _ = gmm.sample(int(gallery_size) * int(galleries), rng)
    x, y = x.reshape(galleries, gallery_size), y.reshape(galleries, gallery_size)
    return float(np.mean([recall_at_k(score(x[k], y[k]), 1) for k in range(int(galleries))]))


def evaluate_trained_model(
    model: TwoTower,
    sample: NegativeSample,
    gmm: LatentClassGMM,
    tau: float,
    *,
    nodes: int,
    inner_nodes: int,
    gallery_size: int,
    galleries: int,
    seed: int,
) -> dict:
    """C3/C4 measurements of a trained ŵ: empirical_loss L̂_S(ŵ) on its own training sample,
    population_loss L(ŵ) and excess_risk L(ŵ) − L* by quadrature (``nodes`` per view), the gap
    L(ŵ) − L̂_S(ŵ), the retrieval AUC E(ŵ) by quadrature and recall@1 over fresh galleries."""
    from crlrepro.learning.networks import numpy_score

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


def run_negative_sampling(
    gmm: LatentClassGMM, regime: str, n: int, m: int, seeds, tau: float, scaling: dict, device: str = "cpu"
) -> list[dict]:
    """One C3/C4 point under the config's ``consistency.scaling`` block, for every seed: draw S (generator seeded
    by (seed, n, m, regime)), train ŵ on it (all seeds as one ensemble, :func:`train_on_samples`), evaluate each
    with :func:`evaluate_trained_model`. One row per seed."""
    from crlrepro.learning.train import TrainSettings

    seeds = [int(seed) for seed in seeds]
    samples = [
        draw_negative_sample(
            gmm, regime, n, m, np.random.default_rng([seed, int(n), int(m), REGIMES.index(_check_regime(regime))])
        )
        for seed in seeds
    ]
    settings = TrainSettings(
        epochs=1,
        batch_size=scaling["batch_size"],
        learning_rate=scaling["learning_rate"],
        weight_decay=scaling["weight_decay"],
        seed=seeds[0],
        device=device,
        name=f"{regime} n={n} m={m}",
    )
    trained = train_on_samples(
        samples,
        seeds,
        tau,
        settings,
        dim=scaling["dim"],
        hidden=scaling["hidden"],
        layers=scaling["layers"],
        score_bound=scaling["score_bound"],
        steps=scaling["steps"],
    )
    rows = []
    for seed, sample, (model, history) in zip(seeds, samples, trained, strict=True):
        row = {
            "regime": regime,
            "n": int(n),
            "m": int(m),
            "seed": seed,
            "steps": len(history) * (int(n) // min(int(scaling["batch_size"]), int(n))),
        }
        row.update(
            evaluate_trained_model(
                model,
                sample,
                gmm,
                tau,
                nodes=scaling["nodes"],
                inner_nodes=scaling["inner_nodes"],
                gallery_size=scaling["gallery_size"],
                galleries=scaling["galleries"],
                seed=seed,
            )
        )
        rows.append(row)
    return rows


def sweep_rows(runs: pd.DataFrame, sweep: str, points, seeds, regimes) -> pd.DataFrame:
    """One sweep's rows from the run tables of every sweep: the rows of ``runs`` at the sweep's (n, m)
    ``points``, labelled with the sweep. A point two sweeps share is trained once (one row per regime and seed,
    :func:`crlrepro.studies.scaling.sweep_owner`) and appears in each sweep's rows. Every point must be there for every
    one of ``regimes`` with exactly ``seeds``, and no (regime, n, m, seed) twice."""
    keys = ["regime", "n", "m", "seed"]
    twice = runs[runs.duplicated(keys, keep=False)]
    if len(twice):
        raise ValueError(
            f"the run tables hold (regime, n, m, seed) more than once: {twice[keys].drop_duplicates().values.tolist()}"
        )
    wanted, seeds = sorted({(int(n), int(m)) for n, m in points}), sorted(int(seed) for seed in seeds)
    for regime in regimes:
        for n, m in wanted:
            at = (runs["regime"] == regime) & (runs["n"] == n) & (runs["m"] == m)
            found = sorted(int(seed) for seed in runs.loc[at, "seed"])
            if found != seeds:
                raise ValueError(
                    f"sweep {sweep}, regime {regime}: (n, m) = ({n}, {m}) has seeds {found} in the run tables, expected {seeds}"
                )
    asked, at_points = set(regimes), set(wanted)
    keep = [
        regime in asked and (int(n), int(m)) in at_points
        for regime, n, m in zip(runs["regime"], runs["n"], runs["m"], strict=True)
    ]
    return runs[keep].assign(sweep=sweep).reset_index(drop=True)


def scaling_slope(runs, axis: str, value: str, bootstrap: int, rng: np.random.Generator, level: float = 0.95) -> dict:
    """The log-log slope of mean_seeds |value| against ``axis`` (n or m), with a percentile bootstrap
    interval that resamples the seeds at every point of the sweep (|·|: the theorem bounds |L − L̂_S|)."""
    groups = [(float(k), np.abs(g[value].to_numpy(dtype=float))) for k, g in runs.groupby(axis)]
    if len(groups) < 2:
        raise ValueError(f"a slope in {axis} needs at least two values of {axis}, got {len(groups)}")
    xs = np.array([k for k, _ in groups])
    point = float(loglog_slope(xs, [v.mean() for _, v in groups]))
    draws = np.stack(
        [np.mean(v[rng.integers(0, v.size, size=(bootstrap, v.size))], axis=1) for _, v in groups], axis=1
    )  # (bootstrap, points)
    slopes = loglog_slope(xs, np.maximum(draws, np.finfo(float).tiny))
    low, high = np.quantile(slopes, [(1 - level) / 2, (1 + level) / 2])
    return {"slope": point, "low": float(low), "high": float(high), "points": len(groups)}


# Columns where an empty cell means "not applicable" (crlrepro.runtime.artifacts.nonfinite_problems): the predicted
# slope of a quantity the theory predicts none for; a budget fit with no minimum to recommend (b, c ≤ 0).
SLOPES_NOT_APPLICABLE = ("predicted",)
BUDGET_NOT_APPLICABLE = ("recommended_m", "recommended_n")


def scaling_slopes(table, predicted: dict, bootstrap: int, seed: int) -> pd.DataFrame:
    """C3: for every regime, the log-log slopes of mean |gap| in m (the m sweep) and in n (the n sweep)
    with bootstrap intervals (:func:`scaling_slope`), beside the ``predicted`` slopes
    {"m": {regime: slope}, "n": {regime: slope}}; the excess risk's slopes are given too."""
    import pandas as pd

    rng = np.random.default_rng(seed)
    rows = []
    for (regime, sweep), runs in table.groupby(["regime", "sweep"], sort=True):
        for value in ("gap", "excess_risk"):
            fit = scaling_slope(runs, sweep, value, bootstrap, rng)
            rows.append(
                {
                    "regime": regime,
                    "axis": sweep,
                    "quantity": value,
                    **fit,
                    "predicted": float(predicted[sweep][regime]) if value == "gap" else float("nan"),
                }
            )
    return pd.DataFrame(rows)


SHAPES = {"scrl": "a + b/m + c/√n", "sscrl": "a + b/√m + c/√n"}  # Thm 4.5's bound per regime


def _inner_rate(regime: str, m):
    """The inner term's decay in m under each regime: 1/m (SCRL) or 1/√m (SSCRL)."""
    m = np.asarray(m, dtype=float)
    return 1.0 / m if _check_regime(regime) == "scrl" else 1.0 / np.sqrt(m)


def fit_budget_model(m, n, excess, regime: str) -> dict:
    """Fit the shape of Thm 4.5's bound for ``regime`` (``SHAPES``: excess ≈ a + b/m + c/√n under SCRL,
    a + b/√m + c/√n under SSCRL) by non-negative least squares on relative residuals,
    min_{a,b,c ≥ 0} Σ_k ((e_k − a − b·r(m_k) − c/√n_k) / e_k)²: the excess risks of a budget grid span
    orders of magnitude, and plain least squares would fit only the largest ones (and return a negative
    floor a). Also returns the rms relative error of the fit."""
    from scipy.optimize import nnls

    m, n, excess = (np.asarray(v, dtype=float) for v in (m, n, excess))
    if np.any(excess <= 0):
        raise ValueError("excess risks must be > 0 for a relative fit")
    design = np.column_stack([np.ones_like(m), _inner_rate(regime, m), 1.0 / np.sqrt(n)])
    (a, b, c), _ = nnls(design / excess[:, None], np.ones_like(excess))
    relative = (design @ np.array([a, b, c]) - excess) / excess
    return {"a": float(a), "b": float(b), "c": float(c), "relative_rms": float(np.sqrt(np.mean(relative**2)))}


def recommended_split(b: float, c: float, budget: int, regime: str) -> float:
    """The m in [1, N] minimising the fitted bound at a budget of N = n·m anchor–negative pairs scored
    (both regimes score n·m pairs; SCRL also draws n·m negatives, SSCRL only m):

        SCRL:  d/dm [b/m + c√m/√N] = 0   ⇔  m* = (2b√N/c)^{2/3},
        SSCRL: d/dm [b/√m + c√m/√N] = 0  ⇔  m* = b√N/c          (b, c > 0),

    clipped to [1, N]. With b ≤ 0 < c more anchors always help (m = 1); with c ≤ 0 < b more
    negatives always help (m = N); with b, c ≤ 0 the fit has no minimum to offer (NaN)."""
    if b > 0 and c > 0:
        root = np.sqrt(budget) / c
        m_star = (2.0 * b * root) ** (2.0 / 3.0) if _check_regime(regime) == "scrl" else b * root
        return float(np.clip(m_star, 1.0, budget))
    if b <= 0 < c:
        return 1.0
    if c <= 0 < b:
        return float(budget)
    return float("nan")


def nearest_split(ms, m_star: float) -> int:
    """The grid split nearest m* on a log scale (the grid's spacing is geometric)."""
    ms = np.asarray(sorted(ms), dtype=float)
    if not np.isfinite(m_star):
        raise ValueError("the fit recommends no split (m* is NaN)")
    return int(ms[np.argmin(np.abs(np.log(ms) - np.log(m_star)))])


def budget_summary(table, total: int) -> pd.DataFrame:
    """C4 per regime: the measured best split (highest mean AUC, and lowest mean excess risk, over
    seeds), the regime's fit (``SHAPES``) on all runs, the split m* it recommends for N and the grid
    split nearest it."""
    import pandas as pd

    rows = []
    for regime, runs in table.groupby("regime", sort=True):
        means = runs.groupby("m")[["auc", "excess_risk"]].mean()
        fit = fit_budget_model(runs["m"], runs["n"], runs["excess_risk"], regime)
        m_star = recommended_split(fit["b"], fit["c"], total, regime)
        rows.append(
            {
                "regime": regime,
                "shape": SHAPES[regime],
                "total": int(total),
                "best_m_auc": int(means["auc"].idxmax()),
                "best_m_excess": int(means["excess_risk"].idxmin()),
                "smallest_m": int(means.index.min()),
                "largest_m": int(means.index.max()),
                **fit,
                "recommended_m": m_star,
                "recommended_n": total / m_star if np.isfinite(m_star) else float("nan"),
                "nearest_m": nearest_split(means.index, m_star) if np.isfinite(m_star) else -1,
            }
        )
    return pd.DataFrame(rows)


# -- C3 at the theorem's mechanism: the deviation of L̂_S from L for scores held fixed ------------------------
#
# Thm 4.5 splits L̂_S(s) − L(s) into an inner term, the error of the m-negative log-mean-exp at each anchor,
#
#     I_S(s) = (1/n) Σ_i τ [ log (1/m) Σ_j e^{s(x_i, y'_ij)/τ} − log Z_s(x_i) ],   Z_s(x) = E_{y'~P_Y} e^{s(x, y')/τ},
#
# and an outer term, the anchor average of a fixed function ℓ_s(x, y) = τ log Z_s(x) − s(x, y) around its mean L(s),
#
#     O_S(s) = (1/n) Σ_i ℓ_s(x_i, y_i) − L(s),        L̂_S(s) − L(s) = I_S(s) + O_S(s).
#
# As n → ∞ the inner term tends to E_x[τ log Ẑ(x)/Z(x)] with Ẑ the m-sample mean: under SCRL every anchor has its
# own negatives, so the pools' errors average out and only the bias E log Ẑ/Z = O(1/m) remains (Jensen, second
# order); under SSCRL one pool serves all anchors, its first-order error (1/m) Σ_j E_x[e^{s(x, y'_j)/τ}/Z(x)] − 1
# does not average out and is O(1/√m). The outer term is O(1/√n) (m plays no part in it).


@dataclass(frozen=True)
class FixedScore:
    """A score held fixed while the sample varies: ``pairwise(x, y)`` -> (len x, len y), ``aligned(x, y)`` -> (n,)."""

    name: str
    pairwise: object
    aligned: object


def two_tower_score(name: str, model: TwoTower) -> FixedScore:
    """A trained two-tower model s(x, y) = f(x)ᵀg(y) as a fixed score, evaluated from one float64 copy of the model
    on the CPU made here: a snapshot (later changes to ``model`` are not seen; the model itself is left as it is)."""
    from crlrepro.learning.networks import numpy_towers

    towers = numpy_towers(model)

    def pairwise(x, y):
        return towers["f"](np.asarray(x, dtype=float)) @ towers["g"](np.asarray(y, dtype=float)).T

    def aligned(x, y):
        return np.sum(towers["f"](np.asarray(x, dtype=float)) * towers["g"](np.asarray(y, dtype=float)), axis=1)

    return FixedScore(name, pairwise, aligned)


def fixed_score_family(gmm: LatentClassGMM, tau: float, score_bound: float, trained=()) -> list[FixedScore]:
    """The scores of the C3 mechanism study: the Bayes score τ·PMI; the Bayes ranking at half the scale,
    (τ/2)·PMI; τ·PMI of a misspecified mixture (every mean halved); the monotone B·tanh(x)·tanh(y); and the
    ``trained`` ones (:func:`two_tower_score`). All are bounded above; the PMI-based ones are unbounded below
    only far in the tails, where e^{s/τ} vanishes."""
    shrunk = LatentClassGMM(gmm.weights, 0.5 * gmm.mean_x, gmm.std_x, 0.5 * gmm.mean_y, gmm.std_y)
    bound = float(score_bound)
    family = [
        FixedScore("bayes", lambda x, y: tau * gmm.pmi(x, y), lambda x, y: tau * gmm.pmi_pairs(x, y)),
        FixedScore("bayes_half_scale", lambda x, y: 0.5 * tau * gmm.pmi(x, y), lambda x, y: 0.5 * tau * gmm.pmi_pairs(x, y)),
        FixedScore("misspecified", lambda x, y: tau * shrunk.pmi(x, y), lambda x, y: tau * shrunk.pmi_pairs(x, y)),
        FixedScore(
            "bilinear", lambda x, y: bound * np.outer(np.tanh(x), np.tanh(y)), lambda x, y: bound * np.tanh(x) * np.tanh(y)
        ),
    ]
    return family + list(trained)


def _anchor_rule(gmm: LatentClassGMM, nodes: int):
    """P_X's quadrature rule without the nodes whose weight is below 1e-14 of the largest (far tails)."""
    rule = trapezoid_mixture(gmm.weights, gmm.mean_x, gmm.std_x, nodes)  # the x rule alone, without the PMI matrix
    keep = rule.weights > 1e-14 * rule.weights.max()
    return rule.nodes[keep], rule.weights[keep] / rule.weights[keep].sum()


def log_partition(score: FixedScore, gmm: LatentClassGMM, x, tau: float, nodes: int, chunk_pairs: int = 1 << 22) -> np.ndarray:
    """log Z_s(x) = log E_{y'~P_Y} e^{s(x, y')/τ} at every x, by the trapezoidal rule with ``nodes`` points for
    P_Y (log-sum-exp), over chunks of x. Smooth scores converge geometrically in ``nodes``; a ReLU network's
    kinks make it O(h²), so the mechanism study uses thousands of nodes (consistency.deviation.partition_nodes)."""
    y_rule = trapezoid_mixture(gmm.weights, gmm.mean_y, gmm.std_y, nodes)
    x = np.asarray(x, dtype=float)
    step = max(1, chunk_pairs // len(y_rule))
    return np.concatenate(
        [
            log_sum_exp(score.pairwise(x[i : i + step], y_rule.nodes) / tau + np.log(y_rule.weights)[None, :], axis=1)
            for i in range(0, len(x), step)
        ]
    )


def _joint_mean(score: FixedScore, gmm: LatentClassGMM, nodes: int, chunk_pairs: int = 1 << 22) -> float:
    """E_{(x,y)~p} s(x, y) on the product trapezoidal rule with ``nodes`` points per view, p = Σ_k π_k N N."""
    x_rule = trapezoid_mixture(gmm.weights, gmm.mean_x, gmm.std_x, nodes)
    y_rule = trapezoid_mixture(gmm.weights, gmm.mean_y, gmm.std_y, nodes)
    step = max(1, chunk_pairs // nodes)
    total = mass = 0.0
    for i in range(0, nodes, step):
        xs = x_rule.nodes[i : i + step]
        joint = x_rule.weights[i : i + step, None] * y_rule.weights[None, :] * np.exp(gmm.pmi(xs, y_rule.nodes))
        total += float(np.sum(joint * score.pairwise(xs, y_rule.nodes)))
        mass += float(joint.sum())
    return total / mass


def inner_term_draws(
    scores,
    gmm: LatentClassGMM,
    tau: float,
    ms,
    pools: int,
    seed: int,
    nodes: int,
    partition_nodes: int,
    chunk_pairs: int = 1 << 22,
) -> pd.DataFrame:
    """The inner term at n → ∞ (anchors integrated by quadrature over P_X) for ``pools`` independent pools
    of m negatives y' ~ P_Y at every m, the same pools for every score (module comment above):

        inner(pool)    = E_x τ log Ẑ(x)/Z(x),                        Ẑ(x) = (1/m) Σ_j e^{s(x, y'_j)/τ},
        inner_cv(pool) = E_x τ [log Ẑ(x)/Z(x) − (Ẑ(x)/Z(x) − 1)].

    Under SSCRL the deviation is ``inner`` of the one shared pool. Under SCRL it is the mean of ``inner`` over
    pools (every anchor has its own); ``inner_cv`` has that same mean (E Ẑ/Z = 1: a control variate) with a
    variance O(1/m²) instead of O(1/m), so the bias is resolved at every m. Anchors: P_X's rule with ``nodes``
    points; Z(x): :func:`log_partition` with ``partition_nodes`` (its error would floor the bias at large m).
    One row per (m, pool, score)."""
    import pandas as pd

    x, wx = _anchor_rule(gmm, nodes)
    log_z = {s.name: log_partition(s, gmm, x, tau, partition_nodes) for s in scores}
    rows = []
    for m in sorted(int(m) for m in ms):
        rng = np.random.default_rng([int(seed), m])
        _, negatives, _ = gmm.sample(pools * m, rng)
        negatives = negatives.reshape(pools, m)
        step = max(1, chunk_pairs // (len(x) * m))
        for score in scores:
            inner, inner_cv = [], []
            for start in range(0, pools, step):
                block = negatives[start : start + step]
                s = score.pairwise(x, block.ravel()).reshape(len(x), len(block), m) / tau
                ratio = log_sum_exp(s, axis=2) - np.log(m) - log_z[score.name][:, None]  # log Ẑ/Z, (x, pools)
                inner.append(tau * (wx @ ratio))
                inner_cv.append(tau * (wx @ (ratio - np.expm1(ratio))))
            inner, inner_cv = np.concatenate(inner), np.concatenate(inner_cv)
            rows.append(
                pd.DataFrame({"m": m, "pool": np.arange(pools), "score": score.name, "inner": inner, "inner_cv": inner_cv})
            )
    return pd.concat(rows, ignore_index=True)


def _log_partition_tables(scores, gmm: LatentClassGMM, tau: float, partition_nodes: int, table_points: int):
    """log Z_s (:func:`log_partition`, ``partition_nodes``) on ``table_points`` trapezoidal nodes of P_X, for
    linear interpolation at sampled anchors. Returns (P_X's rule, {score name: table})."""
    x_rule = trapezoid_mixture(gmm.weights, gmm.mean_x, gmm.std_x, table_points)
    return x_rule, {s.name: log_partition(s, gmm, x_rule.nodes, tau, partition_nodes) for s in scores}


def in_batch_inner_draws(
    scores,
    gmm: LatentClassGMM,
    tau: float,
    ms,
    batches: int,
    seed: int,
    partition_nodes: int,
    table_points: int = 4001,
    block_pairs: int = 1 << 20,
) -> pd.DataFrame:
    """The inner term with in-batch negatives (CLIP, SimCLR): a batch of m + 1 pairs (x_i, y_i) ~ p in which
    anchor i's negatives are the other m positives, for ``batches`` independent batches at every m:

        inner(batch)    = (1/(m+1)) Σ_i τ log Ẑ_i/Z(x_i),          Ẑ_i = (1/m) Σ_{j≠i} e^{s(x_i, y_j)/τ},
        inner_cv(batch) = (1/(m+1)) Σ_i τ [log Ẑ_i/Z(x_i) − (Ẑ_i/Z(x_i) − 1)].

    Anchor i's negatives are m iid P_Y draws independent of (x_i, y_i), so E inner is SCRL's bias at m exactly
    and E[Ẑ_i/Z(x_i) − 1] = 0 (the control variate stays valid); what a batch's anchors share averages out over
    the n/(m+1) batches of a sample of n anchors, so as n → ∞ the deviation is that bias. log Z_s at the sampled
    anchors: a :func:`log_partition` table on ``table_points`` nodes of P_X, interpolated linearly. Batches are
    scored in blocks of about ``block_pairs`` pairs (one pairwise call, its diagonal blocks kept).
    One row per (m, pool = batch, score)."""
    import pandas as pd

    ms = sorted(int(m) for m in ms)
    if not ms or ms[0] < 1:
        raise ValueError(f"in-batch negatives need m >= 1 (batches of m + 1 pairs), got ms = {ms}")
    x_rule, tables = _log_partition_tables(scores, gmm, tau, partition_nodes, table_points)
    rows = []
    for m in ms:
        size = m + 1
        rng = np.random.default_rng([int(seed), m, 2])
        x, y, _ = gmm.sample(batches * size, rng)
        x, y = x.reshape(batches, size), y.reshape(batches, size)
        per_block = max(1, int(np.sqrt(block_pairs)) // size)
        off_diagonal = ~np.eye(size, dtype=bool)
        for score in scores:
            log_z = np.interp(x, x_rule.nodes, tables[score.name])  # (batches, m + 1)
            inner, inner_cv = [], []
            for start in range(0, batches, per_block):
                xs, ys = x[start : start + per_block], y[start : start + per_block]
                k = len(xs)
                s = score.pairwise(xs.ravel(), ys.ravel()).reshape(k, size, k, size)[np.arange(k), :, np.arange(k), :] / tau
                s = np.where(off_diagonal, s, -np.inf)  # (k, anchors, candidates): the anchor's own positive is no negative
                ratio = log_sum_exp(s, axis=2) - np.log(m) - log_z[start : start + k]
                inner.append(tau * ratio.mean(axis=1))
                inner_cv.append(tau * (ratio - np.expm1(ratio)).mean(axis=1))
            rows.append(
                pd.DataFrame(
                    {
                        "m": m,
                        "pool": np.arange(batches),
                        "score": score.name,
                        "inner": np.concatenate(inner),
                        "inner_cv": np.concatenate(inner_cv),
                    }
                )
            )
    return pd.concat(rows, ignore_index=True)


def outer_term_draws(
    scores,
    gmm: LatentClassGMM,
    tau: float,
    ns,
    draws: int,
    seed: int,
    partition_nodes: int,
    table_points: int = 4001,
    chunk_pairs: int = 1 << 21,
) -> pd.DataFrame:
    """The outer term O_S(s) = (1/n) Σ_i ℓ_s(x_i, y_i) − L(s), ℓ_s = τ log Z_s(x) − s(x, y), for ``draws``
    independent samples of n pairs at every n (negatives integrated exactly: m = ∞, where SCRL and SSCRL
    coincide), the same samples for every score. log Z_s (:func:`log_partition`, ``partition_nodes``) is
    tabulated on ``table_points`` equispaced points of P_X's support and interpolated linearly; L(s) = E_p ℓ_s
    is the trapezoidal mean of that table over P_X minus E_p s on the product rule with ``partition_nodes``
    points per view, so each O is centred to well below its spread at the largest n."""
    import pandas as pd

    x_rule, tables = _log_partition_tables(scores, gmm, tau, partition_nodes, table_points)
    table_x = x_rule.nodes
    means = {s.name: float(tau * x_rule.weights @ tables[s.name]) - _joint_mean(s, gmm, partition_nodes) for s in scores}
    rows = []
    for n in sorted(int(n) for n in ns):
        rng = np.random.default_rng([int(seed), n, 1])
        step = max(1, chunk_pairs // n)  # draws per batch: memory stays bounded for any n (a constant, not the machine's)
        outer = {s.name: [] for s in scores}
        for start in range(0, draws, step):
            count = min(step, draws - start)
            x, y, _ = gmm.sample(count * n, rng)
            for s in scores:
                ell = tau * np.interp(x, table_x, tables[s.name]) - s.aligned(x, y)
                outer[s.name].append(ell.reshape(count, n).mean(axis=1) - means[s.name])
        for s in scores:
            rows.append(pd.DataFrame({"n": n, "draw": np.arange(draws), "score": s.name, "outer": np.concatenate(outer[s.name])}))
    return pd.concat(rows, ignore_index=True)


SUPREMUM = "sup"  # the family's supremum, sup_s |deviation| (Thm 4.5 bounds sup_w |L − L̂_S|)
DEVIATIONS = (  # (regime, axis, draws table, column of the draws, statistic)
    ("scrl", "m", "inner", "inner_cv", "bias"),  # |E_pools inner|: the anchors average the pools out
    ("sscrl", "m", "inner", "inner", "spread"),  # E_pool |inner|: one pool serves every anchor
    ("inbatch", "m", "inbatch", "inner_cv", "bias"),  # |E_batches inner|: n/(m+1) batches average out
    ("both", "n", "outer", "outer", "spread"),  # E_sample |outer|: m = ∞, the regimes coincide
)
# In-batch negatives at n = ∞: each anchor's m negatives are iid P_Y draws independent of it, so the deviation is
# SCRL's bias, O(1/m) (in_batch_inner_draws). Derived here; the paper files in-batch negatives under SSCRL's O(1/√m).
IN_BATCH_SLOPE_M = -1.0


def _deviation(values: np.ndarray, statistic: str) -> np.ndarray:
    """values (..., scores, draws) -> (..., scores + 1): each score's deviation, then the family's supremum.
    ``bias``: |mean over draws| per score, the largest of them; ``spread``: mean |value| per score and
    the mean over draws of the largest |value| (the supremum inside the expectation)."""
    if statistic == "bias":
        per = np.abs(values.mean(axis=-1))
        return np.concatenate([per, per.max(axis=-1, keepdims=True)], axis=-1)
    per = np.abs(values).mean(axis=-1)
    sup = np.abs(values).max(axis=-2).mean(axis=-1)
    return np.concatenate([per, sup[..., None]], axis=-1)


def _common(by_regime: dict) -> float:
    """The one slope the theory predicts for every regime (m = ∞, where the regimes coincide)."""
    values = {float(v) for v in by_regime.values()}
    if len(values) != 1:
        raise ValueError(f"the n-slope at m = ∞ must be the same for every regime, got {by_regime}")
    return values.pop()


def deviation_rates(
    draws: dict, *, fit_from: int, bootstrap: int, seed: int, predicted: dict, level: float = 0.95
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """C3's mechanism: per regime and axis (``DEVIATIONS``), every score's deviation and the family's
    supremum at each m (or n) with percentile bootstrap intervals (draws resampled independently at each
    point), and the log-log slope over m ≥ ``fit_from`` (every n) with its bootstrap interval, beside the
    ``predicted`` slopes {"m": {regime: slope}, "n": {regime: slope}}. ``draws``: {"inner":
    :func:`inner_term_draws`, "inbatch": :func:`in_batch_inner_draws`, "outer": :func:`outer_term_draws`}.
    Returns (deviations, slopes)."""
    import pandas as pd

    missing = sorted({source for _, _, source, _, _ in DEVIATIONS} - set(draws))
    if missing:
        raise ValueError(f"deviation_rates needs the draws tables {missing}; got {sorted(draws)}")
    rng = np.random.default_rng(seed)
    tail = (1 - level) / 2
    points, slopes = [], []
    for regime, axis, source, column, statistic in DEVIATIONS:
        table = draws[source]
        names = list(dict.fromkeys(table["score"]))
        cube = table.pivot_table(index=[axis, "score"], columns="pool" if axis == "m" else "draw", values=column)
        ats = sorted(cube.index.get_level_values(0).unique())
        values = np.stack([cube.loc[a].loc[names].to_numpy() for a in ats])  # (points, scores, draws)
        point = _deviation(values, statistic)
        picks = rng.integers(0, values.shape[2], size=(len(ats), bootstrap, values.shape[2]))
        boot = np.stack(
            [_deviation(np.moveaxis(values[k][:, picks[k]], 0, 1), statistic) for k in range(len(ats))], axis=1
        )  # (bootstrap, points, scores + 1)
        low, high = np.quantile(boot, [tail, 1 - tail], axis=0)
        for k, at in enumerate(ats):
            for j, name in enumerate(names + [SUPREMUM]):
                points.append(
                    {
                        "regime": regime,
                        "axis": axis,
                        "at": int(at),
                        "score": name,
                        "deviation": point[k, j],
                        "low": low[k, j],
                        "high": high[k, j],
                        "draws": values.shape[2],
                    }
                )
        used = np.array([a >= fit_from if axis == "m" else True for a in ats])
        xs = np.array(ats, dtype=float)[used]
        if used.sum() < 2:
            raise ValueError(f"a slope in {axis} needs two values at or above fit_from = {fit_from}, got {xs.tolist()}")
        fitted = loglog_slope(xs, np.moveaxis(point[used], 0, -1))
        with np.errstate(divide="ignore", invalid="ignore"):
            resampled = loglog_slope(xs, np.moveaxis(np.maximum(boot[:, used], np.finfo(float).tiny), 1, -1))
        s_low, s_high = np.quantile(resampled, [tail, 1 - tail], axis=0)
        expected = float(predicted["m"][regime]) if axis == "m" else _common(predicted["n"])
        for j, name in enumerate(names + [SUPREMUM]):
            slopes.append(
                {
                    "regime": regime,
                    "axis": axis,
                    "score": name,
                    "slope": float(fitted[j]),
                    "low": float(s_low[j]),
                    "high": float(s_high[j]),
                    "fit_from": int(xs.min()),
                    "fit_to": int(xs.max()),
                    "points": int(used.sum()),
                    "predicted": expected,
                }
            )
    return pd.DataFrame(points), pd.DataFrame(slopes)


def trained_fixed_scores(gmm: LatentClassGMM, tau: float, model: dict, n: int, m: int, seed: int, device: str = "cpu"):
    """Two trained members of the C3 family: the ``consistency.scaling`` model (``model``: dim, hidden, layers,
    score_bound, batch_size, learning_rate, weight_decay, steps) trained on an SCRL and on an SSCRL sample of
    n anchors and m negatives, then held fixed (:func:`two_tower_score`)."""
    from crlrepro.learning.train import TrainSettings

    scores = []
    for regime in REGIMES:
        rng = np.random.default_rng([int(seed), int(n), int(m), REGIMES.index(regime), 2])
        settings = TrainSettings(
            epochs=1,
            batch_size=model["batch_size"],
            learning_rate=model["learning_rate"],
            weight_decay=model["weight_decay"],
            seed=int(seed),
            device=device,
            name=f"fixed {regime}",
        )
        trained, _ = train_on_sample(
            draw_negative_sample(gmm, regime, n, m, rng),
            tau,
            settings,
            dim=model["dim"],
            hidden=model["hidden"],
            layers=model["layers"],
            score_bound=model["score_bound"],
            steps=model["steps"],
        )
        scores.append(two_tower_score(f"trained_{regime}", trained))
    return scores


def fixed_score_deviations(gmm: LatentClassGMM, tau: float, deviation: dict, model: dict, device: str = "cpu"):
    """C3's mechanism under the config's ``consistency.deviation`` block: the family of
    :func:`fixed_score_family` (with :func:`trained_fixed_scores`), its inner-term draws at every m and
    in-batch inner-term draws at every m and outer-term draws at every n. Returns {"inner", "inbatch", "outer"}
    tables (:func:`deviation_rates`' input)."""
    trained = trained_fixed_scores(
        gmm, tau, model, deviation["trained"]["n"], deviation["trained"]["m"], deviation["seed"], device
    )
    family = fixed_score_family(gmm, tau, model["score_bound"], trained)
    inner = inner_term_draws(
        family, gmm, tau, deviation["ms"], deviation["pools"], deviation["seed"], deviation["nodes"], deviation["partition_nodes"]
    )
    inbatch = in_batch_inner_draws(
        family, gmm, tau, deviation["ms"], deviation["batches"], deviation["seed"], deviation["partition_nodes"]
    )
    outer = outer_term_draws(
        family, gmm, tau, deviation["ns"], deviation["pools"], deviation["seed"], deviation["partition_nodes"]
    )
    return {"inner": inner, "inbatch": inbatch, "outer": outer}
