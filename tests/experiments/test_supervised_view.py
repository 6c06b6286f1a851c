"""Paper 3: the balanced loss, similarities, data (digits, CIFAR-10 loader, long-tailed subsets),
augmentations and view banks, the prototype bias, the frozen-feature evaluations, and the claims."""

import pickle

import numpy as np
import pandas as pd
import pytest
import torch

from crlrepro.claims.verdicts import claims_frame
from crlrepro.experiments.supervised_view import knn_top1, linear_probe_top1, prototype_bias, two_view_batch
from crlrepro.learning.datasets import pareto_class_sizes
from crlrepro.learning.images import (
    augmentation,
    class_subset,
    load_cifar10,
    load_digits_split,
    training_subset,
    view_bank,
)
from crlrepro.learning.losses import balanced_contrastive_loss, similarity_matrix
from crlrepro.learning.networks import ContrastiveModel
from crlrepro.studies.supervised_view.claims import ssl_claims


def loop_balanced_loss(z1, z2, alpha, ratio, sim):
    """The paper's per-anchor formula, literally: (1/α)[−log e^{α s⁺} / (Σ_x' e^{α s(z, z_x')})^{λ/ν}]."""

    def s(a, b):
        if sim == "cosine":
            return float(a @ b / (a.norm() * b.norm()))
        if sim == "dot":
            return float(a @ b)
        return -float((a - b).norm())

    total = 0.0
    for first, second in ((z1, z2), (z2, z1)):
        for i in range(len(first)):
            denominator = sum(np.exp(alpha * s(first[i], second[j])) for j in range(len(second)))
            total += (1 / alpha) * -np.log(np.exp(alpha * s(first[i], second[i])) / denominator**ratio)
    return total / (2 * len(z1))


@pytest.mark.parametrize("sim", ["cosine", "dot", "neg_euclidean"])
@pytest.mark.parametrize("alpha, ratio", [(5.0, 1.0), (2.0, 0.5), (0.7, 1.6)])
def test_balanced_loss_matches_the_formula(sim, alpha, ratio):
    gen = torch.Generator().manual_seed(1)
    z1, z2 = torch.randn(6, 3, generator=gen, dtype=torch.float64), torch.randn(6, 3, generator=gen, dtype=torch.float64)
    got = float(balanced_contrastive_loss(z1, z2, alpha, ratio, sim))
    assert got == pytest.approx(loop_balanced_loss(z1, z2, alpha, ratio, sim), rel=1e-10)


def test_ratio_one_is_info_nce():
    """λ/ν = 1: (1/α) × the cross-entropy of the logits α·S with the diagonal as targets (NT-Xent with
    cross-view negatives), averaged over both directions."""
    gen = torch.Generator().manual_seed(2)
    z1, z2 = torch.randn(16, 8, generator=gen), torch.randn(16, 8, generator=gen)
    alpha = 1 / 0.2
    s = similarity_matrix(z1, z2, "cosine")
    target = torch.arange(16)
    info_nce = (torch.nn.functional.cross_entropy(alpha * s, target) + torch.nn.functional.cross_entropy(alpha * s.T, target)) / (
        2 * alpha
    )
    assert float(balanced_contrastive_loss(z1, z2, alpha, 1.0)) == pytest.approx(float(info_nce), rel=1e-6)
    # stable where a naive exp would overflow
    assert torch.isfinite(balanced_contrastive_loss(1e3 * z1, 1e3 * z2, 50.0, 1.0, "dot"))
    with pytest.raises(ValueError, match="lambda/nu"):
        balanced_contrastive_loss(z1, z2, alpha, 0.0)
    with pytest.raises(ValueError, match="unknown similarity 'l1'"):
        balanced_contrastive_loss(z1, z2, alpha, 1.0, "l1")


def test_similarities():
    a, b = torch.randn(5, 4, dtype=torch.float64), torch.randn(7, 4, dtype=torch.float64)
    torch.testing.assert_close(similarity_matrix(a, b, "neg_euclidean"), -torch.cdist(a, b))
    cos = similarity_matrix(3 * a, b, "cosine")
    torch.testing.assert_close(cos, similarity_matrix(a, 2 * b, "cosine"))
    assert cos.abs().max() <= 1 + 1e-12


