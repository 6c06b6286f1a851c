"""Score families for paper 2's accelerated calibration inequality (crlrepro.experiments.calibration): spectral truncations and
perturbed Bayes scores approach the Bayes score, and each family's exponent is fitted like C2's."""

import numpy as np
import pandas as pd
import pytest

from crlrepro.experiments.calibration import (
    PERTURBATIONS,
    calibration_table,
    family_exponents,
    perturbed_bayes_score,
    score_family_table,
)
from crlrepro.theory.gmm import LatentClassGMM
from crlrepro.theory.oracles import excess_contrastive_risk

# paper 1's mixture: the Bayes ranking is not monotone in y, so a perturbation costs retrieval regret
FOUR = LatentClassGMM(
    np.full(4, 0.25), np.array([-3.0, -1.0, 1.0, 3.0]), np.ones(4), np.array([-1.0, 3.0, -3.0, 1.0]), np.ones(4)
)

# one worker computes this module's shared fixtures (pytest-xdist, --dist loadgroup)
pytestmark = pytest.mark.xdist_group("test_calibration_families")
TAU = 0.5


@pytest.fixture(scope="module")
def families():
    members = score_family_table(
        FOUR,
        TAU,
        dims=[2, 3, 4, 6, 8],
        epsilons=[0.3, 0.15, 0.075, 0.04],
        perturbations=list(PERTURBATIONS),
        nodes=120,
        inner_nodes=600,
    )
    return calibration_table(members, FOUR, TAU, nodes=120, inner_nodes=600)


def test_perturbed_bayes_score_is_the_bayes_score_at_zero():
    x, y = np.linspace(-3, 3, 7), np.linspace(-2, 2, 5)
    for name in PERTURBATIONS:
        np.testing.assert_allclose(perturbed_bayes_score(FOUR, TAU, 0.0, name)(x, y), TAU * FOUR.pmi(x, y))
        assert not np.allclose(perturbed_bayes_score(FOUR, TAU, 0.1, name)(x, y), TAU * FOUR.pmi(x, y))
    grid = FOUR.grid(120)
    # smooth perturbation: excess risk O(ε²)
    small, half = (excess_contrastive_risk(perturbed_bayes_score(FOUR, TAU, e, "sin_x_times_y"), grid, TAU) for e in (0.02, 0.01))
    assert small / half == pytest.approx(4.0, rel=0.05)


def test_families_approach_the_bayes_score(families):
    for name, members in families.groupby("model"):
        ordered = members.sort_values("parameter", ascending=name != "truncation")  # closest to Bayes first
        assert ordered["excess_loss"].is_monotonic_increasing, name
        assert ordered["excess_auc"].iloc[0] < ordered["excess_auc"].iloc[-1], name
    assert set(families["model"]) == {"truncation", "perturbed:sin_x_times_y", "perturbed:half_y_squared"}


def test_family_exponents_fit_each_familys_tail_and_mark_the_short_ones(families):
    fits = family_exponents(families.assign(regret_error=0.0), tail=3, max_relative_error=0.1).set_index("model")
    smooth = fits.loc["perturbed:sin_x_times_y"]
    assert 0.8 < smooth["exponent"] < 1.3 and smooth["low"] <= smooth["exponent"] <= smooth["high"]
    assert smooth["points_used"] == 3 and smooth["usable"] == 4
    # the tail is the members nearest the Bayes score: the three smallest ε
    members = families[families["model"] == "perturbed:sin_x_times_y"].sort_values("excess_loss").head(3)
    assert (smooth["excess_min"], smooth["excess_max"]) == pytest.approx(
        (members["excess_loss"].min(), members["excess_loss"].max())
    )
    local = np.diff(np.log(members["excess_auc"])) / np.diff(np.log(members["excess_loss"]))
    assert (smooth["low"], smooth["high"]) == pytest.approx((local.min(), local.max()))
    # members whose regret is not resolved (error above 10 % of it) are not used; fewer than 3 give NaN, not an error
    unresolved = family_exponents(families.assign(regret_error=families["excess_auc"]), tail=3, max_relative_error=0.1)
    assert unresolved["exponent"].isna().all() and (unresolved["points_used"] == 0).all()
    with pytest.raises(ValueError, match="tail"):
        family_exponents(families.assign(regret_error=0.0), tail=2, max_relative_error=0.1)


def test_family_inputs_are_checked_before_any_work():
    with pytest.raises(ValueError, match="unknown perturbation"):
        score_family_table(FOUR, TAU, dims=[1], epsilons=[0.1], perturbations=["cubic"], nodes=60, inner_nodes=100)
    with pytest.raises(ValueError, match="epsilon"):
        score_family_table(FOUR, TAU, dims=[1], epsilons=[0.1, -1.0], perturbations=[], nodes=60, inner_nodes=100)
    with pytest.raises(ValueError, match="dims"):
        score_family_table(FOUR, TAU, dims=[0], epsilons=[0.1], perturbations=[], nodes=60, inner_nodes=100)
    with pytest.raises(ValueError, match="unknown perturbation"):
        perturbed_bayes_score(FOUR, TAU, 0.1, "cubic")
    assert isinstance(
        score_family_table(FOUR, TAU, dims=[], epsilons=[], perturbations=[], nodes=60, inner_nodes=100), pd.DataFrame
    )


def test_truncations_inside_a_degenerate_singular_space_are_flagged_and_not_fitted(families):
    from crlrepro.theory.spectral import pmi_spectrum

    # this symmetric mixture's PMI operator has exact pairs σ_2 = σ_3 and σ_7 = σ_8: s_2 and s_7 keep an arbitrary half
    system = pmi_spectrum(FOUR, 120)
    s = system.singular_values
    assert abs(s[1] - s[2]) < 1e-12 * s[0] and abs(s[6] - s[7]) < 1e-12 * s[0] and s[2] - s[3] > 1e-3 * s[0]
    assert [system.truncation_is_unique(d) for d in (1, 2, 3, 7, 8, s.size)] == [True, False, True, False, True, True]
    skewed = LatentClassGMM(np.array([0.3, 0.7]), np.array([1.0, -1.0]), np.ones(2), np.array([1.5, -0.5]), np.array([1.0, 2.0]))
    assert all(pmi_spectrum(skewed, 80).truncation_is_unique(d) for d in range(1, 7))  # no symmetry, no ties
    truncations = families[families["model"] == "truncation"].set_index("parameter")["unique"]
    assert truncations.to_dict() == {2.0: False, 3.0: True, 4.0: True, 6.0: True, 8.0: True}
    assert families.loc[families["model"] != "truncation", "unique"].all()
    resolved = families.assign(regret_error=0.0, informative=True)
    fits = family_exponents(resolved, tail=3, max_relative_error=0.1).set_index("model")
    all_unique = family_exponents(resolved.assign(unique=True), tail=3, max_relative_error=0.1).set_index("model")
    assert fits.loc["truncation", "usable"] == 4 and all_unique.loc["truncation", "usable"] == 5  # D = 2 left out
    assert (fits.drop("truncation") == all_unique.drop("truncation")).all().all()
