"""Names of paper 3's data sets, where their files live, their class sizes and the long-tailed
profile: what the config check and the loaders share (no torch: the config check runs when a
workflow starts)."""

import functools
import gzip
import importlib.util
import math
from pathlib import Path

import numpy as np

__all__ = [
    "balance_problems",
    "few_label_problems",
    "CIFAR10_FOLDER",
    "CIFAR10_TRAIN_PER_CLASS",
    "class_ranks",
    "DATASETS",
    "digits_arrays",
    "digits_split",
    "FASHION_MNIST_DEBIAN",
    "FASHION_MNIST_FILES",
    "fashion_mnist_files",
    "FASHION_MNIST_TRAIN_PER_CLASS",
    "long_tailed_class_sizes",
    "missing_data_message",
    "pareto_class_sizes",
    "subset_problems",
    "training_class_counts",
]

DATASETS = ("digits", "fashion_mnist", "cifar10")
CIFAR10_FOLDER = "cifar-10-batches-py"  # what torchvision's CIFAR10 reads under its root
# Fashion-MNIST's four IDX files: torchvision's FashionMNIST reads them extracted from <root>/FashionMNIST/raw/;
# Debian's dataset-fashion-mnist package installs them gzipped in /usr/share/datasets/fashion-mnist/.
FASHION_MNIST_FILES = ("train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte")
FASHION_MNIST_DEBIAN = "/usr/share/datasets/fashion-mnist"
FASHION_MNIST_TRAIN_PER_CLASS = 6000  # Fashion-MNIST's training set: 60,000 images, 6,000 of each class

CIFAR10_TRAIN_PER_CLASS = 5000  # CIFAR-10's training set: 50,000 images, 5,000 of each class


def digits_split(labels, test_fraction: float, seed: int):
    """The stratified train/test split of scikit-learn's digits: (train indices, test indices)."""
    from sklearn.model_selection import train_test_split

    return train_test_split(np.arange(len(labels)), test_size=test_fraction, random_state=seed, stratify=labels)


def fashion_mnist_files(root) -> dict[str, Path] | None:
    """Where Fashion-MNIST's four IDX files are under ``root``, in either layout: torchvision's
    (``<root>/FashionMNIST/raw/``, extracted or gzipped) or the Debian package's (``<root>/*.gz``, as in
    /usr/share/datasets/fashion-mnist); None when some file is missing in both."""
    root = Path(root).expanduser()
    for folder in (root / "FashionMNIST" / "raw", root):
        found = {}
        for name in FASHION_MNIST_FILES:
            for candidate in (folder / name, folder / f"{name}.gz"):
                if candidate.is_file():
                    found[name] = candidate
                    break
        if len(found) == len(FASHION_MNIST_FILES):
            return found
    return None


def missing_data_message(data: dict) -> str | None:
    """What is missing of the config's data set on disk, naming the path and how to get the files;
    None when it is there (or will be downloaded, or is embedded: digits)."""
    if data.get("download", False) or data.get("name") == "digits":
        return None
    root = Path(data.get("root", "data")).expanduser()
    if data["name"] == "cifar10" and not (root / CIFAR10_FOLDER).is_dir():
        return (
            f"supervised_view.data.root: no CIFAR-10 at {root / CIFAR10_FOLDER}; extract cifar-10-python.tar.gz "
            "(https://www.cs.toronto.edu/~kriz/cifar.html) there, or set supervised_view.data.download: true"
        )
    if data["name"] == "fashion_mnist" and fashion_mnist_files(root) is None:
        return (
            f"supervised_view.data.root: no Fashion-MNIST at {root} (its four IDX files, {', '.join(FASHION_MNIST_FILES)}, "
            f"extracted or .gz, in {root / 'FashionMNIST' / 'raw'} or in {root} itself); install Debian's package "
            f"(apt-get install dataset-fashion-mnist, files in {FASHION_MNIST_DEBIAN}) and set root to that folder, "
            "or set supervised_view.data.download: true to let torchvision fetch them into root"
        )
    return None


@functools.cache
def digits_arrays() -> tuple[np.ndarray, np.ndarray]:
    """scikit-learn's bundled 8×8 digits as (images, labels): 1797 images of grey levels 0..16 (float64, shape
    (1797, 8, 8)) and their classes 0..9, read from the file scikit-learn ships (``sklearn/datasets/data/
    digits.csv.gz``, 64 pixels and the label a row) as ``sklearn.datasets.load_digits`` reads it, without importing
    scikit-learn, whose import (about 2 s) every workflow start would pay for the config check's class counts.
    Cached: the arrays are read-only."""
    spec = importlib.util.find_spec("sklearn")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError(
            "scikit-learn is not installed: its bundled digits are the digits data set (pip install scikit-learn)"
        )
    path = Path(next(iter(spec.submodule_search_locations))) / "datasets" / "data" / "digits.csv.gz"
    with gzip.open(path, "rt") as handle:
        data = np.loadtxt(handle, delimiter=",")
    if data.ndim != 2 or data.shape[1] != 65:
        raise ValueError(f"{path}: expected rows of 64 pixels and a label, got shape {data.shape}")
    images, labels = data[:, :-1].reshape(-1, 8, 8), data[:, -1].astype(int)
    images.setflags(write=False)
    labels.setflags(write=False)
    return images, labels


