"""The studio's playback: frames of a design, exactly those of :func:`evo.simulate`, and a mass held by the
pointer. Exactness by re-simulating from frame 0 to a doubling horizon; once grabbed, steps go on live."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from evo.model import Creature
from evo.sim import simulate
from evo.sim.world import World
from evo.studio.limits import StudioLimits

__all__ = ["Player", "PlayerStatus", "frame_step"]

_FIRST_HORIZON = 64  # frames simulated on a load; each time more are needed the horizon doubles


def frame_step(world: World) -> float:
    """Frames between two streamed records: 1, or ``dt`` when 1 frame is not a whole number of steps."""
    steps = 1.0 / world.dt
    return 1.0 if abs(steps - round(steps)) < 1e-9 else float(world.dt)


@dataclass(frozen=True)
class PlayerStatus:
    """Where the playback stands: ``frame`` (record index), ``exploded`` with its ``exploded_frame``
    (record index) and ``end`` (True when no frame follows: an explosion or the frame limit)."""

    frame: int
    exploded: bool
    exploded_frame: int | None
    end: bool


class Player:
    """Frames of one design, in records of :func:`frame_step` frames.

    Without a grab, record ``k`` equals record ``k`` of ``evo.simulate(creature, frames=K)`` for any
    ``K >= k`` bit for bit: the player simulates from frame 0 to a horizon that doubles as playback goes
    on and slices it. A grab switches to live stepping from the current state, one record per call.

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
        self._positions = np.array(creature.positions, dtype=np.float64)[None]
        self._velocities = np.array(creature.velocities, dtype=np.float64)[None]
        self._exploded_at: int | None = None
        self._horizon = 0
        self._live: _Live | None = None

    @property
    def last_frame(self) -> int:
        """The last record playback may reach (the frame limit), an index."""
        return int(self.limits.frames / self.step)

    def positions(self, frame: int) -> np.ndarray:
        """(n_masses, 2) px at record ``frame`` (already computed)."""
        if self._live is not None:
            return self._live.positions
        return self._positions[frame]

    def status(self) -> PlayerStatus:
        """The playback's :class:`PlayerStatus`."""
        exploded_at = self._exploded_at if self._live is None else self._live.exploded_at
        end = exploded_at is not None or self.frame >= self.last_frame
        return PlayerStatus(self.frame, exploded_at is not None, exploded_at, end)

    def reset(self) -> None:
        """Back to frame 0 of the design (a grab is forgotten)."""
        self.frame = 0
        self._live = None

    def advance(self, count: int) -> tuple[int, np.ndarray]:
        """Play ``count`` more records.

        Returns:
            (first, positions): the index of the first new record and a (n_new, n_masses, 2) array, px;
            fewer than ``count`` (maybe none) at an explosion or the frame limit.
        """
        first = self.frame + 1
        count = max(0, min(count, self.last_frame - self.frame))
        if self._live is not None:
            out = []
            for _ in range(count):
                if self._live.exploded_at is not None:
                    break
                out.append(self._live.advance(self.frame + 1).copy())
                self.frame += 1
            n = self.creature.n_masses
            return first, np.array(out).reshape(len(out), n, 2)
        self._ensure(self.frame + count)
        stop = min(self.frame + count, len(self._positions) - 1)
        new = self._positions[first : stop + 1]
        self.frame = max(self.frame, stop)
        return first, new

    def _ensure(self, frame: int) -> None:
        """Simulate from frame 0 far enough to hold record ``frame`` (unless the run exploded before)."""
        if frame < len(self._positions) or self._exploded_at is not None:
            return
        horizon = max(_FIRST_HORIZON, self._horizon)
        while horizon < frame:
            horizon *= 2
        horizon = min(horizon, self.last_frame)
        trajectory = simulate(self.creature, self.world, horizon * self.step, self.step)
        self._horizon = horizon
        self._positions = trajectory.positions
        self._velocities = trajectory.velocities
        if trajectory.exploded:
            self._exploded_at = len(trajectory.positions) - 1

    def grab(self, mass: int, x: float, y: float) -> None:
        """Hold ``mass`` at the pointer (x, y px) from the current frame on."""
        if self._live is None:
            self._ensure(self.frame)
            frame = min(self.frame, len(self._positions) - 1)
            self._live = _Live(self, self._positions[frame], self._velocities[frame])
        self._live.grab(mass, x, y)

    def drag(self, x: float, y: float) -> None:
        """Move the held mass's pointer to (x, y) px."""
        if self._live is not None:
            self._live.drag(x, y)

    def release(self, vx: float, vy: float) -> None:
        """Let go of the held mass with the pointer's velocity (vx, vy) px/frame."""
        if self._live is not None:
            self._live.release(vx, vy)


class _Live:
    """Live stepping from a state (after a grab): one :func:`simulate` call per record, the wave angle
    carried as ``wave_phase``; the held mass is fixed at the pointer and moves with its velocity."""

    def __init__(self, player: Player, positions: np.ndarray, velocities: np.ndarray):
        self.player = player
        self.positions = np.array(positions, dtype=np.float64)
        self.velocities = np.array(velocities, dtype=np.float64)
        self.fixed = np.array(player.creature.fixed, dtype=bool)
        self.held: int | None = None
        self.pointer = (0.0, 0.0)
        self.pointer_velocity = (0.0, 0.0)
        self.exploded_at: int | None = None

    def grab(self, mass: int, x: float, y: float) -> None:
        if not 0 <= mass < len(self.positions):
            raise ValueError(f"no mass {mass}: the design has {len(self.positions)}")
        self.held = mass
        self.pointer = (float(x), float(y))
        self.pointer_velocity = (0.0, 0.0)
        self.positions[mass] = self.pointer

    def drag(self, x: float, y: float) -> None:
        px, py = self.pointer
        self.pointer_velocity = (float(x) - px, float(y) - py)
        self.pointer = (float(x), float(y))

    def release(self, vx: float, vy: float) -> None:
        if self.held is not None:
            self.velocities[self.held] = (float(vx), float(vy))
            self.held = None

    def advance(self, frame: int) -> np.ndarray:
        """Step one record to ``frame``; the new (n_masses, 2) positions, px."""
        player = self.player
        creature = player.creature
        fixed = self.fixed.copy()
        if self.held is not None:
            fixed[self.held] = True
            self.positions[self.held] = self.pointer
        sign = -1.0 if creature.wave_reverse else 1.0
        theta = creature.wave_phase + sign * creature.omega * (frame - 1) * player.step
        state = creature.replace(
            positions=self.positions, velocities=self.velocities, fixed=fixed, wave_phase=theta
        )
        trajectory = simulate(state, player.world, player.step, player.step)
        self.positions = np.array(trajectory.positions[-1])
        self.velocities = np.array(trajectory.velocities[-1])
        if self.held is not None:
            self.velocities[self.held] = self.pointer_velocity
        if trajectory.exploded or not np.isfinite(self.positions).all():
            self.exploded_at = frame
        return self.positions
