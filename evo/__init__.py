"""evo: an evolutionary creature designer in the style of Ed Burton's Sodaconstructor (docs/python.md).

The public API is imported on first use, so ``import evo`` stays light: ``evo.load_model``,
``evo.simulate``, ``evo.evolve``, ``evo.open_run``, ``evo.Config``, ``evo.Evolution``,
``evo.QualityDiversity`` and the rest of :data:`__all__`.
"""

from __future__ import annotations

import functools
import importlib
import warnings
from typing import Any

__version__ = "0.2.0"

# public name -> "module:attribute", imported on first use
_PUBLIC = {
    "Archive": "evo.run.map_elites:Archive",
    "Callback": "evo.run.callbacks:Callback",
    "ChildResult": "evo.ga.search:ChildResult",
    "Config": "evo.run.config:Config",
    "Creature": "evo.model:Creature",
    "DEFAULT_FRAMES": "evo.sim:DEFAULT_FRAMES",
    "EvoInputError": "evo.errors:EvoInputError",
    "Evaluation": "evo.fitness:Evaluation",
    "Evolution": "evo.ga.loop:Evolution",
    "GenerationStatus": "evo.run.callbacks:GenerationStatus",
    "Limits": "evo.sim:Limits",
    "LoopSettings": "evo.ga.loop:LoopSettings",
    "Member": "evo.run.callbacks:Member",
    "Plan": "evo.ga.search:Plan",
    "Provenance": "evo.io.provenance:Provenance",
    "QualityDiversity": "evo.qd.loop:QualityDiversity",
    "RefineResult": "evo.refine:RefineResult",
    "RunFailed": "evo.run.folder:RunFailed",
    "RunResult": "evo.run.evolve:RunResult",
    "Search": "evo.ga.search:Search",
    "SimulationResult": "evo.fitness:SimulationResult",
    "Trajectory": "evo.sim:Trajectory",
    "World": "evo.sim:World",
    "breed": "evo.ga.brood:breed",
    "evaluate": "evo.fitness:evaluate",
    "evolve": "evo.run.evolve:evolve",
    "fitness_plugin": "evo.fitness:fitness_plugin",
    "load_model": "evo.io.models:load_model",
    "open_run": "evo.run.evolve:open_run",
    "refine": "evo.refine:refine",
    "register_fitness": "evo.fitness:register_fitness",
    "save_model": "evo.io.models:save_model",
    "simulate": "evo.sim:simulate",
    "simulate_batch": "evo.sim:simulate_batch",
}

__all__ = sorted(_PUBLIC)
_renderers_installed = False


def _install_renderers() -> None:
    """Let a notebook draw creatures and runs (the drawing code lives above the model's layer)."""
    global _renderers_installed
    if _renderers_installed:
        return
    _renderers_installed = True
    from evo import model
    from evo.gallery import notebook
    from evo.run import evolve

    model.HTML_RENDERER = notebook.creature_html
    evolve.HTML_RENDERER = notebook.run_html


def __getattr__(name: str) -> Any:
    reference = _PUBLIC.get(name)
    if reference is None:
        raise AttributeError(f"module 'evo' has no attribute {name!r}")
    module, _, attribute = reference.partition(":")
    value = getattr(importlib.import_module(module), attribute)
    if name in ("Creature", "load_model", "evolve", "open_run", "RunResult"):
        _install_renderers()
    if name == "refine":
        value = _Refine(value)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_PUBLIC))


class _Refine:
    """``evo.refine``: :func:`evo.refine.search.refine`, its docstring and signature. Reading a name of the
    package through it (``evo.refine.RefineProgress``) still works until 0.3.0, with a DeprecationWarning:
    ``from evo.refine import RefineProgress``."""

    def __init__(self, function: Any):
        functools.update_wrapper(self, function)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.__wrapped__(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        package = importlib.import_module("evo.refine")
        if name not in package.__all__:
            raise AttributeError(f"evo.refine (the function) has no attribute {name!r}")
        warnings.warn(
            f"evo.refine is the function since evo 0.2.0; reading {name} through it goes in 0.3.0: "
            f"from evo.refine import {name}",
            DeprecationWarning,
            stacklevel=2,
        )
        return getattr(package, name)


# The package evo.refine is imported here (its names load on first use): the import system sets the
# attribute ``refine`` of this module to a package when it first imports it, so that happens now, once, and
# the name is taken back for the function (``evo.refine(...)``, docs/refine.md) whoever imports the package.
importlib.import_module("evo.refine")
del globals()["refine"]
