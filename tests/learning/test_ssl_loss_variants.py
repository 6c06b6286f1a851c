"""The generalised NT-Xent (Chen, Luo & Li 2021) and decoupled contrastive (Yeh et al. 2022) losses against literal,
loop-by-loop transcriptions of their formulas, SimCLR's cross-entropy, and their stability and validation."""

import math
import re
from itertools import pairwise

import pytest
import torch

from crlrepro.learning.losses import decoupled_contrastive_loss, generalized_nt_xent_loss


def _normalised_views(z1, z2):
    """The 2n views [z1; z2] as lists of floats, each divided by its Euclidean norm."""
    views = []
    for row in [*z1.tolist(), *z2.tolist()]:
        norm = math.sqrt(sum(x * x for x in row))
        views.append([x / norm for x in row])
    return views


def literal(z1, z2, alpha, weight, drop_positive):
    """(1/2n) Σ_i [−α s_{i,p(i)} + w log Σ_k exp(α s_ik)], k over the views other than i (and p(i) if
    ``drop_positive``), s the cosine similarity, p(i) = i + n for i < n and i − n otherwise."""
    views = _normalised_views(z1, z2)
    two_n = len(views)
    n = two_n // 2

    def s(i, k):
        return sum(a * b for a, b in zip(views[i], views[k], strict=True))

    total = 0.0
    for i in range(two_n):
        p = i + n if i < n else i - n
        inner = 0.0
        for k in range(two_n):
            if k == i or (drop_positive and k == p):
                continue
            inner += math.exp(alpha * s(i, k))
        total += -alpha * s(i, p) + weight * math.log(inner)
    return total / two_n


def _views(n, d, seed, dtype=torch.float64):
    g = torch.Generator().manual_seed(seed)
    z1 = torch.randn(n, d, generator=g, dtype=dtype)
    z2 = z1 + 0.8 * torch.randn(n, d, generator=g, dtype=dtype)  # correlated views, as augmentations give
    return z1, z2


CASES = [(1, 3), (2, 2), (5, 4), (8, 16), (13, 7)]


@pytest.mark.parametrize("n, d", CASES)
@pytest.mark.parametrize("alpha", [0.3, 2.0, 10.0, 50.0])
@pytest.mark.parametrize("weight", [0.25, 1.0, 3.0])
def test_nt_xent_matches_literal(n, d, alpha, weight):
    z1, z2 = _views(n, d, seed=1000 * n + d)
    got = generalized_nt_xent_loss(z1, z2, alpha, weight).item()
    assert math.isclose(got, literal(z1, z2, alpha, weight, drop_positive=False), rel_tol=1e-10, abs_tol=1e-12)


@pytest.mark.parametrize("n, d", [c for c in CASES if c[0] >= 2])
@pytest.mark.parametrize("alpha", [0.3, 2.0, 10.0, 50.0])
def test_dcl_matches_literal(n, d, alpha):
    z1, z2 = _views(n, d, seed=2000 * n + d)
    got = decoupled_contrastive_loss(z1, z2, alpha).item()
    assert math.isclose(got, literal(z1, z2, alpha, 1.0, drop_positive=True), rel_tol=1e-10, abs_tol=1e-12)


