"""Robust scoring (``[evaluation] robust = {samples = K, ...}``): each creature scored in K perturbed worlds,
the same K for every creature of a run (seeded by ``seed`` and the sample's number), its fitness a low
quantile of the K scores. Samples of many creatures are simulated together in lanes (docs/audit.md).
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from evo.audit.perturb import PHYSICS, has_terrain, moved, perturbed_world
from evo.errors import EvoInputError
from evo.fitness import load_ref
from evo.fitness.evaluate import Evaluation, EvaluationSpec, evaluate, recording, worst_fitness
from evo.model import Creature
from evo.schema import check_fields, setting, shown
from evo.sim import Trajectory, World, simulate_batch

__all__ = [
    "RobustSettings",
    "low_quantile",
    "parse_robust",
    "robust_evaluation",
    "sample_worlds",
    "simulate_samples",
]

MAX_SAMPLES = 64


@dataclass(frozen=True)
class RobustSettings(Mapping):
    """``[evaluation] robust``: the perturbed worlds each creature is scored in, and how the scores are
    combined. A read-only mapping of its keys (the resolved config writes it as a table), hashable."""

    samples: int = setting(
        4,
        low=1,
        high=MAX_SAMPLES,
        doc="perturbed worlds each creature is scored in",
        why="each is a simulation",
    )
    quantile: float = setting(
        0.25, low=0.0, high=1.0, doc="the fitness is this quantile of the samples' scores (0: the worst)"
    )
    seed: int = setting(0, low=0, doc="seeds the samples' worlds (the same for every creature of the run)")
    gravity: float = setting(0.1, low=0.0, high=0.9, doc="gravity is scaled by 1 + u, u uniform in ±this")
    damping: float = setting(0.1, low=0.0, high=0.9, doc="damping is scaled by 1 + u, u uniform in ±this")
    stiffness: float = setting(0.1, low=0.0, high=0.9, doc="stiffness is scaled by 1 + u, u uniform in ±this")
    phase: float = setting(3.141592653589793, low=0.0, doc="rad: the wave's start phase moves by up to ±this")
    shift: float = setting(40.0, low=0.0, doc="px: the start position moves along x by up to ±this")
    terrain: bool = setting(
        True, doc="jitter the terrain (a world with terrain or a ground that is not flat)"
    )

    def __getitem__(self, key: str) -> Any:
        if key not in self._keys():
            raise KeyError(key)
        return getattr(self, key)

    def __iter__(self) -> Any:
        return iter(self._keys())

    def __len__(self) -> int:
        return len(self._keys())

    @classmethod
    def _keys(cls) -> tuple[str, ...]:
        return tuple(f.name for f in dataclasses.fields(cls))


def parse_robust(value: Any, *, source: str | None, field: str) -> RobustSettings | None:
    """``robust = {samples = K, ...}`` checked (errors name ``field`` and the key); None stays None."""
    if value is None:
        return None
    if isinstance(value, RobustSettings):
        return value
    if not isinstance(value, Mapping):
        raise EvoInputError(
            f"expected a table {{samples = K, ...}}, got {shown(value)}", source=source, field=field
        )
    return RobustSettings(**check_fields(RobustSettings, value, source=source, where=field))


@dataclass(frozen=True)
class Sample:
    """One perturbed world of a robust evaluation, and what it does to a creature (phase rad, shift px)."""

    world: World
    phase: float
    shift: float


@functools.cache
def sample_worlds(settings: RobustSettings, world: World) -> tuple[Sample, ...]:
    """The ``settings.samples`` perturbed worlds: sample k draws from ``default_rng([seed, k])`` its
    gravity, damping and stiffness factors, its phase and shift, and (terrain worlds) its terrain."""
    out = []
    for k in range(settings.samples):
        rng = np.random.default_rng([settings.seed, k])
        scale = {name: 1.0 + rng.uniform(-1.0, 1.0) * getattr(settings, name) for name in PHYSICS}
        phase = float(rng.uniform(-1.0, 1.0) * settings.phase)
        shift = float(rng.uniform(-1.0, 1.0) * settings.shift)
        terrain_rng = rng if settings.terrain and has_terrain(world) else None
        out.append(Sample(perturbed_world(world, scale=scale, terrain_rng=terrain_rng), phase, shift))
    return tuple(out)


def _moved(creature: Creature, sample: Sample) -> Creature:
    return moved(creature, sample.world, phase=sample.phase, shift=sample.shift)


def simulate_samples(
    creatures: Sequence[Creature], spec: EvaluationSpec, settings: RobustSettings
) -> list[tuple[Trajectory, ...]]:
    """Every creature in every sample world, each sample's creatures together in lanes
    (:func:`evo.sim.simulate_batch`, bit-identical to one at a time): one tuple of K trajectories per
    creature, recorded as :func:`robust_evaluation` wants them."""
    every, _ = recording(spec)
    per_sample = [
        simulate_batch([_moved(c, s) for c in creatures], s.world, spec.frames, every)
        for s in sample_worlds(settings, spec.world)
    ]
    return [tuple(trajectories) for trajectories in zip(*per_sample, strict=True)] if creatures else []


def robust_evaluation(
    creature: Creature,
    spec: EvaluationSpec,
    seed: int,
    settings: RobustSettings,
    trajectories: Sequence[Trajectory] | None = None,
) -> Evaluation:
    """``creature`` scored in each sample world by ``spec``'s plugin (seed ``seed``), its fitness per
    objective the ``settings.quantile`` of the samples' scores, counted from the worst (numpy's "lower"
    and "higher": always one of the scores). Exploded samples score the worst; the creature counts as
    exploded when its robust fitness is that worst.

    Args:
        trajectories: the K samples' simulations (:func:`simulate_samples`), when made already.
    """
    if spec.measures:
        raise EvoInputError(
            "[evaluation] robust scores fitness only; measures (MAP-Elites) are not supported"
        )
    samples = sample_worlds(settings, spec.world)
    scores = []
    for k, sample in enumerate(samples):
        trajectory = None if trajectories is None else trajectories[k]
        here = dataclasses.replace(spec, world=sample.world)
        scores.append(evaluate(_moved(creature, sample), here, seed, trajectory).fitness)
    weights = load_ref(spec.plugin).weights
    values = np.asarray(scores, dtype=float)
    fitness = tuple(low_quantile(values[:, j], settings.quantile, w > 0) for j, w in enumerate(weights))
    return Evaluation(fitness, exploded=fitness == worst_fitness(weights))


def low_quantile(scores: Sequence[float] | np.ndarray, quantile: float, maximised: bool = True) -> float:
    """The ``quantile`` of ``scores`` counted from the worst, by numpy's "lower" (or, minimised,
    "higher") method: always one of the scores, never interpolated, so that -inf (an exploded sample)
    stays -inf rather than making NaN."""
    scores = np.asarray(scores, dtype=float)
    if maximised:
        return float(np.quantile(scores, quantile, method="lower"))
    return float(np.quantile(scores, 1.0 - quantile, method="higher"))
