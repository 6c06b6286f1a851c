"""Change every leaf key of a scale's config, one at a time, and record which rules' params (and which rules' job
files) the loaded workflow then differs in: the rules that read the key. Run by tests/workflow/test_rule_conventions.py
in a subprocess of its own (loading a workflow changes sys.path and the environment):

    python tests/workflow/key_sweep.py configs/smoke.yaml   (from a checkout; prints one JSON object)

A key's new value is the first of a few plausible changes that the config's validation accepts (another number, the
other boolean, another allowed word, a list with one item changed, dropped or added); a key none of them passes is
reported with no value ("unchanged"), so the caller can name it."""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path

from snakemake.api import SnakemakeApi
from snakemake.settings.types import ConfigSettings, OutputSettings, ResourceSettings
from snakemake.utils import update_config

sys.path.insert(0, str(Path("src").resolve()))

from crlrepro.runtime.yamlfile import read_yaml  # noqa: E402
from crlrepro.workflow.config import ConfigError, read_schema, validate_config  # noqa: E402

SCHEMA = Path("workflow/schemas/config.schema.yaml")


def leaves(node, path=()):
    """Every leaf of a config: (path, value); a list of scalars is one leaf, a list of lists too."""
    if isinstance(node, dict):
        for key, value in node.items():
            yield from leaves(value, (*path, key))
    else:
        yield path, node


def enum_at(schema: dict, path) -> list:
    node = schema
    for part in path:
        node = node.get("properties", {}).get(part, {})
        while "$ref" in node:
            node = schema["$defs"][node["$ref"].split("/")[-1]]
    items = node.get("items", {})
    return node.get("enum") or items.get("enum") or []


def candidates(value, allowed: list):
    """Plausible other values of a key, each different from ``value``."""
    yield from (c for c in _candidates(value, allowed) if c != value)


def _candidates(value, allowed: list):
    if isinstance(value, bool):
        yield not value
    elif isinstance(value, int):
        yield from (value + 1, value * 2, value - 1)
    elif isinstance(value, float):
        yield from (value * 1.25, value * 0.8, value + 1.0)
    elif isinstance(value, str):
        yield from (a for a in allowed if a != value)
        yield from ("linear_top1", f"{value}_other")
    elif value is None:
        yield from (16, 0.5, "x", 1000, 200)
    elif isinstance(value, list) and value:
        first = value[0]
        if all(isinstance(v, float) for v in value) and abs(sum(value) - 1.0) < 1e-9 and len(value) > 1:
            yield [value[0] + 0.1 * value[-1], *value[1:-1], 0.9 * value[-1]]  # probabilities: mass moved, sum kept
        for changed in candidates(first, allowed):
            yield [changed, *value[1:]]
        if len(value) > 1:
            yield value[:-1]
        if not isinstance(first, list):
            for extra in candidates(value[-1], allowed):
                yield [*value, extra]


def nest(path, value) -> dict:
    out = value
    for part in reversed(path):
        out = {part: out}
    return out


def valid(config: dict) -> bool:
    try:
        validate_config(copy.deepcopy(config), SCHEMA)
    except ConfigError:
        return False
    return True


def _named(item) -> str:
    return f"<function {item.__name__}>" if callable(item) else str(item)


def memoise_workflow_reading() -> dict:
    """Snakemake parses the Snakefile and each rule file, and reads each config file, at every load of the workflow;
    the sweep loads it ~200 times with only the one-key override differing. Both are functions of the file's text
    (parsing, of the rule count it starts from too), so they are cached here by content: a changed file is read anew.
    Returns the hit counts, for the caller to see that the cache was used."""
    import snakemake.common.configfile as configfile
    import snakemake.settings.types as settings_types
    import snakemake.workflow as workflow_module

    hits = {"parse": 0, "config": 0}
    parse, load = workflow_module.parse, configfile.load_configfile
    parsed, loaded = {}, {}

    def text_of(name):
        path = Path(str(name))
        return path.read_bytes() if path.is_file() else None

    def cached_parse(path, workflow, linemap, overwrite_shellcmd=None, rulecount=0):
        name = path.get_path_or_uri(secret_free=True)
        text = text_of(name)
        if text is None:  # not a local file: parsed as Snakemake would
            return parse(path, workflow, linemap=linemap, overwrite_shellcmd=overwrite_shellcmd, rulecount=rulecount)
        key = (name, text, overwrite_shellcmd, rulecount)
        if key in parsed:
            hits["parse"] += 1
        else:
            lines: dict = {}
            code, count = parse(path, workflow, linemap=lines, overwrite_shellcmd=overwrite_shellcmd, rulecount=rulecount)
            parsed[key] = (code, count, lines)
        code, count, lines = parsed[key]
        linemap.update(lines)
        return code, count

    def cached_load(configpath):
        text = text_of(configpath)
        if text is None:
            return load(configpath)
        key = (str(Path(str(configpath)).resolve()), text)
        if key in loaded:
            hits["config"] += 1
        else:
            loaded[key] = load(configpath)
        return copy.deepcopy(loaded[key])  # the workflow updates its config in place

    workflow_module.parse = cached_parse
    configfile.load_configfile = settings_types.load_configfile = cached_load
    return hits


def snapshot(api, configfiles) -> dict:
    workflow = api.workflow(
        resource_settings=ResourceSettings(cores=1),
        snakefile=Path("Snakefile"),
        workdir=Path("."),
        config_settings=ConfigSettings(configfiles=[Path(f) for f in configfiles]),
    )._workflow
    return {
        r.name: {
            "params": json.dumps(
                {k: "<function>" if callable(v) else v for k, v in r.params.items()}, sort_keys=True, default=str
            ),
            # an input function (a job's files named by its wildcards) prints with its address: compared by name
            "files": json.dumps([sorted(map(_named, r.input)), sorted(map(str, r.output))]),
        }
        for r in workflow.rules
    }


def main(scale: str, out_dir: str) -> dict:
    schema = read_schema(SCHEMA)
    base = read_yaml("config.yaml")
    update_config(base, read_yaml(scale))
    report = {}
    hits = memoise_workflow_reading()
    with SnakemakeApi(OutputSettings()) as api:
        reference = snapshot(api, [scale])
        for index, (path, value) in enumerate(leaves(base)):
            key = ".".join(path)
            if key == "results":
                continue
            for new in candidates(value, enum_at(schema, path)):
                config = copy.deepcopy(base)
                update_config(config, nest(path, copy.deepcopy(new)))
                if valid(config):
                    break
            else:
                report[key] = {"value": None}
                continue
            override = Path(out_dir) / f"key{index}.yaml"
            override.write_text(json.dumps(nest(path, new)))  # JSON is YAML
            changed = snapshot(api, [scale, str(override)])
            report[key] = {
                "value": new,
                "params": sorted(r for r in reference if changed.get(r, {}).get("params") != reference[r]["params"]),
                "files": sorted(r for r in reference if changed.get(r, {}).get("files") != reference[r]["files"]),
            }
    print(f"cached: {hits['parse']} parses and {hits['config']} config reads", file=sys.stderr)
    return report


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        print("SWEEP=" + json.dumps(main(sys.argv[1], tmp)))
