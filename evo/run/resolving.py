"""The steps of :func:`evo.run.config.resolve` that look outside the config's text: plugin files and the
plugin itself, a terrain file, seed model files, the CPUs, dask and pyribs. Each takes the parsed pieces
and raises a one-line :class:`~evo.errors.EvoInputError` naming the config file and the key.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from evo.errors import EvoInputError
from evo.fitness import Plugin, PluginRef, find_plugin
from evo.ga.settings import GenomeSection
from evo.io.models import load_model
from evo.io.worlds import world_from
from evo.qd import QDSection
from evo.run.backends import require_dask
from evo.run.parse import PoolSection
from evo.schema import shown
from evo.sim.limits import Limits, check_size
from evo.sim.simulate import MAX_STEPS, steps_for
from evo.sim.world import World

__all__ = [
    "check_backend",
    "check_records",
    "fitness_plugin_of",
    "plugin_paths",
    "resolved_qd",
    "seed_model_paths",
    "world_of",
]


def plugin_paths(entries: tuple[str, ...], base: Path, source: str | None) -> tuple[str, ...]:
    """``[evaluation] plugin_paths``, absolute, each an existing folder or ``.py`` file."""
    return tuple(_existing_plugin_path(entry, base, source) for entry in entries)


def fitness_plugin_of(
    name: str, paths: tuple[str, ...], source: str | None, *, required: bool = True
) -> Plugin | None:
    """The plugin ``[evaluation] plugin`` names, from ``paths`` or the registry; None when it cannot be
    found and is not ``required`` (a run folder read where its plugin is not installed)."""
    try:
        return find_plugin(name, paths, source=source, field="[evaluation] plugin")
    except EvoInputError as exc:
        if exc.source != source and any(p in str(exc) for p in paths):  # a plugin file failed to load
            raise EvoInputError(f"[evaluation] plugin_paths: {exc}", source=source) from None
        if required:
            raise
        return None


def world_of(table: Mapping[str, Any], frames: int, source: str | None) -> World:
    """The ``[world]`` table as a :class:`World` (a terrain naming a Soda XML file read), checked to
    simulate ``frames`` frames in whole steps."""
    world = world_from(table, source=source, where="[world]")
    _check_steps(frames, f"[evaluation] frames: {shown(frames)} frames is", world, source)
    return world


def seed_model_paths(genome: GenomeSection, base: Path, source: str | None) -> tuple[str, ...]:
    """``[genome] seed_models``, absolute, each read as a model within the simulator's size limits."""
    return tuple(_readable_seed_model(entry, base, source) for entry in genome.seed_models)


def check_backend(pool: PoolSection, plugin: PluginRef, source: str | None) -> None:
    """With dask: dask installed, and a plugin that dask workers can import."""
    if pool.backend != "dask":
        return
    try:
        require_dask()
    except EvoInputError as exc:
        raise EvoInputError(exc.message, source=source, field="[pool] backend") from None
    if plugin.origin.startswith("registered:"):
        raise EvoInputError(
            f"fitness function '{plugin.name}' was defined in __main__ or a notebook, which dask workers "
            "cannot import; put it in an importable module (or a plugin file in plugin_paths)",
            source=source,
            field="[pool] backend",
        )


def resolved_qd(qd: QDSection, plugin: Plugin, genome: GenomeSection, source: str | None) -> QDSection:
    """The ``[qd]`` table checked against the plugin's measures, every range and bin filled in."""
    return qd.resolved(
        plugin.measures,
        plugin.measure_ranges,
        masses=genome.masses,
        omega=genome.omega,
        plugin=plugin.name,
        source=source,
    )


def check_records(plugin: Plugin, world: World, source: str | None) -> None:
    """The plugin's ``record_every`` is a whole number of steps of ``[world] dt``."""
    records = f"[world] dt: plugin '{plugin.name}' records every {plugin.record_every:g} frames, which is"
    _check_steps(plugin.record_every, records, world, source)


def _existing_plugin_path(entry: str, base: Path, source: str | None) -> str:
    path = Path(os.path.abspath(base / Path(entry).expanduser()))
    if not (path.is_dir() or (path.is_file() and path.suffix == ".py")):
        raise EvoInputError(
            f"[evaluation] plugin_paths: expected a folder or a .py file, got '{entry}' ({path})",
            source=source,
        )
    return str(path)


def _readable_seed_model(entry: str, base: Path, source: str | None) -> str:
    """The absolute path of a seed model, once it has been read as a model file (and found within the
    size limits of a simulation)."""
    path = os.path.abspath(base / Path(entry).expanduser())
    try:
        model = load_model(path)
    except EvoInputError as exc:
        raise EvoInputError(f"[genome] seed_models: {exc}", source=source) from None
    try:
        check_size(model.n_masses, model.n_links, 0, Limits.from_environment())
    except EvoInputError as exc:
        raise EvoInputError(f"[genome] seed_models: {path}: {exc}", source=source) from None
    return path


def _check_steps(frames: float, message: str, world: World, source: str | None) -> None:
    """``frames`` must be a whole number of integration steps of ``world.dt``, and not too many."""
    try:
        steps_for(frames, world.dt)
    except EvoInputError:
        try:
            too_many = not frames / world.dt <= MAX_STEPS
        except OverflowError:
            too_many = True
        if too_many:
            problem = f"more than the {MAX_STEPS:g} steps of dt = {world.dt:g} frames one simulation may take"
        else:
            problem = f"not a whole number of steps of dt = {world.dt:g} frames"
        raise EvoInputError(f"{message} {problem}", source=source) from None
