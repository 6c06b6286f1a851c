"""The config contract: every bad value stops with a message naming its key."""

import copy
import os

import numpy as np
import pytest
import yaml
from conftest import REPO, SCHEMA
from snakemake.utils import update_config

from crlrepro.runtime.artifacts import config_hash
from crlrepro.runtime.yamlfile import read_yaml
from crlrepro.workflow.config import ConfigError, config_value, load_config, read_schema, schema_files, validate_config


def default_config():
    return yaml.safe_load((REPO / "config.yaml").read_text())


def set_key(config, dotted, value):
    *parents, last = dotted.split(".")
    node = config
    for p in parents:
        node = node[p]
    if value is DELETE:
        del node[last]
    elif isinstance(value, dict) and isinstance(node.get(last), dict):
        update_config(node[last], value)  # a mapping in a --configfile sets some keys of the block, as Snakemake merges
    else:
        node[last] = value
    return config


class _Delete:
    """The marker for a key removed from the config (its repr names it, so test ids are the same in every process)."""

    def __repr__(self) -> str:
        return "DELETE"


DELETE = _Delete()

# (key to change, new value, text the error must contain)
BAD_VALUES = [
    ("train_unreported_ranges", ["A5"], "'A5' is not one of ['A2', 'A3']"),  # a list names experiments with ranges
    ("train_unreported_ranges", "yes", "'yes' is not of type 'boolean'"),
    ("lcgm.range_sweep", "D=K", "lcgm.range_sweep"),
    ("tau", float("nan"), "tau: must be a finite number, got nan"),
    ("gmm.weights", [float("nan"), float("nan")], "gmm.weights[0]: must be a finite number"),
    ("gmm.mean_x", [float("inf"), -1.2], "gmm.mean_x[0]: must be a finite number, got inf"),
    ("consistency.oce.taus", [float("nan")], "consistency.oce.taus[0]: must be a finite number"),
    ("seeds", [0, 2**63], "seeds[1]: a seed must be below 2^32"),
    ("tsybakov.seed", 2**40, "tsybakov.seed: a seed must be below 2^32"),
    ("supervised_view.view_seed", 2**32, "supervised_view.view_seed: a seed must be below 2^32"),
    ("approximation.train_samples", 100, "approximation.train_samples: 100 training samples are fewer than one batch"),
    ("consistency.calibration.samples", 64, "consistency.calibration.samples: 64 training samples are fewer than one batch"),
    ("tau", 0, "tau"),
    ("tau", -0.5, "tau"),
    ("gmm.std_x", [1.0, -1.0], "gmm.std_x[1]"),
    ("gmm.std_y", [0.0, 1.0], "gmm.std_y[0]"),
    ("gmm.weights", [0.6, 0.6], "gmm.weights"),
    ("gmm.weights", [1.5, -0.5], "gmm.weights[1]"),
    ("gmm.mean_x", [1.2, -1.2, 0.0], "gmm.mean_x"),
    ("gmm.std_y", [1.0], "gmm.std_y"),
    ("approximation.dims", [0, 2], "approximation.dims[0]"),
    ("approximation.dims", [1, 2.5], "approximation.dims[1]"),
    ("approximation.dims", [1, 2.5], "approximation.dims[1]"),  # 2.0 is read as 2 (test_faults)
    ("tua", 0.5, "tua"),
    ("gmm.wieghts", [0.5, 0.5], "wieghts"),
    ("tau", "abc", "tau"),
    ("gmm.mean_y", [1.2, "x"], "gmm.mean_y[1]"),
    ("tau", "5e-1", "1.0e-3"),
    ("approximation.convergence_nodes", [50, 100], "approximation.convergence_nodes"),
    ("gmm", DELETE, "gmm"),
    ("lcgm.classes", 1, "lcgm.classes"),
    ("lcgm.noise_y", -1.0, "lcgm.noise_y"),
    ("lcgm.dims", [2, 4, 6], "lcgm.dims"),
    ("lcgm.dims", [7, 8, 9.5], "lcgm.dims[2]"),
    ("seeds", [], "seeds"),
    ("seeds", [0, 1.5], "seeds[1]"),
    ("device", "tpu", "device"),
    ("training.batch_size", 1, "training.batch_size"),
    ("training.learning_rate", 0, "training.learning_rate"),
    ("tsybakov.window", [1.0e-2, 1.0e-3], "tsybakov.window"),
    ("tsybakov.window", [0.0, 1.0e-3], "tsybakov.window[0]"),
    ("tsybakov.samples", 10, "tsybakov.samples"),
    ("tsybakov.exact.t_range", [1.0, 1.0e-9], "tsybakov.exact.t_range: needs t_min < t_max"),
    ("tsybakov.exact.window_starts", [1.0e-3, 1.0e-6], "tsybakov.exact.window_starts"),
    ("tsybakov.exact.tolerance", 0.0, "tsybakov.exact.tolerance"),
    ("consistency.calibration.families.perturbations", ["cubic"], "consistency.calibration.families.perturbations[0]"),
    ("consistency.calibration.tsybakov_small_t", 2.0, "consistency.calibration.tsybakov_small_t"),
    ("consistency.oce.ms", [0, 4], "consistency.oce.ms[0]"),
    ("consistency.oce.taus", [-1.0], "consistency.oce.taus[0]"),
    ("consistency.oracle.convergence_nodes", [100, 200], "consistency.oracle.convergence_nodes"),
    ("consistency.oracle.auc_convergence_nodes", [16, 32], "consistency.oracle.auc_convergence_nodes"),
    ("consistency.deviation.fit_from", 2048, "consistency.deviation.fit_from"),
    ("consistency.gmm.std_y", [1.0, 1.0], "consistency.gmm.std_y"),
    ("consistency.gmm.weights", [0.5, 0.5, 0.5, 0.5], "consistency.gmm.weights"),
    ("consistency.oce.score_bound", 0.0, "consistency.oce.score_bound"),
    ("consistency.oracul", {}, "oracul"),
    ("lcgm.sensitivity.noise_y", [1.0, 2.0, 2.0], "lcgm.sensitivity.noise_y"),
    ("consistency.budget.ms", [1, 3, 16], "consistency.budget.ms[1]"),
    ("consistency.budget.ms", [0, 4, 16], "consistency.budget.ms[0]"),
    ("consistency.scaling.m_sweep.ms", [0, 4], "consistency.scaling.m_sweep.ms[0]"),
    ("consistency.scaling.n_sweep.ns", [64], "consistency.scaling.n_sweep.ns"),
    ("consistency.scaling.n_sweep.second_m", 64, "consistency.scaling.n_sweep.second_m"),
    ("consistency.scaling.n_sweep.second_m", 0, "consistency.scaling.n_sweep.second_m"),
    (
        "consistency.scaling.n_sweep.second_m",
        {"sscrl": 256},
        "consistency.scaling.n_sweep.second_m.sscrl: 256 is the n sweep's own m for sscrl",
    ),
    ("consistency.scaling.n_sweep.m", {"sscrl": 0}, "consistency.scaling.n_sweep.m.sscrl: 0 is less than the minimum of 1"),
    ("consistency.scaling.n_sweep.m", {"scrl": "many"}, "consistency.scaling.n_sweep.m.scrl: 'many' is not of type 'integer'"),
    ("consistency.scaling.m_free_margin", 0.0, "consistency.scaling.m_free_margin"),
    ("unreported_ranges", {"training.learning_rat": [1.0e-3]}, "unreported_ranges.training.learning_rat"),
    ("unreported_ranges", {"training.learning_rate": []}, "unreported_ranges"),
    # a declared value its key could not take, checked against the key's own schema (a bound, a $ref, an integer)
    (
        "unreported_ranges",
        {"training.learning_rate": [1.0e-3, -1.0]},
        "unreported_ranges.training.learning_rate[1]: -1.0 is not a value training.learning_rate can take",
    ),
    ("unreported_ranges", {"lcgm.noise_x": [0.5, 0.0]}, "unreported_ranges.lcgm.noise_x[1]: 0.0 is not a value lcgm.noise_x"),
    (
        "unreported_ranges",
        {"lcgm.train_samples": [100000, 2.5]},
        "unreported_ranges.lcgm.train_samples[1]: 2.5 is not a value lcgm.train_samples can take",
    ),
    ("approximation.polynomial.window", [64, 16], "approximation.polynomial.window"),
    ("consistency.scaling.regimes", ["scrl", "moco"], "consistency.scaling.regimes[1]"),
    ("consistency.scaling.seeds", [0], "consistency.scaling.seeds"),
    ("consistency.scaling.score_bound", 0.0, "consistency.scaling.score_bound"),
    ("consistency.calibration.dims", [1, 2.5], "consistency.calibration.dims[1]"),
    ("supervised_view.similarities", ["cosine", "l1"], "supervised_view.similarities[1]"),
    ("supervised_view.augmentations", ["base", "crop"], "supervised_view.augmentations[1]"),
    ("supervised_view.ratios", [0.0, 1.0], "supervised_view.ratios[0]"),
    ("supervised_view.ratios", [-1.0, 1.0], "supervised_view.ratios[0]"),
    ("supervised_view.ratios", [0.5, 2.0], "supervised_view.ratios"),
    ("supervised_view.similarities", ["dot", "neg_euclidean"], "supervised_view.similarities"),
    ("supervised_view.balance.imbalance_ratio", 0.5, "supervised_view.balance.imbalance_ratio"),
    ("supervised_view.data", {"name": "cifar10", "root": "/nonexistent/cifar"}, "/nonexistent/cifar/cifar-10-batches-py"),
    ("supervised_view.data.name", "imagenet", "supervised_view.data.name"),
    ("supervised_view.encoder", "vit", "supervised_view.encoder"),
]


