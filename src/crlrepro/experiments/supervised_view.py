"""Paper 3 (Lee, TMLR 2025): self-supervised contrastive learning as an approximation of a supervised
prototype objective: SimCLR-style training on banks of augmented views or fresh augmentations, the
evaluation of frozen features (probes), and the prototype representation bias.

The balanced contrastive loss and the losses it is compared with live in :mod:`crlrepro.learning.losses`, the
encoders in :mod:`crlrepro.learning.networks`.

Prototype representation bias (paper 3, Sec. 4): the surrogate prototype of x is
μ̃(x) = E_T f̄(T(x)) and the class prototype of y is μ̂_y = E_{T,X|y} f̄(T(X)); the bias is

    b = E_{(x,y)} ‖ μ̃(x) − μ̂_y ‖₂,

with f̄ = f/‖f‖ the representation the cosine similarity sees (so 0 ≤ b ≤ 2), expectations over the
configured number of augmentation draws and over the evaluation images, f the projector's output (what
the loss compares). The summary of the paper does not define the bias's normalisation, and its reported
values (paper_values.yaml, S4) exceed 2, which no distance between unit vectors can; the un-normalised variant
b_raw = E ‖E_T f(T(x)) − E_{T,X|y} f(T(X))‖₂ (same formula on f itself, scale-dependent) is reported
beside it.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from crlrepro.learning.losses import contrastive_loss, supervised_prototype_loss
from crlrepro.learning.networks import ContrastiveModel
from crlrepro.learning.train import full_precision

__all__ = [
    "EXPERIMENT_NOT_APPLICABLE",
    "EVALUATION_NOT_APPLICABLE",
    "baseline_table",
    "contrastive_batch_loss",
    "encode",
    "evaluate_contrastive",
    "evaluate_features",
    "evaluate_raw_pixels",
    "EVALUATED",
    "evaluation_table",
    "few_label_probe_top1",
    "knn_top1",
    "linear_probe_top1",
    "mean_feature_cosine",
    "metric_names",
    "prototype_bias",
    "tail_classes",
    "train_contrastive",
    "two_view_batch",
    "with_tail",
]


def two_view_batch(bank: torch.Tensor, rng: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    """Two distinct views per image of a bank batch (n, V, C, H, W), chosen with ``rng``."""
    n, views = bank.shape[:2]
    first = torch.randint(0, views, (n,), generator=rng, device=bank.device)
    second = (first + torch.randint(1, views, (n,), generator=rng, device=bank.device)) % views
    rows = torch.arange(n, device=bank.device)
    return bank[rows, first], bank[rows, second]


def contrastive_batch_loss(alpha: float, ratio: float, similarity: str, loss: str = "balanced", augment=None):
    """batch_loss for :func:`crlrepro.learning.train.train`: two views per image, then :func:`contrastive_loss`.
    Without ``augment`` the batch is of a view bank (n, V, C, H, W) and two distinct banked views are
    paired; with an :class:`crlrepro.learning.augment.AugmentationSpec` the batch is of images (n, C, H, W) and
    both views are drawn fresh at this step (SimCLR), from the epoch's generator."""

    def batch_loss(model, batch, rng):
        if augment is None:
            v1, v2 = two_view_batch(batch[0], rng)
        else:
            from crlrepro.learning.augment import augment_batch

            v1, v2 = augment_batch(batch[0], augment, rng), augment_batch(batch[0], augment, rng)
        (z,), exact = full_precision(model(torch.cat([v1, v2])))  # the encoder in the run's precision, the loss in float32
        with exact:
            if loss == "supervised_prototype":  # the labelled reference: batch = [images, labels]
                return supervised_prototype_loss(z[: len(v1)], z[len(v1) :], batch[1], ratio)
            return contrastive_loss(z[: len(v1)], z[len(v1) :], loss, alpha, ratio, similarity)

    return batch_loss


