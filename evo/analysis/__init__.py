"""Statics and vibration analysis of creatures (seed 000 ch. 10, seed 004)."""

from evo.analysis.drawing import modes_svg
from evo.analysis.equilibrium import Equilibrium, gravity_applies, solve_equilibrium
from evo.analysis.forces import StaticModel, frozen_rest_lengths, static_model, stiffness_matrix
from evo.analysis.modes import (
    Modes,
    damped_frequencies,
    lowest_natural_frequency,
    mass_matrix,
    modes_at,
    natural_modes,
    place_frequency,
)

__all__ = [
    "Equilibrium",
    "Modes",
    "StaticModel",
    "damped_frequencies",
    "frozen_rest_lengths",
    "gravity_applies",
    "lowest_natural_frequency",
    "mass_matrix",
    "modes_svg",
    "modes_at",
    "natural_modes",
    "place_frequency",
    "solve_equilibrium",
    "static_model",
    "stiffness_matrix",
]
