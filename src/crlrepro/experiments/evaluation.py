"""Evaluation of trained two-tower models (paper 2, A2 and A3). Kept apart from
crlrepro.experiments.approximation (training) so that changing a metric reruns evaluations, never trainings."""

from __future__ import annotations

import numpy as np
import pandas as pd

from crlrepro.learning.metrics import elbow_by_relative_gain, held_out_excess_risk, linear_probe_r2
from crlrepro.learning.networks import TwoTower, embed, numpy_score
from crlrepro.theory.gmm import LatentClassGMM
from crlrepro.theory.lcgm import LatentClassModel
from crlrepro.theory.oracles import excess_contrastive_risk, l2_distance_to_bayes_score, l2_distances_to_bayes_score

__all__ = ["LCGM_NOT_APPLICABLE", "evaluate_gmm_two_tower", "evaluate_lcgm_two_tower", "lcgm_elbow", "sensitivity_elbows"]


def evaluate_gmm_two_tower(model: TwoTower, gmm: LatentClassGMM, tau: float, nodes: int) -> dict:
    """A2 metrics by quadrature: population excess risk L(s_w) − L*, the shift-removed L2 distance to τ·PMI
    (``l2_distance``) and the distance under every candidate definition (``l2_<name>``, crlrepro.theory.oracles)."""
    grid = gmm.grid(nodes)
    score = numpy_score(model)
    distances = l2_distances_to_bayes_score(score, grid, tau)
    return {
        "excess_risk": excess_contrastive_risk(score, grid, tau),
        "l2_distance": l2_distance_to_bayes_score(score, grid, tau),
        **{f"l2_{name}": value for name, value in distances.items()},
    }


# A sweep that never reaches D = K has no alignment at K (crlrepro.runtime.artifacts.nonfinite_problems).
LCGM_NOT_APPLICABLE = ("alignment_at_K",)


def evaluate_lcgm_two_tower(model: TwoTower, lcgm: LatentClassModel, tau: float, test_samples: int, seed: int) -> dict:
    """A3 metrics on fresh held-out samples (half to fit the probes, half to score them):

    * r2_f: linear-probe R² of f(x) → p(z|x)          (paper 2: ≈ 0.97 at D = K),
    * r2_g: linear-probe R² of g(y) → log p(z|y)/π_k  (paper 2: ≈ 0.93 at D = K),
    * excess_risk: held-out L̂(s_w) − L̂(τ·PMI) with in-batch negatives (crlrepro.learning.metrics)."""
    x, y, _ = lcgm.sample(2 * test_samples, np.random.default_rng([seed, 1]))
    fit, score = slice(0, test_samples), slice(test_samples, 2 * test_samples)
    fx, gy = embed(model, "f", x), embed(model, "g", y)
    target_f = np.exp(lcgm.log_posterior_x(x))
    target_g = lcgm.log_posterior_y(y) - np.log(lcgm.weights)[None, :]
    s_w = numpy_score(model)(x[score], y[score])
    return {
        "r2_f": linear_probe_r2(fx[fit], target_f[fit], fx[score], target_f[score]),
        "r2_g": linear_probe_r2(gy[fit], target_g[fit], gy[score], target_g[score]),
        "excess_risk": held_out_excess_risk(s_w, tau * lcgm.pmi(x[score], y[score]), tau),
    }


def sensitivity_elbows(runs: pd.DataFrame, classes: int, tolerance: float) -> pd.DataFrame:
    """The elbow of :func:`lcgm_elbow` at every (noise_y, separation) of a sensitivity table whose models span at
    least two D there (one seed each): columns noise_y, separation, dims (the D swept), elbow, alignment_at_K
    ((R²_f + R²_g)/2 at D = K) and the elbow's distance to K. Points with a single D (the R² grid at D = K only)
    are left out."""
    rows = []
    for (noise, separation), group in runs.groupby(["noise_y", "separation"]):
        if group["D"].nunique() < 2:
            continue
        result = lcgm_elbow(group, classes, tolerance)
        rows.append(
            {
                "noise_y": float(noise),
                "separation": float(separation),
                "dims": " ".join(str(d) for d in sorted(result["alignment"])),
                "elbow": result["elbow"],
                "alignment_at_K": result["alignment"].get(int(classes), np.nan),
                "elbow_minus_K": result["elbow"] - int(classes),
            }
        )
    return pd.DataFrame(rows, columns=["noise_y", "separation", "dims", "elbow", "alignment_at_K", "elbow_minus_K"])


def lcgm_elbow(runs: pd.DataFrame, classes: int, tolerance: float) -> dict:
    """The elbow of the A3 sweep: alignment(D) = mean over seeds of (r2_f + r2_g)/2, and
    elbow = :func:`crlrepro.learning.metrics.elbow_by_relative_gain` applied to the misalignment 1 − alignment;
    the same rule on each seed's own curve gives ``per_seed`` (the spread the claim's interval uses)."""
    per_run = runs.assign(alignment=(runs["r2_f"] + runs["r2_g"]) / 2)
    alignment = per_run.groupby("D")["alignment"].mean()
    elbow = elbow_by_relative_gain(alignment.index.to_numpy(), 1.0 - alignment.to_numpy(), tolerance)
    per_seed = {
        int(seed): elbow_by_relative_gain(group["D"].to_numpy(), 1.0 - group["alignment"].to_numpy(), tolerance)
        for seed, group in per_run.groupby("seed")
    }
    return {
        "classes": int(classes),
        "elbow": elbow,
        "per_seed": per_seed,
        "rule": "smallest D with max(alignment) - alignment(D) <= tolerance * (max(alignment) - alignment(D_min)), "
        "alignment = mean over seeds of (r2_f + r2_g) / 2",
        "tolerance": tolerance,
        "alignment": {int(d): float(a) for d, a in alignment.items()},
    }