def test_default_and_scale_configs_are_valid(tmp_path):
    for path in (REPO / "config.yaml",):
        assert load_config(path, SCHEMA)["tau"] == 0.5
    for scale in ("smoke", "paper"):
        merged = default_config()
        update_config(merged, yaml.safe_load((REPO / "configs" / f"{scale}.yaml").read_text()))  # as Snakemake merges
        if scale == "paper":
            # the paper scale reads CIFAR-10 from supervised_view.data.root: without it, a clear error
            merged["supervised_view"]["data"]["root"] = str(tmp_path)
            with pytest.raises(ConfigError, match="supervised_view.data.root"):
                validate_config(copy.deepcopy(merged), SCHEMA)
            (tmp_path / "cifar-10-batches-py").mkdir()
        validate_config(merged, SCHEMA)


def test_a_per_regime_n_sweep_names_the_regime_it_lacks():
    """A later config file may replace one m for all regimes by a mapping (a mapping replaces a number when Snakemake
    merges): a regime it leaves out is named, with what to write."""
    config = default_config()
    config["consistency"]["scaling"]["n_sweep"]["m"] = {"scrl": 64}
    with pytest.raises(ConfigError, match=r"consistency.scaling.n_sweep.m: no m for regime 'sscrl' \(it lists scrl\); give"):
        validate_config(config, SCHEMA)
    config["consistency"]["scaling"]["regimes"] = ["scrl"]  # a mapping need only name the regimes run
    validate_config(config, SCHEMA)
    # one m for every regime, the second the same: said once, not once per regime
    config = default_config()
    config["consistency"]["scaling"]["n_sweep"].update(m=64, second_m=64)
    with pytest.raises(ConfigError) as refused:
        validate_config(config, SCHEMA)
    assert str(refused.value).count("is the n sweep's own m") == 1 and " for scrl" not in str(refused.value)
    # every fault of a per-regime mapping is named, a misspelt regime and a bad value alike
    config = default_config()
    config["consistency"]["scaling"]["n_sweep"]["m"] = {"scrl": 0, "SSCRL": 256}
    with pytest.raises(ConfigError) as refused:
        validate_config(config, SCHEMA)
    assert "('SSCRL' was unexpected)" in str(refused.value) and "n_sweep.m.scrl: 0 is less than the minimum" in str(refused.value)


def test_the_marginal_gain_design_must_read_fresh_seeds():
    """n_sweep.gain's seeds may not be the sweeps' own (consistency.scaling.seeds): each shared seed is named, with
    what to do; a malformed design is refused by the schema, naming the key."""
    config = default_config()
    seeds = config["consistency"]["scaling"]["seeds"]
    config["consistency"]["scaling"]["n_sweep"]["gain"] = {"ns": [128, 256], "seeds": [seeds[-1], 99]}
    with pytest.raises(
        ConfigError, match=rf"n_sweep.gain.seeds: \[{seeds[-1]}\] are also consistency.scaling.seeds; .* other seeds"
    ):
        validate_config(copy.deepcopy(config), SCHEMA)
    config["consistency"]["scaling"]["n_sweep"]["gain"]["seeds"] = [98, 99]
    validate_config(copy.deepcopy(config), SCHEMA)
    config["consistency"]["scaling"]["n_sweep"]["gain"] = {"ns": [128, 256]}
    with pytest.raises(ConfigError, match="n_sweep.gain"):
        validate_config(copy.deepcopy(config), SCHEMA)


