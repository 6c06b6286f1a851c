"""The one loader and validator of pipeline configs.

A config is config.yaml (the default scale, and the one place every default is written) with a scale's
``--configfile`` over it, checked against ``workflow/schemas/config.schema.yaml`` (JSON Schema: types and bounds,
every key required, no defaults) and then against the cross-field rules a schema cannot state. Every error names the
offending key, e.g. ``gmm.std_x[1]``, so that a typo never runs a single job.
"""

from __future__ import annotations

import copy
import functools
import math
import re
from pathlib import Path

import jsonschema
import numpy as np

from crlrepro.learning.datasets import balance_problems, few_label_problems, missing_data_message, subset_problems
from crlrepro.runtime.costs import config_value
from crlrepro.runtime.yamlfile import ConfigError, read_yaml
from crlrepro.studies.registry import figure_styles, schema_fragments
from crlrepro.studies.scaling import n_sweep_m

__all__ = [
    "CALIBRATION_FIT_POINTS",
    "CLASSES",
    "config_items",
    "config_value",
    "ConfigError",
    "data_problems",
    "DERIVED",
    "EPOCH_LIMIT",
    "GAP_CDF_LEAST_T",
    "INTEGER_LIMIT",
    "integer_keys",
    "key_name",
    "load_config",
    "MAGNITUDE_LIMIT",
    "merged_config",
    "MIXTURE_QUADRATURES",
    "mixture_resolution_problems",
    "ONE_CLASS_BATCH_RISK",
    "RATIO_WILDCARD",
    "read_config_file",
    "read_schema",
    "read_yaml",
    "RESOLUTION",
    "scale_folder",
    "schema_files",
    "SEED_LIMIT",
    "SUPPORT_MASS_OUTSIDE",
    "validate_config",
    "WEIGHT_SUM_TOLERANCE",
]

WEIGHT_SUM_TOLERANCE = 1e-6


def scale_folder(scale: str) -> str:
    """The results folder of ``scale`` when the config leaves ``results`` out: ``results`` for the default scale,
    ``results/<scale>`` for every other (crlrepro.workflow.folder records which scale a folder belongs to)."""
    return "results" if scale == "default" else f"results/{scale}"


def key_name(path) -> str:
    """A config path as every message names it: ``gmm.std_x[1]``."""
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
    if error.validator == "type" and isinstance(error.instance, str) and _NUMBER_AS_TEXT.fullmatch(error.instance.strip()):
        message += " (YAML reads 1e-3 as text: write 1.0e-3)"
    if error.validator == "required":  # one error per missing key, named only in its message
        missing = next((name for name in error.validator_value if error.message == f"{name!r} is a required property"), None)
        if missing is not None:
            return (
                f"{key_name([*error.absolute_path, missing])}: missing; config.yaml, which every run reads first, sets "
                "every key (a --configfile only overrides some): restore it there"
            )
    if error.validator in ("oneOf", "anyOf") and error.context:
        matched = [sub for sub in error.context if sub.validator != "type" or sub.relative_path]
        if matched:  # the alternative of the value's own type (a mapping's, a list's) failed: say each thing it found
            return "; ".join(dict.fromkeys(_describe(sub) for sub in matched))
        message += " (" + "; ".join(dict.fromkeys(sub.message for sub in error.context)) + ")"  # what each found wrong
    return f"{key_name(error.absolute_path)}: {message}"


