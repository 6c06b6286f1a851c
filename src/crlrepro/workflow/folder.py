"""A scale's results folder belongs to one scale: it records the scale and the effective configuration that made it.

Each scale writes into its own folder, ``results/`` for the default scale and ``results/<scale>/`` for every other
(:func:`crlrepro.workflow.config.scale_folder`; the config key ``results`` is derived from ``scale`` unless a config
sets it). When a run starts,
the workflow writes the run's effective configuration (config.yaml with every ``--configfile`` and ``--config`` merged
over it, derived keys filled in) into the folder as ``effective_config.yaml`` (:func:`record_effective_config`). That file
is a complete config file, so

* every command the pipeline advises (a rebuild after a damaged artifact, ``crlrepro verify``) names it as its one
  ``--configfile`` and rebuilds exactly this scale, whatever flags the run was started with;
* a run whose scale is not the folder's is refused before any job, naming both (:func:`folder_problems`), and
  publishing refuses results made by another configuration than the run's, or a publication of the same scale made
  from another configuration (:func:`publish_problems`).
"""

from __future__ import annotations

from pathlib import Path

import yaml

from crlrepro.runtime.artifacts import ArtifactError, config_hash, write_text
from crlrepro.workflow.config import ConfigError, read_config_file, scale_folder

__all__ = [
    "differing_keys",
    "EFFECTIVE_CONFIG",
    "effective_config_path",
    "folder_problems",
    "publish_problems",
    "read_effective_config",
    "PLACE_KEYS",
    "record_effective_config",
    "recorded_scales",
    "scale_binding_problems",
    "SHIPPED_SCALES",
    "shipped_config",
]

EFFECTIVE_CONFIG = "effective_config.yaml"
_HEADER = (
    "# The effective configuration of the last run that wrote into this folder (config.yaml with every --configfile\n"
    "# and --config merged over it), written by the workflow when the run started. A complete config file:\n"
    "#   snakemake --cores all --configfile {path}\n"
    "# reruns this same scale. Do not edit; a run with another config rewrites it.\n"
)


def effective_config_path(results: str | Path) -> Path:
    return Path(results) / EFFECTIVE_CONFIG


def record_effective_config(config: dict, results: str | Path) -> Path:
    """Write ``config`` (validated, derived keys filled in) as the folder's effective configuration, atomically."""
    path = effective_config_path(results)
    # In the config's own key order: Snakemake compares a rule's params by their text, so a reordered mapping would
    # read as changed params and rerun the jobs.
    text = yaml.safe_dump(config, sort_keys=False, default_flow_style=None, width=120)
    write_text(_HEADER.format(path=path) + text, path)
    return path


def read_effective_config(results: str | Path) -> dict | None:
    """The effective configuration recorded in ``results`` (None where no run has recorded one); ArtifactError
    naming the file when it is not a config mapping."""
    path = effective_config_path(results)
    if not path.is_file():
        return None
    try:
        record = read_config_file(path)
    except ConfigError as error:
        raise ArtifactError(f"{error}; it is written when a run starts: remove it (rm {path}) and run the scale again") from None
    if not isinstance(record.get("scale"), str):
        raise ArtifactError(
            f"{path}: records no scale; it is written when a run starts: remove it (rm {path}) and run the scale again"
        )
    return record


def differing_keys(a: dict, b: dict, prefix: str = "") -> list[str]:
    """The dotted keys whose values differ between two configs (a key present in one only counts)."""
    keys = []
    for key in sorted(set(a) | set(b), key=str):
        name = f"{prefix}.{key}" if prefix else str(key)
        if isinstance(a.get(key), dict) and isinstance(b.get(key), dict):
            keys += differing_keys(a[key], b[key], name)
        elif key not in a or key not in b or a[key] != b[key]:
            keys.append(name)
    return keys


def _listed(keys: list[str], most: int = 6) -> str:
    return ", ".join(keys[:most]) + (f" and {len(keys) - most} more" if len(keys) > most else "")


def folder_problems(config: dict, workdir: str | Path = ".") -> list[str]:
    """Why this run may not write into its results folder: the folder records another scale (checked in every run,
    dry runs included, before any job)."""
    results = config["results"]
    try:
        record = read_effective_config(Path(workdir) / results)
    except ArtifactError as error:
        return [str(error)]
    if record is None or record["scale"] == config["scale"]:
        return []
    return [
        f"results: {results}/ holds the results of scale {record['scale']!r} "
        f"({effective_config_path(results)}), but this run's scale is {config['scale']!r}; a folder belongs to one "
        f"scale: leave `results` out of the config (scale {config['scale']!r} writes into "
        f"{scale_folder(config['scale'])}/), or run scale {record['scale']!r} with its own config: "
        f"--configfile {effective_config_path(results)}"
    ]


# The shipped scales: each name, the config files that make it (merged over config.yaml), by `scale` key (tested
# against configs/). A run or a publication under one of these names is that scale only with its parameters.
SHIPPED_SCALES = {
    "default": (),
    "smoke": ("configs/smoke.yaml",),
    "recipe": ("configs/recipe.yaml",),
    "paper": ("configs/paper.yaml",),
    "fashion": ("configs/fashion.yaml",),
}
# Keys that say where a run's files and data are, which device computes, and how figures look: not what a scale
# computes, so a shipped scale may set them as a machine needs (a data root, a GPU, a figure's font size).
PLACE_KEYS = ("device", "results", "figures", "supervised_view.data.root", "supervised_view.data.download")


