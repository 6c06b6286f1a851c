"""The registry is the one list: the workflow's rules, captions, paper values and config agree with it."""

import re
from pathlib import Path

import pytest

from crlrepro.claims.reference import paper_values
from crlrepro.claims.verdicts import KINDS
from crlrepro.studies import registry
from crlrepro.workflow.config import ConfigError, config_value, load_config, validate_config

REPO = Path(__file__).resolve().parents[2]
SCHEMA = REPO / "workflow" / "schemas" / "config.schema.yaml"
RULES = {
    name
    for path in (REPO / "workflow" / "rules").glob("*.smk")
    for name in re.findall(r"^rule (\w+):", path.read_text(), flags=re.M)
}
RULES |= set(re.findall(r"^rule (\w+):", (REPO / "Snakefile").read_text(), flags=re.M))


def test_every_rule_the_registry_names_exists():
    named = {r for e in registry.EXPERIMENTS for r in (*e.rules, e.claims_rule, e.figure_rule) if r}
    assert named <= RULES, named - RULES
    assert set(registry.local_rules()) <= RULES
    assert {"paper1", "paper2", "paper3", "all"} <= set(registry.local_rules())


def test_claims_are_typed_unique_and_their_paper_values_exist():
    ids = [e.id for e in registry.EXPERIMENTS]
    assert len(ids) == len(set(ids)) and tuple(ids) == registry.EXPERIMENT_ORDER
    for e in registry.EXPERIMENTS:
        keys = [c.key for c in e.claims]
        assert keys and len(keys) == len(set(keys)), e.id
        for spec in e.claims:
            assert spec.kind in KINDS, (e.id, spec.key)
            if spec.paper_value or spec.depends_on:
                reference = paper_values(e.id)
                assert spec.paper_value is None or spec.paper_value in reference, (e.id, spec.key)
                assert set(spec.depends_on) <= set(reference["setting"]), (e.id, spec.key)
    with pytest.raises(KeyError, match="A1 has no claim 'nope'"):
        registry.experiment("A1").claim("nope")
    with pytest.raises(KeyError, match="unknown experiment"):
        registry.experiment("Z1")
    with pytest.raises(KeyError, match="unknown paper"):
        registry.experiments_of(7)


def test_comparability_keys_are_config_keys():
    config = load_config(REPO / "config.yaml", SCHEMA)
    for e in registry.EXPERIMENTS:
        for spec in e.claims:
            for key in (*spec.depends_on, *spec.unreported):
                config_value(config, key)  # raises KeyError naming the key
    with pytest.raises(KeyError, match="approximation.nope"):
        config_value(config, "approximation.nope")


def test_each_experiment_names_the_seed_list_its_models_are_trained_with():
    """The scales comparison names an experiment's own seed list where a verdict moved (publish.compare_scales):
    the key is a list of seeds in the config, and only experiments that train over seeds have one."""
    config = load_config(REPO / "config.yaml", SCHEMA)
    seeded = {e.id: e.seeds for e in registry.EXPERIMENTS if e.seeds}
    assert seeded == {
        "A2": "approximation.seeds",
        "A3": "seeds",
        "C2": "seeds",
        "C3": "consistency.scaling.seeds",
        "C4": "consistency.scaling.seeds",
        "S1": "supervised_view.seeds",
        "S2": "supervised_view.seeds",
        "S3": "supervised_view.seeds",
        "S4": "supervised_view.seeds",
    }
    for key in seeded.values():
        value = config_value(config, key)
        assert isinstance(value, list) and value and all(isinstance(v, int) for v in value), key


def test_captions_and_figures_come_from_the_registry():
    captions = registry.report_captions()
    for name, spec in captions.items():
        assert (REPO / "workflow" / "report" / f"{spec['template']}.rst").exists(), name
    assert captions["summary"]["experiments"] == "all"
    assert captions["S3"] == {"template": "supervised_view", "experiments": ["S3"]}
    assert set(captions) - {"summary"} == {e.figure for e in registry.EXPERIMENTS if e.figure}
    assert registry.figure_styles() == ["gmm_spectrum", "gmm_mlp", "lcgm", "tsybakov", "calibration", "scaling", "budget", "ssl"]


def test_the_config_accepts_exactly_the_registrys_figure_names():
    config = load_config(REPO / "config.yaml", SCHEMA)
    config["figures"]["overrides"] = {"ssl": {"dpi": 100}}
    validate_config(config, SCHEMA)
    config["figures"]["overrides"] = {"S1": {"dpi": 100}}
    with pytest.raises(ConfigError, match="figures.overrides"):
        validate_config(config, SCHEMA)


def test_targets_cover_every_experiment_once_and_papers_split_them():
    targets = registry.all_targets("results")
    assert len(targets) == len(set(targets))
    for e in registry.EXPERIMENTS:
        assert f"results/claims/{e.id}.csv" in targets
        assert all(f"results/{t}" in targets for t in e.tables)
    assert {
        "results/summary.csv",
        "results/summary.md",
        "results/summary.html",
        "results/scales.csv",
        "results/scales.html",
        "results/verdict_board.png",
        "results/report/captions/summary.rst",
        "results/figures/S4.pdf",
    } <= set(targets)
    per_paper = [set(registry.experiment_targets("results", registry.experiments_of(p))) for p in registry.PAPERS]
    assert set.union(*per_paper) == set(registry.experiment_targets("results"))
    assert sum(map(len, per_paper)) == len(set.union(*per_paper))  # no file in two papers
    assert "results/claims/C3.csv" in per_paper[list(registry.PAPERS).index(1)]
    assert registry.claim_tables("r") == [f"r/claims/{e}.csv" for e in registry.EXPERIMENT_ORDER]