def test_pareto_profile():
    sizes = pareto_class_sizes(10, 300, 10.0)
    assert sizes.sum() == 300 and np.all(np.diff(sizes) <= 0)
    assert sizes[0] / sizes[-1] == pytest.approx(10.0, rel=0.1)
    assert pareto_class_sizes(4, 100, 1.0).tolist() == [25, 25, 25, 25]
    assert pareto_class_sizes(7, 1000, 50.0).sum() == 1000
    with pytest.raises(ValueError, match="imbalance_ratio"):
        pareto_class_sizes(10, 300, 0.5)


def test_subsets_have_equal_size_and_the_profile():
    train, _ = load_digits_split(0.25, 0)
    uniform = training_subset(train, "uniform", 30, 10.0, seed=0)
    tail = training_subset(train, "long_tailed", 30, 10.0, seed=0)
    assert len(uniform.labels) == len(tail.labels) == 300
    assert uniform.labels.bincount().tolist() == [30] * 10
    counts = tail.labels.bincount()
    assert sorted(counts.tolist(), reverse=True) == pareto_class_sizes(10, 300, 10.0).tolist()
    from crlrepro.learning.datasets import class_ranks

    assert counts.tolist() == pareto_class_sizes(10, 300, 10.0)[class_ranks(10, 0)].tolist()
    other = training_subset(train, "long_tailed", 30, 10.0, seed=1).labels.bincount()
    assert counts.argmax() != other.argmax() or counts.argmin() != other.argmin()  # the head moves with the seed
    with pytest.raises(ValueError, match="class 0 has"):
        class_subset(train.labels, [10_000] + [1] * 9, seed=0)


def test_digits_split_is_real_stratified_and_fixed():
    train, test = load_digits_split(0.25, 0)
    again, _ = load_digits_split(0.25, 0)
    assert train.images.shape[1:] == (1, 8, 8) and len(train.labels) + len(test.labels) == 1797
    assert float(train.images.min()) >= 0.0 and float(train.images.max()) <= 1.0
    assert torch.equal(train.images, again.images)
    assert (test.labels.bincount() >= 40).all()


def test_the_digits_reader_is_scikit_learns_data_without_importing_it():
    """digits_arrays reads the file scikit-learn ships (the config check's class counts need it at every workflow
    start): the same images and labels as load_digits, read-only, and scikit-learn left unimported."""
    import subprocess
    import sys

    from sklearn.datasets import load_digits

    from crlrepro.learning.datasets import digits_arrays, training_class_counts

    images, labels = digits_arrays()
    digits = load_digits()
    assert np.array_equal(images, digits.images) and np.array_equal(labels, digits.target)
    assert images.dtype == digits.images.dtype and labels.dtype == digits.target.dtype
    with pytest.raises(ValueError, match="read-only"):
        labels[0] = 1
    # the config check of a digits config far from the class sizes (the defaults') makes no split and so imports no
    # scikit-learn: it starts every workflow
    check = (
        "import sys; from crlrepro.workflow.config import data_problems; "
        "view = {'data': {'name': 'digits', 'test_fraction': 0.25, 'split_seed': 0}, 'few_labels': [1, 10], "
        "'balance': {'per_class': 12, 'imbalance_ratio': 50.0}}; "
        "print(data_problems({'supervised_view': view}), 'sklearn' in sys.modules)"
    )
    run = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, check=True)
    assert run.stdout.strip() == "[] False"
    counts = training_class_counts({"name": "digits", "test_fraction": 0.25, "split_seed": 0})
    train, _ = load_digits_split(0.25, 0)
    assert counts.tolist() == train.labels.bincount().tolist()


def write_tiny_cifar(root, per_batch=4):
    folder = root / "cifar-10-batches-py"
    folder.mkdir(parents=True)
    rng = np.random.default_rng(0)
    for name in [f"data_batch_{i}" for i in range(1, 6)] + ["test_batch"]:
        batch = {
            "data": rng.integers(0, 256, size=(per_batch, 3072), dtype=np.uint8),
            "labels": rng.integers(0, 10, size=per_batch).tolist(),
        }
        with open(folder / name, "wb") as handle:
            pickle.dump(batch, handle)
    with open(folder / "batches.meta", "wb") as handle:
        pickle.dump({"label_names": [f"c{i}" for i in range(10)]}, handle)
    return folder


