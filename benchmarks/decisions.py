"""Benchmark: what a CPU-hour buys. Per study, the seconds a seed costs at the default and recipe scales, and, from
the published claims' power columns, the seeds (and CPU-hours) that would decide each undecided direction or rate row.

    python benchmarks/decisions.py [--scales default recipe] [--cores 2] [--out results/benchmarks]

1. Seconds per seed (measured): for each scale, a fresh copy of this checkout runs the rules that train per seed
   (PER_SEED below; `--until` those rules, their inputs included but not counted) from an empty results/, with every
   study's seeds cut to its first SEEDS (two: the fewest C3 accepts); a study's seconds per seed are its rules' job
   seconds (their `benchmark:` files) over SEEDS.
2. Seeds to decide (read): every claim row of docs/results/<scale>/summary.csv that is inconclusive, of kind
   direction or rate: its power text's "N seeds would give 80% power" (directions), or "about X× the seeds or
   samples" (rates: X times the study's seeds); rows whose power text names no number of seeds (none up to 1000, or a
   noise that is not seeds) are listed with that text.
3. The table: per row, the study, the seeds it has, the seeds that would decide it, the extra seeds and what they cost
   in CPU-hours on this machine (extra × seconds per seed). Written to <out>/decisions.csv and printed.
"""

from __future__ import annotations

import argparse
import math
import re
import sys
import tempfile
from pathlib import Path

import pandas as pd
import yaml
from common import markdown, rule_times
from pipeline import clone, results_folder, snakemake

from crlrepro.runtime.costs import config_value
from crlrepro.studies.registry import STUDIES
from crlrepro.workflow.config import read_config_file, validate_config

REPO = Path(__file__).resolve().parents[1]
SEEDS = 2  # seeds per study in the measuring run (consistency.scaling.seeds needs two)
SCALE_CONFIGS = {"default": None, "recipe": "configs/recipe.yaml", "smoke": "configs/smoke.yaml"}
# The rules whose jobs grow with a study's seeds: its trainings. A3's sensitivity grid and C3's fixed-score draws train
# one seed whatever the seeds. Paper 3's per-model evaluation (ssl_eval, ~6 s a run) is left out: `--until ssl_eval`
# stops Snakemake 9 with "Out of jobs ready to be started" (snakemake/snakemake#823).
PER_SEED = {
    "gmm_mlp": ("gmm_mlp_train", "gmm_mlp_samples_train"),
    "lcgm": ("lcgm_train",),
    "calibration": ("calibration_train",),
    "scaling": ("scaling_train",),
    "supervised_view": ("ssl_train",),
}


def merged_config(configfile: str | None) -> dict:
    """config.yaml with ``configfile`` merged over it, validated and its derived keys set (as a run reads it)."""
    config = read_config_file(REPO / "config.yaml")
    if configfile:
        _merge(config, read_config_file(REPO / configfile))
    return validate_config(config, REPO / "workflow" / "schemas" / "config.schema.yaml", check_data=False)


def _merge(base: dict, over: dict) -> None:
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(base.get(key), dict):
            _merge(base[key], value)
        else:
            base[key] = value


def seeds_key(study: str) -> str:
    """The config key listing the seeds of a study's models (its experiments' ``seeds``)."""
    (key,) = {e.seeds for s in STUDIES if s.name == study for e in s.experiments if e.seeds}
    return key


def few_seeds_override(config: dict) -> dict:
    """Every per-seed study's seeds cut to the first SEEDS, as a config fragment."""
    override: dict = {}
    for study in PER_SEED:
        key = seeds_key(study)
        node = override
        *parents, last = key.split(".")
        for part in parents:
            node = node.setdefault(part, {})
        node[last] = list(config_value(config, key))[:SEEDS]
    return override


def seconds_per_seed(root: Path, scale: str, cores: int) -> dict[str, float]:
    """{study: job seconds of its PER_SEED rules per seed} at ``scale``, measured in a fresh copy with SEEDS seeds."""
    configfile = SCALE_CONFIGS[scale]
    workdir = clone(root / scale)
    (workdir / "few-seeds.yaml").write_text(yaml.safe_dump(few_seeds_override(merged_config(configfile))))
    files = ["--configfile", *([configfile] if configfile else []), "few-seeds.yaml"]
    rules = [rule for rules in PER_SEED.values() for rule in rules]
    snakemake(workdir, cores, ["--until", *rules, *files])
    times = rule_times(workdir, results_folder(configfile))
    per_rule = times.groupby("rule")["seconds"].sum()
    return {study: float(sum(per_rule.get(rule, 0.0) for rule in rules)) / SEEDS for study, rules in PER_SEED.items()}


def study_of(claim_id: str) -> str | None:
    experiment = claim_id.split(".")[0]
    for study in STUDIES:
        if any(e.id == experiment for e in study.experiments):
            return study.name if study.name in PER_SEED else None
    return None


def seeds_to_decide(power: str, kind: str, seeds: int) -> float | None:
    """The seeds the power text says would decide the row (80 % power at the observed effect), or None."""
    if kind == "direction":
        found = re.search(r"(\d+) seeds would give 80% power", power)
        return float(found.group(1)) if found else None
    found = re.search(r"about ([\d.]+)× the seeds or samples", power)
    return float(found.group(1)) * seeds if found else None


def decision_rows(scale: str, config: dict, seconds: dict[str, float]) -> list[dict]:
    summary = pd.read_csv(REPO / "docs" / "results" / scale / "summary.csv")
    undecided = summary[
        (summary["role"] == "claim") & summary["kind"].isin(["direction", "rate"]) & (summary["verdict"] == "inconclusive")
    ]
    rows = []
    for r in undecided.itertuples():
        study = study_of(r.claim_id)
        seeds = len(config_value(config, seeds_key(study))) if study else None
        needed = seeds_to_decide(r.power, r.kind, seeds) if study else None
        extra = None if needed is None else max(0, math.ceil(needed) - seeds)
        cost = None if extra is None else extra * seconds[study] / 3600
        rows.append(
            {
                "scale": scale,
                "claim_id": r.claim_id,
                "kind": r.kind,
                "study": study or "-",
                "seeds": seeds,
                "seeds_to_decide": None if needed is None else math.ceil(needed),
                "extra_seeds": extra,
                "cpu_hours": cost,
                "note": r.power[:120] if needed is None else ("× seeds or samples of its interval" if r.kind == "rate" else ""),
            }
        )
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scales", nargs="+", default=["default", "recipe"], choices=sorted(SCALE_CONFIGS))
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--out", type=Path, default=REPO / "results" / "benchmarks")
    args = parser.parse_args(argv)
    per_seed, rows = {}, []
    with tempfile.TemporaryDirectory(prefix="crlrepro decisions ") as tmp:
        for scale in args.scales:
            config = merged_config(SCALE_CONFIGS[scale])
            per_seed[scale] = seconds_per_seed(Path(tmp), scale, args.cores)
            rows += decision_rows(scale, config, per_seed[scale])
    seconds = pd.DataFrame(per_seed).rename_axis("study").reset_index()
    decisions = pd.DataFrame(rows)
    args.out.mkdir(parents=True, exist_ok=True)
    seconds.to_csv(args.out / "seconds_per_seed.csv", index=False)
    decisions.to_csv(args.out / "decisions.csv", index=False)
    print(f"Seconds per seed (the trainings, job time over {SEEDS} seeds on this machine):\n")
    print(markdown(seconds))
    print("\nWhat would decide each undecided direction or rate claim (80 % power at the observed effect):\n")
    print(markdown(decisions))
    return 0


if __name__ == "__main__":
    sys.exit(main())
