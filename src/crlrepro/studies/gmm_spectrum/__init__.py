"""A1 (paper 2, Table 1, columns 1-2): the spectrum of the GMM's PMI operator and its rank-D truncations.

The study's entry (its experiments and claims), its cost model and the keys its rules read; its claims builders are
in ``claims.py``, its figure in ``figure.py``, its rules in ``workflow/rules/gmm_spectrum.smk``.
"""

from __future__ import annotations

from crlrepro.claims.spec import ClaimSpec, Experiment, Study, diagnostic
from crlrepro.runtime.costs import FLOPS, Cost, quadrature_bytes
from crlrepro.runtime.costs import config_value as at

__all__ = ["RULE_KEYS", "COSTS", "NOT_SIZES", "STUDY"]


COSTS = (
    Cost(
        ("approximation.polynomial.nodes", "approximation.polynomial.modes", "approximation.polynomial.dims"),
        "nodes per view of the polynomial-decay distribution",
        # the N × N grid's arrays, the Nyström functions of the largest D, and the kernel's blocks of 256 modes on
        # the 64·J + 64 points of log Z
        memory=lambda c: (
            12 * 8.0 * at(c, "approximation.polynomial.nodes") ** 2
            + 8.0 * at(c, "approximation.polynomial.nodes") * max(at(c, "approximation.polynomial.dims"))
            + 8.0 * 256 * 64 * (at(c, "approximation.polynomial.modes") + 1)
        ),
        seconds=lambda c: (
            (len(c["approximation"]["polynomial"]["gammas"]) + len(c["approximation"]["polynomial"]["confirm_gammas"]))
            * (
                3 * at(c, "approximation.polynomial.nodes") ** 3 / FLOPS
                + 4e-8 * len(at(c, "approximation.polynomial.dims")) * at(c, "approximation.polynomial.nodes") ** 2 * 40
                + 2e-8 * at(c, "approximation.polynomial.nodes") * max(at(c, "approximation.polynomial.dims")) ** 2
                + 64 * 2e-8 * (at(c, "approximation.polynomial.modes") + 1) ** 2
            )
        ),
    ),
    Cost(
        ("approximation.convergence_nodes",),
        "quadrature nodes per view",
        memory=lambda c: quadrature_bytes(max(at(c, "approximation.convergence_nodes"))),
        seconds=lambda c: sum(n**3 for n in at(c, "approximation.convergence_nodes")) / FLOPS,
    ),
)


# Integer keys that size no array or loop of their own, and why (every integer key of the schema is in a cost or here).
NOT_SIZES = {
    "approximation.num_eigenvalues": "how many of the eigenvalues already computed are written",
    "approximation.polynomial.window": "the D of the truncation table the rate is read on (no array or loop of its own)",
}


# The config keys each rule's computation reads (crlrepro.claims.spec.Study.params): the rule's params, so that changing
# a key reruns exactly the rules that read it. A string is one key; (block, names) is those keys of a block.
RULE_KEYS = {
    "gmm_spectrum": {
        "gmm": "gmm",
        "tau": "tau",
        "dims": "approximation.dims",
        "nodes": "approximation.quadrature_nodes",
        "num_eigenvalues": "approximation.num_eigenvalues",
    },
    "gmm_convergence": {
        "gmm": "gmm",
        "tau": "tau",
        "dims": "approximation.dims",
        "nodes_list": "approximation.convergence_nodes",
        "support_widths": "approximation.support_widths",
    },
    "polynomial_spectrum": {"tau": "tau", "polynomial": "approximation.polynomial"},
    "figure_gmm_spectrum": {"gmm": "gmm", "tau": "tau"},
    "claims_a1": {"polynomial": ("approximation.polynomial", ("window", "rate_margin", "confirm_gammas"))},
}


STUDY = Study(
    "gmm_spectrum",
    (
        Experiment(
            "A1",
            2,
            "Table 1, columns 1-2",
            "spectrum of the PMI operator of the GMM and its truncations",
            ("gmm_spectrum", "gmm_convergence", "polynomial_spectrum"),
            (
                "approximation/gmm_spectrum.csv",
                "approximation/gmm_truncation.csv",
                "approximation/gmm_convergence.csv",
                "approximation/polynomial_spectrum.csv",
            ),
            "claims_a1",
            (
                ClaimSpec("tail_sum", "tail sum Σ_{i>D} λ_i", "value", "tail_sum", ("gmm",)),
                ClaimSpec(
                    "trunc_excess_risk",
                    "excess risk L(s_D) − L* of the rank-D truncation",
                    "value",
                    "trunc_excess_risk",
                    ("tau", "gmm"),
                ),
                ClaimSpec(
                    "polynomial_rate",
                    "Sec. 3's corollary: with eigenvalues λ_i ≍ i^(−γ), the truncation's excess risk L(s_D) − L* ≲ Σ_{i>D} λ_i "
                    "converges at the rate (D+1)^(1−γ), on a distribution whose spectrum decays so (views on the circle)",
                    "rate",
                ),
                diagnostic(
                    ClaimSpec(
                        "spectrum_not_polynomial",
                        "the paper's mixture's eigenvalues decay faster than any power of i: the local log-log slope of λ_i "
                        "steepens with i",
                        "rate",
                    ),
                    "why the corollary's rate is tested on a second distribution: no power law describes this spectrum",
                ),
            ),
            figure="gmm_spectrum",
            figure_rule="figure_gmm_spectrum",
            style="gmm_spectrum",
            caption="gmm_spectrum",
        ),
    ),
    costs=COSTS,
    not_sizes=NOT_SIZES,
    rule_keys=RULE_KEYS,
)
