"""The in-process backend (``workers = 1``): the job is called directly, task after task."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from evo.run.backends.base import EvaluationFailed, Job, Progress, Task, chunks_of, run_chunk

__all__ = ["InProcess"]


class InProcess:
    """Run the job in the calling process (``workers = 1``)."""

    workers = 1
    contended = False  # one process: nothing to balance

    def __init__(self, job: Job, context: Any):
        self.job = job
        self.context = context

    def run(
        self, tasks: Iterable[Task], progress: Progress | None = None, expected: int | None = None
    ) -> list[Any]:
        """The job's results for ``tasks``, in order (``expected`` is not needed): one at a time, or by the
        chunks the tasks name (a job with a ``prepare`` step makes use of them). A ``progress`` with a
        ``poll`` attribute has it called after each task (and, with lane threads, by a chunk's batched
        ``prepare`` step after each kernel call read back), one with a ``beside`` attribute has that
        called beside the first chunk's kernel calls (:func:`~evo.run.backends.base.run_chunk`)."""
        out = []
        poll = getattr(progress, "poll", None)  # between tasks: see evo.run.generations
        beside = getattr(progress, "beside", None)
        for chunk in chunks_of(list(tasks), 1):
            payloads = [(task.index, task.payload) for task in chunk]
            done, error = run_chunk(self.job, self.context, payloads, between=poll, beside=beside)
            beside = None  # once
            out.extend(result for _, result in done)
            if error is not None:
                raise EvaluationFailed(*error)
            if progress is not None:
                progress(sum(task.weight for task in chunk))
        return out

    def close(self) -> None:
        pass

    def __enter__(self) -> InProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
