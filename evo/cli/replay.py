"""``evo replay MODEL``: render one creature as an animated GIF to share, or a still SVG poster."""

from __future__ import annotations

import argparse
import math
import re
import sys
from pathlib import Path

from evo.cli._common import add_world_arguments, creature_and_world, placed
from evo.cli._numbers import FRAMES, MAX_FRAMES, integer, number
from evo.errors import EvoInputError
from evo.io.provenance import frames_in
from evo.sim import DEFAULT_FRAMES, Trajectory

NAME = "replay"
HELP = "render a model (.json or Sodaconstructor .xml) as an animated GIF (--gif) or an SVG poster (--svg)"
GIF_FRAMES = 150  # about this many GIF frames unless --every is given


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("model", metavar="MODEL", help="model file (.json or .xml)")
    parser.add_argument(
        "--frames",
        type=FRAMES,
        metavar="N",
        help=f"frames to simulate (default: the model's meta.frames, else {DEFAULT_FRAMES})",
    )
    parser.add_argument("--gif", metavar="OUT.gif", help="write an animated GIF, one picture per record")
    parser.add_argument("--svg", metavar="OUT.svg", help="write a still SVG poster of the whole run")
    parser.add_argument(
        "--every",
        type=number(0, MAX_FRAMES, "frames between pictures", above=True),
        metavar="K",
        help=f"frames between GIF pictures (default: frames / {GIF_FRAMES}, rounded up)",
    )
    parser.add_argument(
        "--size", default="480x270", metavar="WxH", help="GIF size in pixels (default 480x270)"
    )
    parser.add_argument(
        "--frame-ms",
        type=integer(1, 60_000, "a picture's time in ms"),
        default=50,
        metavar="MS",
        help="GIF time per picture (default 50)",
    )
    add_world_arguments(parser)


def _size(text: str) -> tuple[int, int]:
    match = re.fullmatch(r"(\d+)x(\d+)", text.strip())
    if not match or not (16 <= int(match.group(1)) <= 4096 and 16 <= int(match.group(2)) <= 4096):
        raise EvoInputError(f"--size expects WxH with 16..4096 pixels each, e.g. 480x270, got {text!r}")
    return int(match.group(1)), int(match.group(2))


def run(args: argparse.Namespace) -> int:
    from evo.gallery.poster import poster_svg, terrain_svg
    from evo.gallery.replay import gif_frames, save_gif
    from evo.io.atomic import atomic_write_text
    from evo.io.models import load_model
    from evo.io.soda_xml import TerrainFile
    from evo.sim import simulate

    if not args.gif and not args.svg:
        raise EvoInputError("nothing to do: give --gif OUT.gif and/or --svg OUT.svg")
    size = _size(args.size)
    if args.frame_ms < 10:
        raise EvoInputError(f"--frame-ms must be at least 10, got {args.frame_ms}")
    try:
        creature = load_model(args.model)
    except TerrainFile as terrain:
        if args.gif:  # nothing moves on a terrain
            raise
        atomic_write_text(args.svg, terrain_svg(terrain.terrain, Path(args.model).stem))
        print(f"{args.svg}: the terrain of {args.model}")
        return 0
    creature, world = creature_and_world(creature, args, args.model)
    creature = placed(NAME, creature, world, args.model)
    frames = args.frames
    if frames is None:
        frames = frames_in(creature.meta) or DEFAULT_FRAMES
    if frames < 1:
        raise EvoInputError(f"--frames must be at least 1, got {frames}")
    if args.gif:
        every = (
            args.every if args.every is not None else world.dt * math.ceil(frames / (GIF_FRAMES * world.dt))
        )
        if not 0 < every <= frames:  # at least two pictures: frame 0 and frame `every`
            raise EvoInputError(f"--every must be > 0 and at most --frames ({frames}), got {every:g}")
        trajectory = simulate(creature, world, frames, record_every=every)
        save_gif(gif_frames(creature, world, trajectory, size=size), args.gif, frame_ms=args.frame_ms)
        print(f"{args.gif}: {trajectory.positions.shape[0]} pictures, one every {every:g} frames")
        _say_if_exploded(args.model, args.gif, trajectory, frames)
    if args.svg:
        trajectory = simulate(
            creature, world, frames, record_every=world.dt * max(1, math.ceil(frames / 1000))
        )
        atomic_write_text(args.svg, poster_svg(creature, world, trajectory))
        print(args.svg)
        _say_if_exploded(args.model, args.svg, trajectory, frames)
    return 0


def _say_if_exploded(model: str, out: str, trajectory: Trajectory, frames: float) -> None:
    """One warning line on stderr when the creature exploded: at which frame, and what the picture shows."""
    from evo.gallery.poster import exploded_frame

    if trajectory.exploded:
        print(
            f"evo replay: warning: {model}: the creature exploded at frame {exploded_frame(trajectory):g} "
            f"of {frames:g}; {out} shows it up to frame {trajectory.frames[-1]:g}",
            file=sys.stderr,
        )
