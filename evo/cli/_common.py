"""What several commands share: the world layers (``--world``, ``--set``), output-file errors and the
notice of the simulator's first compilation."""

from __future__ import annotations

import argparse
import contextlib
import sys
import threading
from collections.abc import Iterator

from evo.errors import EvoInputError
from evo.io.tomlfiles import parse_value, read_world_file
from evo.io.worlds import resolve_world
from evo.model import Creature
from evo.schema import shown
from evo.sim.world import World


@contextlib.contextmanager
def writing(path: str) -> Iterator[None]:
    """Turn an OSError while writing ``path`` (a folder in the way, no such folder, no permission) into
    the one-line :class:`EvoInputError` naming it."""
    try:
        yield
    except OSError as exc:
        raise EvoInputError(f"cannot write: {exc.strerror or exc}", source=str(path)) from None


NOTICE_AFTER = 5.0  # s: numba's cache loads faster, a compilation takes about 20 s
COMPILING = "compiling the simulator: first run only, about 20 s (evo warm does it ahead of time)"


@contextlib.contextmanager
def compiling_notice(command: str, after: float | None = None) -> Iterator[None]:
    """Say once on stderr that the simulator is compiling when the work inside takes longer than ``after``
    seconds (default :data:`NOTICE_AFTER`): loading numba's cache takes less, so only a first run in a fresh
    environment is told."""

    def say() -> None:
        print(f"evo {command}: {COMPILING}", file=sys.stderr, flush=True)

    timer = threading.Timer(NOTICE_AFTER if after is None else after, say)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()


def add_world_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--world", metavar="FILE.toml", help="world parameters (a [world] table)")
    parser.add_argument(
        "--set",
        metavar="NAME=VALUE",
        action="append",
        default=[],
        help="override one world parameter (repeatable), e.g. --set gravity=0.3",
    )


def parse_sets(items: list[str]) -> dict:
    out = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise EvoInputError(f"--set expects NAME=VALUE, got {shown(item)}")
        out[name.strip()] = parse_value(value.strip())
    return out


def world_for(creature: Creature, args: argparse.Namespace, model_source: str) -> World:
    """defaults < the model's ``world`` < ``--world FILE`` < ``--set``."""
    layers = [(creature.world, model_source, "world")]
    if getattr(args, "world", None):
        layers.append((read_world_file(args.world), args.world, "world"))
    layers.append((parse_sets(getattr(args, "set", [])), None, "--set"))
    return resolve_world(layers)
