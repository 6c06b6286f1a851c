"""InfoNCE in log-mean-exp form against a literal, loop-by-loop transcription of the formula."""

import math

import numpy as np
import pytest
import torch

from crlrepro.learning.losses import info_nce_in_batch, info_nce_independent, info_nce_shared, log_mean_exp_loss


def literal(positive, negatives, tau):
    """(1/n) Σ_i τ log (1/m_i) Σ_j exp((s_ij − s_i⁺)/τ), negatives given as a list of lists."""
    total = 0.0
    for s_pos, row in zip(positive, negatives, strict=True):
        inner = 0.0
        for s_neg in row:
            inner += math.exp((s_neg - s_pos) / tau)
        total += tau * math.log(inner / len(row))
    return total / len(positive)


SIZES = [(1, 1, 1), (5, 3, 2), (16, 7, 4), (9, 12, 8)]


@pytest.mark.parametrize("n, m, d", SIZES)
@pytest.mark.parametrize("tau", [0.05, 0.5, 2.0])
def test_independent_negatives(n, m, d, tau):
    g = torch.Generator().manual_seed(n * 100 + m)
    fx, gy, neg = (torch.randn(*shape, generator=g, dtype=torch.float64) for shape in [(n, d), (n, d), (n, m, d)])
    pos = [float(fx[i] @ gy[i]) for i in range(n)]
    negs = [[float(fx[i] @ neg[i, j]) for j in range(m)] for i in range(n)]
    assert info_nce_independent(fx, gy, neg, tau).item() == pytest.approx(literal(pos, negs, tau), rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("n, m, d", SIZES)
@pytest.mark.parametrize("tau", [0.05, 0.5, 2.0])
def test_shared_negatives(n, m, d, tau):
    g = torch.Generator().manual_seed(n * 7 + m)
    fx, gy, pool = (torch.randn(*shape, generator=g, dtype=torch.float64) for shape in [(n, d), (n, d), (m, d)])
    pos = [float(fx[i] @ gy[i]) for i in range(n)]
    negs = [[float(fx[i] @ pool[j]) for j in range(m)] for i in range(n)]
    assert info_nce_shared(fx, gy, pool, tau).item() == pytest.approx(literal(pos, negs, tau), rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("n", [2, 3, 10])
@pytest.mark.parametrize("tau", [0.1, 1.0])
def test_in_batch_negatives_are_the_other_positives(n, tau):
    g = torch.Generator().manual_seed(n)
    fx, gy = torch.randn(n, 3, generator=g, dtype=torch.float64), torch.randn(n, 3, generator=g, dtype=torch.float64)
    pos = [float(fx[i] @ gy[i]) for i in range(n)]
    negs = [[float(fx[i] @ gy[j]) for j in range(n) if j != i] for i in range(n)]
    assert info_nce_in_batch(fx, gy, tau).item() == pytest.approx(literal(pos, negs, tau), rel=1e-12, abs=1e-12)


def test_closed_form_and_stability():
    # Equal scores: every ratio is 1, the loss is exactly 0.
    assert log_mean_exp_loss(torch.zeros(4), torch.zeros(4, 6), 0.5).item() == 0.0
    # Scores of 1e4 at τ = 0.01 overflow exp in a naive implementation; here the loss is exact.
    pos = torch.tensor([1e4, -1e4], dtype=torch.float64, requires_grad=True)
    neg = torch.tensor([[1e4 + 1.0, 1e4 - 1.0], [-1e4, -1e4 + 2.0]], dtype=torch.float64)
    loss = log_mean_exp_loss(pos, neg, 0.01)
    expected = np.mean([0.01 * (np.logaddexp(100.0, -100.0) - np.log(2)), 0.01 * (np.logaddexp(0.0, 200.0) - np.log(2))])
    assert loss.item() == pytest.approx(expected, rel=1e-12)
    loss.backward()
    assert torch.isfinite(pos.grad).all()


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="tau"):
        log_mean_exp_loss(torch.zeros(2), torch.zeros(2, 3), 0.0)
    with pytest.raises(ValueError, match="expected positive"):
        log_mean_exp_loss(torch.zeros(3), torch.zeros(2, 3), 1.0)
    with pytest.raises(ValueError, match="at least 2"):
        info_nce_in_batch(torch.zeros(1, 2), torch.zeros(1, 2), 1.0)


@pytest.mark.parametrize("tau", [0.05, 0.5, 3.0])
def test_in_batch_gradient_is_exact(tau):
    g = torch.Generator().manual_seed(3)
    fx = torch.randn(6, 3, generator=g, dtype=torch.float64, requires_grad=True)
    gy = torch.randn(6, 3, generator=g, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda a, b: info_nce_in_batch(a, b, tau), (fx, gy))
    # and equals autograd through the generic masked form
    scores = fx @ gy.T
    generic = log_mean_exp_loss(scores.diagonal(), scores, tau, mask=~torch.eye(6, dtype=torch.bool))
    grads_generic = torch.autograd.grad(generic, (fx, gy))
    grads_fast = torch.autograd.grad(info_nce_in_batch(fx, gy, tau), (fx, gy))
    for a, b in zip(grads_fast, grads_generic, strict=True):
        torch.testing.assert_close(a, b, rtol=1e-12, atol=1e-12)


def test_in_batch_info_nce_on_a_stack_of_members_is_each_members_own_loss_and_gradient():
    torch.manual_seed(3)
    fx, gy = torch.randn(3, 40, 5, requires_grad=True), torch.randn(3, 40, 5, requires_grad=True)
    stacked = info_nce_in_batch(fx, gy, 0.3)
    assert stacked.shape == (3,)
    stacked.sum().backward()
    for k in range(3):
        f, g = fx[k].detach().clone().requires_grad_(), gy[k].detach().clone().requires_grad_()
        alone = info_nce_in_batch(f, g, 0.3)
        alone.backward()
        # An ensemble's member trains as it would alone, to float32 rounding: bit for bit on some CPUs (Intel's
        # kernels here), not on others (an AMD EPYC's batched and single matmuls round gy's gradient differently).
        torch.testing.assert_close(alone, stacked[k], rtol=1e-6, atol=0)
        torch.testing.assert_close(f.grad, fx.grad[k], rtol=1e-5, atol=1e-7)
        torch.testing.assert_close(g.grad, gy.grad[k], rtol=1e-5, atol=1e-7)
        scores = (fx[k] @ gy[k].T).detach().double()
        reference = log_mean_exp_loss(scores.diagonal(), scores, 0.3, mask=~torch.eye(40, dtype=torch.bool))
        assert stacked[k].item() == pytest.approx(float(reference), rel=1e-5)
