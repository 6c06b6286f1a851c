"""Paper 3's data and evaluation: Fashion-MNIST through torchvision in both layouts (torchvision's and
Debian's), the real files where they are installed, stratified subsets and resizing, few-label probes,
the tail classes, the un-normalised bias, the loss dispatch, the trainer's fixed step count and
optimisers, and the baselines."""

import gzip
import os
import struct
from pathlib import Path

import numpy as np
import pytest
import torch

from crlrepro.experiments.supervised_view import baseline_table, few_label_probe_top1, prototype_bias, tail_classes
from crlrepro.learning.datasets import FASHION_MNIST_DEBIAN, FASHION_MNIST_FILES, missing_data_message
from crlrepro.learning.images import load_dataset, load_fashion_mnist
from crlrepro.learning.losses import contrastive_loss
from crlrepro.learning.networks import ContrastiveModel
from crlrepro.learning.train import TrainSettings, train


def idx_bytes(array: np.ndarray) -> bytes:
    """An IDX file (unsigned bytes): magic 0x0000 08 ndim, big-endian dimensions, the data."""
    header = struct.pack(">HBB", 0, 8, array.ndim) + b"".join(struct.pack(">I", d) for d in array.shape)
    return header + array.astype(np.uint8).tobytes()


def write_tiny_fashion_mnist(folder: Path, gz: bool, n_train: int = 40, n_test: int = 20) -> dict:
    rng = np.random.default_rng(0)
    arrays = {
        "train-images-idx3-ubyte": rng.integers(0, 256, (n_train, 28, 28)),
        "train-labels-idx1-ubyte": np.arange(n_train) % 10,
        "t10k-images-idx3-ubyte": rng.integers(0, 256, (n_test, 28, 28)),
        "t10k-labels-idx1-ubyte": np.arange(n_test) % 10,
    }
    folder.mkdir(parents=True, exist_ok=True)
    for name, array in arrays.items():
        data = idx_bytes(array)
        if gz:
            with gzip.open(folder / f"{name}.gz", "wb") as handle:
                handle.write(data)
        else:
            (folder / name).write_bytes(data)
    return arrays


@pytest.mark.parametrize("layout", ["debian", "torchvision_raw", "torchvision_gz"])
def test_fashion_mnist_reads_both_layouts_and_leaves_root_untouched(tmp_path, layout):
    folder = tmp_path if layout == "debian" else tmp_path / "FashionMNIST" / "raw"
    arrays = write_tiny_fashion_mnist(folder, gz=layout != "torchvision_raw")
    before = sorted(p.name for p in tmp_path.rglob("*"))
    train, test = load_fashion_mnist(tmp_path)
    assert train.images.shape == (40, 1, 28, 28) and test.images.shape == (20, 1, 28, 28)
    torch.testing.assert_close(train.images[3, 0], torch.from_numpy(arrays["train-images-idx3-ubyte"][3] / 255.0).float())
    assert train.labels.tolist() == list(arrays["train-labels-idx1-ubyte"]) and train.labels.dtype == torch.long
    if layout != "torchvision_raw":
        assert sorted(p.name for p in tmp_path.rglob("*")) == before  # gzipped files are extracted elsewhere


def test_fashion_mnist_refuses_files_that_are_not_it(tmp_path):
    write_tiny_fashion_mnist(tmp_path, gz=True)
    with gzip.open(tmp_path / "train-labels-idx1-ubyte.gz", "wb") as handle:
        handle.write(idx_bytes(np.full(40, 12)))  # label 12: not one of the ten classes
    with pytest.raises(ValueError, match="labels in \\[12, 12\\]"):
        load_fashion_mnist(tmp_path)


def test_missing_fashion_mnist_names_the_path_and_both_ways_to_get_it(tmp_path):
    message = missing_data_message({"name": "fashion_mnist", "root": str(tmp_path / "none")})
    assert (
        str(tmp_path / "none") in message and "apt-get install dataset-fashion-mnist" in message and "download: true" in message
    )
    with pytest.raises(FileNotFoundError, match="dataset-fashion-mnist"):
        load_fashion_mnist(tmp_path / "none")
    assert missing_data_message({"name": "fashion_mnist", "root": str(tmp_path), "download": True}) is None
    write_tiny_fashion_mnist(tmp_path, gz=True)
    assert missing_data_message({"name": "fashion_mnist", "root": str(tmp_path)}) is None
    (tmp_path / f"{FASHION_MNIST_FILES[3]}.gz").unlink()
    assert missing_data_message({"name": "fashion_mnist", "root": str(tmp_path)}) is not None


