"""The claims of S1, S2, S3, S4: its result tables turned into claim rows (:class:`crlrepro.claims.verdicts.Claim`)
whose kinds and comparability keys come from the study's entry (:mod:`crlrepro.studies.supervised_view`).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from crlrepro.claims.reference import setting_mismatches
from crlrepro.claims.verdicts import (
    INCONCLUSIVE,
    NOT_COMPARABLE,
    UNREPORTED_DECIDES,
    Claim,
    Decision,
    any_of_claims,
    claim,
    decide_association,
    decide_bound,
    direction_claims,
    family_level,
    paired_by_seed,
    seed_interval,
    seed_standard_error,
    value_claim,
)
from crlrepro.studies.supervised_view import STUDY

__all__ = [
    "ARM",
    "COLLAPSE_COSINE",
    "METRICS",
    "PAPER_METRIC",
    "s1_claims",
    "s2_claims",
    "s3_claims",
    "S4_BIAS",
    "S4_BIAS_READINGS",
    "bias_accuracy_claim",
    "chosen_ratio_claim",
    "s4_claims",
    "S4_ORDER",
    "ssl_claims",
]


METRICS = {
    "linear_top1": "linear top-1",
    "linear_top1_tail": "linear top-1 on the tail classes",
    "knn_top1": "k-NN top-1",
    "prototype_bias_relative": "prototype bias relative to the prototypes' spread",
}


# S4's ordering is tested on the scale-invariant bias (fixed by argument, not by a run): an absolute distance on the
# unit sphere shrinks as features concentrate, so an untrained or collapsed encoder has the lowest absolute bias and
# the worst accuracy; divided by the spread of the surrogate prototypes (crlrepro.experiments.supervised_view.prototype_bias,
# relative=True) it no longer rewards concentration.
S4_BIAS = "prototype_bias_relative"


PAPER_METRIC = "linear_top1"  # the paper's reported accuracy; the config's claim_metric may name another probe


ARM = {"S1": "ratio", "S2": "similarity", "S3": "balance", "S4": "augmentation"}


S4_ORDER = ("base", "no_blur", "plus_rotation")


def _metric_name(metric: str) -> str:
    if metric.endswith("_tail") and metric not in METRICS:
        return f"{_metric_name(metric[:-5])} on the tail classes"
    if metric.startswith("few") and metric.endswith("_top1"):
        return f"{metric[3:-5]}-label-per-class probe top-1"
    return METRICS.get(metric, metric)


def _trained(table: pd.DataFrame) -> pd.DataFrame:
    """The trained runs of a table (the baselines, raw pixels and untrained encoders, are context)."""
    return table[table["model"] == "trained"] if "model" in table else table


def _by_seed(table: pd.DataFrame, arm: str, value, metric: str) -> pd.Series:
    """metric of one arm per seed; a diverged run scores chance 1/K (accuracies) or is missing (bias)."""
    runs = table[table[arm] == value]
    filler = 1.0 / runs["num_classes"] if metric.endswith("_top1") or metric.endswith("_tail") else np.nan
    return runs[metric].where(~runs["diverged"], filler).set_axis(runs["seed"])


def _value_rows(
    experiment_id: str, table: pd.DataFrame, reference: dict, setting: dict, key: str, column: str | None = None
) -> list[Claim]:
    spec = STUDY.experiment(experiment_id).claim(key)
    arm, metric = ARM[experiment_id], spec.paper_value
    column = column or metric
    level = family_level(table[arm].nunique())  # Bonferroni over the arms
    rows = []
    for value, group in table.groupby(arm, sort=False):
        done = group.loc[~group["diverged"], column]
        mean, low, high = seed_interval(done, level)
        diverged = int(group["diverged"].sum())
        note = f" ({diverged} of {len(group)} seeds diverged, left out)" if diverged else ""
        rows.append(
            value_claim(
                experiment_id,
                spec,
                f".{value}",
                f"{spec.statement}: {column}, {arm} = {value}{note}",
                mean,
                low,
                high,
                reference.get(metric, {}).get(value),
                mismatched=setting_mismatches(reference, setting, spec.depends_on),
                tolerance=f"seed interval at {level:.4g} + the paper's rounding",
                standard_error=seed_standard_error(done),
            )
        )
    return rows


def _pairs(experiment_id: str, key: str, table: pd.DataFrame, pairs, metrics, data: str) -> list:
    """One family entry per (better, worse) pair and metric, better − worse paired by seed."""
    spec = STUDY.experiment(experiment_id).claim(key)
    arm = ARM[experiment_id]
    present = set(table[arm])
    return [
        (
            f"{experiment_id}.{key}.{better}-{worse}.{metric}",
            f"{spec.statement}, on {data}: {_metric_name(metric)} of {better} minus {worse} (paired by seed)",
            paired_by_seed(_by_seed(table, arm, better, metric), _by_seed(table, arm, worse, metric), f"{better}−{worse}"),
        )
        for better, worse in pairs
        if better in present and worse in present
        for metric in metrics
    ]


def _data(setting: dict) -> str:
    return str(setting.get("supervised_view.data.name", "this run's data"))


def _variants(table: pd.DataFrame, metric: str, setting: dict) -> list[Claim]:
    """The loss variants' accuracy minus InfoNCE's, seed-paired, as ``value`` rows: the summary names the
    variants but gives them no number and no ordering, so these are context (not comparable); so is the
    supervised prototype objective's (with labels), the reference row."""
    base = _by_seed(table[table["loss"] == "balanced"], "ratio", 1.0, metric)
    rows = []
    for loss in sorted(set(table["loss"]) - {"balanced"}):
        spec = STUDY.experiment("S1").claim("supervised_reference" if loss == "supervised_prototype" else "variant")
        paired = paired_by_seed(_by_seed(table, "loss", loss, metric), base, f"{loss} − InfoNCE")
        mean, low, high = paired.interval(family_level(1))
        rows.append(
            value_claim(
                "S1",
                spec,
                f".{loss}.{metric}",
                f"{spec.statement}, on {_data(setting)}: {_metric_name(metric)} of {loss} minus InfoNCE (paired by seed)",
                mean,
                low,
                high,
                None,
                mismatched=(),
                tolerance="seed-paired interval at 0.95",
                standard_error=seed_standard_error(paired.differences),
            )
        )
    return rows


