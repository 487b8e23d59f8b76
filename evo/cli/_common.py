"""What several commands share: the world layers (``--world``, ``--set``), output-file errors and the
notice of the simulator's first compilation."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import sys
import threading
from collections.abc import Iterator

import numpy as np

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


NOTICE_AFTER = 5.0  # s: numba's cache loads faster, a compilation takes 20 s or more
COMPILING = "compiling the simulator: first run only, about 20 s (evo warm does it ahead of time)"
COMPILING_RUN = (
    "compiling the simulator and breeding: first run only, half a minute or more"
    " (evo warm does it ahead of time)"
)


@contextlib.contextmanager
def compiling_notice(command: str, after: float | None = None, what: str = COMPILING) -> Iterator[None]:
    """Say once on stderr that the simulator is compiling when the work inside takes longer than ``after``
    seconds (default :data:`NOTICE_AFTER`): loading numba's cache takes less, so only a first run in a fresh
    environment is told."""

    def say() -> None:
        print(f"evo {command}: {what}", file=sys.stderr, flush=True)

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
        help="override one world parameter (repeatable), e.g. --set gravity=0.3; --set width=none (or "
        "height=none) removes the walls (ceiling), --set autoreverse=off the creature's autoreverse",
    )


# --set keys that change the creature rather than the world, and the values each one takes
CREATURE_SETS = {"autoreverse": {"on": True, "true": True, "off": False, "false": False}}
# world keys whose "off" is None: --set width=none (or off) removes the side walls
_NULLABLE = tuple(f.name for f in dataclasses.fields(World) if f.default is None)


def _split_sets(items: list[str]) -> tuple[dict, dict]:
    """``--set`` items as (world values, creature values)."""
    world, creature = {}, {}
    for item in items:
        name, sep, value = item.partition("=")
        name, value = name.strip(), value.strip()
        if not sep or not name:
            raise EvoInputError(f"--set expects NAME=VALUE, got {shown(item)}")
        if name in CREATURE_SETS:
            words = CREATURE_SETS[name]
            if value.lower() not in words:
                raise EvoInputError(
                    f"expected one of {', '.join(words)}, got {shown(value)}", field=f"--set {name}"
                )
            creature[name] = words[value.lower()]
        elif name in _NULLABLE and value.lower() in ("none", "off"):
            world[name] = None
        else:
            world[name] = parse_value(value)
    return world, creature


def parse_sets(items: list[str]) -> dict:
    """The world's values of ``--set`` items (``none``/``off`` for a key that may be None gives None)."""
    return _split_sets(items)[0]


def world_for(creature: Creature, args: argparse.Namespace, model_source: str) -> World:
    """defaults < the model's ``world`` < ``--world FILE`` < ``--set``."""
    layers = [(creature.world, model_source, "world")]
    if getattr(args, "world", None):
        layers.append((read_world_file(args.world), args.world, "world"))
    layers.append((parse_sets(getattr(args, "set", [])), None, "--set"))
    return resolve_world(layers)


def creature_and_world(
    creature: Creature, args: argparse.Namespace, model_source: str
) -> tuple[Creature, World]:
    """The creature with its ``--set`` values (``autoreverse=off``) and its world (:func:`world_for`)."""
    world = world_for(creature, args, model_source)
    own = _split_sets(getattr(args, "set", []))[1]
    return (creature.replace(**own) if own else creature), world


def placed(command: str, creature: Creature, world: World, source: str) -> Creature:
    """The creature as it is simulated (lifted out of terrain it starts in: see
    :func:`~evo.sim.placement.stand_on_ground`), with one warning line on stderr naming the masses that
    the file puts below the floor y = 0 and saying what happens to them."""
    from evo.sim.placement import stand_on_ground

    lifted = stand_on_ground(creature, world)
    depth = -creature.positions[:, 1]  # below the floor y = 0 as the file has it (hills lift silently)
    below = [int(i) for i in np.flatnonzero(depth > 1e-9)]
    if not below:
        return lifted
    names = ", ".join(str(i) for i in below[:10])
    names += f" and {len(below) - 10} more" if len(below) > 10 else ""
    several = len(below) > 1
    if lifted is creature:
        then = "the ground pushes them out from the first frame" if several else "the ground pushes it out"
    else:
        then = f"the creature is lifted {float(lifted.positions[0, 1] - creature.positions[0, 1]):.3g} px"
    print(
        f"evo {command}: warning: {source}: mass{'es' if several else ''} {names} (0-based) "
        f"start{'' if several else 's'} below the floor, the deepest by {float(depth.max()):.3g} px: {then}",
        file=sys.stderr,
    )
    return lifted
