"""What ``evo run`` says while it runs: the simulator's first compilation, and a progress line every few
seconds on a standard error that is not a terminal (a log file, CI), where no bar is drawn."""

from __future__ import annotations

import sys
import time
from typing import TextIO

from evo.cli._common import COMPILING_RUN, compiling_notice
from evo.run.callbacks import Callback, GenerationStatus, RunStart

__all__ = ["EVERY", "FirstCompile", "ProgressLines"]

EVERY = 5.0  # s between progress lines


class FirstCompile(Callback):
    """Compiles the run's kernels before its first generation (before workers fork, so that they inherit
    them), saying so when that takes a while (not with ``quiet``). Not for a dask backend: its workers
    compile their own."""

    def __init__(self, command: str = "run", quiet: bool = False):
        self.command = command
        self.quiet = quiet

    def on_run_start(self, run: RunStart) -> None:
        if run.config.pool.backend == "dask":
            return
        if self.quiet:
            self._warm(run)
            return
        with compiling_notice(self.command, what=COMPILING_RUN):
            self._warm(run, self._say_when_slow())

    def _say_when_slow(self):
        """Tells what is compiling and what is ready once the compiling has taken a second (loading
        numba's cache takes less): the lines from before then come first."""
        start = time.monotonic()
        early: list[str] = []

        def say(text: str) -> None:
            early.append(text)
            if time.monotonic() - start > 1.0:
                for line in early:
                    print(f"evo {self.command}: {line}", file=sys.stderr, flush=True)
                early.clear()

        return say

    @staticmethod
    def _warm(run: RunStart, say=None) -> None:
        from evo.cli import warm

        config = run.config
        warm.warm_run(config.world, config.genome, config.ga, say, spec=config.evaluation_spec())


class ProgressLines(Callback):
    """One line on ``out`` (default stderr) when a generation ends or as evaluations return, once ``every``
    seconds (default :data:`EVERY`) have passed since the last: where the run is, the first objective's best,
    the time since the start."""

    def __init__(self, every: float | None = None, out: TextIO | None = None, command: str = "run"):
        self.every = EVERY if every is None else every
        self.out = out
        self.command = command
        self.objective = ""
        self.step = "generation"
        self.generations = 0
        self.generation = -1
        self.evaluations = self.evaluated = 0
        self.started = self.last = 0.0

    def _say(self, text: str) -> None:
        self.last = time.monotonic()
        elapsed = self.last - self.started
        print(f"evo {self.command}: {text} ({elapsed:.0f} s)", file=self.out or sys.stderr, flush=True)

    def on_run_start(self, run: RunStart) -> None:
        self.objective = run.plugin.objectives[0]
        self.generations = run.config.run.generations
        self.step = "iteration" if run.config.map_elites else "generation"
        self.started = self.last = time.monotonic()

    def on_generation_start(self, generation: int, evaluations: int) -> None:
        self.generation, self.evaluations, self.evaluated = generation, evaluations, 0

    def on_evaluated(self, count: int) -> None:
        self.evaluated += count
        if time.monotonic() - self.last >= self.every and self.evaluated < self.evaluations:
            self._say(
                f"{self.step} {self.generation} ({self.generation + 1} of {self.generations}): "
                f"{self.evaluated} of {self.evaluations} evaluations"
            )

    def on_generation_end(self, status: GenerationStatus) -> None:
        if time.monotonic() - self.last < self.every:
            return
        best = status.stats.get(f"{self.objective}_best", float("nan"))
        g = status.generation
        self._say(f"{self.step} {g} done ({g + 1} of {status.generations}); {self.objective} best {best:.6g}")
