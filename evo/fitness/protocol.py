"""The fitness-plugin protocol: what a plugin receives (:class:`SimulationResult`), how it declares itself
(:func:`fitness_plugin`) and how it is named across processes (:class:`PluginRef`). See docs/plugins.md.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from evo.errors import EvoInputError
from evo.fitness.measures import BUILTIN_MEASURES
from evo.fitness.views import sealed
from evo.model import Creature
from evo.schema import is_finite_number, number_problem
from evo.sim.simulate import centroids_of
from evo.sim.world import World

__all__ = [
    "DECLARED",
    "Plugin",
    "PluginRef",
    "RESERVED_OBJECTIVES",
    "SimulationResult",
    "declare",
    "fitness_plugin",
]

# names an objective may not have: history.csv's columns masses_mean and links_mean would clash with theirs
RESERVED_OBJECTIVES = ("masses", "links")

# Plugins declared by the decorator, per module name, in declaration order (filled while a module loads).
DECLARED: dict[str, list[Plugin]] = {}


@dataclass(frozen=True)
class SimulationResult:
    """What a plugin scores: one creature's recorded simulation.

    Attributes:
        positions: (records, masses, 2) array, px.
        velocities: (records, masses, 2) array, px/frame.
        frames: (records,) array, the frame number of each record (0 is the initial state).
        total_frames: the frames the evaluation asked for.
        exploded: always False for a plugin (exploded creatures are not scored); kept for completeness.
        model: the :class:`~evo.model.Creature` that was simulated.
        world: the :class:`~evo.sim.World` it was simulated in.
        seed: the evaluation's seed (int).
        rng: ``numpy.random.default_rng(seed)``, for plugins that want noise (made on first use).
    """

    positions: np.ndarray
    velocities: np.ndarray
    frames: np.ndarray
    total_frames: float
    exploded: bool
    model: Creature
    world: World
    seed: int

    @functools.cached_property
    def rng(self) -> np.random.Generator:
        return np.random.default_rng(self.seed)

    @functools.cached_property
    def centroids(self) -> np.ndarray:
        """(records, 2) mean position of all masses, px (computed once, :func:`sealed` as every array
        a plugin is handed)."""
        return sealed(centroids_of(self.positions))

    def index_at(self, frame: float) -> int:
        """Index of the first record at or after ``frame`` (the last record if none is).

        Args:
            frame: a frame number (frames since the start of the simulation).

        Returns:
            An index into ``positions``, ``velocities``, ``frames`` and ``centroids``.
        """
        return record_index(self.frames, frame)


def record_index(frames: np.ndarray, frame: float) -> int:
    """:meth:`SimulationResult.index_at` of records at ``frames`` (ascending): the index of the first at
    or after ``frame``, the last if none is (what compiled reducers compute with
    :func:`evo.fitness.reducers.index_at`)."""
    index = int(np.searchsorted(frames, frame, side="left"))
    return min(max(index, 0), len(frames) - 1)


@dataclass(frozen=True)
class PluginRef:
    """A plugin by reference: plain data that any process resolves with :func:`evo.fitness.load_ref`.

    ``origin`` is ``file:/abs/path.py`` (a plugin file), ``module:package.module`` (an importable module
    declaring plugins: entry points), ``python:package.module:function`` (a function registered from
    Python that any process can import) or ``registered:name`` (a function registered in this process,
    reachable only here and in forked workers). For a ``python:`` function the declaration travels with the
    reference: ``weights``, ``record_every``, ``objectives`` and ``measures`` (with their ranges).
    """

    name: str
    origin: str
    weights: tuple[float, ...] = ()
    record_every: float = 0.0
    objectives: tuple[str, ...] = ()
    measures: tuple[str, ...] = ()
    measure_ranges: tuple[tuple[float, float] | None, ...] = ()


@dataclass(frozen=True)
class Plugin:
    """A registered fitness function and what evo needs to know about it.

    ``measures`` are the names of the measures it returns after its objectives (quality-diversity runs
    place creatures by them, docs/qd.md), ``measure_ranges`` a default (low, high) or None for each.
    """

    name: str
    func: Callable[..., Any]
    weights: tuple[float, ...]
    record_every: float
    objectives: tuple[str, ...]
    params: dict[str, Any]
    doc: str
    origin: str = ""
    measures: tuple[str, ...] = ()
    measure_ranges: tuple[tuple[float, float] | None, ...] = ()

    def ref(self) -> PluginRef:
        if self.origin.startswith("python:"):  # the declaration travels with the reference
            return PluginRef(
                self.name,
                self.origin,
                self.weights,
                self.record_every,
                self.objectives,
                self.measures,
                self.measure_ranges,
            )
        return PluginRef(self.name, self.origin)

    @property
    def measure_spec(self) -> tuple[str, ...] | dict[str, tuple[float, float] | None]:
        """The measures as the decorator takes them: names, or names with their default ranges."""
        if any(r is not None for r in self.measure_ranges):
            return dict(zip(self.measures, self.measure_ranges, strict=True))
        return self.measures


def _checked(
    name: str, weights: Any, record_every: Any, objectives: Any, where: str
) -> tuple[tuple[float, ...], float, tuple[str, ...]]:
    """The declaration's weights, record_every and objectives, checked (one-line EvoInputError)."""
    if not isinstance(name, str) or not name.strip() or any(c.isspace() for c in name):
        raise EvoInputError(f"{where}: the name must be a non-empty string without spaces")
    weights = tuple(weights) if isinstance(weights, tuple | list) else ()
    if not weights or not all(is_finite_number(w) and w != 0 for w in weights):
        raise EvoInputError(f"{where}: weights must be a non-empty tuple of finite non-zero numbers")
    problem = number_problem(record_every, low=0, open_low=True)
    if problem:
        raise EvoInputError(f"{where}: record_every (frames): {problem}")
    if objectives is None:
        objectives = (name,) if len(weights) == 1 else tuple(f"{name}_{i}" for i in range(len(weights)))
    objectives = tuple(objectives)
    if len(objectives) != len(weights) or not all(isinstance(o, str) and o.strip() for o in objectives):
        raise EvoInputError(f"{where}: objectives must name each of the {len(weights)} weights")
    if len(set(objectives)) != len(objectives):
        raise EvoInputError(f"{where}: objectives must have distinct names, got {objectives}")
    taken = [o for o in objectives if o in RESERVED_OBJECTIVES]
    if taken:
        raise EvoInputError(
            f"{where}: objective name '{taken[0]}' is taken: history.csv already has a column "
            f"'{taken[0]}_mean' (the population's mean number of {taken[0]})"
        )
    return tuple(float(w) for w in weights), float(record_every), objectives