def test_cifar10_loader_reads_the_torchvision_format(tmp_path, monkeypatch):
    import torchvision.datasets.cifar

    folder = write_tiny_cifar(tmp_path)
    # the tiny files are not the published ones: skip torchvision's md5 check, keep everything else
    monkeypatch.setattr(torchvision.datasets.cifar, "check_integrity", lambda *args, **kwargs: True)
    train, test = load_cifar10(tmp_path)
    assert train.images.shape == (20, 3, 32, 32) and test.images.shape == (4, 3, 32, 32)
    with open(folder / "data_batch_1", "rb") as handle:
        first = pickle.load(handle)
    expected = torch.from_numpy(first["data"][0].reshape(3, 32, 32).astype(np.float32) / 255.0)
    torch.testing.assert_close(train.images[0], expected)
    assert train.labels[:4].tolist() == first["labels"]


def test_cifar10_missing_root_names_the_path(tmp_path):
    with pytest.raises(FileNotFoundError, match=str(tmp_path / "nowhere" / "cifar-10-batches-py")) as error:
        load_cifar10(tmp_path / "nowhere")
    assert "download: true" in str(error.value)


@pytest.mark.parametrize("name", ["base", "no_blur", "plus_rotation"])
def test_augmentations_make_valid_distinct_deterministic_views(name):
    train, _ = load_digits_split(0.25, 0)
    images = train.images[:6]
    from crlrepro.learning.augment import simclr_spec

    transform = augmentation(name, 8, 1, flip=False)
    assert transform(images[0]).shape == (1, 8, 8)
    bank = view_bank(images, simclr_spec(name, 1, flip=False), 5, seed=3)
    assert bank.shape == (6, 5, 1, 8, 8) and bank.min() >= 0 and bank.max() <= 1
    assert not torch.equal(bank[:, 0], bank[:, 1])
    assert torch.equal(bank, view_bank(images, simclr_spec(name, 1, flip=False), 5, seed=3))
    colour = augmentation(name, 32, 3, flip=True)(torch.rand(3, 32, 32))
    assert colour.shape == (3, 32, 32)
    with pytest.raises(ValueError, match="unknown augmentation 'crop'"):
        augmentation("crop", 8, 1, flip=False)


