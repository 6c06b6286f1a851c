"""Contrastive losses in their log-mean-exp form (paper 1, eq. (2); paper 2, Sec. 2).

For an anchor x_i with positive score s_i⁺ = s(x_i, y_i) and m negative scores s_ij = s(x_i, y'_ij),

    ℓ_i = τ log (1/m) Σ_j exp((s_ij − s_i⁺) / τ),          loss = (1/n) Σ_i ℓ_i,

the empirical counterpart of L(s) = E[τ log E_{y'} exp((s(x,y') − s(x,y))/τ)] (crlrepro.theory.oracles).
It is computed with log-sum-exp, so it is finite for any finite scores and any τ > 0. How the
negatives are drawn is the only difference between the two regimes of paper 1 (Sec. 4):

* SCRL, independent negatives: each anchor has its own m fresh negatives y'_i1..y'_im;
* SSCRL, shared negatives: one pool y'_1..y'_m serves every anchor; with in-batch negatives
  (CLIP, SimCLR) the pool of anchor i is the other n − 1 positives of the batch.
"""

from __future__ import annotations

import math

import torch
from torch import nn

from crlrepro.theory.numerics import check_temperature

__all__ = [
    "balanced_contrastive_loss",
    "contrastive_loss",
    "decoupled_contrastive_loss",
    "generalized_nt_xent_loss",
    "info_nce_in_batch",
    "info_nce_independent",
    "info_nce_shared",
    "log_mean_exp_loss",
    "LOSSES",
    "SIMILARITIES",
    "similarity_matrix",
    "supervised_prototype_loss",
]


def log_mean_exp_loss(
    positive: torch.Tensor, negatives: torch.Tensor, tau: float, mask: torch.Tensor | None = None
) -> torch.Tensor:
    """(1/n) Σ_i τ log (1/m_i) Σ_j exp((s_ij − s_i⁺)/τ) for scores ``positive`` (n,) and ``negatives``
    (n, m); ``mask`` (n, m), if given, marks which negatives count (m_i of them in row i). Stacks
    ([..., n] and [..., n, m], e.g. the members of an ensemble) give one loss each, shape [...]."""
    tau = check_temperature(tau)
    if negatives.ndim < 2 or positive.shape != negatives.shape[:-1]:
        raise ValueError(f"expected positive (n,) and negatives (n, m); got {tuple(positive.shape)} and {tuple(negatives.shape)}")
    logits = (negatives - positive[..., None]) / tau
    if mask is None:
        log_count = torch.full_like(positive, math.log(negatives.shape[-1]))
    else:
        logits = logits.masked_fill(~mask, float("-inf"))
        log_count = mask.sum(dim=-1).to(positive.dtype).log()
    return tau * (torch.logsumexp(logits, dim=-1) - log_count).mean(dim=-1)


def info_nce_independent(fx: torch.Tensor, gy: torch.Tensor, gy_neg: torch.Tensor, tau: float) -> torch.Tensor:
    """SCRL: anchors f(x_i) (n, D), positives g(y_i) (n, D), each anchor's own negatives g(y'_ij) (n, m, D)
    (or stacks of them with the same leading dimensions: one loss each)."""
    positive = (fx * gy).sum(dim=-1)
    negatives = torch.einsum("...nd,...nmd->...nm", fx, gy_neg)
    return log_mean_exp_loss(positive, negatives, tau)


def info_nce_shared(fx: torch.Tensor, gy: torch.Tensor, gy_pool: torch.Tensor, tau: float) -> torch.Tensor:
    """SSCRL: anchors f(x_i) (n, D), positives g(y_i) (n, D), one pool of negatives g(y'_j) (m, D) (or stacks of
    them with the same leading dimensions: one loss each)."""
    positive = (fx * gy).sum(dim=-1)
    return log_mean_exp_loss(positive, fx @ gy_pool.transpose(-2, -1), tau)


