"""crlrepro.learning.augment: SimCLR's augmentations batched in plain torch, checked against torchvision's own
functions (transforms.v2.functional and RandomResizedCrop.get_params) for fixed parameters, and for
their random parameters' distributions, determinism and per-image independence."""

import itertools
import math

import numpy as np
import pytest
import torch
from torchvision.transforms import InterpolationMode, RandomResizedCrop
from torchvision.transforms.v2 import functional as TF

from crlrepro.learning import augment as A
from crlrepro.learning.augment import AugmentationSpec, augment_batch, sample_crop_boxes, simclr_spec

TOL = 1e-5  # float32 rounding: the two implementations order the same arithmetic differently
OFF = dict(jitter_p=0.0, grayscale_p=0.0, blur_p=0.0)  # every step after the geometry switched off


def gen(seed):
    return torch.Generator().manual_seed(seed)


def random_images(n, channels, height, width, seed=0):
    """Random images with the awkward cases a colour step must survive: grey pixels (all channels equal),
    ties between two channels, pure black and white, saturated primaries."""
    x = torch.rand(n, channels, height, width, generator=gen(seed))
    if channels == 3 and n >= 6:
        x[0] = x[0, :1]  # grey
        x[1, 0] = x[1, 1]  # R = G
        x[2, 1] = x[2, 2]  # G = B
        x[3, :, :4] = 0.0
        x[3, :, 4:8] = 1.0
        x[4] = (x[4] * 4).round() / 4  # many exact ties
        x[5, 0], x[5, 1], x[5, 2] = 1.0, 0.0, 0.0  # pure red
    return x


def per_image(fn, images, factors):
    return torch.stack([fn(images[i], float(factors[i])) for i in range(images.shape[0])])


# --- determinism and independence ------------------------------------------------------------------


@pytest.mark.parametrize("name,channels", [("base", 3), ("plus_rotation", 3), ("base", 1), ("no_blur", 1)])
def test_same_seed_same_bytes_and_other_seeds_differ(name, channels):
    x = random_images(64, channels, 16, 16)
    before = x.clone()
    spec = simclr_spec(name, channels, flip=channels == 3)
    first, again = augment_batch(x, spec, gen(7)), augment_batch(x, spec, gen(7))
    assert first.shape == x.shape and first.dtype == x.dtype
    assert first.numpy().tobytes() == again.numpy().tobytes()
    assert not torch.equal(first, augment_batch(x, spec, gen(8)))
    assert torch.equal(x, before)  # the input is left alone


def test_every_image_of_a_batch_gets_its_own_view():
    one = random_images(1, 3, 16, 16)
    views = augment_batch(one.expand(32, -1, -1, -1).contiguous(), simclr_spec("base", 3, flip=True), gen(0))
    flat = views.reshape(32, -1)
    assert (torch.cdist(flat, flat) + torch.eye(32) > 1e-4).all()  # no two of the 32 views alike
    # and one generator stream gives fresh views at every call (every step)
    g = gen(1)
    assert not torch.equal(
        augment_batch(one, simclr_spec("base", 3, True), g), augment_batch(one, simclr_spec("base", 3, True), g)
    )


# --- the crop boxes -------------------------------------------------------------------------------


def torchvision_boxes(draws, height, width, scale, ratio, seed=0):
    torch.manual_seed(seed)
    image = torch.empty(1, height, width)
    return np.array([RandomResizedCrop.get_params(image, list(scale), list(ratio)) for _ in range(draws)], dtype=float)


def summary(boxes, height, width):
    top, left, h, w = boxes.T
    return {"area": h * w / (height * width), "log_ratio": np.log(w / h)}


def position(boxes, height, width):
    """The corner as a fraction of the room the box leaves (where it leaves some)."""
    top, left, h, w = boxes.T
    return top[h < height] / (height - h[h < height]), left[w < width] / (width - w[w < width])


