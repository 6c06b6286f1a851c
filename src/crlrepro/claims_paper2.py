"""Paper 2's claims (Approximation in CRL): A1 spectrum, A2 MLPs, A3 LCGM, A4 Tsybakov exponent.

Each function turns an experiment's result tables into claim rows (:class:`crlrepro.verdicts.Claim`)
whose kinds and comparability keys come from :mod:`crlrepro.registry`; ``reference`` is the
experiment's entry in ``paper_values.yaml`` and ``setting`` this run's values of the config keys the
claims depend on.
"""

from __future__ import annotations

import pandas as pd

from crlrepro.reference import setting_mismatches
from crlrepro.registry import experiment
from crlrepro.verdicts import Claim, direction_claims, family_level, paired_by_seed, seed_interval, value_claim


def a1_claims(truncation: pd.DataFrame, convergence: pd.DataFrame, reference: dict, setting: dict) -> list[Claim]:
    """A1: tail sums Σ_{i>D} λ_i and truncation excess risks L(s_D) − L* against Table 1. Our interval
    is the quadrature's error estimate, measured ± |measured − value at the convergence study's
    finest rule|; the tolerance adds the paper's rounding."""
    spec_of = experiment("A1").claim
    finest = convergence[convergence["nodes"] == convergence["nodes"].max()].set_index("D")
    rows = []
    for key in ("tail_sum", "trunc_excess_risk"):
        spec, paper = spec_of(key), {int(d): v for d, v in reference[key].items()}
        mismatched = setting_mismatches(reference, setting, spec.depends_on)
        for d, measured in zip(truncation["D"], truncation[key]):
            error = abs(measured - finest.loc[d, key])
            rows.append(value_claim("A1", spec, f".D{d}", f"{spec.statement}, D={d}", measured, measured - error,
                                    measured + error, paper.get(int(d)), mismatched=mismatched,
                                    tolerance="quadrature error + the paper's rounding"))
    return rows


def a2_claims(table: pd.DataFrame, reference: dict, setting: dict) -> list[Claim]:
    """A2: per D, the MLP's excess risk and L2 distance (seed mean, t-interval) against Table 1,
    comparable only on the paper's recipe, the intervals Bonferroni-widened over these value claims (a
    false "contradicted" in any of them at most 5 %); and, as a family, that each decreases from one D
    to the next."""
    spec_of = experiment("A2").claim
    rows, family = [], []
    level = family_level(2 * table["D"].nunique())  # Bonferroni over the 2 × (number of D) value claims
    for key in ("excess_risk", "l2_distance"):
        spec, paper = spec_of(key), {int(d): v for d, v in reference[key].items()}
        mismatched = setting_mismatches(reference, setting, spec.depends_on)
        by_d = {int(d): group.set_index("seed")[key] for d, group in table.groupby("D")}
        for d, values in by_d.items():
            mean, low, high = seed_interval(values, level)
            rows.append(value_claim("A2", spec, f".D{d}", f"{spec.statement}, D={d}", mean, low, high, paper.get(d),
                                    mismatched=mismatched, tolerance=f"seed interval at {level:.4g} + the paper's rounding"))
        trend = spec_of(f"{key}_decreases")
        dims = sorted(by_d)
        for small, large in zip(dims, dims[1:]):
            family.append((f"A2.{trend.key}.D{small}-D{large}", f"{trend.statement}: D={small} above D={large} "
                           f"(difference, paired by seed)", paired_by_seed(by_d[small], by_d[large], f"D{small}-D{large}")))
    return rows + direction_claims("A2", family)


def a3_claims(table: pd.DataFrame, elbow: dict, reference: dict, setting: dict) -> list[Claim]:
    """A3: probe R² of f and g at D = K against the paper's ≈0.97 and ≈0.93 (two-sided, seed interval),
    the paper's ordering R²_f > R²_g, and the elbow of the sweep at D = K = 8 (the operator's rank; the
    seed interval of the elbows each seed's own curve gives)."""
    spec_of = experiment("A3").claim
    k = int(elbow["classes"])
    at_k = table[table["D"] == k].set_index("seed")
    rows = []
    level = family_level(3)  # Bonferroni over the three value claims: R²_f, R²_g, the elbow
    for key in ("r2_f", "r2_g"):
        spec = spec_of(key)
        mean, low, high = seed_interval(at_k[key], level)
        rows.append(value_claim("A3", spec, "", spec.statement, mean, low, high, reference[key],
                                mismatched=setting_mismatches(reference, setting, spec.depends_on),
                                tolerance=f"seed interval at {level:.4g} + the paper's rounding"))
    order = spec_of("r2_order")
    rows += direction_claims("A3", [("A3.r2_order", f"{order.statement} (difference R²_f − R²_g, paired by seed)",
                                     paired_by_seed(at_k["r2_f"], at_k["r2_g"], "r2_f-r2_g"))])
    spec = spec_of("elbow")
    elbows = [float(e) for e in elbow.get("per_seed", {}).values()]
    mean, low, high = seed_interval(elbows, level)
    rows.append(value_claim("A3", spec, "", f"{spec.statement} (K = {k}; elbow of the seed-mean curve "
                            f"{elbow['elbow']}, per seed {sorted(int(e) for e in elbows)})", mean, low, high, reference["elbow"],
                            mismatched=setting_mismatches(reference, setting, spec.depends_on),
                            tolerance=f"seed interval at {level:.4g} of the per-seed elbows; rule: {elbow['rule']}"))
    return rows


def a4_claims(table: pd.DataFrame, reference: dict, setting: dict) -> list[Claim]:
    """A4: μ̂ and (μ̂+1)/(μ̂+2) on the configured window (the table's first row, bootstrap interval)
    against the paper's values, which hold for a window the paper does not report."""
    spec_of = experiment("A4").claim
    fit = table.iloc[0]
    window = f"window [{fit['t_min']:g}, {fit['t_max']:g}]"
    rows = []
    for key, low, high in (("mu_hat", "ci_low", "ci_high"), ("rate", "rate_low", "rate_high")):
        spec = spec_of(key)
        rows.append(value_claim("A4", spec, "", f"{spec.statement}, {window}", float(fit[key]), float(fit[low]),
                                float(fit[high]), reference[key], mismatched=setting_mismatches(reference, setting, spec.depends_on),
                                tolerance="bootstrap interval + the paper's rounding"))
    return rows
