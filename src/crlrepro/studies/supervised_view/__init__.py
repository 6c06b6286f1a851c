"""S1–S4 (paper 3, Sec. 5): SimCLR-style image training, the balanced loss, the similarity, the data balance and
the prototype representation bias.

The study's entry (its experiments and claims), its cost model and the keys its rules read; its claims builders are
in ``claims.py``, its figure in ``figure.py``, its rules in ``workflow/rules/supervised_view.smk``.
"""

from __future__ import annotations

from crlrepro.claims.spec import ClaimSpec, Derived, Experiment, Study, diagnostic, out_of_reach
from crlrepro.runtime.costs import Cost, count
from crlrepro.runtime.costs import config_value as at

__all__ = [
    "DATA",
    "EVALUATION",
    "TRAINING",
    "RULE_KEYS",
    "COSTS",
    "DATA_SHAPES",
    "NOT_SIZES",
    "ssl_experiment_specs",
    "SSL_EXPERIMENTS",
    "SSL_IMAGES_PER_SECOND",
    "STUDY",
]


def _ssl(
    experiment: str,
    title: str,
    claims: tuple[ClaimSpec, ...],
    rules=("image_views", "ssl_train", "ssl_eval", "ssl_baselines", "ssl_table"),
) -> Experiment:
    return Experiment(
        experiment,
        3,
        "Sec. 5 (experiments)",
        title,
        rules,
        (f"supervised_view/{experiment}.csv",),
        "claims_ssl",
        claims,
        figure=experiment,
        figure_rule="figure_ssl",
        style="ssl",
        caption="supervised_view",
        seeds="supervised_view.seeds",
    )


_SSL_DATA = ("supervised_view.data.name",)
# What would bring paper 3's numbers into reach: they are ImageNet's (or ImageNet-LT's), ResNet-50 trained at full scale.
_IMAGENET = (
    "the paper's number is ImageNet's (ImageNet-LT's for the long-tailed set), with a ResNet-50 trained at full scale: "
    "it needs that data set and GPUs; here the same protocol runs on a small image set as context"
)


SSL_EXPERIMENTS = ("S1", "S2", "S3", "S4")


def ssl_experiment_specs(experiment: str, view: dict) -> list[tuple[str, str, str, str, str]]:
    """(balance, augmentation, similarity, loss, λ/ν as text) of every paper-3 run of one experiment,
    from the config's ``supervised_view`` block. The reference run (full data, base augmentation,
    cosine, balanced loss with λ/ν = 1, i.e. InfoNCE) is shared by S1, S2 and S4, so it is trained once;
    S1 adds the paper's loss variants (``loss_variants``) at weight 1, and the supervised prototype
    objective (with labels, λ = 1) when listed there."""
    ratio = lambda r: f"{float(r):g}"  # noqa: E731
    if experiment == "S1":
        return [("full", "base", "cosine", "balanced", ratio(r)) for r in sorted(view["ratios"])] + [
            ("full", "base", "cosine", loss, "1") for loss in view.get("loss_variants", [])
        ]
    if experiment == "S2":
        return [("full", "base", s, "balanced", "1") for s in view["similarities"]]
    if experiment == "S3":
        return [("uniform", "base", "cosine", "balanced", "1"), ("long_tailed", "base", "cosine", "balanced", "1")]
    if experiment == "S4":
        return [("full", a, "cosine", "balanced", "1") for a in view["augmentations"]]
    raise ValueError(f"unknown paper-3 experiment {experiment!r}; expected one of {', '.join(SSL_EXPERIMENTS)}")


SSL_IMAGES_PER_SECOND = 18_000  # paper 3's small CNN (ResNet-18 is slower: its estimate is a lower bound)


# Images of the largest split each data set has, and its channels × side (before supervised_view.data.image_size).
# paper 3's data sets: (images in all splits, channels, side in pixels); benchmarks/gpu.py reads the shapes too
DATA_SHAPES = {"digits": (1797, 1, 8), "fashion_mnist": (70_000, 1, 28), "cifar10": (60_000, 3, 32)}


