"""Benchmark: SimCLR's augmentations drawn for a whole batch at once (``crlrepro.learning.augment.augment_batch``)
against the per-image torchvision.transforms.v2 pipeline (``crlrepro.learning.images.augmentation`` applied image
by image, as view banks were drawn before the batched version), single thread.

    python benchmarks/augment.py [--batch 512] [--rounds 7] [--threads 1] [--augmentation base]

For batches of 1×28×28, 3×32×32 and 1×8×8 images (the grey ones not flipped, the colour ones flipped):
milliseconds per batch of each (the median over ``--rounds`` paired rounds, one batch of each per round,
after a warm-up round) and the ratio (the median of the rounds' ratios: the speed-up, > 1 means the
batched one is faster). Every batch draws fresh views. Both use SimCLR's recipe at strength 1 (crop scale
0.08-1, jitter 0.8/0.8/0.8/0.2): the work per image is the same. No target is set; the point is a view per image per
step at a fraction of a training step's time.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import torch
from common import markdown, row, table

from crlrepro.learning.augment import augment_batch, simclr_spec
from crlrepro.learning.images import augmentation

SHAPES = ((1, 28, 28), (3, 32, 32), (1, 8, 8))


def _ms(fn) -> float:
    started = time.perf_counter()
    fn()
    return (time.perf_counter() - started) * 1e3


def measure(batch: int = 512, rounds: int = 7, name: str = "base", threads: int = 1) -> list[dict]:
    """Per shape: ``rounds`` paired rounds (one batched call, then one per-image batch) after a warm-up
    round; the medians of each and the median of the paired ratios."""
    previous = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        rows = []
        for channels, height, width in SHAPES:
            flip = channels == 3
            images = torch.rand(batch, channels, height, width, generator=torch.Generator().manual_seed(0))
            spec = simclr_spec(name, channels, flip)
            generator = torch.Generator().manual_seed(1)
            transform = augmentation(name, height, channels, flip)
            torch.manual_seed(1)

            def batched():
                return augment_batch(images, spec, generator)

            def per_image():
                out = torch.empty_like(images)
                for i in range(images.shape[0]):
                    out[i] = transform(images[i])
                return out

            ours, theirs = [], []
            for round_ in range(rounds + 1):
                a, b = _ms(batched), _ms(per_image)
                if round_:  # the first round warms up
                    ours.append(a)
                    theirs.append(b)
            ratio = statistics.median(b / a for a, b in zip(ours, theirs, strict=True))
            rows.append(
                row(
                    "augment",
                    f"ms per batch of {batch} {channels}x{height}x{width} ({name}, {threads} thread"
                    f"{'s' if threads > 1 else ''}; baseline: images.augmentation per image)",
                    statistics.median(ours),
                    statistics.median(theirs),
                    ratio,
                )
            )
        return rows
    finally:
        torch.set_num_threads(previous)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--batch", type=int, default=512)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--augmentation", default="base", choices=("base", "no_blur", "plus_rotation"))
    args = parser.parse_args(argv)
    frame = table(measure(args.batch, args.rounds, args.augmentation, args.threads))
    print(markdown(frame))
    return 0


if __name__ == "__main__":
    sys.exit(main())
