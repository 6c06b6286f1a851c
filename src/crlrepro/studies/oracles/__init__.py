"""C1 (paper 1, Sec. 3): the population oracles I(X;Y), L* = −τ I and the Bayes AUC E*.

The study's entry (its experiments and claims), its cost model and the keys its rules read; its claims builders are
in ``claims.py``, its figure in ``figure.py``, its rules in ``workflow/rules/oracles.smk``.
"""

from __future__ import annotations

from crlrepro.claims.spec import ClaimSpec, Experiment, Study, diagnostic, mathematics
from crlrepro.runtime.costs import Cost
from crlrepro.runtime.costs import config_value as at

__all__ = ["RULE_KEYS", "COSTS", "NOT_SIZES", "STUDY"]


COSTS = (
    Cost(
        ("consistency.oracle.nodes",), "quadrature nodes per view", memory=lambda c: 48.0 * at(c, "consistency.oracle.nodes") ** 2
    ),
    Cost(
        ("consistency.oracle.convergence_nodes",),
        "quadrature nodes per view",
        memory=lambda c: 48.0 * max(at(c, "consistency.oracle.convergence_nodes")) ** 2,
    ),
    Cost(
        ("consistency.oracle.auc_nodes", "consistency.oracle.auc_convergence_nodes"),
        "nodes of the exact AUC rule",
        memory=lambda c: (
            8.0 * 64 * max(at(c, "consistency.oracle.auc_nodes"), *at(c, "consistency.oracle.auc_convergence_nodes")) ** 2
        ),
        seconds=lambda c: (
            5
            + sum(
                q * q / 100 for q in [at(c, "consistency.oracle.auc_nodes"), *at(c, "consistency.oracle.auc_convergence_nodes")]
            )
        ),
    ),
    Cost(
        ("consistency.oracle.monte_carlo_samples",),
        "Monte-Carlo pairs",
        memory=lambda c: (
            max(320.0, 24 + 38 * len(c["consistency"]["gmm"]["weights"])) * at(c, "consistency.oracle.monte_carlo_samples")
        ),
    ),
)


# Integer keys that size no array or loop of their own, and why (every integer key of the schema is in a cost or here).
NOT_SIZES = {
    "consistency.oracle.seed": "a seed",
}


# The config keys each rule's computation reads (crlrepro.claims.spec.Study.params): the rule's params, so that changing
# a key reruns exactly the rules that read it. A string is one key; (block, names) is those keys of a block.
RULE_KEYS = {
    "oracle_table": {
        "gmm": "consistency.gmm",
        "paper2_gmm": "gmm",
        "tau": "tau",
        "oracle": (
            "consistency.oracle",
            ("nodes", "convergence_nodes", "auc_nodes", "auc_convergence_nodes", "monte_carlo_samples", "seed"),
        ),
    },
    "claims_c1": {"standard_errors": "consistency.oracle.standard_errors", "digits": "consistency.oracle.digits"},
}


STUDY = Study(
    "oracles",
    (
        Experiment(
            "C1",
            1,
            "Sec. 3 (Lemmas 3.2-3.3)",
            "population oracles: I(X;Y), L* = −τ I, the Bayes AUC E*",
            ("oracle_table",),
            ("consistency/oracle.json", "consistency/oracle_convergence.csv"),
            "claims_c1",
            (
                diagnostic(
                    ClaimSpec("monte_carlo", "quadrature oracle agrees with an independent Monte-Carlo estimate", "identity"),
                    "checks our oracles' numerics against our own Monte Carlo (the L* rows repeat the I(X;Y) rows: L* = −τ I)",
                ),
                diagnostic(
                    ClaimSpec("converged", "quadrature oracle converged to the configured significant digits", "identity"),
                    "checks the convergence of our own quadrature",
                ),
                mathematics(
                    ClaimSpec(
                        "shift_invariance",
                        "Lemma 3.3: every population minimiser τ·PMI + g(x) maximises E: E(τ·PMI + g(x)) = E* for any "
                        "function g of the anchor",
                        "identity",
                    ),
                    "the lemma's identity on our quadrature of E (a shift of the candidate y instead, which the lemma does "
                    "not allow, moves E: the row states by how much)",
                ),
                mathematics(
                    ClaimSpec(
                        "loss_shift_invariance",
                        "Lemma 3.2: the population minimisers of the contrastive loss are τ·PMI + g(x) for any function g "
                        "of the anchor: L(τ·PMI + g(x)) = L*",
                        "identity",
                    ),
                    "the lemma's identity on our quadrature of L (a shift of the candidate y instead costs loss: the row "
                    "states how much)",
                ),
            ),
        ),
    ),
    costs=COSTS,
    not_sizes=NOT_SIZES,
    rule_keys=RULE_KEYS,
)