@torch.no_grad()
def encode(
    model: ContrastiveModel, images: torch.Tensor, head: bool = False, batch_size: int = 1024, device: str = "cpu"
) -> torch.Tensor:
    """Features of images (..., C, H, W) in eval mode, returned on the CPU: the encoder's f(x) (what
    the probes read), or with ``head`` the projector's output g(f(x)) (what the loss compares)."""
    model.eval().to(device)
    net = model if head else model.encoder
    flat = images.reshape(-1, *images.shape[-3:])
    out = torch.cat([net(flat[i : i + batch_size].to(device).float()).cpu() for i in range(0, len(flat), batch_size)])
    return out.reshape(*images.shape[:-3], -1)


def prototype_bias(features: torch.Tensor, labels: torch.Tensor, normalise: bool = True, relative: bool = False) -> float:
    """b = E_{(x,y)} ‖ E_T f̄(T(x)) − E_{T,X|y} f̄(T(X)) ‖₂ (module docstring) from features of R
    augmented views per image, shape (N, R, d), and the images' labels (N,); ``normalise=False`` gives
    the un-normalised variant b_raw (the same with f for f̄). ``relative`` divides b by the spread of
    the surrogate prototypes around their overall mean, E ‖μ̃(x) − E_x μ̃(x)‖₂: a collapsed
    representation (every μ̃ alike) has a small b but no small relative bias."""
    values = features.double()
    unit = nn.functional.normalize(values, dim=-1) if normalise else values
    surrogate = unit.mean(dim=1)  # μ̃(x), (N, d)
    classes = labels.unique()
    prototypes = torch.stack([surrogate[labels == k].mean(dim=0) for k in classes])  # μ̂_y = mean of μ̃ over the class
    index = torch.searchsorted(classes, labels)
    bias = float((surrogate - prototypes[index]).norm(dim=1).mean())
    if not relative:
        return bias
    spread = float((surrogate - surrogate.mean(dim=0)).norm(dim=1).mean())
    return bias / spread if spread > 0 else float("nan")


def knn_top1(train_features, train_labels, test_features, test_labels, k: int) -> float:
    """Top-1 accuracy of a k-nearest-neighbour vote (cosine similarity, each vote weighted 1) of frozen
    features; ties go to the smallest label."""
    a = nn.functional.normalize(torch.as_tensor(train_features, dtype=torch.float64), dim=1)
    b = nn.functional.normalize(torch.as_tensor(test_features, dtype=torch.float64), dim=1)
    k = min(int(k), len(a))
    neighbours = (b @ a.T).topk(k, dim=1).indices
    votes = torch.nn.functional.one_hot(
        torch.as_tensor(train_labels)[neighbours], int(max(train_labels.max(), test_labels.max())) + 1
    ).sum(1)
    return float((votes.argmax(dim=1) == torch.as_tensor(test_labels)).double().mean())


