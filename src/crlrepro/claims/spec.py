"""What a registered experiment and claim are: the vocabulary every study's entry is written in.

For each experiment: its paper and section, the rules that compute it, its result files, its claims
table, figure and report caption; for each claim: its statement, its kind (see
:mod:`crlrepro.claims.verdicts`), the paper's value (the key in ``paper_values.yaml``), the config keys its
comparability depends on (each must equal the paper's setting) and the keys the paper leaves
unreported. The registry of all studies is :mod:`crlrepro.studies.registry`.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from crlrepro.runtime.costs import config_value

__all__ = [
    "Derived",
    "key_values",
    "spec_keys",
    "ClaimSpec",
    "diagnostic",
    "Experiment",
    "mathematics",
    "out_of_reach",
    "OPTIMISER",
    "Paper",
    "PAPERS",
    "RECIPE",
    "ROLE_WHY",
    "ROLES",
    "Study",
    "unreported_ranges",
    "range_points",
    "trains_ranges",
    "point_name",
    "config_at",
]


RECIPE = ("training.batch_size", "training.hidden", "training.layers")  # paper 2's stated training recipe (A2, A3)
OPTIMISER = ("training.learning_rate", "training.weight_decay")  # AdamW's, not in the summary (nor the cosine decay)


@dataclass(frozen=True)
class Paper:
    number: int
    title: str
    venue: str


PAPERS = {
    2: Paper(2, "Approximation in Contrastive Representation Learning", "NeurIPS 2026"),
    1: Paper(1, "Statistical Consistency and Generalization of Contrastive Representation Learning", "ICML 2026"),
    3: Paper(3, "Understanding Self-supervised Contrastive Learning through Supervised Objectives", "TMLR 2025"),
}


# How a row is posed. Only ``claim`` rows are counted in the headline; the others are shown apart, each with its why:
#   claim         tests a statement the paper makes (or a theorem's inequality on measured quantities), and can fail here;
#   out of reach  the paper's number comes from data or a scale no machine here has (ImageNet, CLIP training steps):
#                 its why says what would bring it into reach (it becomes a claim at a scale that reaches it);
#   mathematics   an identity, or the paper's own arithmetic, checked on our numbers: verified, never "reproduced";
#   diagnostic    our own checks, context numbers, checks of our simulator, rows the paper gives no number or statement
#                 for, and rows that cannot fail in their setting.
ROLES = ("claim", "out of reach", "mathematics", "diagnostic")
ROLE_WHY = {
    "out of reach": "what would bring it into reach",
    "mathematics": "what it checks",
    "diagnostic": "why a diagnostic",
}


@dataclass(frozen=True)
class ClaimSpec:
    """One registered row (or family of rows) of a claims table: its ``role`` (:data:`ROLES`) and ``why`` (required for
    every role but ``claim``: the summary shows it). ``rows`` poses some of its rows otherwise, as
    ``(detail, role, why)`` with detail the claim id's part after the key (``D1-D2`` of ``A2.<key>.D1-D2``): e.g. the
    steps of a family that cannot fail here are diagnostics while its last step stays a claim. Only claims are counted
    in the headline, the per-paper counts and the report captions."""

    key: str
    statement: str
    kind: str
    paper_value: str | None = None
    depends_on: tuple[str, ...] = ()
    unreported: tuple[str, ...] = ()
    role: str = "claim"
    why: str = ""
    rows: tuple[tuple[str, str, str], ...] = ()

    def __post_init__(self):
        for role, why in ((self.role, self.why), *((r, w) for _, r, w in self.rows)):
            if role not in ROLES:
                raise ValueError(f"claim {self.key!r}: role {role!r} is not one of {ROLES}")
            if bool(why) != (role != "claim"):
                raise ValueError(f"claim {self.key!r}: a {role} row {'needs' if role != 'claim' else 'has no'} why")

    def posed(self, detail: str = "") -> tuple[str, str]:
        """(role, why) of the row with this detail (the claim id after ``<experiment>.<key>.``)."""
        for name, role, why in self.rows:
            if name == detail:
                return role, why
        return self.role, self.why


def diagnostic(spec: ClaimSpec, why: str) -> ClaimSpec:
    """``spec`` as a diagnostic, with the reason it is not a test of the paper."""
    return replace(spec, role="diagnostic", why=why)


def out_of_reach(spec: ClaimSpec, reach: str) -> ClaimSpec:
    """``spec`` as out of reach here, with what would bring it into reach (the data set, the scale, a GPU)."""
    return replace(spec, role="out of reach", why=reach)


def mathematics(spec: ClaimSpec, why: str) -> ClaimSpec:
    """``spec`` as mathematics checked (an identity, or the paper's own arithmetic), with what it checks."""
    return replace(spec, role="mathematics", why=why)


@dataclass(frozen=True)
class Experiment:
    id: str
    paper: int
    section: str
    title: str
    rules: tuple[str, ...]
    tables: tuple[str, ...]
    claims_rule: str
    claims: tuple[ClaimSpec, ...]
    figure: str | None = None
    figure_rule: str | None = None
    style: str | None = None
    caption: str | None = None
    seeds: str | None = None  # the config key listing the seeds its models are trained with (None: none are)

    @property
    def claims_table(self) -> str:
        return f"claims/{self.id}.csv"

    def claim(self, key: str) -> ClaimSpec:
        for spec in self.claims:
            if spec.key == key:
                return spec
        raise KeyError(f"{self.id} has no claim {key!r}; it has {[c.key for c in self.claims]}")


@dataclass(frozen=True)
class Derived:
    """A rule's param computed from config keys (a job grid's points, the largest D): ``compute(config)``, with the
    ``keys`` it reads declared beside it, so that the rule's readers are known without running it."""

    keys: tuple[str, ...]
    compute: Callable[[dict], object]


def key_values(spec, config: dict):
    """The config's values for one entry of a study's ``rule_keys``: a dotted key's value (a copy), ``(block, names)``
    as ``{name: value}`` in the order named, a :class:`Derived` param computed, a mapping of entries as a mapping of
    their values."""
    if isinstance(spec, str):
        return copy.deepcopy(config_value(config, spec))
    if isinstance(spec, Derived):
        return spec.compute(config)
    if isinstance(spec, tuple):
        block, names = spec
        values = config_value(config, block)
        missing = [n for n in names if n not in values]
        if missing:
            raise KeyError(f"the config has no key {block}.{missing[0]!r}")
        return {n: copy.deepcopy(values[n]) for n in names}
    return {name: key_values(sub, config) for name, sub in spec.items()}


def spec_keys(spec) -> list[str]:
    """The dotted keys one entry of ``rule_keys`` reads."""
    if isinstance(spec, str):
        return [spec]
    if isinstance(spec, Derived):
        return list(spec.keys)
    if isinstance(spec, tuple):
        return [f"{spec[0]}.{n}" for n in spec[1]]
    return [key for sub in spec.values() for key in spec_keys(sub)]


@dataclass(frozen=True)
class Study:
    """One study: the experiments it reports (with their claims), and what the workflow needs to know of it. Each
    study lives in one package, crlrepro.studies.<name>: this entry, its cost model and the config keys each of its
    rules reads in ``__init__.py``, its claims builders in ``claims.py``, its figure in ``figure.py``; its rules in
    ``workflow/rules/<name>.smk``."""

    name: str
    experiments: tuple[Experiment, ...]
    costs: tuple = ()
    not_sizes: dict = field(default_factory=dict)
    rule_keys: dict = field(default_factory=dict)

    def params(self, rule: str, config: dict) -> dict:
        """The params of ``rule``: the value of every config key it reads (:data:`rule_keys`), named as its script
        reads them. A key is a dotted string; ``(block, names)`` those keys of one block, as a mapping; a mapping of
        either, a mapping of their values."""
        if rule not in self.rule_keys:
            raise KeyError(f"study {self.name} declares no keys for rule {rule!r}; it declares {sorted(self.rule_keys)}")
        return {name: key_values(spec, config) for name, spec in self.rule_keys[rule].items()}

    def keys_read(self, rule: str) -> set[str]:
        """The dotted config keys ``rule`` reads (a block's keys each by name)."""
        return {key for spec in self.rule_keys[rule].values() for key in spec_keys(spec)}

    def experiment(self, identifier: str) -> Experiment:
        for e in self.experiments:
            if e.id == identifier:
                return e
        raise KeyError(f"study {self.name} has no experiment {identifier!r}; it has {[e.id for e in self.experiments]}")


def unreported_ranges(specs, config: dict) -> dict:
    """For every key that one of ``specs`` (ClaimSpecs) leaves unreported, this config's value and the plausible range
    declared for it in the config's ``unreported_ranges`` ({key: {"configured": value, "range": [values]}}); a key
    with no declared range is left out (the rule then names it: :func:`crlrepro.claims.verdicts.over_unreported_ranges`)."""
    declared = config.get("unreported_ranges", {})
    keys = sorted({key for spec in specs for key in spec.unreported})
    return {key: {"configured": config_value(config, key), "range": list(declared[key])} for key in keys if key in declared}


def range_points(ranges: dict) -> list[tuple[str, object]]:
    """The points of the declared ranges (``ranges``: :func:`unreported_ranges`) that a run trains beside its configured
    one, one key at a time: each open key set to each of its declared values other than the configured one, every
    other key as configured. Interactions between open keys are not covered (their product, 3 × 3 × 4 × 2 = 72
    trainings for A2, is beyond any scale here); a verdict over these points says so."""
    return [(key, value) for key in sorted(ranges) for value in ranges[key]["range"] if value != ranges[key]["configured"]]


def trains_ranges(config: dict, experiment: str) -> bool:
    """Whether a run of ``config`` trains the points of the declared ranges for ``experiment``'s value rows: the config's
    ``train_unreported_ranges`` is true (every such experiment), false (none) or a list of the experiments it trains
    them for (e.g. ``[A3]``: a scale whose budget allows A3's points but not A2's)."""
    value = config.get("train_unreported_ranges", False)
    return experiment in value if isinstance(value, (list, tuple)) else bool(value)


def point_name(key: str, value) -> str:
    """A range point's name in file paths and reasons: ``key=value``, the value as JSON writes it (``0.0003``,
    ``false``, ``1000000``), so that distinct values have distinct names and a name reads back as exactly one point."""
    return f"{key}={json.dumps(value)}"


def config_at(config: dict, key: str, value) -> dict:
    """A copy of ``config`` with the dotted ``key`` set to ``value`` (a range point's config); KeyError naming the key
    if the config has no such key."""
    config_value(config, key)  # the key must exist: a range point sets a key, it never adds one
    copied = copy.deepcopy(config)
    block = copied
    *path, last = key.split(".")
    for part in path:
        block = block[part]
    block[last] = copy.deepcopy(value)
    return copied
