"""The one loader and validator of pipeline configs.

A config is checked against ``workflow/schemas/config.schema.yaml`` (JSON Schema, defaults
filled in) and then against the cross-field rules a schema cannot state. Every error names the
offending key, e.g. ``gmm.std_x[1]``, so that a typo never runs a single job.
"""

from __future__ import annotations

import copy
import math
import os
import re
from pathlib import Path

import jsonschema
import yaml

from crlrepro.datasets import balance_problems, missing_data_message, subset_problems
from crlrepro.registry import figure_styles

WEIGHT_SUM_TOLERANCE = 1e-6


class ConfigError(ValueError):
    """A config value that the pipeline cannot run with; the message names the key."""


def _key(path) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "<top level>"


def _validator_with_defaults(schema: dict):
    """A Draft 2020-12 validator that also fills in the schema's ``default:`` values."""
    base = jsonschema.Draft202012Validator
    check_properties = base.VALIDATORS["properties"]

    def properties(validator, props, instance, schema):
        if isinstance(instance, dict):
            for name, sub in props.items():
                if "default" in sub and name not in instance:
                    instance[name] = copy.deepcopy(sub["default"])
        yield from check_properties(validator, props, instance, schema)

    def pattern(validator, regex, instance, schema):
        # The whole string must match: with re.search (JSON Schema's reading) `$` also matches before a final
        # newline, so "results/nl\n" would pass "^results(/...)*$" and name a folder ending in a newline.
        if isinstance(instance, str) and not re.fullmatch(regex, instance):
            yield jsonschema.ValidationError(f"{instance!r} does not match {regex!r} (the whole value must match)")

    return jsonschema.validators.extend(base, {"properties": properties, "pattern": pattern})(schema)


# A number as PyYAML (YAML 1.1) may leave it text: 1e-3 without a dot, +5, 1_000.
_NUMBER_AS_TEXT = re.compile(r"[-+]?(\d[\d_]*\.?\d*|\.\d+)([eE][-+]?\d+)?")


