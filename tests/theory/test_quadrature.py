import numpy as np
import pytest

from crlrepro.theory.quadrature import trapezoid_mixture


@pytest.mark.parametrize("nodes", [100, 400])
def test_mixture_rule_integrates_moments(nodes):
    w, m, s = np.array([0.2, 0.5, 0.3]), np.array([2.0, -1.0, 0.3]), np.array([0.5, 1.5, 1.0])
    rule = trapezoid_mixture(w, m, s, nodes)
    assert rule.weights.sum() == pytest.approx(1.0, abs=1e-15)
    assert rule.expect(rule.nodes) == pytest.approx(np.sum(w * m), abs=1e-12)
    second = np.sum(w * (m**2 + s**2))
    assert rule.expect(rule.nodes**2) == pytest.approx(second, rel=1e-12)
    # E cos(x) = Σ π_k cos(μ_k) e^{−σ_k²/2}: a non-polynomial integrand with a closed form.
    assert rule.expect(np.cos(rule.nodes)) == pytest.approx(np.sum(w * np.cos(m) * np.exp(-(s**2) / 2)), abs=1e-12)


def test_rule_rejects_too_few_nodes():
    with pytest.raises(ValueError, match="at least 2 nodes"):
        trapezoid_mixture([1.0], [0.0], [1.0], 1)
