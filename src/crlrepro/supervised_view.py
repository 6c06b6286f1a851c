"""Paper 3 (Lee, TMLR 2025): self-supervised contrastive learning as an approximation of a supervised
prototype objective. The balanced contrastive loss, the similarities of its ablation, the encoders,
SimCLR-style training on banks of augmented views, and the prototype representation bias.

Balanced contrastive loss (paper 3, the bound combining Thms 4.4 and 4.6): for an anchor view
z = f(t(x)), its positive z⁺ = f(t'(x)) and the second views z_{x'} = f(t'(x')) of the batch X̂,

    ℓ(x) = (1/α) [ −log exp(α s(z, z⁺)) / ( Σ_{x'∈X̂} exp(α s(z, z_{x'})) )^{λ/ν} ]
         = −s(z, z⁺) + (λ/ν)(1/α) log Σ_{x'∈X̂} exp(α s(z, z_{x'})),

averaged over the batch and over both directions (view 1 → view 2 and view 2 → view 1). λ/ν = 1 is
InfoNCE with cross-view negatives; λ/ν weighs repulsion against attraction.

Prototype representation bias (paper 3, Sec. 4): the surrogate prototype of x is
μ̃(x) = E_T f̄(T(x)) and the class prototype of y is μ̂_y = E_{T,X|y} f̄(T(X)); the bias is

    b = E_{(x,y)} ‖ μ̃(x) − μ̂_y ‖₂,

with f̄ = f/‖f‖ the representation the cosine similarity sees, expectations over the configured
number of augmentation draws and over the evaluation images.
"""

from __future__ import annotations

import math

import numpy as np
import torch
from torch import nn

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


def balanced_contrastive_loss(z1: torch.Tensor, z2: torch.Tensor, alpha: float, ratio: float, similarity: str = "cosine") -> torch.Tensor:
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


