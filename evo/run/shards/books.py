"""The ``evo run`` process's books of the generations made from arrays (:mod:`evo.run.shards.engine`):
each told, given to the callbacks and reported in pieces, done where the process would otherwise wait for
its partners, and the rest after (docs/performance.md, "Round thirty-one")."""

from __future__ import annotations

import collections
import time
from collections.abc import Generator, Iterator
from typing import Any

from evo.ga.bred import BredGeneration
from evo.run.callbacks import Callback, GenerationStatus
from evo.run.folder.writer import Prepared
from evo.run.generations import told_status

__all__ = ["Books", "generation_told"]


class Books:
    """The ``evo run`` process's books of the generations made from arrays (reporting the one before,
    telling the next, its status: :func:`generation_told`), in order, in pieces: with partners, those
    of a generation are done where this process would otherwise wait for them (:meth:`step`: for the
    next generation from worker 1, at its meeting point), the rest after it (:meth:`finish`):
    docs/performance.md, "Round thirty-one"."""

    def __init__(self) -> None:
        self.queue: collections.deque[Iterator[None]] = collections.deque()
        self.error: Exception | None = None
        self.stopped = False  # a callback asked to stop when a generation was reported

    def step(self) -> bool:
        """One piece; whether it was (not after an error: :meth:`finish` raises it)."""
        while self.queue and self.error is None and not self.stopped:
            try:
                next(self.queue[0])
            except StopIteration:
                self.queue.popleft()
                continue
            except Exception as exc:  # noqa: BLE001 (raised by finish, not taken for the generation's)
                self.error = exc
                return False
            return True
        return False

    def finish(self, keep: int = 0) -> bool:
        """All but the last ``keep`` generations' books done now (the error a piece met raised here);
        whether the run stops."""
        error, self.error = self.error, None
        if error is not None:
            raise error
        while len(self.queue) > keep and not self.stopped:
            for _ in self.queue.popleft():
                pass
        if self.stopped:
            self.queue.clear()
        return self.stopped


def generation_told(
    prepared: Prepared, callbacks: list[Callback], bred: BredGeneration, seconds: float, by: str
) -> Generator[None, None, tuple[tuple[Any, ...], GenerationStatus]]:
    """Tell a generation made from arrays (``by``: by whom, for the log), and give it to the callbacks
    (two pieces of :class:`Books`): its ``run.log`` line and its status, for them to report."""
    evolution, g = prepared.evolution, bred.generation
    evaluations = int(bred.fitness.size)
    for callback in callbacks:
        callback.on_generation_start(g, evaluations)
        callback.on_evaluated(evaluations)
    kept = 0.0  # (the pieces' time, not the waits between them)
    pieces = evolution.tell_bred_in_pieces(bred)
    while True:
        started = time.perf_counter()
        try:
            next(pieces)
        except StopIteration as told:
            record = told.value
            break
        finally:
            kept += time.perf_counter() - started
        yield
    first = prepared.plugin.objectives[0]
    line = (
        "generation %d: %d evaluations, %d exploded; %s best %.6g mean %.6g; selected, bred and evaluated"
        " %s in %.3f s (%.1f evaluations/s), told in %.3f s",
        g, evaluations, record["exploded"], first, record[f"{first}_best"], record[f"{first}_mean"], by,
        seconds, evaluations / max(seconds, 1e-9), kept,
    )  # fmt: skip
    yield
    return line, told_status(prepared, callbacks, g, evaluations, record, seconds + kept)
