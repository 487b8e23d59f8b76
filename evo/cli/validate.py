"""``evo validate FILE``: check a model file (.json or .xml) or a run config (.toml) without running it.

A step that may be unstable (for the model, or for any creature the config's ``[genome]`` allows) is
warned about on stderr; the file is still valid.
"""

from __future__ import annotations

import argparse

from evo.analysis.stability import check_frequency, check_step, degree_frequency_bound
from evo.cli._stability import warn_if_unstable
from evo.errors import input_warnings_as_errors
from evo.io.models import load_model
from evo.io.soda_race import is_race_file
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
    creature = load_model(path)  # checks everything, its world included
    connected = "connected" if is_connected(creature) else "not connected"
    print(
        f"{path}: ok: '{creature.name}', {creature.n_masses} masses, {creature.n_links} links "
        f"({creature.n_muscles} muscles), {connected}"
    )
    world = resolve_world([(creature.world, path, "world")])
    warn_if_unstable(NAME, path, check_step(creature, world), style="world.")
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
