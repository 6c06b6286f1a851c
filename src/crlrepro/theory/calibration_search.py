"""Paper 1, Thm 3.4 searched adversarially: how close can any score come to the calibration bound?

The theorem bounds the AUC regret of every score s by its excess contrastive risk,

    E* − E(s) ≤ √( (2/τ) · (L(s) − L*) ),

so the ratio ρ(s) = (E* − E(s)) / √((2/τ)(L(s) − L*)) is at most 1 for every s. Checking it only at a few trained
checkpoints tests little (their ratios are ~0.03: a theorem off by 30× would pass). This module searches for scores
with a large ratio, all evaluated by quadrature on one rule (:func:`crlrepro.theory.oracles.retrieval_auc`,
:func:`crlrepro.theory.oracles.excess_contrastive_risk`, E* from :func:`crlrepro.theory.oracles.bayes_auc` on the same
rule, so the regret carries no rule-to-rule error):

* the constant score (all pairs tied: regret E* − ½ at cost τ·I(X;Y));
* band reversals of the Bayes score, s = τ·R(PMI) with R reflecting the PMI values inside [c − w/2, c + w/2]
  (R(p) = 2c − p there): every pair of near-tied values inside the band is flipped, at a cost that grows with w;
* smooth perturbations s = τ·PMI + ε·sin(x·y) over a range of ε;
* transforms s = τ·T(PMI) with T piecewise linear on ``knots`` points of the PMI's range, T's values maximised
  numerically (Nelder–Mead on −ρ) from several starts: a nearly constant map, the reversal, a fold at the median,
  then random maps. The theorem can fail only where its bound is below 2E* − 1, the largest regret any score has, so
  the maximised ratio is discounted by (2E* − 1)/bound past that level. Any function of the PMI is a limit of these,
  non-monotone ones included (a monotone T keeps E(s) = E*).

The ratio's numerical error is measured on the best score found, as the change of its regret from a rule with half
the nodes (both views and the inner rule).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from scipy import optimize

from crlrepro.theory.numerics import check_temperature
from crlrepro.theory.oracles import bayes_auc, excess_contrastive_risk, retrieval_auc

__all__ = [
    "adversarial_calibration_search",
    "band_reversal_score",
    "calibration_ratio",
    "INTERPOLATION",
    "pmi_transform_score",
    "SEARCH_CHUNK",
    "SEARCH_COLUMNS",
]

SEARCH_COLUMNS = ["family", "parameters", "regret", "excess_loss", "bound", "ratio"]
# Rows of the outer rule per block of retrieval_auc. The search's transforms are constant beyond their end knots, so
# most blocks hold flat ends, each costing 48 bisection calls of the score per block: blocks of 64 rows instead of the
# default 16 make the search about 1.7x faster. Every row's sum is the same arithmetic in any block, so E(s) is
# bit-identical (tests/theory/test_calibration_search.py).
SEARCH_CHUNK = 64
INTERPOLATION = (0.1, 0.2, 0.35, 0.5, 0.75)  # the λ of each maximised transform's path from τ·PMI


def calibration_ratio(score: Callable, gmm, tau: float, nodes: int, inner_nodes: int, e_star: float | None = None) -> dict:
    """Thm 3.4's two sides for one score on one rule: regret E* − E(s), excess L(s) − L*, the bound
    √((2/τ)(L(s) − L*)) and the ratio regret / bound (0 where both are 0, the Bayes score itself)."""
    tau = check_temperature(tau)
    e_star = bayes_auc(gmm, nodes, inner_nodes) if e_star is None else e_star
    regret = e_star - retrieval_auc(score, gmm, nodes, inner_nodes, chunk=SEARCH_CHUNK)
    excess = excess_contrastive_risk(score, gmm.grid(nodes), tau)
    bound = float(np.sqrt(2.0 / tau * max(excess, 0.0)))
    ratio = regret / bound if bound > 0 else (0.0 if abs(regret) < 1e-12 else np.inf)
    return {"regret": float(regret), "excess_loss": float(excess), "bound": bound, "ratio": float(ratio)}


def band_reversal_score(gmm, tau: float, level: float, width: float) -> Callable:
    """s = τ·R(PMI) with R(p) = 2·level − p for |p − level| < width/2, R(p) = p elsewhere (continuous; every pair of
    values inside the band swaps its order)."""

    def score(x, y):
        p = gmm.pmi(x, y)
        return tau * np.where(np.abs(p - level) < width / 2, 2.0 * level - p, p)

    return score


def pmi_transform_score(gmm, tau: float, knots: np.ndarray, values: np.ndarray) -> Callable:
    """s = τ·T(PMI), T the piecewise-linear map through (knots[i], values[i]), constant beyond the end knots."""
    knots, values = np.asarray(knots, dtype=float), np.asarray(values, dtype=float)

    def score(x, y):
        return tau * np.interp(gmm.pmi(x, y), knots, values)

    return score


def adversarial_calibration_search(
    gmm,
    tau: float,
    *,
    nodes: int,
    inner_nodes: int,
    levels: int,
    widths,
    epsilons,
    knots: int,
    starts: int,
    evaluations: int,
    seed: int,
    log: Callable[[str], None] | None = None,
):
    """Every score the search evaluated that is a family's member or an optimiser's end point, as a table with
    :data:`SEARCH_COLUMNS` (``parameters`` as text), and the numerical error of the largest informative ratio found
    (bound below 2E* − 1; its regret's change from the half-sized rule). ``levels`` band centres spread over the PMI's
    central 99.8 % × each of ``widths``;
    ``epsilons`` for sin(x·y); ``starts`` Nelder–Mead runs of at most ``evaluations`` evaluations each on ``knots``
    values of T (three fixed starts, then random ones from ``seed``)."""
    import pandas as pd

    tau = check_temperature(tau)
    say = log or (lambda message: None)
    e_star = bayes_auc(gmm, nodes, inner_nodes)
    grid = gmm.grid(nodes)
    pmi = grid.log_ratio
    weights = grid.joint_weights()
    low, high = _weighted_quantiles(pmi.ravel(), weights.ravel(), (0.001, 0.999))
    rows, scores = [], []
    trivial = 2.0 * e_star - 1.0

    def evaluate(family: str, parameters: str, score: Callable) -> dict:
        row = {"family": family, "parameters": parameters, **calibration_ratio(score, gmm, tau, nodes, inner_nodes, e_star)}
        rows.append(row)
        scores.append(score)
        return row

    evaluate("constant", "s = 0", lambda x, y: np.zeros((np.size(x), np.size(y))))
    for level in np.linspace(low, high, int(levels)):
        for width in widths:
            evaluate("band reversal", f"level {level:.4g}, width {float(width):g}", band_reversal_score(gmm, tau, level, width))
    for eps in epsilons:
        evaluate("smooth perturbation", f"τ·PMI + {float(eps):g}·sin(x·y)", _sin_perturbation(gmm, tau, float(eps)))
    say(f"families: largest ratio {max(r['ratio'] for r in rows):.4g} over {len(rows)} scores")
    points = np.linspace(low, high, int(knots))
    rng = np.random.default_rng(seed)
    # the identity is no start: a small simplex around it stays monotone, where E(s) = E* (ratio 0)
    fixed = [1e-3 * points, points[::-1].copy(), np.abs(points - np.median(points))]
    for k in range(int(starts)):
        start = fixed[k] if k < len(fixed) else rng.normal(scale=np.std(points) + 1e-12, size=points.size)

        def negative_ratio(values):
            value = calibration_ratio(pmi_transform_score(gmm, tau, points, values), gmm, tau, nodes, inner_nodes, e_star)
            if not np.isfinite(value["ratio"]):
                return 0.0
            # only where the bound is below 2E* − 1 (the largest regret any score has) can the theorem fail: past it the
            # ratio is discounted by (2E* − 1)/bound, which leads the search back to informative scores
            return -value["ratio"] * min(1.0, trivial / value["bound"])

        result = optimize.minimize(
            negative_ratio, start, method="Nelder-Mead", options={"maxfev": int(evaluations), "xatol": 1e-4, "fatol": 1e-7}
        )
        row = evaluate(
            "PMI transform (maximised)",
            f"start {k}: T at {int(knots)} knots = [" + ", ".join(f"{v:.3g}" for v in result.x) + "]",
            pmi_transform_score(gmm, tau, points, result.x),
        )
        say(f"maximisation from start {k}: ratio {row['ratio']:.4g} after {result.nfev} evaluations")
        # the ratio grows with the size of a perturbation, so the largest informative one lies on the way from τ·PMI
        # to the optimiser's end point: s_λ = τ·((1 − λ)·PMI + λ·T(PMI)) at a few λ
        for weight in INTERPOLATION:
            evaluate(
                "PMI transform (maximised), interpolated",
                f"start {k}: λ = {weight:g} of the way from τ·PMI",
                pmi_transform_score(gmm, tau, points, (1 - weight) * points + weight * result.x),
            )
    table = pd.DataFrame(rows, columns=SEARCH_COLUMNS)
    informative = (table["bound"] < trivial).to_numpy()
    ratios = np.where(informative, table["ratio"].to_numpy(), -np.inf) if informative.any() else table["ratio"].to_numpy()
    best = int(np.argmax(ratios))
    coarse = calibration_ratio(scores[best], gmm, tau, max(nodes // 2, 16), max(inner_nodes // 2, 16))
    error = abs(coarse["regret"] - table["regret"].iloc[best])
    return table, float(error)


def _sin_perturbation(gmm, tau: float, eps: float) -> Callable:
    def score(x, y):
        return tau * gmm.pmi(x, y) + eps * np.sin(np.multiply.outer(x, y))

    return score


def _weighted_quantiles(values: np.ndarray, weights: np.ndarray, q) -> np.ndarray:
    order = np.argsort(values, kind="stable")
    cumulative = np.cumsum(weights[order])
    return np.interp(np.asarray(q) * cumulative[-1], cumulative, values[order])