COLLAPSE_COSINE = 0.99  # mean cosine between different images' features above which a run has collapsed


def _bounds(table: pd.DataFrame, setting: dict) -> list[Claim]:
    """Thms 4.4 and 4.6 as ``bound`` claims, point by point: each is an inequality for every view t of
    every image x (Thm 4.4) or every anchor (Thm 4.6), so each trained run that did not diverge
    contributes its worst point (the smallest slack of its N·R views or N anchors) and the claim is
    contradicted when any point of any run violates it. Both sides are shifted by 1 (1 + side), which
    leaves the inequality as it is and makes both sides ≥ 0 where the left one can be (a cosine, Thm
    4.6's left side, or a negative cosine, Thm 4.4's, lies in [−1, 1]); a point is informative below 2,
    the largest value the shifted left side can take. (Averaged over the views, Thm 4.4 always holds:
    −‖m‖ ≤ −‖m‖², so run means would decide nothing.)"""
    runs = table[~table["diverged"]]
    runs = runs if "loss" in runs else runs.assign(loss="balanced")
    rows = []
    condition = {
        "attraction": "it holds exactly where the view's dot product with the mean of the views is ≥ 0, a condition "
        "the summary does not state",
        "repulsion": "under our reading of the summary's undefined ν and n (ν = supervised_view.bound_nu, n = the "
        "number of classes): a violation may be that reading's",
    }
    for key, name in (("attraction_bound", "attraction"), ("repulsion_bound", "repulsion")):
        spec = STUDY.experiment("S1").claim(key)
        if f"{name}_worst_lhs" not in runs or runs.empty:
            continue
        # each run's worst point moves on another machine as on another seed: the gaps' spread over runs is the unit
        gaps = runs[f"{name}_worst_rhs"] - runs[f"{name}_worst_lhs"]
        spread = float(gaps.std(ddof=1)) if len(gaps) > 1 else np.nan
        decision = decide_bound(1.0 + runs[f"{name}_worst_lhs"], 1.0 + runs[f"{name}_worst_rhs"], 2.0, spread=spread)
        violations, points = int(runs[f"{name}_violations"].sum()), int(runs[f"{name}_points"].sum())
        arms = runs.groupby(["loss", "ratio"]).size()
        where = ", ".join(
            f"{_arm_name(loss, ratio)}: {len(group)} of {arms[(loss, ratio)]} runs"
            for (loss, ratio), group in runs[runs[f"{name}_violations"] > 0].groupby(["loss", "ratio"])
        )
        reason = (
            f"each run's worst point (sides shifted by 1): {decision.reason}; of all {points} points of the {len(runs)} runs, "
            f"{violations} violated ({violations / points:.2%}){f', in {where}' if where else ''}; {condition[name]}"
        )
        verdict = decision.verdict
        if name == "repulsion":  # ν and n are ours: the bound tested is our reading, so the paper's is not compared
            reason = (
                f"{UNREPORTED_DECIDES}: the summary defines neither ν nor n, so the bound tested is our reading of it; "
                f"under that reading it would be {verdict}: {reason}"
            )
            verdict = NOT_COMPARABLE
        slack = runs[f"{name}_rhs"] - runs[f"{name}_lhs"]
        rows.append(
            claim(
                "S1",
                f"S1.{key}",
                f"{spec.statement}, on {_data(setting)}",
                "bound",
                replace(decision, verdict=verdict, reason=reason),
                measured=violations / points,
                tolerance=f"per point; mean slack per run {slack.min():.3g} to {slack.max():.3g}; "
                f"measured: the share of points violated",
            )
        )
    return rows


