"""SimCLR's augmentations, batched: a fresh random view of every image of a batch at every training
step, in plain torch, with no Python loop over images (loops run over the ≤ 10 crop attempts, the 4
jitter positions, the 3 colour channels or the blur's taps only).

:func:`augment_batch` applies, per image and in this order (SimCLR's recipe, Chen et al. 2020,
appendix A, as ``crlrepro.learning.images.augmentation`` builds it with torchvision.transforms.v2):

1. random resized crop back to the image's own size (H, W): area fraction ~ U(crop_scale), log
   aspect ratio ~ U(log crop_ratio), up to 10 attempts per image, then torchvision's central-crop
   fallback (:func:`sample_crop_boxes`: torchvision's ``RandomResizedCrop.get_params`` for the whole
   batch at once, the same integer boxes, rounding and fallback);
2. horizontal flip with p = 0.5 (if ``spec.flip``);
3. rotation by an angle ~ U(−rotation_degrees, rotation_degrees) about the image centre,
   counter-clockwise for positive angles as torchvision's ``rotate`` (if rotation_degrees > 0).
   Steps 1-3 are composed into ONE affine sampling grid per image and one bilinear ``grid_sample``
   (``align_corners=False``) for the batch: :func:`resized_crop_flip_rotate`. The grid is
   ``torch.nn.functional.affine_grid``'s for the composed map θ (:func:`crop_flip_rotate_grid`: built
   from its two axes, which on the CPU is several times faster than ``affine_grid`` itself);
4. with p = jitter_p, colour jitter as ``ColorJitter(b, c, s, h)``: brightness factor
   ~ U(max(0, 1−b), 1+b) (multiply), contrast ~ U(max(0, 1−c), 1+c) (blend with the image's mean
   grey level), saturation ~ U(max(0, 1−s), 1+s) (blend with the grey image; colour only), hue shift
   ~ U(−h, h) (colour only; torchvision's HSV model: V, S and the hexagonal hue, shifted, in closed
   form without the RGB -> HSV -> RGB round trip; not a rotation about the grey axis, which would
   give other colours), in a random order per image (the argsort of four uniforms: a uniformly random
   permutation per image, as ColorJitter's ``randperm(4)`` per call), clamped to [0, 1] after every
   step as torchvision does; a strength of 0 switches that adjustment off, as in ColorJitter;
5. grey-scale with p = grayscale_p (colour images only): ITU-R 601 luma 0.2989 R + 0.587 G + 0.114 B
   (torchvision's ``rgb_to_grayscale``), replicated to 3 channels;
6. Gaussian blur with p = blur_p, σ ~ U(blur_sigma) per image (the same σ for both axes, as v2's
   GaussianBlur), kernel size ``max(3, int(blur_kernel_fraction · side) // 2 * 2 + 1)`` per axis
   (odd, ≥ 3, the formula of ``crlrepro.learning.images.augmentation``), torchvision's kernel
   (softmax of −x²/σ² on its grid, i.e. a normalised Gaussian) with reflect padding, applied as two
   1-D passes over the whole batch.

The output is clamped to [0, 1]. Every random number comes from the ``torch.Generator`` passed in (on
the images' device), so a fixed generator seed gives the same bytes on the CPU; CUDA works the same way
(its random stream differs from the CPU's, so the views do too).

The same as torchvision up to float rounding (≤ 1e-5, checked in tests/learning/test_augment.py against
``transforms.v2.functional``): the crop-box distribution and fallback; crop + resize (``resized_crop``,
bilinear, the crop's edge pixels replicated, antialias on or off); the flip; the rotation (``rotate``,
bilinear, ``fill=None``); crop, flip and rotation composed in that order; brightness, contrast,
saturation, hue, grey-scale and blur for given factors; ColorJitter's factor ranges and random order.

What differs from ``crlrepro.learning.images.augmentation`` (torchvision.transforms.v2, image by image):

* the resize is bilinear sampling without antialiasing. Here the crop lies inside the image and is
  resized back to the image's own size, so it is never downscaled and antialiasing (which
  torchvision's pipeline asks for) changes nothing; were the output ever smaller than its crop
  (never here), this sampling would alias where an antialiased resize would not;
* the rotation comes right after the flip, inside the same grid, and is bilinear: torchvision's
  ``RandomRotation`` in that pipeline is the last step, after the blur, and samples with
  nearest-neighbour interpolation. So here the jitter's mean grey level and the blur see the black
  corners of a rotated view, and the view is interpolated once instead of twice;
* outside the rotated frame the fill is 0, and along its edge the view fades to 0 over one pixel as
  bilinear sampling with zero padding does: exactly ``rotate(…, interpolation=BILINEAR)`` with its
  default ``fill=None``. ``RandomRotation``'s ``fill=0`` multiplies that once more by the frame's
  coverage, so its one-pixel rim along a rotated edge is darker than here;
* the blur is separable (two 1-D passes) instead of one 2-D convolution: equal up to rounding;
* the random streams are not torchvision's: the same seed gives other (equally distributed) views;
* the defaults of :class:`AugmentationSpec` are SimCLR's: crop scale (0.08, 1) where
  ``crlrepro.learning.images.augmentation`` uses (0.4, 1), and colour-jitter strength 1 (0.8, 0.8, 0.8, 0.2)
  where it uses half of that.

Images with other than 1 or 3 channels: brightness and contrast (mean over all channels) only.

Speed on the CPU: besides the batching, the code avoids ``torch.where`` on images (several times
slower than arithmetic on the CPU) and fresh multi-megabyte temporaries (the allocator hands such
blocks back to the system, and touching new pages costs more than the arithmetic on them): masks are
float factors, the jitter's blends and the hue work in place on reused buffers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
import torch.nn.functional as nnf

__all__ = [
    "adjust_brightness",
    "adjust_contrast",
    "adjust_hue",
    "adjust_saturation",
    "augment_batch",
    "AugmentationSpec",
    "color_jitter",
    "CROP_ATTEMPTS",
    "crop_flip_rotate_grid",
    "gaussian_blur",
    "gaussian_kernels",
    "grey",
    "GREY_WEIGHTS",
    "resized_crop_flip_rotate",
    "rgb_to_grayscale",
    "sample_crop_boxes",
    "simclr_spec",
    "SPEC_NAMES",
]

SPEC_NAMES = ("base", "no_blur", "plus_rotation")
CROP_ATTEMPTS = 10
GREY_WEIGHTS = (0.2989, 0.587, 0.114)  # ITU-R 601, as torchvision's rgb_to_grayscale


def _pair(name: str, value) -> tuple[float, float]:
    try:
        lo, hi = (float(v) for v in value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a pair of numbers (low, high), got {value!r}") from None
    if not (math.isfinite(lo) and math.isfinite(hi)) or lo > hi:
        raise ValueError(f"{name} must be a finite pair with low <= high, got {value!r}")
    return lo, hi


def _probability(name: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= value <= 1.0:
        raise ValueError(f"{name} must be a probability in [0, 1], got {value!r}")
    return float(value)


@dataclass(frozen=True)
class AugmentationSpec:
    """The parameters of :func:`augment_batch` (the module docstring has the recipe). ``flip`` comes
    first and has no default: horizontal flips change what some images mean (digits)."""

    flip: bool
    crop_scale: tuple[float, float] = (0.08, 1.0)
    crop_ratio: tuple[float, float] = (3 / 4, 4 / 3)
    jitter_strength: tuple[float, float, float, float] = (0.8, 0.8, 0.8, 0.2)  # brightness, contrast, saturation, hue
    jitter_p: float = 0.8
    grayscale_p: float = 0.2
    blur_p: float = 0.5
    blur_sigma: tuple[float, float] = (0.1, 2.0)
    blur_kernel_fraction: float = 0.1
    rotation_degrees: float = 0.0

    def __post_init__(self):
        def put(name, value):
            object.__setattr__(self, name, value)

        if not isinstance(self.flip, bool):
            raise ValueError(f"flip must be True or False, got {self.flip!r}")
        scale = _pair("crop_scale", self.crop_scale)
        if not 0.0 < scale[0] <= scale[1] <= 1.0:
            raise ValueError(f"crop_scale must satisfy 0 < low <= high <= 1 (area fractions), got {self.crop_scale!r}")
        put("crop_scale", scale)
        ratio = _pair("crop_ratio", self.crop_ratio)
        if not ratio[0] > 0.0:
            raise ValueError(f"crop_ratio must be positive (width / height), got {self.crop_ratio!r}")
        put("crop_ratio", ratio)
        try:
            strength = tuple(float(v) for v in self.jitter_strength)
        except (TypeError, ValueError):
            raise ValueError(
                f"jitter_strength must be 4 numbers (brightness, contrast, saturation, hue), got {self.jitter_strength!r}"
            ) from None
        if len(strength) != 4 or not all(math.isfinite(v) and v >= 0.0 for v in strength) or strength[3] > 0.5:
            raise ValueError(
                f"jitter_strength must be 4 numbers (brightness, contrast, saturation, hue) >= 0 with "
                f"hue <= 0.5, got {self.jitter_strength!r}"
            )
        put("jitter_strength", strength)
        for name in ("jitter_p", "grayscale_p", "blur_p"):
            put(name, _probability(name, getattr(self, name)))
        sigma = _pair("blur_sigma", self.blur_sigma)
        if not sigma[0] > 0.0:
            raise ValueError(f"blur_sigma must be positive, got {self.blur_sigma!r}")
        put("blur_sigma", sigma)
        fraction = self.blur_kernel_fraction
        if isinstance(fraction, bool) or not isinstance(fraction, (int, float)) or not 0.0 < fraction <= 1.0:
            raise ValueError(f"blur_kernel_fraction must be in (0, 1], got {fraction!r}")
        put("blur_kernel_fraction", float(fraction))
        degrees = self.rotation_degrees
        if isinstance(degrees, bool) or not isinstance(degrees, (int, float)) or not 0.0 <= degrees <= 180.0:
            raise ValueError(f"rotation_degrees must be in [0, 180], got {degrees!r}")
        put("rotation_degrees", float(degrees))

    def kernel_size(self, side: int) -> int:
        """The blur kernel for an image side: about blur_kernel_fraction of it, odd, at least 3."""
        return max(3, int(self.blur_kernel_fraction * side) // 2 * 2 + 1)


def simclr_spec(name: str, channels: int, flip: bool) -> AugmentationSpec:
    """The named pipelines of paper 3 (the names of ``crlrepro.learning.images.AUGMENTATIONS``): ``base`` (SimCLR's
    crop, flip where ``flip``, strength-1 colour jitter with p 0.8, grey-scale with p 0.2, blur with
    p 0.5; saturation, hue and grey-scale only for 3 channels), ``no_blur`` (blur_p = 0) and
    ``plus_rotation`` (base plus rotations of up to ±30°)."""
    if name not in SPEC_NAMES:
        raise ValueError(f"unknown augmentation {name!r}; expected one of {', '.join(SPEC_NAMES)}")
    if isinstance(channels, bool) or not isinstance(channels, int) or channels < 1:
        raise ValueError(f"channels must be a positive integer, got {channels!r}")
    colour = channels == 3
    return AugmentationSpec(
        flip=flip,
        jitter_strength=(0.8, 0.8, 0.8, 0.2) if colour else (0.8, 0.8, 0.0, 0.0),
        grayscale_p=0.2 if colour else 0.0,
        blur_p=0.0 if name == "no_blur" else 0.5,
        rotation_degrees=30.0 if name == "plus_rotation" else 0.0,
    )


# --- geometry ------------------------------------------------------------------------------------


def _box_dtype(device: torch.device) -> torch.dtype:
    return torch.float32 if device.type == "mps" else torch.float64


def sample_crop_boxes(n: int, height: int, width: int, scale, ratio, generator: torch.Generator) -> torch.Tensor:
    """``n`` boxes (top, left, h, w), int64 pixels on the generator's device, distributed as torchvision's
    ``RandomResizedCrop.get_params(img, scale, ratio)``: per image up to 10 attempts of area fraction
    ~ U(scale) and log aspect ratio (w / h) ~ U(log ratio), w and h rounded half to even (Python's round);
    the first attempt with 0 < w <= width and 0 < h <= height wins and its corner is uniform over the
    positions that fit; with none, the central crop of the largest box whose ratio is clipped to
    ``ratio``. All attempts are drawn at once for the whole batch."""
    device = generator.device
    dt = _box_dtype(device)
    (s_lo, s_hi), (r_lo, r_hi) = (float(scale[0]), float(scale[1])), (float(ratio[0]), float(ratio[1]))
    draws = torch.rand(n, CROP_ATTEMPTS, 2, generator=generator, device=device, dtype=dt)
    target = (height * width) * (s_lo + (s_hi - s_lo) * draws[..., 0])
    aspect = torch.exp(math.log(r_lo) + (math.log(r_hi) - math.log(r_lo)) * draws[..., 1])
    w = torch.round(torch.sqrt(target * aspect))
    h = torch.round(torch.sqrt(target / aspect))
    fits = (w > 0) & (w <= width) & (h > 0) & (h <= height)
    first = fits.to(torch.int32).argmax(dim=1, keepdim=True)  # the first attempt that fits (0 when none does)
    found = fits.any(dim=1)
    w, h = w.gather(1, first).squeeze(1), h.gather(1, first).squeeze(1)
    in_ratio = width / height  # torchvision's fallback
    if in_ratio < min(r_lo, r_hi):
        fw, fh = width, int(round(width / min(r_lo, r_hi)))
    elif in_ratio > max(r_lo, r_hi):
        fw, fh = int(round(height * max(r_lo, r_hi))), height
    else:
        fw, fh = width, height
    w = torch.where(found, w, torch.full_like(w, fw))
    h = torch.where(found, h, torch.full_like(h, fh))
    corner = torch.rand(n, 2, generator=generator, device=device, dtype=dt)
    top = torch.minimum(torch.floor(corner[:, 0] * (height - h + 1)), height - h)
    left = torch.minimum(torch.floor(corner[:, 1] * (width - w + 1)), width - w)
    top = torch.where(found, top, torch.full_like(top, (height - fh) // 2))
    left = torch.where(found, left, torch.full_like(left, (width - fw) // 2))
    return torch.stack((top, left, h, w), dim=1).to(torch.int64)


def crop_flip_rotate_grid(
    boxes: torch.Tensor,
    flips: torch.Tensor | None,
    angles: torch.Tensor | None,
    height: int,
    width: int,
    dtype=torch.float32,
    device=None,
):
    """The sampling of :func:`resized_crop_flip_rotate` for output images (H, W): ``theta`` (N, 2, 3), the
    affine map of each image (output -> input, normalised coordinates, align_corners=False: crop ∘ flip ∘
    rotation); ``grid`` (N, H, W, 2), ``torch.nn.functional.affine_grid(theta, align_corners=False)``
    clamped to each crop's outer pixel centres (edge replication, as resizing the cropped tensor); and
    ``cover`` (N, H, W), the bilinear coverage of the crop's frame by each rotated output pixel (1 inside,
    0 from half a pixel outside on; None without rotation). The grid is built from its two axes (θ's
    columns times the pixel-centre coordinates, broadcast), several times faster on the CPU than
    ``affine_grid``'s batched matrix product; the same numbers up to rounding."""
    device = boxes.device if device is None else device
    n = boxes.shape[0]
    top, left, h, w = boxes.to(device=device, dtype=dtype).unbind(1)
    # Output normalised coordinate u -> input u: u * w / W + (2 left + w) / W - 1 (and the same in y).
    scale_x, scale_y = w / width, h / height
    shift_x, shift_y = (2 * left + w) / width - 1, (2 * top + h) / height - 1
    if flips is not None:
        scale_x = torch.where(flips.to(device), -scale_x, scale_x)
    low_x, high_x = (2 * left + 1) / width - 1, (2 * (left + w) - 1) / width - 1
    low_y, high_y = (2 * top + 1) / height - 1, (2 * (top + h) - 1) / height - 1
    xs = (torch.arange(width, dtype=dtype, device=device) * 2 + 1) / width - 1
    ys = (torch.arange(height, dtype=dtype, device=device) * 2 + 1) / height - 1
    grid = torch.empty((n, height, width, 2), dtype=dtype, device=device)
    zeros = torch.zeros_like(scale_x)
    if angles is None:
        theta = torch.stack((torch.stack((scale_x, zeros, shift_x), 1), torch.stack((zeros, scale_y, shift_y), 1)), 1)
        grid[..., 0].copy_(torch.clamp(scale_x[:, None] * xs + shift_x[:, None], low_x[:, None], high_x[:, None])[:, None, :])
        grid[..., 1].copy_(torch.clamp(scale_y[:, None] * ys + shift_y[:, None], low_y[:, None], high_y[:, None])[:, :, None])
        return theta, grid, None
    # Source offset (pixels, from the centre, y down) of an output offset p: R p with R = [[c, -s], [s, c]]
    # (torchvision's counter-clockwise rotate); in normalised coordinates D^-1 R D, D = diag(W/2, H/2).
    radians = torch.deg2rad(angles.to(device=device, dtype=dtype))
    c, s = torch.cos(radians), torch.sin(radians)
    r00, r01, r10, r11 = c, -s * (height / width), s * (width / height), c
    theta = torch.stack(
        (torch.stack((scale_x * r00, scale_x * r01, shift_x), 1), torch.stack((scale_y * r10, scale_y * r11, shift_y), 1)), 1
    )
    # Where each output pixel lands in the (flipped) crop's frame, normalised ...
    frame_x = (r00[:, None] * xs)[:, None, :] + (r01[:, None] * ys)[:, :, None]
    frame_y = (r10[:, None] * xs)[:, None, :] + (r11[:, None] * ys)[:, :, None]
    # ... then in the input image, clamped to the crop's outer pixel centres,
    torch.mul(frame_x, scale_x[:, None, None], out=grid[..., 0]).add_(shift_x[:, None, None])
    grid[..., 0].clamp_(low_x[:, None, None], high_x[:, None, None])
    torch.mul(frame_y, scale_y[:, None, None], out=grid[..., 1]).add_(shift_y[:, None, None])
    grid[..., 1].clamp_(low_y[:, None, None], high_y[:, None, None])
    # and its bilinear coverage of that frame: clamp((W + 1)/2 − |x|, 0, 1) in pixels from the centre, times y's.
    cover = frame_x.abs_().mul_(-width / 2).add_((width + 1) / 2).clamp_(0.0, 1.0)
    cover.mul_(frame_y.abs_().mul_(-height / 2).add_((height + 1) / 2).clamp_(0.0, 1.0))
    return theta, grid, cover


