import numpy as np
import pytest
from scipy.special import logsumexp

from crlrepro.theory import oracles
from crlrepro.theory.oracles import (
    excess_contrastive_risk,
    l2_distance_to_bayes_score,
    mutual_information,
    optimal_contrastive_loss,
    population_contrastive_loss,
    retrieval_auc,
)


def literal_contrastive_loss(score, x, wx, y, wy, pmi, tau):
    """L(s) = E_{(x,y)~p}[τ log E_{y'} exp((s(x,y') − s(x,y))/τ)], loop by loop, no vectorisation."""
    total = 0.0
    for a in range(len(x)):
        for b in range(len(y)):
            inner = 0.0
            for c in range(len(y)):
                inner += wy[c] * np.exp((score(x[a], y[c]) - score(x[a], y[b])) / tau)
            total += wx[a] * wy[b] * np.exp(pmi[a, b]) * tau * np.log(inner)
    return total


@pytest.mark.parametrize("tau", [0.1, 0.5, 2.0])
def test_population_loss_matches_literal_transcription(skewed_gmm, tau):
    grid = skewed_gmm.grid(24)
    score = lambda x, y: np.sin(np.multiply.outer(x, y)) + 0.3 * np.add.outer(x**2, 0 * y)  # noqa: E731
    literal = literal_contrastive_loss(
        lambda a, b: score(np.array([a]), np.array([b]))[0, 0],
        grid.x.nodes,
        grid.x.weights,
        grid.y.nodes,
        grid.y.weights,
        grid.log_ratio,
        tau,
    )
    assert population_contrastive_loss(score, grid, tau) == pytest.approx(literal, rel=1e-12)
    # The KL form equals L(s) − L* once the quadrature resolves p (Σ_b wy_b e^{PMI_ab} = 1).
    grid = skewed_gmm.grid(400)
    excess = population_contrastive_loss(score, grid, tau) - optimal_contrastive_loss(grid, tau)
    assert excess_contrastive_risk(score, grid, tau) == pytest.approx(excess, rel=1e-9)


def test_bayes_score_and_constant_score(paper_gmm):
    grid, tau = paper_gmm.grid(300), 0.5
    mi = mutual_information(grid)
    bayes = lambda x, y: tau * paper_gmm.pmi(x, y)  # noqa: E731
    assert excess_contrastive_risk(bayes, grid, tau) == pytest.approx(0.0, abs=1e-15)
    assert population_contrastive_loss(bayes, grid, tau) == pytest.approx(-tau * mi, rel=1e-12)
    # A constant score has loss 0, hence excess risk exactly τ·I(X;Y).
    zero = lambda x, y: np.zeros((len(x), len(y)))  # noqa: E731
    assert excess_contrastive_risk(zero, grid, tau) == pytest.approx(tau * mi, rel=1e-12)


def test_loss_is_blind_to_x_only_shifts(skewed_gmm):
    grid, tau = skewed_gmm.grid(200), 0.7
    score = lambda x, y: np.outer(x, y) * 0.2  # noqa: E731
    shifted = lambda x, y: score(x, y) + np.exp(x)[:, None]  # noqa: E731
    assert excess_contrastive_risk(shifted, grid, tau) == pytest.approx(excess_contrastive_risk(score, grid, tau), rel=1e-10)


def test_mutual_information_agrees_with_monte_carlo(skewed_gmm):
    x, y, _ = skewed_gmm.sample(200_000, np.random.default_rng(0))
    lx, ly = skewed_gmm.log_posterior_x(x), skewed_gmm.log_posterior_y(y)
    pmi = logsumexp(lx + ly - np.log(skewed_gmm.weights), axis=1)
    estimate, stderr = pmi.mean(), pmi.std() / np.sqrt(pmi.size)
    assert abs(mutual_information(skewed_gmm.grid(400)) - estimate) < 4 * stderr


def test_excess_risk_is_finite_for_scores_far_from_pmi(skewed_gmm):
    grid = skewed_gmm.grid(400)
    wild = lambda x, y: 5.0 * np.outer(x, y)  # noqa: E731
    value = excess_contrastive_risk(wild, grid, 0.3)
    assert np.isfinite(value) and value > 0


def test_tau_must_be_positive(paper_gmm):
    with pytest.raises(ValueError, match="tau"):
        optimal_contrastive_loss(paper_gmm.grid(50), 0.0)


