"""How a claim row's interval is printed: ``[low, high]``, or not at all where it rests on too few seeds to inform a
reader (one light module, without scipy: the summaries, the boards and the scales page print intervals alike)."""

from __future__ import annotations

import re

import pandas as pd

__all__ = ["MIN_INTERVAL_SEEDS", "interval_text", "seeds_of"]

# The fewest seeds whose interval is printed as one: with two, a t interval has one degree of freedom and its
# half-width is 12.7 standard errors at 95 % ([−12.27, 12.2] for an AUC difference), which informs no reader.
MIN_INTERVAL_SEEDS = 3
_SEEDS = re.compile(r"\b(\d+) seeds?\b")


def seeds_of(power: str) -> int | None:
    """The number of seeds a row's interval rests on, as its power text states it (``"... (2 seeds, Holm family of
    9)"``); the fewest where it names several; None where it names none (a deterministic row, or a bootstrap)."""
    found = [int(n) for n in _SEEDS.findall(str(power))]
    return min(found) if found else None


def interval_text(low, high, power: str = "", missing: str | None = None) -> str:
    """An interval as the summaries print it, ``[low, high]`` to 4 significant digits; ``"none from n seeds"`` where
    the row's power text says it rests on fewer than :data:`MIN_INTERVAL_SEEDS` seeds. Where an end is missing: empty
    (the boards), or with ``missing`` the missing end as that mark (``[—, 0.5]``, a one-sided interval) and the mark
    alone where both are."""
    if pd.isna(low) and pd.isna(high):
        return "" if missing is None else missing
    if missing is None and (pd.isna(low) or pd.isna(high)):
        return ""
    seeds = seeds_of(power)
    if seeds is not None and seeds < MIN_INTERVAL_SEEDS:
        return f"none from {seeds} seed{'s' if seeds != 1 else ''}"

    def end(value) -> str:
        return missing if pd.isna(value) else f"{float(value):.4g}"

    return f"[{end(low)}, {end(high)}]"