def resized_crop_flip_rotate(
    images: torch.Tensor, boxes: torch.Tensor, flips: torch.Tensor | None = None, angles: torch.Tensor | None = None
) -> torch.Tensor:
    """Crop every image to its box (top, left, h, w) and resize it back to (H, W), then flip it
    horizontally where ``flips`` (bool, (N,)), then rotate it counter-clockwise by ``angles`` degrees
    ((N,)) about its centre: one affine sampling grid per image (:func:`crop_flip_rotate_grid`), one
    bilinear ``grid_sample`` (align_corners=False) for the batch.

    The resize is torchvision's bilinear ``resized_crop`` (align_corners=False, the crop's edge pixels
    replicated, no antialiasing: the same for the upscaling crops that fit inside the image). The
    rotation is torchvision's bilinear ``rotate`` of that with zero fill (``fill=None``: zero padding,
    which here is the frame's bilinear coverage times the edge-replicated sample, the same thing).
    Images whose box is the whole image and that are not rotated are copied (flipped) exactly."""
    n, _, height, width = images.shape
    dt = images.dtype if images.dtype in (torch.float32, torch.float64) else torch.float32
    boxes = boxes.to(images.device)
    _, grid, cover = crop_flip_rotate_grid(boxes, flips, angles, height, width, dt, images.device)
    src = images if images.dtype == dt else images.to(dt)
    out = nnf.grid_sample(src, grid, mode="bilinear", padding_mode="zeros", align_corners=False)
    if cover is not None:
        out.mul_(cover[:, None])
    exact = (boxes[:, 2] == height) & (boxes[:, 3] == width)
    if angles is not None:
        exact &= angles.to(images.device) == 0
    index = torch.nonzero(exact).squeeze(1)
    if index.numel():  # no resampling error where nothing moves (or only a flip)
        kept = images[index]
        if flips is not None:
            flipped = flips.to(images.device)[index, None, None, None]
            kept = torch.where(flipped, kept.flip(-1), kept)
        out[index] = kept.to(out.dtype)
    return out.to(images.dtype)