def test_l2_distance_removes_exactly_the_x_only_shift(skewed_gmm):
    grid, tau = skewed_gmm.grid(300), 0.4
    bayes = lambda x, y: tau * skewed_gmm.pmi(x, y)  # noqa: E731
    shifted = lambda x, y: bayes(x, y) + np.cos(3 * x)[:, None]  # noqa: E731
    assert l2_distance_to_bayes_score(shifted, grid, tau) == pytest.approx(0.0, abs=1e-12)
    # A y-only perturbation is not invisible to the loss and is not removed.
    y_only = lambda x, y: bayes(x, y) + 0.1 * y[None, :]  # noqa: E731
    var_y = grid.y.expect(grid.y.nodes**2) - grid.y.expect(grid.y.nodes) ** 2
    assert l2_distance_to_bayes_score(y_only, grid, tau) == pytest.approx(0.1 * np.sqrt(var_y), rel=1e-9)


def test_l2_distance_of_the_truncation_is_bounded_by_its_tail(paper_gmm):
    from crlrepro.theory.spectral import pmi_spectrum, truncated_score

    grid, tau = paper_gmm.grid(300), 0.5
    system = pmi_spectrum(paper_gmm, 300)
    for d in (1, 2, 4):
        distance = l2_distance_to_bayes_score(truncated_score(system, d, tau), grid, tau)
        assert 0 < distance <= tau * np.sqrt(system.tail_sum(d)) * (1 + 1e-9)


def literal_retrieval_auc(score, gmm, nodes, inner_nodes):
    """E(s) on retrieval_auc's rule, cell by cell and level by level: for every x node and every positive's level v,
    each cell of the piecewise-linear s(x, ·) contributes its whole P_Y-mass when both ends lie below v, the mass
    below the crossing point when exactly one does, half its mass when the cell is flat at v (a tie), and nothing
    otherwise."""
    from scipy.special import ndtr

    grid = gmm.grid(nodes)
    t = np.linspace(grid.y.nodes[0], grid.y.nodes[-1], inner_nodes)
    cdf = lambda z: float(np.sum(gmm.weights * ndtr((z - gmm.mean_y) / gmm.std_y)))  # noqa: E731
    tolerance = oracles.TIE_ULPS * np.finfo(float).eps * np.max(np.abs(score(grid.x.nodes, grid.y.nodes)))
    total = 0.0
    for a, x in enumerate(grid.x.nodes):
        t_row, u = literal_flat_ends(score, x, list(t), list(score(np.array([x]), t)[0]), tolerance)
        for b, v in enumerate(score(np.array([x]), grid.y.nodes)[0]):
            mass = 0.0
            for j in range(len(t_row) - 1):
                if u[j] < v and u[j + 1] < v:
                    mass += cdf(t_row[j + 1]) - cdf(t_row[j])
                elif (u[j] < v) != (u[j + 1] < v):
                    t_star = t_row[j] + (v - u[j]) / (u[j + 1] - u[j]) * (t_row[j + 1] - t_row[j])
                    mass += cdf(t_star) - cdf(t_row[j]) if u[j] < v else cdf(t_row[j + 1]) - cdf(t_star)
                elif u[j] == v and u[j + 1] == v:
                    mass += 0.5 * (cdf(t_row[j + 1]) - cdf(t_row[j]))
            total += grid.x.weights[a] * grid.y.weights[b] * np.exp(grid.log_ratio[a, b]) * mass
    return total


def literal_flat_ends(score, x, t, u, tolerance):
    """The rule's nodes for one row with the end of every flat range that stops inside a cell added (a cell that moves
    by more than the tie tolerance, next to a flat one at their shared end's level), each found by halving the cell
    48 times on s."""
    flat = [u[j] == u[j + 1] for j in range(len(t) - 1)]
    extra = []
    for j in range(len(t) - 1):
        if flat[j] or abs(u[j + 1] - u[j]) <= tolerance:
            continue
        for side in ("left", "right"):
            if side == "left" and j > 0 and flat[j - 1]:
                level, inside, outside = u[j], t[j], t[j + 1]
            elif side == "right" and j + 1 < len(flat) and flat[j + 1]:
                level, inside, outside = u[j + 1], t[j + 1], t[j]
            else:
                continue
            for _ in range(48):
                middle = 0.5 * (inside + outside)
                if score(np.array([x]), np.array([middle]))[0, 0] == level:
                    inside = middle
                else:
                    outside = middle
            extra.append((inside, level))
    merged = sorted([*zip(t, u, strict=True), *extra], key=lambda node: node[0])
    return [node[0] for node in merged], [node[1] for node in merged]


