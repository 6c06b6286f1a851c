"""Image data for paper 3: the embedded scikit-learn digits, Fashion-MNIST and CIFAR-10 from a local root
(torchvision's readers), stratified subsets, long-tailed subsets with a Pareto class profile, the SimCLR
augmentations (torchvision.transforms.v2 image by image as the reference; :mod:`crlrepro.learning.augment`
batched, what training uses), and banks of pre-drawn augmented views.

Images are float32 tensors (N, C, H, W) in [0, 1] with int64 labels.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from crlrepro.learning.datasets import (
    DATASETS,
    digits_arrays,
    digits_split,
    fashion_mnist_files,
    long_tailed_class_sizes,
    missing_data_message,
)

__all__ = [
    "augmentation",
    "AUGMENTATIONS",
    "bias_subset",
    "build_views",
    "class_subset",
    "FLIPPABLE",
    "ImageSplit",
    "load_cifar10",
    "load_dataset",
    "load_digits_split",
    "load_fashion_mnist",
    "load_views",
    "resize_split",
    "stratified_subset",
    "training_subset",
    "view_bank",
]

AUGMENTATIONS = ("base", "no_blur", "plus_rotation")


@dataclass(frozen=True)
class ImageSplit:
    images: torch.Tensor  # (N, C, H, W) float32 in [0, 1]
    labels: torch.Tensor  # (N,) int64
    num_classes: int

    def subset(self, index) -> ImageSplit:
        index = torch.as_tensor(index, dtype=torch.long)
        return ImageSplit(self.images[index], self.labels[index], self.num_classes)


def load_digits_split(test_fraction: float, seed: int) -> tuple[ImageSplit, ImageSplit]:
    """scikit-learn's bundled 8×8 digits (1797 real images, 10 classes, grey levels 0..16), split
    into train and test, stratified, with a fixed seed."""
    digit_images, digit_labels = digits_arrays()
    images = torch.from_numpy(digit_images.astype(np.float32) / 16.0)[:, None]
    labels = torch.from_numpy(digit_labels.astype(np.int64))
    train, test = digits_split(digit_labels, test_fraction, seed)
    return ImageSplit(images[train], labels[train], 10), ImageSplit(images[test], labels[test], 10)


def load_cifar10(root: str | Path, download: bool = False) -> tuple[ImageSplit, ImageSplit]:
    """CIFAR-10 through ``torchvision.datasets.CIFAR10`` from ``root``. Without ``download`` the files
    must already be there: a missing folder is an error naming the path and how to get the data."""
    from torchvision.datasets import CIFAR10

    missing = missing_data_message({"name": "cifar10", "root": str(root), "download": download})
    if missing:
        raise FileNotFoundError(missing)
    splits = []
    for train in (True, False):
        data = CIFAR10(str(Path(root).expanduser()), train=train, download=download)
        images = torch.from_numpy(np.asarray(data.data)).permute(0, 3, 1, 2).float() / 255.0
        splits.append(ImageSplit(images.contiguous(), torch.as_tensor(data.targets, dtype=torch.long), 10))
    return splits[0], splits[1]


def load_fashion_mnist(root: str | Path, download: bool = False) -> tuple[ImageSplit, ImageSplit]:
    """Fashion-MNIST (60,000 + 10,000 grey 28×28 images, 10 classes) through
    ``torchvision.datasets.FashionMNIST``. ``root`` holds the four IDX files in torchvision's layout
    (``<root>/FashionMNIST/raw/``) or the Debian package's (gzipped in ``root`` itself, as
    /usr/share/datasets/fashion-mnist); gzipped files are extracted into a temporary torchvision layout,
    so ``root`` is only read (Debian's are recompressed, so torchvision's MD5 sums of the .gz files do
    not apply; torchvision's reader checks each file's IDX header, and the shapes and labels are
    checked here: N images of 28×28 with N labels in 0..9). A missing file is an error naming the path
    and both ways to get the data; ``download`` lets torchvision fetch them into root."""
    import gzip
    import shutil
    import tempfile

    from torchvision.datasets import FashionMNIST

    root = Path(root).expanduser()
    missing = missing_data_message({"name": "fashion_mnist", "root": str(root), "download": download})
    if missing:
        raise FileNotFoundError(missing)
    files = fashion_mnist_files(root)

    def read(folder: Path) -> tuple[ImageSplit, ImageSplit]:
        splits = []
        for train in (True, False):
            data = FashionMNIST(str(folder), train=train, download=download and folder == root)
            images, labels = data.data, data.targets
            if (
                images.ndim != 3
                or tuple(images.shape[1:]) != (28, 28)
                or len(labels) != len(images)
                or not len(labels)
                or int(labels.min()) < 0
                or int(labels.max()) > 9
            ):
                raise ValueError(
                    f"{root}: the Fashion-MNIST {'training' if train else 'test'} files hold images of shape "
                    f"{tuple(images.shape)} and {len(labels)} labels in [{int(labels.min()) if len(labels) else '-'}, "
                    f"{int(labels.max()) if len(labels) else '-'}]; expected (N, 28, 28) with N labels in 0..9: "
                    "the files are damaged or not Fashion-MNIST"
                )
            splits.append(ImageSplit(data.data.float().div_(255.0)[:, None].contiguous(), data.targets.long(), 10))
        return splits[0], splits[1]

    if files is None or all(path.suffix != ".gz" and path.parent == root / "FashionMNIST" / "raw" for path in files.values()):
        return read(root)  # torchvision's own layout (or its download)
    with tempfile.TemporaryDirectory(prefix="crlrepro-fashion-mnist-") as tmp:
        raw = Path(tmp) / "FashionMNIST" / "raw"
        raw.mkdir(parents=True)
        for name, path in files.items():
            if path.suffix == ".gz":
                with gzip.open(path, "rb") as source, open(raw / name, "wb") as target:
                    shutil.copyfileobj(source, target)
            else:
                shutil.copyfile(path, raw / name)
        return read(Path(tmp))


def resize_split(split: ImageSplit, size: int) -> ImageSplit:
    """Images resized to ``size``×``size`` (bilinear with antialiasing, as torchvision's Resize)."""
    if split.images.shape[-1] == size and split.images.shape[-2] == size:
        return split
    images = torch.nn.functional.interpolate(
        split.images, size=(size, size), mode="bilinear", antialias=True, align_corners=False
    )
    return ImageSplit(images.clamp_(0.0, 1.0), split.labels, split.num_classes)


def stratified_subset(split: ImageSplit, size: int, seed: int) -> ImageSplit:
    """``size`` images with equal counts per class (size must be a multiple of the class count),
    drawn without replacement with ``seed``; an error names the class that is too small."""
    k = split.num_classes
    if size % k:
        raise ValueError(f"a stratified subset of {size} images needs a multiple of the {k} classes")
    return split.subset(class_subset(split.labels, [size // k] * k, seed))


def load_dataset(data: dict) -> tuple[ImageSplit, ImageSplit]:
    """The config's ``data`` block: ``name`` digits (``test_fraction``, ``split_seed``), fashion_mnist or
    cifar10 (``root``, ``download``); then ``train_size``/``test_size`` stratified subsets (drawn with
    ``split_seed``; null keeps the split) and ``image_size`` (null keeps the native side)."""
    if data["name"] == "digits":
        train, test = load_digits_split(data["test_fraction"], data["split_seed"])
    elif data["name"] == "fashion_mnist":
        train, test = load_fashion_mnist(data["root"], data.get("download", False))
    elif data["name"] == "cifar10":
        train, test = load_cifar10(data["root"], data.get("download", False))
    else:
        raise ValueError(f"unknown data set {data['name']!r}; expected one of {', '.join(DATASETS)}")
    if data.get("train_size"):
        train = stratified_subset(train, int(data["train_size"]), data["split_seed"])
    if data.get("test_size"):
        test = stratified_subset(test, int(data["test_size"]), data["split_seed"] + 1)
    if data.get("image_size"):
        train, test = resize_split(train, int(data["image_size"])), resize_split(test, int(data["image_size"]))
    return train, test


def class_subset(labels: torch.Tensor, sizes, seed: int) -> np.ndarray:
    """Indices of a subset with ``sizes[k]`` examples of class k, drawn without replacement (seeded);
    an error names the class when the data have fewer."""
    labels = np.asarray(labels)
    rng = np.random.default_rng(seed)
    chosen = []
    for k, size in enumerate(sizes):
        pool = np.flatnonzero(labels == k)
        if size > pool.size:
            raise ValueError(
                f"class {k} has {pool.size} examples, the subset needs {size}: lower the subset size or the imbalance ratio"
            )
        chosen.append(rng.choice(pool, size=int(size), replace=False))
    return np.sort(np.concatenate(chosen))


def training_subset(split: ImageSplit, balance: str, per_class: int, imbalance_ratio: float, seed: int) -> ImageSplit:
    """S3's training sets of equal size K·per_class: ``uniform`` (per_class of every class) or
    ``long_tailed`` (the Pareto profile with the same total, its ranks assigned to the classes by the
    seed: :func:`crlrepro.learning.datasets.long_tailed_class_sizes`); ``full`` is the whole split."""
    if balance == "full":
        return split
    if balance not in ("uniform", "long_tailed"):
        raise ValueError(f"unknown balance {balance!r}; expected full, uniform or long_tailed")
    ratio = 1.0 if balance == "uniform" else float(imbalance_ratio)
    sizes = long_tailed_class_sizes(split.num_classes, int(per_class), ratio, seed)
    return split.subset(class_subset(split.labels, sizes, seed))


def augmentation(name: str, image_size: int, channels: int, flip: bool):
    """The named view-generating pipeline T as torchvision.transforms.v2 builds it, image by image: the
    reference of :func:`crlrepro.learning.augment.augment_batch`, which draws the same recipe for a whole batch
    at once and is what the pipeline uses (tests/learning/test_augment.py compares the two, benchmarks/augment.py
    times them). SimCLR's recipe at strength 1, adapted to the image size: random resized crop (scale
    0.08–1), horizontal flip where the data allow it, colour jitter (0.8, 0.8, 0.8, 0.2; brightness and
    contrast only for grey images) with p = 0.8, grey-scale with p = 0.2 for colour images, Gaussian
    blur (kernel ≈ 10% of the side, odd, ≥ 3; σ ∈ [0.1, 2]) with p = 0.5. ``no_blur`` drops the blur;
    ``plus_rotation`` adds a random rotation of up to ±30°."""
    from torchvision.transforms import v2

    if name not in AUGMENTATIONS:
        raise ValueError(f"unknown augmentation {name!r}; expected one of {', '.join(AUGMENTATIONS)}")
    jitter = v2.ColorJitter(0.8, 0.8, 0.8, 0.2) if channels == 3 else v2.ColorJitter(0.8, 0.8)
    steps = [v2.RandomResizedCrop(image_size, scale=(0.08, 1.0), antialias=True)]
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


def view_bank(images: torch.Tensor, spec, views: int, seed: int) -> torch.Tensor:
    """``views`` independent draws T(x) for every image, T the :class:`crlrepro.learning.augment.AugmentationSpec`
    ``spec`` (the same batched augmentation as fresh training views): a tensor (N, V, C, H, W), drawn
    with a generator seeded with ``seed``."""
    from crlrepro.learning.augment import augment_batch

    generator = torch.Generator(device=images.device).manual_seed(seed)
    return torch.stack([augment_batch(images, spec, generator) for _ in range(views)], dim=1)


FLIPPABLE = {"digits": False, "fashion_mnist": True, "cifar10": True}  # horizontal flips change what a digit is


def bias_subset(split: ImageSplit, size: int, seed: int) -> ImageSplit:
    """The test images of the prototype bias and the bounds: a stratified subset of ``size`` (all of
    them when the split has no more)."""
    return split if size >= len(split.labels) else stratified_subset(split, size, seed)


def build_views(
    data: dict, augmentation_name: str, views: int, bias_views: int, seed: int, bias_images: int | None = None
) -> dict:
    """The cached input of every paper-3 training and evaluation: the un-augmented images and labels;
    ``bias_views`` augmented views of each of ``bias_images`` test images (the prototype bias and the
    bounds); and, for banked training (``views`` > 0), ``views`` augmented views of each training
    image. Images are stored as uint8."""
    from crlrepro.learning.augment import simclr_spec

    train, test = load_dataset(data)
    spec = simclr_spec(augmentation_name, int(train.images.shape[1]), FLIPPABLE[data["name"]])
    to_bytes = lambda t: (t * 255.0).round_().to(torch.uint8)  # noqa: E731
    bias = bias_subset(test, int(bias_images or len(test.labels)), seed + 2)
    return {
        "train_bank": to_bytes(view_bank(train.images, spec, views, seed)) if views else None,
        "test_bank": to_bytes(view_bank(bias.images, spec, bias_views, seed + 1)),
        "bias_labels": bias.labels,
        "train_images": to_bytes(train.images),
        "train_labels": train.labels,
        "test_images": to_bytes(test.images),
        "test_labels": test.labels,
        "num_classes": train.num_classes,
        "augmentation": augmentation_name,
        "data": dict(data),
        "flip": FLIPPABLE[data["name"]],
    }


def load_views(path) -> dict:
    """A :func:`build_views` file with the images back as float32 in [0, 1] (verified against its
    sidecar and read without unpickling code: :func:`crlrepro.runtime.artifacts.load_torch`)."""
    from crlrepro.runtime.artifacts import load_torch

    payload = load_torch(path)
    for key in ("train_bank", "test_bank", "train_images", "test_images"):
        if payload[key] is not None:
            payload[key] = payload[key].float().div_(255.0)
    return payload