# --- colour --------------------------------------------------------------------------------------


def _per_image(factors, images: torch.Tensor) -> torch.Tensor:
    factors = torch.as_tensor(factors, dtype=images.dtype, device=images.device)
    return factors.reshape(-1, 1, 1, 1).expand(images.shape[0], 1, 1, 1)


def _blend(images: torch.Tensor, other: torch.Tensor, ratio: torch.Tensor) -> torch.Tensor:
    # torchvision's _blend: image * ratio + other * (1 - ratio), clamped.
    return (images * ratio).add_(other * (1.0 - ratio)).clamp_(0.0, 1.0)


def grey(images: torch.Tensor) -> torch.Tensor:
    """ITU-R 601 luma (N, 1, H, W) of RGB images, as torchvision's ``rgb_to_grayscale``."""
    r, g, b = images.unbind(1)
    return (r * GREY_WEIGHTS[0]).add_(g, alpha=GREY_WEIGHTS[1]).add_(b, alpha=GREY_WEIGHTS[2]).unsqueeze(1)


def rgb_to_grayscale(images: torch.Tensor) -> torch.Tensor:
    """Grey-scale replicated to 3 channels (torchvision's ``rgb_to_grayscale(…, num_output_channels=3)``)."""
    return grey(images).expand_as(images).contiguous()


