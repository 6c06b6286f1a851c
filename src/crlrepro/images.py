"""Image data for paper 3: the embedded scikit-learn digits, CIFAR-10 from a local root, long-tailed
subsets with a Pareto class profile, the SimCLR augmentations (torchvision.transforms.v2), and
banks of pre-drawn augmented views.

Images are float32 tensors (N, C, H, W) in [0, 1] with int64 labels.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from crlrepro.datasets import CIFAR10_FOLDER, DATASETS, digits_split, pareto_class_sizes
AUGMENTATIONS = ("base", "no_blur", "plus_rotation")


@dataclass(frozen=True)
class ImageSplit:
    images: torch.Tensor  # (N, C, H, W) float32 in [0, 1]
    labels: torch.Tensor  # (N,) int64
    num_classes: int

    def subset(self, index) -> "ImageSplit":
        index = torch.as_tensor(index, dtype=torch.long)
        return ImageSplit(self.images[index], self.labels[index], self.num_classes)


def load_digits_split(test_fraction: float, seed: int) -> tuple[ImageSplit, ImageSplit]:
    """scikit-learn's bundled 8×8 digits (1797 real images, 10 classes, grey levels 0..16), split
    into train and test, stratified, with a fixed seed."""
    from sklearn.datasets import load_digits

    digits = load_digits()
    images = torch.from_numpy(digits.images.astype(np.float32) / 16.0)[:, None]
    labels = torch.from_numpy(digits.target.astype(np.int64))
    train, test = digits_split(digits.target, test_fraction, seed)
    return ImageSplit(images[train], labels[train], 10), ImageSplit(images[test], labels[test], 10)


def load_cifar10(root: str | Path, download: bool = False) -> tuple[ImageSplit, ImageSplit]:
    """CIFAR-10 through ``torchvision.datasets.CIFAR10`` from ``root``. Without ``download`` the files
    must already be there: a missing folder is an error naming the path and how to get the data."""
    from torchvision.datasets import CIFAR10

    root = Path(root).expanduser()
    if not download and not (root / CIFAR10_FOLDER).is_dir():
        raise FileNotFoundError(
            f"CIFAR-10 not found: expected the folder {root / CIFAR10_FOLDER} (the python version of the data set, "
            f"cifar-10-python.tar.gz from https://www.cs.toronto.edu/~kriz/cifar.html, extracted into {root}); "
            "or set data.download: true to let torchvision fetch it"
        )
    splits = []
    for train in (True, False):
        data = CIFAR10(str(root), train=train, download=download)
        images = torch.from_numpy(np.asarray(data.data)).permute(0, 3, 1, 2).float() / 255.0
        splits.append(ImageSplit(images.contiguous(), torch.as_tensor(data.targets, dtype=torch.long), 10))
    return splits[0], splits[1]


def load_dataset(data: dict) -> tuple[ImageSplit, ImageSplit]:
    """The config's ``data`` block: ``name`` digits (``test_fraction``, ``split_seed``) or cifar10
    (``root``, ``download``)."""
    if data["name"] == "digits":
        return load_digits_split(data["test_fraction"], data["split_seed"])
    if data["name"] == "cifar10":
        return load_cifar10(data["root"], data.get("download", False))
    raise ValueError(f"unknown data set {data['name']!r}; expected one of {', '.join(DATASETS)}")


def class_subset(labels: torch.Tensor, sizes, seed: int) -> np.ndarray:
    """Indices of a subset with ``sizes[k]`` examples of class k, drawn without replacement (seeded);
    an error names the class when the data have fewer."""
    labels = np.asarray(labels)
    rng = np.random.default_rng(seed)
    chosen = []
    for k, size in enumerate(sizes):
        pool = np.flatnonzero(labels == k)
        if size > pool.size:
            raise ValueError(f"class {k} has {pool.size} examples, the subset needs {size}: lower the subset size or the imbalance ratio")
        chosen.append(rng.choice(pool, size=int(size), replace=False))
    return np.sort(np.concatenate(chosen))


def training_subset(split: ImageSplit, balance: str, per_class: int, imbalance_ratio: float, seed: int) -> ImageSplit:
    """S3's training sets of equal size K·per_class: ``uniform`` (per_class of every class) or
    ``long_tailed`` (the Pareto profile of :func:`pareto_class_sizes` with the same total); ``full``
    is the whole split."""
    if balance == "full":
        return split
    ratio = 1.0 if balance == "uniform" else float(imbalance_ratio)
    if balance not in ("uniform", "long_tailed"):
        raise ValueError(f"unknown balance {balance!r}; expected full, uniform or long_tailed")
    sizes = pareto_class_sizes(split.num_classes, split.num_classes * int(per_class), ratio)
    return split.subset(class_subset(split.labels, sizes, seed))


def augmentation(name: str, image_size: int, channels: int, flip: bool):
    """The named view-generating pipeline T (torchvision.transforms.v2), the SimCLR set adapted to the
    image size: random resized crop (scale 0.4–1), horizontal flip where the data allow it,
    brightness/contrast (and for colour images saturation/hue) jitter with p = 0.8, grey-scale with
    p = 0.2 for colour images, Gaussian blur (kernel ≈ 10% of the side, odd, ≥ 3) with p = 0.5.
    ``no_blur`` drops the blur; ``plus_rotation`` adds a random rotation of up to ±30°."""
    from torchvision.transforms import v2

    if name not in AUGMENTATIONS:
        raise ValueError(f"unknown augmentation {name!r}; expected one of {', '.join(AUGMENTATIONS)}")
    jitter = v2.ColorJitter(0.4, 0.4, 0.4, 0.1) if channels == 3 else v2.ColorJitter(0.4, 0.4)
    steps = [v2.RandomResizedCrop(image_size, scale=(0.4, 1.0), antialias=True)]
    if flip:
        steps.append(v2.RandomHorizontalFlip())
    steps.append(v2.RandomApply([jitter], p=0.8))
    if channels == 3:
        steps.append(v2.RandomGrayscale(p=0.2))
    if name != "no_blur":
        kernel = max(3, int(0.1 * image_size) // 2 * 2 + 1)
        steps.append(v2.RandomApply([v2.GaussianBlur(kernel, sigma=(0.1, 2.0))], p=0.5))
    if name == "plus_rotation":
        steps.append(v2.RandomRotation(30))
    steps.append(v2.ToDtype(torch.float32, scale=False))
    return v2.Compose(steps)


def view_bank(images: torch.Tensor, transform, views: int, seed: int) -> torch.Tensor:
    """``views`` independent draws T(x) for every image: a tensor (N, V, C, H, W). Training pairs two
    distinct views of the bank per image per step, so the slow per-image transforms run once per
    (data, augmentation) and are shared by every training that uses them."""
    import sys

    from tqdm import tqdm

    torch.manual_seed(seed)
    out = torch.empty((images.shape[0], views, *images.shape[1:]), dtype=torch.float32)
    for i in tqdm(range(images.shape[0]), desc=f"{views} views per image", unit="image", file=sys.stderr, mininterval=2.0):
        for v in range(views):
            out[i, v] = transform(images[i])
    return out.clamp_(0.0, 1.0)


FLIPPABLE = {"digits": False, "cifar10": True}  # horizontal flips change what a digit is


def build_views(data: dict, augmentation_name: str, views: int, bias_views: int, seed: int) -> dict:
    """The cached input of every paper-3 training: ``views`` augmented views of each training image
    and ``bias_views`` of each test image (for the prototype bias), stored as uint8, with the
    un-augmented images and the labels."""
    train, test = load_dataset(data)
    channels, size = train.images.shape[1], train.images.shape[-1]
    transform = augmentation(augmentation_name, size, channels, FLIPPABLE[data["name"]])
    to_bytes = lambda t: (t * 255.0).round_().to(torch.uint8)  # noqa: E731
    return {
        "train_bank": to_bytes(view_bank(train.images, transform, views, seed)),
        "test_bank": to_bytes(view_bank(test.images, transform, bias_views, seed + 1)),
        "train_images": to_bytes(train.images), "train_labels": train.labels,
        "test_images": to_bytes(test.images), "test_labels": test.labels,
        "num_classes": train.num_classes, "augmentation": augmentation_name, "data": dict(data),
    }


def load_views(path) -> dict:
    """A :func:`build_views` file with the images back as float32 in [0, 1] (verified against its
    sidecar and read without unpickling code: :func:`crlrepro.artifacts.load_torch`)."""
    from crlrepro.artifacts import load_torch

    payload = load_torch(path)
    for key in ("train_bank", "test_bank", "train_images", "test_images"):
        payload[key] = payload[key].float().div_(255.0)
    return payload
