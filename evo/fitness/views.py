"""What a plugin is handed instead of the run's own data: :func:`sealed` arrays that no
``setflags(write=True)`` turns writable, and :func:`read_only_view` of the creature (docs/plugins.md)."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

import numpy as np

from evo.model import Creature

__all__ = ["read_only_view", "sealed"]


def read_only_view(creature: Creature) -> Creature:
    """The creature as a plugin is handed it: :func:`sealed` arrays, its ``meta`` and ``world`` as
    read-only mappings, so that nothing a plugin does reaches the creature the run keeps and saves."""
    creature.positions  # noqa: B018 (a creature whose arrays are made on first read: made now)
    view = object.__new__(type(creature))  # copy.copy's result, without its protocol's detour
    view.__dict__.update(
        {k: sealed(v) if isinstance(v, np.ndarray) else v for k, v in creature.__dict__.items()}
    )
    view.__dict__["meta"] = _frozen_mapping(creature.meta)
    view.__dict__["world"] = _frozen_mapping(creature.world)
    return view


def sealed(array: np.ndarray) -> np.ndarray:
    """``array``, or a copy of it, that no ``setflags(write=True)`` can make writable, on itself or on any
    array its ``base`` leads to: every array of the chain is read-only and none owns its memory, which is
    an immutable ``bytes`` (a creature unpickled in a worker is so already; anything else is copied)."""
    if _is_sealed(array):
        return array
    return np.frombuffer(array.tobytes(), dtype=array.dtype).reshape(array.shape)


def _is_sealed(array: Any) -> bool:
    while isinstance(array, np.ndarray):
        if array.flags.writeable or array.flags.owndata:
            return False
        array = array.base
    return isinstance(array, bytes)


_EMPTY = MappingProxyType({})


def _frozen_mapping(value: Any) -> Any:
    if isinstance(value, Mapping):
        if not value:
            return _EMPTY  # a child's (and most creatures') meta and world
        return MappingProxyType({k: _frozen_mapping(v) for k, v in value.items()})
    if isinstance(value, list | tuple):
        return tuple(_frozen_mapping(v) for v in value)
    return value
