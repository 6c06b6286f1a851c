"""Paper 3 (Lee, TMLR 2025): the two bounds that turn the supervised prototype objective into a contrastive
loss, evaluated on given features. s is the cosine similarity, f̄ = f/‖f‖ the L2-normalised representation,
α = 1/temperature. Everything is computed in float64, vectorised and in chunks (at most about
``CHUNK_BYTES`` = 256 MiB of intermediates per chunk), with log-sum-exp for the exponential moments.

Attraction (Thm 4.4, Jensen), for an image x and a view t:

    −s(f(t(x)), E_T f(T(x)))  ≤  −E_T s(f(t(x)), f(T(x))).

Estimate: E_T is the empirical measure of the R given views t_1 … t_R of x (t itself included). With
m(x) = (1/R) Σ_r f̄(t_r(x)) and each view t_r in turn playing t,

    lhs = −cos(f̄(t_r(x)), m(x)) = −f̄_r·m / ‖m‖,      rhs = −(1/R) Σ_{r'} cos(f̄_r, f̄_{r'}) = −f̄_r·m,

so rhs = ‖m‖·lhs and slack = rhs − lhs = (f̄_r·m)(1/‖m‖ − 1). Since ‖m‖ ≤ 1, the empirical inequality
holds iff f̄_r·m ≥ 0 or ‖m‖ = 1: it is a real check, not an identity. It fails for a view whose dot
product with the mean of the other R − 1 views is below −1/(R − 1); with R = 2 it always holds
(f̄_1·m = (1 + cos(f̄_1, f̄_2))/2 ≥ 0). The same algebra applies to the population statement (m = E_T f̄),
so the inequality as summarised needs f̄(t(x))·E_T f̄(T(x)) ≥ 0, a condition the summary does not state;
we measure it rather than assume it.

Repulsion (Thm 4.6, balanced data), for an anchor z = f(t(x)) of class y:

    max_{y'≠y} s(z, E_{T',X'|y'} f(T'(X')))
        ≤  E_{T'}[ (1/(να)) log E_{X'} exp(α s(z, f(T'(X')))) ] + (1/(να)) log n.

Estimate, from a pool of M images X' with R' views each, features (M, R', d) and labels (M,):
E_{T',X'|y'} f̄ is the class prototype μ̂_{y'} = the mean of f̄ over the pool images of class y' and all
their views, and s(z, μ̂_{y'}) = cos(z, μ̂_{y'}) (the prototype normalised); E_{X'} is the mean over all
M pool images (the marginal over classes), E_{T'} the mean over the view index r'. So

    lhs = max_{y'≠y} cos(z, μ̂_{y'}),
    rhs = (1/R') Σ_{r'} (1/(να)) [ logsumexp_m(α cos(z, f̄(pool[m, r']))) − log M ] + (1/(να)) log n.

Our reading of n and ν (neither is defined in the summary): n is the number of classes, from the
balanced-class assumption P(y') = 1/n (default: the number of distinct pool labels), and ν > 0 is a
parameter (default 1). A derivation of ours (not in the summary) gives ν a role consistent with the
formula: if every pool class has the same number of images and n ≥ the number of pool classes, then for
each r' max_{y'} mean_{m∈y'} s ≤ (1/α) log(n · mean_m exp(α s)), and averaging over r' gives
max_{y'} f̄(z)·μ̂_{y'} ≤ B := ν·(rhs) exactly, for the dot product with the unnormalised prototype. The
cosine divides by $‖μ̂_{y'}‖ ≤ 1$, so lhs ≤ rhs is guaranteed when $0 < ν ≤ ‖μ̂_{y*}‖$ (y* the maximising
class, reported as ``nearest_other_norm``) and rhs ≥ 0; ν as a lower bound on prototype norms is one
reading. At ν = 1 the inequality is guaranteed only for unit-norm prototypes (the log n term usually
covers the gap); with ν > 1 or an unbalanced pool it can fail, which the returned slack shows.
"""

from __future__ import annotations

import math
from numbers import Integral

import numpy as np
import torch

__all__ = ["attraction_bound", "bound_summary", "CHUNK_BYTES", "repulsion_bound"]

CHUNK_BYTES = 2**28  # about 256 MiB of float64 intermediates per chunk


def _features(x, name: str, ndim: int) -> torch.Tensor:
    t = torch.as_tensor(np.asarray(x) if not isinstance(x, torch.Tensor) else x).detach().to("cpu", torch.float64)
    if t.ndim != ndim:
        raise ValueError(f"{name} must have {ndim} dimensions, got shape {tuple(t.shape)}")
    if any(s == 0 for s in t.shape):
        raise ValueError(f"{name} must not be empty, got shape {tuple(t.shape)}")
    if not torch.isfinite(t).all():
        raise ValueError(f"{name} contains non-finite values")
    return t


