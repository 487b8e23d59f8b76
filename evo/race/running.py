"""Run a race: every contender on the race's terrain, in the physics the race's constraints give it, from
its own start, until its centroid crosses the finish line or the race's frames run out; then the ranking."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from evo.errors import EvoInputError
from evo.io.soda_race import Race
from evo.model import Creature
from evo.sim import DEFAULT_FRAMES, Trajectory, simulate
from evo.sim.placement import stand_on_ground
from evo.sim.world import World

__all__ = ["RaceResult", "Standing", "finish_line", "run_race"]

MAX_RACE_FRAMES = 1_000_000  # frames of one race (each contender records its centroid every frame)


@dataclass(frozen=True)
class Standing:
    """One contender's result.

    Attributes:
        index: its position in the race file (the first contender is 1).
        name: its model's name.
        rank: 1 for the winner.
        finished: its centroid, which started left of the finish line, reached it before the race's
            frames ran out (and before it exploded).
        frames: the frame at which it finished; else the frames it ran (the race's, or fewer if it
            exploded).
        distance: centroid x at ``frames`` minus centroid x at frame 0, px.
        exploded: it blew up before finishing (ranked after every contender that did not).
        exploded_frame: the frame it blew up at, or None.
    """

    index: int
    name: str
    rank: int
    finished: bool
    frames: float
    distance: float
    exploded: bool
    exploded_frame: float | None

    def to_dict(self) -> dict[str, Any]:
        """The JSON form of ``evo race --json`` (frames as an integer when whole)."""
        return {
            "index": self.index,
            "name": self.name,
            "rank": self.rank,
            "finished": self.finished,
            "frames": _whole(self.frames),
            "distance": self.distance if math.isfinite(self.distance) else None,
            "exploded": self.exploded,
        }


@dataclass(frozen=True)
class RaceResult:
    """What a race gave.

    Attributes:
        standings: by rank (the winner first).
        finish_x: the finish line's x, px (None: no line, contenders are ranked by distance).
        frames: the race's frames (the timeout, or what was asked).
        creatures: (in file order) each contender as it raced: ruled, and stood on the ground.
        worlds: (in file order) the world each raced in.
        trajectories: (in file order) each contender's recorded trajectory, cut at its finish.
    """

    standings: tuple[Standing, ...]
    finish_x: float | None
    frames: float
    creatures: tuple[Creature, ...]
    worlds: tuple[World, ...]
    trajectories: tuple[Trajectory, ...]

    def to_dict(self) -> dict[str, Any]:
        """``{"contenders": [...by rank], "finish_x", "frames"}``, as ``evo race --json`` prints it."""
        return {
            "contenders": [s.to_dict() for s in self.standings],
            "finish_x": self.finish_x,
            "frames": _whole(self.frames),
        }


def _whole(frames: float) -> int | float:
    return int(frames) if float(frames).is_integer() else frames


def finish_line(race: Race) -> float | None:
    """The default finish line: the x of the terrain's rightmost point, px (None without terrain)."""
    xs = [x for line in race.terrain for x, _y in line]
    return max(xs) if xs else None


def _race_frames(race: Race, frames: float | None) -> float:
    value = frames if frames is not None else (race.timeout if race.timeout is not None else DEFAULT_FRAMES)
    if not (isinstance(value, int | float) and math.isfinite(value) and 0 < value <= MAX_RACE_FRAMES):
        raise EvoInputError(f"the race's frames must lie in (0, {MAX_RACE_FRAMES}], got {value!r}")
    return float(value)


def run_race(
    race: Race, *, frames: float | None = None, finish_x: float | None | str = "terrain"
) -> RaceResult:
    """Run every contender of ``race`` and rank them.

    Args:
        race: the race (:func:`evo.io.soda_race.read_race`).
        frames: frames each contender has; None: the race's timeout, else the default 3000.
        finish_x: the finish line's x, px; ``"terrain"`` (the default): :func:`finish_line`; None: no line.

    Returns:
        The :class:`RaceResult`. A contender runs as ``evo simulate`` runs its model in the race's world:
        lifted onto the ground first, then simulated from frame 0; deterministic.

    Raises:
        EvoInputError: frames out of range, or a contender the simulator refuses (over the size limits),
            naming it.
    """
    total = _race_frames(race, frames)
    line = finish_line(race) if finish_x == "terrain" else finish_x
    if line is not None and not (isinstance(line, int | float) and math.isfinite(line)):
        raise EvoInputError(f"the finish line must be a finite x in px, got {line!r}")
    rows, creatures, worlds, trajectories = [], [], [], []
    for k in range(len(race.contenders)):
        try:
            creature = race.ruled(k)
            world = World.from_model(creature)
            creature = stand_on_ground(creature, world)
            trajectory = simulate(creature, world, total)
        except EvoInputError as exc:
            raise EvoInputError(f"contender {k + 1}: {exc}") from None
        cx = trajectory.centroids[:, 0]
        ahead = line is not None and cx[0] < line  # one that starts on or past the line cannot cross it
        crossed = np.flatnonzero(cx >= line) if ahead else np.empty(0, dtype=np.int64)
        finished = crossed.size > 0
        end = int(crossed[0]) if finished else len(cx) - 1
        if finished:
            kept = slice(0, end + 1)
            trajectory = Trajectory(
                trajectory.frames[kept], trajectory.positions[kept], trajectory.velocities[kept], False, None
            )
        rows.append(
            dict(
                index=k + 1,
                name=creature.name,
                finished=finished,
                frames=float(trajectory.frames[end]) if finished else (trajectory.exploded_frame or total),
                distance=float(cx[end] - cx[0]),
                exploded=trajectory.exploded,  # False for a finisher: its records end at the line
                exploded_frame=trajectory.exploded_frame,
            )
        )
        creatures.append(creature)
        worlds.append(world)
        trajectories.append(trajectory)
    order = sorted(rows, key=_rank_key)
    standings = tuple(Standing(rank=r, **row) for r, row in enumerate(order, start=1))
    return RaceResult(standings, line, total, tuple(creatures), tuple(worlds), tuple(trajectories))


def _rank_key(row: dict[str, Any]) -> tuple:
    """Finishers by frames, then the others by distance (farthest first), the exploded last; ties by
    file order."""
    distance = row["distance"] if math.isfinite(row["distance"]) else -math.inf
    if row["finished"]:
        return (0, row["frames"], row["index"])
    return (2 if row["exploded"] else 1, -distance, row["index"])
