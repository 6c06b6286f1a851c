"""Thm 3.4 searched adversarially (crlrepro.theory.calibration_search), on a mixture the papers never used."""

import numpy as np
import pytest

from crlrepro.theory.calibration_search import (
    SEARCH_CHUNK,
    SEARCH_COLUMNS,
    adversarial_calibration_search,
    band_reversal_score,
    calibration_ratio,
    pmi_transform_score,
)
from crlrepro.theory.oracles import bayes_auc, mutual_information, retrieval_auc


def test_the_constant_score_ratio_is_its_closed_form(skewed_gmm):
    """s = 0 ties every pair: regret E* − ½ at excess τ·I(X;Y), so ρ = (E* − ½)/√(2I)."""
    tau, nodes, inner = 0.7, 60, 200
    value = calibration_ratio(lambda x, y: np.zeros((np.size(x), np.size(y))), skewed_gmm, tau, nodes, inner)
    e_star, info = bayes_auc(skewed_gmm, nodes, inner), mutual_information(skewed_gmm.grid(nodes))
    assert value["excess_loss"] == pytest.approx(tau * info, rel=1e-9)
    assert value["ratio"] == pytest.approx((e_star - 0.5) / np.sqrt(2 * info), rel=1e-4)


def test_a_monotone_transform_of_the_bayes_score_has_no_regret_and_a_reversal_has_some(skewed_gmm):
    tau, nodes, inner = 0.5, 60, 200
    grid = skewed_gmm.grid(nodes)
    knots = np.linspace(grid.log_ratio.min(), grid.log_ratio.max(), 5)
    monotone = calibration_ratio(pmi_transform_score(skewed_gmm, tau, knots, 3 * knots + 1), skewed_gmm, tau, nodes, inner)
    assert abs(monotone["regret"]) < 1e-9 and monotone["excess_loss"] > 0
    band = calibration_ratio(band_reversal_score(skewed_gmm, tau, 0.0, 1.0), skewed_gmm, tau, nodes, inner)
    assert band["regret"] > 1e-3 and 0 < band["ratio"] < 1


def test_the_search_never_exceeds_the_bound_and_beats_its_own_families(skewed_gmm):
    table, error = adversarial_calibration_search(
        skewed_gmm,
        0.5,
        nodes=50,
        inner_nodes=150,
        levels=2,
        widths=[1.0],
        epsilons=[0.5],
        knots=4,
        starts=2,
        evaluations=40,
        seed=0,
    )
    assert list(table.columns) == SEARCH_COLUMNS and len(table) == 1 + 2 + 1 + 2 * (1 + 5)
    assert (table["ratio"] <= 1 + error).all() and error < 0.05
    assert table["ratio"].max() >= table.loc[table["family"] == "constant", "ratio"].iloc[0]


def test_the_search_blocks_give_the_criterion_bit_for_bit(skewed_gmm):
    """The search evaluates E(s) in blocks of SEARCH_CHUNK rows (fewer bisection calls for the transforms' flat ends);
    every row's arithmetic is the same in any block, so E(s) is bit-identical to the default blocks', on a transform
    with flat ends (one that has them, so the bisections run) and a band reversal."""
    tau, nodes, inner = 0.5, 60, 200
    pmi = skewed_gmm.grid(nodes).log_ratio
    knots = np.linspace(np.quantile(pmi, 0.2), np.quantile(pmi, 0.8), 6)
    scores = [
        pmi_transform_score(skewed_gmm, tau, knots, np.array([0.3, -1.0, 2.0, 0.5, -0.2, 1.1])),
        band_reversal_score(skewed_gmm, tau, float(np.median(pmi)), 1.0),
    ]
    assert SEARCH_CHUNK != 16
    for score in scores:
        assert retrieval_auc(score, skewed_gmm, nodes, inner, chunk=SEARCH_CHUNK) == retrieval_auc(
            score, skewed_gmm, nodes, inner
        )