def _images(config: dict) -> tuple[int, int]:
    """(images of the largest split, bytes per image) of paper 3's data set, after the configured resize."""
    view = config["supervised_view"]
    data = view.get("data", {})
    count, channels, side = DATA_SHAPES.get(data.get("name"), DATA_SHAPES["cifar10"])
    side = data.get("image_size") or side
    return count, channels * side * side


def _ssl_views(config: dict) -> float:
    """Bytes of the bias bank (bias_images × bias_views views, uint8) a paper-3 job builds and loads ~13 times over."""
    view = config["supervised_view"]
    _, pixels = _images(config)
    return 13.0 * view["bias_images"] * view["bias_views"] * pixels


COSTS = (
    Cost(
        ("supervised_view.epochs", "supervised_view.seeds"),
        "epochs of the training split, for every seed",
        seconds=lambda c: (
            at(c, "supervised_view.epochs") * count(c["supervised_view"]["seeds"]) * _images(c)[0] / SSL_IMAGES_PER_SECOND
        ),
    ),
    Cost(
        ("supervised_view.batch_size",),
        "images per batch (two views each)",
        memory=lambda c: (
            2.0 * at(c, "supervised_view.batch_size") * 672 * _images(c)[1] + 64.0 * at(c, "supervised_view.batch_size") ** 2
        ),
    ),
    Cost(
        ("supervised_view.data.image_size",),
        "pixels per side after the resize",
        memory=lambda c: 5.0 * _images(c)[0] * _images(c)[1] + _ssl_views(c),
    ),
    Cost(
        ("supervised_view.data.test_size", "supervised_view.data.train_size"),
        "test images (a test × train k-NN matrix)",
        memory=lambda c: (
            8.0
            * (c["supervised_view"]["data"].get("test_size") or 0)
            * (c["supervised_view"]["data"].get("train_size") or _images(c)[0])
        ),
    ),
    Cost(
        ("supervised_view.data.train_size",),
        "training images",
        memory=lambda c: 5.0 * (c["supervised_view"]["data"].get("train_size") or 0) * _images(c)[1],
    ),
    Cost(
        ("supervised_view.bias_views", "supervised_view.bias_images"),
        "augmentation draws per bias image (a uint8 bank)",
        memory=_ssl_views,
        seconds=lambda c: (
            1e-9
            * at(c, "supervised_view.bias_images") ** 2
            * at(c, "supervised_view.bias_views")
            * at(c, "supervised_view.projection_dim")
        ),
    ),
    Cost(
        ("supervised_view.bias_images", "supervised_view.bias_views"),
        "bias images (a uint8 bank of their views)",
        memory=_ssl_views,
    ),
    Cost(
        ("supervised_view.views",),
        "cached views per training image (augment: bank)",
        memory=lambda c: (
            13.0 * _images(c)[0] * at(c, "supervised_view.views") * _images(c)[1]
            if c["supervised_view"].get("augment") == "bank"
            else 0.0
        ),
    ),
    Cost(
        (
            "supervised_view.projection_dim",
            "supervised_view.projector_hidden",
            "supervised_view.bias_images",
            "supervised_view.bias_views",
        ),
        "projection dimensions",
        memory=lambda c: (
            16.0
            * at(c, "supervised_view.bias_images")
            * at(c, "supervised_view.bias_views")
            * at(c, "supervised_view.projection_dim")
            + 16.0
            * (c["supervised_view"].get("projector_hidden") or 512)
            * (at(c, "supervised_view.projection_dim") + (c["supervised_view"].get("projector_hidden") or 512) + 512)
        ),
    ),
    Cost(
        ("supervised_view.projector_hidden",),
        "hidden width of the projector",
        memory=lambda c: 16.0 * (c["supervised_view"].get("projector_hidden") or 0) ** 2,
    ),
    Cost(
        ("supervised_view.few_label_draws", "supervised_view.few_labels"),
        "draws of the few-label probes",
        seconds=lambda c: (
            1e-6
            * at(c, "supervised_view.few_label_draws")
            * sum(10 * k for k in at(c, "supervised_view.few_labels"))
            * at(c, "supervised_view.projection_dim")
            * 100
            * count(c["supervised_view"]["seeds"])
        ),
    ),
)


