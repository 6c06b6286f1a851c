"""The claims of A1: its result tables turned into claim rows (:class:`crlrepro.claims.verdicts.Claim`)
whose kinds and comparability keys come from the study's entry (:mod:`crlrepro.studies.gmm_spectrum`).
"""

from __future__ import annotations

import pandas as pd

from crlrepro.claims.reference import setting_mismatches
from crlrepro.claims.verdicts import (
    Claim,
    value_claim,
)
from crlrepro.studies.gmm_spectrum import STUDY

__all__ = ["a1_claims"]


def a1_claims(truncation: pd.DataFrame, convergence: pd.DataFrame, reference: dict, setting: dict) -> list[Claim]:
    """A1: tail sums Σ_{i>D} λ_i and truncation excess risks L(s_D) − L* against Table 1. Our interval
    is the quadrature's error estimate, measured ± |measured − value at the convergence study's
    finest rule| (the most nodes on the widest support, when the study varies the support); the
    tolerance adds the paper's rounding."""
    spec_of = STUDY.experiment("A1").claim
    finest = convergence[convergence["nodes"] == convergence["nodes"].max()]
    if "half_width" in finest:
        finest = finest[finest["half_width"] == finest["half_width"].max()]
    finest = finest.set_index("D")
    rows = []
    for key in ("tail_sum", "trunc_excess_risk"):
        spec, paper = spec_of(key), {int(d): v for d, v in reference[key].items()}
        mismatched = setting_mismatches(reference, setting, spec.depends_on)
        for d, measured in zip(truncation["D"], truncation[key], strict=True):
            error = abs(measured - finest.loc[d, key])
            rows.append(
                value_claim(
                    "A1",
                    spec,
                    f".D{d}",
                    f"{spec.statement}, D={d}",
                    measured,
                    measured - error,
                    measured + error,
                    paper.get(int(d)),
                    mismatched=mismatched,
                    tolerance="quadrature error + the paper's rounding",
                )
            )
    return rows
