"""The worker side of generations made from arrays over messages (:class:`evo.run.shards.engine.Partnered`):
a dask worker's copy of the run, made from the population's arrays the ``evo run`` process sends, moved on
by each generation's scores, planning, breeding and scoring its share of the next (docs/cluster.md,
"Generations from arrays")."""

from __future__ import annotations

import pickle
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from evo.ga.loop import Evolution
from evo.run.shards.state import ShardState, Shared, Unsupported

__all__ = ["READY", "RemoteShard", "serve_steps", "step_on_worker", "why"]

READY = b"ready "  # what a chunk runner sends first on its pipe once it serves a stint's steps (+ its number)


def why(exc: BaseException) -> str:
    """Why a generation could not be made from arrays, as ``run.log`` says it: an unexpected error with
    where it was raised (a bug to report: the generation is still made, the other way)."""
    if isinstance(exc, Unsupported):
        return str(exc)
    at = "".join(
        f" (at {Path(f.filename).name}:{f.lineno})" for f in traceback.extract_tb(exc.__traceback__)[-1:]
    )
    return f"{type(exc).__name__}: {exc}{at}"


class RemoteShard:
    """A chunk runner's copy of the run (on a dask worker): made from the state, settings and cut the
    ``evo run`` process sends with a stint's first step (its population's arrays, generator state and
    generation, the run's settings and the cut); each :meth:`step` moves the copy on by the last
    generation's scores (all parties'), then plans, breeds and scores its share of the next."""

    def __init__(self, context: Any, arrays: tuple, rng: dict, generation: int, settings: Any, cut: int):
        evolution = Evolution(settings)  # (its generator and generation: all the copy draws from)
        evolution.rng.bit_generator.state, evolution.generation = rng, generation
        self.state = ShardState(evolution, context, Shared.alone(settings.population), cut, arrays)
        self.pending: tuple | None = None  # the last generation's selection, children and laid arrays

    def step(self, g: int, scores: tuple | None, weights: tuple[float, ...], me: int) -> tuple:
        """Generation ``g`` (``scores``: the fitness and explosions of generation ``g - 1``'s children,
        every party's, or None at a stint's first): this party's share of its kernel calls, as (the
        children scored, their fitness, their explosions)."""
        state = self.state
        if self.pending is not None:
            if scores is None:
                raise RuntimeError(f"generation {g - 1}'s scores did not come")
            fitness, exploded = scores
            state.shared.fitness[(g - 1) % 2][: fitness.size] = fitness
            state.shared.exploded[(g - 1) % 2][: exploded.size] = exploded
            state.moved_on(g - 1, *self.pending)
            self.pending = None
        planned = state.planned()
        children, laid = state.bred(*planned[1:])
        self.pending = (planned, children, laid)
        members = state.scored_share(laid, g % 2, weights, me)
        return members, state.shared.fitness[g % 2][members], state.shared.exploded[g % 2][members]


def step_on_worker(holder: Any, context: Callable[[], Any], data: bytes) -> bytes:
    """A chunk runner's step (``holder``: the runner, which keeps its :class:`RemoteShard` as ``shard``;
    ``context``: the run's context on this worker, set up on first use): ``data`` pickled as (generation,
    last scores, weights, party, the copy's (state, settings, cut) at a stint's first step, else None).
    Returns the pickled (generation, why not or None, traceback or None, children scored, fitness,
    explosions, when it was done: ``time.perf_counter()``, one clock for every process of a machine); a
    copy that cannot go on is dropped (the next stint sends another)."""
    g, scores, weights, me, begin = pickle.loads(data)
    try:
        if begin is not None:
            holder.shard = RemoteShard(context(), *begin)
        if getattr(holder, "shard", None) is None:
            raise RuntimeError("no copy of the run on this worker")
        members, fitness, exploded = holder.shard.step(g, scores, weights, me)
        out = (g, None, None, members, fitness, exploded, time.perf_counter())
    except Exception as exc:  # noqa: BLE001 (said to the evo run process, which makes the generation)
        holder.shard = None
        detail = None if isinstance(exc, Unsupported) else "".join(traceback.format_exception(exc))
        out = (g, why(exc), detail, None, None, None, time.perf_counter())
    return pickle.dumps(out, protocol=pickle.HIGHEST_PROTOCOL)


def serve_steps(holder: Any, context: Callable[[], Any], pipe: Any, stint: int) -> int:
    """Serve the steps of stint ``stint`` (:func:`step_on_worker`) on ``pipe`` -- first saying
    :data:`READY` and the stint's number -- until an empty message or the pipe's end; returns how many
    were served."""
    if pipe is None:  # (not a worker forked with a pipe: the evo run process hears no READY)
        return 0
    served = 0
    pipe.send_bytes(READY + str(stint).encode())
    while True:
        try:
            data = pipe.recv_bytes()
        except (EOFError, OSError):
            return served
        if not data:
            return served
        pipe.send_bytes(step_on_worker(holder, context, data))
        served += 1