# Integer keys that size no array or loop of their own, and why (every integer key of the schema is in a cost or here).
NOT_SIZES = {
    "supervised_view.seeds": "seed values (their number is a factor of paper 3's training cost)",
    "supervised_view.data.split_seed": "a seed",
    "supervised_view.view_seed": "a seed",
    "supervised_view.knn_k": "neighbours among the training split's images: refused at or above its size (validation)",
    "supervised_view.balance.per_class": "bounded by the data: each class must hold it (checked when the run starts)",
    "supervised_view.few_labels": "labelled images per class of a probe; their sum is in the few-label cost",
}


# A training's keys (not the sweeps or the evaluation), and the frozen-feature evaluation's (probes, bias, bounds).
TRAINING = (
    "supervised_view",
    (
        "encoder",
        "projection_dim",
        "projector_hidden",
        "augment",
        "optimizer",
        "epochs",
        "batch_size",
        "learning_rate",
        "weight_decay",
        "temperature",
        "seeds",
    ),
)
EVALUATION = ("supervised_view", ("knn_k", "few_labels", "few_label_draws", "bound_nu", "temperature", "balance"))
DATA = (
    "supervised_view.data",
    ("name", "test_fraction", "split_seed", "root", "download", "train_size", "test_size", "image_size"),
)
# The config keys each rule's computation reads (crlrepro.claims.spec.Study.params): the rule's params, so that changing
# a key reruns exactly the rules that read it. A string is one key; (block, names) is those keys of a block.
RULE_KEYS = {
    "image_views": {
        # views per training image in the bank: the configured number with augment: bank, none when drawn fresh
        "views": Derived(
            ("supervised_view.views", "supervised_view.augment"),
            lambda c: c["supervised_view"]["views"] if c["supervised_view"]["augment"] == "bank" else 0,
        ),
        "data": DATA,
        "bias_views": "supervised_view.bias_views",
        "bias_images": "supervised_view.bias_images",
        "seed": "supervised_view.view_seed",
    },
    "ssl_train": {
        "training": TRAINING,
        "precision": "supervised_view.precision",
        "balance": ("supervised_view.balance", ("per_class", "imbalance_ratio")),
        "device": "device",
    },
    "ssl_eval": {"evaluation": EVALUATION, "device": "device"},
    "ssl_baselines": {"evaluation": EVALUATION, "training": TRAINING, "device": "device"},
    "ssl_table": {},
    "figure_ssl": {},
    "claims_ssl": {"metric": "supervised_view.claim_metric"},
}


