"""The claims of A4: its result tables turned into claim rows (:class:`crlrepro.claims.verdicts.Claim`)
whose kinds and comparability keys come from the study's entry (:mod:`crlrepro.studies.tsybakov`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.stats import norm

from crlrepro.claims.reference import setting_mismatches
from crlrepro.claims.verdicts import (
    CONTRADICTED,
    INCONCLUSIVE,
    NOT_COMPARABLE,
    REPRODUCED,
    UNREPORTED_DECIDES,
    Claim,
    Decision,
    claim,
    decide_identity,
    reported_rounding,
)
from crlrepro.studies.tsybakov import STUDY
from crlrepro.theory.bounds import calibration_exponent

__all__ = ["a4_claims"]


def _windows_giving(windows: pd.DataFrame, target: float, tolerance: float) -> str:
    """The scanned windows whose slope is within ``tolerance`` of ``target``, as t_min ranges per width."""
    parts = []
    for width, rows in windows.groupby("width"):
        hit = rows[(rows["slope"] - target).abs() <= tolerance]
        if len(hit):
            parts.append(
                f"{width:g}-decade windows with t_min ∈ [{hit['t_min'].min():.2g}, {hit['t_min'].max():.2g}]"
                f" ({len(hit)} of {len(rows)})"
            )
    return "; ".join(parts) if parts else "none"


def _decide_window_value(windows: pd.DataFrame, configured: float, paper: float, tolerance: float) -> Decision:
    """μ̂ of a log-log fit depends on its window, which the paper does not report. By the rule for unreported settings
    the verdict is the one that holds over every plausible window (the scanned ones): reproduced when every one gives
    the paper's value (± tolerance), contradicted when none does (nor the configured one), otherwise not comparable,
    with the span of the slopes over the windows and the key that moves it (the fit window)."""
    scan = windows[~windows["configured"]] if "configured" in windows else windows
    hits = int(((scan["slope"] - paper).abs() <= tolerance).sum())
    span = f"[{scan['slope'].min():.4g}, {scan['slope'].max():.4g}]"
    power = f"{hits} of {len(scan)} scanned windows give {paper:g} ± {tolerance:g}; their slopes span {span}"
    giving = _windows_giving(scan, paper, tolerance)
    ours = f"our configured window gives {configured:.4g} (exact F, |Δ| = {abs(configured - paper):.2g})"
    if hits == 0 and abs(configured - paper) > tolerance:
        return Decision(CONTRADICTED, f"no scanned window gives {paper:g} ± {tolerance:g} (exact F); {ours}", power)
    if hits == len(scan) and abs(configured - paper) <= tolerance:
        return Decision(REPRODUCED, f"every scanned window gives {paper:g} ± {tolerance:g} (exact F); {ours}", power)
    return Decision(
        NOT_COMPARABLE,
        f"{UNREPORTED_DECIDES}: the fit window, which the paper does not report, moves μ̂ over {span} across the scanned "
        "windows; "
        f"{hits} of {len(scan)} give the paper's value ({giving}); {ours}",
        power,
    )


def _decide_admissible(curve: pd.DataFrame, limit: dict, paper_mu: float) -> tuple[Decision, dict]:
    """Is the paper's μ̂ admissible, i.e. F(t) ≤ c t^μ̂ for all t > 0? F ≤ 1, so only t → 0 can break it: it holds for
    every μ̂ below the small-t limit μ₀ of the local slope d log F/d log t and fails for every μ̂ above it
    (``limit``: crlrepro.theory.tsybakov.admissible_exponent of the exact ``curve``, computed once by rule
    tsybakov_exact). Reproduced when μ̂ lies below the extrapolations' band, contradicted when above it, inconclusive
    inside. Returns the decision and the estimate."""
    curve = curve.sort_values("t")
    t0, low_end = float(curve["t"].iloc[0]), float(curve["local_slope"].iloc[0])
    band = f"[{limit['low']:.4g}, {limit['high']:.4g}]"
    found = (
        f"small-t limit of the local slope μ₀ = {limit['limit']:.4g} {band} (extrapolated in 1/log(1/t) from "
        f"t ≤ {limit['t_max']:.2g}; local slope {low_end:.4g} at t = {t0:.2g})"
    )
    power = (
        f"fails only for a μ̂ above μ₀: margin μ₀ − μ̂ = {limit['limit'] - paper_mu:+.3g}; band from "
        f"{limit['fits']} extrapolations (linear and quadratic, one and two decades)"
    )
    if not np.isfinite(limit["limit"]):
        return Decision(
            INCONCLUSIVE,
            f"the curve has too few points below t = 1 to extrapolate its local slope "
            f"(local slope {low_end:.4g} at t = {t0:.2g})",
            power,
        ), limit
    if paper_mu < limit["low"]:
        return Decision(
            REPRODUCED,
            f"{found}: μ̂ = {paper_mu:g} lies below it, so F(t)/t^μ̂ stays bounded and the "
            "condition holds with the paper's μ̂ (as with any smaller exponent)",
            power,
        ), limit
    if paper_mu > limit["high"]:
        return Decision(
            CONTRADICTED, f"{found}: μ̂ = {paper_mu:g} lies above it, so F(t)/t^μ̂ grows without bound as t → 0", power
        ), limit
    return Decision(INCONCLUSIVE, f"{found}: μ̂ = {paper_mu:g} lies inside the extrapolations' band", power), limit


def a4_claims(
    table: pd.DataFrame,
    reference: dict,
    setting: dict,
    *,
    curve: pd.DataFrame,
    limit: dict,
    windows: pd.DataFrame,
    check: pd.DataFrame,
    tolerance: float,
    alpha: float,
    samples: int,
) -> list[Claim]:
    """A4 on the exact F (crlrepro.theory.gap_cdf.gap_cdf) with the Monte Carlo beside it.

    - mu_hat (value): the paper's μ̂ against the exact log-log slope over fit windows: which windows give it
      (``windows``: the scan, and the configured window's row flagged ``configured``), see _decide_window_value.
    - rate (bound): the paper's μ̂, and with it its rate (μ̂+1)/(μ̂+2), admissible at small t (_decide_admissible on
      the small-t ``limit`` of the exact ``curve`` of local slopes).
    - rate_arithmetic (identity): the paper's rate is (μ̂+1)/(μ̂+2) of its own μ̂, to the rounding of the rate it prints.
    - monte_carlo (identity): the Monte-Carlo CDF of ``table``'s sample (``samples`` gaps) against the exact F at every
      t of ``check``, max |z| at most the Bonferroni quantile Φ⁻¹(1 − alpha/(2m)) over its m thresholds (valid under
      any dependence between them)."""
    spec_of = STUDY.experiment("A4").claim
    mismatched = setting_mismatches(reference, setting, spec_of("mu_hat").depends_on)
    paper_mu, paper_rate = float(reference["mu_hat"]), float(reference["rate"])
    spec = spec_of("mu_hat")
    configured = windows[windows["configured"]].iloc[0]
    window = f"window [{configured['t_min']:g}, {configured['t_max']:g}]"
    decision = (
        Decision(NOT_COMPARABLE, "setting differs from the paper's: " + "; ".join(mismatched), "")
        if mismatched
        else _decide_window_value(windows, float(configured["slope"]), paper_mu, tolerance)
    )
    fit = table.iloc[0]
    admissible, limit = _decide_admissible(curve, limit, paper_mu)
    rows = [
        claim(
            "A4",
            "A4.mu_hat",
            f"{spec.statement}: exact slope on our {window} (Monte Carlo: {fit['mu_hat']:.4g} "
            f"[{fit['ci_low']:.4g}, {fit['ci_high']:.4g}]); the paper's window is not reported. "
            f"Beside it, the admissible exponent (the small-t limit of the local slope, which "
            f"no window fixes): μ₀ = {limit['limit']:.4g} [{limit['low']:.4g}, {limit['high']:.4g}]",
            "value",
            decision,
            measured=float(configured["slope"]),
            paper=paper_mu,
            tolerance=f"± {tolerance:g} in μ̂ (the slope is exact: quadrature error ≲ 1e-8)",
        )
    ]
    spec = spec_of("rate")
    if mismatched:
        admissible = Decision(NOT_COMPARABLE, "setting differs from the paper's: " + "; ".join(mismatched), admissible.power)
    rows.append(
        claim(
            "A4",
            "A4.rate",
            f"{spec.statement} (measured: the rate the small-t slope supports; the rate itself "
            "is not measured on this GMM, where every sign-correct score has near-zero regret: "
            "see C2 on paper 1's mixture)",
            "bound",
            admissible,
            measured=float(calibration_exponent(limit["limit"])),
            low=float(calibration_exponent(limit["low"])),
            high=float(calibration_exponent(limit["high"])),
            paper=paper_rate,
            tolerance="one-sided: the paper's μ̂ below the small-t limit μ₀ of the local slope",
        )
    )
    spec = spec_of("rate_arithmetic")
    implied = float(calibration_exponent(paper_mu))
    rounding = reported_rounding(paper_rate)
    arithmetic = decide_identity(abs(implied - paper_rate), rounding)
    rows.append(
        claim(
            "A4",
            "A4.rate_arithmetic",
            f"{spec.statement}: ({paper_mu:g}+1)/({paper_mu:g}+2) = {implied:.6f} against the printed {paper_rate:g}",
            "identity",
            arithmetic,
            measured=implied,
            paper=paper_rate,
            tolerance=f"the printed rate's rounding, ± {rounding:g}",
        )
    )
    z = check["z"].to_numpy(dtype=float)
    used = np.isfinite(z)
    threshold = float(norm.ppf(1.0 - alpha / (2.0 * max(int(used.sum()), 1))))
    worst = float(np.abs(z[used]).max()) if used.any() else np.nan
    exact = check["cdf_exact"].to_numpy(dtype=float)[used]
    detectable = threshold * np.sqrt((1.0 - exact) / (samples * exact))  # the relative error in F a |z| of z* means
    spec = spec_of("monte_carlo")
    decision = decide_identity(worst, threshold)
    if used.any():
        decision = Decision(
            decision.verdict,
            decision.reason,
            f"{decision.power}; detects a relative error in F of {detectable.max():.2g} at "
            f"t = {check['t'].to_numpy()[used][np.argmax(detectable)]:.2g} down to {detectable.min():.2g}",
        )
    rows.append(
        claim(
            "A4",
            "A4.monte_carlo",
            f"{spec.statement} ({int(used.sum())} thresholds from {check['t'].min():.2g} to {check['t'].max():.2g}, max |z|)",
            "identity",
            decision,
            measured=worst,
            tolerance=f"max |z| ≤ {threshold:.3g} (Bonferroni at {alpha:g} over the thresholds)",
        )
    )
    return rows
