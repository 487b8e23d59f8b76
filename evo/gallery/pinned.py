"""Genes the elites of a run share at a bound of their ``[genome]`` range (ω at the top of ``omega``): a
sign that the range, not evolution, decided them; ``evo inspect`` and the gallery header say so
(docs/gallery.md)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from evo.model import Creature

__all__ = ["PINNED_SHARE", "pinned_genes"]

PINNED_SHARE = 0.3  # flagged when at least this share of the elites (and two of them) sit on one bound
# (creature attribute, symbol, [genome] key)
_GENES = (("omega", "ω", "omega"), ("beta", "β", "beta"))


def pinned_genes(creatures: Sequence[Creature], genome: Mapping[str, Any]) -> list[str]:
    """One sentence per gene that many elites have at a bound of its range.

    Args:
        creatures: the elites.
        genome: the run's ``[genome]`` table (a missing key has its default range).

    Returns:
        E.g. ``"7 of 10 elites have ω at the top of [genome] omega = [0.02, 0.2]"``; [] when none is.
    """
    from evo.ga.settings import GenomeSection

    defaults = GenomeSection()
    out = []
    for attribute, symbol, key in _GENES:
        span = genome.get(key, getattr(defaults, key))
        try:
            low, high = (float(v) for v in span)
        except (TypeError, ValueError):
            continue
        values = [float(getattr(c, attribute)) for c in creatures]
        for side, bound in (("top", high), ("bottom", low)):
            count = sum(abs(v - bound) <= 1e-9 * max(1.0, abs(bound)) for v in values)
            if count >= 2 and count >= PINNED_SHARE * len(values):
                out.append(
                    f"{count} of {len(values)} elites have {symbol} at the {side} of [genome] {key} = "
                    f"[{low:g}, {high:g}]"
                )
    return out
