"""``evo validate FILE``: check a model file (.json or .xml) or a run config (.toml) without running it.

A step that may be unstable (for the model, or for any creature the config's ``[genome]`` allows) is
warned about on stderr; the file is still valid.
"""

from __future__ import annotations

import argparse

from evo.analysis.stability import check_frequency, degree_frequency_bound
from evo.cli._common import placed
from evo.cli._seeds import warn_seed_model_changes
from evo.cli._stability import EXACT, at_rest_note, model_step_check, warn_if_unstable
from evo.errors import input_warnings_as_errors
from evo.io.models import load_model
from evo.io.soda_race import is_race_file
from evo.io.soda_xml import TerrainFile
from evo.io.worlds import resolve_world
from evo.model import is_connected

NAME = "validate"
HELP = "check a model file (.json or Sodaconstructor .xml) or a run config (.toml) and report what it holds"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", help="model file or config .toml to check")
    parser.add_argument(
        "--strict",
        action="store_true",
        help="refuse what a Sodaconstructor file holds that evo does not know (otherwise a warning)",
    )


def _validate_config(path: str) -> int:
    from evo.run.config import load_config

    config = load_config(path)
    print(f"{path}: ok: a run config")
    for line in config.describe():
        print(f"  {line}")
    warn_seed_model_changes(NAME, path, config)
    genome = config.genome
    omega_max = degree_frequency_bound(
        config.world, genome.max_degree, genome.link_stiffness[1], genome.mass[0]
    )
    warn_if_unstable(
        NAME,
        path,
        check_frequency(omega_max, config.world),
        style="[world] ",
        what=f"creatures of up to [genome] max_degree = {genome.max_degree} links per mass",
    )
    return 0


def run(args: argparse.Namespace) -> int:
    if args.strict:  # a warning while reading anything (the model, a terrain file, a config's models)
        with input_warnings_as_errors():
            return _validate(args.file)
    return _validate(args.file)


def _validate(path: str) -> int:
    if path.lower().endswith(".toml"):
        return _validate_config(path)
    if is_race_file(path):
        return _validate_race(path)
    try:
        creature = load_model(path)  # checks everything, its world included
    except TerrainFile as terrain:
        segments = sum(len(line) - 1 for line in terrain.terrain)
        xs = [x for line in terrain.terrain for x, _ in line]
        print(
            f"{path}: ok: a terrain file, {len(terrain.terrain)} polyline(s) of {segments} segment(s) over "
            f'x = {min(xs):g}..{max(xs):g} px; use it as [world] terrain = "{path}" in a config or a '
            f"model's world, or --set terrain={path}"
        )
        return 0
    connected = "connected" if is_connected(creature) else "not connected"
    print(
        f"{path}: ok: '{creature.name}', {creature.n_masses} masses, {creature.n_links} links "
        f"({creature.n_muscles} muscles), {connected}"
    )
    world = resolve_world([(creature.world, path, "world")])
    placed(NAME, creature, world, path)
    bound, exact = model_step_check(creature, world)
    if exact is not None and not exact.stable:
        warn_if_unstable(NAME, path, exact, style="world.", basis=EXACT)
    else:
        note = at_rest_note(exact) if exact is not None else ""
        warn_if_unstable(NAME, path, bound, style="world.", note=note)
    return 0


def _validate_race(path: str) -> int:
    from evo.io.soda_race import read_race
    from evo.race import finish_line

    race = read_race(path)  # every contender checked as a model, in its own world with the race's rules
    for k in range(len(race.contenders)):
        resolve_world([(race.ruled(k).world, path, f"contender {k + 1} world")])
    line = finish_line(race)
    finish = f"finish line at x = {line:g} px" if line is not None else "no terrain, no finish line"
    timeout = f"timeout {race.timeout:g} frames" if race.timeout is not None else "no timeout"
    print(f"{path}: ok: a race of {len(race.contenders)} contenders, {timeout}, {finish} (evo race runs it)")
    return 0
