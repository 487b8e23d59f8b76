"""``evo simulate MODEL``: run one creature and print its summary (and optionally a CSV trace).

On a ground other than flat (or with terrain) the model is first lifted so that no mass starts below the
surface; a step that may be unstable for it is warned about on stderr.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys

from evo.cli._common import add_world_arguments, compiling_notice, creature_and_world, placed, writing
from evo.cli._fitness import plugin_spec, score
from evo.cli._numbers import FRAMES, MAX_FRAMES, SEED, number
from evo.cli._stability import BOUND, EXACT, at_rest_note, model_step_check, warn_if_unstable
from evo.errors import EvoInputError
from evo.io.models import load_model
from evo.io.trace import write_trace
from evo.schema import shown
from evo.sim import DEFAULT_FRAMES, simulate, warm_up

NAME = "simulate"
HELP = "simulate a model (.json or Sodaconstructor .xml) and print a summary"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("model", metavar="MODEL", help="model file (.json or .xml)")
    parser.add_argument(
        "--frames", type=FRAMES, default=None, help=f"frames to simulate (default {DEFAULT_FRAMES})"
    )
    add_world_arguments(parser)
    parser.add_argument("--trace", metavar="OUT.csv", help="write frame,mass,x,y,vx,vy rows")
    parser.add_argument(
        "--every",
        type=number(0, MAX_FRAMES, "frames between records", above=True),
        default=1,
        metavar="K",
        help="record every K frames; --frames must be a multiple of K (default 1)",
    )
    parser.add_argument("--json", action="store_true", help="print a JSON summary on the last line")
    add_plugin_arguments(parser)


def add_plugin_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group(
        "fitness",
        "score the creature with a fitness plugin; for an elite of a run whose meta names the same plugin, "
        "its meta's frames, params, seed and plugin_paths are the defaults, so the fitness in its meta is "
        "reproduced exactly",
    )
    group.add_argument("--plugin", metavar="NAME", help="fitness plugin (python -m evo plugins lists them)")
    group.add_argument(
        "--params", metavar="JSON", help="plugin parameters as a JSON object, e.g. '{\"settle_frames\": 100}'"
    )
    group.add_argument(
        "--seed", type=SEED, metavar="N", help="seed handed to the plugin (default: the meta's, else 0)"
    )
    group.add_argument(
        "--plugin-path",
        metavar="PATH",
        action="append",
        default=[],
        help="extra folder or .py file to load plugins from (repeatable)",
    )


def summary(creature, trajectory) -> dict:
    start = trajectory.centroids[0]
    end = trajectory.centroids[-1]
    return {
        "name": creature.name,
        "frames": _frames_value(float(trajectory.frames[-1])),
        "masses": creature.n_masses,
        "links": creature.n_links,
        "muscles": creature.n_muscles,
        "start_centroid": [float(start[0]), float(start[1])],
        "end_centroid": [float(end[0]), float(end[1])],
        "distance": float(end[0] - start[0]),
        "exploded": trajectory.exploded,
        "exploded_frame": trajectory.exploded_frame,
    }


def _frames_value(frames: float) -> int | float:
    """A frame count for JSON: an integer when it is whole (3000, not 3000.0)."""
    return int(frames) if float(frames).is_integer() else frames


def run(args: argparse.Namespace) -> int:
    # absolute before any plugin code runs: a plugin's os.chdir moves no trace
    trace = os.path.abspath(args.trace) if args.trace else None
    creature = load_model(args.model)
    creature, world = creature_and_world(creature, args, args.model)
    creature = placed(NAME, creature, world, args.model)
    frames = args.frames
    if frames is None:
        frames = creature.meta.get("frames", DEFAULT_FRAMES)
        if isinstance(frames, bool) or not isinstance(frames, int) or frames <= 0:
            raise EvoInputError(
                f"expected a whole number of frames > 0 (or give --frames), got {shown(frames)}",
                source=args.model,
                field="meta.frames",
            )
    if frames <= 0:
        raise EvoInputError(f"--frames must be a positive number of frames, got {frames}")
    if not (math.isfinite(args.every) and args.every > 0):
        raise EvoInputError(f"--every must be a positive number of frames, got {args.every}")
    records = frames / args.every
    if not math.isclose(records, round(records), rel_tol=0, abs_tol=1e-9 * max(1.0, records)):
        raise EvoInputError(
            f"--frames {frames} is not a multiple of --every {args.every:g}: the last record would miss "
            "the end of the run"
        )
    if not args.plugin:
        given = [
            flag for flag, value in (("--params", args.params), ("--seed", args.seed)) if value is not None
        ]
        if given:
            raise EvoInputError(f"{given[0]}: only used with --plugin NAME (the plugin it is handed to)")
    scoring = plugin_spec(creature, args, world, frames) if args.plugin else None
    bound, exact = model_step_check(creature, world)
    if exact is None or not exact.stable:  # else only an explosion makes the bound's warning worth saying
        warn_if_unstable(NAME, args.model, exact or bound, basis=EXACT if exact else BOUND)
    with compiling_notice(NAME):
        warm_up(world)
    trajectory = simulate(creature, world, frames, record_every=args.every)
    if args.trace:
        with writing(args.trace):
            write_trace(trace, trajectory)
    if exact is not None and exact.stable and trajectory.exploded:
        warn_if_unstable(NAME, args.model, bound, note=" and did" + at_rest_note(exact))
    result = summary(creature, trajectory)
    human = sys.stderr if args.json else sys.stdout  # with --json, stdout holds the JSON only
    print(
        f"{creature.name}: {result['masses']} masses, {result['links']} links ({result['muscles']} muscles)",
        file=human,
    )
    print(f"simulated {result['frames']:g} frames with {world.integrator} (dt = {world.dt:g})", file=human)
    print(f"centroid x: {result['start_centroid'][0]:.2f} -> {result['end_centroid'][0]:.2f} px", file=human)
    exploded = f"  (EXPLODED at frame {result['exploded_frame']:g})" if result["exploded"] else ""
    print(f"distance: {result['distance']:.2f} px from frame 0{exploded}", file=human)
    if scoring is not None:
        fitness = score(creature, *scoring, out=human, debug=getattr(args, "debug", False))
        if fitness is None:
            return 1
        result["fitness"] = fitness
    if args.json:
        print(json.dumps(result))
    return 0
