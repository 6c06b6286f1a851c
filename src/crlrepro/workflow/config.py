"""The one loader and validator of pipeline configs.

A config is config.yaml (the default scale, and the one place every default is written) with a scale's
``--configfile`` over it, checked against ``workflow/schemas/config.schema.yaml`` (JSON Schema: types and bounds,
every key required, no defaults) and then against the cross-field rules a schema cannot state. Every error names the
offending key, e.g. ``gmm.std_x[1]``, so that a typo never runs a single job.
"""

from __future__ import annotations

import copy
import math
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import jsonschema

from crlrepro.runtime.yamlfile import ConfigError, read_yaml
from crlrepro.learning.datasets import balance_problems, few_label_problems, missing_data_message, subset_problems
from crlrepro.claims.registry import figure_styles
from crlrepro.workflow.plan import SWEEPS, sweep_points

__all__ = [
    "config_value", "ConfigError", "Cost", "COSTS", "data_problems", "DATA_SHAPES", "EPOCH_LIMIT", "FLOPS",
    "integer_keys", "load_config", "MAGNITUDE_LIMIT", "mixture_resolution_problems", "MIXTURE_QUADRATURES",
    "NOT_SIZES", "RESOLUTION", "scale_folder", "preflight_problems", "read_config_file", "read_yaml",
    "requested_executor", "resource_problems", "results_location_problems", "SEED_LIMIT", "SSL_IMAGES_PER_SECOND",
    "start_refusal", "TIME_LIMIT_S", "TRAINING_PAIRS_PER_SECOND", "validate_config", "WEIGHT_SUM_TOLERANCE"
]

WEIGHT_SUM_TOLERANCE = 1e-6


def scale_folder(scale: str) -> str:
    """The results folder of ``scale`` when the config leaves ``results`` out: ``results`` for the default scale,
    ``results/<scale>`` for every other (crlrepro.workflow.folder records which scale a folder belongs to)."""
    return "results" if scale == "default" else f"results/{scale}"


def _key(path) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "<top level>"


def _validator(schema: dict):
    """A Draft 2020-12 validator whose patterns match whole strings. It fills in nothing: every default is written
    once, in config.yaml (DEFAULTS_FILE), which a run always reads first."""
    base = jsonschema.Draft202012Validator

    def pattern(validator, regex, instance, schema):
        # The whole string must match: with re.search (JSON Schema's reading) `$` also matches before a final
        # newline, so "results/nl\n" would pass "^results(/...)*$" and name a folder ending in a newline.
        if isinstance(instance, str) and not re.fullmatch(regex, instance):
            yield jsonschema.ValidationError(f"{instance!r} does not match {regex!r} (the whole value must match)")

    return jsonschema.validators.extend(base, {"pattern": pattern})(schema)


# A number as PyYAML (YAML 1.1) may leave it text: 1e-3 without a dot, +5, 1_000.
_NUMBER_AS_TEXT = re.compile(r"[-+]?(\d[\d_]*\.?\d*|\.\d+)([eE][-+]?\d+)?")


def _describe(error: jsonschema.ValidationError) -> str:
    message = error.message
    if (error.validator == "type" and isinstance(error.instance, str)
            and _NUMBER_AS_TEXT.fullmatch(error.instance.strip())):
        message += " (YAML reads 1e-3 as text: write 1.0e-3)"
    if error.validator == "required":  # one error per missing key, named only in its message
        missing = next((name for name in error.validator_value if error.message == f"{name!r} is a required property"),
                       None)
        if missing is not None:
            return (f"{_key([*error.absolute_path, missing])}: missing; config.yaml, which every run reads first, sets "
                    "every key (a --configfile only overrides some): restore it there")
    return f"{_key(error.absolute_path)}: {message}"