def _checked_measures(
    measures: Any, where: str
) -> tuple[tuple[str, ...], tuple[tuple[float, float] | None, ...]]:
    """A declaration's measures: a tuple of names, or a mapping of names to (low, high) or None."""
    if measures is None:
        return (), ()
    if isinstance(measures, Mapping):
        names, ranges = tuple(measures), tuple(measures.values())
    elif isinstance(measures, tuple | list):
        names, ranges = tuple(measures), (None,) * len(measures)
    else:
        raise EvoInputError(f"{where}: measures must be a tuple of names or a mapping of names to ranges")
    for measure in names:
        if not isinstance(measure, str) or not measure.isidentifier():
            raise EvoInputError(f"{where}: a measure name must be an identifier, got {measure!r}")
        if measure in BUILTIN_MEASURES:
            raise EvoInputError(f"{where}: measure name '{measure}' is taken by a built-in measure")
    if len(set(names)) != len(names):
        raise EvoInputError(f"{where}: measures must have distinct names, got {names}")
    checked: list[tuple[float, float] | None] = []
    for measure, pair in zip(names, ranges, strict=True):
        if pair is None:
            checked.append(None)
            continue
        ok = isinstance(pair, tuple | list) and len(pair) == 2 and all(map(is_finite_number, pair))
        if not ok or not pair[0] < pair[1]:
            raise EvoInputError(
                f"{where}: the range of measure '{measure}' must be (low, high) with low < high"
            )
        checked.append((float(pair[0]), float(pair[1])))
    return names, tuple(checked)


