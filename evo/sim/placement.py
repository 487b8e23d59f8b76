"""Standing a creature on the ground: the height of the surfaces a mass can rest on, and the lift that
puts no mass of a body below them.

Which surfaces count under each contact model: docs/config.md, "Where creatures start". Units: px.
"""

from __future__ import annotations

import math

import numpy as np

from evo.model import Creature
from evo.sim.ground import KIND_HILLS, KIND_POLYLINE, KIND_SLOPE
from evo.sim.world import World

__all__ = ["CLEARANCE", "ground_lift", "is_level", "stand_on_ground", "surface_heights"]

# px a lifted body clears a surface other than y = 0 by. The kernels tell a mass's side of a segment from
# the sign of a cross product; a mass put exactly on a sloping segment could round to below it and fall
# through. (The kernels themselves put a mass that crossed a segment back 1e-9 px on its side.) It also
# makes lifting idempotent: a lifted body is 1e-9 px clear, not a rounding error below.
CLEARANCE = 1e-9


def is_level(world: World) -> bool:
    """True when the floor y = 0 is the only surface: flat ground and no terrain. Bodies placed with
    their lowest mass at y = 0 already stand there, and are never moved."""
    return world.ground.is_flat and not world.terrain


def _polyline_heights(line: np.ndarray, x: np.ndarray) -> np.ndarray:
    """(n,) the highest point of the polyline ``line`` (m, 2) at each x of ``x`` (n,); -inf where it
    has none. A vertical segment at x counts with its top end."""
    out = np.full(x.shape, -np.inf)
    if line.shape[0] < 2 or x.size == 0:
        return out
    x1, y1, x2, y2 = line[:-1, 0], line[:-1, 1], line[1:, 0], line[1:, 1]
    low, high = np.minimum(x1, x2), np.maximum(x1, x2)
    near = (high >= x.min()) & (low <= x.max())  # only the segments under the body
    if not near.any():
        return out
    x1, y1, x2, y2, low, high = x1[near], y1[near], x2[near], y2[near], low[near], high[near]
    xs = x[:, None]
    run = x2 - x1
    vertical = run == 0.0
    t = (xs - x1) / np.where(vertical, 1.0, run)
    y = np.where(vertical, np.maximum(y1, y2), y1 + t * (y2 - y1))
    return np.max(np.where((xs >= low) & (xs <= high), y, -np.inf), axis=1)


def _has_floor(world: World) -> bool:
    """True when the line y = 0 is a surface: the soda floor, or the penalty ground when it is flat."""
    return world.contact == "soda" or world.ground.is_flat


def _raised_heights(world: World, x: np.ndarray) -> np.ndarray:
    """(n,) height at each x of the highest surface other than the line y = 0: the terrain, the ground's
    soda polyline under soda contact and its own curve H = 0 under penalty contact; -inf where none."""
    ground = world.ground
    lines = [np.asarray(line, dtype=np.float64) for line in world.terrain]
    out = np.full(x.shape, -np.inf)
    if world.contact == "soda" and not ground.is_flat:
        lines.append(np.asarray(ground.soda_polyline(), dtype=np.float64))
    elif world.contact == "penalty" and not ground.is_flat:
        kind, params, points = ground.kernel_arrays()
        if kind == KIND_SLOPE:
            out = x * math.tan(math.radians(ground.angle))
        elif kind == KIND_HILLS:
            out = params[0] * (1.0 - np.cos(params[1] * x))
        elif kind == KIND_POLYLINE:
            lines.append(points)
    for line in lines:
        out = np.maximum(out, _polyline_heights(line, x))
    return out


def surface_heights(world: World, x: np.ndarray) -> np.ndarray:
    """(n,) height (px) of the highest surface of ``world`` at each x of ``x`` (n,) px."""
    x = np.asarray(x, dtype=np.float64)
    raised = _raised_heights(world, x)
    return np.maximum(raised, 0.0) if _has_floor(world) else raised


def ground_lift(world: World, positions: np.ndarray) -> float:
    """How far (px, >= 0) to lift a body at ``positions`` (n, 2) so that no mass is below a surface of
    ``world``: the largest depth of a mass below the line y = 0 (where it is a surface), or below any
    other surface plus :data:`CLEARANCE` (a mass less than half of it above one counts as on it). 0 when
    no mass is below anything, always in a level world (:func:`is_level`), and for a body lifted once
    already: lifting twice changes nothing."""
    positions = np.asarray(positions, dtype=np.float64)
    if is_level(world) or positions.shape[0] == 0:
        return 0.0
    x, y = positions[:, 0], positions[:, 1]
    lift = max(0.0, -float(np.min(y))) if _has_floor(world) else 0.0
    depth = float(np.max(_raised_heights(world, x) - y))
    if depth > -0.5 * CLEARANCE:
        lift = max(lift, depth + CLEARANCE)
    return lift


def stand_on_ground(creature: Creature, world: World) -> Creature:
    """``creature`` lifted straight up by :func:`ground_lift` (fixed masses too); the same object when
    no lift is needed, so a body on a level world is never touched."""
    lift = ground_lift(world, creature.positions)
    if lift == 0.0:
        return creature
    return creature.replace(positions=np.asarray(creature.positions) + np.array([0.0, lift]))