def _check_cross_fields(config: dict, check_data: bool = True) -> list[str]:
    problems = []
    for block in ("gmm", "consistency.gmm"):  # paper 2's mixture and paper 1's own
        gmm = config.get("gmm", {}) if block == "gmm" else config.get("consistency", {}).get("gmm", {})
        k = len(gmm.get("weights", []))
        for name in ("mean_x", "std_x", "mean_y", "std_y"):
            if name in gmm and len(gmm[name]) != k:
                problems.append(f"{block}.{name}: has {len(gmm[name])} entries but {block}.weights has {k}")
        weights = gmm.get("weights", [])
        if weights and abs(sum(weights) - 1.0) > WEIGHT_SUM_TOLERANCE:
            problems.append(f"{block}.weights: must sum to 1 (within {WEIGHT_SUM_TOLERANCE:g}), sum is {sum(weights)!r}")
    if not problems:
        problems += mixture_resolution_problems(config)
    approx = config.get("approximation", {})
    # JSON Schema counts 2.0 as an integer; indices and seeds must be true integers.
    for key, values in (("approximation.dims", approx.get("dims", [])), ("lcgm.dims", config.get("lcgm", {}).get("dims", [])),
                        ("seeds", config.get("seeds", [])), ("approximation.seeds", approx.get("seeds", []))):
        for i, d in enumerate(values):
            if not isinstance(d, int) or isinstance(d, bool):
                problems.append(f"{key}[{i}]: must be an integer, got {d!r}")
    nodes = approx.get("quadrature_nodes")
    ladder = approx.get("convergence_nodes", [])
    rules = [n for n in [nodes, *ladder] if isinstance(n, int) and not isinstance(n, bool)]
    for i, d in enumerate(approx.get("dims", [])):
        if rules and isinstance(d, int) and d >= min(rules):
            key = "approximation.quadrature_nodes" if min(rules) == nodes else "approximation.convergence_nodes"
            problems.append(f"approximation.dims[{i}]: D = {d} is not below {key} = {min(rules)}: the PMI operator on an "
                            f"n-node rule has at most n singular values, so at D ≥ n its tail Σ_(i>D) λ_i is exactly 0 "
                            f"and A1/A2's comparisons with it are undefined; use D < {min(rules)} or more nodes")
    if nodes is not None and ladder and max(ladder) <= nodes:
        problems.append(
            f"approximation.convergence_nodes: the largest size ({max(ladder)}) must exceed "
            f"approximation.quadrature_nodes ({nodes}); it is the reference for the error estimate"
        )
    for i, n in enumerate(approx.get("convergence_samples", [])):
        if isinstance(n, int) and isinstance(approx.get("train_samples"), int) and n >= approx["train_samples"]:
            problems.append(f"approximation.convergence_samples[{i}]: {n} must be below approximation.train_samples = "
                            f"{approx['train_samples']} (the study's largest size is train_samples itself)")
    lcgm = config.get("lcgm", {})
    k, sweep = lcgm.get("classes"), lcgm.get("dims", [])
    if k is not None and sweep and not {k - 1, k, k + 1} <= set(sweep):
        problems.append(f"lcgm.dims: must bracket lcgm.classes = {k} (contain {k - 1}, {k}, {k + 1}) to locate the elbow; got {sweep}")
    windows = config.get("tsybakov", {})
    for name, window in [("window", windows.get("window"))] + [
        (f"other_windows[{i}]", w) for i, w in enumerate(windows.get("other_windows", []))
    ]:
        if window is not None and not window[0] < window[1]:
            problems.append(f"tsybakov.{name}: needs t_min < t_max, got {window}")
    exact = windows.get("exact", {})
    if exact.get("t_range") is not None and not exact["t_range"][0] < exact["t_range"][1]:
        problems.append(f"tsybakov.exact.t_range: needs t_min < t_max, got {exact['t_range']}")
    if exact.get("window_starts") is not None and not exact["window_starts"][0] <= exact["window_starts"][1]:
        problems.append(f"tsybakov.exact.window_starts: needs first <= last, got {exact['window_starts']}")
    oracle = config.get("consistency", {}).get("oracle", {})
    if oracle.get("convergence_nodes") and oracle.get("nodes") and max(oracle["convergence_nodes"]) <= oracle["nodes"]:
        problems.append(f"consistency.oracle.convergence_nodes: the largest size must exceed consistency.oracle.nodes ({oracle['nodes']})")
    if (oracle.get("auc_convergence_nodes") and oracle.get("auc_nodes")
            and max(oracle["auc_convergence_nodes"]) <= oracle["auc_nodes"]):
        problems.append("consistency.oracle.auc_convergence_nodes: the largest size must exceed consistency.oracle.auc_nodes "
                        f"({oracle['auc_nodes']})")
    budget = config.get("consistency", {}).get("budget", {})
    total = budget.get("total")
    for i, m in enumerate(budget.get("ms", [])):
        if total and isinstance(m, int) and m >= 1 and total % m:
            problems.append(f"consistency.budget.ms[{i}]: {m} does not divide consistency.budget.total = {total} (n = N/m must be whole)")
    scaling = config.get("consistency", {}).get("scaling", {})
    for key, values in (("consistency.scaling.seeds", scaling.get("seeds", [])),
                        ("consistency.scaling.m_sweep.ms", scaling.get("m_sweep", {}).get("ms", [])),
                        ("consistency.scaling.n_sweep.ns", scaling.get("n_sweep", {}).get("ns", [])),
                        ("consistency.budget.ms", budget.get("ms", [])),
                        ("consistency.calibration.dims", config.get("consistency", {}).get("calibration", {}).get("dims", []))):
        for i, d in enumerate(values):
            if not isinstance(d, int) or isinstance(d, bool):
                problems.append(f"{key}[{i}]: must be an integer, got {d!r}")
    batch = config.get("training", {}).get("batch_size")
    deviation = config.get("consistency", {}).get("deviation", {})
    if "ms" in deviation and "fit_from" in deviation and sum(m >= deviation["fit_from"] for m in deviation["ms"]) < 2:
        problems.append(f"consistency.deviation.fit_from: {deviation['fit_from']} leaves fewer than two of "
                        f"consistency.deviation.ms = {deviation['ms']} for the m-slopes")
    calibration = config.get("consistency", {}).get("calibration", {})
    study = [(f"approximation.convergence_samples[{i}]", n, "training.batch_size", batch)
             for i, n in enumerate(approx.get("convergence_samples", []))]
    for key, samples, batch_key, size in (("approximation.train_samples", approx.get("train_samples"), "training.batch_size", batch),
                                          *study,
                                          ("lcgm.train_samples", lcgm.get("train_samples"), "training.batch_size", batch),
                                          ("consistency.calibration.samples", calibration.get("samples"),
                                           "consistency.calibration.batch_size", calibration.get("batch_size"))):
        if isinstance(samples, int) and isinstance(size, int) and samples < size:
            problems.append(f"{key}: {samples} training samples are fewer than one batch ({batch_key} = {size})")
    view = config.get("supervised_view", {})
    ratios = view.get("ratios", [])
    if ratios and 1.0 not in [float(r) for r in ratios if isinstance(r, (int, float))]:
        problems.append(f"supervised_view.ratios: must contain 1 (InfoNCE, the reference of S1), got {ratios}")
    problems += subset_problems(view.get("data", {}))
    if "claim_metric" in view:
        allowed = ["linear_top1", "knn_top1"] + [f"few{k}_top1" for k in view.get("few_labels", [])]
        if view["claim_metric"] not in allowed:
            problems.append(f"supervised_view.claim_metric: {view['claim_metric']!r} is not a metric of this config (its "
                            f"few-label metrics follow supervised_view.few_labels: {view.get('few_labels', [])}); "
                            f"expected one of {', '.join(allowed)}")
    for key, first in (("similarities", "cosine"), ("augmentations", "base")):
        values = view.get(key, [])
        if values and first not in values:
            problems.append(f"supervised_view.{key}: must contain {first!r} (the reference), got {values}")
    return problems + (data_problems(config) if check_data else [])


# The quadrature rules that integrate each mixture (crlrepro.theory.quadrature.trapezoid_mixture: equispaced nodes on
# [min_k μ_k − 10σ_k, max_k μ_k + 10σ_k]); a convergence ladder's coarse rules are meant to be coarse and are not listed.
MIXTURE_QUADRATURES = {
    "gmm": ("approximation.quadrature_nodes",),
    "consistency.gmm": ("consistency.oracle.nodes", "consistency.calibration.nodes",
                        "consistency.calibration.families.nodes", "consistency.scaling.nodes", "consistency.deviation.nodes"),
}
RESOLUTION = 1.0  # node spacing / smallest standard deviation: the trapezoidal error of a Gaussian ~ exp(−2π²σ²/Δ²) < 3e-9


def mixture_resolution_problems(config: dict) -> list[str]:
    """Mixtures whose narrowest component falls between the nodes of a quadrature that integrates it: a spacing
    Δ = (support width)/(nodes − 1) above :data:`RESOLUTION` times the smallest standard deviation leaves that
    component unresolved, and L*, I(X;Y) and E* come out wrong, or non-finite once σ² underflows float64 (σ = 1e-200).
    Each names the std, the node key and the nodes it would need."""
    from crlrepro.theory.quadrature import SUPPORT_HALF_WIDTH

    problems = []
    for block, node_keys in MIXTURE_QUADRATURES.items():
        try:
            gmm = config_value(config, block)
        except KeyError:
            continue
        for view in ("x", "y"):
            means, stds = gmm.get(f"mean_{view}"), gmm.get(f"std_{view}")
            if not (isinstance(means, list) and isinstance(stds, list) and stds and len(means) == len(stds)):
                continue
            low = min(m - SUPPORT_HALF_WIDTH * s for m, s in zip(means, stds))
            high = max(m + SUPPORT_HALF_WIDTH * s for m, s in zip(means, stds))
            narrowest = min(stds)
            for key in node_keys:
                try:
                    nodes = config_value(config, key)
                except KeyError:
                    continue
                if not isinstance(nodes, int) or nodes < 2:
                    continue
                spacing = (high - low) / (nodes - 1)
                if spacing > RESOLUTION * narrowest:
                    need = (high - low) / (RESOLUTION * narrowest) + 1
                    fix = (f"raise {key} to at least {math.ceil(need)} or widen the std" if need < 1e6 else
                           f"no quadrature of a feasible size resolves it: widen the std to at least "
                           f"{(high - low) / (RESOLUTION * 1e6):.3g}")
                    problems.append(f"{block}.std_{view}: its narrowest component (σ = {narrowest:g}) is finer than the "
                                    f"node spacing {spacing:.3g} of the {nodes}-node quadrature ({key}) over [{low:.3g}, "
                                    f"{high:.3g}], which must be at most {RESOLUTION:g}σ: the population integrals (L*, "
                                    f"I(X;Y), E*) cannot see that component; {fix}")
                    break
    return problems