STUDY = Study(
    "supervised_view",
    (
        _ssl(
            "S1",
            "balanced contrastive loss: λ/ν against InfoNCE; the loss variants; the bounds of Sec. 4",
            (
                ClaimSpec(
                    "balanced_beats_infonce",
                    "the balanced loss beats InfoNCE (λ/ν = 1): the λ/ν ≠ 1 of the config's grid that is best on the first "
                    "half of the seeds, tested against λ/ν = 1 on the other half",
                    "direction",
                ),
                diagnostic(
                    ClaimSpec("each_ratio", "each λ/ν of the grid against InfoNCE on every seed (one Holm family)", "direction"),
                    "shows every ratio of the grid, the collapsed ones included (λ/ν = 0.5 collapses), on the seeds that also "
                    "chose the tested ratio: context for the claim above, not a second test of it",
                ),
                diagnostic(
                    ClaimSpec("variant", "the paper's loss variants against InfoNCE (the summary states no ordering)", "value"),
                    "the summary states no ordering of the variants: a verdict word means nothing here",
                ),
                diagnostic(
                    ClaimSpec(
                        "supervised_reference",
                        "the supervised prototype objective the paper derives from (with labels) against "
                        "InfoNCE: a reference, not a claim of the paper",
                        "value",
                    ),
                    "a reference with labels, not a claim of the paper",
                ),
                ClaimSpec(
                    "attraction_bound",
                    "Thm 4.4 (attraction, Jensen): −s(f(t(x)), E_T f(T(x))) ≤ −E_T s(f(t(x)), f(T(x))), "
                    "on trained features, at every view of every test image",
                    "bound",
                ),
                diagnostic(
                    ClaimSpec(
                        "repulsion_bound",
                        "Thm 4.6 (repulsion): max_{y'≠y} s(f(t(x)), μ̂_{y'}) ≤ E_{T'}[(1/να) log E_{X'} "
                        "exp(α s)] + (1/να) log n, on trained features, at every anchor (n = the number of classes and "
                        "ν = supervised_view.bound_nu: the summary defines neither)",
                        "bound",
                    ),
                    "the summary defines neither ν nor n, so the bound tested is our reading of it: no measurement here "
                    "can decide the paper's (the row says what our reading finds)",
                ),
            ),
        ),
        _ssl(
            "S2",
            "similarity: cosine vs dot vs negative Euclidean",
            (
                out_of_reach(
                    ClaimSpec("accuracy", "top-1 accuracy per similarity", "value", "linear_top1", _SSL_DATA), _IMAGENET
                ),
                ClaimSpec("cosine_beats", "cosine with normalisation beats the other similarity", "direction"),
            ),
        ),
        _ssl(
            "S3",
            "data balance: uniform vs Pareto long-tailed of equal size",
            (
                out_of_reach(
                    ClaimSpec("accuracy", "top-1 accuracy per training set", "value", "linear_top1", _SSL_DATA), _IMAGENET
                ),
                ClaimSpec(
                    "uniform_beats_long_tailed",
                    "balanced training data beat long-tailed data of the same size (overall; the tail classes: a diagnostic)",
                    "direction",
                    rows=(
                        (
                            "uniform-long_tailed.few1_top1_tail",
                            "diagnostic",
                            "the summary makes no statement about the tail classes, only the overall accuracies (the row "
                            "above tests their order)",
                        ),
                    ),
                ),
            ),
        ),
        _ssl(
            "S4",
            "prototype representation bias: base / no blur / + rotation",
            (
                out_of_reach(
                    ClaimSpec("accuracy", "top-1 accuracy per augmentation", "value", "linear_top1", _SSL_DATA), _IMAGENET
                ),
                out_of_reach(
                    ClaimSpec(
                        "bias",
                        "prototype representation bias per augmentation (unit-normalised features, ≤ 2)",
                        "value",
                        "prototype_bias",
                        _SSL_DATA,
                    ),
                    _IMAGENET + "; the summary also gives the bias no unit (36–38 read like degrees)",
                ),
                out_of_reach(
                    ClaimSpec(
                        "bias_raw",
                        "prototype representation bias per augmentation, un-normalised features",
                        "value",
                        "prototype_bias",
                        _SSL_DATA,
                    ),
                    _IMAGENET + "; the summary also gives the bias no unit (36–38 read like degrees)",
                ),
                ClaimSpec("accuracy_order", "accuracy ordering base > no_blur > plus_rotation, pair by pair", "direction"),
                ClaimSpec(
                    "bias_accuracy",
                    "lower prototype bias goes with higher accuracy (the paper's three augmentations, its values in the "
                    "bias and accuracy rows): Spearman's rank correlation of (bias, accuracy) over every trained run of "
                    "every augmentation is negative, under each reading of the bias",
                    "direction",
                ),
                diagnostic(
                    ClaimSpec(
                        "bias_order",
                        "bias ordering base < no_blur < plus_rotation, pair by pair (the bias relative to "
                        "the prototypes' spread, scale-invariant)",
                        "direction",
                    ),
                    "our own scale-invariant quantity, not the paper's: the paper's statement is an association (lower "
                    "bias goes with higher accuracy), not an ordering of this quantity",
                ),
            ),
        ),
    ),
    costs=COSTS,
    not_sizes=NOT_SIZES,
    rule_keys=RULE_KEYS,
)