def training_class_counts(data: dict, at_least: bool = False) -> np.ndarray:
    """Images of each class in the training split of the config's ``supervised_view.data`` (before
    any ``train_size`` subset).

    With ``at_least``, for the digits a lower bound found without making the split (nor importing scikit-learn, about
    2 s at every workflow start): the stratified split (:func:`digits_split`) keeps n_train = n − ⌈f·n⌉ images and
    gives class k at least ⌊n_train·n_k/n⌋ of them (scikit-learn's ``_approximate_mode`` floors each class's share and
    hands out the remainder), one less here against the rounding of f·n. The config checks use it first and make the
    split only where the bound does not settle the question."""
    if data["name"] == "cifar10":
        counts = np.full(10, CIFAR10_TRAIN_PER_CLASS)
    elif data["name"] == "fashion_mnist":
        counts = np.full(10, FASHION_MNIST_TRAIN_PER_CLASS)
    elif at_least:
        full = np.bincount(digits_arrays()[1], minlength=10)
        n = int(full.sum())
        kept = n - math.ceil(float(data["test_fraction"]) * n)
        counts = np.maximum(full * kept // n - 1, 0)
    else:
        labels = digits_arrays()[1]
        train, _ = digits_split(labels, data["test_fraction"], data["split_seed"])
        counts = np.bincount(labels[train], minlength=10)
    if data.get("train_size"):  # a stratified subset: train_size / 10 of each class
        counts = np.minimum(counts, int(data["train_size"]) // len(counts))
    return counts


def subset_problems(data: dict) -> list[str]:
    """``train_size``/``test_size`` must split evenly over the 10 classes and fit in each class."""
    problems = []
    for key in ("train_size", "test_size"):
        size = data.get(key)
        if isinstance(size, int) and size % 10:
            problems.append(f"supervised_view.data.{key}: {size} is not a multiple of the 10 classes (the subset is stratified)")
    size = data.get("train_size")
    if isinstance(size, int) and not size % 10 and data.get("name") in DATASETS:
        whole = {**data, "train_size": None}
        full = training_class_counts(whole, at_least=True)  # settles it without the split where it can
        if size // 10 > full.min():
            full = training_class_counts(whole)
        if size // 10 > full.min():
            problems.append(
                f"supervised_view.data.train_size: {size} needs {size // 10} images of each class, the training "
                f"split of {data['name']} has {int(full.min())} of its smallest"
            )
    return problems


def pareto_class_sizes(num_classes: int, total: int, imbalance_ratio: float) -> np.ndarray:
    """Class sizes n_k ∝ (k+1)^(−a), k = 0..K−1, with a = log(ratio)/log(K) so that n_0/n_{K−1} = ratio
    (a power-law, Pareto profile), rounded to integers that sum exactly to ``total``
    (largest remainders). ``imbalance_ratio`` = 1 gives the uniform profile."""
    if imbalance_ratio < 1:
        raise ValueError(f"imbalance_ratio must be >= 1, got {imbalance_ratio}")
    k = np.arange(num_classes)
    exponent = np.log(imbalance_ratio) / np.log(num_classes) if num_classes > 1 else 0.0
    shares = (k + 1.0) ** (-exponent)
    raw = total * shares / shares.sum()
    sizes = np.floor(raw).astype(int)
    sizes[np.argsort(-(raw - sizes), kind="stable")[: total - sizes.sum()]] += 1
    return sizes


def class_ranks(num_classes: int, seed: int) -> np.ndarray:
    """The rank of each class in seed ``seed``'s long-tailed profile (0: the largest): a random
    permutation drawn from the seed, so that which classes are head and which are tail changes from
    seed to seed and no class's own difficulty stands in for the imbalance."""
    return np.random.default_rng([int(seed), 7919]).permutation(num_classes)


def long_tailed_class_sizes(num_classes: int, per_class: int, imbalance_ratio: float, seed: int) -> np.ndarray:
    """Class sizes of seed ``seed``'s long-tailed set: the Pareto profile of :func:`pareto_class_sizes`
    (total num_classes·per_class) assigned to the classes by :func:`class_ranks`."""
    profile = pareto_class_sizes(num_classes, num_classes * int(per_class), imbalance_ratio)
    return profile[class_ranks(num_classes, seed)]


def few_label_problems(view: dict) -> list[str]:
    """The few-label probes draw ``few_labels[i]`` labelled images of every class from the training split without
    replacement: each count must fit in its smallest class."""
    asked = [count for count in view.get("few_labels", []) if isinstance(count, int)]
    if not asked or max(asked) <= training_class_counts(view["data"], at_least=True).min():
        return []  # settled by the lower bound, without making the split
    counts = training_class_counts(view["data"])
    k = int(np.argmin(counts))
    return [
        f"supervised_view.few_labels[{i}]: {count} labelled images per class, but class {k} of the training split has "
        f"only {int(counts[k])} ({view['data']['name']}); use at most {int(counts[k])}"
        for i, count in enumerate(view.get("few_labels", []))
        if isinstance(count, int) and count > counts[k]
    ]


def balance_problems(view: dict) -> list[str]:
    """S3's training sets need per_class of every class (uniform) and the Pareto profile of the same
    total (long-tailed; any class may be the largest, :func:`class_ranks`): the smallest class of the
    training split must hold the largest size."""
    balance = view["balance"]
    classes = len(training_class_counts(view["data"], at_least=True))
    need = pareto_class_sizes(classes, classes * int(balance["per_class"]), float(balance["imbalance_ratio"]))
    largest = max(int(need.max()), int(balance["per_class"]))  # the uniform set needs per_class of each class too
    if largest <= training_class_counts(view["data"], at_least=True).min():
        return []  # settled by the lower bound, without making the split
    counts = training_class_counts(view["data"])
    k = int(np.argmin(counts))
    if largest <= counts[k]:
        return []
    return [
        f"supervised_view.balance.per_class: {balance['per_class']} per class (imbalance ratio {balance['imbalance_ratio']:g}) "
        f"needs {largest} images of the largest class, which may be any class; class {k} of the training split has "
        f"{int(counts[k])} ({view['data']['name']}); lower per_class or imbalance_ratio"
    ]