def test_a_confirmatory_gamma_must_be_one_not_yet_seen():
    """A1's confirm_gammas test the window and margin chosen on gammas: a γ in both is refused, naming it."""
    config = default_config()
    polynomial = config["approximation"]["polynomial"]
    polynomial["confirm_gammas"] = [2.0, polynomial["gammas"][0]]
    with pytest.raises(ConfigError, match=rf"confirm_gammas: \[{polynomial['gammas'][0]}\] are also .*gammas"):
        validate_config(copy.deepcopy(config), SCHEMA)
    polynomial["confirm_gammas"] = []
    validate_config(copy.deepcopy(config), SCHEMA)


def _schema_objects(node, path=()):
    """(dotted path, schema node) of every object the schema declares properties for."""
    if isinstance(node, dict) and isinstance(node.get("properties"), dict):
        yield path, node
        for name, sub in node["properties"].items():
            yield from _schema_objects(sub, (*path, name))


DERIVED = {"results", "approximation.seeds"}  # set by validate_config from other keys (scale, seeds) when left out


def test_every_default_is_written_once_in_config_yaml():
    """The schema types and bounds; config.yaml alone holds the defaults. Fails if the schema grows a default (a second
    source that a deleted key would silently fall back to), if config.yaml lacks a key the schema declares, or if it
    sets a key the schema does not."""
    raw = [read_yaml(f) for f in schema_files(SCHEMA)]  # the main schema and every study's fragment, as written
    defaults = [".".join(p) for part in raw for p in _walk_keys(part) if p[-1] == "default" and "properties" in p]
    assert not defaults, f"defaults written in the schema too: {defaults}"
    schema = read_schema(SCHEMA)
    config = read_yaml(REPO / "config.yaml")
    for path, node in _schema_objects(schema):
        declared = set(node["properties"])
        dotted = [".".join((*path, name)) for name in declared]
        assert set(node.get("required", [])) == {n for n, d in zip(declared, dotted, strict=True) if d not in DERIVED}, path
        where = config_value(config, ".".join(path)) if path else config
        if node["properties"] and path[-1:] != ("overrides",):
            missing = [d for n, d in zip(declared, dotted, strict=True) if n not in where and d not in DERIVED]
            extra = sorted(set(where) - declared)
            assert not missing and not extra, (path, missing, extra)


def _walk_keys(node, path=()):
    if isinstance(node, dict):
        for key, value in node.items():
            yield (*path, key)
            yield from _walk_keys(value, (*path, key))
    elif isinstance(node, list):
        for item in node:
            yield from _walk_keys(item, path)


@pytest.mark.parametrize(
    "key",
    ["device", "approximation.quadrature_nodes", "supervised_view.seeds", "figures.style.dpi", "lcgm.sensitivity.elbow_dims"],
)
def test_a_deleted_key_is_named_with_where_to_restore_it(key):
    config = set_key(default_config(), key, DELETE)
    with pytest.raises(ConfigError, match=rf"{key}: missing; config.yaml, which every run reads first"):
        validate_config(config, SCHEMA)


def test_every_yaml_file_the_project_owns_reads_with_the_one_loader(tmp_path):
    """config.yaml, the scales, the schema, the papers' values, the profiles, the conda environment and the citation:
    no key written twice, no alias, plain data. The loader refuses a duplicate key, naming the line."""
    owned = [
        REPO / p
        for p in (
            "config.yaml",
            "CITATION.cff",
            "envs/crlrepro.yaml",
            "profiles/default/config.yaml",
            "profiles/slurm/config.yaml",
            "src/crlrepro/claims/paper_values.yaml",
        )
    ]
    owned += [SCHEMA, *sorted((REPO / "configs").glob("*.yaml")), *sorted((REPO / "src/crlrepro/studies").glob("*/schema.yaml"))]
    for path in owned:
        assert read_yaml(path) is not None, path
    twice = tmp_path / "twice.yaml"
    twice.write_text("properties:\n  tau: {type: number}\n  tau: {type: string}\n")
    with pytest.raises(
        ConfigError, match=r"twice.yaml, line 3: the key 'tau' is written twice in one mapping \(first on line 2\)"
    ):
        read_yaml(twice)


@pytest.mark.parametrize("depth", [101, 5000, 30000])
def test_deep_nesting_is_refused_before_it_is_composed(tmp_path, depth):
    """libyaml composes in C, past Python's recursion limit: 30000 nested lists crashed the process, 5000 loaded and then
    broke the copy. The event scan refuses a nesting deeper than 100 levels, naming the file and line; 100 reads."""
    deep = tmp_path / "deep.yaml"
    deep.write_text("a: " + "[" * depth + "]" * depth + "\n")
    with pytest.raises(ConfigError, match=r"deep.yaml, line 1: nested too deeply to be a config \(over 100 levels\)"):
        read_yaml(deep)
    fine = tmp_path / "fine.yaml"
    fine.write_text("[" * 100 + "]" * 100 + "\n")  # exactly 100 levels
    assert read_yaml(fine) is not None


def test_an_integer_of_thousands_of_digits_is_one_line_naming_the_file_and_line(tmp_path):
    """Python's int() refuses over 4300 digits with a ValueError traceback, raised while the YAML is composed."""
    big = tmp_path / "big.yaml"
    big.write_text("tau: 0.5\nseeds: [" + "9" * 5000 + "]\n")
    with pytest.raises(ConfigError, match=r"big.yaml, line 2: an integer of 5000 digits"):
        read_yaml(big)