def adjust_brightness(images: torch.Tensor, factors) -> torch.Tensor:
    """Per-image brightness: image × factor, clamped (torchvision's ``adjust_brightness``)."""
    return (images * _per_image(factors, images)).clamp_(0.0, 1.0)


def adjust_contrast(images: torch.Tensor, factors) -> torch.Tensor:
    """Per-image contrast: blend with the image's mean grey level (torchvision's ``adjust_contrast``;
    the mean over all channels for other than 3 channels)."""
    luma = grey(images) if images.shape[1] == 3 else images
    return _blend(images, luma.mean(dim=(1, 2, 3), keepdim=True), _per_image(factors, images))


def adjust_saturation(images: torch.Tensor, factors) -> torch.Tensor:
    """Per-image saturation: blend with the grey image (torchvision's ``adjust_saturation``; other than
    3 channels: unchanged)."""
    if images.shape[1] != 3:
        return images.clone()
    return _blend(images, grey(images), _per_image(factors, images))


def adjust_hue(images: torch.Tensor, shifts) -> torch.Tensor:
    """Per-image hue shift (turns, in [−0.5, 0.5]) in the HSV model of torchvision's ``adjust_hue``
    (RGB -> HSV, hue + shift mod 1, HSV -> RGB; other than 3 channels: unchanged), in closed form
    without the round trip. A hue shift keeps V = max(R, G, B) and S, hence min(R, G, B) and the chroma
    Δ = max − min. With the hexagonal hue u = 6h (u = (G − B)/Δ where R is the largest, 2 + (B − R)/Δ
    where G is, 4 + (R − G)/Δ where B is) shifted to u' = (u + 6·shift) mod 6, channel c of the result
    is max − Δ·clamp(||u' − centre_c| − 3| − 1, 0, 1) with the centres 3, 5, 1 for R, G, B: the HSV ->
    RGB map (each channel a trapezoid of the hue: at max within 1 of its centre's opposite, at min
    within 1 of its centre, linear between) without sectors. Masks are float arithmetic (``sign``),
    not ``where``, which is several times slower on the CPU; buffers are reused (fresh allocations of a
    few MB cost more than the arithmetic here). Grey pixels (Δ = 0) stay as they are."""
    if images.shape[1] != 3:
        return images.clone()
    return _adjust_hue_(images.clone(), shifts)


