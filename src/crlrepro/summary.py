"""Claims and verdicts: one row per claim of a paper, gathered into ``results/summary.{csv,md}``.

A claim row holds ``experiment, claim, paper_value, measured, ci_low, ci_high, tolerance,
verdict``. ``experiment`` is SPEC.md's identifier (A1 … A4, C1 … C5, S1 … S4); ``tolerance`` says
in words what counts as agreement; ``verdict`` is one of the VERDICTS below.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

CLAIM_COLUMNS = ["experiment", "claim", "paper_value", "measured", "ci_low", "ci_high", "tolerance", "verdict"]
EXPERIMENT_ORDER = ["A1", "A2", "A3", "A4", "C1", "C2", "C3", "C4", "C5", "S1", "S2", "S3", "S4"]
REPRODUCED, NOT_REPRODUCED, NOT_COMPARABLE = "reproduced", "not reproduced", "not comparable"
VERDICTS = (REPRODUCED, NOT_REPRODUCED, NOT_COMPARABLE)


def relative_verdict(measured: float, paper: float, rtol: float) -> str:
    """``reproduced`` when |measured − paper| ≤ rtol·|paper|."""
    if paper is None or not np.isfinite(paper) or not np.isfinite(measured):
        return NOT_COMPARABLE
    return REPRODUCED if abs(measured - paper) <= rtol * abs(paper) else NOT_REPRODUCED


def claims_frame(rows: list[dict]) -> pd.DataFrame:
    """Rows → a claims table with exactly CLAIM_COLUMNS, checking experiments and verdicts."""
    table = pd.DataFrame(rows, columns=CLAIM_COLUMNS)
    unknown = set(table["experiment"]) - set(EXPERIMENT_ORDER)
    if unknown:
        raise ValueError(f"unknown experiment identifiers {sorted(unknown)}; use {EXPERIMENT_ORDER}")
    bad = set(table["verdict"]) - set(VERDICTS)
    if bad:
        raise ValueError(f"unknown verdicts {sorted(bad)}; use {VERDICTS}")
    return table


def truncation_claims(truncation: pd.DataFrame, convergence: pd.DataFrame, reference: dict, *, comparable: bool, rtol: float) -> pd.DataFrame:
    """A1: tail sums and truncation excess risks against paper 2, Table 1, columns 1–2.

    The interval is the quadrature error estimate: measured ± |measured − value at the finest
    quadrature of the convergence study|."""
    finest = convergence[convergence["nodes"] == convergence["nodes"].max()].set_index("D")
    rows = []
    for quantity, label in (("tail_sum", "tail sum Σ_{i>D} λ_i"), ("trunc_excess_risk", "excess risk L(s_D) − L* of the truncation")):
        paper_column = {int(k): float(v) for k, v in reference[quantity].items()}
        for d, measured in zip(truncation["D"], truncation[quantity]):
            error = abs(measured - finest.loc[d, quantity])
            paper = paper_column.get(int(d), np.nan)
            verdict = relative_verdict(measured, paper, rtol) if comparable else NOT_COMPARABLE
            tolerance = f"relative {rtol:g}" if comparable else "config differs from the paper's setting"
            rows.append(_row("A1", f"{label}, D={d}", paper, measured, measured - error, measured + error, tolerance, verdict))
    return claims_frame(rows)


def collect_summary(tables: list[pd.DataFrame]) -> pd.DataFrame:
    """Concatenate claims tables in SPEC order (A1 … S4), keeping each table's own row order."""
    table = pd.concat([claims_frame(t.to_dict("records")) for t in tables], ignore_index=True)
    rank = table["experiment"].map(EXPERIMENT_ORDER.index)
    return table.iloc[np.argsort(rank.to_numpy(), kind="stable")].reset_index(drop=True)


def _fmt(value) -> str:
    if isinstance(value, str):
        return value
    if value is None or not np.isfinite(value):
        return "—"
    return f"{value:.4g}"