def test_a_yaml_file_read_again_is_a_copy_and_a_changed_file_is_read_anew(tmp_path):
    """read_yaml keeps what this process read (a workflow start reads the same files many times): each call gets data of
    its own, and a file rewritten in place is read again (its size or its modification time, kept to the nanosecond,
    changed: here the same size and a time 1 ns later)."""
    path = tmp_path / "scale.yaml"
    path.write_text("tau: 0.5\nseeds: [0, 1]\n")
    first = read_yaml(path)
    first["seeds"].append(2)
    assert read_yaml(path) == {"tau": 0.5, "seeds": [0, 1]}
    stat = path.stat()
    path.write_text("tau: 0.7\nseeds: [0, 1]\n")  # same size
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1))
    assert read_yaml(path)["tau"] == 0.7
    path.write_text("tau: 0.7\ntau: 0.8\n")
    with pytest.raises(ConfigError, match="written twice"):
        read_yaml(path)
    with pytest.raises(ConfigError, match="twice"):  # a refusal is not kept: the file is read again, and refused again
        read_yaml(path)
    path.unlink()
    with pytest.raises(ConfigError, match="cannot be read"):
        read_yaml(path)


def test_a2_seeds_default_to_the_top_level_seeds_and_can_be_set_alone():
    config = default_config()
    config["seeds"] = [3, 4]
    validate_config(config, SCHEMA)
    assert config["approximation"]["seeds"] == [3, 4]
    config["approximation"]["seeds"].append(5)  # a list of its own, not the top-level one
    assert config["seeds"] == [3, 4]
    config = default_config()
    config["approximation"]["seeds"] = list(range(10))
    validate_config(config, SCHEMA)
    assert config["approximation"]["seeds"] == list(range(10)) and config["seeds"] == default_config()["seeds"]
    for bad, message in (
        ([0, 1.5], r"approximation.seeds\[1\]"),
        ([0, 0], "approximation.seeds"),
        ([], "approximation.seeds"),
        ([2**40], r"approximation.seeds\[0\]: a seed must be below 2\^32"),
    ):
        config = default_config()
        config["approximation"]["seeds"] = bad
        with pytest.raises(ConfigError, match=message):
            validate_config(config, SCHEMA)


def test_unbalanced_many_component_mixture_is_accepted_as_written_and_builds_that_mixture():
    """Any K, weights, means and spreads: validation keeps the values as written (no default, rounding or reordering
    touches a given key), the mixture built from them is that mixture (its sample moments match Σ w μ and the
    weights' frequencies), and dropping one entry of one list is refused naming that list."""
    from crlrepro.theory.gmm import LatentClassGMM

    config = default_config()
    gmm = {
        "weights": [0.1, 0.2, 0.3, 0.4],
        "mean_x": [0.0, 1.0, 2.0, 3.0],
        "std_x": [0.5, 1.0, 1.5, 2.0],
        "mean_y": [3.0, -1.0, 0.0, 0.5],
        "std_y": [1.0, 1.0, 0.3, 2.0],
    }
    config["gmm"] = copy.deepcopy(gmm)
    validate_config(config, SCHEMA)
    assert config["gmm"] == gmm
    mixture = LatentClassGMM.from_config(config["gmm"])
    x, y, z = mixture.sample(200_000, np.random.default_rng(0))
    w = np.array(gmm["weights"])
    assert np.bincount(z, minlength=4) / len(z) == pytest.approx(w, abs=0.005)
    assert x.mean() == pytest.approx(w @ np.array(gmm["mean_x"]), abs=0.02)
    assert y.mean() == pytest.approx(w @ np.array(gmm["mean_y"]), abs=0.02)
    short = copy.deepcopy(config)
    short["gmm"]["std_y"] = gmm["std_y"][:3]
    with pytest.raises(ConfigError, match=r"gmm\.std_y: has 3 entries but gmm\.weights has 4"):
        validate_config(short, SCHEMA)


@pytest.mark.parametrize("key, value, named", BAD_VALUES, ids=[f"{k}={v!r}" for k, v, _ in BAD_VALUES])
def test_bad_value_is_rejected_naming_the_key(key, value, named):
    config = set_key(default_config(), key, copy.deepcopy(value))
    with pytest.raises(ConfigError) as error:
        validate_config(config, SCHEMA)
    assert named in str(error.value)


def test_config_hash_is_stable_and_sensitive():
    a, b = default_config(), default_config()
    assert config_hash(a) == config_hash(b)
    b["tau"] = 0.25
    assert config_hash(a) != config_hash(b)


def test_a_key_written_twice_in_a_yaml_file_is_an_error(tmp_path):
    from crlrepro.workflow.config import read_yaml

    path = tmp_path / "twice.yaml"
    path.write_text("tau: 0.5\ngmm:\n  weights: [0.5, 0.5]\ntau: 0.4\n")
    with pytest.raises(ConfigError, match="line 4: the key 'tau' is written twice .*first on line 1"):
        read_yaml(path)
    with pytest.raises(ConfigError, match="twice"):
        load_config(path, SCHEMA)
    path.write_text("gmm:\n  weights: [0.5, 0.5]\n  weights: [0.4, 0.6]\n")
    with pytest.raises(ConfigError, match="'weights' is written twice"):
        read_yaml(path)


def test_data_on_disk_is_checked_by_validation_only_where_asked(tmp_path):
    """validate_config(check_data=False) leaves the data to preflight_problems (the Snakefile runs both before any job,
    in a dry run too: tests/workflow/test_faults.py)."""
    from crlrepro.workflow.config import data_problems

    config = set_key(default_config(), "supervised_view.data", {"name": "cifar10", "root": str(tmp_path / "none")})
    validate_config(copy.deepcopy(config), SCHEMA, check_data=False)
    with pytest.raises(ConfigError, match="supervised_view.data.root: no CIFAR-10"):
        validate_config(copy.deepcopy(config), SCHEMA)
    assert data_problems(config) and "download: true" in data_problems(config)[0]
    (tmp_path / "none" / "cifar-10-batches-py").mkdir(parents=True)
    assert data_problems(config) == []