REAL = Path(FASHION_MNIST_DEBIAN)


@pytest.mark.skipif(
    not REAL.is_dir() and not os.environ.get("CRLREPRO_REQUIRE_FASHION_MNIST"),
    reason="Debian's dataset-fashion-mnist is not installed (CI installs it and requires this test)",
)
def test_the_real_fashion_mnist_files():
    train, test = load_fashion_mnist(REAL)
    assert train.images.shape == (60000, 1, 28, 28) and test.images.shape == (10000, 1, 28, 28)
    assert torch.bincount(train.labels).tolist() == [6000] * 10 and torch.bincount(test.labels).tolist() == [1000] * 10
    assert float(train.images.mean()) == pytest.approx(0.2860, abs=1e-4)  # the published mean pixel of Fashion-MNIST
    small_train, small_test = load_dataset(
        {"name": "fashion_mnist", "root": str(REAL), "split_seed": 0, "train_size": 200, "test_size": 100, "image_size": 14}
    )
    assert small_train.images.shape == (200, 1, 14, 14) and torch.bincount(small_train.labels).tolist() == [20] * 10
    assert small_test.images.shape == (100, 1, 14, 14)


def test_subsets_are_stratified_seeded_and_resizing_keeps_the_range(tmp_path):
    write_tiny_fashion_mnist(tmp_path, gz=True, n_train=100)
    data = {"name": "fashion_mnist", "root": str(tmp_path), "split_seed": 3, "train_size": 50, "image_size": 10}
    a, _ = load_dataset(data)
    b, _ = load_dataset(data)
    c, _ = load_dataset({**data, "split_seed": 4})
    assert torch.bincount(a.labels).tolist() == [5] * 10 and a.images.shape == (50, 1, 10, 10)
    assert torch.equal(a.images, b.images) and not torch.equal(a.images, c.images)
    assert float(a.images.min()) >= 0.0 and float(a.images.max()) <= 1.0
    with pytest.raises(ValueError, match="multiple of the 10 classes"):
        load_dataset({**data, "train_size": 55})


def test_few_label_probe_headroom_and_draws():
    gen = np.random.default_rng(0)
    labels = np.tile(np.arange(4), 50)
    centres = gen.normal(size=(4, 6)) * 3
    clean = centres[labels] + gen.normal(size=(200, 6))
    noise = gen.normal(size=(200, 6))
    good = few_label_probe_top1(clean[:100], labels[:100], clean[100:], labels[100:], 1, 5, seed=0)
    bad = few_label_probe_top1(noise[:100], labels[:100], noise[100:], labels[100:], 1, 5, seed=0)
    assert good > 0.8 and bad < 0.5
    assert few_label_probe_top1(clean[:100], labels[:100], clean[100:], labels[100:], 1, 5, seed=0) == good  # seeded
    with pytest.raises(ValueError, match="labels_per_class"):
        few_label_probe_top1(clean, labels, clean, labels, 0, 5, seed=0)


def test_tail_classes_are_the_smallest_half_of_each_seeds_long_tailed_set():
    from crlrepro.learning.datasets import long_tailed_class_sizes

    for seed in range(4):
        sizes = long_tailed_class_sizes(10, 30, 10.0, seed)  # 102 51 34 26 21 | 17 15 13 11 10, ranks by the seed
        tail = tail_classes(10, 10.0, seed)
        assert len(tail) == 5 and sorted(sizes[tail].tolist()) == [10, 11, 13, 15, 17]
    assert tail_classes(10, 10.0, 0) != tail_classes(10, 10.0, 1)
    assert tail_classes(7, 10.0, 0) == sorted(tail_classes(7, 10.0, 0)) and len(tail_classes(7, 10.0, 0)) == 3
    assert tail_classes(10, 1.0, 0) == []


def test_unnormalised_bias_scales_with_the_features():
    labels = torch.tensor([0, 0, 1, 1])
    features = torch.tensor(
        [[[1.0, 0.0], [0.0, 1.0]], [[1.0, 0.0], [1.0, 0.0]], [[0.0, 1.0], [0.0, 1.0]], [[0.0, 1.0], [1.0, 0.0]]]
    )
    normalised = prototype_bias(features, labels)
    assert prototype_bias(10.0 * features, labels) == pytest.approx(normalised)
    assert prototype_bias(10.0 * features, labels, normalise=False) == pytest.approx(
        10.0 * prototype_bias(features, labels, False)
    )
    assert prototype_bias(features, labels, normalise=False) == pytest.approx(normalised)  # unit rows: the same