def summary_markdown(table: pd.DataFrame) -> str:
    """The summary as a Markdown document: a verdict count, then one table row per claim."""
    counts = table["verdict"].value_counts()
    lines = [
        "# crlrepro: claim-by-claim summary",
        "",
        ", ".join(f"{counts.get(v, 0)} {v}" for v in VERDICTS) + f" (of {len(table)} claims).",
        "",
        "| experiment | claim | paper | measured | interval | tolerance | verdict |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in table.itertuples(index=False):
        interval = f"[{_fmt(row.ci_low)}, {_fmt(row.ci_high)}]"
        lines.append(
            f"| {row.experiment} | {row.claim} | {_fmt(row.paper_value)} | {_fmt(row.measured)} | "
            f"{interval} | {row.tolerance} | {row.verdict} |"
        )
    return "\n".join(lines) + "\n"


def rst_text(text: str) -> str:
    """``text`` as literal reStructuredText (inline markup characters escaped)."""
    for char in "\\*`|_[]":
        text = text.replace(char, "\\" + char)
    return text


def claims_caption(description: str, claims: pd.DataFrame, provenance: dict | None = None,
                   list_claims: bool = True) -> str:
    """A report caption: ``description`` (the figure and what the paper claims), the verdict count,
    then (``list_claims``) claim by claim what this run measured (interval in brackets), the paper's
    value, the tolerance and the verdict, then the run's ``provenance`` when given.
    reStructuredText, wrapped so that the report's Jinja pass leaves it as it is."""
    counts = claims["verdict"].value_counts()
    lines = [description.rstrip(), "", "{% raw %}"]
    if len(claims):
        lines += [f"**This run:** {', '.join(f'{counts.get(v, 0)} {v}' for v in VERDICTS)} "
                  f"(of {len(claims)} claims).", ""]
    for row in claims.itertuples(index=False) if list_claims else ():
        paper = "" if not np.isfinite(row.paper_value) else f"; paper {_fmt(row.paper_value)}"
        lines.append(f"- {row.experiment}, {rst_text(row.claim)}: measured {_fmt(row.measured)} "
                     f"[{_fmt(row.ci_low)}, {_fmt(row.ci_high)}]{paper}; tolerance {rst_text(str(row.tolerance))}: "
                     f"**{row.verdict}**")
    if provenance:
        packages = provenance.get("packages", {})
        lines += ["", f"**Provenance:** config {provenance.get('config_hash')}, commit "
                      f"{rst_text(str(provenance.get('git_commit')))}, device {provenance.get('device')}; "
                  + ", ".join(f"{name} {version}" for name, version in sorted(packages.items())) + "."]
    lines.append("{% endraw %}")
    return "\n".join(lines) + "\n"


def summary_html(table: pd.DataFrame) -> str:
    """The summary as a self-contained HTML page (for the report): the verdict count, then one
    table row per claim, with the same columns and number format as :func:`summary_markdown`."""
    import html

    counts = table["verdict"].value_counts()
    head = ", ".join(f"{counts.get(v, 0)} {v}" for v in VERDICTS) + f" (of {len(table)} claims)."
    columns = ["experiment", "claim", "paper", "measured", "interval", "tolerance", "verdict"]
    rows = []
    for row in table.itertuples(index=False):
        cells = [row.experiment, row.claim, _fmt(row.paper_value), _fmt(row.measured),
                 f"[{_fmt(row.ci_low)}, {_fmt(row.ci_high)}]", row.tolerance, row.verdict]
        verdict_class = str(row.verdict).replace(" ", "-")
        rows.append(f'<tr class="{verdict_class}">' + "".join(f"<td>{html.escape(str(c))}</td>" for c in cells) + "</tr>")
    return "\n".join([
        "<!DOCTYPE html>", '<html><head><meta charset="utf-8"><title>crlrepro summary</title>',
        "<style>body{font-family:sans-serif;font-size:13px}table{border-collapse:collapse}"
        "td,th{border:1px solid #ccc;padding:2px 6px;text-align:left}.reproduced td:last-child{color:#15803d}"
        ".not-reproduced td:last-child{color:#b91c1c}.not-comparable td:last-child{color:#6b7280}</style>",
        "</head><body>", "<h1>crlrepro: claim-by-claim summary</h1>", f"<p>{html.escape(head)}</p>",
        "<table><thead><tr>" + "".join(f"<th>{c}</th>" for c in columns) + "</tr></thead><tbody>",
        *rows, "</tbody></table></body></html>", ""])


def seed_interval(values, level: float = 0.95) -> tuple[float, float, float]:
    """Mean over seeds and its Student-t interval, mean ± t_{(1+level)/2, n−1} · sd/√n (a single seed
    gives the degenerate interval [mean, mean])."""
    values = np.asarray(values, dtype=float)
    mean = float(values.mean())
    if values.size < 2:
        return mean, mean, mean
    half = float(stats.t.ppf((1 + level) / 2, values.size - 1) * values.std(ddof=1) / np.sqrt(values.size))
    return mean, mean - half, mean + half


def order_of_magnitude_verdict(measured: float, paper: float, orders: float) -> str:
    """``reproduced`` when |log10(measured / paper)| ≤ orders."""
    if paper is None or not np.isfinite(paper) or not measured > 0 or not paper > 0:
        return NOT_COMPARABLE
    return REPRODUCED if abs(np.log10(measured / paper)) <= orders else NOT_REPRODUCED


def _row(experiment, claim, paper, measured, low, high, tolerance, verdict) -> dict:
    return {"experiment": experiment, "claim": claim, "paper_value": paper, "measured": measured,
            "ci_low": low, "ci_high": high, "tolerance": tolerance, "verdict": verdict}


def mlp_claims(table: pd.DataFrame, reference: dict, *, comparable: bool, orders: float) -> pd.DataFrame:
    """A2: MLP excess risk and L2 distance per D (mean over seeds with a t-interval) against paper 2,
    Table 1, columns 3–4 to within ``orders`` orders of magnitude; and the monotone decrease in D."""
    rows = []
    for column, label in (("excess_risk", "MLP excess risk L(s_w) − L*"), ("l2_distance", "MLP L2 distance to τ·PMI (x-shift removed)")):
        paper_column = {int(k): float(v) for k, v in reference[column].items()}
        for d, group in table.groupby("D"):
            mean, low, high = seed_interval(group[column])
            paper = paper_column.get(int(d), np.nan)
            verdict = order_of_magnitude_verdict(mean, paper, orders) if comparable else NOT_COMPARABLE
            tolerance = f"within {orders:g} order(s) of magnitude" if comparable else "config differs from the paper's setting"
            rows.append(_row("A2", f"{label}, D={d}", paper, mean, low, high, tolerance, verdict))
        means = table.groupby("D")[column].mean()
        decreasing = float(np.mean(np.diff(means.to_numpy()) < 0)) if len(means) > 1 else np.nan
        rows.append(_row("A2", f"{label} decreases with D (share of consecutive D that decrease)", 1.0, decreasing,
                         decreasing, decreasing, "all consecutive D decrease (share = 1)",
                         REPRODUCED if decreasing == 1.0 else NOT_REPRODUCED))
    return claims_frame(rows)


def lcgm_claims(table: pd.DataFrame, elbow: dict, reference: dict, *, comparable: bool, r2_tolerance: float) -> pd.DataFrame:
    """A3: probe R² at D = K against paper 2 (≈ 0.97 and ≈ 0.93), and the elbow of the sweep at D = K."""
    k = int(elbow["classes"])
    at_k = table[table["D"] == k]
    rows = []
    for column, label in (("r2_f", "probe R² of f(x) → p(z|x) at D=K"), ("r2_g", "probe R² of g(y) → log p(z|y)/π_k at D=K")):
        mean, low, high = seed_interval(at_k[column]) if len(at_k) else (np.nan,) * 3
        paper = float(reference[column])
        if comparable:
            verdict = REPRODUCED if mean >= paper - r2_tolerance else NOT_REPRODUCED
            tolerance = f"at least paper − {r2_tolerance:g}"
        else:
            verdict, tolerance = NOT_COMPARABLE, "config differs from the paper's setting (K)"
        rows.append(_row("A3", label, paper, mean, low, high, tolerance, verdict))
    rows.append(_row("A3", f"elbow of the D sweep at D = K (K = {k})", float(k), float(elbow["elbow"]), np.nan, np.nan,
                     "exact", REPRODUCED if elbow["elbow"] == k else NOT_REPRODUCED))
    return claims_frame(rows)


def tsybakov_claims(table: pd.DataFrame, reference: dict, *, comparable: bool, tolerance: float) -> pd.DataFrame:
    """A4: μ̂ on the configured window (the table's first row) and its rate (μ+1)/(μ+2) against the
    paper's values (its window is unreported), and the fast-rate claim: rate > ½."""
    fit = table.iloc[0]
    window = f"window [{fit['t_min']:g}, {fit['t_max']:g}]"
    rows = []
    for key, low, high, label, tol in (("mu_hat", "ci_low", "ci_high", f"Tsybakov exponent μ̂, {window}", tolerance),
                                       ("rate", "rate_low", "rate_high", f"calibration rate (μ+1)/(μ+2), {window}", tolerance / 4)):
        paper = float(reference[key])
        if comparable:
            verdict = REPRODUCED if abs(fit[key] - paper) <= tol else NOT_REPRODUCED
            tol_text = f"absolute {tol:g} (the paper's window is not reported)"
        else:
            verdict, tol_text = NOT_COMPARABLE, "config differs from the paper's setting"
        rows.append(_row("A4", label, paper, float(fit[key]), float(fit[low]), float(fit[high]), tol_text, verdict))
    rows.append(_row("A4", f"fast calibration: rate (μ+1)/(μ+2) > 1/2, {window}", np.nan, float(fit["rate"]),
                     float(fit["rate_low"]), float(fit["rate_high"]), "lower end of the interval above 0.5",
                     REPRODUCED if fit["rate_low"] > 0.5 else NOT_REPRODUCED))
    return claims_frame(rows)


def oracle_claims(oracle: dict, convergence: pd.DataFrame, *, standard_errors: float, digits: float) -> pd.DataFrame:
    """C1: the quadrature oracles against an independent Monte-Carlo estimate (within
    ``standard_errors`` SE), and their convergence (≥ ``digits`` significant digits at the used size
    against the finest). Paper 1 reports no numbers for them: they are checks of our oracles."""
    mc = oracle["monte_carlo"]
    finest = convergence[convergence["nodes"] == convergence["nodes"].max()].iloc[0]
    rows = []
    for key, label in (("mutual_information", "I(X;Y)"), ("L_star", "L* = −τ I(X;Y)"), ("E_star", "Bayes AUC E*")):
        se = mc[f"{key}_se"]
        agree = abs(oracle[key] - mc[key]) <= standard_errors * se
        rows.append(_row("C1", f"{label} by quadrature agrees with Monte Carlo (n={mc['samples']})", np.nan, oracle[key],
                         mc[key] - standard_errors * se, mc[key] + standard_errors * se,
                         f"within {standard_errors:g} Monte-Carlo standard errors (interval: Monte Carlo ± that)",
                         REPRODUCED if agree else NOT_REPRODUCED))
        got = float(np.min(-np.log10(np.abs(oracle[key] - finest[key]) / abs(finest[key]) + 1e-300)))
        rows.append(_row("C1", f"{label} converged (significant digits vs {int(finest['nodes'])} nodes)", np.nan,
                         min(got, 16.0), np.nan, np.nan, f"at least {digits:g} digits",
                         REPRODUCED if got >= digits else NOT_REPRODUCED))
    return claims_frame(rows)


def oce_claims(table: pd.DataFrame, *, tolerance: float) -> pd.DataFrame:
    """C5: paper 1, Lemma 4.2 holds at every (m, τ) of the table, to ``tolerance`` (relative)."""
    relative = (table["abs_diff"] / np.maximum(1.0, table["lhs"].abs())).max()
    return claims_frame([_row("C5", f"OCE identity (Lemma 4.2), worst relative gap over {len(table)} (m, τ) settings",
                              0.0, float(relative), 0.0, float(relative), f"at most {tolerance:g}",
                              REPRODUCED if relative <= tolerance else NOT_REPRODUCED)])


def calibration_claims(table: pd.DataFrame, fit: dict, reference: dict, *, tsybakov_rate: tuple[float, float, float]) -> pd.DataFrame:
    """C2: Thm 3.4's bound at every checkpoint (violations named with their size, never clipped), and
    the fitted exponent of E* − E(s) in L − L* beside the bound's ½ and the Tsybakov rate
    (μ̂+1)/(μ̂+2) of A4 (``tsybakov_rate`` = (rate, low, high)). An exponent *above* a rate means the
    regret falls faster than that rate requires, which agrees with the bound; the verdict is
    "reproduced" unless the whole interval lies below the rate."""
    worst = table.loc[table["ratio"].idxmax()]
    bad = table[table["violates"]]
    if len(bad):
        names = ", ".join(f"{r.model}@{r.checkpoint} (regret {r.excess_auc:.3g} > bound {r.bound:.3g})" for r in bad.itertuples())
        claim = f"bound E* − E(s) ≤ √(2/τ·(L − L*)): VIOLATED at {len(bad)} of {len(table)} checkpoints: {names}"
    else:
        claim = (f"bound E* − E(s) ≤ √(2/τ·(L − L*)) holds at all {len(table)} checkpoints "
                 f"(measured: worst regret/bound, at {worst['model']} checkpoint {int(worst['checkpoint'])})")
    rows = [_row("C2", claim, 1.0, float(worst["ratio"]), np.nan, np.nan, "regret/bound ≤ 1 at every checkpoint",
                 REPRODUCED if not len(bad) else NOT_REPRODUCED)]
    used = f"{fit['points_used']} checkpoints with regret > {fit['floor']:g} ({fit['points_excluded']} below, left out)"
    for label, (rate, low, high) in (("the bound's exponent ½ (Thm 3.4)", (float(reference["exponent"]), np.nan, np.nan)),
                                     ("the Tsybakov rate (μ̂+1)/(μ̂+2) from A4", tsybakov_rate)):
        rate_text = f"{rate:.4g}" + (f" [{low:.4g}, {high:.4g}]" if np.isfinite(low) else "")
        rows.append(_row("C2", f"fitted exponent of E* − E(s) in L − L* vs {label} = {rate_text}; {used}", rate,
                         fit["exponent"], fit["low"], fit["high"], "interval not entirely below the rate",
                         REPRODUCED if fit["high"] >= rate else NOT_REPRODUCED))
    return claims_frame(rows)


def scaling_claims(slopes: pd.DataFrame, table: pd.DataFrame, *, tolerance: float) -> pd.DataFrame:
    """C3: every predicted gap slope against the measured one (reproduced when the prediction lies in
    the bootstrap interval widened by ``tolerance``); the downstream AUC at the largest m against the
    smallest (the paper: retrieval improves with m), reproduced when the seed interval of the
    difference lies above 0."""
    rows = []
    for fit in slopes[slopes["quantity"] == "gap"].itertuples():
        within = fit.low - tolerance <= fit.predicted <= fit.high + tolerance
        sweep = table[(table["regime"] == fit.regime) & (table["sweep"] == fit.axis)]
        fixed = "n" if fit.axis == "m" else "m"
        rows.append(_row("C3", f"{fit.regime.upper()}: gap |L(ŵ) − L̂_S(ŵ)| ∝ {fit.axis}^{fit.predicted:g} "
                               f"({fit.axis} = {int(sweep[fit.axis].min())}..{int(sweep[fit.axis].max())}, "
                               f"{fixed} = {int(sweep[fixed].iloc[0])}; log-log slope of the seed mean)",
                         fit.predicted, fit.slope, fit.low, fit.high, f"prediction within the interval ± {tolerance:g}",
                         REPRODUCED if within else NOT_REPRODUCED))
    for regime, runs in table[table["sweep"] == "m"].groupby("regime", sort=True):
        auc = runs.groupby("m")["auc"]
        lo, hi = runs["m"].min(), runs["m"].max()
        diff = auc.get_group(hi).to_numpy() - auc.get_group(lo).mean()
        mean, low, high = seed_interval(diff) if diff.size > 1 else (float(diff.mean()),) * 3
        rows.append(_row("C3", f"{regime.upper()}: downstream AUC E(ŵ) higher at m={hi} than at m={lo} (difference)",
                         np.nan, mean, low, high, "lower end of the seed interval > 0", REPRODUCED if low > 0 else NOT_REPRODUCED))
    return claims_frame(rows)


def budget_claims(summary: pd.DataFrame) -> pd.DataFrame:
    """C4 per regime: the measured best split is interior (the paper: neither extreme is best), and the
    fitted a + b/m + c/√n with the split it recommends (the paper gives no rule: not comparable)."""
    rows = []
    for s in summary.itertuples():
        interior = s.smallest_m < s.best_m_auc < s.largest_m
        rows.append(_row("C4", f"{s.regime.upper()}: at N = n·m = {s.total}, the best split by AUC is interior "
                               f"(measured: its m; grid m = {s.smallest_m}..{s.largest_m}; best by excess risk: m = {s.best_m_excess})",
                         np.nan, float(s.best_m_auc), np.nan, np.nan, "neither end of the grid",
                         REPRODUCED if interior else NOT_REPRODUCED))
        rows.append(_row("C4", f"{s.regime.upper()}: fit excess ≈ {s.a:.3g} + {s.b:.3g}/m + {s.c:.3g}/√n (rms relative error {s.relative_rms:.2f}); "
                               f"recommended m* for N = {s.total} (measured) with n* = {s.recommended_n:.4g}",
                         np.nan, s.recommended_m, np.nan, np.nan, "paper 1 gives no allocation rule", NOT_COMPARABLE))
    return claims_frame(rows)


def _paired(table: pd.DataFrame, column: str, key: str, better, worse, metric: str = "linear_top1"):
    """Seed-paired difference metric(better) − metric(worse) with a t-interval; a diverged run
    counts at chance level 1/K. Returns (mean, low, high, note)."""
    filled = table[metric].where(~table["diverged"], 1.0 / table["num_classes"])
    a = filled[table[column] == better].set_axis(table.loc[table[column] == better, key]).sort_index()
    b = filled[table[column] == worse].set_axis(table.loc[table[column] == worse, key]).sort_index()
    diff = (a - b).dropna().to_numpy()
    mean, low, high = seed_interval(diff) if diff.size > 1 else (float(diff.mean()), np.nan, np.nan)
    diverged = table.loc[table[column].isin([better, worse]) & table["diverged"]]
    note = ""
    if len(diverged):
        counts = diverged.groupby(column).size()
        note = "; diverged (counted at chance 1/K): " + ", ".join(f"{k} {v}/{(table[column] == k).sum()} seeds" for k, v in counts.items())
    return mean, low, high, note


METRIC_LABEL = {"linear_top1": "linear top-1", "knn_top1": "k-NN top-1"}


def _direction_row(experiment, table, column, better, worse, label, metric="linear_top1"):
    mean, low, high, note = _paired(table, column, "seed", better, worse, metric)
    verdict = REPRODUCED if np.isfinite(low) and low > 0 else NOT_REPRODUCED
    return _row(experiment, f"{label}: {METRIC_LABEL[metric]} of {better} minus {worse} (paired by seed){note}", np.nan, mean, low, high,
                "lower end of the seed interval > 0", verdict)


def _value_rows(experiment, table, column, reference: dict | None, metric: str = "linear_top1", label: str = "linear top-1"):
    rows = []
    for value, group in table.groupby(column, sort=False):
        finite = group.loc[~group["diverged"], metric]
        mean, low, high = seed_interval(finite) if len(finite) > 1 else (finite.mean() if len(finite) else np.nan, np.nan, np.nan)
        paper = np.nan if reference is None else float(reference.get(metric, {}).get(value, np.nan))
        diverged = int(group["diverged"].sum())
        text = f" ({diverged} of {len(group)} seeds diverged)" if diverged else ""
        rows.append(_row(experiment, f"{label}, {column} = {value}{text}", paper, mean, low, high,
                         "the paper's setting is ImageNet / ResNet-50: direction only", NOT_COMPARABLE))
    return rows


def spearman_interval(x, y, bootstrap: int = 2000, seed: int = 0, level: float = 0.95) -> tuple[float, float, float]:
    """Spearman's ρ of paired samples with a percentile bootstrap interval (pairs resampled; resamples
    with a constant side are skipped). NaN when fewer than 3 pairs."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if x.size < 3:
        return np.nan, np.nan, np.nan
    rho = float(stats.spearmanr(x, y).statistic)
    rng = np.random.default_rng(seed)
    draws = []
    for pick in rng.integers(0, x.size, size=(bootstrap, x.size)):
        if np.ptp(x[pick]) > 0 and np.ptp(y[pick]) > 0:
            draws.append(stats.spearmanr(x[pick], y[pick]).statistic)
    low, high = np.quantile(draws, [(1 - level) / 2, (1 + level) / 2]) if draws else (np.nan, np.nan)
    return rho, float(low), float(high)


def ssl_claims(experiment: str, table: pd.DataFrame, reference: dict | None) -> pd.DataFrame:
    """Paper 3 claims on this scale's data (the paper's numbers are ImageNet's, so they are the
    reference column of not-comparable rows; verdicts are on the direction of each effect):

    * S1: the best λ/ν ≠ 1 beats InfoNCE (λ/ν = 1), paired by seed (a best-of-several selection);
    * S2: cosine beats dot and negative Euclidean;
    * S3: uniform beats long-tailed training data of the same size;
    * S4: lower prototype bias goes with higher accuracy (Spearman ρ over runs < 0)."""
    rows = []
    metrics = ("linear_top1", "knn_top1")
    if experiment == "S1":
        rows += _value_rows("S1", table, "ratio", None)
        for metric in metrics:
            means = table[~table["diverged"]].groupby("ratio")[metric].mean()
            others = means.drop(1.0, errors="ignore")
            best = float(others.idxmax())
            mean, low, high, note = _paired(table, "ratio", "seed", best, 1.0, metric)
            rows.append(_row("S1", f"balanced loss: the best λ/ν ≠ 1 (here {best:g}) beats InfoNCE λ/ν = 1, {METRIC_LABEL[metric]} "
                                   f"difference (paired by seed; best of {len(others)} chosen on the same runs){note}", np.nan, mean, low,
                             high, "lower end of the seed interval > 0", REPRODUCED if np.isfinite(low) and low > 0 else NOT_REPRODUCED))
    elif experiment == "S2":
        rows += _value_rows("S2", table, "similarity", reference)
        for metric in metrics:
            for other in [s for s in table["similarity"].unique() if s != "cosine"]:
                rows.append(_direction_row("S2", table, "similarity", "cosine", other, "cosine + normalisation beats " + other, metric))
    elif experiment == "S3":
        rows += _value_rows("S3", table, "balance", reference)
        for metric in metrics:
            rows.append(_direction_row("S3", table, "balance", "uniform", "long_tailed", "balanced data beat long-tailed", metric))
    elif experiment == "S4":
        rows += _value_rows("S4", table, "augmentation", reference)
        rows += _value_rows("S4", table, "augmentation", reference, metric="prototype_bias", label="prototype bias")
        done = table[~table["diverged"]]
        for metric in metrics:
            rho, low, high = spearman_interval(done["prototype_bias"], done[metric])
            rows.append(_row("S4", f"lower prototype bias goes with higher accuracy: Spearman ρ(bias, {METRIC_LABEL[metric]}) over "
                                   f"{len(done)} runs ({done['augmentation'].nunique()} augmentations × seeds; bootstrap over runs)",
                             np.nan, rho, low, high, "upper end of the interval < 0",
                             REPRODUCED if np.isfinite(high) and high < 0 else NOT_REPRODUCED))
    else:
        raise ValueError(f"unknown paper-3 experiment {experiment!r}")
    return claims_frame(rows)
