"""Names of paper 3's data sets, where their files live, their class sizes and the long-tailed
profile: what the config check and the loaders share (no torch: the config check runs when a
workflow starts)."""

import numpy as np

DATASETS = ("digits", "cifar10")
CIFAR10_FOLDER = "cifar-10-batches-py"  # what torchvision's CIFAR10 reads under its root

CIFAR10_TRAIN_PER_CLASS = 5000  # CIFAR-10's training set: 50,000 images, 5,000 of each class


def digits_split(labels, test_fraction: float, seed: int):
    """The stratified train/test split of scikit-learn's digits: (train indices, test indices)."""
    from sklearn.model_selection import train_test_split

    return train_test_split(np.arange(len(labels)), test_size=test_fraction, random_state=seed, stratify=labels)


def training_class_counts(data: dict) -> np.ndarray:
    """Images of each class in the training split of the config's ``supervised_view.data``."""
    if data["name"] == "cifar10":
        return np.full(10, CIFAR10_TRAIN_PER_CLASS)
    from sklearn.datasets import load_digits

    labels = load_digits().target
    train, _ = digits_split(labels, data["test_fraction"], data["split_seed"])
    return np.bincount(labels[train], minlength=10)


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


def balance_problems(view: dict) -> list[str]:
    """S3's training sets need per_class of every class (uniform) and the Pareto profile of the same
    total (long-tailed, largest class first): the classes of the training split must hold them."""
    balance, counts = view["balance"], training_class_counts(view["data"])
    need = pareto_class_sizes(len(counts), len(counts) * int(balance["per_class"]), float(balance["imbalance_ratio"]))
    need = np.maximum(need, int(balance["per_class"]))  # the uniform set needs per_class of each class too
    short = np.flatnonzero(need > counts)
    if not short.size:
        return []
    k = int(short[0])
    return [f"supervised_view.balance.per_class: {balance['per_class']} per class (imbalance ratio {balance['imbalance_ratio']:g}) "
            f"needs {int(need[k])} images of class {k}, whose training split has {int(counts[k])} "
            f"({view['data']['name']}); lower per_class or imbalance_ratio"]