def test_two_views_are_two_distinct_views_of_the_same_image_and_every_ordered_pair_is_equally_likely():
    """View v of image i holds the value 4i + v: both views must come from image i (same row), differ, and over many
    draws each of the V(V − 1) = 12 ordered pairs (first, second) must appear ~1/12 of the time (a chi-square test at
    a level that a fixed-offset or off-by-one choice of the second view fails by far)."""
    from scipy import stats

    n, views = 50, 4
    bank = torch.arange(n * views).reshape(n, views, 1, 1, 1).float()
    counts = torch.zeros(views, views)
    rng = torch.Generator().manual_seed(0)
    for _ in range(200):
        v1, v2 = (v.flatten().long() for v in two_view_batch(bank, rng))
        assert torch.equal(v1 // views, torch.arange(n)) and torch.equal(v2 // views, torch.arange(n))  # image i's views
        assert (v1 != v2).all()
        counts.index_put_((v1 % views, v2 % views), torch.ones(n), accumulate=True)
    assert counts.diagonal().sum() == 0
    observed = counts[~torch.eye(views, dtype=torch.bool)].numpy()
    assert stats.chisquare(observed).pvalue > 1e-3, observed


def test_prototype_bias_known_values():
    labels = torch.tensor([0, 0, 1, 1])
    # every view of every image of a class maps to the same direction: no bias
    same = torch.tensor([1.0, 0.0]).repeat(4, 3, 1)
    same[2:] = torch.tensor([0.0, 1.0])
    assert prototype_bias(same, labels) == pytest.approx(0.0)
    # class 0 images at e1 and e2 (all views alike): surrogates e1, e2, prototype (e1 + e2)/2, bias √2/2 for both
    split = same.clone()
    split[1] = torch.tensor([0.0, 1.0])
    assert prototype_bias(split, labels) == pytest.approx((2 * (np.sqrt(2) / 2) + 0.0) / 4)
    # scale does not matter (cosine representation)
    assert prototype_bias(5.0 * split, labels) == pytest.approx(prototype_bias(split, labels))


def test_prototype_angle_known_values():
    """The angle reading of the bias: 0° where every image points as its class, 45° for a class split between e1 and
    e2 (each surrogate at 45° from the prototype (e1 + e2)/2), scale-free, NaN where a prototype is the zero vector."""
    from crlrepro.experiments.prototype_angle import prototype_angle

    labels = torch.tensor([0, 0, 1, 1])
    same = torch.tensor([1.0, 0.0]).repeat(4, 3, 1)
    same[2:] = torch.tensor([0.0, 1.0])
    assert prototype_angle(same, labels) == pytest.approx(0.0, abs=1e-6)
    split = same.clone()
    split[1] = torch.tensor([0.0, 1.0])
    assert prototype_angle(split, labels) == pytest.approx((45.0 + 45.0 + 0.0 + 0.0) / 4)
    assert prototype_angle(3.0 * split, labels) == pytest.approx(prototype_angle(split, labels))
    opposite = same.clone()
    opposite[1] = torch.tensor([-1.0, 0.0])  # class 0's images cancel: its prototype has no direction
    assert np.isnan(prototype_angle(opposite, labels))


def test_frozen_feature_evaluations():
    rng = np.random.default_rng(0)
    centres = rng.normal(size=(3, 5)) * 5
    labels = np.repeat(np.arange(3), 30)
    features = centres[labels] + rng.normal(size=(90, 5))
    assert knn_top1(features[::2], torch.as_tensor(labels[::2]), features[1::2], torch.as_tensor(labels[1::2]), 5) == 1.0
    assert linear_probe_top1(features[::2], labels[::2], features[1::2], labels[1::2]) == 1.0
    noise = rng.normal(size=(90, 5))
    assert knn_top1(noise[::2], torch.as_tensor(labels[::2]), noise[1::2], torch.as_tensor(labels[1::2]), 5) < 0.7


def test_models_output_shapes():
    for encoder, channels, size in (("small_cnn", 1, 8), ("resnet18", 3, 32)):
        model = ContrastiveModel(encoder, channels, projection_dim=16).eval()
        x = torch.rand(2, channels, size, size)
        assert model(x).shape == (2, 16)
    with pytest.raises(ValueError, match="unknown encoder 'vit'"):
        ContrastiveModel("vit", 1)


@pytest.mark.parametrize("encoder,channels,size", [("small_cnn", 1, 8), ("small_cnn", 3, 12), ("resnet18", 3, 16)])
def test_channels_last_encoder_is_the_same_function(encoder, channels, size):
    """The encoder runs in channels-last layout (a speed choice): same parameter names, same outputs and
    gradients as the plain NCHW computation with the same weights, and a state dict that loads anywhere."""
    torch.manual_seed(0)
    model = ContrastiveModel(encoder, channels, projection_dim=8, hidden=256)
    conv = next(m for m in model.encoder.modules() if isinstance(m, torch.nn.Conv2d) and m.in_channels > 1)
    assert conv.weight.is_contiguous(memory_format=torch.channels_last)
    plain = ContrastiveModel(encoder, channels, projection_dim=8, hidden=256)
    plain.encoder._forward_pre_hooks.clear()
    plain.encoder.to(memory_format=torch.contiguous_format)
    plain.load_state_dict(model.state_dict())
    assert list(plain.state_dict()) == list(model.state_dict())
    x = torch.rand(6, channels, size, size)
    out, ref = model(x), plain(x)
    torch.testing.assert_close(out, ref, rtol=1e-4, atol=1e-5)
    out.square().sum().backward()
    ref.square().sum().backward()
    name = next(n for n, p in model.named_parameters() if p is conv.weight)
    grad, ref_grad = conv.weight.grad, dict(plain.named_parameters())[name].grad
    # float32 sums in another order: equal up to rounding relative to the gradient's scale
    assert (grad - ref_grad).abs().max() <= 1e-3 * ref_grad.abs().max()


@pytest.mark.parametrize("layout", [torch.channels_last, torch.contiguous_format])
def test_global_average_pool_is_autograds_pool_with_the_inputs_layout(layout):
    """The encoder's pool: the values and gradients of adaptive_avg_pool2d(x, 1).flatten(1) to the bit, with
    the gradient in x's own layout (autograd's is NCHW, which made the ReLU before it ~10x slower)."""
    from crlrepro.learning.networks import GlobalAveragePool

    torch.manual_seed(0)
    x = torch.randn(5, 7, 3, 2).contiguous(memory_format=layout).requires_grad_()
    ref = x.detach().clone().requires_grad_()
    out = GlobalAveragePool()(x)
    expected = torch.nn.functional.adaptive_avg_pool2d(ref, 1).flatten(1)
    assert out.shape == (5, 7) and torch.equal(out, expected)
    upstream = torch.randn(5, 7)
    out.backward(upstream)
    expected.backward(upstream)
    assert torch.equal(x.grad, ref.grad)
    assert x.grad.is_contiguous(memory_format=layout)
    double = torch.randn(2, 3, 2, 2, dtype=torch.double, requires_grad=True)
    assert torch.autograd.gradcheck(GlobalAveragePool(), (double,))
    assert torch.autograd.gradgradcheck(GlobalAveragePool(), (double,))  # its backward is differentiable too
    unbatched = torch.randn(3, 4, 4, requires_grad=True)  # as nn.AdaptiveAvgPool2d(1) + nn.Flatten() take it
    GlobalAveragePool()(unbatched).sum().backward()
    torch.testing.assert_close(unbatched.grad, torch.full((3, 4, 4), 1 / 16))


def _ssl_table(column, values, accuracy, diverged=None):
    rows = []
    for value, acc in zip(values, accuracy, strict=True):
        for seed in range(3):
            rows.append(
                {
                    "balance": "full",
                    "augmentation": "base",
                    "similarity": "cosine",
                    "ratio": 1.0,
                    column: value,
                    "seed": seed,
                    "train_size": 100,
                    "num_classes": 10,
                    "diverged": bool(diverged and value in diverged),
                    "knn_top1": acc + 0.01 * seed,
                    "linear_top1": acc + 0.01 * seed,
                    "prototype_bias": 1.0 - acc + 0.001 * seed,
                }
            )
    table = pd.DataFrame(rows)
    table.loc[table["diverged"], ["knn_top1", "linear_top1", "prototype_bias"]] = np.nan
    return table


def test_ssl_claims_directions_and_divergence():
    digits = {"supervised_view.data.name": "digits"}
    table = _ssl_table("similarity", ["cosine", "dot", "neg_euclidean"], [0.9, 0.5, 0.95], diverged={"dot"})
    table.loc[table["similarity"] == "neg_euclidean", "linear_top1"] += [0.0, 0.002, -0.001]  # spread: a t-test decides
    s2 = claims_frame(
        ssl_claims(
            "S2",
            table,
            {
                "setting": {"supervised_view.data.name": "imagenet"},
                "linear_top1": {"cosine": 0.6598, "dot": 0.0043, "neg_euclidean": 0.1063},
            },
            digits,
        )
    )
    direction = s2[s2["kind"] == "direction"]
    # cosine beats dot (at chance after diverging); neg_euclidean is about 0.05 better than cosine in every seed
    assert direction["verdict"].tolist() == ["reproduced", "contradicted"]
    assert direction["measured"].iloc[0] == pytest.approx(0.9 + 0.01 - 0.1)  # dot at chance 1/K
    values = s2[s2["kind"] == "value"]
    assert (values["verdict"] == "not comparable").all() and "3 of 3 seeds diverged" in values["claim"].iloc[1]
    ratios = _ssl_table("ratio", [0.5, 1.0, 1.5], [0.8, 0.85, 0.9])
    ratios.loc[ratios["ratio"] == 1.5, "linear_top1"] += [0.0, 0.002, -0.001]
    s1 = claims_frame(ssl_claims("S1", ratios, {}, digits))
    # λ/ν = 0.5 is 0.05 worse in every seed (no spread: the exact sign test, 2⁻³ > α); 1.5 is better with spread
    # three seeds cannot be split into a choosing and a testing half; every ratio on every seed is the diagnostic
    assert s1["verdict"].tolist() == ["inconclusive", "reproduced"] and "needs at least 4" in s1["reason"].iloc[0]
    assert "shown: λ/ν=1.5 − 1" in s1["claim"].iloc[1] and "λ/ν=0.5 − 1: inconclusive" in s1["reason"].iloc[1]
