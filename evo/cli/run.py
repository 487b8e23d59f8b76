"""``evo run CONFIG``: evolve creatures into a run folder (see docs/runs.md).

Exit status: 0 when the run reached its generations, 2 for bad input (config, an existing folder, a
checkpoint that does not match), 1 when an evaluation failed (a plugin raised: the creature is saved under
``failed/`` and the last checkpoint is intact), 130 when stopped by Ctrl-C (the generation being
evaluated is finished and checkpointed first; a second Ctrl-C abandons it, and the last checkpoint
stays as it was).
"""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys
from collections.abc import Iterator
from typing import Any

from evo.errors import EvoInputError

NAME = "run"
HELP = "evolve creatures as a config file says, into runs/<name>/ (or --out DIR)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("config", metavar="CONFIG", help="TOML config file (see docs/config.md)")
    again = parser.add_mutually_exclusive_group()
    again.add_argument(
        "--resume", action="store_true", help="continue the run in the folder up to [run] generations"
    )
    again.add_argument("--force", action="store_true", help="start over, replacing an existing run folder")
    parser.add_argument(
        "--workers", type=int, metavar="N", help="worker processes (overrides [pool] workers)"
    )
    parser.add_argument("--out", metavar="DIR", help="run folder (default: runs/<name>/)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar and no summary")


class _Bars:
    """tqdm bars: generations, and the evaluations of the current one; best and mean in the postfix."""

    def __init__(self, name: str, total: int, done: int, objective: str):
        from tqdm import tqdm

        self._tqdm = tqdm
        self.objective = objective
        self.outer = tqdm(total=total, initial=done, desc=name, unit="gen", dynamic_ncols=True)
        self.inner: Any = None

    def generation_started(self, generation: int, evaluations: int) -> None:
        self.inner = self._tqdm(
            total=evaluations, desc=f"generation {generation}", unit="eval", leave=False, position=1
        )

    def evaluated(self, count: int) -> None:
        if self.inner is not None:
            self.inner.update(count)

    def generation_finished(self, record: dict[str, Any]) -> None:
        if self.inner is not None:
            self.inner.close()
            self.inner = None
        best, mean = record[f"{self.objective}_best"], record[f"{self.objective}_mean"]
        self.outer.set_postfix_str(f"best {best:.4g}  mean {mean:.4g}", refresh=False)
        self.outer.update(1)

    def close(self) -> None:
        if self.inner is not None:
            self.inner.close()
        self.outer.close()


@contextlib.contextmanager
def _graceful_interrupt() -> Iterator[list[bool]]:
    """First Ctrl-C: ask the run to stop after the current generation; second: KeyboardInterrupt."""
    requested = [False]

    def handler(signum: int, frame: Any) -> None:
        if requested[0]:
            raise KeyboardInterrupt
        requested[0] = True
        print(
            "\nevo run: stopping after this generation's checkpoint (Ctrl-C again to abandon it)",
            file=sys.stderr,
            flush=True,
        )

    previous = signal.signal(signal.SIGINT, handler)
    try:
        yield requested
    finally:
        signal.signal(signal.SIGINT, previous)


def run(args: argparse.Namespace) -> int:
    import dataclasses

    from evo.run.config import load_config
    from evo.run.evolve import RunFailed, execute, prepare

    if args.workers is not None and args.workers < 1:
        raise EvoInputError(f"--workers must be at least 1, got {args.workers}")
    config = load_config(args.config)
    if args.workers is not None:
        config = dataclasses.replace(config, pool=dataclasses.replace(config.pool, workers=args.workers))
    prepared = prepare(config, out=args.out, resume=args.resume, force=args.force)
    evolution = prepared.evolution
    generations = config.run.generations
    show_bars = not args.quiet and sys.stdout.isatty()
    bars = (
        _Bars(
            config.run.name,
            generations,
            min(evolution.generation + 1, generations),
            prepared.plugin.objectives[0],
        )
        if show_bars
        else None
    )
    try:
        with _graceful_interrupt() as stop:
            result = execute(
                prepared, workers=config.pool.workers, progress=bars, stop_requested=lambda: stop[0]
            )
    except RunFailed as exc:
        if bars:
            bars.close()
        print(f"evo run: error: {exc}", file=sys.stderr)
        return 1
    if bars:
        bars.close()
    if result.stopped:
        print(
            f"evo run: stopped after generation {result.generation}; continue with --resume", file=sys.stderr
        )
        return 130
    if stop[0]:  # Ctrl-C during the last generation: the run is complete, but it was interrupted
        print(f"evo run: interrupted; all {generations} generations were done", file=sys.stderr)
        return 130
    if not args.quiet:
        files = result.folder.elite_files()
        best = result.best
        line = f"{result.folder.path}: {result.generation + 1} generations"
        if best is not None and files:
            values = ", ".join(
                f"{name} {value:.6g}"
                for name, value in zip(prepared.plugin.objectives, best.values, strict=True)
            )
            line += f"; best {values} ({files[0]})"
        print(line)
    return 0
