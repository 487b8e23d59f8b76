"""Fitness: the plugin protocol, the registry that finds plugins, and one evaluation (simulate + score)."""

from evo.fitness.evaluate import Evaluation, EvaluationSpec, PluginFailed, evaluate, worst_fitness
from evo.fitness.params import check_params
from evo.fitness.protocol import (
    RESERVED_OBJECTIVES,
    Plugin,
    PluginRef,
    SimulationResult,
    declare,
    fitness_plugin,
)
from evo.fitness.registry import (
    ENTRY_POINT_GROUP,
    discover,
    find_plugin,
    load_ref,
    plugin_of,
    register_fitness,
    shipped_folder,
)
from evo.fitness.score import score

__all__ = [
    "ENTRY_POINT_GROUP",
    "Evaluation",
    "EvaluationSpec",
    "Plugin",
    "PluginFailed",
    "PluginRef",
    "RESERVED_OBJECTIVES",
    "SimulationResult",
    "check_params",
    "declare",
    "discover",
    "evaluate",
    "find_plugin",
    "fitness_plugin",
    "load_ref",
    "plugin_of",
    "register_fitness",
    "score",
    "shipped_folder",
    "worst_fitness",
]
