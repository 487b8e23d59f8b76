"""Deprecated since 0.2.0, removed in 0.3.0: moved to :mod:`evo.ga.kernels.brood` (a DeprecationWarning
names the new path). ``compiled_children(brood, genome, ga)`` and ``operators(genome, ga)`` keep their old
forms here; the new ones take an :class:`~evo.ga.kernels.brood.Operators` record."""

from __future__ import annotations

from typing import Any

from evo.ga._moved import moved_module
from evo.ga.settings import GASection, GenomeSection


def _operators(genome: GenomeSection, ga: GASection) -> tuple | None:
    """The former ``operators``: the compiled brood's settings as a tuple (None with ``physics`` on)."""
    from evo.ga.variation import BreedSettings

    ops = BreedSettings.of(genome, ga).compiled
    return None if ops is None else tuple(ops)


def _compiled_children(brood: Any, genome: GenomeSection, ga: GASection) -> list | None:
    """The former ``compiled_children(brood, genome, ga)``."""
    from evo.ga.kernels.brood import compiled_children
    from evo.ga.variation import BreedSettings

    ops = BreedSettings.of(genome, ga).compiled
    if ops is None:
        return None
    return compiled_children(brood.seed, brood.parents, brood.mate, brood.mutate, ops)


__getattr__ = moved_module(
    "evo.ga.brood_kernels",
    "evo.ga.kernels.brood",
    {"compiled_children": _compiled_children, "operators": _operators},
)