def test_sizes_that_cannot_run_here_are_named_with_what_they_need():
    from crlrepro.workflow.preflight import resource_problems

    config = validate_config(default_config(), SCHEMA)
    assert resource_problems(config, 24 * 2**30) == []
    config["approximation"]["convergence_nodes"] = [100, 30000]
    config["supervised_view"]["epochs"] = 10**6
    problems = resource_problems(config, 24 * 2**30)
    assert len(problems) == 2
    assert problems[0].startswith("approximation.convergence_nodes: 30000 quadrature nodes") and "GiB" in problems[0]
    assert problems[1].startswith("supervised_view.epochs: 1000000 epochs is more than 100,000")
    assert resource_problems(validate_config(default_config(), SCHEMA), 2**20)  # a 1 MiB machine runs nothing
    config = validate_config(default_config(), SCHEMA)
    config["lcgm"]["dim_x"] = 10**6
    assert [p.split(":")[0] for p in resource_problems(config, 24 * 2**30)] == ["lcgm.dim_x", "lcgm.dim_y"]
    config = validate_config(default_config(), SCHEMA)
    config["approximation"]["train_samples"] = 10**9
    config["approximation"]["epochs"] = 10_000  # 10^13 pairs for each of 3 seeds: about 1,736 days at 200,000 pairs/s
    (problem,) = resource_problems(config, 2**40)
    assert problem.startswith(
        "approximation.epochs: 10000 epochs of approximation.train_samples pairs, for every seed (with "
        "approximation.train_samples, approximation.seeds, training.hidden, training.layers) take about 1,736 days"
    )
    assert "for one job on this CPU" in problem
    config = validate_config(default_config(), SCHEMA)
    # the n sweep's job: 10^7 steps × 128 anchors × (1 + 64) pairs at each of its 7 points × 5 seeds: about 169 days
    config["consistency"]["scaling"]["steps"] = 10**7
    (problem,) = resource_problems(config, 2**40)
    assert problem.startswith("consistency.scaling.steps: 10000000 steps for each sweep point") and "about 169 days" in problem


def test_every_integer_key_that_sizes_an_array_or_a_loop_is_bounded_before_any_job():
    """Each integer key of the schema is in a cost of the size model or says why it sizes nothing; a value 10^6 times
    the default's (or 10^9 where the default is 0 or unset) of each size key is refused, naming the key, while the
    shipped configs pass. The campaign's four: lcgm.spectrum.samples 10^6 (7.3 TiB), tsybakov.bootstrap 10^9
    (156 GiB), lcgm.test_samples 10^9 and supervised_view.bias_views 10^8."""
    from crlrepro.studies.registry import COSTS, NOT_SIZES
    from crlrepro.workflow.config import integer_keys
    from crlrepro.workflow.preflight import resource_problems

    schema = read_schema(SCHEMA)
    keys = integer_keys(schema)
    in_costs = {key for cost in COSTS for key in cost.keys}
    assert {"lcgm.spectrum.samples", "tsybakov.bootstrap", "lcgm.test_samples", "supervised_view.bias_views"} <= in_costs
    assert set(keys) == in_costs | set(NOT_SIZES), (
        set(keys) - in_costs - set(NOT_SIZES),
        (in_costs | set(NOT_SIZES)) - set(keys),
    )
    assert not in_costs & {k for k, why in NOT_SIZES.items() if why == "a seed"}
    unbounded = []
    for key in sorted(in_costs):
        config = validate_config(default_config(), SCHEMA)
        if key.startswith("consistency.scaling.n_sweep.gain."):  # the design is null by default: sized where declared
            config["consistency"]["scaling"]["n_sweep"]["gain"] = {"ns": [256, 512], "seeds": [90, 91]}
        value = config_value(config, key)
        if isinstance(value, dict):  # one value per regime (n_sweep.m; its items are keys of their own): the one-m form
            value = max(v for v in value.values() if v is not None)
        huge = lambda v: v * 10**6 if v else 10**9  # noqa: E731
        *parents, last = key.split(".")
        node = config
        for part in parents:
            node = node[part]
        if key in NOT_SIZES:  # seed values: their number is the size
            node[last] = list(range(10**6))
        else:
            node[last] = [huge(v) for v in value] if isinstance(value, list) else huge(value)
        if key == "consistency.budget.ms":  # every m must still divide the budget (n = total / m)
            config["consistency"]["budget"]["total"] *= 10**6
        if key == "supervised_view.views":
            config["supervised_view"]["augment"] = "bank"  # the key sizes the bank only
        if not any(key in problem for problem in resource_problems(config, 24 * 2**30)):
            unbounded.append(key)
    assert unbounded == [], unbounded
    for campaign, value in (
        ("lcgm.spectrum.samples", 10**6),
        ("tsybakov.bootstrap", 10**9),
        ("lcgm.test_samples", 10**9),
        ("supervised_view.bias_views", 10**8),
    ):
        config = set_key(validate_config(default_config(), SCHEMA), campaign, value)
        assert any(
            problem.startswith(f"{campaign}: {value} ") and "GiB in one job" in problem
            for problem in resource_problems(config, 24 * 2**30)
        ), campaign


def test_s3_training_sets_must_fit_in_the_classes_of_the_split():
    from crlrepro.learning.datasets import subset_problems, training_class_counts
    from crlrepro.workflow.config import data_problems

    config = validate_config(default_config(), SCHEMA)
    digits = config["supervised_view"]["data"]
    counts = training_class_counts(digits)
    assert counts.sum() == 1347 and counts.min() >= 130  # 1797 digits, a quarter held out, stratified
    assert data_problems(config) == []
    config["supervised_view"]["balance"]["per_class"] = 100  # long-tailed (ratio 50): 562 images of its largest class
    (problem,) = data_problems(config)
    assert problem.startswith("supervised_view.balance.per_class: 100 per class") and "needs 562 images of the largest" in problem
    assert f"class {counts.argmin()} of the training split has {counts.min()}" in problem  # any class may be the largest
    config["supervised_view"]["balance"] = {"per_class": 20, "imbalance_ratio": 50.0}  # 112: fits the smallest class, 131
    assert data_problems(config) == []
    config["supervised_view"]["balance"] = {"per_class": 24, "imbalance_ratio": 50.0}  # 135 > 131
    assert "needs 135 images" in data_problems(config)[0]
    config["supervised_view"]["balance"] = {"per_class": 140, "imbalance_ratio": 1.0}  # uniform: 140 of each
    assert "needs 140 images of the largest class" in data_problems(config)[0]
    # Between the split-free lower bound (129 for the smallest class) and the split's own count (131), the split
    # decides: 131 fits, 132 does not; the same for the few-label probes and the training subset.
    bound = training_class_counts(digits, at_least=True)
    assert (bound <= counts).all() and bound.min() < counts.min()
    config["supervised_view"]["balance"] = {"per_class": 131, "imbalance_ratio": 1.0}
    assert data_problems(config) == []
    config["supervised_view"]["balance"] = {"per_class": 132, "imbalance_ratio": 1.0}
    assert "needs 132 images of the largest class" in data_problems(config)[0]
    config["supervised_view"]["balance"] = {"per_class": 20, "imbalance_ratio": 50.0}
    config["supervised_view"]["few_labels"] = [1, 131]
    assert data_problems(config) == []
    config["supervised_view"]["few_labels"] = [1, 132]
    (problem,) = data_problems(config)
    assert problem.startswith("supervised_view.few_labels[1]: 132 labelled images per class") and "use at most 131" in problem
    config["supervised_view"]["few_labels"] = [1]
    assert subset_problems({**digits, "train_size": 1310}) == []
    (problem,) = subset_problems({**digits, "train_size": 1320})
    assert "needs 132 images of each class" in problem and "has 131 of its smallest" in problem
    cifar = {"name": "cifar10", "root": "x", "download": True}
    config["supervised_view"]["data"] = cifar
    config["supervised_view"]["balance"] = {"per_class": 700, "imbalance_ratio": 100.0}  # the paper config's
    assert data_problems(config) == []


