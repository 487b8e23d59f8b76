"""``evo simulate MODEL``: run one creature and print its summary (and optionally a CSV trace).

On a ground other than flat (or with terrain) the model is first lifted so that no mass starts below the
surface; a step that may be unstable for it is warned about on stderr.
"""

from __future__ import annotations

import argparse
import io
import json
import math

import numpy as np

from evo.analysis.stability import check_step
from evo.cli._common import add_world_arguments, world_for, writing
from evo.cli._fitness import plugin_spec, score
from evo.cli._stability import warn_if_unstable
from evo.errors import EvoInputError
from evo.io.atomic import atomic_write_text
from evo.io.models import load_model
from evo.sim import simulate
from evo.sim.placement import stand_on_ground

NAME = "simulate"
HELP = "simulate a model (.json or Sodaconstructor .xml) and print a summary"
DEFAULT_FRAMES = 3000


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("model", metavar="MODEL", help="model file (.json or .xml)")
    parser.add_argument(
        "--frames", type=int, default=None, help=f"frames to simulate (default {DEFAULT_FRAMES})"
    )
    add_world_arguments(parser)
    parser.add_argument("--trace", metavar="OUT.csv", help="write frame,mass,x,y,vx,vy rows")
    parser.add_argument(
        "--every",
        type=float,
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
        "--seed", type=int, metavar="N", help="seed handed to the plugin (default: the meta's, else 0)"
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
        "frames": float(trajectory.frames[-1]),
        "masses": creature.n_masses,
        "links": creature.n_links,
        "muscles": creature.n_muscles,
        "start_centroid": [float(start[0]), float(start[1])],
        "end_centroid": [float(end[0]), float(end[1])],
        "distance": float(end[0] - start[0]),
        "exploded": trajectory.exploded,
        "exploded_frame": trajectory.exploded_frame,
    }


def frame_text(frame: float) -> str:
    """A frame number as written in the trace: ``1234567``, ``12345.25``, ``0.3`` (not ``1.23457e+06``,
    ``12345.2`` or the ``0.30000000000000004`` of 3 steps of dt = 0.1)."""
    frame = round(frame, 9)
    return str(int(frame)) if frame.is_integer() else repr(frame)


def trace_csv(trajectory) -> str:
    out = io.StringIO()
    out.write("frame,mass,x,y,vx,vy\n")
    n_rec, n = trajectory.positions.shape[:2]
    frames = np.repeat(trajectory.frames, n)
    masses = np.tile(np.arange(n), n_rec)
    pos = trajectory.positions.reshape(-1, 2).tolist()  # Python floats: repr() is the shortest exact form
    vel = trajectory.velocities.reshape(-1, 2).tolist()
    for f, m, (x, y), (vx, vy) in zip(
        map(frame_text, frames.tolist()), masses.tolist(), pos, vel, strict=True
    ):
        out.write(f"{f},{m},{x!r},{y!r},{vx!r},{vy!r}\n")
    return out.getvalue()


def run(args: argparse.Namespace) -> int:
    creature = load_model(args.model)
    world = world_for(creature, args, args.model)
    creature = stand_on_ground(creature, world)
    frames = args.frames
    if frames is None:
        frames = creature.meta.get("frames", DEFAULT_FRAMES)
        if isinstance(frames, bool) or not isinstance(frames, int) or frames <= 0:
            raise EvoInputError(
                f"expected a whole number of frames > 0 (or give --frames), got {frames!r}",
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
    scoring = plugin_spec(creature, args, world, frames) if args.plugin else None
    warn_if_unstable(NAME, args.model, check_step(creature, world))
    trajectory = simulate(creature, world, frames, record_every=args.every)
    if args.trace:
        with writing(args.trace):
            atomic_write_text(args.trace, trace_csv(trajectory))
    result = summary(creature, trajectory)
    print(
        f"{creature.name}: {result['masses']} masses, {result['links']} links ({result['muscles']} muscles)"
    )
    print(f"simulated {result['frames']:g} frames with {world.integrator} (dt = {world.dt:g})")
    print(f"centroid x: {result['start_centroid'][0]:.2f} -> {result['end_centroid'][0]:.2f} px")
    exploded = f"  (EXPLODED at frame {result['exploded_frame']:g})" if result["exploded"] else ""
    print(f"distance: {result['distance']:.2f} px{exploded}")
    if scoring is not None:
        fitness = score(creature, *scoring)
        if fitness is None:
            return 1
        result["fitness"] = fitness
    if args.json:
        print(json.dumps(result))
    return 0