def _adjust_hue_(images: torch.Tensor, shifts) -> torch.Tensor:
    r, g, b = images.unbind(1)
    maxc = torch.maximum(r, g)
    torch.maximum(maxc, b, out=maxc)
    delta = torch.minimum(r, g)
    torch.minimum(delta, b, out=delta)
    delta.neg_().add_(maxc)  # Δ = max − min
    is_r = torch.sub(maxc, r).sign_().neg_().add_(1.0)  # 1 where R is the largest
    is_g = torch.sub(maxc, g).sign_().neg_().add_(1.0)
    is_g.addcmul_(is_g, is_r, value=-1.0)  # 1 where G is the largest and R is not
    is_b = torch.add(is_r, is_g).neg_().add_(1.0)  # 1 where B alone is
    hue = torch.sub(g, b).mul_(is_r)  # the numerator of the hue in its sector ...
    scratch = torch.sub(b, r)
    hue.addcmul_(scratch, is_g)
    hue.addcmul_(torch.sub(r, g, out=scratch), is_b)
    hue.div_(torch.clamp(delta, min=torch.finfo(images.dtype).tiny, out=scratch))  # ... over Δ (0 where grey)
    hue.add_(is_g, alpha=2.0).add_(is_b, alpha=4.0)  # + the sector's offset
    hue.add_(_per_image(shifts, images)[:, 0], alpha=6.0).remainder_(6.0)
    for channel, centre in enumerate((3.0, 5.0, 1.0)):  # r, g and b are not needed any more: overwritten
        plane = torch.sub(hue, centre, out=scratch).abs_().sub_(3.0).abs_().sub_(1.0).clamp_(0.0, 1.0)
        images[:, channel] = plane.mul_(delta).neg_().add_(maxc)
    return images.clamp_(0.0, 1.0)