# --- sizes: every integer key that sizes an array or a loop is bounded before any job ------------------------------
#
# A cost is one job's peak memory (bytes) or time (seconds on this CPU) as a function of the config, with the keys it
# grows with; the first key leads the message, the others are named after it. The formulas are upper estimates read
# off the code and calibrated on measured runs (docs/benchmarks.md; tracemalloc on small sizes): e.g. a quadrature rule
# of n nodes holds about 13 n×n float64 matrices (104·n² bytes), the LCGM spectrum's Nyström kernel 18·n² (10^6
# samples: 7.3 TiB for its first matrix alone), the Tsybakov bootstrap 24·B·(P + 1). They are meant to stop a typo
# (10^9 for 10^3) before any job, not to plan a cluster: a run whose estimate is past the machine's memory, or a job
# past TIME_LIMIT_S, is refused naming the keys. Every integer key of the schema is either in a cost or in
# NOT_SIZES with its reason (tested).

TRAINING_PAIRS_PER_SECOND = 200_000  # two-tower MLPs of width 128 and 3 layers, batch 512 (docs/benchmarks.md)
SSL_IMAGES_PER_SECOND = 18_000       # paper 3's small CNN (ResNet-18 is slower: its estimate is a lower bound)
FLOPS = 1e10                         # dense float64 work, for the quadrature and Monte-Carlo costs
TIME_LIMIT_S = 30 * 24 * 3600
EPOCH_LIMIT = 100_000  # far beyond any paper's recipe: a larger number is a typo, not an experiment
# Images of the largest split each data set has, and its channels × side (before supervised_view.data.image_size).
# paper 3's data sets: (images in all splits, channels, side in pixels); benchmarks/gpu.py reads the shapes too
DATA_SHAPES = {"digits": (1797, 1, 8), "fashion_mnist": (70_000, 1, 28), "cifar10": (60_000, 3, 32)}


def _largest(value) -> float:
    if isinstance(value, list):
        return max([_largest(v) for v in value] or [0])
    return 0 if value is None or isinstance(value, bool) else value


def _count(value) -> int:
    return len(value) if isinstance(value, list) else 1


def _two_tower_rate(config: dict, hidden=None, layers=None) -> float:
    """Pairs per second of a two-tower training: the measured rate at width 128 and 3 layers, slower for wider or
    deeper towers (never taken faster for smaller ones)."""
    t = config["training"]
    h, L = hidden or t["hidden"], layers or t["layers"]
    return TRAINING_PAIRS_PER_SECOND * min(1.0, (128 * 128 * 3) / (h * h * L))


def _two_tower_bytes(config: dict, dim: float, batch: float) -> float:
    """Parameters, gradients and AdamW's two moments of both towers (float32), activations, and the b×b scores."""
    t = config["training"]
    h, L = t["hidden"], t["layers"]
    return 32 * (L * h * h + h * (dim + 64)) + 16 * L * batch * h + 16 * batch * batch


def _images(config: dict) -> tuple[int, int]:
    """(images of the largest split, bytes per image) of paper 3's data set, after the configured resize."""
    view = config["supervised_view"]
    data = view.get("data", {})
    count, channels, side = DATA_SHAPES.get(data.get("name"), DATA_SHAPES["cifar10"])
    side = data.get("image_size") or side
    return count, channels * side * side


def _ssl_views(config: dict) -> float:
    """Bytes of the bias bank (bias_images × bias_views views, uint8) a paper-3 job builds and loads ~13 times over."""
    view = config["supervised_view"]
    _, pixels = _images(config)
    return 13.0 * view["bias_images"] * view["bias_views"] * pixels


def _scaling_jobs(config: dict) -> list[list[tuple[int, int]]]:
    """C3/C4: the (n, m) points of each sweep's job (m, n, budget; a job trains all of its points for every seed)."""
    return [sweep_points(sweep, config["consistency"]) for sweep in SWEEPS]


