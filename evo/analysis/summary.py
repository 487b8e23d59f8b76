"""An analysis as plain data: the summary ``evo analyze --json`` prints and the studio's Look panel shows."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from evo.analysis.modes import Modes, place_frequency
from evo.model import Creature
from evo.sim.world import World

__all__ = ["finite", "summary"]


def finite(x: float) -> float | None:
    """``x`` as a float, or None where it is NaN or infinite (strict JSON has neither)."""
    return float(x) if math.isfinite(x) else None


def summary(creature: Creature, world: World, modes: Modes, *, json_safe: bool = False) -> dict[str, Any]:
    """The creature, its equilibrium and its natural modes as JSON-friendly data (lists, floats, ints).

    Args:
        creature: the creature analysed.
        world: the world it was analysed in.
        modes: :func:`evo.analysis.natural_modes` of it.
        json_safe: every float that is NaN or infinite becomes None (for a browser's strict JSON);
            otherwise only the damped frequencies do, as ``evo analyze --json`` has always printed them.

    Returns:
        ``{"name", "masses", ..., "equilibrium": {...}, "frequencies", ..., "omega_placement"}``.
    """
    number = finite if json_safe else _same

    def numbers(values: Any) -> list:
        return [number(v) for v in np.ravel(values)] if json_safe else np.asarray(values).tolist()

    eq = modes.equilibrium
    freqs = modes.frequencies
    return {
        "name": creature.name,
        "masses": creature.n_masses,
        "free_masses": int(np.count_nonzero(~creature.fixed)),
        "links": creature.n_links,
        "muscles": creature.n_muscles,
        "phase": eq.phase,
        "gravity_used": eq.gravity_used,
        "world": {
            "stiffness": number(world.stiffness),
            "damping": number(world.damping),
            "gravity": number(world.gravity),
            "gravity_direction": world.gravity_direction,
        },
        "equilibrium": {
            "positions": eq.positions.tolist(),
            "residual": number(eq.residual),
            "tolerance": number(eq.tolerance),
            "converged": eq.converged,
            "method": eq.method,
            "iterations": eq.iterations,
            "relaxation_steps": eq.relaxation_steps,
            "energy": number(eq.energy),
            "elastic_energy": number(eq.elastic_energy),
            "gravity_energy": number(eq.gravity_energy),
            "lengths": numbers(eq.lengths),
            "tensions": numbers(eq.tensions),
            "notes": list(eq.notes),
        },
        "frequencies": numbers(freqs),
        "periods": numbers(modes.periods),
        "damped_frequencies": [finite(w) for w in modes.damped_frequencies],
        "zero_modes": modes.zero_modes,
        "rigid_modes": modes.rigid_modes,
        "mechanisms": modes.mechanisms,
        "unstable_modes": modes.unstable_modes,
        "unstable_rates": numbers(modes.unstable_rates),
        "zero_threshold": number(modes.zero_threshold),
        "omega": creature.omega,
        "omega_placement": place_frequency(creature.omega, freqs),
    }


def _same(x: Any) -> Any:
    return x