def test_contrastive_loss_dispatches_to_each_variant_and_refuses_mismatches():
    from crlrepro.learning.losses import balanced_contrastive_loss, decoupled_contrastive_loss, generalized_nt_xent_loss

    z1, z2 = (
        torch.randn(6, 4, generator=torch.Generator().manual_seed(0)),
        torch.randn(6, 4, generator=torch.Generator().manual_seed(1)),
    )
    assert torch.equal(contrastive_loss(z1, z2, "balanced", 5.0, 0.5, "dot"), balanced_contrastive_loss(z1, z2, 5.0, 0.5, "dot"))
    assert torch.equal(contrastive_loss(z1, z2, "nt_xent", 5.0, 1.5, "cosine"), generalized_nt_xent_loss(z1, z2, 5.0, 1.5))
    assert torch.equal(contrastive_loss(z1, z2, "dcl", 5.0, 1.0, "cosine"), decoupled_contrastive_loss(z1, z2, 5.0))
    with pytest.raises(ValueError, match="'dot'"):
        contrastive_loss(z1, z2, "dcl", 5.0, 1.0, "dot")
    with pytest.raises(ValueError, match="ratio must be 1, got 2.0"):
        contrastive_loss(z1, z2, "dcl", 5.0, 2.0, "cosine")
    with pytest.raises(ValueError, match="'hinge'"):
        contrastive_loss(z1, z2, "hinge", 5.0, 1.0, "cosine")


def _count_steps(n: int, steps_per_epoch, optimizer: str = "adamw"):
    model = torch.nn.Linear(2, 1)
    seen = []

    def batch_loss(model, batch, rng):
        seen.append(batch[0].clone())
        return model(batch[0]).pow(2).mean()

    settings = TrainSettings(
        epochs=2, batch_size=4, learning_rate=0.1, weight_decay=0.01, seed=0, steps_per_epoch=steps_per_epoch, optimizer=optimizer
    )
    before = model.weight.detach().clone()
    train(model, batch_loss, [torch.arange(2 * n, dtype=torch.float32).reshape(n, 2)], settings)
    return seen, not torch.equal(before, model.weight)


def test_fixed_steps_per_epoch_give_small_sets_the_same_number_of_steps():
    seen, _ = _count_steps(10, None)
    assert len(seen) == 2 * 2  # one pass: 10 // 4 = 2 steps per epoch
    seen, _ = _count_steps(10, 5)
    assert len(seen) == 2 * 5  # 5 steps of 4 from two chained permutations of the 10 rows
    rows = torch.cat(seen[:5])[:, 0].div(2).long()
    assert sorted(rows[:10].tolist()) == list(range(10))  # the first pass covers every row once
    with pytest.raises(ValueError, match="steps_per_epoch must be >= 1"):
        _count_steps(10, 0)


@pytest.mark.parametrize("optimizer", ["sgd", "lars"])
def test_sgd_and_lars_train_and_unknown_optimisers_are_named(optimizer):
    _, moved = _count_steps(10, None, optimizer)
    assert moved
    with pytest.raises(ValueError, match="'adam'"):
        _count_steps(10, None, "adam")


def test_lars_scales_each_matrix_step_by_its_trust_ratio():
    from crlrepro.learning.train import LARS

    weight = torch.nn.Parameter(torch.tensor([[3.0, 4.0]]))  # ‖w‖ = 5
    bias = torch.nn.Parameter(torch.tensor([1.0]))
    weight.grad, bias.grad = torch.tensor([[0.0, 2.0]]), torch.tensor([0.5])  # ‖g‖ = 2
    LARS([weight, bias], lr=1.0, weight_decay=0.0, momentum=0.9, trust=1e-3).step()
    torch.testing.assert_close(weight.detach(), torch.tensor([[3.0, 4.0 - 1e-3 * 5 / 2 * 2.0]]))
    torch.testing.assert_close(bias.detach(), torch.tensor([0.5]))  # 1-D: plain SGD step


