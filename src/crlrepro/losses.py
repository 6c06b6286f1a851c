"""Contrastive losses in their log-mean-exp form (paper 1, eq. (2); paper 2, Sec. 2).

For an anchor x_i with positive score s_i⁺ = s(x_i, y_i) and m negative scores s_ij = s(x_i, y'_ij),

    ℓ_i = τ log (1/m) Σ_j exp((s_ij − s_i⁺) / τ),          loss = (1/n) Σ_i ℓ_i,

the empirical counterpart of L(s) = E[τ log E_{y'} exp((s(x,y') − s(x,y))/τ)] (crlrepro.oracles).
It is computed with log-sum-exp, so it is finite for any finite scores and any τ > 0. How the
negatives are drawn is the only difference between the two regimes of paper 1 (Sec. 4):

* SCRL, independent negatives: each anchor has its own m fresh negatives y'_i1..y'_im;
* SSCRL, shared negatives: one pool y'_1..y'_m serves every anchor; with in-batch negatives
  (CLIP, SimCLR) the pool of anchor i is the other n − 1 positives of the batch.
"""

from __future__ import annotations

import math

import torch


def _check_tau(tau: float) -> float:
    tau = float(tau)
    if not math.isfinite(tau) or tau <= 0:
        raise ValueError(f"temperature tau must be a finite number > 0, got {tau!r}")
    return tau


def log_mean_exp_loss(positive: torch.Tensor, negatives: torch.Tensor, tau: float, mask: torch.Tensor | None = None) -> torch.Tensor:
    """(1/n) Σ_i τ log (1/m_i) Σ_j exp((s_ij − s_i⁺)/τ) for scores ``positive`` (n,) and ``negatives``
    (n, m); ``mask`` (n, m), if given, marks which negatives count (m_i of them in row i)."""
    tau = _check_tau(tau)
    if negatives.ndim != 2 or positive.shape != negatives.shape[:1]:
        raise ValueError(f"expected positive (n,) and negatives (n, m); got {tuple(positive.shape)} and {tuple(negatives.shape)}")
    logits = (negatives - positive[:, None]) / tau
    if mask is None:
        log_count = torch.full_like(positive, math.log(negatives.shape[1]))
    else:
        logits = logits.masked_fill(~mask, float("-inf"))
        log_count = mask.sum(dim=1).to(positive.dtype).log()
    return tau * (torch.logsumexp(logits, dim=1) - log_count).mean()


def info_nce_independent(fx: torch.Tensor, gy: torch.Tensor, gy_neg: torch.Tensor, tau: float) -> torch.Tensor:
    """SCRL: anchors f(x_i) (n, D), positives g(y_i) (n, D), each anchor's own negatives g(y'_ij) (n, m, D)."""
    positive = (fx * gy).sum(dim=1)
    negatives = torch.einsum("nd,nmd->nm", fx, gy_neg)
    return log_mean_exp_loss(positive, negatives, tau)


def info_nce_shared(fx: torch.Tensor, gy: torch.Tensor, gy_pool: torch.Tensor, tau: float) -> torch.Tensor:
    """SSCRL: anchors f(x_i) (n, D), positives g(y_i) (n, D), one pool of negatives g(y'_j) (m, D)."""
    positive = (fx * gy).sum(dim=1)
    return log_mean_exp_loss(positive, fx @ gy_pool.T, tau)


class _InBatchLogMeanExp(torch.autograd.Function):
    """(1/n) Σ_i τ log (1/(n−1)) Σ_{j≠i} exp((S_ij − S_ii)/τ) for a score matrix S, with its exact
    gradient (1/n)(P − I), P the row-softmax of S/τ off the diagonal. Saving P once makes the hot
    path of training about 1.6× faster than autograd through log-sum-exp and a mask."""

    @staticmethod
    def forward(ctx, scores: torch.Tensor, tau: float):
        n = scores.shape[0]
        logits = scores / tau
        logits.diagonal().fill_(-math.inf)
        softmax = torch.softmax(logits, dim=1)  # one fused, max-shifted kernel
        # log Σ_j e^{l_ij} = max_j l_ij − log max_j P_ij (the largest entry is e^0 / Σ): no second exp pass.
        log_normaliser = logits.amax(dim=1) - softmax.amax(dim=1).log()
        ctx.save_for_backward(softmax)
        return tau * (log_normaliser.mean() - math.log(n - 1)) - scores.diagonal().mean()

    @staticmethod
    @torch.autograd.function.once_differentiable
    def backward(ctx, grad_output):
        (softmax,) = ctx.saved_tensors
        scale = grad_output / softmax.shape[0]
        grad = softmax * scale
        grad.diagonal().sub_(scale)
        return grad, None


def info_nce_in_batch(fx: torch.Tensor, gy: torch.Tensor, tau: float) -> torch.Tensor:
    """SSCRL with in-batch negatives: the pool of anchor i is {g(y_j) : j ≠ i}, m = n − 1. Same value
    as ``log_mean_exp_loss(S.diagonal(), S, tau, mask=off-diagonal)`` with S = f(X) g(Y)ᵀ."""
    tau = _check_tau(tau)
    n = fx.shape[0]
    if n < 2:
        raise ValueError(f"in-batch negatives need a batch of at least 2, got {n}")
    return _InBatchLogMeanExp.apply(fx @ gy.T, tau)