def declare(
    name: str,
    func: Callable[..., Any],
    *,
    weights: tuple[float, ...] = (1.0,),
    record_every: float = 10,
    objectives: tuple[str, ...] | None = None,
    measures: tuple[str, ...] | Mapping[str, Any] | None = None,
    where: str | None = None,
) -> Plugin:
    """Check a fitness function's declaration and return the :class:`Plugin` (not registered anywhere).

    Raises:
        EvoInputError: a bad name, weights, record_every, objectives, measures or signature (one line).
    """
    where = where or f"fitness_plugin({name!r})"
    weights, record_every, objectives = _checked(name, weights, record_every, objectives, where)
    measure_names, measure_ranges = _checked_measures(measures, where)
    if not callable(func):
        raise EvoInputError(f"{where}: expected a function, got {type(func).__name__}")
    return Plugin(
        name=name,
        func=func,
        weights=weights,
        record_every=record_every,
        objectives=objectives,
        params=_defaults_of(func, where),
        doc=_first_line(func.__doc__),
        measures=measure_names,
        measure_ranges=measure_ranges,
    )


def fitness_plugin(
    name: str,
    *,
    weights: tuple[float, ...] = (1.0,),
    record_every: float = 10,
    objectives: tuple[str, ...] | None = None,
    measures: tuple[str, ...] | Mapping[str, Any] | None = None,
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Declare the decorated function as the fitness plugin ``name``.

    Args:
        name: the name configs use (``plugin = "distance"``).
        weights: one per objective; > 0 maximise, < 0 minimise. Only the sign matters to evo's selection
            (NSGA-II ranks by Pareto dominance and crowding, the hall of fame lexicographically).
        record_every: frames between the records in ``result`` (a whole number of steps of ``dt``).
        objectives: a name per objective (default ``(name,)``, or ``name_0, name_1, ...``).
        measures: names of measures the function returns after its objectives, for quality-diversity
            runs (docs/qd.md); or a mapping of each name to its default range ``(low, high)`` (or None).

    Returns:
        The decorator; it returns the function unchanged, with a ``__fitness_plugin__`` attribute.

    Raises:
        EvoInputError: a bad declaration (checked when the decorator is applied).

    The function must take the result as its only positional parameter; every other parameter needs a
    default.
    """
    _checked(name, weights, record_every, objectives, f"fitness_plugin({name!r})")  # fail at once
    _checked_measures(measures, f"fitness_plugin({name!r})")

    def decorate(func: Callable[..., Any]) -> Callable[..., Any]:
        plugin = declare(
            name, func, weights=weights, record_every=record_every, objectives=objectives, measures=measures
        )
        func.__fitness_plugin__ = plugin
        DECLARED.setdefault(func.__module__, []).append(plugin)
        return func

    return decorate


def _first_line(doc: str | None) -> str:
    lines = inspect.cleandoc(doc or "").splitlines()
    return lines[0].strip() if lines else ""


def _defaults_of(func: Callable[..., Any], where: str) -> dict[str, Any]:
    """{parameter: default} of every parameter after the first (the result)."""
    params = list(inspect.signature(func).parameters.values())
    if not params or params[0].kind not in (params[0].POSITIONAL_ONLY, params[0].POSITIONAL_OR_KEYWORD):
        raise EvoInputError(f"{where}: the function must take the simulation result as its first parameter")
    out = {}
    for p in params[1:]:
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            raise EvoInputError(f"{where}: *args and **kwargs are not allowed; name each parameter")
        if p.default is p.empty:
            raise EvoInputError(f"{where}: parameter '{p.name}' needs a default")
        out[p.name] = p.default
    return out