_RNG_KNOTS = np.random.default_rng(3).normal(size=40)
AUC_SCORES = {
    "bayes": None,  # the gmm's own PMI
    "monotone": lambda x, y: np.multiply.outer(x, y),
    "wiggly": lambda x, y: np.sin(3.0 * np.multiply.outer(x, y)) + 0.1 * np.add.outer(0 * x, y),
    "plateaus": lambda x, y: np.round(np.multiply.outer(np.ones_like(x), np.tanh(y)) + 0.3 * np.add.outer(x, 0 * y), 1),
    "rough": lambda x, y: np.add.outer(0.1 * x, np.interp(y, np.linspace(-6, 6, 40), _RNG_KNOTS)),  # many runs
    "constant": lambda x, y: np.zeros((np.size(x), np.size(y))),
}


@pytest.mark.parametrize("dense_runs", [0, 10_000], ids=["dense", "by_runs"])  # both ways of finding crossed cells
@pytest.mark.parametrize("name", list(AUC_SCORES))
def test_retrieval_auc_matches_literal_transcription(skewed_gmm, name, dense_runs, monkeypatch):
    monkeypatch.setattr(oracles, "_DENSE_RUNS", dense_runs)
    score = AUC_SCORES[name] or skewed_gmm.pmi
    literal = literal_retrieval_auc(score, skewed_gmm, 12, 60)
    assert retrieval_auc(score, skewed_gmm, 12, 60, chunk=5) == pytest.approx(literal, rel=1e-12, abs=1e-15)


def test_retrieval_auc_counts_ties_half(skewed_gmm, paper_gmm):
    """E(s) = P[>] + ½P[=]: a constant score is ½, a rounded score agrees with
    a brute-force count of >, = on sampled triples, and an odd-sized rule, whose middle x node is 0 on a symmetric
    mixture (x·y flat in y there), agrees with an even-sized one (before ties were counted it was 7e-3 off at 301)."""
    constant = retrieval_auc(AUC_SCORES["constant"], skewed_gmm, 40, 400)
    assert constant == pytest.approx(0.5, abs=1e-6)  # (the rule's weights and support hold all but ~1e-8 of the mass)
    assert retrieval_auc(lambda a, b: np.zeros((np.size(a), np.size(b))) + 7.0, paper_gmm, 301, 100) == pytest.approx(
        0.5, abs=1e-6
    )

    def rounded(x, y):
        return np.round(np.multiply.outer(x, y))

    rng = np.random.default_rng(0)
    x, y, _ = skewed_gmm.sample(400_000, rng)
    y_other = skewed_gmm.sample(400_000, rng)[1]
    s, s_other = np.round(x * y), np.round(x * y_other)
    brute = np.mean((s > s_other) + 0.5 * (s == s_other))
    assert np.mean(s == s_other) > 0.1  # ties are common: the ½ matters here
    assert retrieval_auc(rounded, skewed_gmm, 200, 4000) == pytest.approx(brute, abs=4e-3)
    product = lambda a, b: np.multiply.outer(a, b)  # noqa: E731
    odd, even = retrieval_auc(product, paper_gmm, 301, 1000), retrieval_auc(product, paper_gmm, 300, 1000)
    assert 0 in paper_gmm.grid(301).x.nodes or np.min(np.abs(paper_gmm.grid(301).x.nodes)) < 1e-12
    assert odd == pytest.approx(even, abs=1e-4)


def test_retrieval_auc_of_a_score_that_is_nan_somewhere_is_nan(skewed_gmm):
    def score(x, y):
        s = np.multiply.outer(x, y)
        s[..., np.argmin(np.abs(y - 0.5))] = np.nan  # one y' (or one positive) where the score is undefined
        return s

    assert np.isnan(retrieval_auc(score, skewed_gmm, 12, 60))