class SmallCNN(nn.Module):
    """The default encoder: three 3×3 convolutions (32, 64, 128 channels; the last two with stride 2),
    batch norm and ReLU, global average pooling: a 128-dimensional representation."""

    def __init__(self, channels: int, width: int = 32):
        super().__init__()
        layers, c = [], channels
        for out, stride in ((width, 1), (2 * width, 2), (4 * width, 2)):
            layers += [nn.Conv2d(c, out, 3, stride=stride, padding=1, bias=False), nn.BatchNorm2d(out), nn.ReLU(inplace=True)]
            c = out
        self.features = nn.Sequential(*layers, nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.dim = c

    def forward(self, x):
        return self.features(x)


def cifar_resnet18(channels: int) -> nn.Module:
    """torchvision's ResNet-18 with the CIFAR stem (3×3 stride-1 first convolution, no max-pool) and no
    classifier: a 512-dimensional representation."""
    from torchvision.models import resnet18

    net = resnet18(num_classes=10)
    net.conv1 = nn.Conv2d(channels, 64, 3, stride=1, padding=1, bias=False)
    net.maxpool = nn.Identity()
    net.fc = nn.Identity()
    net.dim = 512
    return net


ENCODERS = ("small_cnn", "resnet18")


def _to_channels_last(module: nn.Module, args: tuple) -> tuple:
    return (args[0].contiguous(memory_format=torch.channels_last), *args[1:])


class ContrastiveModel(nn.Module):
    """Encoder f (features for evaluation) and a 3-layer MLP projector g (the loss is on g(f(x)))."""

    def __init__(self, encoder: str, channels: int, projection_dim: int = 64, hidden: int = 256):
        super().__init__()
        if encoder == "small_cnn":
            self.encoder = SmallCNN(channels)
        elif encoder == "resnet18":
            self.encoder = cifar_resnet18(channels)
        else:
            raise ValueError(f"unknown encoder {encoder!r}; expected one of {', '.join(ENCODERS)}")
        d = self.encoder.dim
        # Convolutions run in channels-last layout (weights and, through the hook, every input): on the CPU
        # oneDNN's NHWC kernels make a training step ~25 % faster than NCHW (benchmarks/trainer.py
        # measures it); the values are the same convolution, the parameter names unchanged.
        self.encoder.to(memory_format=torch.channels_last)
        self.encoder.register_forward_pre_hook(_to_channels_last)
        self.projector = nn.Sequential(nn.Linear(d, hidden), nn.BatchNorm1d(hidden), nn.ReLU(inplace=True),
                                       nn.Linear(hidden, hidden), nn.BatchNorm1d(hidden), nn.ReLU(inplace=True),
                                       nn.Linear(hidden, projection_dim))

    def forward(self, x):
        return self.projector(self.encoder(x))


def two_view_batch(bank: torch.Tensor, rng: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    """Two distinct views per image of a bank batch (n, V, C, H, W), chosen with ``rng``."""
    n, views = bank.shape[:2]
    first = torch.randint(0, views, (n,), generator=rng, device=bank.device)
    second = (first + torch.randint(1, views, (n,), generator=rng, device=bank.device)) % views
    rows = torch.arange(n, device=bank.device)
    return bank[rows, first], bank[rows, second]


def contrastive_batch_loss(alpha: float, ratio: float, similarity: str):
    """batch_loss for :func:`crlrepro.train.train` on a view bank: two views, the balanced loss."""

    def batch_loss(model, batch, rng):
        v1, v2 = two_view_batch(batch[0], rng)
        z = model(torch.cat([v1, v2]))
        return balanced_contrastive_loss(z[: len(v1)], z[len(v1):], alpha, ratio, similarity)

    return batch_loss


@torch.no_grad()
def encode(model: ContrastiveModel, images: torch.Tensor, head: bool = False, batch_size: int = 1024, device: str = "cpu") -> torch.Tensor:
    """Features of images (..., C, H, W) in eval mode, returned on the CPU: the encoder's f(x) (what
    the probes read), or with ``head`` the projector's output g(f(x)) (what the loss compares)."""
    model.eval().to(device)
    net = model if head else model.encoder
    flat = images.reshape(-1, *images.shape[-3:])
    out = torch.cat([net(flat[i : i + batch_size].to(device).float()).cpu() for i in range(0, len(flat), batch_size)])
    return out.reshape(*images.shape[:-3], -1)


def prototype_bias(features: torch.Tensor, labels: torch.Tensor) -> float:
    """b = E_{(x,y)} ‖ E_T f̄(T(x)) − E_{T,X|y} f̄(T(X)) ‖₂ (module docstring) from features of R
    augmented views per image, shape (N, R, d), and the images' labels (N,)."""
    unit = nn.functional.normalize(features.double(), dim=-1)
    surrogate = unit.mean(dim=1)  # μ̃(x), (N, d)
    classes = labels.unique()
    prototypes = torch.stack([surrogate[labels == k].mean(dim=0) for k in classes])  # μ̂_y = mean of μ̃ over the class
    index = torch.searchsorted(classes, labels)
    return float((surrogate - prototypes[index]).norm(dim=1).mean())


def knn_top1(train_features, train_labels, test_features, test_labels, k: int) -> float:
    """Top-1 accuracy of a k-nearest-neighbour vote (cosine similarity, each vote weighted 1) of frozen
    features; ties go to the smallest label."""
    a = nn.functional.normalize(torch.as_tensor(train_features, dtype=torch.float64), dim=1)
    b = nn.functional.normalize(torch.as_tensor(test_features, dtype=torch.float64), dim=1)
    k = min(int(k), len(a))
    neighbours = (b @ a.T).topk(k, dim=1).indices
    votes = torch.nn.functional.one_hot(torch.as_tensor(train_labels)[neighbours], int(max(train_labels.max(), test_labels.max())) + 1).sum(1)
    return float((votes.argmax(dim=1) == torch.as_tensor(test_labels)).double().mean())


def linear_probe_top1(train_features, train_labels, test_features, test_labels) -> float:
    """Top-1 accuracy of a multinomial logistic regression on standardised frozen features."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    probe = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000))
    probe.fit(np.asarray(train_features, dtype=np.float64), np.asarray(train_labels))
    return float(probe.score(np.asarray(test_features, dtype=np.float64), np.asarray(test_labels)))


def train_contrastive(bank: torch.Tensor, settings, *, encoder: str, projection_dim: int, temperature: float, ratio: float,
                      similarity: str, checkpoint=None, fingerprint: str = "") -> tuple[ContrastiveModel, list]:
    """SimCLR-style training with the project's trainer on a view bank (N, V, C, H, W): every step draws
    two distinct views per image and minimises the balanced loss with α = 1/temperature."""
    from crlrepro.train import seed_everything, train

    seed_everything(settings.seed)
    model = ContrastiveModel(encoder, bank.shape[2], projection_dim)
    history = train(model, contrastive_batch_loss(1.0 / temperature, ratio, similarity), [bank], settings,
                    checkpoint=checkpoint, fingerprint=fingerprint)
    return model.cpu().eval(), history


def evaluate_contrastive(model: ContrastiveModel, views: dict, knn_k: int, device: str = "cpu") -> dict:
    """Frozen-feature evaluation on un-augmented images: k-NN and linear-probe top-1 (train → test);
    and the prototype representation bias from the test images' augmented views. Features are
    computed on ``device``, the probes on the CPU."""
    train_f = encode(model, views["train_images"], device=device)
    test_f = encode(model, views["test_images"], device=device)
    bias_f = encode(model, views["test_bank"], head=True, device=device)
    return {
        "knn_top1": knn_top1(train_f, views["train_labels"], test_f, views["test_labels"], knn_k),
        "linear_top1": linear_probe_top1(train_f, views["train_labels"], test_f, views["test_labels"]),
        "prototype_bias": prototype_bias(bias_f, views["test_labels"]),
    }


def evaluation_table(records: list[dict], views: dict, knn_k: int, device: str = "cpu"):
    """One row per trained run (records written by the ssl_train rule): its spec, whether it diverged,
    and :func:`evaluate_contrastive` on the views of its augmentation (NaN metrics when diverged)."""
    import pandas as pd

    rows = []
    for record in records:
        row = {k: record[k] for k in ("balance", "augmentation", "similarity", "ratio", "seed", "train_size")}
        row["num_classes"] = len(record["class_sizes"])
        row["diverged"] = record["diverged"] is not None
        if row["diverged"]:
            row |= {"knn_top1": float("nan"), "linear_top1": float("nan"), "prototype_bias": float("nan")}
        else:
            model = ContrastiveModel(**record["architecture"])
            model.load_state_dict(record["state_dict"])
            row |= evaluate_contrastive(model, views[record["augmentation"]], knn_k, device)
        rows.append(row)
    return pd.DataFrame(rows)