def data_problems(config: dict) -> list[str]:
    """What a run needs of its data and does not find: the CIFAR-10 or Fashion-MNIST files, and enough
    images of each class for S3's training sets, and few-label counts that fit every class (checked before any job,
    in a dry run too: :func:`crlrepro.workflow.preflight.preflight_problems`)."""
    view = config.get("supervised_view", {})
    missing = missing_data_message(view.get("data", {})) if view.get("data") else None
    if missing:
        return [missing]
    return balance_problems(view) + few_label_problems(view) if view else []


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
    if not problems:
        problems += _support_width_problems(config)
    approx = config.get("approximation", {})
    # JSON Schema counts 2.0 as an integer; indices and seeds must be true integers.
    for key, values in (
        ("approximation.dims", approx.get("dims", [])),
        ("lcgm.dims", config.get("lcgm", {}).get("dims", [])),
        ("seeds", config.get("seeds", [])),
        ("approximation.seeds", approx.get("seeds", [])),
    ):
        for i, d in enumerate(values):
            if not isinstance(d, int) or isinstance(d, bool):
                problems.append(f"{key}[{i}]: must be an integer, got {d!r}")
    nodes = approx.get("quadrature_nodes")
    ladder = approx.get("convergence_nodes", [])
    rules = [n for n in [nodes, *ladder] if isinstance(n, int) and not isinstance(n, bool)]
    for i, d in enumerate(approx.get("dims", [])):
        if rules and isinstance(d, int) and d >= min(rules):
            key = "approximation.quadrature_nodes" if min(rules) == nodes else "approximation.convergence_nodes"
            problems.append(
                f"approximation.dims[{i}]: D = {d} is not below {key} = {min(rules)}: the PMI operator on an "
                f"n-node rule has at most n singular values, so at D ≥ n its tail Σ_(i>D) λ_i is exactly 0 "
                f"and A1/A2's comparisons with it are undefined; use D < {min(rules)} or more nodes"
            )
    if nodes is not None and ladder and max(ladder) <= nodes:
        problems.append(
            f"approximation.convergence_nodes: the largest size ({max(ladder)}) must exceed "
            f"approximation.quadrature_nodes ({nodes}); it is the reference for the error estimate"
        )
    for i, n in enumerate(approx.get("convergence_samples", [])):
        if isinstance(n, int) and isinstance(approx.get("train_samples"), int) and n >= approx["train_samples"]:
            problems.append(
                f"approximation.convergence_samples[{i}]: {n} must be below approximation.train_samples = "
                f"{approx['train_samples']} (the study's largest size is train_samples itself)"
            )
    lcgm = config.get("lcgm", {})
    k, sweep = lcgm.get("classes"), lcgm.get("dims", [])
    if k is not None and sweep and not {k - 1, k, k + 1} <= set(sweep):
        problems.append(
            f"lcgm.dims: must bracket lcgm.classes = {k} (contain {k - 1}, {k}, {k + 1}) to locate the elbow; got {sweep}"
        )
    windows = config.get("tsybakov", {})
    for name, window in [("window", windows.get("window"))] + [
        (f"other_windows[{i}]", w) for i, w in enumerate(windows.get("other_windows", []))
    ]:
        if window is not None and not window[0] < window[1]:
            problems.append(f"tsybakov.{name}: needs t_min < t_max, got {window}")
    problems += _gap_threshold_problems(config)
    exact = windows.get("exact", {})
    if exact.get("t_range") is not None and not exact["t_range"][0] < exact["t_range"][1]:
        problems.append(f"tsybakov.exact.t_range: needs t_min < t_max, got {exact['t_range']}")
    if exact.get("window_starts") is not None and not exact["window_starts"][0] <= exact["window_starts"][1]:
        problems.append(f"tsybakov.exact.window_starts: needs first <= last, got {exact['window_starts']}")
    oracle = config.get("consistency", {}).get("oracle", {})
    if oracle.get("convergence_nodes") and oracle.get("nodes") and max(oracle["convergence_nodes"]) <= oracle["nodes"]:
        problems.append(
            f"consistency.oracle.convergence_nodes: the largest size must exceed consistency.oracle.nodes ({oracle['nodes']})"
        )
    if (
        oracle.get("auc_convergence_nodes")
        and oracle.get("auc_nodes")
        and max(oracle["auc_convergence_nodes"]) <= oracle["auc_nodes"]
    ):
        problems.append(
            "consistency.oracle.auc_convergence_nodes: the largest size must exceed consistency.oracle.auc_nodes "
            f"({oracle['auc_nodes']})"
        )
    budget = config.get("consistency", {}).get("budget", {})
    total = budget.get("total")
    for i, m in enumerate(budget.get("ms", [])):
        if total and isinstance(m, int) and m >= 1 and total % m:
            problems.append(
                f"consistency.budget.ms[{i}]: {m} does not divide consistency.budget.total = {total} (n = N/m must be whole)"
            )
    for key in config.get("unreported_ranges", {}):
        try:
            config_value(config, key)
        except (KeyError, TypeError):
            problems.append(f"unreported_ranges.{key}: {key} is not a key of this config (a range is declared for a setting)")
    polynomial = approx.get("polynomial", {})
    if {"nodes", "modes"} <= set(polynomial) and not polynomial["nodes"] > 4 * polynomial["modes"]:
        problems.append(
            f"approximation.polynomial.nodes: {polynomial['nodes']} must exceed 4 × approximation.polynomial.modes = "
            f"{4 * polynomial['modes']} (its "
            "spectrum is exact on more than 2 × modes nodes, and the quadrature error compares nodes with nodes/2)"
        )
    if {"dims", "modes"} <= set(polynomial):
        for i, d in enumerate(polynomial["dims"]):
            if isinstance(d, int) and d > 2 * polynomial["modes"]:
                problems.append(
                    f"approximation.polynomial.dims[{i}]: {d} exceeds the 2 × approximation.polynomial.modes = "
                    f"{2 * polynomial['modes']} modes of the series (its spectrum ends there)"
                )
    if {"gammas", "confirm_gammas"} <= set(polynomial):
        both = [g for g in polynomial["confirm_gammas"] if g in polynomial["gammas"]]
        if both:
            problems.append(
                f"approximation.polynomial.confirm_gammas: {both} are also approximation.polynomial.gammas, on whose curves "
                f"the window and margin were chosen; a confirmatory γ must be one not yet seen"
            )
    if {"dims", "window"} <= set(polynomial):
        low, high = polynomial["window"]
        if not low <= high or sum(low <= d <= high for d in polynomial["dims"]) < 2:
            problems.append(
                f"approximation.polynomial.window: {polynomial['window']} must hold at least two of "
                f"approximation.polynomial.dims = {polynomial['dims']} (low ≤ high)"
            )
    scaling = config.get("consistency", {}).get("scaling", {})
    n_sweep = scaling.get("n_sweep", {})
    per_regime = any(isinstance(n_sweep.get(key), dict) for key in ("m", "second_m"))
    for regime in (scaling.get("regimes", []) if per_regime else [None]) if n_sweep else []:  # one m for all: one check
        try:
            m, second = (n_sweep_m(config["consistency"], regime, key) for key in ("m", "second_m"))
        except ValueError as error:  # a mapping that leaves this regime out
            problems.append(str(error))
            continue
        if second is not None and second == m:
            where = "second_m" + (f".{regime}" if isinstance(n_sweep.get("second_m"), dict) else "")
            problems.append(
                f"consistency.scaling.n_sweep.{where}: {second} is the n sweep's own m"
                + (f" for {regime}" if regime else "")
                + "; the second n sweep must be at another m (or null for none), else C3.outer_m_free would compare "
                "a sweep with itself"
            )
    gain = n_sweep.get("gain") if isinstance(n_sweep, dict) else None
    if isinstance(gain, dict) and isinstance(gain.get("seeds"), list) and isinstance(scaling.get("seeds"), list):
        shared = [seed for seed in gain["seeds"] if seed in scaling["seeds"]]
        if shared:
            problems.append(
                f"consistency.scaling.n_sweep.gain.seeds: {shared} are also consistency.scaling.seeds; the marginal-gain "
                "design reads fresh seeds, none of which chose it or is read by another row (give it other seeds)"
            )
    for key, values in (
        ("consistency.scaling.seeds", scaling.get("seeds", [])),
        ("consistency.scaling.n_sweep.gain.ns", gain.get("ns", []) if isinstance(gain, dict) else []),
        ("consistency.scaling.n_sweep.gain.seeds", gain.get("seeds", []) if isinstance(gain, dict) else []),
        ("consistency.scaling.m_sweep.ms", scaling.get("m_sweep", {}).get("ms", [])),
        ("consistency.scaling.n_sweep.ns", scaling.get("n_sweep", {}).get("ns", [])),
        ("consistency.budget.ms", budget.get("ms", [])),
        ("consistency.calibration.dims", config.get("consistency", {}).get("calibration", {}).get("dims", [])),
    ):
        for i, d in enumerate(values):
            if not isinstance(d, int) or isinstance(d, bool):
                problems.append(f"{key}[{i}]: must be an integer, got {d!r}")
    batch = config.get("training", {}).get("batch_size")
    deviation = config.get("consistency", {}).get("deviation", {})
    if "ms" in deviation and "fit_from" in deviation and sum(m >= deviation["fit_from"] for m in deviation["ms"]) < 2:
        problems.append(
            f"consistency.deviation.fit_from: {deviation['fit_from']} leaves fewer than two of "
            f"consistency.deviation.ms = {deviation['ms']} for the m-slopes"
        )
    calibration = config.get("consistency", {}).get("calibration", {})
    trained = [calibration.get("epochs"), len(calibration.get("dims") or []), len(config.get("seeds") or [])]
    if all(_is_int(n) for n in trained) and trained[0] * trained[1] * trained[2] < CALIBRATION_FIT_POINTS:
        problems.append(
            f"consistency.calibration.epochs: {trained[0]} epochs of {trained[1]} dims × {trained[2]} seeds give "
            f"{trained[0] * trained[1] * trained[2]} trained checkpoints (epochs 1..E of each model), fewer than the "
            f"{CALIBRATION_FIT_POINTS} C2's exponent fit needs (crlrepro.experiments.calibration.fit_calibration_exponent); "
            "raise it, or consistency.calibration.dims or seeds"
        )
    study = [
        (f"approximation.convergence_samples[{i}]", n, "training.batch_size", batch)
        for i, n in enumerate(approx.get("convergence_samples", []))
    ]
    for key, samples, batch_key, size in (
        ("approximation.train_samples", approx.get("train_samples"), "training.batch_size", batch),
        *study,
        ("lcgm.train_samples", lcgm.get("train_samples"), "training.batch_size", batch),
        (
            "consistency.calibration.samples",
            calibration.get("samples"),
            "consistency.calibration.batch_size",
            calibration.get("batch_size"),
        ),
    ):
        if isinstance(samples, int) and isinstance(size, int) and samples < size:
            problems.append(f"{key}: {samples} training samples are fewer than one batch ({batch_key} = {size})")
    view = config.get("supervised_view", {})
    ratios = view.get("ratios", [])
    if ratios and 1.0 not in [float(r) for r in ratios if isinstance(r, (int, float))]:
        problems.append(f"supervised_view.ratios: must contain 1 (InfoNCE, the reference of S1), got {ratios}")
    problems += _ratio_name_problems(ratios)
    problems += subset_problems(view.get("data", {}))
    problems += _split_problems(view)
    if "claim_metric" in view:
        allowed = ["linear_top1", "knn_top1"] + [f"few{k}_top1" for k in view.get("few_labels", [])]
        if view["claim_metric"] not in allowed:
            problems.append(
                f"supervised_view.claim_metric: {view['claim_metric']!r} is not a metric of this config (its "
                f"few-label metrics follow supervised_view.few_labels: {view.get('few_labels', [])}); "
                f"expected one of {', '.join(allowed)}"
            )
    for key, first in (("similarities", "cosine"), ("augmentations", "base")):
        values = view.get(key, [])
        if values and first not in values:
            problems.append(f"supervised_view.{key}: must contain {first!r} (the reference), got {values}")
    return problems + (data_problems(config) if check_data else [])