def linear_probe_top1(train_features, train_labels, test_features, test_labels, per_class: bool = False):
    """Top-1 accuracy of a multinomial logistic regression on standardised frozen features; with
    ``per_class`` also the accuracy on the test images of each class (an array over the classes)."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    probe = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000))
    probe.fit(np.asarray(train_features, dtype=np.float64), np.asarray(train_labels))
    labels = np.asarray(test_labels)
    correct = probe.predict(np.asarray(test_features, dtype=np.float64)) == labels
    if not per_class:
        return float(correct.mean())
    return float(correct.mean()), np.array([correct[labels == k].mean() for k in range(int(labels.max()) + 1)])


def few_label_probe_top1(
    train_features,
    train_labels,
    test_features,
    test_labels,
    labels_per_class: int,
    draws: int,
    seed: int,
    per_class: bool = False,
):
    """Top-1 accuracy of a linear probe fitted on ``labels_per_class`` labelled training images of each
    class, averaged over ``draws`` label draws (drawn without replacement with ``seed``): multinomial
    logistic regression (C = 1) on L2-normalised frozen features, which need no standardisation from a
    handful of examples. The probe's headroom: at 1–10 labels per class the features, not the data,
    decide the accuracy. With ``per_class`` also the accuracy on each class's test images (averaged
    over the draws, an array over the classes)."""
    from sklearn.linear_model import LogisticRegression

    if labels_per_class < 1 or draws < 1:
        raise ValueError(f"labels_per_class and draws must be >= 1, got {labels_per_class} and {draws}")
    unit = lambda f: nn.functional.normalize(torch.as_tensor(f, dtype=torch.float64), dim=1).numpy()  # noqa: E731
    train, test = unit(train_features), unit(test_features)
    labels, test_labels = np.asarray(train_labels), np.asarray(test_labels)
    classes = np.unique(labels)
    rng = np.random.default_rng(seed)
    correct = np.zeros(len(test_labels))
    for _ in range(draws):
        chosen = np.concatenate([rng.choice(np.flatnonzero(labels == k), size=labels_per_class, replace=False) for k in classes])
        probe = LogisticRegression(max_iter=2000).fit(train[chosen], labels[chosen])
        correct += probe.predict(test) == test_labels
    correct /= draws
    if not per_class:
        return float(correct.mean())
    return float(correct.mean()), np.array([correct[test_labels == k].mean() for k in range(int(test_labels.max()) + 1)])


def train_contrastive(
    data: torch.Tensor,
    settings,
    *,
    encoder: str,
    projection_dim: int,
    temperature: float,
    ratio: float,
    similarity: str,
    loss: str = "balanced",
    augment=None,
    hidden: int | None = None,
    checkpoint=None,
    fingerprint: str = "",
    labels: torch.Tensor | None = None,
) -> tuple[ContrastiveModel, list]:
    """SimCLR-style training with the project's trainer: on images (N, C, H, W) with views drawn fresh
    every step from ``augment`` (an :class:`crlrepro.learning.augment.AugmentationSpec`), or on a view bank
    (N, V, C, H, W) without it; the loss of :func:`contrastive_loss` with α = 1/temperature, or, for
    ``loss="supervised_prototype"``, :func:`supervised_prototype_loss` with λ = ``ratio`` on ``labels``."""
    from crlrepro.learning.train import seed_everything, train

    if loss == "supervised_prototype" and labels is None:
        raise ValueError("the supervised prototype objective needs the labels of the training images")
    seed_everything(settings.seed)
    channels = data.shape[1] if augment is not None else data.shape[2]
    model = ContrastiveModel(encoder, channels, projection_dim, hidden)
    tensors = [data] if loss != "supervised_prototype" else [data, labels]
    history = train(
        model,
        contrastive_batch_loss(1.0 / temperature, ratio, similarity, loss, augment),
        tensors,
        settings,
        checkpoint=checkpoint,
        fingerprint=fingerprint,
    )
    return model.cpu().eval(), history


def evaluate_features(
    train_features, train_labels, test_features, test_labels, bias_features, bias_labels, evaluation: dict, bounds: bool = True
) -> dict:
    """Every probe of paper 3 on one set of frozen features (trained encoder, random encoder or raw
    pixels): linear-probe top-1 and few-label probes (``few_labels`` labels per class,
    ``few_label_draws`` draws, seeded with ``seed``), each overall and on ``evaluation["tail_classes"]``
    (the classes a long-tailed training set under-represents; columns ``*_tail``), k-NN top-1; and from
    ``bias_features`` (N_b, R, d),
    R augmented views of the bias images with ``bias_labels``: the prototype bias, normalised and raw,
    and both sides of Thms 4.4 and 4.6 (:mod:`crlrepro.learning.prototype_bounds`; anchors: each image's first
    view, pool: the other views of all bias images; α = 1/temperature, ν = ``bound_nu``; NaN without
    ``bounds``): their means, the share and number of points where they hold, and the sides at the
    point of smallest slack."""
    from crlrepro.learning.prototype_bounds import attraction_bound, bound_summary, repulsion_bound

    tail = [int(k) for k in evaluation["tail_classes"]]
    labels = np.asarray(test_labels)
    shares = np.array([(labels == k).mean() for k in tail])

    def on_tail(per_class: np.ndarray) -> float:  # accuracy over the tail classes' test images
        return float((per_class[tail] * shares).sum() / shares.sum()) if tail else float("nan")

    linear, per_class = linear_probe_top1(train_features, train_labels, test_features, test_labels, per_class=True)
    row = {
        "linear_top1": linear,
        "linear_top1_tail": on_tail(per_class),
        "knn_top1": knn_top1(train_features, train_labels, test_features, test_labels, evaluation["knn_k"]),
    }
    for count in evaluation["few_labels"]:
        few, per_class = few_label_probe_top1(
            train_features,
            train_labels,
            test_features,
            test_labels,
            count,
            evaluation["few_label_draws"],
            evaluation["seed"],
            per_class=True,
        )
        row |= {f"few{count}_top1": few, f"few{count}_top1_tail": on_tail(per_class)}
    row["prototype_bias"] = prototype_bias(bias_features, bias_labels)
    row["prototype_bias_raw"] = prototype_bias(bias_features, bias_labels, normalise=False)
    row["prototype_bias_relative"] = prototype_bias(bias_features, bias_labels, relative=True)
    row["feature_cosine"] = mean_feature_cosine(bias_features[:, 0])
    if not bounds:
        return row | {
            f"{b}_{side}": float("nan")
            for b in ("attraction", "repulsion")
            for side in ("lhs", "rhs", "holds", "points", "violations", "worst_lhs", "worst_rhs")
        }
    for name, result in (
        ("attraction", attraction_bound(bias_features)),
        (
            "repulsion",
            repulsion_bound(
                bias_features[:, 0],
                bias_labels,
                bias_features[:, 1:],
                bias_labels,
                1.0 / evaluation["temperature"],
                evaluation["bound_nu"],
            ),
        ),
    ):
        summary, worst = bound_summary(result), int(np.argmin(result["slack"]))
        row |= {
            f"{name}_lhs": summary["mean_lhs"],
            f"{name}_rhs": summary["mean_rhs"],
            f"{name}_holds": summary["share_holds"],
            f"{name}_points": summary["points"],
            f"{name}_violations": int(round((1 - summary["share_holds"]) * summary["points"])),
            f"{name}_worst_lhs": float(result["lhs"][worst]),
            f"{name}_worst_rhs": float(result["rhs"][worst]),
        }
    return row


def mean_feature_cosine(features: torch.Tensor) -> float:
    """The mean cosine between the features of two different images, (1/(N(N−1))) Σ_{i≠j} cos(f_i, f_j),
    of features (N, d): near 1 when the representation has collapsed to one direction (the loss
    cannot tell images apart), near 0 for features spread over the sphere."""
    unit = nn.functional.normalize(features.double(), dim=1)
    n = len(unit)
    total = unit.sum(dim=0)
    return float((total @ total - n) / (n * (n - 1)))


def evaluate_contrastive(model: ContrastiveModel, views: dict, evaluation: dict, device: str = "cpu") -> dict:
    """:func:`evaluate_features` of a model: probes on the encoder's f(x) of un-augmented images
    (train → test), the bias and the bounds on the projector's output g(f(·)) of the bias images'
    augmented views (what the loss compares). Features are computed on ``device``, the probes on the CPU."""
    train_f = encode(model, views["train_images"], device=device)
    test_f = encode(model, views["test_images"], device=device)
    bias_f = encode(model, views["test_bank"], head=True, device=device)
    return evaluate_features(
        train_f, views["train_labels"], test_f, views["test_labels"], bias_f, views["bias_labels"], evaluation
    )


def evaluate_raw_pixels(views: dict, evaluation: dict) -> dict:
    """The raw-pixel baseline: :func:`evaluate_features` with the flattened images as features (the
    bias on the flattened augmented views; no bounds: a crop of blank background is a zero vector,
    whose cosine is undefined, and the theorems are about a trained f)."""
    flat = lambda t: t.reshape(*t.shape[: t.ndim - 3], -1).double()  # noqa: E731
    return evaluate_features(
        flat(views["train_images"]),
        views["train_labels"],
        flat(views["test_images"]),
        views["test_labels"],
        flat(views["test_bank"]),
        views["bias_labels"],
        evaluation,
        bounds=False,
    )


def tail_classes(num_classes: int, imbalance_ratio: float, seed: int) -> list[int]:
    """S3's tail for seed ``seed``: the half of the classes of smallest rank in that seed's long-tailed
    training set (ranks ⌈K/2⌉ … K−1 of :func:`crlrepro.learning.datasets.class_ranks`; none when the profile is
    uniform), fixed by the config and the seed before any training; the uniform run of the same seed is
    scored on the same classes."""
    from crlrepro.learning.datasets import class_ranks

    if imbalance_ratio <= 1.0:
        return []
    ranks = class_ranks(num_classes, seed)
    return sorted(int(k) for k in np.flatnonzero(ranks >= -(-num_classes // 2)))


EVALUATED = ("model", "balance", "augmentation", "similarity", "loss", "ratio", "seed", "train_size")


# Columns of the evaluations where an empty cell means "not applicable" (crlrepro.runtime.artifacts.nonfinite_problems):
# the metrics of a run that diverged, the tail accuracy without tail classes, the relative bias of features with no
# spread, the bounds when not evaluated; in the experiment tables also the spec columns of the baseline rows.
EVALUATION_NOT_APPLICABLE = ("*_top1", "*_top1_tail", "prototype_bias*", "feature_cosine", "attraction_*", "repulsion_*")
EXPERIMENT_NOT_APPLICABLE = EVALUATION_NOT_APPLICABLE + ("ratio", "train_size", "balance", "augmentation", "similarity", "loss")


def evaluation_table(records: list[dict], views: dict, evaluation: dict, device: str = "cpu"):
    """One row per trained run (records written by the ssl_train rule): its spec, whether it diverged,
    and :func:`evaluate_contrastive` on the views of its augmentation (NaN metrics when diverged)."""
    import pandas as pd

    rows = []
    for record in records:
        row = {"model": "trained"} | {k: record[k] for k in EVALUATED[1:]}
        row["num_classes"] = len(record["class_sizes"])
        row["diverged"] = record["diverged"] is not None
        if row["diverged"]:
            row |= dict.fromkeys(metric_names(evaluation), float("nan"))
        else:
            model = ContrastiveModel(**record["architecture"])
            model.load_state_dict(record["state_dict"])
            row |= evaluate_contrastive(model, views[record["augmentation"]], with_tail(evaluation, record["seed"]), device)
        rows.append(row)
    return pd.DataFrame(rows)


def with_tail(evaluation: dict, seed: int) -> dict:
    """The evaluation settings of one seed: its tail classes (:func:`tail_classes`) from the config's
    ``balance`` block."""
    balance = evaluation["balance"]
    return {**evaluation, "tail_classes": tail_classes(evaluation["num_classes"], balance["imbalance_ratio"], seed)}


def metric_names(evaluation: dict) -> list[str]:
    """The metric columns :func:`evaluate_features` writes for this evaluation config."""
    return (
        ["linear_top1", "linear_top1_tail", "knn_top1"]
        + [f"few{c}_top1{tail}" for c in evaluation["few_labels"] for tail in ("", "_tail")]
        + ["prototype_bias", "prototype_bias_raw", "prototype_bias_relative", "feature_cosine"]
        + [
            f"{b}_{side}"
            for b in ("attraction", "repulsion")
            for side in ("lhs", "rhs", "holds", "points", "violations", "worst_lhs", "worst_rhs")
        ]
    )


def baseline_table(views: dict, architecture: dict, seeds, evaluation: dict, device: str = "cpu"):
    """The baselines beside the trained runs, on the base augmentation's views: raw pixels (one row;
    its tail columns on the first seed's tail classes) and the untrained encoder, initialised with each
    seed (one row per seed)."""
    import pandas as pd

    base = views["base"]
    common = {"augmentation": "base", "num_classes": base["num_classes"], "diverged": False}
    rows = [{"model": "raw_pixels", "seed": -1} | common | evaluate_raw_pixels(base, with_tail(evaluation, seeds[0]))]
    for seed in seeds:
        torch.manual_seed(seed)
        model = ContrastiveModel(**architecture)
        rows.append(
            {"model": "random_encoder", "seed": int(seed)}
            | common
            | evaluate_contrastive(model, base, with_tail(evaluation, seed), device)
        )
    return pd.DataFrame(rows)
