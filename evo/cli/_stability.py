"""The one-line warning ``evo simulate`` and ``evo validate`` print when a step may be unstable; for one
model, from its exact highest natural frequency (as ``evo analyze`` finds it) rather than the bound."""

from __future__ import annotations

import sys

import numpy as np

from evo.analysis.stability import StepCheck, check_frequency, check_step
from evo.model import Creature
from evo.sim.world import World

EXACT_MASSES = 300  # models up to this size get their modes solved (a dense eigenproblem of 2n unknowns)
BOUND = "bounded from the link stiffnesses"
EXACT = "the model's highest natural frequency at rest, as evo analyze finds it"


def model_step_check(creature: Creature, world: World) -> tuple[StepCheck, StepCheck | None]:
    """(the bound's step check, the exact one) of one model: the bound from the link stiffnesses
    (:func:`~evo.analysis.stability.check_step`), and the check of the highest natural frequency about
    the model's equilibrium (as ``evo analyze`` finds it), None when there is none or the model has over
    :data:`EXACT_MASSES` masses. The bound holds for any motion; the exact frequency is the model's at
    rest, which its muscles and its motion change."""
    bound = check_step(creature, world)
    if bound.stable or not 0 < creature.n_masses <= EXACT_MASSES:
        return bound, None
    from evo.analysis.modes import natural_modes

    try:
        modes = natural_modes(creature, world)
    except (ValueError, ArithmeticError, np.linalg.LinAlgError):
        return bound, None
    if not modes.equilibrium.converged or not modes.eigenvalues.size:
        return bound, None
    return bound, check_frequency(float(np.sqrt(max(float(modes.eigenvalues.max()), 0.0))), world)


def at_rest_note(exact: StepCheck) -> str:
    """What the exact check adds to a warning from the bound, when the model at rest is within the limit."""
    return (
        f" (at rest, its highest natural frequency gives omega*dt = {exact.omega_dt:.3g}, within the limit)"
    )


def _setting(name: str, value: str, style: str) -> str:
    if style == "--set":
        return f"--set {name}={value}"
    quoted = f'"{value}"' if name == "integrator" else value
    return f"{style}{name} = {quoted}"


def step_warning(
    command: str,
    source: str,
    check: StepCheck,
    *,
    style: str = "--set",
    what: str = "",
    basis: str = BOUND,
    note: str = "",
) -> str:
    """The warning line for an unstable ``check``. ``style`` says how a fix is written: ``"--set"``
    (``--set dt=0.5``), ``""`` (``dt = 0.5``, a model's world) or ``"[world] "`` (a config); ``what``
    names the creatures when they are not one model ("random creatures of up to 4 links per mass");
    ``basis`` says where omega_max comes from; ``note`` follows "the run may blow up"."""
    fixes = []
    if check.integrator != "rk4" and check.rk4_stable:
        fixes.append(_setting("integrator", "rk4", style))
    if check.smaller_dt is not None:
        fixes.append(_setting("dt", repr(check.smaller_dt), style))
    if not fixes:
        fixes.append(_setting("integrator", "backward-euler", style))
    subject = f"{what}: " if what else ""
    return (
        f"evo {command}: warning: {source}: {subject}omega_max*dt = {check.omega_dt:.3g} exceeds the "
        f"stability limit {check.limit:.3g} of integrator {check.integrator} at dt = {check.dt:g} "
        f"(omega_max {'=' if basis == EXACT else '<='} {check.omega_max:.3g} rad/frame, {basis}): the run "
        f"may blow up{note}; try " + " or ".join(fixes)
    )


def warn_if_unstable(command: str, source: str, check: StepCheck, **kwargs: str) -> None:
    """Print :func:`step_warning` on stderr when ``check`` is not stable."""
    if not check.stable:
        print(step_warning(command, source, check, **kwargs), file=sys.stderr)