class _InBatchLogMeanExp(torch.autograd.Function):
    """(1/n) Σ_i τ log (1/(n−1)) Σ_{j≠i} exp((S_ij − S_ii)/τ) for a score matrix S (or a stack of them, [..., n, n],
    one value each), with its exact gradient (1/n)(P − I), P the row-softmax of S/τ off the diagonal. Saving P once
    makes the hot path of training about 1.6× faster than autograd through log-sum-exp and a mask."""

    @staticmethod
    def forward(ctx, scores: torch.Tensor, tau: float):
        n = scores.shape[-1]
        logits = scores / tau
        logits.diagonal(dim1=-2, dim2=-1).fill_(-math.inf)
        softmax = torch.softmax(logits, dim=-1)  # one fused, max-shifted kernel
        # log Σ_j e^{l_ij} = max_j l_ij − log max_j P_ij (the largest entry is e^0 / Σ): no second exp pass.
        log_normaliser = logits.amax(dim=-1) - softmax.amax(dim=-1).log()
        ctx.save_for_backward(softmax)
        return tau * (log_normaliser.mean(dim=-1) - math.log(n - 1)) - scores.diagonal(dim1=-2, dim2=-1).mean(dim=-1)

    @staticmethod
    @torch.autograd.function.once_differentiable
    def backward(ctx, grad_output):
        (softmax,) = ctx.saved_tensors
        scale = grad_output[..., None, None] / softmax.shape[-1]
        grad = softmax * scale
        grad.diagonal(dim1=-2, dim2=-1).sub_(scale[..., 0])
        return grad, None


def info_nce_in_batch(fx: torch.Tensor, gy: torch.Tensor, tau: float) -> torch.Tensor:
    """SSCRL with in-batch negatives: the pool of anchor i is {g(y_j) : j ≠ i}, m = n − 1. Same value
    as ``log_mean_exp_loss(S.diagonal(), S, tau, mask=off-diagonal)`` with S = f(X) g(Y)ᵀ. For stacks
    fx [..., n, D], gy [..., n, D] (members of an ensemble) one loss per matrix, shape [...]."""
    tau = check_temperature(tau)
    n = fx.shape[-2]
    if n < 2:
        raise ValueError(f"in-batch negatives need a batch of at least 2, got {n}")
    return _InBatchLogMeanExp.apply(fx @ gy.transpose(-2, -1), tau)


# --- Contrastive losses that paper 3 (Lee, TMLR 2025) compares its balanced loss with -------------------------------
#
# Both act on the 2n views Z = [z1; z2] of a SimCLR batch (z1[i], z2[i] two views of image i), L2-normalised, with
# cosine similarities s_ik = ⟨z̄_i, z̄_k⟩ and the positive of anchor i its other view p(i) = i ± n. Unlike the
# log-mean-exp losses above they are in nats (no factor τ = 1/α in front), as SimCLR's cross-entropy is.


def _check_positive_finite(name: str, value: float) -> float:
    value = float(value)
    if not (value > 0 and math.isfinite(value)):
        raise ValueError(f"{name} must be a finite number > 0, got {value}")
    return value


def _two_view_logits(z1: torch.Tensor, z2: torch.Tensor, alpha: float) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """α s_ik for all pairs of the 2n normalised views [z1; z2] (2n, 2n), the index of each anchor's positive p(i)
    (2n,), and the boolean identity mask (2n, 2n) marking the self-similarities s_ii."""
    if z1.ndim != 2 or z1.shape != z2.shape or z1.shape[1] < 1:
        raise ValueError(f"z1 and z2 must both have shape (n, d) with d >= 1; got {tuple(z1.shape)} and {tuple(z2.shape)}")
    n = z1.shape[0]
    z = torch.nn.functional.normalize(torch.cat([z1, z2]), dim=1)
    logits = alpha * (z @ z.T)
    index = torch.arange(2 * n, device=z.device)
    positive = (index + n) % (2 * n)
    return logits, positive, index[:, None] == index[None, :]