def test_the_results_folder_is_the_whole_value_and_stays_inside_results(tmp_path):
    """`$` in the schema's pattern also matches before a final newline under re.search: the whole value must match.
    A link in the scale's folder (or the folder itself) that leads outside results/ would put outputs elsewhere."""
    from crlrepro.workflow.preflight import results_location_problems

    for bad in ("results/nl\n", "results/../elsewhere", "results/smoke/", "/tmp/results"):
        with pytest.raises(ConfigError, match="results: .*does not match"):
            validate_config(set_key(default_config(), "results", bad), SCHEMA)
    validate_config(set_key(default_config(), "results", "results/mine"), SCHEMA)
    (tmp_path / "results" / "mine" / "models").mkdir(parents=True)
    (tmp_path / "outside").mkdir()
    assert results_location_problems("results/mine", tmp_path) == []
    (tmp_path / "results" / "mine" / "models" / "lcgm").symlink_to(tmp_path / "outside", target_is_directory=True)
    (problem,) = results_location_problems("results/mine", tmp_path)
    assert problem.startswith(f"results: {tmp_path / 'results/mine/models/lcgm'} is a link to {tmp_path / 'outside'}")
    (tmp_path / "results" / "away").symlink_to(tmp_path / "outside", target_is_directory=True)
    (problem,) = results_location_problems("results/away", tmp_path)
    assert problem.startswith("results: 'results/away' leads to") and "outside results/" in problem
    # results/ itself may be a link (a scratch disk): links inside it that stay inside it are fine.
    scratch = tmp_path / "scratch"
    (scratch / "results" / "mine").mkdir(parents=True)
    (scratch / "checkout").mkdir()
    (scratch / "checkout" / "results").symlink_to(scratch / "results", target_is_directory=True)
    (scratch / "results" / "mine" / "alias").symlink_to(scratch / "results" / "mine", target_is_directory=True)
    assert results_location_problems("results/mine", scratch / "checkout") == []


@pytest.mark.parametrize("value, hint", [("5e-1", True), ("1e-3", True), ("+2", True), ("ten", False), ("abc", False)])
def test_the_yaml_number_hint_is_shown_only_for_numbers_yaml_left_as_text(value, hint):
    with pytest.raises(ConfigError) as error:
        validate_config(set_key(default_config(), "approximation.epochs", value), SCHEMA)
    assert "approximation.epochs:" in str(error.value)
    assert ("YAML reads 1e-3 as text" in str(error.value)) == hint


@pytest.mark.parametrize(
    "text, message",
    [
        ("tau: [0.5\ngmm: {}\n", r"bad\.yaml, line 2, column \d+: not valid YAML"),
        ("- tau\n- 0.5\n", r"bad\.yaml, line 1: a config file is a mapping of keys .* holds a list"),
        (
            "tau: !!python/object/apply:os.system ['touch {marker}']\n",
            r"bad\.yaml, line 1, column \d+: not valid YAML .*python/object",
        ),
        ("tau:\n\t0.5\n", r"bad\.yaml, line 2, column 1: not valid YAML"),
    ],
)
def test_a_config_file_that_is_not_a_mapping_of_plain_data_is_named_with_its_line(tmp_path, text, message):
    from crlrepro.workflow.config import read_config_file

    marker = tmp_path / "ran"
    path = tmp_path / "bad.yaml"
    path.write_text(text.replace("{marker}", str(marker)))
    with pytest.raises(ConfigError, match=message):
        read_config_file(path)
    with pytest.raises(ConfigError, match=message):
        load_config(path, SCHEMA)
    assert not marker.exists()  # the tag was refused, not run


def test_check_config_names_the_file_and_line_and_accepts_a_valid_scale(tmp_path, monkeypatch, capsys):
    """Snakemake reads --configfile before the workflow's code runs and says only "not valid JSON or YAML":
    `crlrepro check-config` names the file and the line."""
    from crlrepro.workflow.cli import main

    monkeypatch.chdir(REPO)
    assert main(["check-config", "configs/smoke.yaml"]) == 0
    assert "valid: config.yaml + configs/smoke.yaml (results in results/smoke/)" in capsys.readouterr().out
    bad = tmp_path / "bad.yaml"
    bad.write_text("tau: 0.5\nlcgm:\n  epochs: [3\n  dims: [2]\n")
    assert main(["check-config", str(bad)]) == 1
    assert f"{bad}, line 4, column 7: not valid YAML" in capsys.readouterr().err
    bad.write_text("lcgm:\n  epochs: ten\n")
    assert main(["check-config", str(bad)]) == 1
    assert "lcgm.epochs: 'ten' is not of type 'integer'" in capsys.readouterr().err
    # and what a run checks before its first job: sizes against this machine (not with --cluster), data, GPU
    bad.write_text("tsybakov: {bootstrap: 1000000000}\n")
    assert main(["check-config", str(bad)]) == 1
    assert "cannot start:\n  tsybakov.bootstrap: 1000000000 bootstrap replicates" in capsys.readouterr().err
    assert main(["check-config", "--cluster", str(bad)]) == 0
    bad.write_text("supervised_view: {data: {name: cifar10, root: no/such/dir}}\n")
    assert main(["check-config", "--cluster", str(bad)]) == 1
    assert "supervised_view.data.root: no CIFAR-10 at no/such/dir" in capsys.readouterr().err


