"""A3 (paper 2, Sec. 6 and Prop. 5.6): probes of the LCGM two-tower model, the elbow at D = K and the operator's rank.

The study's entry (its experiments and claims), its cost model and the keys its rules read; its claims builders are
in ``claims.py``, its figure in ``figure.py``, its rules in ``workflow/rules/lcgm.smk``.
"""

from __future__ import annotations

from crlrepro.claims.spec import OPTIMISER, RECIPE, ClaimSpec, Derived, Experiment, Study, diagnostic
from crlrepro.runtime.costs import FLOPS, Cost, count, largest, two_tower_bytes, two_tower_rate
from crlrepro.runtime.costs import config_value as at

__all__ = [
    "R2_SETTING",
    "MODEL",
    "TRAINING",
    "RULE_KEYS",
    "COSTS",
    "lcgm_range_dims",
    "lcgm_sensitivity_dims",
    "lcgm_sensitivity_points",
    "lcgm_sensitivity_reused",
    "NOT_SIZES",
    "STUDY",
]


def lcgm_range_dims(lcgm: dict) -> list[int]:
    """The D trained at each point of the declared ranges (train_unreported_ranges): A3's whole sweep ``lcgm.dims``
    (the R² rows at D = K and the elbow), or D = K alone with ``lcgm.range_sweep`` false (the R² rows only: the elbow
    then has no sweep at those points, and its row says so)."""
    return [int(d) for d in lcgm["dims"]] if lcgm["range_sweep"] else [int(lcgm["classes"])]


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
    return sorted(
        [float(grid["noise_y"][i]), float(grid["separation"][j]), d]
        for i in range(len(grid["noise_y"]))
        for j in range(len(grid["separation"]))
        for d in lcgm_sensitivity_dims(lcgm, i, j)
    )


def _lcgm_pairs_bytes(config: dict) -> float:
    """A3's training pairs: float64 x, y, z beside their float32 tensors, and the epoch's permutation."""
    lcgm = config["lcgm"]
    return 12.0 * lcgm["train_samples"] * (lcgm["dim_x"] + lcgm["dim_y"]) + 16.0 * lcgm["train_samples"]


def _spectrum_seconds(config: dict) -> float:
    """A3's Nyström spectrum: about three n² draws per repeat and two per noise factor."""
    spectrum = config["lcgm"]["spectrum"]
    return 2.6e-7 * spectrum["samples"] ** 2 * (3 * spectrum["repeats"] + 2 * len(spectrum["noise_factors"]))


COSTS = (
    Cost(("lcgm.dim_x", "lcgm.dim_y", "lcgm.train_samples"), "dimensions of x", memory=_lcgm_pairs_bytes),
    Cost(("lcgm.dim_y", "lcgm.dim_x", "lcgm.train_samples"), "dimensions of y", memory=_lcgm_pairs_bytes),
    Cost(
        ("lcgm.epochs", "lcgm.train_samples", "lcgm.dims", "lcgm.sensitivity.elbow_dims", "training.hidden", "training.layers"),
        "epochs of lcgm.train_samples pairs, for every D of a job",
        seconds=lambda c: (
            max(
                count(c["lcgm"]["dims"]),
                len(c["lcgm"]["sensitivity"]["separation"]) * (1 + count(c["lcgm"]["sensitivity"].get("elbow_dims", []))),
            )
            * at(c, "lcgm.epochs")
            * at(c, "lcgm.train_samples")
            / two_tower_rate(c)
        ),
    ),
    Cost(
        ("lcgm.dims", "lcgm.sensitivity.elbow_dims"),
        "dimensions D of the LCGM towers",
        memory=lambda c: two_tower_bytes(
            c,
            max(largest(c["lcgm"]["dims"]), largest(c["lcgm"]["sensitivity"].get("elbow_dims", []))),
            c["training"]["batch_size"],
        ),
    ),
    Cost(
        ("lcgm.test_samples",),
        "held-out pairs (a t × t score matrix)",
        memory=lambda c: 50.0 * at(c, "lcgm.test_samples") ** 2,
        seconds=lambda c: 50.0 * at(c, "lcgm.test_samples") ** 2 * at(c, "lcgm.classes") * (count(c["lcgm"]["dims"]) + 1) / FLOPS,
    ),
    Cost(
        ("lcgm.spectrum.samples", "lcgm.classes"),
        "Nyström samples (an n × n kernel)",
        memory=lambda c: (
            18.0 * at(c, "lcgm.spectrum.samples") ** 2 + 24.0 * at(c, "lcgm.spectrum.samples") * (4 * at(c, "lcgm.classes") + 16)
        ),
        seconds=_spectrum_seconds,
    ),
    Cost(("lcgm.spectrum.repeats", "lcgm.spectrum.samples"), "repeated Nyström draws", seconds=_spectrum_seconds),
    Cost(
        ("lcgm.classes", "lcgm.spectrum.samples"),
        "latent classes",
        memory=lambda c: (
            24.0 * at(c, "lcgm.spectrum.samples") * (4 * at(c, "lcgm.classes") + 16)
            + 8.0 * at(c, "lcgm.classes") * (at(c, "lcgm.dim_x") + at(c, "lcgm.dim_y") + at(c, "lcgm.test_samples"))
        ),
    ),
)


