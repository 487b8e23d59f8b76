"""``evo convert IN OUT``: convert a model between evo JSON and Sodaconstructor XML."""

from __future__ import annotations

import argparse
from pathlib import Path

from evo.cli._common import writing
from evo.cli._numbers import integer
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
    parser.add_argument(
        "--contender",
        type=integer(1, 100_000, "a contender's number, 1 = the first"),
        metavar="K",
        help="IN is a Sodarace race file: convert its K-th contender (1 = the first), in the race's world",
    )


def run(args: argparse.Namespace) -> int:
    for path in (args.source, args.target):
        if Path(path).suffix.lower() not in (".json", ".xml"):
            raise EvoInputError(f"expected a .json or .xml file name, got {path!r}")
    if args.contender is not None:
        creature = _contender(args.source, args.contender, args.strict)
    else:
        creature = load_model(args.source, strict=args.strict)
    with writing(args.target):
        save_model(creature, args.target, source=args.source)
    print(f"wrote {args.target}")
    return 0


def _contender(path: str, k: int, strict: bool):
    """Contender ``k`` (1-based) of a race file, with the race's imposed values and terrain in its world."""
    from evo.io.soda_race import is_race_file, read_race

    if not is_race_file(path):
        raise EvoInputError("--contender K needs a Sodarace race file (<race>)", source=path)
    race = read_race(path, strict=strict)
    if not 1 <= k <= len(race.contenders):
        raise EvoInputError(f"--contender must lie in 1..{len(race.contenders)}, got {k}", source=path)
    return race.ruled(k - 1)