def _arm_name(loss: str, ratio: float) -> str:
    """An S1 arm's name: its λ/ν for the balanced loss, else the variant's."""
    return f"λ/ν={ratio:g}" if loss == "balanced" else str(loss)


def _collapsed(table: pd.DataFrame) -> dict:
    """Arms (λ/ν) whose runs collapsed (:data:`COLLAPSE_COSINE`), as {ratio: 'k of n'}."""
    if "feature_cosine" not in table:
        return {}
    out = {}
    for ratio, group in table[~table["diverged"]].groupby("ratio"):
        k = int((group["feature_cosine"] > COLLAPSE_COSINE).sum())
        if k:
            out[ratio] = f"{k} of {len(group)}"
    return out


def s1_claims(table: pd.DataFrame, setting: dict, metric: str = PAPER_METRIC) -> list[Claim]:
    """S1: the paper's claim, the balanced loss beats InfoNCE (λ/ν = 1) on ``metric``, as one comparison chosen on
    other data than it is tested on (:func:`chosen_ratio_claim`); each ratio of the grid against InfoNCE on every
    seed as a diagnostic (one Holm family; the runs that collapsed named); the loss variants against InfoNCE; and the
    bounds of Sec. 4 on the trained features."""
    balanced = table[table["loss"] == "balanced"] if "loss" in table else table
    ratios = sorted(r for r in balanced["ratio"].unique() if r != 1.0)
    base = _by_seed(balanced, "ratio", 1.0, metric)
    rows = [chosen_ratio_claim(balanced, ratios, metric, setting)] if ratios else []
    comparisons = [paired_by_seed(_by_seed(balanced, "ratio", r, metric), base, f"λ/ν={r:g} − 1") for r in ratios]
    each = STUDY.experiment("S1").claim("each_ratio")
    context = (
        any_of_claims(
            "S1", [(f"S1.{each.key}.{metric}", f"{each.statement}, on {_data(setting)}: {_metric_name(metric)}", comparisons)]
        )
        if comparisons
        else []
    )
    collapsed = _collapsed(balanced)
    if collapsed:
        note = "; collapsed runs (mean cosine between images' features > 0.99): " + ", ".join(
            f"λ/ν={r:g}: {v}" for r, v in collapsed.items()
        )
        context = [replace(row, reason=row.reason + note) for row in context]
    variants = _variants(table, metric, setting) if "loss" in table else []
    return rows + context + variants + _bounds(table, setting)


