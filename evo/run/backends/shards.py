"""The ``shards`` backend: ``workers`` processes forked from the ``evo run`` process own the population
as arrays and select, breed and score each generation themselves, the ``evo run`` process keeping the
books (:mod:`evo.run.shards`; with one worker, the ``evo run`` process makes them so itself); the
generations they cannot make (generation 0, a brood or lane left to Python) are made in the ``evo run``
process as the ``threads`` backend makes them. The same results as every other backend."""

from __future__ import annotations

from typing import Any

from evo.run.backends.base import Job
from evo.run.backends.threads import Threads

__all__ = ["Shards"]


class Shards(Threads):
    """:class:`~evo.run.backends.threads.Threads` for the generations made in the ``evo run`` process
    as the threads backend makes them, and the number of workers :func:`evo.run.shards.run_sharded`
    makes the others with: forked processes, or with one worker this process itself, from arrays."""

    shards = True

    def __init__(self, job: Job, context: Any, workers: int):
        if workers < 1:
            raise ValueError("Shards needs at least 1 worker")
        super().__init__(job, context, workers)
