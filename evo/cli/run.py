"""``evo run CONFIG``: evolve creatures into a run folder, and turn how the run ended into an exit status.

0 done, 1 the run failed (an evaluation, or a folder that could no longer be written), 2 bad input,
130 Ctrl-C, 143 SIGTERM; what each means and what a second signal does: docs/runs.md.
"""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from evo.cli._run_progress import FirstCompile, ProgressLines
from evo.cli._seeds import warn_seed_model_changes
from evo.errors import EvoInputError, one_line
from evo.io.run_folder.folder import RunFolder
from evo.run.callbacks import Callback, GenerationStatus
from evo.schema import shown

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
        "--workers",
        type=int,  # bounded by the [pool] schema, which --workers overrides
        metavar="N",
        help="workers: threads for evo's own plugins, else processes (overrides [pool] workers)",
    )
    parser.add_argument(
        "--dask",
        metavar="ADDRESS",
        help="evaluate on the dask scheduler at ADDRESS, e.g. tcp://host:8786 ([pool] backend and address)",
    )
    parser.add_argument("--out", metavar="DIR", help="run folder (default: runs/<name>/)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar and no summary")


_SIGNALS = {signal.SIGINT: "Ctrl-C", signal.SIGTERM: "SIGTERM"}


@contextlib.contextmanager
def _graceful_interrupt() -> Iterator[list[int]]:
    """The first Ctrl-C or SIGTERM asks the run to stop after the current generation (the signal is
    recorded in the list yielded); a second one of either raises KeyboardInterrupt."""
    received: list[int] = []

    def handler(signum: int, frame: Any) -> None:
        if received:
            raise KeyboardInterrupt
        received.append(signum)
        again = "Ctrl-C again" if signum == signal.SIGINT else "send SIGTERM again"  # a service has no keys
        print(
            f"\nevo run: {_SIGNALS[signum]}: stopping after this generation's checkpoint "
            f"({again} to abandon it)",
            file=sys.stderr,
            flush=True,
        )

    previous = {signum: signal.signal(signum, handler) for signum in _SIGNALS}
    try:
        yield received
    finally:
        for signum, old in previous.items():
            signal.signal(signum, old)


class _StopOnRequest(Callback):
    """Stops the run after the generation under way once the user asked (the first Ctrl-C or SIGTERM):
    when it is told (the next one's work, under way, is dropped; its report may come meanwhile)."""

    def __init__(self, requested: list[int]):
        self.requested = requested

    def on_generation_told(self, status: GenerationStatus) -> None:
        if self.requested:
            status.stop()


def run(args: argparse.Namespace) -> int:
    from evo.run.config import load_config, pool_overrides
    from evo.run.evolve import RunFailed, evolve

    start = Path.cwd()  # before any plugin code runs: a plugin's os.chdir moves no run folder
    if args.workers is not None and args.workers < 1:
        raise EvoInputError(f"--workers must be at least 1, got {args.workers}")
    if args.dask is not None:
        from evo.run.backends import dask_address_problem

        problem = dask_address_problem(args.dask)
        if problem is not None:
            raise EvoInputError(f"--dask: {problem}, got {shown(args.dask)}")
    config = load_config(
        args.config, overrides={"pool": pool_overrides(workers=args.workers, address=args.dask)}
    )
    if not args.resume:  # a resumed run has its generation 0 already
        warn_seed_model_changes(NAME, args.config, config)
    out = args.out if args.out else Path("runs") / config.run.name
    folder = start / out  # absolute: a plugin's os.chdir changes nothing
    show_bars = not args.quiet and sys.stderr.isatty()  # the bars are drawn on stderr
    said: list[Callback] = [] if args.quiet or show_bars else [ProgressLines()]
    stop: list[int] = []
    try:
        with _graceful_interrupt() as stop:
            result = evolve(
                config,
                out=folder,
                callbacks=[FirstCompile(quiet=args.quiet), _StopOnRequest(stop), *said],
                progress=show_bars,
                resume=args.resume,
                force=args.force,
            )
    except RunFailed as exc:
        message = str(exc)
        if "dask scheduler at" in message:  # say where the address came from
            origin = "--dask" if args.dask else f"[pool] address of {config.source}"
            message += f" (the address is from {origin})"
        print(f"evo run: error: {one_line(message)}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        if stop[:1] != [signal.SIGTERM]:
            raise  # evo's main says so and exits 130
        print("evo run: interrupted; the last checkpoint stays as it was", file=sys.stderr)
        return 128 + signal.SIGTERM
    generations = config.run.generations
    if result.stopped:
        print(
            f"evo run: stopped after {'iteration' if config.map_elites else 'generation'} "
            f"{result.generation}; continue with --resume",
            file=sys.stderr,
        )
        return 128 + stop[0] if stop else 130
    if stop:  # a signal during the last generation: the run is complete, but it was interrupted
        print(f"evo run: interrupted; all {generations} generations were done", file=sys.stderr)
        return 128 + stop[0]
    if not args.quiet:
        files = RunFolder(folder).elite_files()
        best = result.best
        steps = "iterations" if config.map_elites else "generations"  # MAP-Elites' word, as validate's
        line = f"{out}: {result.generation + 1} {steps}"
        if best is not None and files:
            values = ", ".join(
                f"{name} {value:.6g}" for name, value in zip(best.objectives, best.fitness, strict=True)
            )
            line += f"; best {values} ({Path(out) / files[0].relative_to(folder)})"
        if result.archive is not None:
            archive = result.archive
            line += (
                f"; archive: {len(archive.cells)} cells of {archive.total_cells} occupied, "
                f"QD score {archive.qd_score:.6g}"
            )
        print(line)
    return 0