# Integer keys that size no array or loop of their own, and why (every integer key of the schema is in a cost or here).
NOT_SIZES = {
    "lcgm.mean_seed": "a seed",
    "lcgm.spectrum.seed": "a seed",
}


# The LCGM itself (its classes, views, noise and means): what LatentClassModel.from_config reads.
MODEL = ("classes", "dim_x", "dim_y", "noise_x", "noise_y", "separation", "mean_seed")
# paper 2's recipe, and the stack size (A3's precision is lcgm.precision)
TRAINING = ("training", ("batch_size", "learning_rate", "weight_decay", "hidden", "layers", "compile", "stack"))
# The config keys each rule's computation reads (crlrepro.claims.spec.Study.params): the rule's params, so that changing
# a key reruns exactly the rules that read it. A string is one key; (block, names) is those keys of a block.
RULE_KEYS = {
    "lcgm_train": {
        "lcgm": ("lcgm", (*MODEL, "train_samples", "epochs", "precision")),
        "dims": "lcgm.dims",
        "tau": "tau",
        "training": TRAINING,
        "device": "device",
    },
    "lcgm_sensitivity_train": {
        "seed": Derived(("seeds",), lambda c: c["seeds"][0]),  # the grid trains the first seed
        "lcgm": ("lcgm", (*MODEL, "train_samples", "epochs", "precision")),
        "sensitivity": ("lcgm.sensitivity", ("noise_y", "separation")),
        "tau": "tau",
        "training": TRAINING,
        "device": "device",
    },
    "lcgm_table": {"lcgm": ("lcgm", (*MODEL, "test_samples", "elbow_tolerance")), "tau": "tau"},
    "lcgm_spectrum": {
        "lcgm": ("lcgm", MODEL),
        "spectrum": ("lcgm.spectrum", ("samples", "repeats", "rtol", "z", "noise_factors", "seed")),
    },
    "lcgm_sensitivity_table": {
        "points": Derived(
            ("lcgm.sensitivity", "lcgm.classes", "lcgm.noise_y", "lcgm.separation"), lambda c: lcgm_sensitivity_points(c["lcgm"])
        ),
        "lcgm": ("lcgm", (*MODEL, "test_samples", "elbow_tolerance")),
        "tau": "tau",
    },
    "figure_lcgm": {},
    "claims_a3": {},
}
# A range point of the rule for unreported settings (train_unreported_ranges): A3's whole D sweep for every seed (the
# value rows' models: R² at D = K and the elbow; D = K alone with lcgm.range_sweep false), trained and evaluated as
# A3's with one open key set to another of its declared values (the rules' params are these keys read from that
# point's config).
RULE_KEYS["lcgm_range_train"] = {
    "lcgm": ("lcgm", (*MODEL, "train_samples", "epochs", "precision")),
    "dims": Derived(("lcgm.dims", "lcgm.range_sweep", "lcgm.classes"), lambda c: lcgm_range_dims(c["lcgm"])),
    "seeds": "seeds",
    "tau": "tau",
    "training": TRAINING,
    "device": "device",
}
RULE_KEYS["lcgm_range_table"] = {**RULE_KEYS["lcgm_table"], "sweep": "lcgm.range_sweep"}