def generalized_nt_xent_loss(z1: torch.Tensor, z2: torch.Tensor, alpha: float, weight: float = 1.0) -> torch.Tensor:
    """The generalised contrastive loss of Chen, Luo & Li (NeurIPS 2021, "Intriguing properties of contrastive
    losses") with SimCLR's NT-Xent: for the 2n normalised views Z = [z1; z2], s_ik their cosine similarity, anchor i
    with positive p(i) (i ↔ i + n), α > 0 the inverse temperature and ``weight`` = w > 0,

        ℓ_i = −α s_{i,p(i)} + w · log Σ_{k≠i} exp(α s_ik),          loss = (1/2n) Σ_{i=1}^{2n} ℓ_i,

    the sum over the 2n − 1 other views, the positive included. w = 1 is exactly SimCLR's NT-Xent, the
    cross-entropy of the softmax over the 2n − 1 other views with target p(i). The weight w on the log-sum-exp
    (repulsion) term is what the λ/ν exponent of paper 3's balanced loss (crlrepro.experiments.supervised_view) also weighs:
    α × that loss is −α s(z, z⁺) + (λ/ν) log Σ exp(α s), with cross-view negatives only (n terms) rather than the
    2n − 1 other views here. n = 1 is allowed (the denominator holds the positive only). The result has the
    inputs' dtype; log-sum-exp keeps it finite for any α (e.g. 1e4) and identical views."""
    alpha = _check_positive_finite("alpha", alpha)
    weight = _check_positive_finite("weight", weight)
    logits, positive, self_mask = _two_view_logits(z1, z2, alpha)
    attraction = logits.gather(1, positive[:, None]).squeeze(1)
    repulsion = torch.logsumexp(logits.masked_fill(self_mask, float("-inf")), dim=1)
    return (-attraction + weight * repulsion).mean()


def decoupled_contrastive_loss(z1: torch.Tensor, z2: torch.Tensor, alpha: float) -> torch.Tensor:
    """Decoupled contrastive learning (Yeh et al., ECCV 2022, "Decoupled contrastive learning"), without its
    optional von Mises–Fisher weighting: for the 2n normalised views Z = [z1; z2], s_ik their cosine similarity,
    anchor i with positive p(i) (i ↔ i + n) and α > 0 the inverse temperature,

        ℓ_i = −α s_{i,p(i)} + log Σ_{k∉{i, p(i)}} exp(α s_ik),          loss = (1/2n) Σ_{i=1}^{2n} ℓ_i,

    NT-Xent with the positive removed from the denominator (the 2n − 2 negatives only), so it is strictly smaller
    than ``generalized_nt_xent_loss(z1, z2, alpha)`` (by the mean of log(1 + exp(α s_{i,p(i)}) / Σ_neg)). Needs
    n ≥ 2 (otherwise there is no negative). The result has the inputs' dtype; log-sum-exp keeps it finite for any
    α (e.g. 1e4) and identical views."""
    alpha = _check_positive_finite("alpha", alpha)
    logits, positive, self_mask = _two_view_logits(z1, z2, alpha)
    if z1.shape[0] < 2:
        raise ValueError(
            f"decoupled contrastive loss needs n >= 2 images (2n - 2 >= 2 negatives per anchor), got n={z1.shape[0]}"
        )
    attraction = logits.gather(1, positive[:, None]).squeeze(1)
    positive_mask = torch.nn.functional.one_hot(positive, logits.shape[0]).bool()
    repulsion = torch.logsumexp(logits.masked_fill(self_mask | positive_mask, float("-inf")), dim=1)
    return (-attraction + repulsion).mean()


# --- Paper 3's balanced contrastive loss and its supervised reference ---------------------------------------------
#
# Balanced contrastive loss (paper 3, the bound combining Thms 4.4 and 4.6): for an anchor view
# z = f(t(x)), its positive z⁺ = f(t'(x)) and the second views z_{x'} = f(t'(x')) of the batch X̂,
#
#     ℓ(x) = (1/α) [ −log exp(α s(z, z⁺)) / ( Σ_{x'∈X̂} exp(α s(z, z_{x'})) )^{λ/ν} ]
#          = −s(z, z⁺) + (λ/ν)(1/α) log Σ_{x'∈X̂} exp(α s(z, z_{x'})),
#
# averaged over the batch and over both directions (view 1 → view 2 and view 2 → view 1). λ/ν = 1 is
# InfoNCE with cross-view negatives; λ/ν weighs repulsion against attraction.


SIMILARITIES = ("cosine", "dot", "neg_euclidean")


def similarity_matrix(a: torch.Tensor, b: torch.Tensor, kind: str) -> torch.Tensor:
    """s(a_i, b_j) for all pairs: ``cosine`` (normalised), ``dot`` (unnormalised inner product) or
    ``neg_euclidean`` (−‖a_i − b_j‖₂, unnormalised)."""
    if kind == "cosine":
        return nn.functional.normalize(a, dim=1) @ nn.functional.normalize(b, dim=1).T
    if kind == "dot":
        return a @ b.T
    if kind == "neg_euclidean":
        squared = (a * a).sum(1, keepdim=True) - 2.0 * a @ b.T + (b * b).sum(1)[None, :]
        return -squared.clamp_min(1e-12).sqrt()
    raise ValueError(f"unknown similarity {kind!r}; expected one of {', '.join(SIMILARITIES)}")