def chosen_ratio_claim(balanced: pd.DataFrame, ratios: list, metric: str, setting: dict) -> Claim:
    """One comparison, chosen apart from its test: the seeds sorted, the first half choose the λ/ν ≠ 1 of the grid with
    the highest mean ``metric`` (diverged runs at chance), the second half test it against λ/ν = 1, seed-paired and
    one-sided (:func:`crlrepro.claims.verdicts.direction_claims`, a family of one). Fewer than 2 seeds in either half:
    inconclusive, saying so."""
    spec = STUDY.experiment("S1").claim("balanced_beats_infonce")
    seeds = sorted(int(s) for s in balanced["seed"].unique())
    half = len(seeds) // 2
    choose, test = seeds[:half], seeds[half:]
    claim_id = f"S1.{spec.key}.{metric}"
    if len(choose) < 2 or len(test) < 2:
        return claim(
            "S1",
            claim_id,
            f"{spec.statement}, on {_data(setting)}: {_metric_name(metric)}",
            spec.kind,
            Decision(
                INCONCLUSIVE, f"{len(seeds)} seeds: choosing and testing apart needs at least 4", f"{len(seeds)} seeds", np.inf
            ),
            measured=np.nan,
            tolerance="one-sided on the test half (none here)",
        )
    means = {r: float(_by_seed(balanced, "ratio", r, metric).loc[choose].mean()) for r in ratios}
    best = max(ratios, key=lambda r: means[r])  # the first of the grid's order on a tie
    chosen = ", ".join(f"λ/ν={r:g}: {means[r]:.4g}" for r in ratios)
    tested = paired_by_seed(
        _by_seed(balanced, "ratio", best, metric).loc[test],
        _by_seed(balanced, "ratio", 1.0, metric).loc[test],
        f"λ/ν={best:g} − 1",
    )
    (row,) = direction_claims(
        "S1",
        [
            (
                claim_id,
                f"{spec.statement}, on {_data(setting)}: {_metric_name(metric)}; chosen λ/ν = {best:g} on seeds "
                f"{', '.join(map(str, choose))} (means {chosen}), tested on seeds {', '.join(map(str, test))}",
                tested,
            )
        ],
    )
    return row


def s2_claims(table: pd.DataFrame, reference: dict, setting: dict, metric: str = PAPER_METRIC) -> list[Claim]:
    """S2: cosine (with normalisation) beats dot and beats negative Euclidean."""
    others = [s for s in table["similarity"].unique() if s != "cosine"]
    family = _pairs("S2", "cosine_beats", table, [("cosine", s) for s in others], [metric], _data(setting))
    return _value_rows("S2", table, reference, setting, "accuracy") + direction_claims("S2", family)


def s3_claims(table: pd.DataFrame, reference: dict, setting: dict, metric: str = PAPER_METRIC) -> list[Claim]:
    """S3: uniform training data beat Pareto long-tailed data of the same size, on ``metric`` overall
    and on the tail classes (the same probe on the classes the long-tailed set under-represents)."""
    metrics = [metric] + ([f"{metric}_tail"] if f"{metric}_tail" in table else [])
    family = _pairs("S3", "uniform_beats_long_tailed", table, [("uniform", "long_tailed")], metrics, _data(setting))
    return _value_rows("S3", table, reference, setting, "accuracy") + direction_claims("S3", family)


# The readings of the paper's prototype bias its summary leaves open (no unit, no normalisation stated): each a column of
# the S4 table (crlrepro.experiments.supervised_view.prototype_bias). The angle between μ̃(x) and μ̂_y, which values of
# 36–38 suggest, needs the features at evaluation time and is not computed yet.
S4_BIAS_READINGS = {
    "prototype_bias": "on unit-normalised features",
    "prototype_bias_raw": "on raw features",
    "prototype_bias_relative": "relative to the prototypes' spread",
    "prototype_bias_angle": "as the angle between μ̃(x) and μ̂_y in degrees",
}