def _describe(error: jsonschema.ValidationError) -> str:
    message = error.message
    if (error.validator == "type" and isinstance(error.instance, str)
            and _NUMBER_AS_TEXT.fullmatch(error.instance.strip())):
        message += " (YAML reads 1e-3 as text: write 1.0e-3)"
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
    approx = config.get("approximation", {})
    # JSON Schema counts 2.0 as an integer; indices and seeds must be true integers.
    for key, values in (("approximation.dims", approx.get("dims", [])), ("lcgm.dims", config.get("lcgm", {}).get("dims", [])),
                        ("seeds", config.get("seeds", []))):
        for i, d in enumerate(values):
            if not isinstance(d, int) or isinstance(d, bool):
                problems.append(f"{key}[{i}]: must be an integer, got {d!r}")
    nodes = approx.get("quadrature_nodes")
    ladder = approx.get("convergence_nodes", [])
    if nodes is not None and ladder and max(ladder) <= nodes:
        problems.append(
            f"approximation.convergence_nodes: the largest size ({max(ladder)}) must exceed "
            f"approximation.quadrature_nodes ({nodes}); it is the reference for the error estimate"
        )
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
    for key, samples, batch_key, size in (("approximation.train_samples", approx.get("train_samples"), "training.batch_size", batch),
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
            problems.append(f"supervised_view.claim_metric: {view['claim_metric']!r} is not a metric of this config; "
                            f"expected one of {', '.join(allowed)}")
    for key, first in (("similarities", "cosine"), ("augmentations", "base")):
        values = view.get(key, [])
        if values and first not in values:
            problems.append(f"supervised_view.{key}: must contain {first!r} (the reference), got {values}")
    return problems + (data_problems(config) if check_data else [])


# Memory of the largest jobs (upper estimates, measured on the default scale): the Tsybakov job
# holds ~320 bytes per Monte-Carlo pair at its peak; a quadrature rule of n nodes per view holds a
# handful of n × n float64 matrices (kernel, weights, singular vectors); an LCGM training holds its
# pairs in float32 (plus a copy on the device) and its held-out pairs in float64.
_QUADRATURE = ("quadrature nodes per view", lambda n, config: 6 * 8 * n * n)
MEMORY_MODEL = {
    "tsybakov.samples": ("Monte-Carlo pairs", lambda n, config: 320 * n),
    "approximation.quadrature_nodes": _QUADRATURE,
    "approximation.convergence_nodes": _QUADRATURE,
    "consistency.oracle.nodes": _QUADRATURE,
    "consistency.oracle.convergence_nodes": _QUADRATURE,
    "consistency.oracle.monte_carlo_samples": ("Monte-Carlo pairs", lambda n, config: 320 * n),
    "consistency.calibration.nodes": _QUADRATURE,
    "consistency.scaling.nodes": _QUADRATURE,
    "lcgm.dim_x": ("dimensions of x (with lcgm.dim_y and lcgm.train_samples)",
                   lambda n, config: 2 * 4 * config["lcgm"]["train_samples"] * (n + config["lcgm"]["dim_y"])),
    "lcgm.dim_y": ("dimensions of y (with lcgm.dim_x and lcgm.train_samples)",
                   lambda n, config: 2 * 4 * config["lcgm"]["train_samples"] * (n + config["lcgm"]["dim_x"])),
}
EPOCH_LIMIT = 100_000  # far beyond any paper's recipe: a larger number is a typo, not an experiment
# Time of one training job on this CPU, from work counted in the config and the trainer's measured
# rate (docs/benchmarks.md): two-tower MLPs ~200,000 pairs/s (A2, A3, C2; C3's smaller nets, with each
# negative counted as a pair, go faster). Paper 3 is bounded by the epoch limit alone: at the small
# CNN's ~18,000 images/s no data set here reaches a month below it, and ResNet-18 on a CPU has no
# measured rate. A job past TIME_LIMIT_S is refused.
TRAINING_PAIRS_PER_SECOND = 200_000
TIME_LIMIT_S = 30 * 24 * 3600


def _scaling_pairs(config: dict) -> float:
    """C3/C4: one job trains every point of a sweep for every seed, about `steps` steps of batch × (m + 1) pairs."""
    scaling, budget = config["consistency"]["scaling"], config["consistency"]["budget"]
    largest_m = max([*scaling["m_sweep"]["ms"], scaling["n_sweep"]["m"], *budget["ms"]])
    points = max(len(scaling["m_sweep"]["ms"]), len(scaling["n_sweep"]["ns"]), len(budget["ms"]))
    return scaling["steps"] * scaling["batch_size"] * (largest_m + 1) * points * len(scaling["seeds"])


TRAINING_TIME = {  # key named in the message: (what, seconds of one job)
    "approximation.epochs": ("epochs of approximation.train_samples pairs",
                             lambda c: c["approximation"]["epochs"] * c["approximation"]["train_samples"] / TRAINING_PAIRS_PER_SECOND),
    "lcgm.epochs": ("epochs of lcgm.train_samples pairs",
                    lambda c: c["lcgm"]["epochs"] * c["lcgm"]["train_samples"] / TRAINING_PAIRS_PER_SECOND),
    "consistency.calibration.epochs": ("epochs of consistency.calibration.samples pairs",
                                       lambda c: c["consistency"]["calibration"]["epochs"] * c["consistency"]["calibration"]["samples"]
                                       / TRAINING_PAIRS_PER_SECOND),
    "consistency.scaling.steps": ("steps for each sweep point and seed of a job",
                                  lambda c: _scaling_pairs(c) / TRAINING_PAIRS_PER_SECOND),
}


def resource_problems(config: dict, memory_bytes: int) -> list[str]:
    """Sizes that cannot run on a machine with ``memory_bytes`` of memory (:data:`MEMORY_MODEL`),
    training jobs that would take more than :data:`TIME_LIMIT_S` on this CPU (:data:`TRAINING_TIME`), and
    epoch counts past :data:`EPOCH_LIMIT`, each naming its key. Checked when a local run starts; a
    cluster run sizes its jobs with the profile's mem_mb, runtime and --set-resources instead."""
    problems = []
    for key, (what, estimate) in MEMORY_MODEL.items():
        value = config_value(config, key)
        size = max(value) if isinstance(value, list) else value
        need = estimate(int(size), config)
        if need > memory_bytes:
            problems.append(f"{key}: {size} {what} need about {need / 2**30:,.1f} GiB in one job, more than this machine's "
                            f"{memory_bytes / 2**30:,.1f} GiB; lower it, or run on a cluster (profiles/slurm, --set-resources mem_mb=...)")
    for key, (what, seconds_of) in TRAINING_TIME.items():
        seconds = seconds_of(config)
        past_epoch_limit = key.endswith("epochs") and config_value(config, key) > EPOCH_LIMIT  # reported below
        if seconds > TIME_LIMIT_S and not past_epoch_limit:
            problems.append(f"{key}: {config_value(config, key)} {what} take about {seconds / 86400:,.0f} days for one job "
                            "on this CPU (measured trainer rates); lower it, or run on GPUs or a cluster")
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
    images of each class for S3's training sets (checked when a run starts, not in a dry run)."""
    view = config.get("supervised_view", {})
    missing = missing_data_message(view.get("data", {})) if view.get("data") else None
    if missing:
        return [missing]
    return balance_problems(view) if view else []


SWEEPS = ("m", "n", "budget")


def sweep_points(sweep: str, consistency: dict) -> list[tuple[int, int]]:
    """The (n, m) of one paper-1 sweep of the config's ``consistency`` block: ``m`` (scaling.m_sweep:
    m varies at fixed n), ``n`` (scaling.n_sweep: n varies at fixed m) or ``budget`` (n = total / m)."""
    scaling, budget = consistency["scaling"], consistency["budget"]
    if sweep == "m":
        return [(int(scaling["m_sweep"]["n"]), int(m)) for m in sorted(scaling["m_sweep"]["ms"])]
    if sweep == "n":
        return [(int(n), int(scaling["n_sweep"]["m"])) for n in sorted(scaling["n_sweep"]["ns"])]
    if sweep == "budget":
        total = int(budget["total"])
        if any(total % int(m) for m in budget["ms"]):
            raise ValueError(f"consistency.budget.ms: every m must divide consistency.budget.total = {total}, got {budget['ms']}")
        return [(total // int(m), int(m)) for m in sorted(budget["ms"])]
    raise ValueError(f"unknown sweep {sweep!r}; expected one of {', '.join(SWEEPS)}")


def sweep_owner(point: tuple[int, int], consistency: dict) -> str:
    """The sweep whose job trains ``point`` = (n, m): the first of SWEEPS (m, n, budget) that lists it. A point two
    sweeps share (the m sweep's n with the n sweep's m, a budget split on the n sweep) is trained once, with the
    same seeds and model, so its rows are those either job would write."""
    for sweep in SWEEPS:
        if tuple(point) in sweep_points(sweep, consistency):
            return sweep
    raise ValueError(f"no sweep of the consistency block lists (n, m) = {tuple(point)}")


def sweep_trained_points(sweep: str, consistency: dict) -> list[tuple[int, int]]:
    """The points of ``sweep`` its own job trains (:func:`sweep_owner`): none of an earlier sweep's."""
    return [point for point in sweep_points(sweep, consistency) if sweep_owner(point, consistency) == sweep]


def sweep_sources(sweeps, consistency: dict) -> list[str]:
    """The sweeps (in SWEEPS order) whose run tables hold every point of ``sweeps``."""
    owners = {sweep_owner(point, consistency) for sweep in sweeps for point in sweep_points(sweep, consistency)}
    return [sweep for sweep in SWEEPS if sweep in owners]


def lcgm_sensitivity_dims(lcgm: dict, i: int, j: int) -> list[int]:
    """The D evaluated at point (i, j) of ``lcgm.sensitivity`` (the i-th noise_y, the j-th separation): D = K, and
    ``elbow_dims`` too on the cross through the configured (noise_y, separation)."""
    grid = lcgm["sensitivity"]
    on_cross = grid["noise_y"][i] == lcgm["noise_y"] or grid["separation"][j] == lcgm["separation"]
    return sorted({int(lcgm["classes"]), *(int(d) for d in grid.get("elbow_dims", []) if on_cross)})


def lcgm_sensitivity_reused(lcgm: dict, i: int, j: int) -> list[int]:
    """The D of point (i, j) that A3's own sweep has already trained: at the grid's centre (the configured noise_y
    and separation) the sensitivity model of D with the first seed is A3's model of D with that seed, the same
    data, initialisation and steps, so it is read from there instead of trained twice."""
    grid = lcgm["sensitivity"]
    if grid["noise_y"][i] != lcgm["noise_y"] or grid["separation"][j] != lcgm["separation"]:
        return []
    return [d for d in lcgm_sensitivity_dims(lcgm, i, j) if d in {int(dim) for dim in lcgm["dims"]}]


def lcgm_sensitivity_points(lcgm: dict) -> list[list]:
    """Every model of ``lcgm.sensitivity`` as [noise_y, separation, D], sorted: the exact set its table must hold."""
    grid = lcgm["sensitivity"]
    return sorted([float(grid["noise_y"][i]), float(grid["separation"][j]), d]
                  for i in range(len(grid["noise_y"])) for j in range(len(grid["separation"]))
                  for d in lcgm_sensitivity_dims(lcgm, i, j))


SSL_EXPERIMENTS = ("S1", "S2", "S3", "S4")


def ssl_experiment_specs(experiment: str, view: dict) -> list[tuple[str, str, str, str, str]]:
    """(balance, augmentation, similarity, loss, λ/ν as text) of every paper-3 run of one experiment,
    from the config's ``supervised_view`` block. The reference run (full data, base augmentation,
    cosine, balanced loss with λ/ν = 1, i.e. InfoNCE) is shared by S1, S2 and S4, so it is trained once;
    S1 adds the paper's loss variants (``loss_variants``) at weight 1, and the supervised prototype
    objective (with labels, λ = 1) when listed there."""
    ratio = lambda r: f"{float(r):g}"  # noqa: E731
    if experiment == "S1":
        return ([("full", "base", "cosine", "balanced", ratio(r)) for r in sorted(view["ratios"])]
                + [("full", "base", "cosine", loss, "1") for loss in view.get("loss_variants", [])])
    if experiment == "S2":
        return [("full", "base", s, "balanced", "1") for s in view["similarities"]]
    if experiment == "S3":
        return [("uniform", "base", "cosine", "balanced", "1"), ("long_tailed", "base", "cosine", "balanced", "1")]
    if experiment == "S4":
        return [("full", a, "cosine", "balanced", "1") for a in view["augmentations"]]
    raise ValueError(f"unknown paper-3 experiment {experiment!r}; expected one of {', '.join(SSL_EXPERIMENTS)}")


SEED_LIMIT = 2**32  # every seed is used by NumPy and torch and in seed arithmetic: keep it a 32-bit value


def _walk(value, path=()):
    yield path, value
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _walk(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _walk(item, (*path, index))


def _check_numbers(config: dict) -> list[str]:
    """NaN and ±inf anywhere (YAML's .nan/.inf pass a schema's bounds, since NaN compares false), and
    seeds too large for the generators."""
    problems = []
    for path, value in _walk(config):
        if isinstance(value, float) and not math.isfinite(value):
            problems.append(f"{_key(path)}: must be a finite number, got {value}")
        name = next((part for part in reversed(path) if isinstance(part, str)), "")
        is_seed = name in ("seed", "seeds") or name.endswith("_seed")
        if is_seed and isinstance(value, int) and not isinstance(value, bool) and value >= SEED_LIMIT:
            problems.append(f"{_key(path)}: a seed must be below 2^32 = {SEED_LIMIT}, got {value}")
    return problems


class _UniqueKeyLoader(yaml.SafeLoader):
    """A YAML loader that refuses a key written twice in one mapping (plain YAML keeps the last)."""

    def construct_mapping(self, node, deep=False):
        seen = {}
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            if key in seen:
                raise ConfigError(f"{node.start_mark.name}, line {key_node.start_mark.line + 1}: the key {key!r} is "
                                  f"written twice in one mapping (first on line {seen[key] + 1}); YAML would keep only the last")
            seen[key] = key_node.start_mark.line
        return super().construct_mapping(node, deep=deep)


def read_yaml(path: str | Path):
    """A YAML file as plain data, refusing duplicate keys, syntax errors and tags that are not plain data (such as
    ``!!python/object``: :class:`ConfigError` naming file and line; nothing in the file is ever run)."""
    try:
        with open(path) as handle:
            return yaml.load(handle, Loader=_UniqueKeyLoader)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        where = f"{path}, line {mark.line + 1}, column {mark.column + 1}" if mark else str(path)
        what = " ".join(filter(None, [error.context, error.problem]))
        raise ConfigError(f"{where}: not valid YAML ({what})") from None
    except yaml.YAMLError as error:
        raise ConfigError(f"{path}: not valid YAML ({error})") from None


def read_config_file(path: str | Path) -> dict:
    """A config file: YAML (:func:`read_yaml`) whose top level is a mapping of keys (an empty file is no keys)."""
    data = read_yaml(path)
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}, line 1: a config file is a mapping of keys (e.g. 'tau: 0.5'), this one holds a "
                          f"{type(data).__name__}")
    return data


def validate_config(config: dict, schema_path: str | Path, check_data: bool = True) -> dict:
    """Validate ``config`` in place (filling defaults) and return it; raise :class:`ConfigError`
    listing every offending key otherwise. ``check_data=False`` skips the checks of data on disk (a
    dry run previews the plan of a config whose data are not here yet)."""
    schema = yaml.safe_load(Path(schema_path).read_text())
    # The figure names a style override may use are the registry's, not a second list kept by hand.
    overrides = schema["properties"]["figures"]["properties"]["overrides"]
    overrides["propertyNames"] = {"enum": figure_styles()}
    validator = _validator_with_defaults(schema)
    errors = sorted(validator.iter_errors(config), key=lambda e: [str(p) for p in e.absolute_path])
    problems = _check_numbers(config) + [_describe(e) for e in errors]
    if not problems:
        problems = _check_cross_fields(config, check_data)
    if problems:
        raise ConfigError("invalid config:\n  " + "\n  ".join(problems))
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
