"""Compiling ahead of time: the simulator's kernels as named tasks, and a runner that compiles independent
tasks in parallel processes into numba's cache (``evo warm``, a run's first compile; docs/runs.md)."""

from __future__ import annotations

import contextlib
import ctypes
import functools
import multiprocessing
import os
import signal
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from evo.sim.batch import MIN_LANES, lane_runs, simulate_batch
from evo.sim.laid import Laid
from evo.sim.simulate import simulate, tiny_creature
from evo.sim.world import CONTACTS, INTEGRATORS, World

__all__ = [
    "CompileTask",
    "compile_in_processes",
    "in_cache",
    "kernel_tasks",
    "warm_kernel",
    "warm_kernels",
    "warm_world",
]

_PR_SET_PDEATHSIG = 1  # prctl(2): the signal a process gets when its parent ends
# seconds a compile process waits for another's read or write of numba's cache (milliseconds each) before
# going on without it: only a process that died holding the lock keeps it longer
CACHE_LOCK_WAIT = 30.0
# the simulator's kernels, each compiled by one task: (integrator, unit masses, in lanes) of its first call
KERNELS = {
    "the Euler kernel": ("euler", True, False),
    "the Euler kernel in lanes": ("euler", True, True),
    "the general explicit kernel": ("rk4", False, False),
    "the general explicit kernel in lanes": ("rk4", False, True),
    "the backward-Euler kernel": ("backward-euler", True, False),
    "the PSM kernel": ("psm", True, False),
}


@dataclass(frozen=True)
class CompileTask:
    """One compilation: ``name`` (what the user is told), ``run`` a module-level function compiling it
    (called with ``args`` in a worker process), ``after`` the names of tasks whose cache it loads,
    ``compiled``: a function returning the numba functions whose cache says it is done, and ``load``:
    whether the process that asked for it loads it afterwards (False for a part of another task, which
    that task's cache holds)."""

    name: str
    run: Callable[..., Any]
    args: tuple = ()
    after: tuple[str, ...] = field(default=())
    compiled: Callable[[], tuple] | None = None
    load: bool = True


def in_cache(task: CompileTask) -> bool:
    """Whether numba's cache holds a current compilation of every function the task names (an index
    whose source stamp matches the source), so that running it only loads; False when unsure."""
    if task.compiled is None:
        return False
    try:
        return all(bool(f._cache._cache_file._load_index()) for f in task.compiled())
    except Exception:  # noqa: BLE001 -- numba's private cache API: unsure means compile in processes
        return False


def _kernel_functions(name: str) -> tuple:
    from evo.sim.kernels import batch_euler, batch_explicit, euler, explicit, implicit, laid, lanes, psm

    return {
        "the Euler kernel": (euler.run_euler,),
        "the Euler kernel in lanes": (
            batch_euler.run_euler_batch,
            lanes.pack_lanes,
            laid.first_alike,
            laid.pack_rows,
        ),
        "the general explicit kernel": (explicit.run_explicit,),
        "the general explicit kernel in lanes": (
            batch_explicit.run_explicit_batch,
            lanes.pack_lanes,
            laid.first_alike,
        ),
        "the backward-Euler kernel": (implicit.run_backward_euler,),
        "the PSM kernel": (psm.run_psm,),
    }[name]


def warm_kernel(name: str) -> None:
    """Compile (or load from numba's cache) one kernel of :data:`KERNELS`."""
    integrator, unit, lanes = KERNELS[name]
    world = World(integrator=integrator)
    creature = tiny_creature(1.0 if unit else 2.0)
    if lanes:  # and the lanes cut and packed from creatures laid end to end, as a run's children are
        simulate_batch([creature] * MIN_LANES, world, 2 * world.dt, record_every=world.dt)
        laid_out = [tiny_creature()] * MIN_LANES  # what a Laid holds: the applet's physics
        laid = (Laid.of(laid_out), np.arange(MIN_LANES))
        for _ in lane_runs(laid_out, world, 2 * world.dt, world.dt, laid=laid)[1]:
            pass
    else:
        simulate(creature, world, 2 * world.dt, record_every=world.dt)


def kernel_tasks(world: World | None = None, any_physics: bool = False) -> list[CompileTask]:
    """The kernel tasks a run in ``world`` may call (every kernel when None): the Euler fast path's only
    when the world is Euler with soda contact and ``any_physics`` is False (no creature can leave the
    default physics), else the general kernels as well; one integrator's scalar kernel for the others."""
    names = list(KERNELS)
    if world is not None:
        fast = world.integrator == "euler" and world.contact == "soda"
        names = ["the Euler kernel", "the Euler kernel in lanes"] if fast else []
        if not fast or any_physics:
            names += _general_names(world.integrator)
    return [
        CompileTask(name, warm_kernel, (name,), compiled=functools.partial(_kernel_functions, name))
        for name in names
    ]


