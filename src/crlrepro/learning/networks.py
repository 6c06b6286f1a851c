"""Encoders: the two-tower inner-product score s(x, y) = f(x)ᵀ g(y) (paper 2, Sec. 4), and paper 3's image
encoders (a small CNN, a CIFAR ResNet-18) with the projector its losses compare."""

from __future__ import annotations

import copy
import math

import numpy as np
import torch
from torch import nn

__all__ = [
    "cifar_resnet18",
    "ContrastiveModel",
    "embed",
    "ENCODERS",
    "GlobalAveragePool",
    "load_two_tower",
    "numpy_score",
    "numpy_towers",
    "save_two_tower",
    "SmallCNN",
    "TwoTower",
    "TwoTowerEnsemble",
]


class TwoTower(nn.Module):
    """Anchor encoder f: R^{d_x} → R^D and target encoder g: R^{d_y} → R^D, each a ``layers``-layer
    ReLU MLP of width ``hidden`` (linear layers with ReLU between them), with score s(x, y) = f(x)ᵀ g(y).

    With ``score_bound`` B the embeddings are normalised to norm √B, so s(x, y) = B·cos(f, g) and
    |s| ≤ B: the bounded inner-product class of paper 1 (Assumption 4.1), needed where the empirical
    objective is unbounded below otherwise (e.g. one negative per anchor, or a small shared pool).

    The towers are independent; only their storage is shared: the weights of layers 2..L, which
    have the same shape in both towers, are stacked as [2, in, out] so that a training step runs both
    towers as one batched matmul per layer (half the kernel launches of two nn.Sequential)."""

    def __init__(self, dim_x: int, dim_y: int, dim: int, hidden: int = 128, layers: int = 3, score_bound: float | None = None):
        super().__init__()
        if layers < 1:
            raise ValueError(f"an MLP needs at least one layer, got {layers}")
        if score_bound is not None and not (math.isfinite(score_bound) and score_bound > 0):
            raise ValueError(f"score_bound must be a finite number > 0 (or None), got {score_bound!r}")
        self.architecture = {"dim_x": dim_x, "dim_y": dim_y, "dim": dim, "hidden": hidden, "layers": layers}
        if score_bound is not None:
            self.architecture["score_bound"] = float(score_bound)
        self.score_bound = score_bound
        widths = [hidden] * (layers - 1) + [dim]
        self.input_x = nn.Linear(dim_x, widths[0])
        self.input_y = nn.Linear(dim_y, widths[0])
        self.weights = nn.ParameterList()
        self.biases = nn.ParameterList()
        for fan_in, fan_out in zip(widths[:-1], widths[1:], strict=True):
            bound = 1.0 / fan_in**0.5  # nn.Linear's default initialisation, per tower
            self.weights.append(nn.Parameter(torch.empty(2, fan_in, fan_out).uniform_(-bound, bound)))
            self.biases.append(nn.Parameter(torch.empty(2, 1, fan_out).uniform_(-bound, bound)))

    def _tower(self, h: torch.Tensor, k: int) -> torch.Tensor:
        for weight, bias in zip(self.weights, self.biases, strict=True):
            h = torch.addmm(bias[k], torch.relu(h), weight[k])
        return self._bounded(h)

    def _bounded(self, h: torch.Tensor) -> torch.Tensor:
        if self.score_bound is None:
            return h
        return math.sqrt(self.score_bound) * nn.functional.normalize(h, dim=-1)

    def f(self, x: torch.Tensor) -> torch.Tensor:
        """The anchor encoder f(x)."""
        return self._tower(self.input_x(x), 0)

    def g(self, y: torch.Tensor) -> torch.Tensor:
        """The target encoder g(y)."""
        return self._tower(self.input_y(y), 1)

    def forward(self, x: torch.Tensor, y: torch.Tensor):
        """(f(x), g(y)); both towers in one batched pass when x and y have as many rows."""
        if x.shape[0] != y.shape[0] or not len(self.weights):
            return self.f(x), self.g(y)
        h = torch.stack([self.input_x(x), self.input_y(y)])
        for weight, bias in zip(self.weights, self.biases, strict=True):
            h = torch.baddbmm(bias, torch.relu(h), weight)
        return self._bounded(h[0]), self._bounded(h[1])

    def score_matrix(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        """s(x_a, y_b) = f(x_a)ᵀ g(y_b) for all pairs, shape (len(x), len(y))."""
        return self.f(x) @ self.g(y).T


class TwoTowerEnsemble(nn.Module):
    """M two-tower models (:class:`TwoTower`) trained as one: every parameter stacked along a leading member
    dimension, so that a step runs each layer of all members and both towers as one batched matmul ([2M, in, out])
    and one optimiser step updates them all. Members stay independent: inputs are [M, n, d], outputs [M, n, D],
    member k's output depends on member k's parameters and inputs alone.

    Members share their architecture except, possibly, the output dimension D: a member of dimension D_k < D = max_k
    D_k has its last layer padded with zero columns (weights and biases) and its output multiplied by a 0/1 mask
    that zeroes columns D_k.. (so their gradients are exactly zero, AdamW and SGD leave them at zero, and the score
    f(x)ᵀg(y) sums the same D_k products and exact zeros): one stack holds, e.g., a whole D sweep.

    Built from the members themselves (each initialised as it would be alone, e.g. under its own seed);
    :meth:`member` returns member k as a plain :class:`TwoTower` of its own D (for evaluation and saving)."""

    def __init__(self, members):
        super().__init__()
        members = list(members)
        if not members:
            raise ValueError("an ensemble needs at least one member")
        shape = lambda m: {k: v for k, v in m.architecture.items() if k != "dim"}  # noqa: E731
        if any(shape(m) != shape(members[0]) for m in members):
            raise ValueError(
                "an ensemble's members must share their architecture except the output dimension D; got "
                + ", ".join(sorted({str(m.architecture) for m in members}))
            )
        self.dims = [int(m.architecture["dim"]) for m in members]
        width = max(self.dims)
        self.architecture = {**members[0].architecture, "dim": width}
        self.score_bound = members[0].score_bound
        self.members = len(members)
        last = len(members[0].weights) - 1  # the output layer: the last of layers 2..L, or the input layer (-1)

        def pad(tensor: torch.Tensor) -> torch.Tensor:  # zero columns up to the widest member's D
            return nn.functional.pad(tensor.detach().clone(), (0, width - tensor.shape[-1]))

        def stack(tensors, padded: bool = False) -> nn.Parameter:
            return nn.Parameter(torch.stack([pad(t) if padded else t.detach().clone() for t in tensors]))

        # the input layers as [M, d, h] (nn.Linear keeps [h, d]) and biases [M, 1, h]
        self.input_x_weight = stack([m.input_x.weight.T for m in members], last == -1)
        self.input_x_bias = stack([m.input_x.bias[None] for m in members], last == -1)
        self.input_y_weight = stack([m.input_y.weight.T for m in members], last == -1)
        self.input_y_bias = stack([m.input_y.bias[None] for m in members], last == -1)
        # layers 2..L as [M, 2, in, out] (towers stacked inside each member, as in TwoTower)
        self.weights = nn.ParameterList(stack([m.weights[i] for m in members], i == last) for i in range(last + 1))
        self.biases = nn.ParameterList(stack([m.biases[i] for m in members], i == last) for i in range(last + 1))
        mask = None
        if len(set(self.dims)) > 1:
            mask = (torch.arange(width)[None, :] < torch.tensor(self.dims)[:, None]).to(self.input_x_weight.dtype)[:, None]
        self.register_buffer("output_mask", mask)  # [M, 1, D], or None when every member has the full D

    def _bounded(self, h: torch.Tensor, members: int | None = None) -> torch.Tensor:
        """The output layer's h [M, n, D] (or [M·t, n, D] for ``members`` = M, towers t inside) masked to each
        member's D and, with a score bound, normalised."""
        if self.output_mask is not None:
            mask = self.output_mask if members is None else self.output_mask.repeat_interleave(h.shape[0] // members, dim=0)
            h = h * mask
        if self.score_bound is None:
            return h
        return math.sqrt(self.score_bound) * nn.functional.normalize(h, dim=-1)

    def _tower(self, h: torch.Tensor, k: int) -> torch.Tensor:
        for weight, bias in zip(self.weights, self.biases, strict=True):
            h = torch.baddbmm(bias[:, k], torch.relu(h), weight[:, k])
        return self._bounded(h)

    def f(self, x: torch.Tensor) -> torch.Tensor:
        """Every member's anchor encoder: x [M, n, d_x] -> [M, n, D]."""
        return self._tower(torch.baddbmm(self.input_x_bias, x, self.input_x_weight), 0)

    def g(self, y: torch.Tensor) -> torch.Tensor:
        """Every member's target encoder: y [M, n, d_y] -> [M, n, D]."""
        return self._tower(torch.baddbmm(self.input_y_bias, y, self.input_y_weight), 1)

    def forward(self, x: torch.Tensor, y: torch.Tensor):
        """(f(x), g(y)) for all members; both towers in one batched pass when x and y have as many rows."""
        if x.shape[1] != y.shape[1] or not len(self.weights):
            return self.f(x), self.g(y)
        m = self.members
        h = torch.stack(
            [torch.baddbmm(self.input_x_bias, x, self.input_x_weight), torch.baddbmm(self.input_y_bias, y, self.input_y_weight)],
            dim=1,
        )  # [M, 2, n, h]
        h = h.reshape(2 * m, *h.shape[2:])
        for weight, bias in zip(self.weights, self.biases, strict=True):
            h = torch.baddbmm(bias.reshape(2 * m, *bias.shape[2:]), torch.relu(h), weight.reshape(2 * m, *weight.shape[2:]))
        h = self._bounded(h, m).reshape(m, 2, *h.shape[1:])
        return h[:, 0], h[:, 1]

    def member(self, k: int) -> TwoTower:
        """Member k as a plain TwoTower of its own D on the CPU (a copy, in eval mode)."""
        dim = self.dims[k]
        architecture = {key: v for key, v in self.architecture.items() if key != "score_bound"} | {"dim": dim}
        model = TwoTower(**architecture, score_bound=self.score_bound)
        last = len(self.weights) - 1
        cut = lambda t, i: t[..., :dim] if i == last else t  # noqa: E731  (the padding off the output layer)
        state = {
            "input_x.weight": cut(self.input_x_weight[k], -1).T,
            "input_x.bias": cut(self.input_x_bias[k, 0], -1),
            "input_y.weight": cut(self.input_y_weight[k], -1).T,
            "input_y.bias": cut(self.input_y_bias[k, 0], -1),
        }
        state |= {f"weights.{i}": cut(w[k], i) for i, w in enumerate(self.weights)}
        state |= {f"biases.{i}": cut(b[k], i) for i, b in enumerate(self.biases)}
        model.load_state_dict({key: v.detach().cpu().contiguous() for key, v in state.items()})
        return model.eval()


def _as_rows(a: np.ndarray) -> np.ndarray:
    a = np.asarray(a, dtype=np.float64)
    return a[:, None] if a.ndim == 1 else a


def numpy_score(model: TwoTower):
    """The model's score as a function of NumPy arrays, evaluated in float64 on the CPU (a copy),
    for the quadrature oracles: s(x, y) -> (len(x), len(y)). 1-D inputs are read as one feature."""
    frozen = _double_copy(model)

    @torch.no_grad()
    def score(x, y):
        return frozen.score_matrix(torch.from_numpy(_as_rows(x)), torch.from_numpy(_as_rows(y))).numpy()

    return score


def _double_copy(module: nn.Module) -> nn.Module:
    return copy.deepcopy(module).to(device="cpu", dtype=torch.float64).eval()


def numpy_towers(model: TwoTower, batch_size: int = 8192) -> dict:
    """The model's towers as functions of NumPy arrays, {"f": x -> f(x), "g": y -> g(y)}, each (len, D) float64
    on the CPU from one float64 copy of the model (made here, once: callers that embed many times build these
    once instead of calling :func:`embed`, which copies the model at every call), ``batch_size`` rows at a time."""
    frozen = _double_copy(model)

    def features(encoder):
        @torch.no_grad()
        def apply(inputs) -> np.ndarray:
            rows = torch.from_numpy(_as_rows(inputs))
            return torch.cat([encoder(rows[i : i + batch_size]) for i in range(0, len(rows), batch_size)]).numpy()

        return apply

    return {"f": features(frozen.f), "g": features(frozen.g)}


def embed(model: TwoTower, tower: str, inputs: np.ndarray, batch_size: int = 8192) -> np.ndarray:
    """Features of ``inputs`` under the model's ``tower`` ("f" or "g"), as float64 NumPy, on the CPU."""
    if tower not in ("f", "g"):
        raise ValueError(f"tower must be 'f' or 'g', got {tower!r}")
    return numpy_towers(model, batch_size)[tower](inputs)


def save_two_tower(model: TwoTower, path, **extra) -> None:
    """Save a trained two-tower model with what is needed to rebuild it (atomically)."""
    from crlrepro.runtime.artifacts import save_torch

    save_torch({"state_dict": model.state_dict(), "architecture": model.architecture, **extra}, path, extra.get("provenance"))


def load_two_tower(path) -> tuple[TwoTower, dict]:
    """The model saved by :func:`save_two_tower` (on the CPU, eval mode) and the extra fields,
    verified against its sidecar and read without unpickling code (:func:`crlrepro.runtime.artifacts.load_torch`)."""
    from crlrepro.runtime.artifacts import load_torch

    payload = load_torch(path)
    model = TwoTower(**payload.pop("architecture"))
    model.load_state_dict(payload.pop("state_dict"))
    return model.eval(), payload


# --- Paper 3's image encoders and projector ---------------------------------------------------------------------


class _GlobalAveragePool(torch.autograd.Function):
    """adaptive_avg_pool2d(x, 1) flattened, whose gradient keeps x's memory layout: autograd's own gives an
    NCHW gradient for a channels-last x, and the ReLU before the pool then runs its backward on two layouts,
    ~10x slower than on one (~3 % of a paper 3 training step). Same values and gradients to the bit; the
    backward is itself differentiable (double backward, torch.func.grad)."""

    @staticmethod
    def forward(x):
        return nn.functional.adaptive_avg_pool2d(x, 1).flatten(1)

    @staticmethod
    def setup_context(ctx, inputs, output):
        (x,) = inputs
        ctx.shape = x.shape
        ctx.channels_last = x.dim() == 4 and x.is_contiguous(memory_format=torch.channels_last)

    @staticmethod
    def backward(ctx, grad):
        h, w = ctx.shape[-2:]
        # autograd's rule, ∂/∂x = g/(hw) at every position, with the division on the pooled values (the same
        # numbers) and the result laid out as x
        spread = grad.reshape(*ctx.shape[:-2], 1, 1).div(h * w).expand(ctx.shape)
        return spread.contiguous(memory_format=torch.channels_last if ctx.channels_last else torch.contiguous_format)


class GlobalAveragePool(nn.Module):
    """(N, C, H, W) → (N, C): the mean over each channel's H × W positions (nn.AdaptiveAvgPool2d(1) and
    nn.Flatten(), with a gradient in the input's layout; an autograd.Function, so not TorchScript-scriptable)."""

    def forward(self, x):
        return _GlobalAveragePool.apply(x)


class SmallCNN(nn.Module):
    """The default encoder: three 3×3 convolutions (32, 64, 128 channels; the last two with stride 2),
    batch norm and ReLU, global average pooling: a 128-dimensional representation."""

    def __init__(self, channels: int, width: int = 32):
        super().__init__()
        layers, c = [], channels
        for out, stride in ((width, 1), (2 * width, 2), (4 * width, 2)):
            layers += [nn.Conv2d(c, out, 3, stride=stride, padding=1, bias=False), nn.BatchNorm2d(out), nn.ReLU(inplace=True)]
            c = out
        self.features = nn.Sequential(*layers, GlobalAveragePool())
        self.dim = c

    def forward(self, x):
        return self.features(x)


def cifar_resnet18(channels: int) -> nn.Module:
    """torchvision's ResNet-18 with the CIFAR stem (3×3 stride-1 first convolution, no max-pool) and no
    classifier: a 512-dimensional representation."""
    from torchvision.models import resnet18

    net = resnet18(num_classes=10)
    net.conv1 = nn.Conv2d(channels, 64, 3, stride=1, padding=1, bias=False)
    net.maxpool = nn.Identity()
    net.fc = nn.Identity()
    net.dim = 512
    return net


ENCODERS = ("small_cnn", "resnet18")


def _to_channels_last(module: nn.Module, args: tuple) -> tuple:
    return (args[0].contiguous(memory_format=torch.channels_last), *args[1:])


class ContrastiveModel(nn.Module):
    """Encoder f (features for evaluation) and a 3-layer MLP projector g (the loss is on g(f(x))) whose
    hidden width is ``hidden``, by default the encoder's output width (as in the paper)."""

    def __init__(self, encoder: str, channels: int, projection_dim: int = 64, hidden: int | None = None):
        super().__init__()
        if encoder == "small_cnn":
            self.encoder = SmallCNN(channels)
        elif encoder == "resnet18":
            self.encoder = cifar_resnet18(channels)
        else:
            raise ValueError(f"unknown encoder {encoder!r}; expected one of {', '.join(ENCODERS)}")
        d = self.encoder.dim
        hidden = d if hidden is None else int(hidden)
        # Convolutions run in channels-last layout (weights and, through the hook, every input): on the CPU
        # oneDNN's NHWC kernels make a training step ~25 % faster than NCHW (benchmarks/trainer.py
        # measures it); the values are the same convolution, the parameter names unchanged.
        self.encoder.to(memory_format=torch.channels_last)
        self.encoder.register_forward_pre_hook(_to_channels_last)
        self.projector = nn.Sequential(
            nn.Linear(d, hidden),
            nn.BatchNorm1d(hidden),
            nn.ReLU(inplace=True),
            nn.Linear(hidden, hidden),
            nn.BatchNorm1d(hidden),
            nn.ReLU(inplace=True),
            nn.Linear(hidden, projection_dim),
        )

    def forward(self, x):
        return self.projector(self.encoder(x))
