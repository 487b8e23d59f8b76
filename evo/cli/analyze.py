"""``evo analyze MODEL``: static equilibrium and vibration modes of a creature (seed 000 ch. 10, seed 004).

Prints the equilibrium (method, residual, energy), the zero modes, the lowest natural frequencies and
periods (with the world's damping too) and where the creature's own omega sits among them. ``--json``
adds one JSON object on the last line; ``--svg`` draws the first modes.
"""

from __future__ import annotations

import argparse
import json
import math

import numpy as np

from evo.analysis import modes_svg, natural_modes, place_frequency
from evo.analysis.modes import ZERO_TOLERANCE, Modes
from evo.analysis.summary import summary
from evo.cli._common import add_world_arguments, creature_and_world
from evo.cli._numbers import integer, number
from evo.errors import EvoInputError
from evo.io.atomic import atomic_write_text
from evo.io.models import load_model
from evo.model import Creature
from evo.sim.world import World

NAME = "analyze"
HELP = "static equilibrium and natural frequencies / vibration modes of a model"
_GRAVITY = {"auto": None, "on": True, "off": False}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("model", metavar="MODEL", help="model file (.json or .xml)")
    add_world_arguments(parser)
    parser.add_argument(
        "--phase",
        type=number(-1e6, 1e6, "a wave angle in radians"),
        default=None,
        metavar="RAD",
        help="freeze the muscles at this wave angle theta (rad); default: at their rest lengths",
    )
    parser.add_argument(
        "--gravity",
        choices=tuple(_GRAVITY),
        default="auto",
        help="apply gravity in statics: auto (only with a fixed mass; the floor is not modelled), on, off",
    )
    parser.add_argument(
        "--modes",
        type=integer(1, 10_000, "frequencies to print"),
        default=8,
        metavar="N",
        help="frequencies to print (default 8)",
    )
    parser.add_argument("--svg", metavar="OUT.svg", help="draw the first modes as displaced shapes")
    parser.add_argument(
        "--svg-modes",
        type=integer(1, 64, "panels of one picture"),
        default=4,
        metavar="N",
        help="panels in the SVG (default 4)",
    )
    parser.add_argument("--json", action="store_true", help="print a JSON summary on the last line")


def _omega_sentence(omega: float, freqs: np.ndarray) -> str:
    head = f"creature omega = {omega:.4g} rad/frame"
    if omega <= 0:
        return f"{head} (the muscles do not move)"
    head += f" (period {2 * math.pi / omega:.4g} frames)"
    if freqs.size == 0:
        return f"{head}; there is no non-zero natural frequency to compare with"
    place = place_frequency(omega, freqs)
    below, lowest = place["below"], freqs[0]
    if below == 0:
        where = f"below the lowest natural frequency ({lowest:.4g}; omega / omega_1 = {omega / lowest:.3g})"
    elif below == freqs.size:
        where = f"above all {freqs.size} natural frequencies (highest {freqs[-1]:.4g})"
    else:
        where = f"between modes {below} ({freqs[below - 1]:.4g}) and {below + 1} ({freqs[below]:.4g})"
    nearest, ratio = place["nearest_mode"], place["ratio_to_nearest"]
    return f"{head}: {where}; nearest is mode {nearest} (omega / omega_{nearest} = {ratio:.3g})"


def report_lines(creature: Creature, world: World, modes: Modes, n_print: int) -> list[str]:
    eq = modes.equilibrium
    free = int(np.count_nonzero(~creature.fixed))
    out = [
        f"{creature.name}: {creature.n_masses} masses ({free} free, {2 * free} degrees of freedom), "
        f"{creature.n_links} links ({creature.n_muscles} muscles)",
        f"world: stiffness {world.stiffness:g}/frame^2, damping {world.damping:g}/frame, gravity "
        + (f"{world.gravity:g} px/frame^2 {world.gravity_direction}" if eq.gravity_used else "not applied"),
        "muscles: "
        + ("frozen at their rest lengths" if eq.phase is None else f"frozen at wave angle {eq.phase:g} rad"),
    ]
    out += [f"note: {note}" for note in eq.notes]
    status = "" if eq.converged else "  NOT CONVERGED: the modes below are only indicative"
    out.append(
        f"equilibrium: {eq.method}, {eq.iterations} Newton iterations"
        + (f" and {eq.relaxation_steps} relaxation steps" if eq.relaxation_steps else "")
        + f"; residual {eq.residual:.3g} (largest force on a free mass; tolerance {eq.tolerance:.3g}){status}"
    )
    out.append(f"energy: {eq.energy:.6g} (elastic {eq.elastic_energy:.6g}, gravity {eq.gravity_energy:.6g})")
    plural = "" if modes.mechanisms == 1 else "s"
    out.append(
        f"zero modes: {modes.zero_modes} ({modes.rigid_modes} rigid, {modes.mechanisms} mechanism{plural}; "
        f"|omega^2| <= {modes.zero_threshold:.3g} rad^2/frame^2 = {ZERO_TOLERANCE:g} * k max(s) / min(m))"
    )
    if modes.unstable_modes:
        rates = ", ".join(f"{r:.4g}" for r in modes.unstable_rates)
        out.append(
            f"UNSTABLE equilibrium: {modes.unstable_modes} modes with omega^2 < 0 (growth {rates} /frame)"
        )
    freqs, periods, damped = modes.frequencies, modes.periods, modes.damped_frequencies
    if freqs.size:
        out.append(f"lowest natural frequencies (damped with f = {world.damping:g}/frame):")
        out.append(f"  {'mode':>4}  {'omega rad/frame':>15}  {'period frames':>13}  {'damped omega':>12}")
        for i in range(min(n_print, freqs.size)):
            shown = "overdamped" if np.isnan(damped[i]) else f"{damped[i]:.6g}"
            out.append(f"  {i + 1:>4}  {freqs[i]:>15.6g}  {periods[i]:>13.6g}  {shown:>12}")
        if freqs.size > n_print:
            out.append(f"  ... {freqs.size - n_print} more, up to {freqs[-1]:.6g} rad/frame")
    else:
        out.append("no non-zero natural frequencies")
    out.append(_omega_sentence(creature.omega, freqs))
    return out


def run(args: argparse.Namespace) -> int:
    if args.modes < 0 or args.svg_modes < 1:
        raise EvoInputError("--modes must be >= 0 and --svg-modes >= 1")
    if args.phase is not None and not math.isfinite(args.phase):
        raise EvoInputError(f"--phase must be a finite angle in radians, got {args.phase}")
    creature = load_model(args.model)
    creature, world = creature_and_world(creature, args, args.model)
    modes = natural_modes(creature, world, phase=args.phase, gravity=_GRAVITY[args.gravity])
    for line in report_lines(creature, world, modes, args.modes):
        print(line)
    if args.svg:
        atomic_write_text(args.svg, modes_svg(creature, modes, count=args.svg_modes))
        print(f"wrote {args.svg}")
    if args.json:
        print(json.dumps(summary(creature, world, modes)))
    return 0