def bias_accuracy_claim(table: pd.DataFrame, metric: str, setting: dict) -> Claim:
    """S4's statement as an association: over every trained run (each augmentation, each seed; baselines and diverged
    runs left out), Spearman's ρ between the prototype bias and ``metric`` is negative
    (:func:`crlrepro.claims.verdicts.decide_association`). The bias's definition is unreported, so the rule for
    unreported settings applies over :data:`S4_BIAS_READINGS` (those in the table): a verdict only where every reading
    gives it (reproduced, contradicted or inconclusive), otherwise not comparable with the span of ρ. Measured: ρ under
    the first reading (the value rows' bias); the interval columns: the span over the readings."""
    spec = STUDY.experiment("S4").claim("bias_accuracy")
    runs = table[(table["model"] == "trained") & ~table["diverged"].astype(bool)] if "model" in table else table
    readings = [c for c in S4_BIAS_READINGS if c in runs]
    decisions = {c: decide_association(runs[c], runs[metric], sign=-1) for c in readings}
    verdicts = {d.verdict for d in decisions.values()}
    rhos = {c: float(runs[[c, metric]].corr(method="spearman").iloc[0, 1]) for c in readings}
    listing = "; ".join(f"{S4_BIAS_READINGS[c]}: {d.reason}" for c, d in decisions.items())
    if len(verdicts) == 1:
        decision = Decision(
            verdicts.pop(),
            f"under every reading of the bias: {listing}",
            next(iter(decisions.values())).power,
            float(np.min([d.margin for d in decisions.values()])),  # it moves when any reading's verdict moves
            "standard errors",
        )
    else:
        decision = Decision(
            NOT_COMPARABLE,
            f"{UNREPORTED_DECIDES}: the bias's definition (unreported) moves ρ over [{min(rhos.values()):.3g}, "
            f"{max(rhos.values()):.3g}] "
            f"over the readings; {listing}",
            next(iter(decisions.values())).power if decisions else "no reading",
        )
    return claim(
        "S4",
        f"S4.{spec.key}.{metric}",
        f"{spec.statement}, on {_data(setting)}: {_metric_name(metric)}",
        spec.kind,
        decision,
        measured=rhos[readings[0]] if rhos else np.nan,
        low=min(rhos.values()) if rhos else np.nan,
        high=max(rhos.values()) if rhos else np.nan,
        tolerance="Spearman's ρ; low/high: its span over the readings of the bias, not an interval (each reading's "
        "95 % Fieller–Hartley–Pearson interval is in the reason)",
    )


def s4_claims(table: pd.DataFrame, reference: dict, setting: dict, metric: str = PAPER_METRIC) -> list[Claim]:
    """S4: the paper's orderings pair by pair: accuracy base > no_blur > plus_rotation and prototype
    bias the reverse (lower bias with higher accuracy), one Holm family; the bias ordering on the scale-invariant
    relative bias (:data:`S4_BIAS`), the value rows on the paper's absolute one."""
    pairs = [(S4_ORDER[i], S4_ORDER[j]) for i in range(3) for j in range(i + 1, 3)]
    family = _pairs("S4", "accuracy_order", table, pairs, [metric], _data(setting))
    family += _pairs("S4", "bias_order", table, [(worse, better) for better, worse in pairs], [S4_BIAS], _data(setting))
    rows = _value_rows("S4", table, reference, setting, "accuracy") + _value_rows("S4", table, reference, setting, "bias")
    if "prototype_bias_raw" in table:
        rows += _value_rows("S4", table, reference, setting, "bias_raw", column="prototype_bias_raw")
    return rows + direction_claims("S4", family) + [bias_accuracy_claim(table, metric, setting)]


def ssl_claims(
    experiment_id: str, table: pd.DataFrame, reference: dict, setting: dict, metric: str = PAPER_METRIC
) -> list[Claim]:
    """The claims of one paper-3 experiment (S1 … S4) on its trained runs; the direction claims test
    ``metric`` (the config's claim_metric)."""
    table = _trained(table)
    if experiment_id == "S1":
        return s1_claims(table, setting, metric)
    builders = {"S2": s2_claims, "S3": s3_claims, "S4": s4_claims}
    if experiment_id not in builders:
        raise ValueError(f"unknown paper-3 experiment {experiment_id!r}; expected one of S1, S2, S3, S4")
    return builders[experiment_id](table, reference, setting, metric)
