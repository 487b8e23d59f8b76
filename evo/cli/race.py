"""``evo race RACE.xml``: run a Sodarace race file and print the ranking; ``evo race MODEL MODEL...``: race
model files, race distance and fitness side by side; ``evo race --from RUN_DIR --out RACE.xml``: write a
run's elites as a race file (docs/model-format.md, "Race files")."""

from __future__ import annotations

import argparse
import json
import math
import sys

from evo.cli._common import writing
from evo.cli._numbers import FRAMES, MAX_FRAMES, integer
from evo.errors import EvoInputError

NAME = "race"
HELP = (
    "run a Sodarace race file (.xml) or race model files against each other and rank them, or write a "
    "run's elites as a race file (--from)"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "race",
        metavar="FILE",
        nargs="*",
        help="a race file (RACE.xml), or the model files to race (.json or classic .xml)",
    )
    parser.add_argument(
        "--frames",
        type=FRAMES,
        metavar="N",
        help="frames per contender (default: the race's timeout; for models 3000)",
    )
    parser.add_argument(
        "--terrain", metavar="FILE.xml", help="models: race on this Soda XML file's fixed bars (default: own)"
    )
    parser.add_argument(
        "--plugin",
        metavar="NAME",
        help="the fitness plugin scored beside the race distance (models: default distance)",
    )
    parser.add_argument("--params", metavar="JSON", help="the plugin's parameters as a JSON object")
    parser.add_argument(
        "--finish",
        metavar="X",
        help="the finish line's x in px, or 'none' for no line (default: the terrain's rightmost point)",
    )
    parser.add_argument("--json", action="store_true", help="print the result as one JSON object on stdout")
    parser.add_argument("--gif", metavar="OUT.gif", help="write an animated GIF of the race")
    parser.add_argument("--svg", metavar="OUT.svg", help="write a still SVG picture of the race")
    parser.add_argument(
        "--every",
        type=integer(1, MAX_FRAMES, "frames between pictures"),
        default=None,
        metavar="K",
        help="frames between GIF pictures",
    )
    parser.add_argument("--strict", action="store_true", help="refuse what evo does not know in the file")
    parser.add_argument("--from", dest="run_dir", metavar="RUN_DIR", help="write a race of this run's elites")
    parser.add_argument("--out", metavar="RACE.xml", help="with --from: the race file to write")
    parser.add_argument(
        "--top",
        type=integer(1, 1_000_000, "elites in the race"),
        metavar="N",
        help="with --from: only the N best elites",
    )


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
    if not args.race:
        raise EvoInputError(
            "give a race file (evo race RACE.xml), model files (evo race A.json B.xml) or --from RUN_DIR "
            "--out RACE.xml"
        )
    for option in ("out", "top"):
        if getattr(args, option) is not None:
            raise EvoInputError(f"--{option} goes with --from RUN_DIR")
    if args.frames is not None and args.frames < 1:
        raise EvoInputError(f"--frames must be at least 1, got {args.frames}")
    from evo.io.soda_race import is_race_file, read_race
    from evo.race import run_race

    if len(args.race) == 1 and not is_race_file(args.race[0]):
        raise EvoInputError(
            "expected a <race> file; to race models, give two or more model files", source=args.race[0]
        )
    if len(args.race) == 1:
        if args.terrain is not None:
            raise EvoInputError("--terrain goes with model files: a race file holds its own terrain")
        race, title, files = read_race(args.race[0], strict=args.strict), args.race[0], None
    else:
        from evo.race.models import race_of_models

        race = race_of_models(args.race, terrain=args.terrain, frames=args.frames)
        title, files = f"race of {len(args.race)} models", args.race
    result = run_race(race, frames=args.frames, finish_x=_finish(args.finish))
    plugin = args.plugin or ("distance" if files else None)
    scores = _scores(result, plugin, args.params) if plugin else None
    human = sys.stderr if args.json else sys.stdout
    line = f"finish line at x = {result.finish_x:g} px" if result.finish_x is not None else "no finish line"
    print(f"{title}: {len(result.standings)} contenders, {result.frames:g} frames, {line}", file=human)
    if scores:
        print(f"  race distance: centroid x from frame 0; {_counted(scores[0])}", file=human)
    for s in result.standings:
        if s.finished:
            how = f"finished at frame {s.frames:g} ({s.distance:+.1f} px)"
        else:
            how = f"{s.distance:+.1f} px in {s.frames:g} frames"
        if scores:
            how = f"race distance {how} · fitness {scores[s.index - 1].label}"
        flag = f"  EXPLODED at frame {s.exploded_frame:g}" if s.exploded else ""
        where = files[s.index - 1] if files else f"contender {s.index}"
        print(f"{s.rank:>3}. {s.name} ({where}): {how}{flag}", file=human)
    _pictures(args, result, human)
    if args.json:
        doc = result.to_dict()
        for row in doc["contenders"]:
            if files:
                row["file"] = str(files[row["index"] - 1])
            if scores:
                row["distance_counted_from_frame"] = 0
                row["fitness"] = scores[row["index"] - 1].to_dict()
        print(json.dumps(doc))
    return 0


def _scores(result, plugin: str, params_text: str | None):
    from evo.cli._fitness import params_of
    from evo.race.models import scores_of

    return scores_of(result, plugin, params_of(params_text))


def _counted(score) -> str:
    """Where the plugin's fitness counts from, said once above the standings."""
    since = f"from frame {score.counted_from:g} (settle_frames)" if score.counted_from else "from frame 0"
    return f"fitness: the {score.plugin} plugin, counted {since}"


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
    if args.race:
        raise EvoInputError("give either files to race or --from RUN_DIR, not both")
    from evo.io.soda_race import write_race
    from evo.race import race_of_run

    race = race_of_run(args.run_dir, top=args.top)
    with writing(args.out):
        write_race(race, args.out)
    timeout = f"{race.timeout:g} frames" if race.timeout is not None else "no timeout"
    print(f"wrote {args.out}: {len(race.contenders)} contenders, {timeout}")
    return 0
