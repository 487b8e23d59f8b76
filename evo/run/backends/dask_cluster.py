"""The dask backend's cluster side in this process: the local cluster it starts (a scheduler here, workers
forked from this process; and the dask settings it starts it with), a client that closes itself when it
fails to start, and the workers' log records replayed here. See :mod:`evo.run.backends.dask_pool` and
docs/cluster.md."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
import signal
import threading
import time
import traceback
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import dask
import distributed

from evo.run.backends.base import log

__all__ = ["LOCAL_CLUSTER_CONFIG", "Client", "ForkedCluster", "local_cluster", "replay"]

# dask settings of the local cluster the backend starts: its scheduler shares this process with the run,
# and its workers share the machine, so fewer housekeeping wake-ups (no sampling profiler in
# the workers, memory and system monitors every second or two, the event-loop watchdog every 200 ms)
LOCAL_CLUSTER_CONFIG: dict[str, Any] = {
    "distributed.worker.profile.enabled": False,
    "distributed.worker.memory.monitor-interval": "1s",
    "distributed.admin.system-monitor.interval": "2s",
    "distributed.admin.tick.interval": "200ms",
}


def local_cluster(workers: int, *, start: bool = True) -> ForkedCluster:
    """The local dask cluster of ``workers`` single-threaded workers (:class:`ForkedCluster`; with ``start``
    False, its workers forked and its scheduler not started yet)."""
    return ForkedCluster(workers, start=start)


class ForkedCluster:
    """A local dask cluster whose workers are forked from this process.

    The ``workers`` processes are forked first, while no thread of the cluster runs yet, with what this
    process has imported and loaded (numpy, numba, distributed, evo and its kernels). Then a scheduler
    starts in this process (``cluster``: distributed's LocalCluster with no workers of its own, no
    dashboard, on 127.0.0.1), and each process starts a dask worker that joins it. A spawned worker (dask's
    way) imports all of that again and loads the kernels from numba's cache: about 1.3 CPU-s each on the
    project's machine (docs/performance.md, "Round five"). The workers have no nanny: one that dies is
    not started again (the run goes on with the others, docs/cluster.md). Ctrl-C and SIGTERM are left to
    this process, and a worker ends when this process dies. A worker's garbage collector never walks the
    objects it was forked with (:func:`~evo.run.backends.dask_worker.freeze_inherited_heap`).
    """

    def __init__(self, workers: int, *, start: bool = True):
        self._pipes: list[Any] = []
        self._steps: list[Any] = []  # each worker's pipe for the steps of generations made from arrays
        self._processes: list[Any] = []
        self.cluster: Any = None
        try:
            self._fork(workers)
            if start:
                self.start()
        except BaseException:
            self.close()
            raise

    def start(self) -> None:
        """Start the scheduler in this process and send each forked worker its address (they then join
        it). Called by the constructor unless it was given ``start=False`` (the workers forked, and the
        scheduler started later, from any thread: the run's own batches go on meanwhile)."""
        try:
            with dask.config.set(LOCAL_CLUSTER_CONFIG):
                self.cluster = distributed.LocalCluster(
                    n_workers=0,
                    processes=True,
                    host="127.0.0.1",
                    scheduler_port=0,
                    dashboard_address=None,
                    # its small HTTP server (health, metrics) on any free port, not on 8787
                    scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
                )
            for pipe in self._pipes:
                pipe.send(self.cluster.scheduler_address)
        except BaseException:
            self.close()
            raise

    def _fork(self, workers: int) -> None:
        """Fork the workers, Ctrl-C ignored from the fork on (each also says so itself, first thing)."""
        context = multiprocessing.get_context("fork")
        main = threading.current_thread() is threading.main_thread()
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN) if main else None
        try:
            for _ in range(workers):
                here, there = context.Pipe()
                steps_here, steps_there = context.Pipe()
                # the worker closes its copies of this process's ends, or it would never see them close
                ends = [*self._pipes, *self._steps, here, steps_here]
                process = context.Process(
                    target=_forked_worker,
                    args=(there, steps_there, ends, os.getpid()),
                    name="evo-dask-worker",
                    daemon=True,
                )
                process.start()
                there.close()
                steps_there.close()
                self._pipes.append(here)
                self._steps.append(steps_here)
                self._processes.append(process)
        finally:
            if main and previous is not None:
                signal.signal(signal.SIGINT, previous)

    def steps_pipe(self, pid: int) -> Any:
        """This process's end of the pipe to the worker ``pid`` for the steps of generations made from
        arrays (a chunk runner serves them: :meth:`evo.run.backends.dask_worker.ChunkRunner.serve_steps`);
        None for a process that is not one of these workers."""
        pids = self.pids
        return self._steps[pids.index(pid)] if pid in pids else None

    @property
    def pids(self) -> list[int]:
        """The workers' process ids."""
        return [process.pid for process in self._processes]

    def alive(self) -> int:
        """How many of the workers' processes are still running."""
        return sum(process.is_alive() for process in self._processes)

    def end(self, pid: int, timeout: float = 10) -> None:
        """Kill the worker process ``pid`` now and reap it, waiting at most ``timeout`` seconds (one
        stopped, or stuck: the scheduler then drops it at once, its tasks going to the others)."""
        pids = self.pids
        process = self._processes[pids.index(pid)] if pid in pids else None
        if process is not None and process.is_alive():
            process.kill()
            process.join(timeout)
            if process.is_alive():  # (in the kernel's hands: close() reaps it)
                log.warning("dask: worker process %d did not end within %g s of being killed", pid, timeout)

    def kill(self) -> None:
        """Kill the workers' processes at once (from any thread; :meth:`close` then reaps them): a run that
        ends while its cluster is still starting needs none of them."""
        for process in list(self._processes):
            if process.is_alive():
                process.kill()

    def close(self, timeout: float = 10) -> None:
        """Stop the workers (each leaves the scheduler, then exits; one still there after ``timeout``
        seconds is killed), then the scheduler."""
        for pipe in [*self._steps, *self._pipes]:  # a worker's end of the pipe sees it close: it leaves
            pipe.close()
        deadline = time.monotonic() + timeout
        for process in self._processes:
            process.join(max(0.0, deadline - time.monotonic()))
            if process.is_alive():
                process.kill()
                process.join()
        self._pipes, self._steps, self._processes = [], [], []
        cluster, self.cluster = self.cluster, None
        if cluster is not None:
            cluster.close(timeout=timeout)


