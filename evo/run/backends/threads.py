"""The threads backend (the default for ``workers >= 2`` where only evo's own code runs): the calling
process breeds and evaluates each generation as one chunk, as in-process does, and its kernel calls run
on the main thread and ``workers - 1`` lane threads side by side (the kernels release the GIL; docs/runs.md,
"Workers"). One chunk keeps a generation's lanes together and no child crosses a pipe, so two threads
cost about the CPU of one per evaluation (docs/performance.md, "Round eleven")."""

from __future__ import annotations

import logging
import os
from typing import Any

from evo.run.backends.base import Job
from evo.run.backends.inprocess import InProcess
from evo.sim.batch import LaneThreads

__all__ = ["Threads"]

log = logging.getLogger("evo.run.backends")


class Threads(InProcess):
    """Run the job in the calling process, one chunk at a time, its kernel calls on ``workers`` threads
    (:class:`~evo.sim.batch.LaneThreads`: the calling thread and a pool of ``workers - 1``): a context with a
    ``with_lane_threads(executor)`` method (the run's :class:`~evo.run.job.BreedContext`) gets the pool;
    any other runs as :class:`InProcess` does. The results are the same as in-process, whatever the
    thread count.

    ``processes`` is 1: the run cuts each generation into the chunks of one process
    (:func:`evo.run.batching.chunk_shares`), however many threads simulate it.
    """

    processes = 1

    def __init__(self, job: Job, context: Any, workers: int):
        if workers < 1:
            raise ValueError("Threads needs at least 1 worker")
        self.workers = workers
        self._pool: LaneThreads | None = None
        attach = getattr(context, "with_lane_threads", None)
        if attach is not None and workers >= 2:
            self._pool = LaneThreads(workers)
            context = attach(self._pool)
            log.info(
                "process %d simulates each generation's kernel calls on %d threads", os.getpid(), workers
            )
        super().__init__(job, context)

    def close(self) -> None:
        """Let the threads end (a kernel call under way is waited for; those not started are dropped)."""
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
