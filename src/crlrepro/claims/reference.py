"""Access to the papers' reported numbers (``paper_values.yaml``), for comparison only, and the
comparison of a run's setting with the paper's."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import numpy as np

from crlrepro.runtime.yamlfile import read_yaml

__all__ = ["matches_setting", "PAPER_VALUES", "paper_values", "setting_mismatches"]

PAPER_VALUES = Path(__file__).with_name("paper_values.yaml")


@cache
def _load(path: str) -> dict:
    return read_yaml(path)


def paper_values(experiment: str, path: str | Path = PAPER_VALUES) -> dict:
    """The reference entry of one experiment (``A1``, ``C3``, ...)."""
    values = _load(str(path))
    if experiment not in values:
        raise KeyError(f"no paper reference for experiment {experiment!r}; known: {sorted(values)}")
    return values[experiment]


def _same(a, b) -> bool:
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    try:
        return np.shape(a) == np.shape(b) and np.allclose(np.asarray(a, float), np.asarray(b, float), rtol=1e-12, atol=0.0)
    except (TypeError, ValueError):
        return a == b


def setting_mismatches(reference: dict, actual: dict, keys) -> tuple[str, ...]:
    """Which of the config ``keys`` (dotted, e.g. ``approximation.epochs``) a claim depends on differ
    from the paper's setting (``reference["setting"]``, keyed the same way): ``"key: X here, Y in the
    paper"``, or ``"key: not reported by the paper"`` when the paper gives no value (null). Numbers
    are compared to 1e-12. ``actual`` maps each key to this run's value."""
    setting = reference.get("setting", {})
    problems = []
    for key in keys:
        if key not in actual:
            raise KeyError(f"the run's setting lacks {key!r}, which the claim depends on")
        if setting.get(key) is None:
            problems.append(f"{key}: not reported by the paper")
        elif not _same(setting[key], actual[key]):
            problems.append(f"{key}: {actual[key]} here, {setting[key]} in the paper")
    return tuple(problems)


def matches_setting(reference: dict, **actual) -> bool:
    """True when each given key (``tau=…, gmm=…``) equals the paper's setting (for figure overlays)."""
    return not setting_mismatches(reference, actual, actual)
