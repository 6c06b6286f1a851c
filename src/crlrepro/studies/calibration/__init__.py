"""C2 (paper 1, Thm 3.4): calibration along training, E* − E(s) ≤ √(2/τ·(L − L*)), and paper 2's accelerated
exponent along families of scores.

The study's entry (its experiments and claims), its cost model and the keys its rules read; its claims builders are
in ``claims.py``, its figure in ``figure.py``, its rules in ``workflow/rules/calibration.smk``.
"""

from __future__ import annotations

import math

from crlrepro.claims.spec import ClaimSpec, Experiment, Study, diagnostic, out_of_reach
from crlrepro.runtime.costs import FLOPS, TRAINING_PAIRS_PER_SECOND, Cost, count, inner_bytes, quadrature_bytes, two_tower_bytes
from crlrepro.runtime.costs import config_value as at

__all__ = ["RULE_KEYS", "COSTS", "NOT_SIZES", "STUDY"]


def _families_members(config: dict) -> int:
    families = config["consistency"]["calibration"]["families"]
    return count(families.get("dims", [])) + len(families.get("perturbations", [])) * len(families.get("epsilons", [1]))


def _rule_bytes(c: dict, block: str) -> float:
    """Memory of one quadrature rule of ``block`` (its ``nodes`` per view and ``inner_nodes``)."""
    return quadrature_bytes(at(c, f"{block}.nodes")) + inner_bytes(at(c, f"{block}.nodes"), at(c, f"{block}.inner_nodes"))


COSTS = (
    Cost(
        (
            "consistency.calibration.epochs",
            "consistency.calibration.samples",
            "seeds",
            "consistency.calibration.nodes",
            "consistency.calibration.inner_nodes",
        ),
        "epochs of consistency.calibration.samples pairs, each evaluated by quadrature",
        seconds=lambda c: (
            count(c["seeds"])
            * (
                at(c, "consistency.calibration.epochs") * at(c, "consistency.calibration.samples") / TRAINING_PAIRS_PER_SECOND
                + (at(c, "consistency.calibration.epochs") + 1)
                * (
                    at(c, "consistency.calibration.nodes") ** 2
                    + at(c, "consistency.calibration.nodes")
                    * at(c, "consistency.calibration.inner_nodes")
                    * math.log2(at(c, "consistency.calibration.inner_nodes") + 2)
                )
                * 1e-7
            )
        ),
    ),
    Cost(
        ("consistency.calibration.samples",), "training pairs", memory=lambda c: 80.0 * at(c, "consistency.calibration.samples")
    ),
    Cost(
        ("consistency.calibration.batch_size", "consistency.calibration.dims"),
        "pairs per batch",
        memory=lambda c: two_tower_bytes(
            c, max(at(c, "consistency.calibration.dims")), at(c, "consistency.calibration.batch_size")
        ),
    ),
    Cost(
        ("consistency.calibration.dims", "consistency.calibration.epochs", "seeds"),
        "dimensions D (a job each)",
        memory=lambda c: two_tower_bytes(
            c, max(at(c, "consistency.calibration.dims")), at(c, "consistency.calibration.batch_size")
        ),
    ),
    Cost(
        ("consistency.calibration.nodes", "consistency.calibration.inner_nodes"),
        "quadrature nodes per view",
        memory=lambda c: _rule_bytes(c, "consistency.calibration"),
    ),
    Cost(
        ("consistency.calibration.inner_nodes", "consistency.calibration.nodes"),
        "inner nodes of the calibration rule",
        memory=lambda c: inner_bytes(at(c, "consistency.calibration.nodes"), at(c, "consistency.calibration.inner_nodes")),
    ),
    Cost(
        ("consistency.calibration.bootstrap",),
        "bootstrap replicates (a Python loop)",
        memory=lambda c: (
            8.0 * at(c, "consistency.calibration.bootstrap") * len(c["consistency"]["calibration"]["dims"]) * count(c["seeds"])
        ),
        seconds=lambda c: 1e-3 * at(c, "consistency.calibration.bootstrap"),
    ),
    Cost(
        (
            "consistency.calibration.search.nodes",
            "consistency.calibration.search.inner_nodes",
            "consistency.calibration.search.starts",
            "consistency.calibration.search.evaluations",
        ),
        "scores the adversarial search of Thm 3.4 evaluates, each by quadrature",
        memory=lambda c: _rule_bytes(c, "consistency.calibration.search"),
        seconds=lambda c: (
            (
                at(c, "consistency.calibration.search.levels") * len(c["consistency"]["calibration"]["search"]["widths"])
                + len(c["consistency"]["calibration"]["search"]["epsilons"])
                + at(c, "consistency.calibration.search.starts") * at(c, "consistency.calibration.search.evaluations")
            )
            * at(c, "consistency.calibration.search.nodes")
            * at(c, "consistency.calibration.search.inner_nodes")
            * math.log2(at(c, "consistency.calibration.search.inner_nodes") + 2)
            * 1e-7
        ),
    ),
    Cost(
        (
            "consistency.calibration.families.nodes",
            "consistency.calibration.families.inner_nodes",
            "consistency.calibration.families.dims",
        ),
        "quadrature nodes per view of the families",
        memory=lambda c: _rule_bytes(c, "consistency.calibration.families"),
        seconds=lambda c: (
            2
            * (
                at(c, "consistency.calibration.families.nodes") ** 3 / FLOPS
                + _families_members(c)
                * (
                    at(c, "consistency.calibration.families.nodes") ** 2
                    + at(c, "consistency.calibration.families.nodes") * at(c, "consistency.calibration.families.inner_nodes") * 20
                )
                * 1e-7
            )
        ),
    ),
    Cost(
        ("consistency.calibration.families.inner_nodes", "consistency.calibration.families.nodes"),
        "inner nodes of the families' rule",
        memory=lambda c: inner_bytes(
            at(c, "consistency.calibration.families.nodes"), at(c, "consistency.calibration.families.inner_nodes")
        ),
    ),
    Cost(
        ("consistency.calibration.families.dims", "consistency.calibration.families.nodes"),
        "dimensions of the family members",
        memory=lambda c: (
            16.0 * at(c, "consistency.calibration.families.nodes") * max(at(c, "consistency.calibration.families.dims"))
        ),
    ),
)


