"""Access to the papers' reported numbers (``paper_values.yaml``), for comparison only."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np
import yaml

PAPER_VALUES = Path(__file__).with_name("paper_values.yaml")


@lru_cache(maxsize=None)
def _load(path: str) -> dict:
    return yaml.safe_load(Path(path).read_text())


def paper_values(experiment: str, path: str | Path = PAPER_VALUES) -> dict:
    """The reference entry of one experiment (``A1``, ``C3``, ...)."""
    values = _load(str(path))
    if experiment not in values:
        raise KeyError(f"no paper reference for experiment {experiment!r}; known: {sorted(values)}")
    return values[experiment]


def matches_setting(reference: dict, **actual) -> bool:
    """True when every key of the reference's ``setting`` equals ``actual`` (numbers to 1e-12)."""

    def same(a, b):
        if isinstance(a, dict):
            return isinstance(b, dict) and a.keys() <= b.keys() and all(same(a[k], b[k]) for k in a)
        try:
            return np.allclose(np.asarray(a, float), np.asarray(b, float), rtol=1e-12, atol=0.0)
        except (TypeError, ValueError):
            return a == b

    setting = reference.get("setting", {})
    return all(key in actual and same(value, actual[key]) for key, value in setting.items())
