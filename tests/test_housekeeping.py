"""What users expect of a published project: a licence that matches the metadata, a citation file,
a Python requirement Snakemake 9 can meet."""

import tomllib

import yaml

from conftest import REPO


def test_license_citation_and_python_requirement_agree_with_pyproject():
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert project["license"]["text"] == "MIT" and (REPO / "LICENSE").read_text().startswith("MIT License")
    citation = yaml.safe_load((REPO / "CITATION.cff").read_text())
    assert citation["cff-version"] == "1.2.0" and citation["license"] == "MIT" and citation["version"] == project["version"]
    assert project["requires-python"] == ">=3.11"  # Snakemake 9 requires Python 3.11


def test_the_lock_file_pins_every_requirement():
    import re

    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    pinned = {}
    for line in (REPO / "requirements.lock").read_text().splitlines():
        if line and not line.startswith("#"):
            name, _, version = line.partition("==")
            assert version, f"requirements.lock: {line!r} is not pinned with =="
            pinned[re.sub(r"[-_.]+", "-", name).lower()] = version
    wanted = project["dependencies"] + project["optional-dependencies"]["test"]
    for requirement in wanted:
        name = re.sub(r"[-_.]+", "-", re.split(r"[<>=!\[; ]", requirement)[0]).lower()
        assert name in pinned, f"{name} is required but not in requirements.lock"