def _forked_worker(pipe: Any, steps: Any, parents_ends: list[Any], parent: int) -> None:
    """A forked worker: wait for the scheduler's address, serve as a dask worker until the pipe closes,
    then leave the scheduler and exit (without this process's exit handlers: they are the parent's).
    ``steps``: its end of the pipe its chunk runner serves steps on."""
    from evo.run.backends import dask_worker
    from evo.run.backends.dask_worker import freeze_inherited_heap
    from evo.run.backends.fork import leave_signals_to_parent

    dask_worker.STEPS = steps
    freeze_inherited_heap()
    for end in parents_ends:
        end.close()

    leave_signals_to_parent(parent)
    # records reach the parent with each chunk's result (:mod:`.dask_worker`), not through the run log's
    # handlers this process was forked with
    for handler in list(logging.getLogger("evo").handlers):
        logging.getLogger("evo").removeHandler(handler)
    logging.getLogger("distributed").setLevel(logging.WARNING)  # as a LocalCluster's own workers
    # a thread pool forked after its thread started has no thread here, and never runs a job: dask's
    # offload pool is one (a previous dask client of the parent may have started it)
    with contextlib.suppress(AttributeError):
        distributed.utils._offload_executor = ThreadPoolExecutor(1, thread_name_prefix="Dask-Offload")
    code = 0
    try:
        address = pipe.recv()
        with dask.config.set(LOCAL_CLUSTER_CONFIG):
            asyncio.run(_serve(address, pipe))
    except EOFError:  # the cluster did not start: nothing to serve
        pass
    except BaseException:
        traceback.print_exc()  # on the run's stderr: the parent then says no worker joined
        code = 1
    finally:
        os._exit(code)


async def _serve(address: str, pipe: Any) -> None:
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()

    def wait_for_the_end() -> None:  # a thread: the pipe's end (or anything on it) means stop
        with contextlib.suppress(EOFError, OSError):
            pipe.recv()
        loop.call_soon_threadsafe(stop.set)

    threading.Thread(target=wait_for_the_end, name="evo-dask-worker-stop", daemon=True).start()
    async with distributed.Worker(address, nthreads=1, host="127.0.0.1", dashboard=False) as worker:
        finished = asyncio.ensure_future(worker.finished())
        stopped = asyncio.ensure_future(stop.wait())
        await asyncio.wait([finished, stopped], return_when=asyncio.FIRST_COMPLETED)
        stopped.cancel()


class Client(distributed.Client):
    """A dask client that closes itself when it fails to start: a half-started client's event loop would
    otherwise keep the process from exiting after the run's error message."""

    def start(self, **kwargs: Any) -> Any:
        try:
            return super().start(**kwargs)
        except BaseException:
            with contextlib.suppress(Exception):
                self.close(timeout=5)
            raise


def replay(records: list[dict[str, Any]]) -> None:
    """Hand a worker's log records to this process's loggers (``run.log`` among their handlers)."""
    for data in records:
        record = logging.makeLogRecord(data)
        logger = logging.getLogger(record.name)
        if logger.isEnabledFor(record.levelno):
            logger.handle(record)