def _scaling_seconds(config: dict) -> float:
    s = config["consistency"]["scaling"]
    seeds = _count(s["seeds"])

    def point(n, m):
        b = min(s["batch_size"], n)
        return max(s["steps"], n // b) * b * (m + 1) * seeds / TRAINING_PAIRS_PER_SECOND  # whole epochs: ≥ one pass

    return max(sum(point(n, m) for n, m in job) for job in _scaling_jobs(config))


def _scaling_bytes(config: dict) -> float:
    """The SCRL negatives (n·m per seed, float64 and float32 copies), the ensemble's activations, the evaluation's
    float64 chunks of 2^20 rows, at the largest point of any sweep."""
    s = config["consistency"]["scaling"]
    seeds = _count(s["seeds"])
    return max(16.0 * seeds * n * m + 16.0 * s["layers"] * seeds * min(s["batch_size"], n) * (m + 1) * (s["hidden"] + s["dim"])
               for job in _scaling_jobs(config) for n, m in job) + 2**24 * s["hidden"]


def _trained_batch(config: dict) -> int:
    """The batch of the trained deviation models: the scaling block's, capped at their n (as the trainer caps it)."""
    return min(config["consistency"]["scaling"]["batch_size"], config["consistency"]["deviation"]["trained"]["n"])


def _towers_bytes(config: dict) -> float:
    """A two-tower training of the shared recipe (training.*), at a typical output dimension."""
    return _two_tower_bytes(config, 64, config["training"]["batch_size"])


def _lcgm_pairs_bytes(config: dict) -> float:
    """A3's training pairs: float64 x, y, z beside their float32 tensors, and the epoch's permutation."""
    lcgm = config["lcgm"]
    return 12.0 * lcgm["train_samples"] * (lcgm["dim_x"] + lcgm["dim_y"]) + 16.0 * lcgm["train_samples"]


def _spectrum_seconds(config: dict) -> float:
    """A3's Nyström spectrum: about three n² draws per repeat and two per noise factor."""
    spectrum = config["lcgm"]["spectrum"]
    return 2.6e-7 * spectrum["samples"] ** 2 * (3 * spectrum["repeats"] + 2 * len(spectrum["noise_factors"]))


def _quadrature(nodes: float) -> float:
    return 104.0 * nodes * nodes


def _inner(nodes: float, inner: float) -> float:
    return 920.0 * inner + 24.0 * nodes * inner


@dataclass(frozen=True)
class Cost:
    """One job's memory (``memory``, bytes) or time (``seconds``) as a function of the config; ``keys`` are the keys
    it grows with, the first leading the message; ``what`` says what the first key counts."""
    keys: tuple[str, ...]
    what: str
    memory: Callable[[dict], float] | None = None
    seconds: Callable[[dict], float] | None = None


def _c(config: dict, key: str):
    return config_value(config, key)


def _a2_seeds(config: dict) -> list:
    """A2's seeds: ``approximation.seeds``, the top-level ``seeds`` where it is absent (before validation fills it)."""
    return config.get("approximation", {}).get("seeds", config["seeds"])


COSTS = (
    # paper 2
    Cost(("approximation.quadrature_nodes", "approximation.dims"), "quadrature nodes per view",
         memory=lambda c: _quadrature(_c(c, "approximation.quadrature_nodes")),
         seconds=lambda c: 2 * 8 * 5000 * _c(c, "approximation.quadrature_nodes") ** 2
         * (max(_c(c, "approximation.dims")) + 1) ** 2 / FLOPS),  # the L2 minima: ALS sweeps × starts × definitions
    Cost(("approximation.convergence_nodes",), "quadrature nodes per view",
         memory=lambda c: _quadrature(max(_c(c, "approximation.convergence_nodes"))),
         seconds=lambda c: sum(n ** 3 for n in _c(c, "approximation.convergence_nodes")) / FLOPS),
    Cost(("approximation.dims", "approximation.quadrature_nodes"), "dimensions D (ALS of the L2 minima)",
         memory=lambda c: 24.0 * _c(c, "approximation.quadrature_nodes") * (max(_c(c, "approximation.dims")) + 1) ** 2
         + _two_tower_bytes(c, max(_c(c, "approximation.dims")), c["training"]["batch_size"])),
    Cost(("approximation.epochs", "approximation.train_samples", "approximation.seeds", "training.hidden", "training.layers"),
         "epochs of approximation.train_samples pairs, for every seed",
         memory=lambda c: 80.0 * _c(c, "approximation.train_samples"),
         seconds=lambda c: _count(_a2_seeds(c)) * _c(c, "approximation.epochs") * _c(c, "approximation.train_samples")
         / _two_tower_rate(c)),
    Cost(("approximation.convergence_samples", "approximation.epochs", "approximation.seeds"),
         "pairs per epoch of A2's convergence study, for every seed",
         memory=lambda c: 80.0 * max(_c(c, "approximation.convergence_samples")),
         seconds=lambda c: _count(_a2_seeds(c)) * _c(c, "approximation.epochs")
         * max(_c(c, "approximation.convergence_samples")) / _two_tower_rate(c)),
    Cost(("approximation.train_samples",), "training pairs",
         memory=lambda c: 80.0 * _c(c, "approximation.train_samples")),
    Cost(("training.batch_size", "training.hidden", "training.layers"), "pairs per batch (in-batch scores and activations)",
         memory=_towers_bytes),
    Cost(("training.hidden", "training.layers"), "hidden width of the towers",
         memory=_towers_bytes),
    Cost(("lcgm.dim_x", "lcgm.dim_y", "lcgm.train_samples"), "dimensions of x",
         memory=_lcgm_pairs_bytes),
    Cost(("lcgm.dim_y", "lcgm.dim_x", "lcgm.train_samples"), "dimensions of y",
         memory=_lcgm_pairs_bytes),
    Cost(("lcgm.epochs", "lcgm.train_samples", "lcgm.dims", "lcgm.sensitivity.elbow_dims", "training.hidden",
          "training.layers"), "epochs of lcgm.train_samples pairs, for every D of a job",
         seconds=lambda c: max(_count(c["lcgm"]["dims"]), len(c["lcgm"]["sensitivity"]["separation"])
                               * (1 + _count(c["lcgm"]["sensitivity"].get("elbow_dims", []))))
         * _c(c, "lcgm.epochs") * _c(c, "lcgm.train_samples") / _two_tower_rate(c)),
    Cost(("lcgm.dims", "lcgm.sensitivity.elbow_dims"), "dimensions D of the LCGM towers",
         memory=lambda c: _two_tower_bytes(c, max(_largest(c["lcgm"]["dims"]),
                                                  _largest(c["lcgm"]["sensitivity"].get("elbow_dims", []))),
                                           c["training"]["batch_size"])),
    Cost(("lcgm.test_samples",), "held-out pairs (a t × t score matrix)",
         memory=lambda c: 50.0 * _c(c, "lcgm.test_samples") ** 2,
         seconds=lambda c: 50.0 * _c(c, "lcgm.test_samples") ** 2 * _c(c, "lcgm.classes")
         * (_count(c["lcgm"]["dims"]) + 1) / FLOPS),
    Cost(("lcgm.spectrum.samples", "lcgm.classes"), "Nyström samples (an n × n kernel)",
         memory=lambda c: 18.0 * _c(c, "lcgm.spectrum.samples") ** 2 + 24.0 * _c(c, "lcgm.spectrum.samples")
         * (4 * _c(c, "lcgm.classes") + 16),
         seconds=_spectrum_seconds),
    Cost(("lcgm.spectrum.repeats", "lcgm.spectrum.samples"), "repeated Nyström draws",
         seconds=_spectrum_seconds),
    Cost(("lcgm.classes", "lcgm.spectrum.samples"), "latent classes",
         memory=lambda c: 24.0 * _c(c, "lcgm.spectrum.samples") * (4 * _c(c, "lcgm.classes") + 16)
         + 8.0 * _c(c, "lcgm.classes") * (_c(c, "lcgm.dim_x") + _c(c, "lcgm.dim_y") + _c(c, "lcgm.test_samples"))),
    Cost(("tsybakov.samples",), "Monte-Carlo pairs", memory=lambda c: 320.0 * _c(c, "tsybakov.samples"),
         seconds=lambda c: 1e-6 * _c(c, "tsybakov.samples") * (2 + len(c["tsybakov"].get("other_windows", [])))),
    Cost(("tsybakov.bootstrap", "tsybakov.grid_points"), "bootstrap replicates of the CDF",
         memory=lambda c: 24.0 * _c(c, "tsybakov.bootstrap") * (_c(c, "tsybakov.grid_points") + 1),
         seconds=lambda c: 1e-7 * _c(c, "tsybakov.bootstrap") * (_c(c, "tsybakov.grid_points") + 1)
         * (2 + len(c["tsybakov"].get("other_windows", [])))),
    Cost(("tsybakov.grid_points",), "grid points of the CDF (each an exact threshold)",
         memory=lambda c: 24.0 * _c(c, "tsybakov.bootstrap") * (_c(c, "tsybakov.grid_points") + 1),
         seconds=lambda c: 0.2 * _c(c, "tsybakov.grid_points")),
    Cost(("tsybakov.exact.points_per_decade",), "exact thresholds per decade of t",
         memory=lambda c: 200e3 * _tsybakov_thresholds(c),
         seconds=lambda c: 0.2 * _tsybakov_thresholds(c)),
    # paper 1
    Cost(("consistency.oracle.nodes",), "quadrature nodes per view",
         memory=lambda c: 48.0 * _c(c, "consistency.oracle.nodes") ** 2),
    Cost(("consistency.oracle.convergence_nodes",), "quadrature nodes per view",
         memory=lambda c: 48.0 * max(_c(c, "consistency.oracle.convergence_nodes")) ** 2),
    Cost(("consistency.oracle.auc_nodes", "consistency.oracle.auc_convergence_nodes"), "nodes of the exact AUC rule",
         memory=lambda c: 8.0 * 64 * max(_c(c, "consistency.oracle.auc_nodes"),
                                        *_c(c, "consistency.oracle.auc_convergence_nodes")) ** 2,
         seconds=lambda c: 5 + sum(q * q / 100 for q in [_c(c, "consistency.oracle.auc_nodes"),
                                                          *_c(c, "consistency.oracle.auc_convergence_nodes")])),
    Cost(("consistency.oracle.monte_carlo_samples",), "Monte-Carlo pairs",
         memory=lambda c: max(320.0, 24 + 38 * len(c["consistency"]["gmm"]["weights"])) * _c(c, "consistency.oracle.monte_carlo_samples")),
    Cost(("consistency.oce.ms",), "negatives m of the OCE identity",
         memory=lambda c: 40.0 * max(_c(c, "consistency.oce.ms")),
         seconds=lambda c: len(c["consistency"]["oce"]["taus"]) * sum(_c(c, "consistency.oce.ms")) * 500
         * max(_c(c, "consistency.oce.ms")) * 1e-8),
    Cost(("consistency.calibration.epochs", "consistency.calibration.samples", "seeds", "consistency.calibration.nodes",
          "consistency.calibration.inner_nodes"), "epochs of consistency.calibration.samples pairs, each evaluated by quadrature",
         seconds=lambda c: _count(c["seeds"]) * (_c(c, "consistency.calibration.epochs") * _c(c, "consistency.calibration.samples")
                                                 / TRAINING_PAIRS_PER_SECOND + (_c(c, "consistency.calibration.epochs") + 1)
                                                 * (_c(c, "consistency.calibration.nodes") ** 2
                                                    + _c(c, "consistency.calibration.nodes") * _c(c, "consistency.calibration.inner_nodes")
                                                    * math.log2(_c(c, "consistency.calibration.inner_nodes") + 2)) * 1e-7)),
    Cost(("consistency.calibration.samples",), "training pairs", memory=lambda c: 80.0 * _c(c, "consistency.calibration.samples")),
    Cost(("consistency.calibration.batch_size", "consistency.calibration.dims"), "pairs per batch",
         memory=lambda c: _two_tower_bytes(c, max(_c(c, "consistency.calibration.dims")), _c(c, "consistency.calibration.batch_size"))),
    Cost(("consistency.calibration.dims", "consistency.calibration.epochs", "seeds"), "dimensions D (a job each)",
         memory=lambda c: _two_tower_bytes(c, max(_c(c, "consistency.calibration.dims")), _c(c, "consistency.calibration.batch_size"))),
    Cost(("consistency.calibration.nodes", "consistency.calibration.inner_nodes"), "quadrature nodes per view",
         memory=lambda c: _quadrature(_c(c, "consistency.calibration.nodes"))
         + _inner(_c(c, "consistency.calibration.nodes"), _c(c, "consistency.calibration.inner_nodes"))),
    Cost(("consistency.calibration.inner_nodes", "consistency.calibration.nodes"), "inner nodes of the calibration rule",
         memory=lambda c: _inner(_c(c, "consistency.calibration.nodes"), _c(c, "consistency.calibration.inner_nodes"))),
    Cost(("consistency.calibration.bootstrap",), "bootstrap replicates (a Python loop)",
         memory=lambda c: 8.0 * _c(c, "consistency.calibration.bootstrap") * len(c["consistency"]["calibration"]["dims"])
         * _count(c["seeds"]),
         seconds=lambda c: 1e-3 * _c(c, "consistency.calibration.bootstrap")),
    Cost(("consistency.calibration.families.nodes", "consistency.calibration.families.inner_nodes",
          "consistency.calibration.families.dims"), "quadrature nodes per view of the families",
         memory=lambda c: _quadrature(_c(c, "consistency.calibration.families.nodes"))
         + _inner(_c(c, "consistency.calibration.families.nodes"), _c(c, "consistency.calibration.families.inner_nodes")),
         seconds=lambda c: 2 * (_c(c, "consistency.calibration.families.nodes") ** 3 / FLOPS
                                + _families_members(c) * (_c(c, "consistency.calibration.families.nodes") ** 2
                                                          + _c(c, "consistency.calibration.families.nodes")
                                                          * _c(c, "consistency.calibration.families.inner_nodes") * 20) * 1e-7)),
    Cost(("consistency.calibration.families.inner_nodes", "consistency.calibration.families.nodes"),
         "inner nodes of the families' rule",
         memory=lambda c: _inner(_c(c, "consistency.calibration.families.nodes"), _c(c, "consistency.calibration.families.inner_nodes"))),
    Cost(("consistency.calibration.families.dims", "consistency.calibration.families.nodes"), "dimensions of the family members",
         memory=lambda c: 16.0 * _c(c, "consistency.calibration.families.nodes") * max(_c(c, "consistency.calibration.families.dims"))),
    Cost(("consistency.scaling.steps", "consistency.scaling.seeds", "consistency.scaling.m_sweep.ms",
          "consistency.scaling.m_sweep.n", "consistency.scaling.n_sweep.ns", "consistency.scaling.n_sweep.m", "consistency.budget.total",
          "consistency.budget.ms"), "steps for each sweep point and seed of a job",
         seconds=_scaling_seconds),
    Cost(("consistency.scaling.m_sweep.n", "consistency.scaling.m_sweep.ms", "consistency.scaling.n_sweep.ns",
          "consistency.scaling.n_sweep.m", "consistency.budget.total", "consistency.budget.ms", "consistency.scaling.seeds",
          "consistency.scaling.hidden", "consistency.scaling.layers", "consistency.scaling.dim"),
         "anchors n of the m sweep",
         memory=_scaling_bytes),
    Cost(("consistency.scaling.nodes", "consistency.scaling.inner_nodes"), "quadrature nodes per view",
         memory=lambda c: _quadrature(_c(c, "consistency.scaling.nodes"))
         + _inner(_c(c, "consistency.scaling.nodes"), _c(c, "consistency.scaling.inner_nodes"))),
    Cost(("consistency.scaling.gallery_size", "consistency.scaling.galleries"), "candidates per retrieval gallery",
         memory=lambda c: 16.0 * _c(c, "consistency.scaling.gallery_size") ** 2
         + 40.0 * _c(c, "consistency.scaling.gallery_size") * _c(c, "consistency.scaling.galleries"),
         seconds=lambda c: 1e-7 * _c(c, "consistency.scaling.gallery_size") ** 2 * _c(c, "consistency.scaling.galleries")
         * _count(c["consistency"]["scaling"]["seeds"]) * max(map(len, _scaling_jobs(c)))),
    Cost(("consistency.scaling.bootstrap",), "bootstrap replicates",
         memory=lambda c: 16.0 * _c(c, "consistency.scaling.bootstrap") * _count(c["consistency"]["scaling"]["seeds"]),
         seconds=lambda c: 1e-4 * _c(c, "consistency.scaling.bootstrap") * max(map(len, _scaling_jobs(c))) * 3),
    Cost(("consistency.deviation.ms", "consistency.deviation.pools", "consistency.deviation.batches"), "negatives m of the deviation draws",
         memory=lambda c: 25.0 * max(max(_c(c, "consistency.deviation.ms")) + 1, 1024) ** 2
         + 40.0 * max(_c(c, "consistency.deviation.pools"), _c(c, "consistency.deviation.batches")) * max(_c(c, "consistency.deviation.ms")),
         seconds=lambda c: 6e-8 * _c(c, "consistency.deviation.batches") * sum(
             (m + 1) * max(m + 1, 1024) for m in _c(c, "consistency.deviation.ms"))),
    Cost(("consistency.deviation.ns", "consistency.deviation.pools"), "anchors n of the deviation draws",
         memory=lambda c: 40.0 * max(_c(c, "consistency.deviation.ns")) + 96e6,
         seconds=lambda c: 6e-8 * _c(c, "consistency.deviation.pools") * sum(_c(c, "consistency.deviation.ns"))
         * _c(c, "consistency.deviation.nodes")),
    Cost(("consistency.deviation.nodes", "consistency.deviation.pools", "consistency.deviation.ms"), "quadrature nodes of the deviation draws",
         memory=lambda c: 24.0 * max(2**22, _c(c, "consistency.deviation.nodes") * max(_c(c, "consistency.deviation.ms")))
         + 48.0 * _c(c, "consistency.deviation.nodes") ** 2,
         seconds=lambda c: 1e-8 * _c(c, "consistency.deviation.nodes") * _c(c, "consistency.deviation.pools")
         * sum(_c(c, "consistency.deviation.ms")) * 6),
    Cost(("consistency.deviation.partition_nodes",), "nodes of the partition function",
         memory=lambda c: 40.0 * _c(c, "consistency.deviation.partition_nodes") * (_c(c, "consistency.deviation.nodes") + 8002),
         seconds=lambda c: 6e-8 * 6 * _c(c, "consistency.deviation.partition_nodes") ** 2),
    Cost(("consistency.deviation.trained.n", "consistency.deviation.trained.m", "consistency.scaling.steps"),
         "anchors of the trained deviation models",
         memory=lambda c: 16.0 * _c(c, "consistency.deviation.trained.n") * (_c(c, "consistency.deviation.trained.m") + 1)
         * max(1, c["consistency"]["scaling"]["hidden"] // 8),
         seconds=lambda c: 2 * max(c["consistency"]["scaling"]["steps"], _c(c, "consistency.deviation.trained.n") // _trained_batch(c) + 1)
         * _trained_batch(c) * (_c(c, "consistency.deviation.trained.m") + 1) / TRAINING_PAIRS_PER_SECOND),
    Cost(("consistency.deviation.bootstrap", "consistency.deviation.pools", "consistency.deviation.batches"), "bootstrap replicates",
         memory=lambda c: 8.0 * _c(c, "consistency.deviation.bootstrap") * max(_c(c, "consistency.deviation.pools"),
                                                                              _c(c, "consistency.deviation.batches"))
         * (len(c["consistency"]["deviation"]["ms"]) + len(c["consistency"]["deviation"]["ns"]) + 18)),
    # paper 3
    Cost(("supervised_view.epochs", "supervised_view.seeds"), "epochs of the training split, for every seed",
         seconds=lambda c: _c(c, "supervised_view.epochs") * _count(c["supervised_view"]["seeds"]) * _images(c)[0]
         / SSL_IMAGES_PER_SECOND),
    Cost(("supervised_view.batch_size",), "images per batch (two views each)",
         memory=lambda c: 2.0 * _c(c, "supervised_view.batch_size") * 672 * _images(c)[1]
         + 64.0 * _c(c, "supervised_view.batch_size") ** 2),
    Cost(("supervised_view.data.image_size",), "pixels per side after the resize",
         memory=lambda c: 5.0 * _images(c)[0] * _images(c)[1] + _ssl_views(c)),
    Cost(("supervised_view.data.test_size", "supervised_view.data.train_size"), "test images (a test × train k-NN matrix)",
         memory=lambda c: 8.0 * (c["supervised_view"]["data"].get("test_size") or 0)
         * (c["supervised_view"]["data"].get("train_size") or _images(c)[0])),
    Cost(("supervised_view.data.train_size",), "training images",
         memory=lambda c: 5.0 * (c["supervised_view"]["data"].get("train_size") or 0) * _images(c)[1]),
    Cost(("supervised_view.bias_views", "supervised_view.bias_images"), "augmentation draws per bias image (a uint8 bank)",
         memory=_ssl_views,
         seconds=lambda c: 1e-9 * _c(c, "supervised_view.bias_images") ** 2 * _c(c, "supervised_view.bias_views")
         * _c(c, "supervised_view.projection_dim")),
    Cost(("supervised_view.bias_images", "supervised_view.bias_views"), "bias images (a uint8 bank of their views)",
         memory=_ssl_views),
    Cost(("supervised_view.views",), "cached views per training image (augment: bank)",
         memory=lambda c: 13.0 * _images(c)[0] * _c(c, "supervised_view.views") * _images(c)[1]
         if c["supervised_view"].get("augment") == "bank" else 0.0),
    Cost(("supervised_view.projection_dim", "supervised_view.projector_hidden", "supervised_view.bias_images",
          "supervised_view.bias_views"), "projection dimensions",
         memory=lambda c: 16.0 * _c(c, "supervised_view.bias_images") * _c(c, "supervised_view.bias_views")
         * _c(c, "supervised_view.projection_dim") + 16.0 * (c["supervised_view"].get("projector_hidden") or 512)
         * (_c(c, "supervised_view.projection_dim") + (c["supervised_view"].get("projector_hidden") or 512) + 512)),
    Cost(("supervised_view.projector_hidden",), "hidden width of the projector",
         memory=lambda c: 16.0 * (c["supervised_view"].get("projector_hidden") or 0) ** 2),
    Cost(("supervised_view.few_label_draws", "supervised_view.few_labels"), "draws of the few-label probes",
         seconds=lambda c: 1e-6 * _c(c, "supervised_view.few_label_draws") * sum(10 * k for k in _c(c, "supervised_view.few_labels"))
         * _c(c, "supervised_view.projection_dim") * 100 * _count(c["supervised_view"]["seeds"])),
)

# Integer keys that size no array or loop of their own, and why (the test requires every integer key of the schema to
# be in a cost or here).
NOT_SIZES = {
    "seeds": "seed values (their number is a factor of the training costs)",
    "approximation.seeds": "seed values (their number is a factor of A2's training cost)",
    "consistency.scaling.seeds": "seed values (their number is a factor of the C3/C4 costs)",
    "supervised_view.seeds": "seed values (their number is a factor of paper 3's training cost)",
    "lcgm.mean_seed": "a seed", "lcgm.spectrum.seed": "a seed", "tsybakov.seed": "a seed",
    "consistency.oracle.seed": "a seed", "consistency.oce.seed": "a seed", "consistency.calibration.seed": "a seed",
    "consistency.deviation.seed": "a seed", "supervised_view.data.split_seed": "a seed", "supervised_view.view_seed": "a seed",
    "consistency.scaling.batch_size": "capped at each point's n (b = min(b, n)): its cost is that of the sweeps' n",
    "supervised_view.knn_k": "capped at the training split's size (the k-NN probe takes min(k, n) neighbours)",
    "approximation.num_eigenvalues": "how many of the eigenvalues already computed are written",
    "consistency.calibration.families.tail": "how many members the exponent fit uses (at most the members)",
    "consistency.deviation.fit_from": "a threshold on m (the m-slopes use the points at or above it)",
    "supervised_view.balance.per_class": "bounded by the data: each class must hold it (checked when the run starts)",
    "supervised_view.few_labels": "labelled images per class of a probe; their sum is in the few-label cost",
    "figures.style.dpi": "bounded by the schema (at most 2400)",
    "figures.overrides.*.dpi": "bounded by the schema (at most 2400)",
}


def _tsybakov_thresholds(config: dict) -> float:
    exact = config["tsybakov"]["exact"]
    decades = math.log10(exact["t_range"][1] / exact["t_range"][0])
    return 5.0 * (exact["points_per_decade"] * decades + 1)


def _families_members(config: dict) -> int:
    families = config["consistency"]["calibration"]["families"]
    return (_count(families.get("dims", [])) + len(families.get("perturbations", [])) * len(families.get("epsilons", [1])))


def integer_keys(schema: dict) -> list[str]:
    """Every key of the config schema whose value is an integer or a list of integers (``*`` for any name under
    ``additionalProperties``), found by walking properties, items, references and combinators."""
    found = []

    def resolve(node):
        while isinstance(node, dict) and "$ref" in node:
            node = schema["$defs"][node["$ref"].split("/")[-1]]
        return node

    def types(node) -> set:
        node = resolve(node)
        if not isinstance(node, dict):
            return set()
        t = node.get("type", [])
        out = set(t if isinstance(t, list) else [t])
        for combinator in ("oneOf", "anyOf", "allOf"):
            for sub in node.get(combinator, []):
                out |= types(sub)
        return out

    def walk(node, path):
        node = resolve(node)
        if not isinstance(node, dict):
            return
        items = resolve(node.get("items"))
        if "integer" in types(node) or (isinstance(items, dict) and "integer" in types(items)):
            found.append(path)
        for name, sub in node.get("properties", {}).items():
            walk(sub, f"{path}.{name}" if path else name)
        if isinstance(node.get("additionalProperties"), dict):
            walk(node["additionalProperties"], f"{path}.*")
        if isinstance(items, dict) and "object" in types(items):
            walk(items, f"{path}[]")
        for combinator in ("oneOf", "anyOf", "allOf"):
            for sub in node.get(combinator, []):
                walk(sub, path)

    walk(schema, "")
    return sorted(set(found))


def _gib(n: float) -> str:
    return f"{n / 2**30:,.1f} GiB"


def resource_problems(config: dict, memory_bytes: int) -> list[str]:
    """Sizes that cannot run on a machine with ``memory_bytes`` of memory, jobs that would take more than
    :data:`TIME_LIMIT_S` on this CPU (:data:`COSTS`), and epoch counts past :data:`EPOCH_LIMIT`, each naming the keys
    it grows with. Checked when a local run starts; a cluster run sizes its jobs with the profile's mem_mb, runtime
    and --set-resources instead."""
    problems = []
    for cost in COSTS:
        lead, *others = cost.keys
        value = config_value(config, lead)
        if value is None:  # an unset key (its effective value comes from elsewhere): the costs led by the set keys report
            continue
        shown = max(value) if isinstance(value, list) and value else value
        also = f" (with {', '.join(others)})" if others else ""
        if cost.memory is not None:
            need = cost.memory(config)
            if need > memory_bytes:
                problems.append(f"{lead}: {shown} {cost.what}{also} need about {_gib(need)} in one job, more than this "
                                f"machine's {_gib(memory_bytes)}; lower it, or run on a cluster (profiles/slurm, "
                                "--set-resources mem_mb=...)")
        if cost.seconds is not None:
            past_epoch_limit = lead.endswith("epochs") and value > EPOCH_LIMIT  # reported below
            seconds = cost.seconds(config)
            if seconds > TIME_LIMIT_S and not past_epoch_limit:
                problems.append(f"{lead}: {shown} {cost.what}{also} take about {seconds / 86400:,.0f} days for one job "
                                "on this CPU (measured rates); lower it, or run on GPUs or a cluster")
    for path, value in _walk(config):
        if path and path[-1] == "epochs" and isinstance(value, int) and value > EPOCH_LIMIT:
            problems.append(f"{_key(path)}: {value} epochs is more than {EPOCH_LIMIT:,}; a larger number is a typo, not an experiment")
    return problems


def results_location_problems(results: str, workdir: str | Path = ".") -> list[str]:
    """Where the scale's folder ``results`` (a path under ``results/``) or anything already in it leads outside
    ``results/`` once symbolic links are resolved: outputs, sidecars and logs would land elsewhere. ``results/``
    itself may be a link (to a scratch disk, say); links inside it must stay inside it. Checked when a run starts."""
    workdir = Path(workdir)
    root = (workdir / "results").resolve()
    folder = workdir / results
    if not folder.resolve().is_relative_to(root):
        return [f"results: {results!r} leads to {folder.resolve()}, outside results/ ({root}) once links are resolved; "
                "remove the link or choose a folder under results/"]
    problems = []
    if folder.is_dir():
        for directory, subdirectories, files in os.walk(folder):  # links are listed, not followed
            for name in subdirectories + files:
                path = Path(directory) / name
                if path.is_symlink() and not path.resolve().is_relative_to(root):
                    problems.append(f"results: {path} is a link to {path.resolve()}, outside results/ ({root}); what the "
                                    "run writes there would land outside the results tree: remove the link")
    return problems


def data_problems(config: dict) -> list[str]:
    """What a run needs of its data and does not find: the CIFAR-10 or Fashion-MNIST files, and enough
    images of each class for S3's training sets, and few-label counts that fit every class (checked before any job,
    in a dry run too: :func:`preflight_problems`)."""
    view = config.get("supervised_view", {})
    missing = missing_data_message(view.get("data", {})) if view.get("data") else None
    if missing:
        return [missing]
    return balance_problems(view) + few_label_problems(view) if view else []


def preflight_problems(config: dict, workdir: str | Path = ".", memory_bytes: int | None = None, local: bool = True) -> list[str]:
    """Everything a run checks when it starts, before any job and before Snakemake removes an output it would
    recompute (the workflow's ``onstart``, and ``crlrepro check-config``): the results folder
    (:func:`results_location_problems`), the data (:func:`data_problems`) and, where the jobs run on this machine
    (``local``), the memory and time of each job (:func:`resource_problems`, against ``memory_bytes``, by default this
    machine's memory) and a GPU for ``device: cuda``. A cluster run (``local=False``) sizes its jobs with the profile."""
    problems = results_location_problems(config["results"], workdir) + data_problems(config)
    if local:
        if memory_bytes is None:
            import psutil

            memory_bytes = psutil.virtual_memory().total
        problems += resource_problems(config, memory_bytes)
        if config.get("device") == "cuda":
            from crlrepro.runtime.device import physical_gpus

            if not physical_gpus():
                problems.append("device: cuda, but no GPU is visible on this machine (CUDA_VISIBLE_DEVICES, NVML): set "
                                "device: auto or cpu (e.g. --config device=auto), or submit to a cluster "
                                "(--workflow-profile profiles/slurm)")
    return problems


def requested_executor(argv: list[str], basedir: str | Path, environ=os.environ) -> str:
    """The executor a Snakemake command line asks for: ``--executor``/``-e``, else the ``executor:`` of its profile
    (``--profile``, ``--workflow-profile`` or ``SNAKEMAKE_PROFILE``; ``profiles/default`` of the workflow when none is
    named), else ``local``. Snakemake decides the executor after it has read the Snakefile, and a dry run always runs
    its own, so the workflow reads the intent from the command line to size jobs before any of them: a cluster run's
    jobs are sized by its profile, not by this machine's memory."""
    def option(names):
        for i, word in enumerate(argv):
            for name in names:
                if word == name and i + 1 < len(argv):
                    return argv[i + 1]
                if word.startswith(name + "="):
                    return word.split("=", 1)[1]
        return None

    executor = option(("--executor", "-e"))
    if executor:
        return executor
    profiles = [option(("--profile",)) or environ.get("SNAKEMAKE_PROFILE"),
                option(("--workflow-profile",)) or str(Path(basedir) / "profiles" / "default")]
    for profile in profiles:
        if profile and profile != "none":
            executor = _profile_executor(profile, basedir)
            if executor:
                return executor
    return "local"


def _profile_executor(profile: str, basedir: str | Path) -> str | None:
    """The ``executor:`` of the first config file of the profile ``profile`` (a folder, or a name Snakemake looks up
    beside the workflow, in ~/.config/snakemake or /etc/xdg/snakemake); None where it sets none."""
    for folder in (Path(profile), Path(basedir) / profile, Path.home() / ".config" / "snakemake" / profile,
                   Path("/etc/xdg/snakemake") / profile):
        for name in ("config.v8+.yaml", "config.yaml"):
            if (folder / name).is_file():
                try:
                    executor = (read_yaml(folder / name) or {}).get("executor")
                except (ConfigError, AttributeError):
                    return None
                return str(executor) if executor else None
    return None


def start_refusal(config: dict, workdir: str | Path = ".", memory_bytes: int | None = None, local: bool = True) -> str:
    """What a run refuses ``config`` (merged over config.yaml) with, stage by stage as a run makes the checks:
    :func:`validate_config` without the data on disk (as the Snakefile reads it; ``config`` is validated in place),
    then :func:`preflight_problems` (``onstart``); '' when it starts. ``crlrepro check-config`` prints it."""
    try:
        validate_config(config, Path(workdir) / "workflow" / "schemas" / "config.schema.yaml", check_data=False)
    except ConfigError as error:
        return str(error)
    problems = preflight_problems(config, workdir, memory_bytes=memory_bytes, local=local)
    return "cannot start:\n  " + "\n  ".join(problems) if problems else ""


SEED_LIMIT = 2**32  # every seed is used by NumPy and torch and in seed arithmetic: keep it a 32-bit value


def _walk(value, path=()):
    yield path, value
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _walk(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _walk(item, (*path, index))


MAGNITUDE_LIMIT = 1e6  # every non-integer number of a config is a scale, a rate or a tolerance of order one


def _schema_key(path) -> str:
    """The schema's name of a config path: list items of objects as ``[]``, a number's index in its list dropped."""
    out = ""
    for i, part in enumerate(path):
        if isinstance(part, int):
            out += "[]" if i + 1 < len(path) else ""
        else:
            out += f".{part}" if out else part
    return out


def _matches(key: str, pattern: str) -> bool:
    return re.fullmatch(re.escape(pattern).replace(r"\*", r"[^.\[\]]+"), key) is not None


def _coerce_integers(config: dict, integers: list[str]) -> None:
    """Exact integers written as floats (``epochs: 2.0``, YAML's ``1e3`` read as 1000.0) in the schema's integer keys
    become ints in place: JSON Schema accepts 2.0 as an integer, but ``range``, tensor shapes and indices do not. A
    fraction (2.5) is left for the schema to refuse, naming the key."""

    def visit(node, path):
        items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        for key, value in list(items):
            here = (*path, key)
            if isinstance(value, (dict, list)):
                visit(value, here)
            elif (isinstance(value, float) and value.is_integer() and abs(value) < 2**53
                  and any(_matches(_schema_key(here), pattern) for pattern in integers)):
                node[key] = int(value)

    visit(config, ())


def _check_numbers(config: dict, integers: list[str] = ()) -> list[str]:
    """NaN and ±inf anywhere (YAML's .nan/.inf pass a schema's bounds, since NaN compares false), seeds too large
    for the generators, and any number past :data:`MAGNITUDE_LIMIT` that is not an integer count (``integers``,
    the schema's integer keys, which the size model bounds): means, widths, temperatures, rates and tolerances
    of order one, where 1e12 is a typo (and squares past float64's range near 1e154)."""
    problems = []
    for path, value in _walk(config):
        if isinstance(value, float) and not math.isfinite(value):
            problems.append(f"{_key(path)}: must be a finite number, got {value}")
        elif (isinstance(value, (int, float)) and not isinstance(value, bool) and abs(value) > MAGNITUDE_LIMIT
              and not any(_matches(_schema_key(path), pattern) for pattern in integers)):
            problems.append(f"{_key(path)}: {value:g} is past ±{MAGNITUDE_LIMIT:g}; this key is a scale, a rate or a "
                            "tolerance of order one, and a larger value is a typo, not an experiment")
        name = next((part for part in reversed(path) if isinstance(part, str)), "")
        is_seed = name in ("seed", "seeds") or name.endswith("_seed")
        if is_seed and isinstance(value, int) and not isinstance(value, bool) and value >= SEED_LIMIT:
            problems.append(f"{_key(path)}: a seed must be below 2^32 = {SEED_LIMIT}, got {value}")
    return problems


def read_config_file(path: str | Path) -> dict:
    """A config file: YAML (:func:`read_yaml`) whose top level is a non-empty mapping of keys."""
    data = read_yaml(path)
    if data is None or data == {}:
        raise ConfigError(f"{path}: holds no keys (an empty config file changes nothing; leave the --configfile out, or "
                          "write the keys it should set, e.g. 'tau: 0.5')")
    if not isinstance(data, dict):
        raise ConfigError(f"{path}, line 1: a config file is a mapping of keys (e.g. 'tau: 0.5'), this one holds a "
                          f"{type(data).__name__}")
    return data


def _read_schema(path: str, mtime_ns: int) -> dict:
    """The schema file as data: parsed once per path and modification time, a fresh copy for each caller."""
    if (path, mtime_ns) not in _SCHEMAS:
        _SCHEMAS[(path, mtime_ns)] = read_yaml(path)
    return copy.deepcopy(_SCHEMAS[(path, mtime_ns)])


_SCHEMAS: dict = {}


def validate_config(config: dict, schema_path: str | Path, check_data: bool = True) -> dict:
    """Validate ``config`` in place (deriving `results` and A2's seeds where left out) and return it; raise :class:`ConfigError`
    listing every offending key otherwise. ``check_data=False`` skips the checks of data on disk (the Snakefile
    makes them in :func:`preflight_problems`, with the other start checks)."""
    schema = _read_schema(str(schema_path), Path(schema_path).stat().st_mtime_ns)
    # The figure names a style override may use are the registry's, not a second list kept by hand.
    overrides = schema["properties"]["figures"]["properties"]["overrides"]
    overrides["propertyNames"] = {"enum": figure_styles()}
    _coerce_integers(config, integer_keys(schema))
    validator = _validator(schema)
    errors = sorted(validator.iter_errors(config), key=lambda e: [str(p) for p in e.absolute_path])
    problems = _check_numbers(config, integer_keys(schema)) + [_describe(e) for e in errors]
    if not problems:
        problems = _check_cross_fields(config, check_data)
    if problems:
        raise ConfigError("invalid config:\n  " + "\n  ".join(problems))
    config["approximation"].setdefault("seeds", list(config["seeds"]))  # A2's own seeds default to everyone's
    config.setdefault("results", scale_folder(config["scale"]))  # each scale its own folder
    return config


def load_config(path: str | Path, schema_path: str | Path) -> dict:
    """Read a YAML config file and validate it (see :func:`validate_config`)."""
    return validate_config(read_config_file(path), schema_path)


def config_value(config: dict, key: str):
    """The value of a dotted key (``approximation.epochs``) of a config; KeyError naming it if absent."""
    value = config
    for part in key.split("."):
        if not isinstance(value, dict) or part not in value:
            raise KeyError(f"the config has no key {key!r}")
        value = value[part]
    return value
