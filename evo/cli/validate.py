"""``evo validate FILE``: check a model file (.json or .xml) or a run config (.toml) without running it."""

from __future__ import annotations

import argparse

from evo.io.models import load_model
from evo.model import is_connected

NAME = "validate"
HELP = "check a model file (.json or Sodaconstructor .xml) or a run config (.toml) and report what it holds"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", help="model file or config .toml to check")


def _validate_config(path: str) -> int:
    from evo.run.config import load_config

    config = load_config(path)
    print(f"{path}: ok: a run config")
    for line in config.describe():
        print(f"  {line}")
    return 0


def run(args: argparse.Namespace) -> int:
    if args.file.lower().endswith(".toml"):
        return _validate_config(args.file)
    creature = load_model(args.file)  # checks everything, its world included
    connected = "connected" if is_connected(creature) else "not connected"
    print(
        f"{args.file}: ok: '{creature.name}', {creature.n_masses} masses, {creature.n_links} links "
        f"({creature.n_muscles} muscles), {connected}"
    )
    return 0
