"""C5 (paper 1, Lemmas 4.2 and 4.3): the OCE rewrite of the log-mean-exp and the uniform stability of its minimiser.

The study's entry (its experiments and claims), its cost model and the keys its rules read; its claims builders are
in ``claims.py``, its figure in ``figure.py``, its rules in ``workflow/rules/oce.smk``.
"""

from __future__ import annotations

from crlrepro.claims.spec import ClaimSpec, Experiment, Study, mathematics
from crlrepro.runtime.costs import Cost
from crlrepro.runtime.costs import config_value as at

__all__ = ["RULE_KEYS", "COSTS", "NOT_SIZES", "STUDY"]


COSTS = (
    Cost(
        ("consistency.oce.ms",),
        "negatives m of the OCE identity",
        memory=lambda c: 40.0 * max(at(c, "consistency.oce.ms")),
        seconds=lambda c: (
            len(c["consistency"]["oce"]["taus"])
            * sum(at(c, "consistency.oce.ms"))
            * 500
            * max(at(c, "consistency.oce.ms"))
            * 1e-8
        ),
    ),
)


# Integer keys that size no array or loop of their own, and why (every integer key of the schema is in a cost or here).
NOT_SIZES = {
    "consistency.oce.seed": "a seed",
}


# The config keys each rule's computation reads (crlrepro.claims.spec.Study.params): the rule's params, so that changing
# a key reruns exactly the rules that read it. A string is one key; (block, names) is those keys of a block.
RULE_KEYS = {
    "oce_identity": {"oce": ("consistency.oce", ("ms", "taus", "score_bound", "seed"))},
    "oce_stability": {"oce": ("consistency.oce", ("ms", "taus", "score_bound", "seed"))},
    "claims_c5": {"tolerance": "consistency.oce.tolerance"},
}


STUDY = Study(
    "oce",
    (
        Experiment(
            "C5",
            1,
            "Lemmas 4.2 and 4.3",
            "the OCE rewrite of the log-mean-exp and the stability of its minimiser",
            ("oce_identity", "oce_stability"),
            ("consistency/oce_identity.csv", "consistency/oce_stability.csv"),
            "claims_c5",
            (
                mathematics(
                    ClaimSpec("oce", "OCE identity (Lemma 4.2), minimised over |μ| ≤ 2B for scores |s| ≤ B", "identity"),
                    "Lemma 4.2 is an identity: checked on our numbers to rounding, it cannot be reproduced or contradicted "
                    "by an experiment",
                ),
                mathematics(
                    ClaimSpec(
                        "constraint",
                        "the minimiser over |μ| ≤ 2B is the closed form μ* = τ log mean e^{Δ/τ} (inside the constraint when "
                        "|s| ≤ B)",
                        "identity",
                    ),
                    "the closed-form minimiser of the OCE rewrite, an identity checked on our numbers",
                ),
                mathematics(
                    ClaimSpec(
                        "stability",
                        "Lemma 4.3's step: by strong convexity, replacing one of the m negatives moves the OCE minimiser "
                        "μ* by at most τ e^{4B/τ}(e^{4B/τ} − 1)/m (uniform stability O(1/m), Bousquet–Elisseeff)",
                        "identity",
                    ),
                    "the stability bound on which Lemma 4.3's O(1/m) rests, checked against the exact worst case (a "
                    "closed form, confirmed by a search over samples): mathematics, not an experiment",
                ),
            ),
        ),
    ),
    costs=COSTS,
    not_sizes=NOT_SIZES,
    rule_keys=RULE_KEYS,
)