def _unit(t: torch.Tensor, name: str) -> torch.Tensor:
    norm = t.norm(dim=-1, keepdim=True)
    if (norm == 0).any():
        where = torch.nonzero(norm[..., 0] == 0)[:5].tolist()
        raise ValueError(f"{name} contains zero vectors (cosine undefined), e.g. at index {where}")
    return t / norm


def _labels(y, name: str, length: int) -> np.ndarray:
    y = np.asarray(y.cpu() if isinstance(y, torch.Tensor) else y)
    if y.shape != (length,):
        raise ValueError(f"{name} must have shape ({length},), got {y.shape}")
    return y


def _chunk(chunk_size, per_row_bytes: int) -> int:
    if chunk_size is None:
        return max(1, CHUNK_BYTES // max(1, per_row_bytes))
    if isinstance(chunk_size, bool) or not isinstance(chunk_size, Integral) or chunk_size < 1:
        raise ValueError(f"chunk_size must be a positive integer or None, got {chunk_size!r}")
    return int(chunk_size)


def _positive(value, name: str) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a finite number > 0, got {value!r}") from None
    if not (v > 0 and math.isfinite(v)):
        raise ValueError(f"{name} must be a finite number > 0, got {value!r}")
    return v


def attraction_bound(views, *, chunk_size: int | None = None) -> dict[str, np.ndarray]:
    """Both sides of Thm 4.4 (module docstring) for every (image, view) pair of ``views`` (N, R, d), R ≥ 2,
    the R views estimating E_T (the view t_r itself included). Returns float64 arrays of length N·R, in
    image-major order (index n·R + r): ``lhs`` = −cos(f̄(t_r(x_n)), m(x_n)), ``rhs`` = −mean_{r'}
    cos(f̄(t_r(x_n)), f̄(t_{r'}(x_n))), ``slack`` = rhs − lhs, and ``mean_norm`` = ‖m(x_n)‖ repeated over
    the views. The inequality holds at a point iff f̄_r·m ≥ 0 or ‖m‖ = 1. Proof: with unit views f̄_r' and
    $m = mean_{r'} f̄_{r'}$ (so $0 < ‖m‖ ≤ 1$), $rhs = −mean_{r'} f̄_r·f̄_{r'} = −f̄_r·m$ and $lhs = −f̄_r·m/‖m‖$, so
    lhs ≤ rhs ⟺ (f̄_r·m)(1/‖m‖ − 1) ≥ 0 ⟺ f̄_r·m ≥ 0 or ‖m‖ = 1. The share of points where the inequality
    fails is therefore the share of views pointing away from their image's mean view (S1's attraction row
    reports it as its measured value). ``chunk_size`` = images per chunk (default: as many as fit in
    ``CHUNK_BYTES``)."""
    v = _features(views, "views", 3)
    n, r, d = v.shape
    if r < 2:
        raise ValueError(f"attraction_bound needs R >= 2 views per image, got R = {r}")
    step = _chunk(chunk_size, 8 * r * (3 * d + 2 * r))
    unit_all = _unit(v, "views")
    lhs, rhs, norms = [], [], []
    for start in range(0, n, step):
        unit = unit_all[start : start + step]  # (c, R, d)
        mean = unit.mean(dim=1)  # m(x), (c, d)
        mean_norm = mean.norm(dim=1)  # (c,)
        if (mean_norm == 0).any():
            bad = (start + torch.nonzero(mean_norm == 0)[:, 0])[:5].tolist()
            raise ValueError(f"the mean view m(x) is the zero vector for image(s) {bad}: cos(., m(x)) is undefined")
        dots = torch.einsum("crd,cd->cr", unit, mean)  # f̄_r·m
        gram = unit @ unit.transpose(1, 2)  # cos(f̄_r, f̄_r'), (c, R, R)
        lhs.append(-dots / mean_norm[:, None])
        rhs.append(-gram.mean(dim=2))
        norms.append(mean_norm[:, None].expand(-1, r))
    lhs_a = torch.cat(lhs).reshape(-1).numpy()
    rhs_a = torch.cat(rhs).reshape(-1).numpy()
    return {"lhs": lhs_a, "rhs": rhs_a, "slack": rhs_a - lhs_a, "mean_norm": torch.cat(norms).reshape(-1).numpy()}


def repulsion_bound(
    anchors,
    anchor_labels,
    pool,
    pool_labels,
    alpha: float,
    nu: float = 1.0,
    num_classes: int | None = None,
    *,
    chunk_size: int | None = None,
) -> dict[str, np.ndarray]:
    """Both sides of Thm 4.6 (module docstring) for every anchor f(t(x)) in ``anchors`` (A, d) with labels
    ``anchor_labels`` (A,), against a pool of M images with R' views, features ``pool`` (M, R', d) and
    labels ``pool_labels`` (M,); α = ``alpha`` (1/temperature), ν = ``nu``, n = ``num_classes`` (default:
    the number of distinct pool labels). Returns float64 arrays over the anchors: ``lhs`` = max_{y'≠y}
    cos(anchor, μ̂_{y'}), ``rhs`` = mean_{r'} (1/(να)) log mean_m exp(α cos(anchor, f̄(pool[m, r']))) +
    log(n)/(να), ``log_n_term`` = log(n)/(να), ``slack`` = rhs − lhs, ``nearest_other_class`` (the
    maximising y', as a pool label) and ``nearest_other_norm`` = ‖μ̂_{y'}‖ of that class. ``chunk_size``
    = anchors per chunk (default: as many as fit in ``CHUNK_BYTES``)."""
    a = _features(anchors, "anchors", 2)
    p = _features(pool, "pool", 3)
    n_anchor, d = a.shape
    m, rp, dp = p.shape
    if dp != d:
        raise ValueError(f"pool feature dimension {dp} differs from the anchors' {d}")
    ya = _labels(anchor_labels, "anchor_labels", n_anchor)
    yp = _labels(pool_labels, "pool_labels", m)
    alpha = _positive(alpha, "alpha")
    nu = _positive(nu, "nu")
    classes, pool_index = np.unique(yp, return_inverse=True)
    k = len(classes)
    if k < 2:
        raise ValueError(f"the pool needs at least 2 classes (max over y' != y), got {k}: {classes.tolist()}")
    missing = np.setdiff1d(np.unique(ya), classes)
    if len(missing):
        raise ValueError(f"anchor label(s) {missing[:10].tolist()} not present in pool_labels (classes {classes[:10].tolist()})")
    if num_classes is None:
        n_classes = k
    elif isinstance(num_classes, bool) or not isinstance(num_classes, Integral) or num_classes < max(2, k):
        raise ValueError(f"num_classes must be an integer >= max(2, number of pool classes = {k}), got {num_classes!r}")
    else:
        n_classes = int(num_classes)
    anchor_index = torch.as_tensor(np.searchsorted(classes, ya))

    unit_pool = _unit(p, "pool")  # (M, R', d)
    onehot = torch.zeros(m, k, dtype=torch.float64)
    onehot[torch.arange(m), torch.as_tensor(pool_index.reshape(-1))] = 1.0
    prototypes = (onehot.T @ unit_pool.mean(dim=1)) / onehot.sum(dim=0)[:, None]  # μ̂_{y'}, (K, d)
    proto_norm = prototypes.norm(dim=1)
    if (proto_norm == 0).any():
        bad = classes[(proto_norm == 0).numpy()][:10].tolist()
        raise ValueError(f"the prototype of class(es) {bad} is the zero vector: its cosine is undefined")
    proto_unit = prototypes / proto_norm[:, None]
    flat_pool = unit_pool.reshape(m * rp, d)
    unit_anchors = _unit(a, "anchors")
    log_n_term = math.log(n_classes) / (nu * alpha)

    step = _chunk(chunk_size, 8 * (3 * m * rp + 2 * k + d))
    lhs, rhs, arg = [], [], []
    for start in range(0, n_anchor, step):
        z = unit_anchors[start : start + step]  # (c, d)
        proto_cos = z @ proto_unit.T  # (c, K)
        own = anchor_index[start : start + step]
        proto_cos[torch.arange(len(z)), own] = -math.inf  # exclude y' = y
        best, best_index = proto_cos.max(dim=1)
        lhs.append(best)
        arg.append(best_index)
        scaled = alpha * (z @ flat_pool.T).reshape(len(z), m, rp)  # α cos(z, f̄(pool[m, r']))
        log_moment = torch.logsumexp(scaled, dim=1) - math.log(m)  # log mean_m exp, (c, R')
        rhs.append(log_moment.mean(dim=1) / (nu * alpha) + log_n_term)
    best_index = torch.cat(arg).numpy()
    lhs_a, rhs_a = torch.cat(lhs).numpy(), torch.cat(rhs).numpy()
    return {
        "lhs": lhs_a,
        "rhs": rhs_a,
        "log_n_term": np.full(n_anchor, log_n_term),
        "slack": rhs_a - lhs_a,
        "nearest_other_class": classes[best_index],
        "nearest_other_norm": proto_norm.numpy()[best_index],
    }


def bound_summary(result: dict) -> dict[str, float]:
    """Summary of a bound's result (``attraction_bound`` or ``repulsion_bound``): the means of lhs, rhs and
    slack, the share of points where lhs ≤ rhs (+1e-12), the minimum slack, and the number of points."""
    lhs = np.asarray(result["lhs"], dtype=np.float64)
    rhs = np.asarray(result["rhs"], dtype=np.float64)
    slack = rhs - lhs
    return {
        "mean_lhs": float(lhs.mean()),
        "mean_rhs": float(rhs.mean()),
        "mean_slack": float(slack.mean()),
        "share_holds": float(np.mean(lhs <= rhs + 1e-12)),
        "min_slack": float(slack.min()),
        "points": int(lhs.size),
    }
