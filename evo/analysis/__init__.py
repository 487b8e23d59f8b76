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
from evo.analysis.stability import StepCheck, check_step, frequency_bound, stability_limit

__all__ = [
    "Equilibrium",
    "Modes",
    "StaticModel",
    "StepCheck",
    "check_step",
    "damped_frequencies",
    "frequency_bound",
    "frozen_rest_lengths",
    "gravity_applies",
    "lowest_natural_frequency",
    "mass_matrix",
    "modes_svg",
    "modes_at",
    "natural_modes",
    "place_frequency",
    "solve_equilibrium",
    "stability_limit",
    "static_model",
    "stiffness_matrix",
]
