"""Paper 3's claims (Understanding SSL through supervised objectives): S1 balanced loss, S2 similarity,
S3 data balance, S4 prototype representation bias.

The paper's numbers are ImageNet's: they are the reference of ``value`` rows that are not comparable
on other data. The decisions are the paper's effects as ``direction`` claims fixed in advance (arms
and pairs come from the config, never from the results), on the paper's metric (linear top-1; k-NN
stays in the tables and figures), seed-paired and Holm-corrected per experiment, and each names the
data it was measured on. A diverged run counts at chance level 1/K for accuracy and is left out of
the bias.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from crlrepro.reference import setting_mismatches
from crlrepro.registry import experiment
from crlrepro.verdicts import Claim, any_of_claims, direction_claims, family_level, paired_by_seed, seed_interval, value_claim

METRICS = {"linear_top1": "linear top-1", "knn_top1": "k-NN top-1"}
PAPER_METRIC = "linear_top1"  # the paper's reported accuracy: its effects are tested on it
ARM = {"S1": "ratio", "S2": "similarity", "S3": "balance", "S4": "augmentation"}
S4_ORDER = ("base", "no_blur", "plus_rotation")


def _by_seed(table: pd.DataFrame, arm: str, value, metric: str) -> pd.Series:
    """metric of one arm per seed; a diverged run scores chance 1/K (accuracies) or is missing (bias)."""
    runs = table[table[arm] == value]
    filler = 1.0 / runs["num_classes"] if metric in METRICS else np.nan
    return runs[metric].where(~runs["diverged"], filler).set_axis(runs["seed"])


def _value_rows(experiment_id: str, table: pd.DataFrame, reference: dict, setting: dict, key: str) -> list[Claim]:
    spec = experiment(experiment_id).claim(key)
    arm, metric = ARM[experiment_id], spec.paper_value
    level = family_level(table[arm].nunique())  # Bonferroni over the arms
    rows = []
    for value, group in table.groupby(arm, sort=False):
        done = group.loc[~group["diverged"], metric]
        mean, low, high = seed_interval(done, level)
        diverged = int(group["diverged"].sum())
        note = f" ({diverged} of {len(group)} seeds diverged, left out)" if diverged else ""
        rows.append(value_claim(experiment_id, spec, f".{value}", f"{spec.statement}: {metric}, {arm} = {value}{note}", mean, low,
                                high, reference.get(metric, {}).get(value), mismatched=setting_mismatches(reference, setting, spec.depends_on),
                                tolerance=f"seed interval at {level:.4g} + the paper's rounding"))
    return rows


def _pairs(experiment_id: str, key: str, table: pd.DataFrame, pairs, metrics, data: str) -> list:
    """One family entry per (better, worse) pair and metric, better − worse paired by seed."""
    spec = experiment(experiment_id).claim(key)
    arm = ARM[experiment_id]
    present = set(table[arm])
    return [(f"{experiment_id}.{key}.{better}-{worse}.{metric}",
             f"{spec.statement}, on {data}: {METRICS.get(metric, metric)} of {better} minus {worse} (paired by seed)",
             paired_by_seed(_by_seed(table, arm, better, metric), _by_seed(table, arm, worse, metric), f"{better}−{worse}"))
            for better, worse in pairs if better in present and worse in present for metric in metrics]


def _data(setting: dict) -> str:
    return str(setting.get("supervised_view.data.name", "this run's data"))


def s1_claims(table: pd.DataFrame, setting: dict) -> list[Claim]:
    """S1: some λ/ν ≠ 1 of the config beats InfoNCE (λ/ν = 1) in linear top-1; every ratio is in one
    Holm family, so no ratio is picked after seeing the results."""
    spec = experiment("S1").claim("balanced_beats_infonce")
    ratios = sorted(r for r in table["ratio"].unique() if r != 1.0)
    base = _by_seed(table, "ratio", 1.0, PAPER_METRIC)
    comparisons = [paired_by_seed(_by_seed(table, "ratio", r, PAPER_METRIC), base, f"λ/ν={r:g} − 1") for r in ratios]
    return any_of_claims("S1", [(f"S1.{spec.key}.{PAPER_METRIC}", f"{spec.statement}, on {_data(setting)}: "
                                 f"{METRICS[PAPER_METRIC]}", comparisons)])


def s2_claims(table: pd.DataFrame, reference: dict, setting: dict) -> list[Claim]:
    """S2: cosine (with normalisation) beats dot and beats negative Euclidean."""
    others = [s for s in table["similarity"].unique() if s != "cosine"]
    family = _pairs("S2", "cosine_beats", table, [("cosine", s) for s in others], [PAPER_METRIC], _data(setting))
    return _value_rows("S2", table, reference, setting, "accuracy") + direction_claims("S2", family)


def s3_claims(table: pd.DataFrame, reference: dict, setting: dict) -> list[Claim]:
    """S3: uniform training data beat Pareto long-tailed data of the same size."""
    family = _pairs("S3", "uniform_beats_long_tailed", table, [("uniform", "long_tailed")], [PAPER_METRIC], _data(setting))
    return _value_rows("S3", table, reference, setting, "accuracy") + direction_claims("S3", family)


def s4_claims(table: pd.DataFrame, reference: dict, setting: dict) -> list[Claim]:
    """S4: the paper's orderings pair by pair: accuracy base > no_blur > plus_rotation and prototype
    bias the reverse (lower bias with higher accuracy), one Holm family."""
    pairs = [(S4_ORDER[i], S4_ORDER[j]) for i in range(3) for j in range(i + 1, 3)]
    family = _pairs("S4", "accuracy_order", table, pairs, [PAPER_METRIC], _data(setting))
    family += _pairs("S4", "bias_order", table, [(worse, better) for better, worse in pairs], ["prototype_bias"], _data(setting))
    rows = _value_rows("S4", table, reference, setting, "accuracy") + _value_rows("S4", table, reference, setting, "bias")
    return rows + direction_claims("S4", family)


def ssl_claims(experiment_id: str, table: pd.DataFrame, reference: dict, setting: dict) -> list[Claim]:
    """The claims of one paper-3 experiment (S1 … S4)."""
    if experiment_id == "S1":
        return s1_claims(table, setting)
    builders = {"S2": s2_claims, "S3": s3_claims, "S4": s4_claims}
    if experiment_id not in builders:
        raise ValueError(f"unknown paper-3 experiment {experiment_id!r}; expected one of S1, S2, S3, S4")
    return builders[experiment_id](table, reference, setting)
