"""The studio's playback: frames of a design, exactly those of :func:`evo.simulate`, and a mass held by the
pointer. Chunks continue from the exact state (or re-simulate from frame 0 where a kernel keeps more state);
docs/studio.md, "One physics"."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from evo.model import Creature
from evo.sim import simulate
from evo.sim.simulate import speed_limit
from evo.sim.world import World
from evo.studio.limits import StudioLimits

__all__ = ["Player", "PlayerStatus", "frame_step"]

_CHUNK = 64  # records simulated at least per kernel call (and the first horizon when re-simulating)


def frame_step(world: World) -> float:
    """Frames between two streamed records: 1, or ``dt`` when 1 frame is not a whole number of steps."""
    steps = 1.0 / world.dt
    return 1.0 if abs(steps - round(steps)) < 1e-9 else float(world.dt)


def continues_exactly(creature: Creature, world: World) -> bool:
    """Whether a simulation restarted from a recorded state (positions, velocities, the wave angle summed
    step by step) goes on bit for bit: not for the two-step finite-difference scheme, nor for psm (which
    splits a hard step into parts, summing the wave angle part by part), nor when the wave may reverse at
    a side wall (the kernel's memory of the contact is not recorded)."""
    reversing = creature.autoreverse and world.width is not None
    return world.integrator not in ("finite-difference", "psm") and not reversing


@dataclass(frozen=True)
class PlayerStatus:
    """Where the playback stands: ``frame`` (record index), ``exploded`` with ``exploded_frame`` (the frame
    ``evo simulate`` reports), and ``end`` (True when no record follows: an explosion or the frame limit)."""

    frame: int
    exploded: bool
    exploded_frame: float | None
    end: bool


class Player:
    """Records of one design, every :func:`frame_step` frames; record ``k`` equals record ``k`` of
    ``evo.simulate(creature, frames=K)`` for any ``K >= k``, bit for bit, until a grab.

    Where :func:`continues_exactly` holds, each chunk restarts the kernel from the last record's exact
    state (memory and time linear in the frames played); elsewhere the player re-simulates from frame 0
    to a horizon that doubles and slices it. A grab switches to stepping one record at a time with the
    held mass fixed at the pointer; exactness ends there.

    Args:
        creature: the design (its ``world`` overrides included).
        limits: the studio's limits (``frames`` is the last frame playback reaches).
    """

    def __init__(self, creature: Creature, limits: StudioLimits):
        self.limits = limits
        self.creature = creature
        self.world = World.from_model(creature)
        self.step = frame_step(self.world)
        self.frame = 0
        self.exact = continues_exactly(creature, self.world)
        # the explosion bound of the whole run, fixed by the starting positions as evo.simulate fixes it
        bound = speed_limit(self.world, np.asarray(creature.positions))
        self._chunk_world = self.world.updated({"max_speed": bound})
        self._start = (np.array(creature.positions, dtype=float), np.array(creature.velocities, dtype=float))
        self._sign = -1.0 if creature.wave_reverse else 1.0
        self._fixed = np.array(creature.fixed, dtype=bool)
        self.reset()

    @property
    def last_frame(self) -> int:
        """The last record playback may reach (the frame limit), an index."""
        return int(self.limits.frames / self.step)

    def reset(self) -> None:
        """Back to frame 0 of the design (a grab is forgotten)."""
        self.frame = 0
        self._first = 0  # record index of _positions[0]
        self._positions = self._start[0][None].copy()
        self._velocities = self._start[1][None].copy()
        self._theta = float(self.creature.wave_phase)  # the wave angle at the last computed record
        self._exploded_frame: float | None = None
        self._horizon = 0
        self.held: int | None = None
        self.live = False
        self._pointer = (0.0, 0.0)  # px, where the held mass is to be
        self._pointer_before = (0.0, 0.0)  # px, where it was at the last record

    def positions(self, frame: int) -> np.ndarray:
        """(n_masses, 2) px at record ``frame`` (computed and not yet dropped)."""
        return self._positions[frame - self._first]

    def status(self) -> PlayerStatus:
        """The playback's :class:`PlayerStatus`."""
        last = self._first + len(self._positions) - 1
        exploded = self._exploded_frame is not None
        end = (exploded and self.frame >= last) or self.frame >= self.last_frame
        return PlayerStatus(self.frame, exploded, self._exploded_frame, end)

    def advance(self, count: int) -> tuple[int, np.ndarray]:
        """Play ``count`` more records.

        Returns:
            (first, positions): the index of the first new record and a (n_new, n_masses, 2) array, px;
            fewer than ``count`` (maybe none) at an explosion or the frame limit.
        """
        first = self.frame + 1
        target = min(self.frame + max(0, count), self.last_frame)
        if self.live:
            while self.frame < target and self._exploded_frame is None:
                self._continue(1)
                self.frame += 1
        else:
            self._compute(target)
            self.frame = min(target, self._first + len(self._positions) - 1)
        new = self._positions[first - self._first : self.frame - self._first + 1].copy()
        self._drop_before(self.frame)
        return first, new

    def _compute(self, target: int) -> None:
        """Have records up to ``target`` (unless the run exploded first)."""
        last = self._first + len(self._positions) - 1
        if target <= last or self._exploded_frame is not None:
            return
        if self.exact:
            self._continue(max(target - last, _CHUNK))
            return
        horizon = max(_CHUNK, self._horizon)
        while horizon < target:
            horizon *= 2
        horizon = min(horizon, self.last_frame)
        self.limits.check_values(horizon, self.creature.n_masses)  # every record is kept: bounded
        trajectory = simulate(self.creature, self.world, horizon * self.step, self.step)
        self._horizon = horizon
        self._first = 0
        self._positions, self._velocities = trajectory.positions, trajectory.velocities
        self._exploded_frame = trajectory.exploded_frame

    def _continue(self, records: int) -> None:
        """Simulate ``records`` more records from the last computed one, as the kernel would have gone on."""
        records = min(records, self.last_frame - (self._first + len(self._positions) - 1))
        if records <= 0:
            return
        positions, velocities = self._positions[-1].copy(), self._velocities[-1].copy()
        fixed = self._fixed
        if self.held is not None:
            fixed = fixed.copy()
            fixed[self.held] = True
            positions[self.held] = self._pointer
        state = self.creature.replace(
            positions=positions, velocities=velocities, fixed=fixed, wave_phase=self._theta
        )
        trajectory = simulate(state, self._chunk_world, records * self.step, self.step)
        start_frame = (self._first + len(self._positions) - 1) * self.step
        new_positions, new_velocities = trajectory.positions[1:], trajectory.velocities[1:].copy()
        if self.held is not None and len(new_velocities):
            (x, y), (x0, y0) = self._pointer, self._pointer_before
            new_velocities[-1, self.held] = ((x - x0) / self.step, (y - y0) / self.step)  # px/frame
            self._pointer_before = self._pointer
        self._positions = np.concatenate([self._positions, new_positions])
        self._velocities = np.concatenate([self._velocities, new_velocities])
        omega_dt, dt = self.creature.omega, self.world.dt
        for _ in range(round(len(new_positions) * self.step / dt)):
            self._theta += self._sign * omega_dt * dt  # as the kernel sums it, step by step
        if trajectory.exploded:
            self._exploded_frame = start_frame + trajectory.exploded_frame

    def _drop_before(self, frame: int) -> None:
        """Forget records before ``frame`` when continuing in chunks (they are never shown again)."""
        if (self.exact or self.live) and frame > self._first:
            cut = frame - self._first
            self._positions, self._velocities = self._positions[cut:], self._velocities[cut:]
            self._first = frame

    def _go_live(self) -> None:
        """Step from the current record on, one record per kernel call (a grab)."""
        if self.live:
            return
        self._compute(self.frame)
        cut = self.frame - self._first
        self._positions = self._positions[cut : cut + 1].copy()
        self._velocities = self._velocities[cut : cut + 1].copy()
        self._theta = float(self.creature.wave_phase)  # at this record, summed as the kernel sums it
        for _ in range(round(self.frame * self.step / self.world.dt)):
            self._theta += self._sign * self.creature.omega * self.world.dt
        self._first = self.frame
        self.live = True

    def grab(self, mass: int, x: float, y: float) -> None:
        """Hold ``mass`` at the pointer (x, y px) from the current record on.

        Raises:
            ValueError: no such mass.
        """
        if not 0 <= mass < self.creature.n_masses:
            raise ValueError(f"mass: no mass {mass}; the design has {self.creature.n_masses}")
        self._go_live()
        self.held = mass
        self._pointer = self._pointer_before = (float(x), float(y))

    def drag(self, x: float, y: float) -> None:
        """Move the held mass's pointer to (x, y) px; its velocity is the pointer's move between records."""
        if self.held is not None:
            self._pointer = (float(x), float(y))

    def release(self, vx: float, vy: float) -> None:
        """Let go of the held mass with the pointer's velocity (vx, vy) px/frame."""
        if self.held is not None:
            self._velocities[-1, self.held] = (float(vx), float(vy))
            self._positions[-1, self.held] = self._pointer
            self.held = None