def balanced_contrastive_loss(
    z1: torch.Tensor, z2: torch.Tensor, alpha: float, ratio: float, similarity: str = "cosine"
) -> torch.Tensor:
    """The balanced contrastive loss (module docstring) of paired views z1[i], z2[i] (n, d), with
    α > 0 the inverse temperature and ``ratio`` = λ/ν > 0; log-sum-exp throughout."""
    if not (alpha > 0 and math.isfinite(alpha)):
        raise ValueError(f"alpha must be a finite number > 0, got {alpha}")
    if not (ratio > 0 and math.isfinite(ratio)):
        raise ValueError(f"lambda/nu must be a finite number > 0, got {ratio}")
    total = 0.0
    for a, b in ((z1, z2), (z2, z1)):
        s = similarity_matrix(a, b, similarity)
        total = total + (-s.diagonal() + ratio / alpha * torch.logsumexp(alpha * s, dim=1)).mean()
    return total / 2


def supervised_prototype_loss(z1: torch.Tensor, z2: torch.Tensor, labels: torch.Tensor, lam: float = 1.0) -> torch.Tensor:
    """The supervised prototype objective paper 3 starts from (Sec. 3), with labels: for a view
    z = f(t(x)) of an image of class y,

        ℓ(x) = −s(z, μ_y) + λ max_{y'≠y} s(z, μ_{y'}),      μ_k = E_{T,X|k} f̄(T(X)),

    s the cosine similarity, the prototypes μ_k estimated in the batch (the mean of the normalised
    features of both views of the batch's images of class k; classes absent from the batch are left
    out of the max), averaged over both views of every image. Its encoder is the reference the
    self-supervised losses approximate: it sees the labels they do not."""
    if not (lam > 0 and math.isfinite(lam)):
        raise ValueError(f"lambda must be a finite number > 0, got {lam}")
    z = nn.functional.normalize(torch.cat([z1, z2]), dim=1)
    y = torch.cat([labels, labels]).long()
    classes, index = torch.unique(y, return_inverse=True)
    if len(classes) < 2:
        raise ValueError(f"the supervised prototype objective needs at least 2 classes in a batch, got {len(classes)}")
    members = nn.functional.one_hot(index, len(classes)).to(z.dtype)  # (2n, K)
    prototypes = (members.T @ z) / members.sum(0)[:, None]  # μ_k, (K, d)
    cosine = z @ nn.functional.normalize(prototypes, dim=1).T  # s(z_i, μ_k), (2n, K)
    own = cosine.gather(1, index[:, None]).squeeze(1)
    others = cosine.masked_fill(members.bool(), float("-inf")).amax(dim=1)
    return (-own + lam * others).mean()


LOSSES = ("balanced", "nt_xent", "dcl", "supervised_prototype")


def contrastive_loss(z1: torch.Tensor, z2: torch.Tensor, loss: str, alpha: float, ratio: float, similarity: str) -> torch.Tensor:
    """The training loss of a paper-3 run: the balanced loss (λ/ν = ``ratio``, any similarity), or, with
    the cosine similarity, the paper's variants: the generalised NT-Xent (weight ``ratio`` on its
    log-sum-exp; 1 is SimCLR's NT-Xent) and the decoupled contrastive loss (``ratio`` must be 1);
    their equations are above."""
    if loss == "balanced":
        return balanced_contrastive_loss(z1, z2, alpha, ratio, similarity)
    if loss not in LOSSES:
        raise ValueError(f"unknown loss {loss!r}; expected one of {', '.join(LOSSES)}")
    if similarity != "cosine":
        raise ValueError(f"the {loss} loss is defined with the cosine similarity, got {similarity!r}")
    if loss == "nt_xent":
        return generalized_nt_xent_loss(z1, z2, alpha, weight=ratio)
    if loss == "supervised_prototype":
        raise ValueError("the supervised prototype objective needs the labels: supervised_prototype_loss")
    if ratio != 1.0:
        raise ValueError(f"the decoupled contrastive loss has no λ/ν; its ratio must be 1, got {ratio}")
    return decoupled_contrastive_loss(z1, z2, alpha)