# The R² rows' comparability: the keys the paper fixes, then those it leaves unreported.
R2_SETTING = (
    ("tau", "lcgm.classes", "lcgm.dim_x", "lcgm.dim_y", "lcgm.epochs", *RECIPE),
    ("lcgm.noise_x", "lcgm.noise_y", "lcgm.separation", "lcgm.train_samples", *OPTIMISER),
)

STUDY = Study(
    "lcgm",
    (
        Experiment(
            "A3",
            2,
            "Sec. 6, LCGM findings (Prop. 5.6)",
            "probes of the LCGM two-tower model and the elbow at D = K",
            # (+ lcgm_sensitivity_train_ny<i>, per row)
            ("lcgm_train", "lcgm_table", "lcgm_range_train", "lcgm_range_table", "lcgm_spectrum", "lcgm_sensitivity_table"),
            (
                "approximation/lcgm_probe.csv",
                "approximation/lcgm_elbow.json",
                "approximation/lcgm_spectrum.csv",
                "approximation/lcgm_rank.json",
                "approximation/lcgm_sensitivity.csv",
                "approximation/lcgm_sensitivity_elbow.csv",
            ),
            "claims_a3",
            (
                ClaimSpec(
                    "r2_f",
                    "probe R² of f(x) → p(z|x) at D = K",
                    "value",
                    "r2_f",
                    *R2_SETTING,
                ),
                ClaimSpec(
                    "r2_g",
                    "probe R² of g(y) → log p(z|y)/π_k at D = K",
                    "value",
                    "r2_g",
                    *R2_SETTING,
                ),
                # Sec. 6 as the sentence reads: f recovers span{p(z=k|x)}, g recovers span{log p(z=k|y)/π_k}; one-sided,
                # at every trained seed (the value rows above test the two R² two-sided).
                ClaimSpec(
                    "r2_f_recovers",
                    "f recovers span{p(z=k|x)} (Sec. 6): at every seed, 1 − R² of the probe f(x) → p(z|x) at D = K is at "
                    "most the paper's 1 − 0.97 plus its rounding",
                    "bound",
                    "r2_f",
                    *R2_SETTING,
                ),
                ClaimSpec(
                    "r2_g_recovers",
                    "g recovers span{log p(z=k|y)/π_k} (Sec. 6): at every seed, 1 − R² of the probe g(y) → log p(z|y)/π_k "
                    "at D = K is at most the paper's 1 − 0.93 plus its rounding",
                    "bound",
                    "r2_g",
                    *R2_SETTING,
                ),
                diagnostic(
                    ClaimSpec("r2_order", "R² of f above R² of g at D = K (the two values' order)", "direction"),
                    "the summary states no order between f's and g's recovery, only their two values (tested by the rows above)",
                ),
                ClaimSpec(
                    "elbow",
                    "the elbow of the D sweep lies at D = K (the operator's rank)",
                    "value",
                    "elbow",
                    R2_SETTING[0],  # the same models as the R² rows: the keys they depend on may move the elbow too,
                    R2_SETTING[1],  # fixed (their training: epochs, optimiser, batch) and open alike
                ),
                diagnostic(
                    ClaimSpec(
                        "rank_k",
                        "Prop. 5.6: the PMI operator has rank K, seen in its own spectrum (held-out Monte-Carlo "
                        "Nyström: eigenvalues of T*T above a floor)",
                        "value",
                    ),
                    "checks our LCGM simulator's operator (its rank is K by construction), not a measurement of the paper's",
                ),
            ),
            figure="lcgm",
            figure_rule="figure_lcgm",
            style="lcgm",
            caption="lcgm",
            seeds="seeds",
        ),
    ),
    costs=COSTS,
    not_sizes=NOT_SIZES,
    rule_keys=RULE_KEYS,
)