def color_jitter(
    images: torch.Tensor,
    factors: torch.Tensor,
    order: torch.Tensor,
    apply: torch.Tensor | None = None,
    active=(True, True, True, True),
) -> torch.Tensor:
    """ColorJitter with given per-image ``factors`` (N, 4: brightness, contrast, saturation, hue shift)
    applied in the per-image ``order`` (N, 4, a permutation of 0..3, ColorJitter's ``fn_idx``: 0
    brightness, 1 contrast, 2 saturation, 3 hue) to the images where ``apply`` (bool, (N,); all when
    None); ``active[j]`` False skips adjustment j (saturation and hue always for other than 3 channels).

    Brightness, contrast and saturation are all ``clamp(f·x + (1 − f)·target)`` with the target 0, the
    mean grey level or the grey image (torchvision's ``_blend``), so each of the 4 positions is one such
    blend for the whole batch, in place, with f = 1 (exactly the identity) for the images whose
    adjustment there is off or is the hue; the hue runs on the images that have it at that position."""
    return _color_jitter_(images.clone(), factors, order, apply, active)


def _color_jitter_(
    out: torch.Tensor, factors: torch.Tensor, order: torch.Tensor, apply: torch.Tensor | None, active
) -> torch.Tensor:
    n, channels, height, width = out.shape
    colour = channels == 3
    active = (bool(active[0]), bool(active[1]), colour and bool(active[2]), colour and bool(active[3]))
    order = order.to(out.device)
    chosen = order if apply is None else torch.where(apply.to(out.device)[:, None], order, -1)
    factors = factors.to(device=out.device, dtype=out.dtype)
    ones = torch.ones(n, dtype=out.dtype, device=out.device)
    luma = None
    for position in range(4):
        op = chosen[:, position]
        is_op = [((op == j) & active[j]).to(out.dtype) for j in range(4)]
        blends = is_op[1].any() or is_op[2].any()
        if blends or is_op[0].any():
            # f: the factor of the adjustment at this position, 1 where it is the hue or none.
            f = torch.lerp(ones, factors[:, 0], is_op[0]).lerp_(factors[:, 1], is_op[1]).lerp_(factors[:, 2], is_op[2])
            f = f.view(n, 1, 1, 1)
            if blends:  # target = mean grey (contrast) or grey image (saturation), times 1 − f
                luma = out.new_empty((n, 1, height, width)) if luma is None else luma
                if colour:
                    torch.mul(out[:, 0:1], GREY_WEIGHTS[0], out=luma)
                    luma.add_(out[:, 1:2], alpha=GREY_WEIGHTS[1]).add_(out[:, 2:3], alpha=GREY_WEIGHTS[2])
                else:
                    torch.mean(out, dim=1, keepdim=True, out=luma)
                mean = luma.mean(dim=(1, 2, 3), keepdim=True)
                luma.mul_(is_op[2].view(n, 1, 1, 1)).add_(mean * is_op[1].view(n, 1, 1, 1)).mul_(1.0 - f)
                out.mul_(f).add_(luma)
            else:
                out.mul_(f)
            out.clamp_(0.0, 1.0)
        index = torch.nonzero(is_op[3]).squeeze(1)
        if index.numel():
            out[index] = _adjust_hue_(out[index], factors[index, 3])
    return out


