"""Confidence levels shared by the verdicts and the tables that compute their intervals: the level of every interval,
and the Bonferroni level of each interval of a family tested together,

    level_k = 1 − (1 − level)/k,

so that an interval excluding a threshold agrees with the family's one-sided tests at (1 − level)/2 each. In the
lowest layer, so that the verdicts (:mod:`crlrepro.claims.verdicts`) and a table that computes intervals (e.g.
:func:`crlrepro.experiments.rate_fits.gap_rate_table`) share it without either depending on the other.
"""

from __future__ import annotations

__all__ = ["LEVEL", "family_level"]

LEVEL = 0.95  # two-sided confidence level of every interval; one-sided tests run at (1 − LEVEL)/2


def family_level(size: int, level: float = LEVEL) -> float:
    """The two-sided level of each interval shown for a family of ``size`` (Bonferroni, 1 − (1 − level)/k):
    an interval that excludes 0 then agrees with the family's one-sided tests."""
    return 1 - (1 - level) / max(size, 1)