def _general_names(integrator: str) -> list[str]:
    if integrator == "backward-euler":
        return ["the backward-Euler kernel"]
    if integrator == "psm":
        return ["the PSM kernel"]
    return ["the general explicit kernel", "the general explicit kernel in lanes"]


def _die_with_parent() -> None:
    """In a compile process: end when the process that started it ends (Linux's parent-death signal), so
    that a killed run or ``evo warm`` leaves no compile process waiting on its siblings' pipes."""
    with contextlib.suppress(AttributeError, OSError):  # not Linux: the pool's own shutdown has to do
        ctypes.CDLL(None).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


def _start_compile_process(lock: Any) -> None:
    """In a compile process, before its first task: :func:`_die_with_parent`, and numba's cache read and
    written under ``lock``, shared by the pool's processes (:func:`_one_cache_writer`)."""
    _die_with_parent()
    _one_cache_writer(lock)


def _one_cache_writer(lock: Any) -> None:
    """Let the compile processes read and write numba's cache one at a time. numba saves an overload in
    two steps without a lock (the index, naming a data file, then the data file), so two processes saving
    overloads of one function at once (a helper that two tasks call with other types) could leave the
    index naming the other's data, which a later run would load for the wrong types. Where numba's cache
    class is not as expected, nothing is changed."""
    try:
        from numba.core.caching import IndexDataCacheFile
    except ImportError:  # pragma: no cover -- another numba
        return
    for name in ("save", "load"):
        method = getattr(IndexDataCacheFile, name, None)
        if method is None or getattr(method, "one_writer", False):
            continue

        def locked(self: Any, *args: Any, _method: Callable[..., Any] = method, **kwargs: Any) -> Any:
            held = lock.acquire(timeout=CACHE_LOCK_WAIT)  # not held: its holder died, go on as numba would
            try:
                return _method(self, *args, **kwargs)
            finally:
                if held:
                    lock.release()

        locked.one_writer = True  # type: ignore[attr-defined]
        setattr(IndexDataCacheFile, name, locked)


def _timed(run: Callable[..., Any], args: tuple) -> float:
    start = time.process_time()
    run(*args)
    return time.process_time() - start


def compile_in_processes(
    tasks: Sequence[CompileTask],
    workers: int | None = None,
    say: Callable[[str], None] | None = None,
) -> dict[str, float]:
    """Run ``tasks`` in up to ``workers`` forked processes (default: one per CPU), each as soon as the tasks
    it comes ``after`` are done, in the order given otherwise; ``say`` is told when each starts and ends.

    Returns:
        {name: CPU seconds its process spent on it}, in the order they finished.

    Raises:
        Whatever a task raised (the other tasks are cancelled).
    """
    workers = max(1, min(workers or len(os.sched_getaffinity(0)), len(tasks)))
    say = say or (lambda text: None)
    waiting = list(tasks)
    done: dict[str, float] = {}
    running: dict[Any, str] = {}
    context = multiprocessing.get_context("fork")
    lock = context.Lock()  # numba's cache, one process at a time (_one_cache_writer)
    with ProcessPoolExecutor(
        max_workers=workers, mp_context=context, initializer=_start_compile_process, initargs=(lock,)
    ) as pool:
        while waiting or running:
            for task in [t for t in waiting if all(name in done for name in t.after)]:
                if len(running) >= workers:
                    break
                waiting.remove(task)
                say(f"compiling {task.name}")
                running[pool.submit(_timed, task.run, task.args)] = task.name
            if not running:
                raise ValueError(f"compile tasks wait for tasks that are not given: {waiting}")
            finished, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in finished:
                name = running.pop(future)
                done[name] = future.result()
                say(f"{name}: ready ({done[name]:.1f} s CPU)")
    return done


def warm_world(world: World) -> None:
    """Compile (or load from numba's cache) the kernels a run in ``world`` calls: one creature and a batch,
    with the default physics and without."""
    for mass in (1.0, 2.0):
        simulate(tiny_creature(mass), world, 2 * world.dt, record_every=world.dt)
        simulate_batch([tiny_creature(mass)] * MIN_LANES, world, 2 * world.dt, record_every=world.dt)


def warm_kernels(integrators: Sequence[str] = INTEGRATORS) -> list[tuple[str, float]]:
    """Compile (or load from numba's cache) every kernel a run of these integrators can call, in this
    process.

    Args:
        integrators: names of ``[world] integrator``; all of them by default.

    Returns:
        (integrator, seconds it took) for each, in order; seconds near 0 when the cache had them.
    """
    out = []
    for integrator in integrators:
        start = time.perf_counter()
        for contact in CONTACTS:
            warm_world(World(integrator=integrator, contact=contact))
        out.append((integrator, time.perf_counter() - start))
    return out
