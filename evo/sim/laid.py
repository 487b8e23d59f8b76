"""Creatures laid end to end as arrays (:class:`Laid`): what the batched kernels need of the children a
compiled breeding call makes, cut into kernel calls and packed into lanes without a Python object per
creature (docs/performance.md, "Round seventeen").
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Executor
from typing import Any, NamedTuple

import numpy as np

from evo.model import Creature
from evo.sim.batch import (
    BATCHED_INTEGRATORS,
    MIN_LANES,
    LaneCall,
    _cut,
    _euler_fast_path,
    _packed_lanes,
    _runs,
    _speed_limits2,
)
from evo.sim.kernels import batch_euler as _batch_kernel
from evo.sim.kernels.laid import first_alike, pack_rows
from evo.sim.world import World

__all__ = ["Laid", "laid_runs"]


class Laid(NamedTuple):
    """Creatures at rest, none of their masses fixed, with the applet's physics, laid end to end: per
    creature (n,) ``masses`` and ``links`` counts, ``beta``, ``omega``, ``theta0`` (its wave's phase at
    frame 0), ``sign`` (-1 for a wave run backwards, else 1) and ``autoreverse`` (uint8); (n + 1,)
    ``mass_at`` and ``link_at``, where each one's masses and links begin; (masses, 2) ``positions``;
    (links,) ``link_a``, ``link_b`` (each creature's own mass numbers), ``rest``, ``alpha``, and the cosine
    and sine of each link's phase (numpy's, as :func:`evo.sim.batch.lane_runs` packs them)."""

    masses: np.ndarray
    links: np.ndarray
    mass_at: np.ndarray
    link_at: np.ndarray
    positions: np.ndarray
    link_a: np.ndarray
    link_b: np.ndarray
    rest: np.ndarray
    alpha: np.ndarray
    cos_phi: np.ndarray
    sin_phi: np.ndarray
    beta: np.ndarray
    omega: np.ndarray
    theta0: np.ndarray
    sign: np.ndarray
    autoreverse: np.ndarray

    @classmethod
    def of_children(
        cls,
        sizes: np.ndarray,
        positions: np.ndarray,
        ends: np.ndarray,
        genes: np.ndarray,
        waves: np.ndarray,
        templates: Sequence[Creature],
        trig: np.ndarray | None = None,
    ) -> Laid:
        """The children of a compiled breeding call (:func:`evo.ga.kernels.brood.compiled_broods`): (n, 2)
        masses and links ``sizes``, ``positions``, (2, links) ``ends``, (3, links) ``genes`` (rest, alpha,
        phi), (n, 2) ``waves`` (omega, beta), and the creature each child takes its wave's phase,
        direction and autoreverse from; ``trig``: the (2, links) cosines and sines of the phases where
        already computed (another process laid the same children), else computed here."""
        zero = np.zeros(1, np.int64)
        if trig is None:
            trig = np.cos(genes[2]), np.sin(genes[2])
        return cls(
            masses=sizes[:, 0],
            links=sizes[:, 1],
            mass_at=np.concatenate([zero, np.cumsum(sizes[:, 0])]),
            link_at=np.concatenate([zero, np.cumsum(sizes[:, 1])]),
            positions=positions,
            link_a=ends[0],
            link_b=ends[1],
            rest=genes[0],
            alpha=genes[1],
            cos_phi=trig[0],
            sin_phi=trig[1],
            beta=np.ascontiguousarray(waves[:, 1]),
            omega=np.ascontiguousarray(waves[:, 0]),
            theta0=np.array([float(t.wave_phase) for t in templates], dtype=np.float64),
            sign=np.array([-1.0 if t.wave_reverse else 1.0 for t in templates]),
            autoreverse=np.array([t.autoreverse for t in templates], dtype=np.uint8),
        )

    @staticmethod
    def holds(creature: Creature) -> bool:
        """Whether a Laid can hold ``creature``: at rest at frame 0, no mass fixed, the applet's physics."""
        return creature.has_default_physics and not creature.velocities.any() and not creature.fixed.any()

    @classmethod
    def of(cls, creatures: Sequence[Creature]) -> Laid:
        """``creatures`` laid end to end.

        Raises:
            ValueError: a creature that moves at frame 0, has a fixed mass or other physics than the
                applet's (a Laid holds none of those).
        """
        for k, c in enumerate(creatures):
            if not cls.holds(c):
                raise ValueError(
                    f"creature {k} ({c.name!r}) is not at rest, free and of the applet's physics: it cannot"
                    " be laid out"
                )
        sizes = np.array([(c.n_masses, c.n_links) for c in creatures], dtype=np.int64).reshape(-1, 2)
        none = [np.zeros((0, 2)), np.zeros((2, 0), np.int64), np.zeros((3, 0))]  # for no creature at all
        return cls.of_children(
            sizes,
            np.concatenate([none[0], *(c.positions for c in creatures)]),
            np.concatenate([none[1], *(np.stack([c.link_a, c.link_b]) for c in creatures)], axis=1),
            np.concatenate([none[2], *(np.stack([c.rest, c.alpha, c.phi]) for c in creatures)], axis=1),
            np.array([(c.omega, c.beta) for c in creatures], dtype=np.float64).reshape(-1, 2),
            creatures,
        )

    def groups(self, rows: np.ndarray, world: World) -> dict[bool, list[int]]:
        """:func:`evo.sim.batch.kernel_groups` of the creatures ``rows``: positions in ``rows``."""
        if world.integrator not in BATCHED_INTEGRATORS:
            return {}
        fits = np.flatnonzero((self.masses[rows] + 1) * MIN_LANES <= _batch_kernel.STACK_DOUBLES)
        if fits.size < MIN_LANES:
            return {}
        return {_euler_fast_path(world): fits.tolist()}

    def calls(self, rows: np.ndarray, threads: int = 1) -> list[list[int]]:
        """:func:`evo.sim.batch.lane_calls` of the creatures ``rows``: positions in ``rows``."""
        first = first_alike(rows, self.masses, self.links, self.link_at, self.link_a, self.link_b)
        return _cut(self.masses[rows], self.links[rows], first, threads)

    def max_speed2(self, rows: np.ndarray, world: World) -> np.ndarray:
        """(len(rows),) each creature's speed limit squared, as ``evo.sim.batch._max_speed2`` computes it
        from the creatures (:func:`evo.sim.speed_limit` of its masses' positions)."""
        at, positions = self.mass_at, self.positions
        return _speed_limits2(world, [positions[at[r] : at[r + 1]] for r in rows.tolist()])

    def pack(self, rows: np.ndarray) -> dict[str, np.ndarray]:
        """What ``evo.sim.batch._pack`` makes of the creatures ``rows`` (one per lane; the Euler fast
        path's arrays), array for array."""
        lanes = pack_rows(
            rows, self.masses, self.links, self.mass_at, self.link_at, self.positions, self.link_a,
            self.link_b, self.rest, self.alpha, self.beta, self.cos_phi, self.sin_phi,
        )  # fmt: skip
        waves = self.omega[rows], self.theta0[rows], self.sign[rows], self.autoreverse[rows]
        return _packed_lanes(lanes[:8], *waves)


def laid_runs(
    laid: Laid,
    rows: np.ndarray,
    world: World,
    frames: int,
    record_every: float = 1,
    *,
    threads: Executor | None = None,
    after_each: Callable[[LaneCall], Any] | None = None,
    when_idle: Callable[[LaneCall], None] | None = None,
) -> tuple[list[int], Iterator[LaneCall]] | None:
    """:func:`evo.sim.batch.lane_runs` of the creatures ``laid`` holds at ``rows``, without the creatures
    (LaneCall.members are positions in ``rows``); with ``threads``, their tasks start on the calls now,
    before this returns, and the thread that reads the iterator joins them (it may first do other work:
    round eighteen, docs/performance.md). Closing the iterator drops the calls no thread has taken.
    ``after_each``, ``when_idle``: as :func:`~evo.sim.batch.lane_runs`'.
    None where the world's kernel packs its lanes from the creatures (any but the Euler fast path).

    Raises:
        EvoInputError: as :func:`evo.sim.batch.lane_runs`.
    """
    if not _euler_fast_path(world):
        return None
    return _runs(
        None, world, frames, record_every, threads, (laid, rows), after_each, now=True, when_idle=when_idle
    )
