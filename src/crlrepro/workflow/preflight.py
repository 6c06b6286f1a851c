"""What a run checks before its first job, beyond the config's own validity: every job's memory and time against this
machine (each study's cost model), where the results folder lies, the data on disk, and which executor the command
line asks for (local or a cluster). :func:`start_refusal` is what ``crlrepro check-config`` and a run's start say.
"""

from __future__ import annotations

import os
from pathlib import Path

from crlrepro.runtime.yamlfile import ConfigError, read_yaml
from crlrepro.studies.registry import COSTS
from crlrepro.workflow.config import EPOCH_LIMIT, config_items, config_value, data_problems, key_name, validate_config

__all__ = [
    "preflight_problems",
    "requested_executor",
    "resource_problems",
    "results_location_problems",
    "start_problems",
    "start_refusal",
    "TIME_LIMIT_S",
]


TIME_LIMIT_S = 30 * 24 * 3600


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
                problems.append(
                    f"{lead}: {shown} {cost.what}{also} need about {_gib(need)} in one job, more than this "
                    f"machine's {_gib(memory_bytes)}; lower it, or run on a cluster (profiles/slurm, "
                    "--set-resources mem_mb=...)"
                )
        if cost.seconds is not None:
            past_epoch_limit = lead.endswith("epochs") and value > EPOCH_LIMIT  # reported below
            seconds = cost.seconds(config)
            if seconds > TIME_LIMIT_S and not past_epoch_limit:
                problems.append(
                    f"{lead}: {shown} {cost.what}{also} take about {seconds / 86400:,.0f} days for one job "
                    "on this CPU (measured rates); lower it, or run on GPUs or a cluster"
                )
    for path, value in config_items(config):
        if path and path[-1] == "epochs" and isinstance(value, int) and value > EPOCH_LIMIT:
            problems.append(
                f"{key_name(path)}: {value} epochs is more than {EPOCH_LIMIT:,}; a larger number is a typo, not an experiment"
            )
    return problems


def results_location_problems(results: str, workdir: str | Path = ".") -> list[str]:
    """Where the scale's folder ``results`` (a path under ``results/``) or anything already in it leads outside
    ``results/`` once symbolic links are resolved: outputs, sidecars and logs would land elsewhere. ``results/``
    itself may be a link (to a scratch disk, say); links inside it must stay inside it. Checked when a run starts."""
    workdir = Path(workdir)
    root = (workdir / "results").resolve()
    folder = workdir / results
    if not folder.resolve().is_relative_to(root):
        return [
            f"results: {results!r} leads to {folder.resolve()}, outside results/ ({root}) once links are resolved; "
            "remove the link or choose a folder under results/"
        ]
    problems = []
    if folder.is_dir():
        for directory, subdirectories, files in os.walk(folder):  # links are listed, not followed
            for name in subdirectories + files:
                path = Path(directory) / name
                if path.is_symlink() and not path.resolve().is_relative_to(root):
                    problems.append(
                        f"results: {path} is a link to {path.resolve()}, outside results/ ({root}); what the "
                        "run writes there would land outside the results tree: remove the link"
                    )
    return problems


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
                problems.append(
                    "device: cuda, but no GPU is visible on this machine (CUDA_VISIBLE_DEVICES, NVML): set "
                    "device: auto or cpu (e.g. --config device=auto), or submit to a cluster "
                    "(--workflow-profile profiles/slurm)"
                )
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
    profiles = [
        option(("--profile",)) or environ.get("SNAKEMAKE_PROFILE"),
        option(("--workflow-profile",)) or str(Path(basedir) / "profiles" / "default"),
    ]
    for profile in profiles:
        if profile and profile != "none":
            executor = _profile_executor(profile, basedir)
            if executor:
                return executor
    return "local"


def _profile_executor(profile: str, basedir: str | Path) -> str | None:
    """The ``executor:`` of the first config file of the profile ``profile`` (a folder, or a name Snakemake looks up
    beside the workflow, in ~/.config/snakemake or /etc/xdg/snakemake); None where it sets none."""
    for folder in (
        Path(profile),
        Path(basedir) / profile,
        Path.home() / ".config" / "snakemake" / profile,
        Path("/etc/xdg/snakemake") / profile,
    ):
        for name in ("config.v8+.yaml", "config.yaml"):
            if (folder / name).is_file():
                try:
                    executor = (read_yaml(folder / name) or {}).get("executor")
                except (ConfigError, AttributeError):
                    return None
                return str(executor) if executor else None
    return None


def start_problems(config: dict, workdir: str | Path = ".", memory_bytes: int | None = None, local: bool = True) -> list[str]:
    """Everything a run checks of a valid ``config`` before its first job, in a dry run too: the results folder belongs
    to this scale (:func:`crlrepro.workflow.folder.folder_problems`), then :func:`preflight_problems`. The workflow's
    start and ``crlrepro check-config`` both call this, so that each refuses what the other refuses."""
    from crlrepro.workflow.folder import folder_problems

    return folder_problems(config, workdir) + preflight_problems(config, workdir, memory_bytes=memory_bytes, local=local)


def start_refusal(config: dict, workdir: str | Path = ".", memory_bytes: int | None = None, local: bool = True) -> str:
    """What a run refuses ``config`` (the merged config: :func:`crlrepro.workflow.config.merged_config`) with, stage by
    stage as a run makes the checks: :func:`validate_config` without the data on disk (as the Snakefile reads it;
    ``config`` is validated in place), then :func:`start_problems`; '' when it starts. ``crlrepro check-config``
    prints it."""
    try:
        validate_config(config, Path(workdir) / "workflow" / "schemas" / "config.schema.yaml", check_data=False)
    except ConfigError as error:
        return str(error)
    problems = start_problems(config, workdir, memory_bytes=memory_bytes, local=local)
    return "cannot start:\n  " + "\n  ".join(problems) if problems else ""
