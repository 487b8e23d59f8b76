"""The ``shards`` backend: ``workers`` processes forked from the ``evo run`` process own the population
as arrays and select, breed and score each generation themselves, the ``evo run`` process keeping the
books (:mod:`evo.run.shards`); the generations they cannot make (generation 0, a brood or lane left to
Python) are made in the ``evo run`` process as the ``threads`` backend makes them. The same results as
every other backend."""

from __future__ import annotations

from typing import Any

from evo.run.backends.base import Job
from evo.run.backends.threads import Threads

__all__ = ["Shards"]


class Shards(Threads):
    """:class:`~evo.run.backends.threads.Threads` for the generations made in the ``evo run`` process,
    and the number of worker processes :func:`evo.run.shards.run_sharded` forks for the others."""

    shards = True

    def __init__(self, job: Job, context: Any, workers: int):
        if workers < 2:
            raise ValueError("Shards needs at least 2 workers")
        super().__init__(job, context, workers)