def test_each_study_states_its_keys_in_its_own_schema_and_a_key_declared_twice_is_refused():
    """The composed schema: every study's fragment merged at its blocks (A1's and A2's into one `approximation`); a key
    two fragments both declare is an error naming it."""
    from crlrepro.studies.registry import schema_fragments
    from crlrepro.workflow.config import _merge_fragment

    fragments = {path.parent.name for path in schema_fragments()}
    assert fragments == {
        "gmm_spectrum",
        "gmm_mlp",
        "lcgm",
        "tsybakov",
        "oracles",
        "calibration",
        "scaling",
        "oce",
        "supervised_view",
    }
    approximation = read_schema(SCHEMA)["properties"]["approximation"]["properties"]
    assert {"dims", "convergence_nodes"} <= set(approximation) and {"train_samples", "epochs"} <= set(approximation)
    schema = {"properties": {"block": {"type": "object", "properties": {"a": {"type": "integer"}}}}}
    _merge_fragment(schema, "block", {"properties": {"b": {"type": "number"}}}, "one.yaml")
    assert set(schema["properties"]["block"]["properties"]) == {"a", "b"}
    with pytest.raises(ConfigError, match="two.yaml: the key block.a is declared twice"):
        _merge_fragment(schema, "block", {"properties": {"a": {"type": "number"}}}, "two.yaml")


# --- values that passed validation and then failed in a job or gave a wrong result (issue 70) -------------------------


def smoke_config(change: dict) -> dict:
    """config.yaml with configs/smoke.yaml and then ``change`` merged over it, as Snakemake merges --configfile files."""
    config = default_config()
    update_config(config, yaml.safe_load((REPO / "configs" / "smoke.yaml").read_text()))
    update_config(config, copy.deepcopy(change))
    return config


def refusal_line(change: dict, key: str, tmp_path, monkeypatch, capsys) -> str:
    """The one line that both a run's validation (validate_config, as the Snakefile calls it before any job, in a dry
    run too) and `crlrepro check-config configs/smoke.yaml <file>` refuse ``change`` with: it names ``key``, and
    neither path raises anything but a ConfigError (no traceback)."""
    from crlrepro.workflow.cli import main

    with pytest.raises(ConfigError) as error:
        validate_config(smoke_config(change), SCHEMA, check_data=False)
    lines = [line.strip() for line in str(error.value).splitlines()[1:]]
    assert len(lines) == 1 and lines[0].startswith(f"{key}: "), lines
    path = tmp_path / "change.yaml"
    path.write_text(yaml.safe_dump(change))
    monkeypatch.chdir(REPO)
    assert main(["check-config", "configs/smoke.yaml", str(path)]) == 1
    captured = capsys.readouterr()
    assert "Traceback" not in captured.out + captured.err
    assert lines[0] in captured.err
    return lines[0]


def test_a_knn_k_not_below_the_training_split_is_refused_naming_the_split(tmp_path, monkeypatch, capsys):
    """The k-NN probe votes over the un-augmented training split (after data.train_size; S3's sets train only): at
    k >= n every test image gets the same vote, chance accuracy, which the probe's cap on k hid."""
    line = refusal_line({"supervised_view": {"knn_k": 100000}}, "supervised_view.knn_k", tmp_path, monkeypatch, capsys)
    assert "100000" in line and "1347" in line and "training" in line  # 1797 digits less the held-out quarter
    assert "chance" in line
    validate_config(smoke_config({"supervised_view": {"knn_k": 1346}}), SCHEMA, check_data=False)
    subset = {"supervised_view": {"knn_k": 600, "data": {"train_size": 600}}}
    line = refusal_line(subset, "supervised_view.knn_k", tmp_path, monkeypatch, capsys)
    assert "600" in line and "supervised_view.data.train_size" in line
    subset["supervised_view"]["knn_k"] = 599
    validate_config(smoke_config(subset), SCHEMA, check_data=False)
    fashion = {"supervised_view": {"knn_k": 6000, "data": {"name": "fashion_mnist", "train_size": 6000}}}  # the recipe's data
    with pytest.raises(ConfigError, match=r"supervised_view.knn_k: 6000 is not below the 6000 training images"):
        validate_config(smoke_config(fashion), SCHEMA, check_data=False)
    fashion["supervised_view"]["data"]["train_size"] = None
    validate_config(smoke_config(fashion), SCHEMA, check_data=False)  # 60,000 training images


def test_a_support_width_that_cannot_hold_the_mixture_is_refused_with_its_bound(tmp_path, monkeypatch, capsys):
    """A 1e-9σ support integrates a sliver of the line (tail sum 0.021 against 0.490): each width must leave out at
    most 10^-4 of a component's mass (w >= 3.89), and the widest, the study's reference, must be resolved by the largest
    convergence rule."""
    from statistics import NormalDist

    from crlrepro.workflow.config import SUPPORT_MASS_OUTSIDE

    least = NormalDist().inv_cdf(1 - SUPPORT_MASS_OUTSIDE / 2)
    assert 3.89 < least < 3.9
    line = refusal_line(
        {"approximation": {"support_widths": [1.0e-9]}}, "approximation.support_widths[0]", tmp_path, monkeypatch, capsys
    )
    assert "1e-09" in line and "3.89" in line and "mass" in line
    with pytest.raises(ConfigError, match=r"approximation.support_widths\[1\]: 3.8 standard deviations"):
        validate_config(smoke_config({"approximation": {"support_widths": [14, 3.8]}}), SCHEMA, check_data=False)
    validate_config(smoke_config({"approximation": {"support_widths": [3.9, 14]}}), SCHEMA, check_data=False)
    # the widest support on the smoke's largest rule (400 nodes): 1000σ puts them 5σ apart
    line = refusal_line(
        {"approximation": {"support_widths": [14, 1000.0]}}, "approximation.support_widths[1]", tmp_path, monkeypatch, capsys
    )
    assert "1000" in line and "400 nodes" in line and "reference" in line
    validate_config(smoke_config({"approximation": {"support_widths": [14, 150.0]}}), SCHEMA, check_data=False)


def test_bias_images_must_be_a_stratified_subset_the_test_split_holds(tmp_path, monkeypatch, capsys):
    """The bias images are a stratified subset of the test split (all of it when the split has no more): a count that
    is not a multiple of the 10 classes, or more of a class than the split holds, failed in the image_views job."""
    line = refusal_line({"supervised_view": {"bias_images": 11}}, "supervised_view.bias_images", tmp_path, monkeypatch, capsys)
    assert "11" in line and "multiple of the 10 classes" in line
    # the digits' test split (450 images) holds 43 of class 8: 440 needs 44 of each
    line = refusal_line({"supervised_view": {"bias_images": 440}}, "supervised_view.bias_images", tmp_path, monkeypatch, capsys)
    assert "44" in line and "43" in line and "430" in line
    for fits in (430, 450, 460, 10**5):  # 450 and more: the whole split
        validate_config(smoke_config({"supervised_view": {"bias_images": fits}}), SCHEMA, check_data=False)


