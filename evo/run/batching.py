"""A chunk of broods bred first, their new children grouped by topology, and every group of useful size
simulated together in SIMD lanes (:func:`evo.sim.simulate_batch`, bit-identical to one at a time); and
the parent's side: broods of same-topology parents put side by side, so that chunks keep them together."""

from __future__ import annotations

import weakref
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from evo.fitness.evaluate import recording
from evo.ga.brood import Brood, breed
from evo.model import Creature
from evo.sim import Trajectory, simulate_batch, topology_key
from evo.sim.batch import MIN_LANES

__all__ = ["Bred", "COUNTS", "chunk_ids", "prepare_broods"]

# evaluations simulated in this process, in batches and one by one (the bench reports the share)
COUNTS = {"batched": 0, "single": 0}

_KEYS: weakref.WeakKeyDictionary[Creature, str] = weakref.WeakKeyDictionary()


def _key(creature: Creature) -> str:
    key = _KEYS.get(creature)
    if key is None:
        key = _KEYS[creature] = topology_key(creature)
    return key


@dataclass
class Bred:
    """A brood's children (None for an unchanged copy) and the trajectories made for some of them, by
    child number."""

    children: list[Creature | None]
    trajectories: dict[int, Trajectory] = field(default_factory=dict)


def prepare_broods(broods: Sequence[Brood], context: Any) -> list[Bred | None]:
    """Breed every brood of a chunk, then simulate each topology group of at least ``MIN_LANES`` new
    children in one batch; the rest is simulated one by one when evaluated. A brood whose breeding fails
    gets None (its job breeds it again and meets the same error there, in order).

    Args:
        broods: the chunk's broods, in order.
        context: the run's :class:`~evo.run.job.BreedContext`.

    Returns:
        One :class:`Bred` (or None) per brood.
    """
    spec = context.spec
    out: list[Bred | None] = []
    groups: dict[str, list[tuple[Bred, int, Creature]]] = defaultdict(list)
    for brood in broods:
        try:
            children = breed(brood, context.genome, context.ga, context.variation, world=spec.world)
        except Exception:
            out.append(None)
            continue
        bred = Bred(children)
        out.append(bred)
        for k, (child, seed) in enumerate(zip(children, brood.plugin_seeds, strict=True)):
            if child is not None and seed is not None:
                groups[_key(child)].append((bred, k, child))
    every, _ = recording(spec)
    for members in groups.values():
        if len(members) < MIN_LANES:
            COUNTS["single"] += len(members)
            continue
        try:
            trajectories = simulate_batch([child for _, _, child in members], spec.world, spec.frames, every)
        except Exception:  # simulated one by one instead, where the error is reported in order
            COUNTS["single"] += len(members)
            continue
        COUNTS["batched"] += len(members)
        for (bred, k, _), trajectory in zip(members, trajectories, strict=True):
            bred.trajectories[k] = trajectory
    return out


def chunk_ids(broods: Sequence[Brood], chunks: int) -> list[tuple[int, int]]:
    """(position of each brood in the evaluation order, its chunk): broods of parents of one topology side
    by side, cut into about ``chunks`` chunks of similar evaluation counts, without splitting a group of
    same-topology parents when it can be helped (a group larger than a chunk is cut into pieces of at least
    twice ``MIN_LANES`` evaluations).

    Args:
        broods: the generation's broods, in order.
        chunks: how many chunks to aim for (>= 1).

    Returns:
        One (rank, chunk) per brood, in the broods' order: evaluate them by rank.
    """
    keys = [("" if not b.parents else _key(b.parents[0]), i) for i, b in enumerate(broods)]
    order = [i for _, i in sorted(keys)]
    total = sum(b.evaluations for b in broods)
    size = max(1, -(-total // max(1, chunks)))
    out = [(0, 0)] * len(broods)
    chunk, filled = 0, 0
    for rank, i in enumerate(order):
        same_group = rank > 0 and keys[order[rank - 1]][0] == keys[i][0] and keys[i][0] != ""
        boundary = filled >= size and (not same_group or filled >= max(2 * size, 2 * MIN_LANES))
        if boundary:
            chunk, filled = chunk + 1, 0
        out[i] = (rank, chunk)
        filled += broods[i].evaluations
    return out