def test_bayes_auc_ties_a_row_flat_to_rounding_on_odd_rules(paper_gmm):
    """τ·PMI at x = 0 on a symmetric mixture is flat in y only to rounding (±3e-15): counted as strict comparisons
    those pairs were 1.5e-3 off E* at 201 nodes. With rounding-level ties, odd and even rules agree with the
    piecewise E* (10+ digits) to the rule's own error; with no tolerance the defect shows (so the test can fail)."""
    from crlrepro.theory.bayes_ranking import bayes_auc_piecewise
    from crlrepro.theory.oracles import bayes_auc

    exact = bayes_auc_piecewise(paper_gmm, 32)
    even = abs(bayes_auc(paper_gmm, 200, 1000) - exact)
    for odd in (201, 401):
        assert abs(bayes_auc(paper_gmm, odd, 1000) - exact) < 2 * even
    strict = retrieval_auc(paper_gmm.pmi, paper_gmm, 201, 1000, tie_tolerance=0.0)
    assert abs(strict - exact) > 10 * even
    with pytest.raises(ValueError, match="tie_tolerance"):
        retrieval_auc(paper_gmm.pmi, paper_gmm, 201, 1000, tie_tolerance=-1.0)


def test_retrieval_auc_leaves_rows_that_vary_beyond_rounding_alone(skewed_gmm):
    """A row is snapped flat only within the tolerance: a score varying by 1e-9 in y keeps its strict ranking."""
    tiny = lambda a, b: 1e-9 * np.multiply.outer(np.ones_like(a), b) + 3.0  # noqa: E731
    kept = retrieval_auc(tiny, skewed_gmm, 40, 400)
    assert kept == pytest.approx(retrieval_auc(lambda a, b: np.multiply.outer(np.ones_like(a), b), skewed_gmm, 40, 400), abs=1e-6)
    assert abs(kept - 0.5) > 1e-4  # (snapped flat it would be ½)


def test_retrieval_auc_stays_second_order_where_flat_ranges_end_inside_cells(skewed_gmm, monkeypatch):
    """A clipped score is flat in y over ranges whose ends fall inside the inner rule's cells: the straight line across
    such a cell counted the range's mass there as below or above instead of tied, first order in h (the docstring
    promised second). With the ends located on s and added as nodes, each doubling of the rule cuts the error ~4×;
    without them (monkeypatched away) the error stalls, so the test can fail. A step function is exact once every
    plateau spans a cell."""
    clipped = lambda x, y: np.clip(np.sin(np.multiply.outer(x, y)) + 0.3 * np.add.outer(0 * x, y), -0.8, 0.6)  # noqa: E731
    sizes = (401, 801, 1601)

    def errors():
        reference = retrieval_auc(clipped, skewed_gmm, 60, 64001)
        return [abs(retrieval_auc(clipped, skewed_gmm, 60, m) - reference) for m in sizes]

    fixed = errors()
    assert all(coarse / fine > 3.0 for coarse, fine in zip(fixed, fixed[1:], strict=False))
    assert fixed[-1] < 5e-5
    step = AUC_SCORES["plateaus"]
    exact = retrieval_auc(step, skewed_gmm, 60, 16001)
    assert retrieval_auc(step, skewed_gmm, 60, 1001) == pytest.approx(exact, abs=1e-12)
    monkeypatch.setattr(oracles, "_flat_ends", lambda score, xs, t, u_rows, tolerance: [((), ())] * len(xs))
    unfixed = errors()
    assert unfixed[-1] > 5 * fixed[-1]
    assert not all(coarse / fine > 3.0 for coarse, fine in zip(unfixed, unfixed[1:], strict=False))
    assert abs(retrieval_auc(step, skewed_gmm, 60, 1001) - exact) > 1e-5


def test_a_range_flat_only_to_rounding_is_ranked_as_computed_and_rounding_the_score_ties_it(skewed_gmm):
    """The docstring's advice, followed literally: a clipped score whose plateaus tilt by 2e-15 is ranked by the tilt
    (2e-3 from the exactly flat score, a real difference in E of the function as computed); rounded to 12 digits its
    plateaus are exactly flat again and E is the flat score's to the last digits."""
    clipped = lambda x, y: np.clip(np.sin(np.multiply.outer(x, y)) + 0.3 * np.add.outer(0 * x, y), -0.8, 0.6)  # noqa: E731
    tilted = lambda x, y: clipped(x, y) + 1e-15 * np.tanh(np.add.outer(0 * x, y))  # noqa: E731
    flat = retrieval_auc(clipped, skewed_gmm, 60, 801)
    assert abs(retrieval_auc(tilted, skewed_gmm, 60, 801) - flat) > 1e-3
    assert retrieval_auc(lambda x, y: np.round(tilted(x, y), 12), skewed_gmm, 60, 801) == pytest.approx(flat, abs=1e-12)