# The least threshold t of the gap's exact CDF F(t) (crlrepro.theory.gap_cdf, which A4's tsybakov_exact and C2's
# tsybakov_small_t compute, at every t of tsybakov.exact and at the start of every Monte-Carlo window too): its accuracy is
# measured over t ∈ [1e-9, 1] (≤ 1.1e-10 relative on paper 2's mixture, ≤ 1.2e-9 on paper 1's), its parts grow like
# log(1/t) below, and at t = 1e-300 the tsybakov_small_t job ran past 10 minutes and 4.6 GB where 1e-9 takes 40 s. The
# default scale computes at 1e-9 itself; a Monte-Carlo window starting lower would need ~10^10 gaps to fit anyway.
GAP_CDF_LEAST_T = 1e-9


def _gap_threshold_problems(config: dict) -> list[str]:
    """Thresholds of the exact gap CDF below :data:`GAP_CDF_LEAST_T`, each naming its key."""
    tsybakov = config.get("tsybakov", {})
    exact = tsybakov.get("exact", {})
    starts = [("tsybakov.window[0]", (tsybakov.get("window") or [None])[0])]
    starts += [(f"tsybakov.other_windows[{i}][0]", (w or [None])[0]) for i, w in enumerate(tsybakov.get("other_windows") or [])]
    starts += [(f"tsybakov.exact.{key}[0]", (exact.get(key) or [None])[0]) for key in ("t_range", "window_starts")]
    starts.append(
        ("consistency.calibration.tsybakov_small_t", config.get("consistency", {}).get("calibration", {}).get("tsybakov_small_t"))
    )
    return [
        f"{key}: {t:g} is below {GAP_CDF_LEAST_T:g}, the least t at which the gap's exact CDF (crlrepro.theory.gap_cdf) "
        f"is computed to a measured accuracy (≤ 1.2e-9 relative over [1e-9, 1]; its quadrature grows like log(1/t) "
        f"below); use at least {GAP_CDF_LEAST_T:g}"
        for key, t in starts
        if isinstance(t, (int, float)) and not isinstance(t, bool) and t < GAP_CDF_LEAST_T
    ]


