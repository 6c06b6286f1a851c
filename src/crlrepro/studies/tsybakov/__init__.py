"""A4 (paper 2, Sec. 6): the density-ratio Tsybakov exponent of the GMM, exact and by Monte Carlo.

The study's entry (its experiments and claims), its cost model and the keys its rules read; its claims builders are
in ``claims.py``, its figure in ``figure.py``, its rules in ``workflow/rules/tsybakov.smk``.
"""

from __future__ import annotations

import math

from crlrepro.claims.spec import ClaimSpec, Experiment, Study, diagnostic, mathematics
from crlrepro.runtime.costs import Cost
from crlrepro.runtime.costs import config_value as at

__all__ = ["RULE_KEYS", "COSTS", "NOT_SIZES", "STUDY"]


def _tsybakov_thresholds(config: dict) -> float:
    exact = config["tsybakov"]["exact"]
    decades = math.log10(exact["t_range"][1] / exact["t_range"][0])
    return 5.0 * (exact["points_per_decade"] * decades + 1)


COSTS = (
    Cost(
        ("tsybakov.samples",),
        "Monte-Carlo pairs",
        memory=lambda c: 320.0 * at(c, "tsybakov.samples"),
        seconds=lambda c: 1e-6 * at(c, "tsybakov.samples") * (2 + len(c["tsybakov"].get("other_windows", []))),
    ),
    Cost(
        ("tsybakov.bootstrap", "tsybakov.grid_points"),
        "bootstrap replicates of the CDF",
        memory=lambda c: 24.0 * at(c, "tsybakov.bootstrap") * (at(c, "tsybakov.grid_points") + 1),
        seconds=lambda c: (
            1e-7
            * at(c, "tsybakov.bootstrap")
            * (at(c, "tsybakov.grid_points") + 1)
            * (2 + len(c["tsybakov"].get("other_windows", [])))
        ),
    ),
    Cost(
        ("tsybakov.grid_points",),
        "grid points of the CDF (each an exact threshold)",
        memory=lambda c: 24.0 * at(c, "tsybakov.bootstrap") * (at(c, "tsybakov.grid_points") + 1),
        seconds=lambda c: 0.2 * at(c, "tsybakov.grid_points"),
    ),
    Cost(
        ("tsybakov.exact.points_per_decade",),
        "exact thresholds per decade of t",
        memory=lambda c: 200e3 * _tsybakov_thresholds(c),
        seconds=lambda c: 0.2 * _tsybakov_thresholds(c),
    ),
)


# Integer keys that size no array or loop of their own, and why (every integer key of the schema is in a cost or here).
NOT_SIZES = {
    "tsybakov.seed": "a seed",
}


# The config keys each rule's computation reads (crlrepro.claims.spec.Study.params): the rule's params, so that changing
# a key reruns exactly the rules that read it. A string is one key; (block, names) is those keys of a block.
RULE_KEYS = {
    # the Monte Carlo: not tsybakov.exact, whose tolerance and family level only the figure and the claims read
    "tsybakov_table": {
        "gmm": "gmm",
        "tsybakov": ("tsybakov", ("samples", "seed", "window", "other_windows", "grid_points", "bootstrap")),
    },
    "tsybakov_exact": {
        "gmm": "gmm",
        "tsybakov": {
            "samples": "tsybakov.samples",
            "window": "tsybakov.window",
            "grid_points": "tsybakov.grid_points",
            "exact": ("tsybakov.exact", ("t_range", "points_per_decade", "window_starts", "window_widths")),
        },
    },
    "figure_tsybakov": {"gmm": "gmm", "tolerance": "tsybakov.exact.tolerance"},
    "claims_a4": {"exact": ("tsybakov.exact", ("tolerance", "family_level")), "samples": "tsybakov.samples"},
}


STUDY = Study(
    "tsybakov",
    (
        Experiment(
            "A4",
            2,
            "Sec. 6, Tsybakov findings",
            "the density-ratio Tsybakov exponent of the GMM",
            ("tsybakov_table", "tsybakov_exact"),
            (
                "approximation/tsybakov.csv",
                "approximation/tsybakov_cdf.csv",
                "approximation/tsybakov_exact.csv",
                "approximation/tsybakov_limit.json",
                "approximation/tsybakov_windows.csv",
                "approximation/tsybakov_mc_check.csv",
            ),
            "claims_a4",
            (
                ClaimSpec(
                    "mu_hat",
                    "Tsybakov exponent μ̂ (log-log slope of F(t) over a fit window)",
                    "value",
                    "mu_hat",
                    ("gmm",),
                    ("tsybakov.window",),
                ),
                diagnostic(
                    ClaimSpec(
                        "rate",
                        "the paper's μ̂ is admissible (F(t) ≤ c t^μ̂ for all t > 0): the condition under which its "
                        "calibration exponent (μ̂+1)/(μ̂+2) holds",
                        "bound",
                        "rate",
                        ("gmm",),
                    ),
                    "one-sided and far from its edge: admissibility passes any μ̂ below the small-t limit μ₀ of F's local slope, "
                    "so it tests only that the paper's μ̂ is not above μ₀, not its value (A4.mu_hat does)",
                ),
                mathematics(
                    ClaimSpec("rate_arithmetic", "the paper's rate is (μ̂+1)/(μ̂+2) of its own μ̂", "identity", "rate"),
                    "the paper's own arithmetic: its two reported numbers against each other, no measurement of ours",
                ),
                diagnostic(
                    ClaimSpec("monte_carlo", "the exact F(t) (quadrature) agrees with the Monte-Carlo CDF", "identity"),
                    "checks our quadrature of F(t) against our own Monte Carlo",
                ),
            ),
            figure="tsybakov",
            figure_rule="figure_tsybakov",
            style="tsybakov",
            caption="tsybakov",
        ),
    ),
    costs=COSTS,
    not_sizes=NOT_SIZES,
    rule_keys=RULE_KEYS,
)
