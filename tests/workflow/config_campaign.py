"""A bad-config campaign derived from the defaults: every key of config.yaml, mutated the ways a user's file goes wrong.

Each mutation is what a user's ``--configfile`` would hold (the nested keys down to the one changed, merged over
config.yaml as Snakemake merges it), and its outcome is what ``crlrepro check-config`` and a run's start would say:
refused before any job (:class:`ConfigError` from reading or validating, or a problem of
:func:`crlrepro.workflow.preflight.preflight_problems`), or accepted. The mutations follow the value's type, so a key added to
config.yaml joins the campaign by itself:

- an integer: text ("ten"), a fraction, -1, 0, 10^12, null, a list;
- a float: text, -1, 0, 1e308, NaN, +inf, null;
- text: a number, the empty string, an unknown word, null;
- true/false: a word, a number;
- a list: empty, its first item alone, repeated, text items, a bare item instead of the list;
- a mapping: a number instead of it, an unknown key in it;
- the top level: an unknown key, a misspelt key.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass

import yaml

from crlrepro.workflow.config import key_name  # a dotted key as every config message names it

ROOT_MEMORY = 24 * 2**30  # the machine a campaign is judged on: this project's 2-core, 24 GiB machine


@dataclass(frozen=True)
class Mutation:
    key: str  # the dotted key changed (``lcgm.spectrum.samples``; list items as ``seeds[0]``)
    what: str  # the kind of change, e.g. "int:huge"
    file: dict  # the config file a user would write: only the keys down to the changed one

    @property
    def id(self) -> str:
        return f"{self.key}={self.what}"

    def text(self) -> str:
        return yaml.safe_dump(self.file, sort_keys=False)


def _nest(defaults: dict, path, value) -> dict:
    """The smallest config file that sets ``path`` to ``value``: its mapping keys nested, a list given whole."""
    top = path[0]
    if len(path) == 1:
        return {top: value}
    child = defaults[top]
    if isinstance(child, list):  # a list is replaced whole by a config file: give it whole, one item changed
        items = copy.deepcopy(child)
        index, *rest = path[1:]
        items[index] = value if not rest else _set(items[index], rest, value)
        return {top: items}
    return {top: _nest(child, path[1:], value)}


def _set(node, path, value):
    node = copy.deepcopy(node)
    target = node
    for part in path[:-1]:
        target = target[part]
    target[path[-1]] = value
    return node


def _scalar_mutations(value) -> list[tuple[str, object]]:
    if isinstance(value, bool):
        return [("bool:word", "maybe"), ("bool:number", 2)]
    if isinstance(value, int):
        return [
            ("int:text", "ten"),
            ("int:fraction", value + 0.5),
            ("int:negative", -1),
            ("int:zero", 0),
            ("int:huge", 10**12),
            ("int:null", None),
            ("int:list", [value]),
        ]
    if isinstance(value, float):
        return [
            ("float:text", "fast"),
            ("float:negative", -1.0),
            ("float:zero", 0.0),
            ("float:huge", 1e308),
            ("float:nan", math.nan),
            ("float:inf", math.inf),
            ("float:null", None),
        ]
    if isinstance(value, str):
        return [("str:number", 7), ("str:empty", ""), ("str:unknown", "no-such-value"), ("str:null", None)]
    return []


def mutations(defaults: dict) -> list[Mutation]:
    """Every mutation of every key of ``defaults`` (config.yaml as read), in a fixed order."""
    out: list[Mutation] = [Mutation("<top level>", "unknown-key", {"unknown_key": 1})]
    out += [
        Mutation("<top level>", "misspelt", {key[:-1] + key[-1] * 2 if len(key) > 1 else key + "x": defaults[key]})
        for key in defaults
    ]

    def walk(node, path):
        if isinstance(node, dict):
            if path:
                out.append(Mutation(key_name(path), "mapping:number", _nest(defaults, path, 5)))
                out.append(
                    Mutation(
                        key_name(path), "mapping:unknown-key", _nest(defaults, path, {**copy.deepcopy(node), "unknown_key": 1})
                    )
                )
            for key, item in node.items():
                walk(item, (*path, key))
        elif isinstance(node, list):
            key = key_name(path)
            first = node[0] if node else 1
            out.extend(
                Mutation(key, what, _nest(defaults, path, value))
                for what, value in (
                    ("list:empty", []),
                    ("list:one", node[:1]),
                    ("list:repeated", node + node),
                    ("list:text", ["x"] * max(len(node), 1)),
                    ("list:bare", copy.deepcopy(first)),
                )
            )
            if node and not isinstance(first, (list, dict)):  # the first item's own mutations
                out.extend(
                    Mutation(key_name((*path, 0)), what, _nest(defaults, (*path, 0), value))
                    for what, value in _scalar_mutations(first)
                )
            elif node:
                walk(first, (*path, 0))
        else:
            out.extend(Mutation(key_name(path), what, _nest(defaults, path, value)) for what, value in _scalar_mutations(node))

    walk(defaults, ())
    return out


_DEFAULTS: dict = {}


def _defaults(root) -> dict:
    from crlrepro.workflow.config import read_config_file

    if root not in _DEFAULTS:
        _DEFAULTS[root] = read_config_file(root / "config.yaml")
    return _DEFAULTS[root]


def outcome(mutation: Mutation, root, memory_bytes: int = ROOT_MEMORY) -> str | None:
    """None where ``mutation`` is accepted; else the message that refuses it before any job, as a run's start and
    ``crlrepro check-config`` give it (:func:`crlrepro.workflow.preflight.start_refusal`)."""
    from snakemake.utils import update_config

    from crlrepro.workflow.preflight import start_refusal

    config = copy.deepcopy(_defaults(root))
    update_config(config, copy.deepcopy(mutation.file))
    return start_refusal(config, root, memory_bytes=memory_bytes) or None


def combined_files(accepted: list[Mutation], base: dict) -> list[dict]:
    """The accepted mutations merged into as few config files over ``base`` (e.g. the smoke scale's) as can hold
    them: a mutation goes into the first file whose keys it does not touch, so each file runs many at once."""
    from snakemake.utils import update_config

    files: list[tuple[set, dict]] = []
    for mutation in accepted:
        top = _dotted_keys(mutation.file)
        for keys, content in files:
            if not keys & top:
                keys |= top
                update_config(content, copy.deepcopy(mutation.file))
                break
        else:
            files.append((set(top), copy.deepcopy(base)))
            update_config(files[-1][1], copy.deepcopy(mutation.file))
    return [content for _, content in files]


def _dotted_keys(node, prefix="") -> set:
    if not isinstance(node, dict):
        return {prefix}
    return set().union(*(_dotted_keys(v, f"{prefix}.{k}" if prefix else k) for k, v in node.items()))


if __name__ == "__main__":
    # Write the accepted mutations, merged over the smoke scale, as config files to run through the whole pipeline:
    #   python tests/workflow/config_campaign.py OUTDIR
    # then, for each: snakemake --cores all --configfile OUTDIR/accepted<i>.yaml
    import sys
    from pathlib import Path

    from test_config_campaign import ACCEPTED

    root = Path(__file__).resolve().parents[2]
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    chosen = [m for m in mutations(_defaults(root)) if m.id in ACCEPTED]
    smoke = yaml.safe_load((root / "configs" / "smoke.yaml").read_text())
    for i, content in enumerate(combined_files(chosen, smoke)):
        content["results"] = f"results/accepted{i}"
        (out / f"accepted{i}.yaml").write_text(yaml.safe_dump(content, sort_keys=False))
        print(out / f"accepted{i}.yaml")