# C2's exponent fit (crlrepro.experiments.calibration.fit_calibration_exponent) needs 3 trained checkpoints (epoch ≥ 1,
# informative ones only: this is a necessary count, the informative ones are known after training).
CALIBRATION_FIT_POINTS = 3
CLASSES = 10  # every data set of paper 3 (digits, Fashion-MNIST, CIFAR-10) has 10 classes


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _split_sizes(data: dict) -> tuple[int, int] | None:
    """(training images, test images) of paper 3's split after the ``train_size``/``test_size`` subsets, known without
    loading the data: the digits' stratified split (scikit-learn's train_test_split) holds out ⌈f·n⌉ of the n = 1797
    images and trains on the rest; Fashion-MNIST's and CIFAR-10's splits are fixed (their images in all splits,
    :data:`crlrepro.studies.supervised_view.DATA_SHAPES`, less their training split). None where it is not known
    (a data set the schema refuses)."""
    from crlrepro.learning.datasets import CIFAR10_TRAIN_PER_CLASS, FASHION_MNIST_TRAIN_PER_CLASS
    from crlrepro.studies.supervised_view import DATA_SHAPES

    name = data.get("name")
    if name == "digits":
        fraction = data.get("test_fraction")
        if not isinstance(fraction, (int, float)) or isinstance(fraction, bool) or not 0 < fraction < 1:
            return None
        images = DATA_SHAPES["digits"][0]
        test = math.ceil(float(fraction) * images)
        train = images - test
    elif name in ("fashion_mnist", "cifar10"):
        train = CLASSES * (FASHION_MNIST_TRAIN_PER_CLASS if name == "fashion_mnist" else CIFAR10_TRAIN_PER_CLASS)
        test = DATA_SHAPES[name][0] - train
    else:
        return None
    if _is_int(data.get("train_size")) and data["train_size"]:
        train = min(train, data["train_size"])
    if _is_int(data.get("test_size")) and data["test_size"]:
        test = min(test, data["test_size"])
    return train, test


