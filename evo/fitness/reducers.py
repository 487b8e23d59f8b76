"""Compiled reducers: a fitness plugin's score computed from lanes' records in compiled code, with no
trajectory object, bit for bit what its Python function returns (docs/plugins.md, "A compiled reducer").
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numba as nb
import numpy as np
from numba import types
from numba.core.types.function_type import WrapperAddressProtocol
from numba.experimental.function_type import _get_wrapper_address

from evo.fitness.protocol import Plugin, record_index
from evo.sim.simulate import Trajectory, steps_for
from evo.sim.world import World

__all__ = [
    "REDUCER_SIGNATURE",
    "BoundReducer",
    "LaneScores",
    "Reducer",
    "bind_reducer",
    "centroid",
    "compiled_reducer",
    "index_at",
    "numpy_mean",
    "numpy_sum",
    "reduce_lanes",
    "reduce_outputs",
    "reduce_trajectories",
    "reducer_of",
    "sparse_record_every",
]

# kernel(positions (records, masses, 2) px, frames (records,), total_frames, constants (k,), out (values,)):
# writes the plugin's objectives, then its own measures, into ``out``
REDUCER_SIGNATURE = types.void(
    types.float64[:, :, ::1], types.float64[::1], types.float64, types.float64[::1], types.float64[::1]
)
_JIT = dict(cache=True, nogil=True, error_model="numpy", boundscheck=False)
_PAIRWISE_BLOCK = 128  # numpy's PW_BLOCKSIZE: its sums add blocks of this many with 8 accumulators


@dataclass(frozen=True)
class Reducer:
    """A plugin's compiled reducer: ``kernel`` compiled with :data:`REDUCER_SIGNATURE`, and ``constants``,
    which turns the plugin's parameters and the world into the kernel's float64 constants, or None where
    the kernel does not apply (that evaluation then goes through the plugin's Python function).
    ``reads``, where given, says which records the kernel reads (:func:`compiled_reducer`)."""

    kernel: Any
    constants: Callable[[Mapping[str, Any], World], np.ndarray | None]
    reads: Callable[[np.ndarray], Sequence[float]] | None = None


def compiled_reducer(
    plugin_func: Callable[..., Any],
    constants: Callable[[Mapping[str, Any], World], np.ndarray | None] | None = None,
    *,
    reads: Callable[[np.ndarray], Sequence[float]] | None = None,
) -> Callable[[Any], Any]:
    """Declare the decorated numba function the compiled reducer of ``plugin_func`` (a function decorated
    with :func:`evo.fitness_plugin`). The kernel, a ``numba.njit`` function, is compiled for
    :data:`REDUCER_SIGNATURE` when first bound; ``constants(params, world)`` (default: the parameters'
    values in the plugin's order, as floats) makes its constants array. Returns the kernel unchanged.

    ``reads(constants)``, where given, is the kernel's promise that it reads only the last record and the
    records ``index_at(frames, f)`` for each frame ``f`` it returns, finding them through ``frames``: a
    run then records only a regular subset of the plugin's records that holds those
    (:func:`sparse_record_every`), and the kernel's numbers are the same."""

    def decorate(kernel: Any) -> Any:
        if not callable(getattr(kernel, "compile", None)):
            raise TypeError(f"a compiled reducer must be a numba.njit function, got {kernel!r}")
        if reads is not None and not callable(reads):
            raise TypeError(f"reads must be a function of the constants, got {reads!r}")
        plugin_func.__compiled_reducer__ = Reducer(kernel, constants or _parameter_values, reads)
        return kernel

    return decorate


def sparse_record_every(record_every: float, dt: float, frames: float, read: Sequence[float]) -> float:
    """The longest interval between records (frames; ``record_every`` times a whole number) whose records
    include the last of the plugin's records and, for each frame ``f`` of ``read``, the plugin's record
    ``index_at(frames, f)``: the kernel of a reducer that reads only those (``reads``) gives the same
    numbers from these fewer records, since ``index_at`` then finds the same records among them.
    ``record_every`` where no longer interval does, or where the steps do not divide evenly.

    Args:
        record_every: the plugin's interval between records, frames.
        dt: the world's step, frames.
        frames: the frames simulated.
        read: the frames the kernel looks its records up at (``reads(constants)``).
    """
    try:  # a setting the simulation would reject keeps the plugin's interval (and fails there)
        stride = steps_for(record_every, dt, "record_every")
        last = steps_for(frames, dt) // stride if stride > 0 else 0  # the plugin's last record
        if last <= 0:
            return record_every
        times = np.arange(last + 1, dtype=np.float64) * stride * dt  # the trajectories' frames
        factor = last
        for f in read:
            factor = math.gcd(factor, record_index(times, float(f)))
        sparse = record_every * factor
        if factor <= 1 or steps_for(sparse, dt, "record_every") != stride * factor:
            return record_every
    except ValueError:
        return record_every
    return sparse


def _parameter_values(params: Mapping[str, Any], world: World) -> np.ndarray:
    return np.array([float(v) for v in params.values()], dtype=np.float64)


def reducer_of(plugin: Plugin) -> Reducer | None:
    """The plugin's compiled reducer, or None when it offers none."""
    return getattr(plugin.func, "__compiled_reducer__", None)


class _Compiled(WrapperAddressProtocol):
    """A compiled reducer kernel handed to the loop over lanes by the address of its C wrapper, looked up
    once: passed as a dispatcher, numba would look it up in LLVM on every call (twice)."""

    def __init__(self, kernel: Any):
        self.kernel = kernel  # keeps the compiled code alive
        self.address = _get_wrapper_address(kernel, REDUCER_SIGNATURE)

    def __wrapper_address__(self) -> int:
        return self.address

    def signature(self) -> Any:
        return REDUCER_SIGNATURE

    def __reduce__(self) -> tuple:  # an address means nothing in another process: look it up there
        return _Compiled, (self.kernel,)


@dataclass(frozen=True)
class BoundReducer:
    """A reducer bound to one evaluation setting: its kernel, constants, the number of values it writes
    (objectives, then the plugin's measures), the objectives' weights and the frames simulated;
    ``compiled`` is the kernel as the loop over lanes calls it; ``record_every``: the interval between
    records (frames) the kernel needs, a multiple of the plugin's where it reads only a few records
    (:func:`sparse_record_every`), or None (the plugin's own)."""

    kernel: Any
    constants: np.ndarray
    n_objectives: int
    n_measures: int
    weights: tuple[float, ...]
    total_frames: float
    compiled: Any = None
    record_every: float | None = None


def bind_reducer(
    plugin: Plugin, params: Mapping[str, Any], world: World, frames: float
) -> BoundReducer | None:
    """The plugin's reducer for ``params`` (a config's ``[evaluation.params]``; defaults filled in here)
    in ``world`` over ``frames`` frames, or None when it has none or it declines this setting."""
    reducer = reducer_of(plugin)
    if reducer is None:
        return None
    constants = reducer.constants({**plugin.params, **params}, world)
    if constants is None:
        return None
    constants = np.ascontiguousarray(constants, dtype=np.float64)
    reducer.kernel.compile(REDUCER_SIGNATURE)  # or load it from numba's cache
    every = None
    if reducer.reads is not None:
        every = sparse_record_every(plugin.record_every, world.dt, frames, tuple(reducer.reads(constants)))
    return BoundReducer(
        reducer.kernel,
        constants,
        len(plugin.weights),
        len(plugin.measures),
        plugin.weights,
        float(frames),
        _Compiled(reducer.kernel),
        every,
    )


@dataclass(frozen=True)
class LaneScores:
    """What :func:`reduce_lanes` returns, per lane: ``fitness`` (lanes, objectives) (the worst values where
    exploded), ``measures`` (lanes, plugin measures) (NaN where exploded), ``exploded`` (lanes,) bool, and
    ``python`` (lanes,) bool: lanes whose values the Python path must redo (a NaN objective or a
    non-finite measure, which it reports as the plugin's failure)."""

    fitness: np.ndarray
    measures: np.ndarray
    exploded: np.ndarray
    python: np.ndarray


def reduce_lanes(
    bound: BoundReducer,
    records: np.ndarray,
    layout: np.ndarray,
    n_rec: np.ndarray,
    exploded_at: np.ndarray,
    frames: np.ndarray,
    every: int = 1,
) -> LaneScores:
    """Score every lane of a batched kernel's output with a bound reducer, in one compiled call.

    Args:
        bound: from :func:`bind_reducer`.
        records: (2, total) float64, the kernels' records (positions, then velocities; a block per lane).
        layout: (2 + rows, lanes) int64: each lane's block start and its masses (rows 0 and 1).
        n_rec: (lanes,) int64 records per lane; ``exploded_at``: (lanes,) int64 step of the explosion or -1.
        frames: (at least max(n_rec),) float64, the frame of each record, as the trajectories have them
            (``np.arange(n) * stride * dt``).
        every: the plugin reads every ``every``-th record (:func:`evo.fitness.evaluate.recording`).

    Returns:
        The :class:`LaneScores`.
    """
    return reduce_outputs(bound, [(records, layout, n_rec, exploded_at)], frames, every)


def reduce_outputs(
    bound: BoundReducer, outputs: Sequence[tuple[np.ndarray, ...]], frames: np.ndarray, every: int = 1
) -> LaneScores:
    """:func:`reduce_lanes` of several batched kernel calls' outputs at once, their lanes in order: one
    compiled call per output, on its own buffers (nothing copied), and one set of score arrays.

    Args:
        bound: from :func:`bind_reducer`.
        outputs: each call's ``(records, layout, n_rec, exploded_at)``, as :func:`reduce_lanes` takes them.
        frames: the frame of each record of the longest lane of them all.
        every: as :func:`reduce_lanes`.

    Returns:
        The :class:`LaneScores` of every lane, the outputs' lanes one after the other.
    """
    lanes = sum(out[2].shape[0] for out in outputs)
    values = np.empty((lanes, bound.n_objectives + bound.n_measures))
    python = np.zeros(lanes, dtype=np.bool_)
    exploded = np.empty(lanes, dtype=np.bool_)
    kernel = bound.compiled or bound.kernel
    frames = np.ascontiguousarray(frames, dtype=np.float64)
    reduce, start = _lanes_kernel(), 0
    for records, layout, n_rec, exploded_at in outputs:
        stop = start + n_rec.shape[0]
        reduce(
            kernel, records, layout, n_rec, exploded_at, frames, every, bound.total_frames, bound.constants,
            bound.n_objectives, values[start:stop], python[start:stop],
        )  # fmt: skip
        exploded[start:stop] = exploded_at >= 0
        start = stop
    fitness = values[:, : bound.n_objectives]
    fitness[exploded] = [-math.inf if w > 0 else math.inf for w in bound.weights]
    measures = values[:, bound.n_objectives :]
    measures[exploded] = np.nan
    return LaneScores(fitness, measures, exploded, python & ~exploded)


def reduce_trajectories(
    bound: BoundReducer, trajectories: Sequence[Trajectory], every: int = 1
) -> LaneScores:
    """:func:`reduce_lanes` of trajectories (from :func:`evo.sim.simulate` or ``simulate_batch``, all
    recorded at one interval), copied into one records buffer first."""
    masses = np.array([t.positions.shape[1] for t in trajectories], dtype=np.int64)
    n_rec = np.array([t.positions.shape[0] for t in trajectories], dtype=np.int64)
    sizes = 2 * masses * n_rec
    layout = np.stack([np.cumsum(sizes) - sizes, masses])
    records = np.zeros((2, int(sizes.sum())))
    records[0] = np.concatenate([t.positions.ravel() for t in trajectories])
    exploded_at = np.array([0 if t.exploded else -1 for t in trajectories], dtype=np.int64)
    frames = max((t.frames for t in trajectories), key=len)
    return reduce_lanes(bound, records, layout, n_rec, exploded_at, frames, every)


@functools.cache
def _lanes_kernel() -> Any:
    """:func:`_reduce_lanes` compiled for any reducer kernel (a first-class function of
    :data:`REDUCER_SIGNATURE`: one compilation, cached, whichever plugin)."""
    i64, f64 = types.int64, types.float64
    signature = types.void(
        types.FunctionType(REDUCER_SIGNATURE), f64[:, ::1], i64[:, ::1], i64[::1], i64[::1], f64[::1],
        i64, f64, f64[::1], i64, f64[:, ::1], types.boolean[::1],
    )  # fmt: skip
    return nb.njit(signature, **_JIT)(_reduce_lanes)


def _reduce_lanes(kernel, records, layout, n_rec, exploded_at, frames, every, total_frames, constants,
                  n_objectives, values, python):  # fmt: skip
    """Each live lane's block of ``records`` as (records, masses, 2) positions (every ``every``-th record,
    as :func:`evo.fitness.evaluate.evaluate` hands them), reduced by ``kernel`` into its row of values."""
    for lane in range(n_rec.shape[0]):
        if exploded_at[lane] >= 0:
            continue
        n = layout[1, lane]
        count = n_rec[lane]
        start = layout[0, lane]
        positions = records[0]
        block = positions[start : start + 2 * n * count].reshape((count, n, 2))
        lane_frames = frames[:count]
        if every > 1:
            block = np.ascontiguousarray(block[::every])
            lane_frames = np.ascontiguousarray(lane_frames[::every])
        out = values[lane]
        kernel(block, lane_frames, total_frames, constants, out)
        for v in range(out.shape[0]):
            if math.isnan(out[v]) or (v >= n_objectives and not math.isfinite(out[v])):
                python[lane] = True


# -- what reducers share: numpy's own arithmetic, step for step -------------------------------------------


@nb.njit(**_JIT)
def index_at(frames, frame):
    """:meth:`evo.fitness.SimulationResult.index_at`: the first record at or after ``frame`` (the last if
    none is)."""
    for i in range(frames.shape[0]):
        if frames[i] >= frame:
            return i
    return frames.shape[0] - 1


@nb.njit(**_JIT)
def centroid(positions, record, axis):
    """One coordinate (0: x, 1: y) of :func:`evo.sim.simulate.centroids_of` at ``record``, px: the masses
    summed in order from 0 (as ``einsum`` sums them), divided by their number."""
    total = 0.0
    for i in range(positions.shape[1]):
        total += positions[record, i, axis]
    return total / positions.shape[1]


@nb.njit(**_JIT)
def _block(values, first, n):
    """numpy's sum of at most :data:`_PAIRWISE_BLOCK` values: in order below 8, else 8 accumulators."""
    if n < 8:
        total = -0.0
        for i in range(first, first + n):
            total += values[i]
        return total
    r0, r1, r2, r3 = values[first], values[first + 1], values[first + 2], values[first + 3]
    r4, r5, r6, r7 = values[first + 4], values[first + 5], values[first + 6], values[first + 7]
    i = 8
    while i < n - n % 8:
        r0 += values[first + i]
        r1 += values[first + i + 1]
        r2 += values[first + i + 2]
        r3 += values[first + i + 3]
        r4 += values[first + i + 4]
        r5 += values[first + i + 5]
        r6 += values[first + i + 6]
        r7 += values[first + i + 7]
        i += 8
    total = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        total += values[first + i]
        i += 1
    return total


@nb.njit(**_JIT)
def _pairwise(values):
    """numpy's pairwise sum of (n,) ``values`` (``DOUBLE_pairwise_sum``): blocks of at most 128 values,
    halves (cut at a multiple of 8) added as a tree. Without recursion, which numba's cache cannot load:
    the tree walked with a stack of (first, n, cut, state, left sum)."""
    first = np.zeros(64, dtype=np.int64)
    count = np.zeros(64, dtype=np.int64)
    cut = np.zeros(64, dtype=np.int64)
    state = np.zeros(64, dtype=np.int64)  # 0: not split yet, 1: its left half under way, 2: its right half
    left = np.zeros(64)
    depth = 0
    count[0] = values.shape[0]
    while True:
        if count[depth] > _PAIRWISE_BLOCK:  # split: the left half first
            half = count[depth] // 2
            cut[depth] = half - half % 8
            state[depth] = 1
            first[depth + 1], count[depth + 1] = first[depth], cut[depth]
            depth += 1
            continue
        total = _block(values, first[depth], count[depth])
        while True:  # hand the sum up until a right half is left to do
            depth -= 1
            if depth < 0:
                return total
            if state[depth] == 1:
                left[depth] = total
                state[depth] = 2
                first[depth + 1] = first[depth] + cut[depth]
                count[depth + 1] = count[depth] - cut[depth]
                depth += 1
                break
            total = left[depth] + total


@nb.njit(**_JIT)
def numpy_sum(values):
    """``values.sum()`` of a contiguous (n,) float64 array, bit for bit: numpy's pairwise sum added to
    the reduction's initial 0.0."""
    return 0.0 + _pairwise(values)


@nb.njit(**_JIT)
def numpy_mean(values):
    """``values.mean()`` of a contiguous (n,) float64 array, bit for bit (numpy's pairwise sum over n)."""
    return numpy_sum(values) / values.shape[0]