def test_baselines_are_raw_pixels_and_untrained_encoders():
    gen = torch.Generator().manual_seed(0)
    views = {
        "train_images": torch.rand(40, 1, 8, 8, generator=gen),
        "train_labels": torch.arange(40) % 10,
        "test_images": torch.rand(20, 1, 8, 8, generator=gen),
        "test_labels": torch.arange(20) % 10,
        "test_bank": torch.rand(20, 3, 1, 8, 8, generator=gen),
        "bias_labels": torch.arange(20) % 10,
        "num_classes": 10,
    }
    evaluation = {
        "knn_k": 3,
        "few_labels": [1],
        "few_label_draws": 2,
        "seed": 0,
        "num_classes": 10,
        "temperature": 0.5,
        "bound_nu": 1.0,
        "balance": {"per_class": 2, "imbalance_ratio": 10.0},
    }
    table = baseline_table({"base": views}, {"encoder": "small_cnn", "channels": 1, "projection_dim": 8}, [0, 1], evaluation)
    assert table["model"].tolist() == ["raw_pixels", "random_encoder", "random_encoder"]
    assert table["seed"].tolist() == [-1, 0, 1] and not table["diverged"].any()
    assert table[["linear_top1", "few1_top1", "prototype_bias"]].notna().all().all()
    assert table.loc[1:, ["attraction_lhs", "repulsion_rhs"]].notna().all().all()  # encoders: the bounds
    assert table.loc[:0, ["attraction_lhs", "repulsion_rhs"]].isna().all().all()  # raw pixels: none (zero views)
    assert table.loc[1, "prototype_bias"] != table.loc[2, "prototype_bias"]  # each seed its own initialisation
    again = baseline_table({"base": views}, {"encoder": "small_cnn", "channels": 1, "projection_dim": 8}, [0, 1], evaluation)
    assert again.equals(table)
    assert isinstance(ContrastiveModel("small_cnn", 1, 8).projector[0], torch.nn.Linear)
    assert ContrastiveModel("small_cnn", 1, 8).projector[0].out_features == 128  # the encoder's width, as the paper


def loop_supervised_prototype_loss(z1, z2, labels, lam):
    """Paper 3's supervised objective, literally: −cos(z, μ_y) + λ max_{y'≠y} cos(z, μ_{y'}), μ_k the mean of
    the normalised features of class k over both views."""
    z = [v / v.norm() for v in torch.cat([z1, z2]).double()]
    y = torch.cat([labels, labels]).tolist()
    prototypes = {k: sum(z[i] for i in range(len(z)) if y[i] == k) / y.count(k) for k in set(y)}
    cos = lambda a, b: float(a @ b / (a.norm() * b.norm()))  # noqa: E731
    total = sum(
        -cos(z[i], prototypes[y[i]]) + lam * max(cos(z[i], prototypes[k]) for k in prototypes if k != y[i]) for i in range(len(z))
    )
    return total / len(z)


@pytest.mark.parametrize("lam", [1.0, 0.5, 2.0])
def test_supervised_prototype_objective_matches_the_formula(lam):
    from crlrepro.learning.losses import supervised_prototype_loss

    gen = torch.Generator().manual_seed(3)
    z1, z2 = torch.randn(9, 4, generator=gen, dtype=torch.float64), torch.randn(9, 4, generator=gen, dtype=torch.float64)
    labels = torch.tensor([0, 1, 2, 0, 1, 2, 0, 1, 3])
    got = float(supervised_prototype_loss(z1, z2, labels, lam))
    assert got == pytest.approx(loop_supervised_prototype_loss(z1, z2, labels, lam), rel=1e-10)
    clustered = torch.nn.functional.one_hot(labels, 4).double() * 5 + 0.01 * z1
    assert float(supervised_prototype_loss(clustered, clustered, labels, lam)) < got  # features by class: lower
    z1.requires_grad_(True)
    supervised_prototype_loss(z1, z2, labels, lam).backward()
    assert torch.isfinite(z1.grad).all() and z1.grad.abs().sum() > 0
    with pytest.raises(ValueError, match="at least 2 classes"):
        supervised_prototype_loss(z1, z2, torch.zeros(9, dtype=torch.long), lam)
    with pytest.raises(ValueError, match="lambda must be a finite number > 0, got 0"):
        supervised_prototype_loss(z1, z2, labels, 0)


def test_the_supervised_reference_trains_on_labels_only_when_given_them():
    from crlrepro.experiments.supervised_view import train_contrastive
    from crlrepro.learning.augment import simclr_spec

    images, labels = torch.rand(40, 1, 8, 8, generator=torch.Generator().manual_seed(0)), torch.arange(40) % 4
    settings = TrainSettings(epochs=1, batch_size=20, learning_rate=1e-3, weight_decay=0.0, seed=0)
    common = dict(
        encoder="small_cnn",
        projection_dim=8,
        temperature=0.5,
        ratio=1.0,
        similarity="cosine",
        augment=simclr_spec("base", 1, flip=False),
    )
    model, history = train_contrastive(images, settings, loss="supervised_prototype", labels=labels, **common)
    assert len(history) == 1 and np.isfinite(history[0]["loss"])
    with pytest.raises(ValueError, match="needs the labels"):
        train_contrastive(images, settings, loss="supervised_prototype", **common)