# Integer keys that size no array or loop of their own, and why (every integer key of the schema is in a cost or here).
NOT_SIZES = {
    "consistency.calibration.seed": "a seed",
    "consistency.calibration.search.seed": "a seed",
    "consistency.calibration.search.levels": "bounded by the schema (at most 200 band centres)",
    "consistency.calibration.search.knots": "bounded by the schema (at most 64 knots)",
    "consistency.calibration.families.tail": "how many members the exponent fit uses (at most the members)",
}


# The config keys each rule's computation reads (crlrepro.claims.spec.Study.params): the rule's params, so that changing
# a key reruns exactly the rules that read it. A string is one key; (block, names) is those keys of a block.
RULE_KEYS = {
    "claims_c2": {"tsybakov_margin": "consistency.calibration.tsybakov_margin"},
    # one trajectory: its training and the quadrature that evaluates its checkpoints (not the fit or its bootstrap)
    "calibration_train": {
        "gmm": "consistency.gmm",
        "tau": "tau",
        "seeds": "seeds",
        "calibration": ("consistency.calibration", ("samples", "epochs", "batch_size", "learning_rate", "nodes", "inner_nodes")),
        "training": ("training", ("hidden", "layers", "weight_decay", "compile", "stack", "precision")),
        "device": "device",
    },
    "calibration_table": {
        "gmm": "consistency.gmm",
        "tau": "tau",
        "calibration": ("consistency.calibration", ("nodes", "inner_nodes", "bootstrap", "seed", "regret_floor")),
    },
    "calibration_families": {
        "gmm": "consistency.gmm",
        "tau": "tau",
        "families": (
            "consistency.calibration.families",
            ("dims", "epsilons", "perturbations", "nodes", "inner_nodes", "tail", "max_relative_error"),
        ),
    },
    "tsybakov_small_t": {"gmm": "consistency.gmm", "t_small": "consistency.calibration.tsybakov_small_t"},
    "calibration_search": {"gmm": "consistency.gmm", "tau": "tau", "search": "consistency.calibration.search"},
    "figure_calibration": {"tau": "tau"},
}


STUDY = Study(
    "calibration",
    (
        Experiment(
            "C2",
            1,
            "Thm 3.4",
            "calibration along training: E* − E(s) ≤ √(2/τ·(L − L*))",
            ("calibration_train", "calibration_table", "calibration_families", "calibration_search", "tsybakov_small_t"),
            (
                "consistency/calibration.csv",
                "consistency/calibration_fit.json",
                "consistency/calibration_families.csv",
                "consistency/calibration_families_fit.csv",
                "consistency/calibration_search.csv",
                "consistency/calibration_search_summary.json",
                "consistency/tsybakov_small_t.json",
            ),
            "claims_c2",
            (
                ClaimSpec(
                    "bound",
                    "Thm 3.4: E* − E(s) ≤ √(2/τ·(L(s) − L*)) for every score s, searched adversarially: every trained "
                    "checkpoint, the constant score, band reversals and smooth perturbations of τ·PMI, and transforms "
                    "τ·T(PMI) maximising the ratio numerically",
                    "bound",
                ),
                diagnostic(
                    ClaimSpec("exponent_half", "exponent of E* − E(s) in L − L* is at least the bound's ½", "rate", "exponent"),
                    "cannot fail on smooth training paths: near the Bayes score the regret is of higher order than "
                    "√(L − L*) (exponent 2/3 or more here), so an exponent below ½ is not reachable",
                ),
                out_of_reach(
                    ClaimSpec(
                        "exponent_sqrt",
                        "E* − E(s) follows √(L − L*), not a linear law (Sec. 5: exponent ½, two-sided)",
                        "rate",
                        "exponent",
                    ),
                    "the paper's ½ is read off CLIP training steps on image–text data: it needs that data and a GPU; on "
                    "this mixture the exponent is set by its Tsybakov exponent (C2.exponent_tsybakov)",
                ),
                ClaimSpec(
                    "exponent_tsybakov",
                    "exponent of E* − E(s) in L − L* is at least paper 2's (μ+1)/(μ+2), μ this "
                    "mixture's small-t Tsybakov exponent (exact F)",
                    "rate",
                ),
                ClaimSpec(
                    "family",
                    "paper 2's accelerated calibration along a family of scores approaching the Bayes score: "
                    "exponent at least (μ+1)/(μ+2)",
                    "rate",
                ),
                diagnostic(
                    ClaimSpec(
                        "family_perturbed",
                        "paper 2's accelerated calibration along smooth perturbations of the "
                        "Bayes score: exponent at least (μ+1)/(μ+2)",
                        "rate",
                    ),
                    "cannot fail on smooth perturbation paths: a smooth perturbation is no worst case (regret ∝ ε^{1+μ}, "
                    "excess ∝ ε²: its exponent is near (1+μ)/2 by construction), so only a badly wrong inequality "
                    "would fail here",
                ),
            ),
            figure="calibration",
            figure_rule="figure_calibration",
            style="calibration",
            caption="calibration",
            seeds="seeds",
        ),
    ),
    costs=COSTS,
    not_sizes=NOT_SIZES,
    rule_keys=RULE_KEYS,
)
