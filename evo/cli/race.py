"""``evo race RACE.xml``: run a Sodarace race file and print the ranking; ``evo race --from RUN_DIR --out
RACE.xml``: write a run's elites as a race file (docs/model-format.md, "Race files")."""

from __future__ import annotations

import argparse
import json
import math
import sys

from evo.cli._common import writing
from evo.errors import EvoInputError

NAME = "race"
HELP = "run a Sodarace race file (.xml) and rank its contenders, or write a run's elites as one (--from)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("race", metavar="RACE.xml", nargs="?", help="the race file to run")
    parser.add_argument(
        "--frames", type=int, metavar="N", help="frames per contender (default: the race's timeout)"
    )
    parser.add_argument(
        "--finish",
        metavar="X",
        help="the finish line's x in px, or 'none' for no line (default: the terrain's rightmost point)",
    )
    parser.add_argument("--json", action="store_true", help="print the result as one JSON object on stdout")
    parser.add_argument("--gif", metavar="OUT.gif", help="write an animated GIF of the race")
    parser.add_argument("--svg", metavar="OUT.svg", help="write a still SVG picture of the race")
    parser.add_argument("--every", type=int, default=None, metavar="K", help="frames between GIF pictures")
    parser.add_argument("--strict", action="store_true", help="refuse what evo does not know in the file")
    parser.add_argument("--from", dest="run_dir", metavar="RUN_DIR", help="write a race of this run's elites")
    parser.add_argument("--out", metavar="RACE.xml", help="with --from: the race file to write")
    parser.add_argument("--top", type=int, metavar="N", help="with --from: only the N best elites")


def _finish(text: str | None) -> float | None | str:
    if text is None:
        return "terrain"
    if text.strip().lower() == "none":
        return None
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise EvoInputError(f"--finish expects an x in px or 'none', got {text!r}")
    return value


def run(args: argparse.Namespace) -> int:
    if args.run_dir is not None:
        return _write_from_run(args)
    if args.race is None:
        raise EvoInputError("give a race file (evo race RACE.xml) or --from RUN_DIR --out RACE.xml")
    for option in ("out", "top"):
        if getattr(args, option) is not None:
            raise EvoInputError(f"--{option} goes with --from RUN_DIR")
    if args.frames is not None and args.frames < 1:
        raise EvoInputError(f"--frames must be at least 1, got {args.frames}")
    from evo.io.soda_race import read_race
    from evo.race import run_race

    race = read_race(args.race, strict=args.strict)
    result = run_race(race, frames=args.frames, finish_x=_finish(args.finish))
    human = sys.stderr if args.json else sys.stdout
    line = f"finish line at x = {result.finish_x:g} px" if result.finish_x is not None else "no finish line"
    print(f"{args.race}: {len(result.standings)} contenders, {result.frames:g} frames, {line}", file=human)
    for s in result.standings:
        if s.finished:
            how = f"finished at frame {s.frames:g} ({s.distance:+.1f} px)"
        else:
            how = f"{s.distance:+.1f} px in {s.frames:g} frames"
        flag = f"  EXPLODED at frame {s.exploded_frame:g}" if s.exploded else ""
        print(f"{s.rank:>3}. {s.name} (contender {s.index}): {how}{flag}", file=human)
    _pictures(args, result, human)
    if args.json:
        print(json.dumps(result.to_dict()))
    return 0


def _pictures(args: argparse.Namespace, result, human) -> None:
    if args.gif:
        from evo.gallery.race_pictures import race_gif_frames
        from evo.gallery.replay import save_gif

        every = args.every if args.every is not None else max(1, math.ceil(result.frames / 150))
        if every < 1:
            raise EvoInputError(f"--every must be at least 1, got {every}")
        with writing(args.gif):
            save_gif(race_gif_frames(result, every=every), args.gif)
        print(f"wrote {args.gif}", file=human)
    if args.svg:
        from evo.gallery.race_pictures import race_svg
        from evo.io.atomic import atomic_write_text

        with writing(args.svg):
            atomic_write_text(args.svg, race_svg(result))
        print(f"wrote {args.svg}", file=human)


def _write_from_run(args: argparse.Namespace) -> int:
    if args.out is None:
        raise EvoInputError("--from RUN_DIR needs --out RACE.xml")
    if args.race is not None:
        raise EvoInputError("give either a race file to run or --from RUN_DIR, not both")
    from evo.io.soda_race import write_race
    from evo.race import race_of_run

    race = race_of_run(args.run_dir, top=args.top)
    with writing(args.out):
        write_race(race, args.out)
    timeout = f"{race.timeout:g} frames" if race.timeout is not None else "no timeout"
    print(f"wrote {args.out}: {len(race.contenders)} contenders, {timeout}")
    return 0
