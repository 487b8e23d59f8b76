"""World parameters read from files: a terrain given as a Soda XML path is read here, then the layers are
applied in order (defaults < model ``world`` < ``--world FILE.toml`` < ``--set``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from evo.io.soda_xml import with_terrain_read
from evo.sim.world import World

__all__ = ["resolve_world", "with_terrain_read", "world_from"]


def world_from(
    mapping: Mapping[str, Any], *, source: str | None = None, where: str = "world", base: World | None = None
) -> World:
    """``base`` (default: ``World()``) updated with a mapping read from ``source``."""
    base = base or World()
    return base.updated(with_terrain_read(mapping, source=source, where=where), source=source, where=where)


def resolve_world(
    layers: Iterable[tuple[Mapping[str, Any] | None, str | None, str]], base: World | None = None
) -> World:
    """Apply layers of overrides in order: each is (mapping, source file, where-label)."""
    world = base or World()
    for mapping, source, where in layers:
        if mapping:
            world = world_from(mapping, source=source, where=where, base=world)
    return world