@pytest.mark.parametrize(
    "height,width,scale,ratio,draws", [(32, 32, (0.08, 1.0), (3 / 4, 4 / 3), 20000), (12, 40, (0.3, 1.0), (0.5, 2.0), 12000)]
)  # many rejections
def test_crop_boxes_are_distributed_as_torchvisions(height, width, scale, ratio, draws):
    ours = sample_crop_boxes(draws, height, width, scale, ratio, gen(3)).numpy().astype(float)
    theirs = torchvision_boxes(draws, height, width, scale, ratio)
    assert ours.shape == (draws, 4)
    assert (ours[:, 2] >= 1).all() and (ours[:, 0] + ours[:, 2] <= height).all()
    assert (ours[:, 3] >= 1).all() and (ours[:, 1] + ours[:, 3] <= width).all()
    assert np.array_equal(ours, np.round(ours))  # integer boxes, as torchvision's
    a, b = summary(ours, height, width), summary(theirs, height, width)
    # Two independent samples: the differences' standard errors are about 0.003 for the means here and
    # 0.007 for the corner's (drawn only where the box leaves room); the quantiles of these discrete
    # values move in steps up to 0.015. A box not rounded, or no rejection, or a biased corner: > 0.05.
    for key in a:
        assert abs(a[key].mean() - b[key].mean()) < 0.015, key
        for q in (0.1, 0.25, 0.5, 0.75, 0.9):
            assert abs(np.quantile(a[key], q) - np.quantile(b[key], q)) < 0.03, (key, q)
    for ours_corner, their_corner in zip(position(ours, height, width), position(theirs, height, width), strict=True):
        assert abs(ours_corner.mean() - their_corner.mean()) < 0.025 and abs(ours_corner.std() - their_corner.std()) < 0.025
    assert abs(np.mean(ours[:, 2] == height) - np.mean(theirs[:, 2] == height)) < 0.02

    # the rate of the central crop of the fallback (all 10 attempts rejected) agrees too: about 0.28 on the
    # 12×40 image (standard error of the difference 0.006), none on the square one
    def fallback(boxes):
        return np.mean(
            (boxes[:, 0] == (height - boxes[:, 2]) // 2)
            & (boxes[:, 1] == (width - boxes[:, 3]) // 2)
            & (boxes[:, 2] == height)
            & (boxes[:, 3] == min(width, round(height * max(ratio))))
        )

    assert (fallback(theirs) > 0.2) == (height == 12)
    assert abs(fallback(ours) - fallback(theirs)) < 0.02


def test_crop_box_sizes_on_a_small_image_have_torchvisions_frequencies():
    draws = 20000
    ours = sample_crop_boxes(draws, 8, 8, (0.08, 1.0), (3 / 4, 4 / 3), gen(5)).numpy()
    theirs = torchvision_boxes(draws, 8, 8, (0.08, 1.0), (3 / 4, 4 / 3), seed=5).astype(int)

    def count(boxes):
        return {k: v / draws for k, v in zip(*np.unique(boxes[:, 2] * 100 + boxes[:, 3], return_counts=True), strict=True)}

    p, q = count(ours), count(theirs)
    total_variation = 0.5 * sum(abs(p.get(k, 0.0) - q.get(k, 0.0)) for k in set(p) | set(q))
    assert total_variation < 0.04  # sampling noise alone is about 0.02 here; no rounding: > 0.5


@pytest.mark.parametrize(
    "height,width,scale,ratio",
    [
        (32, 32, (0.95, 1.0), (10.0, 20.0)),
        (32, 32, (0.95, 1.0), (0.05, 0.1)),
        (20, 50, (0.95, 1.0), (1.0, 1.0)),
        (50, 20, (0.95, 1.0), (1.0, 1.0)),
        (10, 12, (1.0, 1.0), (0.8, 1.0)),
        (32, 32, (1.0, 1.0), (0.5, 2.0)),
    ],
)
def test_crop_fallback_is_torchvisions_central_crop(height, width, scale, ratio):
    # Boxes that large and that shape do not fit: (almost) every attempt fails and the fallback is taken,
    # too narrow, too wide or within the ratios (the last: the whole image).
    ours = sample_crop_boxes(50, height, width, scale, ratio, gen(0)).numpy()
    theirs = torchvision_boxes(50, height, width, scale, ratio)
    assert (ours == theirs[0]).all() and (theirs == theirs[0]).all()


# --- geometry against torchvision -----------------------------------------------------------------


def test_identity_spec_gives_back_the_input():
    x = random_images(8, 3, 12, 20)
    spec = AugmentationSpec(flip=False, crop_scale=(1.0, 1.0), crop_ratio=(20 / 12, 20 / 12), **OFF)
    assert (augment_batch(x, spec, gen(0)) - x).abs().max() <= 1e-6
    square = random_images(8, 1, 16, 16)
    spec = AugmentationSpec(flip=False, crop_scale=(1.0, 1.0), crop_ratio=(1.0, 1.0), **OFF)
    assert (augment_batch(square, spec, gen(0)) - square).abs().max() <= 1e-6


BOXES = torch.tensor(
    [[3, 5, 9, 11], [0, 0, 5, 7], [11, 13, 5, 7], [0, 10, 16, 10], [8, 0, 8, 20], [1, 1, 1, 1], [2, 3, 13, 16], [0, 0, 16, 20]]
)  # (top, left, h, w): corners, edges, a single pixel, all


@pytest.mark.parametrize("antialias", [True, False])
def test_crop_resize_is_torchvisions_resized_crop_everywhere(antialias):
    # Every box lies inside the 16×20 image and is resized back to 16×20: an upscaling, where antialiasing
    # changes nothing; bilinear, align_corners=False, the crop's edge pixels replicated. Tolerance 1e-5
    # on every pixel, borders included.
    x = random_images(len(BOXES), 3, 16, 20)
    ours = A.resized_crop_flip_rotate(x, BOXES)
    theirs = torch.stack(
        [TF.resized_crop(x[i], *BOXES[i].tolist(), size=[16, 20], antialias=antialias) for i in range(len(BOXES))]
    )
    assert (ours - theirs).abs().max() < TOL


def test_flip_is_torchvisions_horizontal_flip():
    x = random_images(len(BOXES), 3, 16, 20)
    full = torch.tensor([[0, 0, 16, 20]] * len(BOXES))
    assert (
        A.resized_crop_flip_rotate(x, full, torch.ones(len(BOXES), dtype=torch.bool)) - torch.flip(x, [-1])
    ).abs().max() <= 1e-6
    flips = torch.arange(len(BOXES)) % 2 == 0
    ours = A.resized_crop_flip_rotate(x, BOXES, flips)
    theirs = torch.stack([TF.resized_crop(x[i], *BOXES[i].tolist(), size=[16, 20]) for i in range(len(BOXES))])
    theirs = torch.where(flips[:, None, None, None], torch.flip(theirs, [-1]), theirs)
    assert (ours - theirs).abs().max() < TOL


def test_flip_probability_is_one_half_and_off_without_flip():
    x = torch.arange(16.0).reshape(1, 1, 4, 4).expand(4000, 1, 4, 4) / 16
    keep = dict(crop_scale=(1.0, 1.0), crop_ratio=(1.0, 1.0), **OFF)
    out = augment_batch(x, AugmentationSpec(flip=True, **keep), gen(0))
    flipped = (out == torch.flip(x, [-1])).flatten(1).all(1)
    assert flipped.logical_or((out == x).flatten(1).all(1)).all()
    assert abs(flipped.float().mean().item() - 0.5) < 0.03
    assert torch.equal(augment_batch(x, AugmentationSpec(flip=False, **keep), gen(0)), x)


def test_rotation_is_torchvisions_bilinear_rotate():
    # Full boxes: the rotation alone, about the centre, counter-clockwise, zero outside (rotate's fill=None).
    x = random_images(9, 3, 16, 20)
    angles = torch.linspace(-30.0, 30.0, 9)
    ours = A.resized_crop_flip_rotate(x, torch.tensor([[0, 0, 16, 20]] * 9), None, angles)
    theirs = torch.stack([TF.rotate(x[i], float(angles[i]), interpolation=InterpolationMode.BILINEAR) for i in range(9)])
    assert (ours - theirs).abs().max() < TOL
    assert ours[angles != 0][:, :, 0, 0].abs().max() == 0  # a corner rotated out of the frame is black


@pytest.mark.parametrize("angle", [90.0, -90.0, 180.0])
def test_crop_then_flip_then_rotation_compose_in_torchvisions_order(angle):
    # On a square image a quarter turn moves pixel centres onto pixel centres, so resampling once (ours)
    # and twice (torchvision) agree exactly: the composition's order and directions are checked.
    x = random_images(4, 3, 16, 16)
    boxes = torch.tensor([[3, 5, 9, 11], [0, 0, 16, 16], [0, 0, 5, 7], [8, 6, 8, 10]])
    flips = torch.tensor([True, False, True, False])
    ours = A.resized_crop_flip_rotate(x, boxes, flips, torch.full((4,), angle))
    theirs = []
    for i in range(4):
        y = TF.resized_crop(x[i], *boxes[i].tolist(), size=[16, 16])
        y = TF.horizontal_flip(y) if flips[i] else y
        theirs.append(TF.rotate(y, angle, interpolation=InterpolationMode.BILINEAR))
    assert (ours - torch.stack(theirs)).abs().max() < TOL


@pytest.mark.parametrize("rotate", [False, True])
def test_sampling_grid_is_affine_grids_for_the_composed_map(rotate):
    boxes = BOXES[:6]
    flips = torch.tensor([True, False, True, False, True, False])
    angles = torch.linspace(-30.0, 45.0, 6) if rotate else None
    theta, grid, cover = A.crop_flip_rotate_grid(boxes, flips, angles, 16, 20)
    top, left, h, w = boxes.float().unbind(1)
    sign = torch.where(flips, -1.0, 1.0)
    # θ is crop ∘ flip ∘ rotation: its translation is the box's centre, its linear part the box's size
    # (flipped) times the rotation in normalised coordinates
    assert torch.allclose(theta[:, :, 2], torch.stack(((2 * left + w) / 20 - 1, (2 * top + h) / 16 - 1), 1))
    radians = torch.deg2rad(angles) if rotate else torch.zeros(6)
    rotation = torch.stack(
        (torch.stack((radians.cos(), -radians.sin() * 16 / 20), 1), torch.stack((radians.sin() * 20 / 16, radians.cos()), 1)), 1
    )
    assert torch.allclose(theta[:, :, :2], torch.stack((sign * w / 20, h / 16), 1)[:, :, None] * rotation, atol=1e-6)
    reference = torch.nn.functional.affine_grid(theta, [6, 1, 16, 20], align_corners=False)
    low = torch.stack(((2 * left + 1) / 20 - 1, (2 * top + 1) / 16 - 1), 1)[:, None, None, :]
    high = torch.stack(((2 * (left + w) - 1) / 20 - 1, (2 * (top + h) - 1) / 16 - 1), 1)[:, None, None, :]
    assert (grid - torch.maximum(torch.minimum(reference, high), low)).abs().max() < 1e-6
    assert (cover is None) == (not rotate)
    if rotate:
        assert cover.min() == 0.0 and cover.max() == 1.0


# --- colour against torchvision -------------------------------------------------------------------


@pytest.mark.parametrize("channels", [3, 1])
@pytest.mark.parametrize("name", ["brightness", "contrast", "saturation"])
def test_blends_are_torchvisions(name, channels):
    x = random_images(12, channels, 10, 14)
    factors = torch.linspace(0.0, 2.0, 12)
    ours = getattr(A, f"adjust_{name}")(x, factors)
    theirs = per_image(getattr(TF, f"adjust_{name}"), x, factors)
    assert (ours - theirs).abs().max() < TOL
    if name == "saturation" and channels == 1:
        assert torch.equal(ours, x)


def test_hue_is_torchvisions():
    # Same HSV model, closed form instead of torchvision's round trip: 1e-5 (observed ≈ 2e-6).
    x = random_images(24, 3, 10, 14)
    shifts = torch.linspace(-0.5, 0.5, 24)
    assert (A.adjust_hue(x, shifts) - per_image(TF.adjust_hue, x, shifts)).abs().max() < TOL
    assert torch.equal(A.adjust_hue(x[:, :1], shifts), x[:, :1])


def test_grayscale_is_torchvisions():
    x = random_images(6, 3, 10, 14)
    theirs = torch.stack([TF.rgb_to_grayscale(x[i], num_output_channels=3) for i in range(6)])
    assert (A.rgb_to_grayscale(x) - theirs).abs().max() < TOL


@pytest.mark.parametrize("kernel", [3, 5, (3, 5)])
def test_blur_is_torchvisions(kernel):
    x = random_images(10, 3, 12, 15)
    sigmas = torch.linspace(0.1, 2.0, 10)
    size = [kernel, kernel] if isinstance(kernel, int) else list(kernel)
    theirs = torch.stack([TF.gaussian_blur(x[i], size, [float(sigmas[i])] * 2) for i in range(10)])
    assert (A.gaussian_blur(x, sigmas, kernel) - theirs).abs().max() < TOL


@pytest.mark.parametrize("channels", [3, 1])
def test_color_jitter_applies_the_adjustments_in_each_images_order(channels):
    orders = torch.tensor(list(itertools.permutations(range(4))) * 2)  # all 24 orders
    n = len(orders)
    x = random_images(n, channels, 8, 10)
    g = gen(2)
    factors = torch.stack(
        (
            0.2 + 1.6 * torch.rand(n, generator=g),
            0.2 + 1.6 * torch.rand(n, generator=g),
            0.2 + 1.6 * torch.rand(n, generator=g),
            torch.rand(n, generator=g) - 0.5,
        ),
        1,
    )
    apply = torch.arange(n) % 5 != 0
    ours = A.color_jitter(x, factors, orders, apply)
    steps = (TF.adjust_brightness, TF.adjust_contrast, TF.adjust_saturation, TF.adjust_hue)
    theirs = []
    for i in range(n):
        y = x[i]
        for j in orders[i].tolist() if apply[i] else []:
            y = steps[j](y, float(factors[i, j]))
        theirs.append(y)
    assert (ours - torch.stack(theirs)).abs().max() < TOL
    assert torch.equal(ours[~apply], x[~apply])


def test_brightness_factors_are_uniform_on_colorjitters_range():
    x = torch.full((8000, 1, 2, 2), 0.5)
    spec = AugmentationSpec(
        flip=False,
        crop_scale=(1.0, 1.0),
        crop_ratio=(1.0, 1.0),
        jitter_strength=(0.8, 0.0, 0.0, 0.0),
        jitter_p=0.8,
        grayscale_p=0.0,
        blur_p=0.0,
    )
    factors = augment_batch(x, spec, gen(0))[:, 0, 0, 0] / 0.5
    jittered = factors != 1.0
    assert abs(jittered.float().mean().item() - 0.8) < 0.02
    f = factors[jittered].clamp(max=1.0 / 0.5)  # brightness above 2 is clamped at white
    assert f.min() >= 0.2 - 1e-6
    assert abs(torch.quantile(f, 0.25).item() - 0.6) < 0.03 and abs(torch.quantile(f, 0.5).item() - 1.0) < 0.03


def test_jitter_draws_colorjitters_factors_and_a_random_order_per_image(monkeypatch):
    seen = {}
    original = A._color_jitter_

    def spy(out, factors, order, apply, active):
        seen.update(factors=factors.clone(), order=order.clone(), apply=apply.clone(), active=active)
        return original(out, factors, order, apply, active)

    monkeypatch.setattr(A, "_color_jitter_", spy)
    n = 4800
    augment_batch(random_images(n, 3, 4, 4), simclr_spec("base", 3, True), gen(0))
    order, factors = seen["order"], seen["factors"]
    assert torch.equal(order.sort(dim=1).values, torch.arange(4).expand(n, 4))  # a permutation per image
    _, counts = torch.unique(order, dim=0, return_counts=True)
    assert len(counts) == 24 and counts.min() > 140 and counts.max() < 260  # uniform: 200 ± 14 each
    assert abs(seen["apply"].float().mean().item() - 0.8) < 0.02 and seen["active"] == (True, True, True, True)
    for j, (low, high) in enumerate([(0.2, 1.8), (0.2, 1.8), (0.2, 1.8), (-0.2, 0.2)]):
        assert factors[:, j].min() >= low and factors[:, j].max() <= high
        assert (
            abs(factors[:, j].mean().item() - (low + high) / 2) < 0.03
            and abs(factors[:, j].std().item() - (high - low) / 12**0.5) < 0.02
        )


@pytest.mark.parametrize("field,p", [("grayscale_p", 0.2), ("blur_p", 0.5), ("jitter_p", 0.8)])
def test_each_step_fires_with_its_probability(field, p):
    x = random_images(4000, 3, 6, 6, seed=1)
    settings = dict(OFF, **{field: p})
    spec = AugmentationSpec(flip=False, crop_scale=(1.0, 1.0), crop_ratio=(1.0, 1.0), **settings)
    out = augment_batch(x, spec, gen(4))
    changed = (out - x).flatten(1).abs().amax(1) > 1e-6
    assert abs(changed.float().mean().item() - p) < 0.03
    if field == "grayscale_p":
        assert torch.equal(out[changed, 0], out[changed, 1]) and torch.equal(out[changed, 1], out[changed, 2])


@pytest.mark.parametrize("name", ["base", "no_blur", "plus_rotation"])
@pytest.mark.parametrize("channels,size", [(3, 32), (1, 28), (1, 8)])
def test_output_stays_in_the_unit_interval(name, channels, size):
    x = random_images(128, channels, size, size)
    x[::3] = (x[::3] > 0.5).float()  # pure black and white
    out = augment_batch(x, simclr_spec(name, channels, flip=channels == 3), gen(0))
    assert out.shape == x.shape and torch.isfinite(out).all()
    assert out.min() >= 0.0 and out.max() <= 1.0


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")
def test_runs_on_cuda_with_a_cuda_generator():
    x = random_images(64, 3, 32, 32).cuda()
    spec = simclr_spec("plus_rotation", 3, True)
    first = augment_batch(x, spec, torch.Generator(device="cuda").manual_seed(0))
    again = augment_batch(x, spec, torch.Generator(device="cuda").manual_seed(0))
    assert first.device.type == "cuda" and torch.equal(first, again)
    assert first.min() >= 0 and first.max() <= 1
    with pytest.raises(ValueError, match="generator"):
        augment_batch(x, spec, gen(0))


# --- the specs ------------------------------------------------------------------------------------


def test_named_specs():
    from crlrepro.learning.images import AUGMENTATIONS

    assert A.SPEC_NAMES == AUGMENTATIONS
    base = simclr_spec("base", 3, True)
    assert base == AugmentationSpec(flip=True)
    assert base.jitter_strength == (0.8, 0.8, 0.8, 0.2) and base.crop_scale == (0.08, 1.0)
    assert base.crop_ratio == pytest.approx((3 / 4, 4 / 3)) and base.blur_p == 0.5 and base.rotation_degrees == 0
    grey = simclr_spec("base", 1, False)
    assert grey.jitter_strength == (0.8, 0.8, 0.0, 0.0) and grey.grayscale_p == 0.0 and not grey.flip
    assert simclr_spec("no_blur", 3, True).blur_p == 0.0
    assert simclr_spec("plus_rotation", 1, False).rotation_degrees == 30.0
    assert [AugmentationSpec(flip=True).kernel_size(s) for s in (8, 28, 32, 64, 224)] == [3, 3, 3, 7, 23]
    with pytest.raises(ValueError, match="base, no_blur, plus_rotation"):
        simclr_spec("strong", 3, True)


@pytest.mark.parametrize(
    "field,value",
    [
        ("flip", 1),
        ("crop_scale", (0.0, 1.0)),
        ("crop_scale", (0.5, 0.2)),
        ("crop_scale", (0.1, 1.5)),
        ("crop_scale", "big"),
        ("crop_ratio", (-1.0, 2.0)),
        ("crop_ratio", (2.0, 1.0)),
        ("jitter_strength", (0.8, 0.8, 0.8)),
        ("jitter_strength", (0.8, -0.1, 0.8, 0.2)),
        ("jitter_strength", (0.8, 0.8, 0.8, 0.6)),
        ("jitter_p", 1.5),
        ("grayscale_p", -0.1),
        ("blur_p", math.nan),
        ("blur_sigma", (0.0, 2.0)),
        ("blur_sigma", (2.0, 0.1)),
        ("blur_kernel_fraction", 0.0),
        ("rotation_degrees", -5.0),
        ("rotation_degrees", 200.0),
    ],
)
def test_spec_validation_names_the_field_and_value(field, value):
    kwargs = {"flip": True, field: value}
    with pytest.raises(ValueError, match=field) as error:
        AugmentationSpec(**kwargs)
    assert repr(value) in str(error.value) or str(value) in str(error.value)