@pytest.mark.parametrize("n, d, alpha", [(1, 4, 1.0), (4, 3, 0.5), (10, 8, 5.0), (32, 16, 20.0)])
def test_nt_xent_is_simclr_cross_entropy(n, d, alpha):
    z1, z2 = _views(n, d, seed=n + 7 * d)
    z = torch.nn.functional.normalize(torch.cat([z1, z2]), dim=1)
    logits = alpha * z @ z.T
    logits.fill_diagonal_(float("-inf"))
    targets = torch.cat([torch.arange(n, 2 * n), torch.arange(n)])
    expected = torch.nn.functional.cross_entropy(logits, targets)
    torch.testing.assert_close(generalized_nt_xent_loss(z1, z2, alpha), expected, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("n, d, alpha", [(2, 3, 1.0), (6, 5, 0.2), (16, 8, 10.0)])
def test_dcl_strictly_below_nt_xent_by_the_positive_term(n, d, alpha):
    z1, z2 = _views(n, d, seed=3 * n + d)
    dcl = decoupled_contrastive_loss(z1, z2, alpha)
    nt_xent = generalized_nt_xent_loss(z1, z2, alpha)
    assert dcl < nt_xent
    # the gap is (1/2n) Σ_i log(1 + exp(α s_{i,p(i)}) / Σ_{k∉{i,p(i)}} exp(α s_ik)), from the literal similarities
    views, two_n = _normalised_views(z1, z2), 2 * n
    gap = 0.0
    for i in range(two_n):
        p = (i + n) % two_n
        sims = [sum(a * b for a, b in zip(views[i], views[k], strict=True)) for k in range(two_n)]
        negatives = sum(math.exp(alpha * sims[k]) for k in range(two_n) if k not in (i, p))
        gap += math.log1p(math.exp(alpha * sims[p]) / negatives)
    assert math.isclose((nt_xent - dcl).item(), gap / two_n, rel_tol=1e-10)


def _mean_log_sum_exp(z1, z2, alpha):
    views = _normalised_views(z1, z2)
    total = 0.0
    for i, v in enumerate(views):
        total += math.log(
            sum(math.exp(alpha * sum(a * b for a, b in zip(v, w, strict=True))) for k, w in enumerate(views) if k != i)
        )
    return total / len(views)


@pytest.mark.parametrize("n, d, alpha", [(4, 3, 0.5), (8, 6, 5.0)])
def test_nt_xent_increases_with_weight_when_log_sum_exp_positive(n, d, alpha):
    z1, z2 = _views(n, d, seed=11 * n + d)
    lse = _mean_log_sum_exp(z1, z2, alpha)
    assert lse > 0
    weights = [0.1, 0.5, 1.0, 2.0, 4.0]
    values = [generalized_nt_xent_loss(z1, z2, alpha, w).item() for w in weights]
    assert all(a < b for a, b in pairwise(values))
    # linear in the weight, with slope the mean log-sum-exp
    assert math.isclose(values[-1] - values[0], (weights[-1] - weights[0]) * lse, rel_tol=1e-10)


def test_nt_xent_decreases_with_weight_when_log_sum_exp_negative():
    # n = 1 with opposite views: the only other view is the positive, s = −1, log-sum-exp = −α < 0
    z1 = torch.tensor([[1.0, 2.0, -0.5]], dtype=torch.float64)
    alpha = 3.0
    values = [generalized_nt_xent_loss(z1, -z1, alpha, w).item() for w in (0.5, 1.0, 2.0)]
    assert values[0] > values[1] > values[2]
    assert math.isclose(values[1], 0.0, abs_tol=1e-12)  # −α s + α s
    assert math.isclose(values[2], -alpha, rel_tol=1e-12)  # α − 2α


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("collapsed", [False, True])
@pytest.mark.parametrize("loss", ["nt_xent", "dcl"])
def test_stable_at_large_alpha_with_identical_views(dtype, collapsed, loss):
    g = torch.Generator().manual_seed(5)
    z = torch.randn(1 if collapsed else 16, 8, generator=g, dtype=dtype).expand(16, 8).clone()
    z1 = z.clone().requires_grad_(True)
    z2 = z.clone().requires_grad_(True)
    value = generalized_nt_xent_loss(z1, z2, 1e4, 1.5) if loss == "nt_xent" else decoupled_contrastive_loss(z1, z2, 1e4)
    value.backward()
    assert value.dtype == dtype
    assert torch.isfinite(value)
    assert torch.isfinite(z1.grad).all() and torch.isfinite(z2.grad).all()
    if collapsed and loss == "dcl":
        # every similarity is 1: −α + log(2n − 2) + α
        assert math.isclose(value.item(), math.log(30), rel_tol=1e-3, abs_tol=5e-3 if dtype == torch.float32 else 1e-9)


@pytest.mark.parametrize("loss", ["nt_xent", "dcl"])
def test_float32_matches_float64_and_keeps_dtype(loss):
    z1, z2 = _views(12, 6, seed=3)
    fn = (
        (lambda a, b: generalized_nt_xent_loss(a, b, 4.0, 0.7))
        if loss == "nt_xent"
        else (lambda a, b: decoupled_contrastive_loss(a, b, 4.0))
    )
    v64 = fn(z1, z2)
    v32 = fn(z1.float(), z2.float())
    assert v64.dtype == torch.float64 and v32.dtype == torch.float32
    assert math.isclose(v32.item(), v64.item(), rel_tol=1e-5)


@pytest.mark.parametrize("loss", ["nt_xent", "dcl"])
def test_invariant_to_rescaling_the_inputs(loss):
    z1, z2 = _views(7, 5, seed=9)
    g = torch.Generator().manual_seed(10)
    scale1 = torch.rand(7, 1, generator=g, dtype=torch.float64) * 1e3 + 1e-3
    scale2 = torch.rand(7, 1, generator=g, dtype=torch.float64) * 1e-2 + 1e-4
    fn = (
        (lambda a, b: generalized_nt_xent_loss(a, b, 3.0, 1.3))
        if loss == "nt_xent"
        else (lambda a, b: decoupled_contrastive_loss(a, b, 3.0))
    )
    torch.testing.assert_close(fn(z1 * scale1, z2 * scale2), fn(z1, z2), rtol=1e-12, atol=1e-12)
    torch.testing.assert_close(fn(100.0 * z1, 100.0 * z2), fn(z1, z2), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("alpha", [0.0, -1.0, float("nan"), float("inf")])
@pytest.mark.parametrize("loss", ["nt_xent", "dcl"])
def test_bad_alpha(alpha, loss):
    z1, z2 = _views(3, 2, seed=0)
    fn = generalized_nt_xent_loss if loss == "nt_xent" else decoupled_contrastive_loss
    with pytest.raises(ValueError, match=rf"alpha.*{re.escape(str(alpha))}"):
        fn(z1, z2, alpha)


@pytest.mark.parametrize("weight", [0.0, -2.5, float("nan"), float("inf")])
def test_bad_weight(weight):
    z1, z2 = _views(3, 2, seed=0)
    with pytest.raises(ValueError, match=rf"weight.*{re.escape(str(weight))}"):
        generalized_nt_xent_loss(z1, z2, 1.0, weight)


@pytest.mark.parametrize("shape1, shape2", [((3, 4), (3, 5)), ((3, 4), (2, 4)), ((4,), (4,)), ((2, 3, 4), (2, 3, 4))])
@pytest.mark.parametrize("loss", ["nt_xent", "dcl"])
def test_bad_shapes(shape1, shape2, loss):
    fn = generalized_nt_xent_loss if loss == "nt_xent" else decoupled_contrastive_loss
    with pytest.raises(ValueError, match=re.escape(f"{shape1} and {shape2}")):
        fn(torch.ones(shape1), torch.ones(shape2), 1.0)


def test_dcl_needs_two_images():
    with pytest.raises(ValueError, match="n=1"):
        decoupled_contrastive_loss(torch.ones(1, 3), torch.ones(1, 3), 1.0)
    generalized_nt_xent_loss(torch.ones(1, 3), torch.ones(1, 3), 1.0)  # NT-Xent allows n = 1


@pytest.mark.parametrize("loss", ["nt_xent", "dcl"])
def test_gradcheck(loss):
    z1, z2 = _views(3, 4, seed=21)
    z1.requires_grad_(True)
    z2.requires_grad_(True)
    fn = (
        (lambda a, b: generalized_nt_xent_loss(a, b, 2.5, 0.8))
        if loss == "nt_xent"
        else (lambda a, b: decoupled_contrastive_loss(a, b, 2.5))
    )
    assert torch.autograd.gradcheck(fn, (z1, z2), eps=1e-6, atol=1e-8, rtol=1e-6)
