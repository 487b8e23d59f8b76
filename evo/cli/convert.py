"""``evo convert IN OUT``: convert a model between evo JSON and Sodaconstructor XML."""

from __future__ import annotations

import argparse
from pathlib import Path

from evo.cli._common import writing
from evo.errors import EvoInputError
from evo.io.models import load_model, save_model

NAME = "convert"
HELP = "convert a model between .json (evo-model) and .xml (Sodaconstructor), by extension"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("source", metavar="IN", help="input model (.json or .xml)")
    parser.add_argument("target", metavar="OUT", help="output model (.json or .xml)")
    parser.add_argument(
        "--strict",
        action="store_true",
        help="refuse what a Sodaconstructor file holds that evo does not know (otherwise a warning)",
    )


def run(args: argparse.Namespace) -> int:
    for path in (args.source, args.target):
        if Path(path).suffix.lower() not in (".json", ".xml"):
            raise EvoInputError(f"expected a .json or .xml file name, got {path!r}")
    creature = load_model(args.source, strict=args.strict)
    with writing(args.target):
        save_model(creature, args.target, source=args.source)
    print(f"wrote {args.target}")
    return 0