def shipped_config(scale: str, workdir: str | Path = ".") -> dict | None:
    """The validated config of the shipped scale ``scale`` (None for another name): config.yaml with its config files
    merged over it, as ``snakemake --configfile ...`` would merge them."""
    if scale not in SHIPPED_SCALES:
        return None
    from crlrepro.workflow.config import merged_config, validate_config

    workdir = Path(workdir)
    config = merged_config(workdir, [workdir / f for f in SHIPPED_SCALES[scale]])
    return validate_config(config, workdir / "workflow" / "schemas" / "config.schema.yaml", check_data=False)


def scale_binding_problems(config: dict, workdir: str | Path = ".") -> list[str]:
    """Why ``config`` (validated) may not carry its scale's name: the name is a shipped scale's (:data:`SHIPPED_SCALES`)
    and a key outside :data:`PLACE_KEYS` differs from that scale's own config. Publishing refuses it (the published
    name would promise parameters the results were not made with); a run under it is warned."""
    scale = config.get("scale")
    try:
        expected = shipped_config(scale, workdir)
    except (ConfigError, OSError) as error:
        return [f"scale: {scale!r} is a shipped scale, but its own config does not load here: {error}"]
    if expected is None:
        return []
    keys = [
        key
        for key in differing_keys(expected, config)
        if not any(key == place or key.startswith(place + ".") for place in PLACE_KEYS)
    ]
    if not keys:
        return []
    files = " ".join(SHIPPED_SCALES[scale]) or "config.yaml alone"
    command = "snakemake --cores all" + "".join(f" --configfile {f}" for f in SHIPPED_SCALES[scale])
    return [
        f"scale: {scale!r} names the shipped scale made by {files}, but this config differs from it in "
        f"{_listed(keys)}; results under that name must carry its parameters: give this config a scale of its own "
        f"(--config scale=<name>, or `scale: <name>` in your config file: it then writes into results/<name>/), or "
        f"run the shipped scale as it is ({command})"
    ]


def publish_problems(
    config: dict, workdir: str | Path = ".", published_root: str | Path = "docs/results", outputs=()
) -> list[str]:
    """Why ``snakemake publish`` may not publish this run's scale: its results folder was made by another scale or
    another configuration than this run's, ``docs/results/<scale>/`` holds a publication of the same scale made
    from another configuration (each names both, and the keys that differ), the scale's name is a shipped scale's
    whose parameters this config does not carry (:func:`scale_binding_problems`), or the code is not committed or an
    output in ``outputs`` (the scale's files, relative to ``workdir``) was made by code not in HEAD's history
    (:func:`crlrepro.workflow.publish.commit_problems`)."""
    from crlrepro.workflow.publish import PROVENANCE, commit_problems, published_config

    problems = folder_problems(config, workdir) + scale_binding_problems(config, workdir)
    if problems:
        return problems
    problems = commit_problems([Path(workdir) / output for output in outputs], workdir)
    results, scale, this = config["results"], config["scale"], config_hash(config)
    record = read_effective_config(Path(workdir) / results)  # readable: folder_problems read it
    if record is not None and config_hash(record) != this:
        problems.append(
            f"publish: {results}/ was made by scale {scale!r} with config hash {config_hash(record)} "
            f"({effective_config_path(results)}), but this run's config hash is {this}: they differ in "
            f"{_listed(differing_keys(record, config))}. Publish the folder's own results with "
            f"`snakemake publish --cores all --configfile {effective_config_path(results)}`, or run this config first "
            "(`snakemake --cores all` with the same flags) and publish after it"
        )
    provenance = Path(workdir) / published_root / scale / PROVENANCE
    if provenance.is_file():
        try:
            before = published_config(scale, Path(workdir) / published_root)
        except ArtifactError:
            return problems + [
                f"publish: {provenance} is not a publication record; restore it "
                f"(git checkout -- {provenance}) or remove the folder (rm -r {provenance.parent})"
            ]
        if isinstance(before, dict) and config_hash(before) != this:
            problems.append(
                f"publish: {provenance.parent}/ holds scale {scale!r} published from config hash {config_hash(before)}, "
                f"but this run's config hash is {this}: they differ in {_listed(differing_keys(before, config))}. "
                f"Publishing would replace it with results of another configuration under the same name. If this "
                f"scale's config changed on purpose, remove the old publication first (rm -r {provenance.parent}); "
                "else run with that scale's own config file"
            )
    return problems


def recorded_scales(workdir: str | Path = ".") -> list[Path]:
    """The effective-configuration records of every results folder under ``results/`` (relative to ``workdir``)."""
    root = Path(workdir) / "results"
    if not root.is_dir():
        return []
    found = [root / EFFECTIVE_CONFIG] if (root / EFFECTIVE_CONFIG).is_file() else []
    found += sorted(p for p in root.glob(f"*/{EFFECTIVE_CONFIG}") if p.is_file())
    return [p.relative_to(workdir) for p in found]