def test_the_digits_split_holds_what_the_config_draws_from_it(tmp_path, monkeypatch, capsys):
    """A stratified test subset larger than a class of the test split, or a test fraction that holds out fewer images
    than classes, failed in a job."""
    line = refusal_line(
        {"supervised_view": {"data": {"test_size": 450}}}, "supervised_view.data.test_size", tmp_path, monkeypatch, capsys
    )
    assert "45" in line and "43" in line
    validate_config(smoke_config({"supervised_view": {"data": {"test_size": 430}}}), SCHEMA, check_data=False)
    line = refusal_line(
        {"supervised_view": {"data": {"test_fraction": 1.0e-9}}},
        "supervised_view.data.test_fraction",
        tmp_path,
        monkeypatch,
        capsys,
    )
    assert "1 test image" in line and "10 classes" in line


@pytest.mark.parametrize("key", ["tsybakov.bootstrap", "consistency.scaling.steps", "tau", "seeds"])
def test_an_integer_past_2_53_is_refused_naming_its_key_before_the_cost_model(key, tmp_path, monkeypatch, capsys):
    """A 400-digit integer overflowed float() in the cost model (an OverflowError traceback from check-config and a
    run's start): validation refuses any integer past 2^53 first, naming the key, so neither the checks after it nor
    the costs see it."""
    from crlrepro.workflow.preflight import start_refusal

    huge = 10**399
    value = [huge] if key == "seeds" else huge
    *parents, last = key.split(".")
    change = {last: value}
    for part in reversed(parents):
        change = {part: change}
    shown = f"{key}[0]" if key == "seeds" else key
    line = refusal_line(change, shown, tmp_path, monkeypatch, capsys)
    assert "400 digits" in line and ("2^32" if key == "seeds" else "2^53") in line  # a seed: the seeds' own limit
    message = start_refusal(smoke_config(change), REPO, memory_bytes=24 * 2**30)
    assert message.startswith("invalid config:") and shown in message
    validate_config(smoke_config({"tsybakov": {"bootstrap": 2**53}}), SCHEMA, check_data=False)  # the limit itself


def test_a_batch_that_may_hold_one_class_is_refused_where_the_supervised_prototype_trains(tmp_path, monkeypatch, capsys):
    """The schema's least batch (2) stopped S1's supervised prototype training ("needs at least 2 classes in a batch"):
    at b images from 10 classes a step draws one class with probability about 10^(1−b)."""
    line = refusal_line({"supervised_view": {"batch_size": 2}}, "supervised_view.batch_size", tmp_path, monkeypatch, capsys)
    assert "supervised_prototype" in line and "at least 7" in line
    validate_config(smoke_config({"supervised_view": {"batch_size": 7}}), SCHEMA, check_data=False)
    no_reference = {"supervised_view": {"batch_size": 2, "loss_variants": ["nt_xent", "dcl"]}}
    validate_config(smoke_config(no_reference), SCHEMA, check_data=False)


def test_the_calibration_fit_needs_three_trained_checkpoints(tmp_path, monkeypatch, capsys):
    """C2's exponent fit failed in its job with fewer than 3 trained checkpoints (epochs × dims × seeds)."""
    line = refusal_line(
        {"consistency": {"calibration": {"epochs": 1}}}, "consistency.calibration.epochs", tmp_path, monkeypatch, capsys
    )
    assert "2 trained checkpoints" in line and "3" in line
    validate_config(smoke_config({"consistency": {"calibration": {"epochs": 2}}}), SCHEMA, check_data=False)


def test_a_ratio_must_name_its_runs_as_the_rules_match_them(tmp_path, monkeypatch, capsys):
    """S1's λ/ν name their runs' files f"{r:g}": 1e-300 (or 1e6) printed with an exponent failed the dry run with a
    MissingInputException, and two ratios printed alike would be one run."""
    import re

    from crlrepro.workflow.config import RATIO_WILDCARD

    rules = (REPO / "workflow" / "rules" / "supervised_view.smk").read_text()
    assert f'ratio=r"{RATIO_WILDCARD}"' in rules  # the pattern the check uses is the rules' own
    line = refusal_line(
        {"supervised_view": {"ratios": [1.0e-300, 1.0]}}, "supervised_view.ratios[0]", tmp_path, monkeypatch, capsys
    )
    assert "1e-300" in line and RATIO_WILDCARD in line
    with pytest.raises(ConfigError, match=re.escape("supervised_view.ratios[2]: 1000000.0 names its runs r1e+06")):
        validate_config(smoke_config({"supervised_view": {"ratios": [0.5, 1.0, 1.0e6]}}), SCHEMA, check_data=False)
    with pytest.raises(ConfigError, match=re.escape("supervised_view.ratios[1]: 1.0 names its runs r1, as")):
        validate_config(smoke_config({"supervised_view": {"ratios": [1.0000001, 1.0]}}), SCHEMA, check_data=False)
    validate_config(smoke_config({"supervised_view": {"ratios": [1.0e-4, 1.0, 999999.0]}}), SCHEMA, check_data=False)


def test_a_gap_threshold_below_the_exact_cdfs_measured_range_is_refused(tmp_path, monkeypatch, capsys):
    """t = 1e-300 for C2's small-t exponent ran its job past 10 minutes and 4.6 GB: every threshold the exact gap CDF
    is computed at must be within its measured range, t >= 1e-9 (the default scale's own least t)."""
    line = refusal_line(
        {"consistency": {"calibration": {"tsybakov_small_t": 1.0e-300}}},
        "consistency.calibration.tsybakov_small_t",
        tmp_path,
        monkeypatch,
        capsys,
    )
    assert "1e-300" in line and "1e-09" in line
    with pytest.raises(ConfigError, match=r"tsybakov.exact.t_range\[0\]: 1e-12 is below 1e-09"):
        validate_config(smoke_config({"tsybakov": {"exact": {"t_range": [1.0e-12, 1.0]}}}), SCHEMA, check_data=False)
    validate_config(default_config(), SCHEMA, check_data=False)  # t_range, window_starts and tsybakov_small_t at 1e-9