# --- blur ----------------------------------------------------------------------------------------


def gaussian_kernels(kernel_size: int, sigmas: torch.Tensor) -> torch.Tensor:
    """Per-image 1-D Gaussian kernels (N, kernel_size), torchvision's ``_get_gaussian_kernel1d``:
    softmax of −(x/σ)² on linspace(±(k−1)/(2√2))."""
    lim = (kernel_size - 1) / (2.0 * math.sqrt(2.0))
    x = torch.linspace(-lim, lim, steps=kernel_size, dtype=sigmas.dtype, device=sigmas.device)
    return torch.softmax((x[None, :] / sigmas[:, None]).pow(2).neg(), dim=1)


def gaussian_blur(images: torch.Tensor, sigmas, kernel_size) -> torch.Tensor:
    """Per-image Gaussian blur with σ = ``sigmas`` (N,) on both axes and ``kernel_size`` (odd; an int or
    (kx, ky) as torchvision), reflect padding: torchvision's ``gaussian_blur`` as two 1-D passes, each a
    sum over the kernel's taps for the whole batch (fused multiply-adds in place)."""
    kx, ky = (kernel_size, kernel_size) if isinstance(kernel_size, int) else kernel_size
    if kx % 2 == 0 or ky % 2 == 0 or kx < 1 or ky < 1:
        raise ValueError(f"kernel_size must be odd and positive, got {kernel_size!r}")
    n, channels, height, width = images.shape
    if n == 0:
        return images.clone()
    sigmas = torch.as_tensor(sigmas, dtype=images.dtype, device=images.device).reshape(-1).expand(n)
    padded = nnf.pad(images, [kx // 2, kx // 2, ky // 2, ky // 2], mode="reflect")
    weights = gaussian_kernels(kx, sigmas)[:, :, None, None, None]  # (N, k, 1, 1, 1)
    rows = torch.mul(padded[..., 0:width], weights[:, 0])
    for tap in range(1, kx):
        rows.addcmul_(padded[..., tap : tap + width], weights[:, tap])
    weights = weights if ky == kx else gaussian_kernels(ky, sigmas)[:, :, None, None, None]
    out = torch.mul(rows[..., 0:height, :], weights[:, 0])
    for tap in range(1, ky):
        out.addcmul_(rows[..., tap : tap + height, :], weights[:, tap])
    return out


# --- the pipeline --------------------------------------------------------------------------------


def _device_key(device: torch.device) -> tuple[str, int | None]:
    index = device.index
    if index is None and device.type == "cuda":
        index = torch.cuda.current_device()
    return device.type, index


def _uniform(n: int, low: float, high: float, generator: torch.Generator, device, dtype) -> torch.Tensor:
    return low + (high - low) * torch.rand(n, generator=generator, device=device, dtype=dtype)


def augment_batch(images: torch.Tensor, spec: AugmentationSpec, generator: torch.Generator) -> torch.Tensor:
    """One fresh view of every image of ``images`` (N, C, H, W, float in [0, 1]) under ``spec``, each image
    with its own random parameters drawn from ``generator`` (on the images' device): same shape, clamped
    to [0, 1]. The recipe and how it compares with torchvision: the module docstring."""
    if images.ndim != 4 or not images.is_floating_point():
        raise ValueError(f"images must be a float tensor (N, C, H, W), got {tuple(images.shape)} {images.dtype}")
    if not isinstance(spec, AugmentationSpec):
        raise ValueError(f"spec must be an AugmentationSpec, got {type(spec).__name__}")
    if _device_key(generator.device) != _device_key(images.device):
        raise ValueError(f"the generator is on {generator.device} but the images are on {images.device}")
    n, channels, height, width = images.shape
    device, dtype = images.device, images.dtype
    if n == 0:
        return images.clone()
    colour = channels == 3

    boxes = sample_crop_boxes(n, height, width, spec.crop_scale, spec.crop_ratio, generator)
    flips = torch.rand(n, generator=generator, device=device) < 0.5 if spec.flip else None
    degrees = spec.rotation_degrees
    angles = _uniform(n, -degrees, degrees, generator, device, torch.float32) if degrees > 0 else None
    out = resized_crop_flip_rotate(images, boxes, flips, angles)

    b, c, s, hue = spec.jitter_strength
    active = (b > 0, c > 0, colour and s > 0, colour and hue > 0)
    if spec.jitter_p > 0 and any(active):
        apply = torch.rand(n, generator=generator, device=device) < spec.jitter_p
        factors = torch.stack(
            (
                _uniform(n, max(0.0, 1 - b), 1 + b, generator, device, dtype),
                _uniform(n, max(0.0, 1 - c), 1 + c, generator, device, dtype),
                _uniform(n, max(0.0, 1 - s), 1 + s, generator, device, dtype),
                _uniform(n, -hue, hue, generator, device, dtype),
            ),
            dim=1,
        )
        order = torch.rand(n, 4, generator=generator, device=device).argsort(dim=1)
        out = _color_jitter_(out, factors, order, apply, active)

    if colour and spec.grayscale_p > 0:
        index = torch.nonzero(torch.rand(n, generator=generator, device=device) < spec.grayscale_p).squeeze(1)
        if index.numel():
            out[index] = rgb_to_grayscale(out[index])

    if spec.blur_p > 0:
        blur = torch.rand(n, generator=generator, device=device) < spec.blur_p
        sigmas = _uniform(n, spec.blur_sigma[0], spec.blur_sigma[1], generator, device, dtype)
        index = torch.nonzero(blur).squeeze(1)
        if index.numel():
            out[index] = gaussian_blur(out[index], sigmas[index], (spec.kernel_size(width), spec.kernel_size(height)))

    return out.clamp_(0.0, 1.0)
