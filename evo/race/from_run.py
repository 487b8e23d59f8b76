"""A race of a run's elites: the run's terrain, each elite in the run's world, the run's frames as the
timeout, nothing imposed (every constraint ``CONTENDER``). The world must be one a Soda file holds; a
``max_speed`` is dropped (it only stops blown-up runs, and elites did not blow up)."""

from __future__ import annotations

import os

from evo.errors import EvoInputError
from evo.io.run_folder.contents import read_run
from evo.io.soda_dialect import WORLD_NUMBERS
from evo.io.soda_race import Contender, Race
from evo.io.worlds import resolve_world
from evo.run.config import run_folder_config
from evo.sim import DEFAULT_FRAMES
from evo.sim.world import World

__all__ = ["race_of_run"]

# the World fields a Soda model file holds: the dialect's numbers (environment, collisions, container),
# gravitydirection of <settings>, and the fixed bars
_SODA_FIELDS = frozenset(key for key, *_ in WORLD_NUMBERS.values()) | {"gravity_direction", "terrain"}


def race_of_run(run_dir: str | os.PathLike, *, top: int | None = None) -> Race:
    """The race of a run folder's elites (the best first), each in the world it was scored in.

    Args:
        run_dir: a run folder written by ``evo run``.
        top: race only the ``top`` best elites (None: all of them).

    Returns:
        The :class:`~evo.io.soda_race.Race`; written with :func:`evo.io.soda_race.dumps_race_xml` and run
        for the run's frames, each elite covers the centroid distance ``evo simulate`` gives its model
        file.

    Raises:
        EvoInputError: an unreadable run folder, ``top`` below 1, or a run whose world or creatures a race
            file cannot hold (an integrator other than euler, a ground other than the flat floor, per-link
            stiffness, ...), naming what.
    """
    if top is not None and top < 1:
        raise EvoInputError(f"--top must be at least 1, got {top}")
    run = read_run(run_dir)
    config = str(run.path / "config.toml")
    parsed = run_folder_config(run)  # its world resolved under each contender's below
    frames = parsed.evaluation.frames if parsed else DEFAULT_FRAMES
    contenders, terrain = [], ()
    for entry in run.elites[:top] if top else run.elites:
        world = resolve_world(
            [
                (parsed.world if parsed else {}, config, "world"),
                (entry.creature.world, entry.file_name, "world"),
            ]
        )
        _check_soda_world(world, entry.file_name)
        if not entry.creature.has_default_physics:
            raise EvoInputError(
                "per-link stiffness, dashpots or per-mass masses cannot be written to a race file",
                source=entry.file_name,
            )
        terrain = world.terrain
        own = {k: v for k, v in world.to_dict().items() if k in _SODA_FIELDS and k != "terrain"}
        contenders.append(Contender(entry.creature.replace(world=own)))
    return Race(
        contenders=tuple(contenders),
        terrain=terrain,
        timeout=float(frames),
        terrain_name=f"{run.path.name} terrain",
    )


def _check_soda_world(world: World, source: str) -> None:
    default = World()
    for name in World.field_names():
        if name in _SODA_FIELDS or name in ("max_speed", "terrain_file"):  # a run's stop, a label: dropped
            continue
        if getattr(world, name) != getattr(default, name):
            raise EvoInputError(
                f"a race file cannot hold {name} = {getattr(world, name)!r} (only the Sodaconstructor's "
                "world: gravity, damping, stiffness, restitutions, walls, terrain)",
                source=source,
                field="world",
            )