def _smallest_test_class(data: dict, need: int) -> tuple[int, int]:
    """(class, images) of the smallest class of the whole test split (before any ``test_size`` subset). Fashion-MNIST's
    and CIFAR-10's hold 1,000 of each class. For the digits a lower bound found without making the split (class k keeps
    at most ⌊n_train·n_k/n⌋ + 1 of its n_k images for training, crlrepro.learning.datasets.training_class_counts), and
    the split itself only where the bound is below ``need``."""
    from crlrepro.learning.datasets import digits_arrays, training_class_counts

    if data["name"] != "digits":
        return 0, _split_sizes({**data, "test_size": None})[1] // CLASSES
    full = np.bincount(digits_arrays()[1], minlength=CLASSES)
    images = int(full.sum())
    train = images - math.ceil(float(data["test_fraction"]) * images)
    counts = full - (full * train // images + 1)
    if need > counts.min():
        counts = full - training_class_counts({**data, "train_size": None})
    k = int(np.argmin(counts))
    return k, int(counts[k])


# The ratio wildcard of workflow/rules/supervised_view.smk: each λ/ν names its run files as f"{ratio:g}" (ssl_experiment_specs)
RATIO_WILDCARD = r"\d+(\.\d+)?"


def _ratio_name_problems(ratios) -> list[str]:
    """S1's λ/ν values name their runs' files as ``f"{r:g}"`` (6 significant digits): a value printed with an exponent
    (below 1e-4, or 1e6 and above) does not match the rules' ratio pattern, and the DAG fails with a MissingInputException
    in a dry run too; two values printed alike would name one run."""
    problems, seen = [], {}
    for i, ratio in enumerate(ratios if isinstance(ratios, list) else []):
        if not isinstance(ratio, (int, float)) or isinstance(ratio, bool) or not math.isfinite(ratio):
            continue
        text = f"{float(ratio):g}"
        if not re.fullmatch(RATIO_WILDCARD, text):
            problems.append(
                f"supervised_view.ratios[{i}]: {ratio!r} names its runs r{text} (λ/ν printed with 6 significant digits), "
                f"which the rules' ratio pattern {RATIO_WILDCARD} does not match; use a ratio from 1e-4 to below 1e6"
            )
        elif text in seen:
            problems.append(
                f"supervised_view.ratios[{i}]: {ratio!r} names its runs r{text}, as supervised_view.ratios[{seen[text]}] = "
                f"{ratios[seen[text]]!r} does (λ/ν printed with 6 significant digits): the two would be one run"
            )
        else:
            seen[text] = i
    return problems


ONE_CLASS_BATCH_RISK = 1e-3  # the chance, over all its trainings, that S1's supervised prototype reference fails


def _one_class_batch_problems(view: dict, train: int) -> list[str]:
    """S1's supervised prototype objective (``loss_variants``: supervised_prototype) compares each image with the
    prototypes of the other classes in its batch, and stops its training at a batch of one class. The training draws
    full batches of min(batch_size, n) of the n training images (workflow/scripts/supervised_view/ssl_train.py), each of
    one class with probability at most Σ_k (n_k/n)^b ≈ 10^(1−b) for 10 classes of about equal size (the full split,
    which S1 trains on); over epochs × ⌊n/b⌋ steps for each seed the chance that one comes up must stay below
    :data:`ONE_CLASS_BATCH_RISK` (at batch 2 it is 1/10 at every step)."""
    if "supervised_prototype" not in (view.get("loss_variants") or []):
        return []
    batch, epochs, seeds = view.get("batch_size"), view.get("epochs"), view.get("seeds")
    if not (_is_int(batch) and _is_int(epochs) and isinstance(seeds, list) and train >= 1 and batch >= 1):
        return []
    batch = min(batch, train)

    def risk(b: int) -> float:
        return epochs * (train // b) * len(seeds) * float(CLASSES) ** (1 - b)

    if risk(batch) < ONE_CLASS_BATCH_RISK:
        return []
    least = next(b for b in range(batch, train + 1) if risk(b) < ONE_CLASS_BATCH_RISK or b == train)
    return [
        f"supervised_view.batch_size: {view['batch_size']} images from {CLASSES} classes are all of one class with "
        f"probability about {CLASSES}^(1−b) at each of the {epochs * (train // batch) * len(seeds)} steps of "
        f"supervised_view.loss_variants' supervised_prototype trainings, a {min(risk(batch), 1.0):.2g} chance (above "
        f"{ONE_CLASS_BATCH_RISK:g}) that one fails (its objective needs two classes in a batch); use a batch of at least "
        f"{least}, or leave supervised_prototype out"
    ]


def _split_problems(view: dict) -> list[str]:
    """What paper 3's split cannot hold, found from the config before any job (a job would fail, or compute something
    else than asked):

    - a digits split with fewer than one image of each class in either part (scikit-learn's stratified split refuses);
    - ``data.test_size`` larger than a class of the test split holds (its subset is stratified, like train_size's);
    - ``knn_k`` not below the training split the k-NN probe votes over: the probe runs on the un-augmented training
      split (after ``data.train_size``; S3's uniform and long-tailed sets are for training only), the one set every
      k-NN evaluation of the config uses, and at k ≥ n every training image votes for every test image: each gets the
      same label, chance accuracy (the probe caps k at n, silently);
    - ``bias_images`` not a multiple of the classes, or, below the test split's size (at or above it the whole split
      is used), more of a class than the test split holds: the bias images are a stratified subset of it."""
    data = view.get("data", {})
    sizes = _split_sizes(data) if isinstance(data, dict) else None
    if sizes is None:
        return []
    train, test = sizes
    name = data["name"]
    problems = []
    if name == "digits" and min(train, test) < CLASSES:
        return [
            f"supervised_view.data.test_fraction: {data['test_fraction']!r} splits the {train + test} digits into {train} "
            f"training and {test} test images; a stratified split needs at least one of each of the {CLASSES} classes in "
            "each part"
        ]
    size = data.get("test_size")
    if _is_int(size) and size and not size % CLASSES:
        k, has = _smallest_test_class(data, size // CLASSES)
        if size // CLASSES > has:
            problems.append(
                f"supervised_view.data.test_size: {size} needs {size // CLASSES} images of each class, the test split "
                f"of {name} has {has} of class {k}; use at most {has * CLASSES} (or null: the whole split)"
            )
    where = f"supervised_view.data.train_size = {train}" if data.get("train_size") else f"the training split of {name}"
    knn = view.get("knn_k")
    if _is_int(knn) and knn >= train:
        problems.append(
            f"supervised_view.knn_k: {knn} is not below the {train} training images the k-NN probe votes over ({where}, "
            f"the smallest training set of this config's k-NN evaluations): at k >= {train} every training image votes "
            f"for every test image, which all get the same label (chance accuracy); use k < {train}"
        )
    problems += _one_class_batch_problems(view, train)
    bias = view.get("bias_images")
    if _is_int(bias) and bias % CLASSES:
        problems.append(
            f"supervised_view.bias_images: {bias} is not a multiple of the {CLASSES} classes of {name} (the bias images "
            f"are a stratified subset of the test split); use {bias // CLASSES * CLASSES or CLASSES} or "
            f"{(bias // CLASSES + 1) * CLASSES}"
        )
    elif _is_int(bias) and bias < test and not data.get("test_size"):
        k, has = _smallest_test_class(data, bias // CLASSES)
        if bias // CLASSES > has:
            problems.append(
                f"supervised_view.bias_images: {bias} needs {bias // CLASSES} test images of each class, the test split "
                f"of {name} has {has} of class {k}; use at most {has * CLASSES}, or {test} or more for the whole split"
            )
    return problems


# The quadrature rules that integrate each mixture (crlrepro.theory.quadrature.trapezoid_mixture: equispaced nodes on
# [min_k μ_k − 10σ_k, max_k μ_k + 10σ_k]); a convergence ladder's coarse rules are meant to be coarse and are not listed.
MIXTURE_QUADRATURES = {
    "gmm": ("approximation.quadrature_nodes",),
    "consistency.gmm": (
        "consistency.oracle.nodes",
        "consistency.calibration.nodes",
        "consistency.calibration.families.nodes",
        "consistency.scaling.nodes",
        "consistency.deviation.nodes",
    ),
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
            low = min(m - SUPPORT_HALF_WIDTH * s for m, s in zip(means, stds, strict=True))
            high = max(m + SUPPORT_HALF_WIDTH * s for m, s in zip(means, stds, strict=True))
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
                    fix = (
                        f"raise {key} to at least {math.ceil(need)} or widen the std"
                        if need < 1e6
                        else f"no quadrature of a feasible size resolves it: widen the std to at least "
                        f"{(high - low) / (RESOLUTION * 1e6):.3g}"
                    )
                    problems.append(
                        f"{block}.std_{view}: its narrowest component (σ = {narrowest:g}) is finer than the "
                        f"node spacing {spacing:.3g} of the {nodes}-node quadrature ({key}) over [{low:.3g}, "
                        f"{high:.3g}], which must be at most {RESOLUTION:g}σ: the population integrals (L*, "
                        f"I(X;Y), E*) cannot see that component; {fix}"
                    )
                    break
    return problems


# The convergence study's supports (approximation.support_widths; crlrepro.theory.spectral.convergence_table): each
# width w computes the largest rule of approximation.convergence_nodes on [min_k μ_k − wσ_k, max_k μ_k + wσ_k], and the
# widest (10σ, SUPPORT_HALF_WIDTH, always among them) is the reference of every digit the study reports and of A1's
# intervals. A narrower support is a coarse rung of the study, as a coarse node count is, only while it still holds the
# mixture: it leaves out at most 2Φ(−w) of each component's mass (the weights are renormalised on the support, so the
# rung integrates the mixture conditioned on it, moved by about that mass). SUPPORT_MASS_OUTSIDE is the most a rung may
# drop: 10^-4, the precision of the 4 significant digits Table 1 gives A1's values in (claims/paper_values.yaml) and
# which A1's claims compare at, so w ≥ Φ^{-1}(1 − 10^-4/2) ≈ 3.89 (measured on the paper's mixture, a 3.9σ rung keeps
# 1.7 to 3.6 correct digits, a 1e-9σ one none: it integrates a sliver of the line). The widest support must also be
# resolved by the reference's nodes, by the same RESOLUTION as every mixture rule (a 1000σ support on 400 nodes puts the
# nodes 5σ apart, and every digit of the study is then measured against a wrong reference).
SUPPORT_MASS_OUTSIDE = 1e-4


def _support_width_problems(config: dict) -> list[str]:
    """Support half-widths of A1's convergence study (``approximation.support_widths``) that cannot hold the mixture
    (:data:`SUPPORT_MASS_OUTSIDE`) or whose widest one the largest convergence rule cannot resolve (:data:`RESOLUTION`)."""
    from statistics import NormalDist

    from crlrepro.theory.quadrature import SUPPORT_HALF_WIDTH

    approx, gmm = config.get("approximation", {}), config.get("gmm", {})
    widths = approx.get("support_widths", [])
    if not isinstance(widths, list):
        return []
    numbers = [(i, w) for i, w in enumerate(widths) if isinstance(w, (int, float)) and not isinstance(w, bool)]
    least = NormalDist().inv_cdf(1 - SUPPORT_MASS_OUTSIDE / 2)
    problems = [
        f"approximation.support_widths[{i}]: {w:g} standard deviations are below the least width {least:.3g}: a support "
        f"of ±{w:g}σ leaves out 2Φ(−{w:g}) = {2 * NormalDist().cdf(-w):.2g} of each component's mass, more than "
        f"{SUPPORT_MASS_OUTSIDE:g} (the precision of Table 1's 4 significant digits, which A1 compares), so its rows "
        f"integrate another distribution; use widths of at least {math.ceil(least * 100) / 100:g}"
        for i, w in numbers
        if w < least
    ]
    nodes = [n for n in approx.get("convergence_nodes", []) if _is_int(n)]
    if problems or not numbers or not nodes:
        return problems
    index, widest = max(numbers, key=lambda item: item[1])
    if widest <= SUPPORT_HALF_WIDTH:
        return problems  # the 10σ support is the reference, resolved where quadrature_nodes resolves it
    finest = max(nodes)
    for view in ("x", "y"):
        means, stds = gmm.get(f"mean_{view}"), gmm.get(f"std_{view}")
        if not (isinstance(means, list) and isinstance(stds, list) and stds and len(means) == len(stds)):
            continue
        span = max(m + widest * s for m, s in zip(means, stds, strict=True)) - min(
            m - widest * s for m, s in zip(means, stds, strict=True)
        )
        narrowest = min(stds)
        if span / (finest - 1) > RESOLUTION * narrowest:
            need = math.ceil(span / (RESOLUTION * narrowest) + 1)
            problems.append(
                f"approximation.support_widths[{index}]: the widest support, ±{widest:g}σ, is the convergence study's "
                f"reference, and its {finest} nodes (the largest of approximation.convergence_nodes) lie "
                f"{span / (finest - 1):.3g} apart, more than {RESOLUTION:g} × the narrowest std_{view} ({narrowest:g}): "
                f"the reference cannot resolve that component, and every digit of the study would be measured against "
                f"it; use a narrower width or at least {need} nodes"
            )
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

EPOCH_LIMIT = 100_000  # far beyond any paper's recipe: a larger number is a typo, not an experiment


def _dereference(schema: dict, node):
    """``node`` of ``schema`` with its references to ``#/$defs/…`` followed."""
    while isinstance(node, dict) and "$ref" in node:
        node = schema["$defs"][node["$ref"].split("/")[-1]]
    return node


def integer_keys(schema: dict) -> list[str]:
    """Every key of the config schema whose value is an integer or a list of integers (``*`` for any name under
    ``additionalProperties``), found by walking properties, items, references and combinators."""
    found = []

    def resolve(node):
        return _dereference(schema, node)

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


# Every integer of a config is used as a float somewhere (the size model's products, NumPy's shapes, torch's seeds): past
# 2^53 it is no longer exact, and far past it (a 400-digit count) float() overflows, so the cost model would raise an
# OverflowError instead of a line naming the key. _check_numbers refuses it first, naming the key; no key's largest
# sensible value is within many orders of it (the size model then bounds each by the machine).
INTEGER_LIMIT = 2**53

SEED_LIMIT = 2**32  # every seed is used by NumPy and torch and in seed arithmetic: keep it a 32-bit value


def config_items(value, path=()):
    yield path, value
    if isinstance(value, dict):
        for key, item in value.items():
            yield from config_items(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from config_items(item, (*path, index))


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


@functools.lru_cache(maxsize=4096)
def _key_pattern(pattern: str) -> re.Pattern:
    """A schema key pattern (``*`` any one name) as a compiled regular expression, built once per pattern."""
    return re.compile(re.escape(pattern).replace(r"\*", r"[^.\[\]]+"))


@functools.lru_cache(maxsize=64)
def _any_pattern(patterns: tuple[str, ...]) -> re.Pattern | None:
    """One regular expression matching a key exactly when one of ``patterns`` does (an alternation of
    :func:`_key_pattern`'s), built once per list: a config's every number is checked against the schema's ~100
    integer keys at each workflow load."""
    if not patterns:
        return None
    return re.compile("|".join(f"(?:{_key_pattern(pattern).pattern})" for pattern in patterns))


def _matches_any(key: str, patterns) -> bool:
    """Whether ``key`` (:func:`_schema_key`) matches one of the schema key ``patterns``."""
    combined = _any_pattern(tuple(patterns))
    return combined is not None and combined.fullmatch(key) is not None


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
            elif (
                isinstance(value, float)
                and value.is_integer()
                and abs(value) < 2**53
                and _matches_any(_schema_key(here), integers)
            ):
                node[key] = int(value)

    visit(config, ())


def _check_numbers(config: dict, integers: list[str] = ()) -> list[str]:
    """NaN and ±inf anywhere (YAML's .nan/.inf pass a schema's bounds, since NaN compares false), integers past
    :data:`INTEGER_LIMIT` anywhere (before the size model or any other check turns them into floats), seeds too large
    for the generators, and any number past :data:`MAGNITUDE_LIMIT` that is not an integer count (``integers``,
    the schema's integer keys, which the size model bounds): means, widths, temperatures, rates and tolerances
    of order one, where 1e12 is a typo (and squares past float64's range near 1e154)."""
    problems = []
    for path, value in config_items(config):
        name = next((part for part in reversed(path) if isinstance(part, str)), "")
        is_seed = name in ("seed", "seeds") or name.endswith("_seed")
        integer = isinstance(value, int) and not isinstance(value, bool)
        if integer and abs(value) > INTEGER_LIMIT:
            shown = f"an integer of {int(math.log10(abs(value))) + 1} digits"
            problems.append(
                f"{key_name(path)}: a seed must be below 2^32 = {SEED_LIMIT}, got {shown}"
                if is_seed and value > 0
                else f"{key_name(path)}: {shown} is past 2^53 = {INTEGER_LIMIT}, the largest a float64 holds exactly "
                "(sizes and counts are computed with floats: larger is a typo, not an experiment)"
            )
            continue
        if isinstance(value, float) and not math.isfinite(value):
            problems.append(f"{key_name(path)}: must be a finite number, got {value}")
        elif (
            isinstance(value, (int, float))
            and not isinstance(value, bool)
            and abs(value) > MAGNITUDE_LIMIT
            and not _matches_any(_schema_key(path), integers)
        ):
            problems.append(
                f"{key_name(path)}: {value:g} is past ±{MAGNITUDE_LIMIT:g}; this key is a scale, a rate or a "
                "tolerance of order one, and a larger value is a typo, not an experiment"
            )
        if is_seed and integer and value >= SEED_LIMIT:
            problems.append(f"{key_name(path)}: a seed must be below 2^32 = {SEED_LIMIT}, got {value}")
    return problems


def read_config_file(path: str | Path) -> dict:
    """A config file: YAML (:func:`read_yaml`) whose top level is a non-empty mapping of keys."""
    data = read_yaml(path)
    if data is None or data == {}:
        raise ConfigError(
            f"{path}: holds no keys (an empty config file changes nothing; leave the --configfile out, or "
            "write the keys it should set, e.g. 'tau: 0.5')"
        )
    if not isinstance(data, dict):
        raise ConfigError(
            f"{path}, line 1: a config file is a mapping of keys (e.g. 'tau: 0.5'), this one holds a {type(data).__name__}"
        )
    return data


def merged_config(workdir: str | Path, configfiles=(), overrides: dict | None = None) -> dict:
    """The config a run of ``snakemake [--configfile F1 F2 ...] [--config k=v ...]`` starts from, merged exactly as
    Snakemake merges it (``snakemake.settings.types.ConfigSettings`` and ``Workflow.configfile``): the command line's
    files, in order, and then ``overrides`` (``--config``), deep-merged into one mapping O; the Snakefile's
    ``config.yaml`` merged into O; O merged over that again. So a command-line file wins over config.yaml even where
    config.yaml nests a mapping that a file sets to a plain value, or the other way round (a merge file by file over
    config.yaml would keep another value there). Each file is read by :func:`read_config_file` (duplicate keys
    refused, naming file and line). ``crlrepro check-config`` checks this config, the run checks Snakemake's: the
    same (tested against Snakemake)."""
    from snakemake.utils import update_config

    command_line: dict = {}
    for path in configfiles:
        update_config(command_line, read_config_file(path))
    if overrides:
        update_config(command_line, overrides)
    config = copy.deepcopy(command_line)
    update_config(config, read_config_file(Path(workdir) / "config.yaml"))
    update_config(config, command_line)
    return config


# Keys a config may leave out: validate_config derives them (results from scale, A2's seeds from everyone's).
DERIVED = ("results", "approximation.seeds")


def _merge_fragment(schema: dict, dotted: str, node: dict, source: str) -> None:
    """Put a study's schema ``node`` at block ``dotted`` of ``schema``: a new block, or its properties added to a
    block the main schema or another study declares (a key declared twice is an error naming both)."""
    *parents, last = dotted.split(".")
    holder = schema
    for part in parents:
        holder = holder["properties"][part]
    properties = holder.setdefault("properties", {})
    if last not in properties:
        properties[last] = node
        return
    target = properties[last]
    target.setdefault("properties", {})
    for key, sub in node.get("properties", {}).items():
        if key in target["properties"]:
            raise ConfigError(f"{source}: the key {dotted}.{key} is declared twice in the config schema")
        target["properties"][key] = sub
    extra = set(node) - {"properties"}
    if extra:
        raise ConfigError(f"{source}: {dotted} adds properties to an existing block, nothing else (got {sorted(extra)})")


def _require_everything(node: dict, path: tuple = ()) -> None:
    """Every property of every object is required, except the derived ones: config.yaml sets every key."""
    if isinstance(node.get("properties"), dict):
        node["required"] = [k for k in node["properties"] if ".".join((*path, k)) not in DERIVED]
        for key, sub in node["properties"].items():
            _require_everything(sub, (*path, key))


def schema_files(schema_path: str | Path) -> list[Path]:
    """The main schema and every study's fragment (crlrepro.studies.registry.schema_fragments), in that order."""
    return [Path(schema_path), *schema_fragments()]


def read_schema(schema_path: str | Path) -> dict:
    """The config schema: the main file (the keys the studies share, the ``$defs``) with every study's fragment merged
    at the blocks it names, and every key required (the derived ones excepted). Parsed once per set of files and
    modification times, a fresh copy for each caller."""
    files = schema_files(schema_path)
    key = tuple((str(f), f.stat().st_mtime_ns) for f in files)
    if key not in _SCHEMAS:
        schema = read_yaml(files[0])
        for fragment in files[1:]:
            for dotted, node in (read_yaml(fragment) or {}).items():
                _merge_fragment(schema, dotted, node, str(fragment))
        _require_everything(schema)
        _SCHEMAS[key] = schema
    return copy.deepcopy(_SCHEMAS[key])


_SCHEMAS: dict = {}


def _key_schema(schema: dict, key: str) -> dict | None:
    """The schema of the dotted config ``key``, its references to ``#/$defs/…`` followed; None where a name of it is
    not under ``properties`` (a key matched by a pattern: its value is then checked in a whole config)."""
    node = schema
    for part in key.split("."):
        node = _dereference(schema, node).get("properties", {}).get(part)
        if node is None:
            return None
    return node


def _range_problems(config: dict, validator) -> list[str]:
    """Every value declared in ``unreported_ranges`` must be a value its key could be set to: the config with the key
    set to it must pass the schema (a negative learning rate, a fractional sample size are refused here, by name).
    The config itself has passed, and the schema ties no key to another, so the value is checked against its key's
    schema alone (with the shared ``$defs``): the same errors as the whole config's, without walking it again."""
    problems = []
    for key, values in config.get("unreported_ranges", {}).items():
        try:
            config_value(config, key)
        except KeyError:
            continue  # not a key of this config: _check_cross_fields names it
        schema = _key_schema(validator.schema, key)
        check = None if schema is None else type(validator)({"$defs": validator.schema.get("$defs", {}), **schema})
        for i, value in enumerate(values):
            if check is not None:
                errors = check.iter_errors(value)
            else:
                candidate = copy.deepcopy(config)
                *path, last = key.split(".")
                block = candidate
                for part in path:
                    block = block[part]
                block[last] = value
                errors = validator.iter_errors(candidate)
            for error in errors:
                problems.append(f"unreported_ranges.{key}[{i}]: {value!r} is not a value {key} can take: {error.message}")
                break
    return problems


def validate_config(config: dict, schema_path: str | Path, check_data: bool = True) -> dict:
    """Validate ``config`` in place (deriving `results` and A2's seeds where left out) and return it; raise :class:`ConfigError`
    listing every offending key otherwise. ``check_data=False`` skips the checks of data on disk (the Snakefile
    makes them in :func:`crlrepro.workflow.preflight.preflight_problems`, with the other start checks)."""
    schema = read_schema(schema_path)
    # The figure names a style override may use are the registry's, not a second list kept by hand.
    overrides = schema["properties"]["figures"]["properties"]["overrides"]
    overrides["propertyNames"] = {"enum": figure_styles()}
    integers = integer_keys(schema)
    _coerce_integers(config, integers)
    validator = _validator(schema)
    errors = sorted(validator.iter_errors(config), key=lambda e: [str(p) for p in e.absolute_path])
    problems = _check_numbers(config, integers) + [_describe(e) for e in errors]
    if not problems:
        problems = _range_problems(config, validator)
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
