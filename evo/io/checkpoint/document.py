"""Checkpoints: an evolution's state as a checkpoint document (evo 0.1's JSON form, which
:mod:`evo.io.checkpoint.disk` reads both formats into) and back, exactly; what ``checkpoint.npz`` holds.

Non-finite numbers (an exploded creature's ``-inf``, a statistic of an empty set) are written as the
strings ``"inf"``, ``"-inf"`` and ``"nan"`` and read back to the same floats.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from evo.ga.individual import Individual
from evo.ga.loop import Evolution, EvolutionState, LoopSettings
from evo.io.models import creature_from_dict, creature_to_dict
from evo.io.numbers import decode_number, decode_numbers, encode_number, encode_numbers
from evo.model import Creature

__all__ = [
    "CHECKPOINT_FORMAT",
    "checkpoint_contents",
    "CHECKPOINT_VERSION",
    "decode_number",
    "decode_numbers",
    "encode_number",
    "encode_numbers",
    "evolution_from_dict",
    "evolution_to_dict",
    "individual_from_dict",
    "individual_json",
    "model_document",
    "model_json",
    "model_text",
    "state_from_dict",
    "state_parts",
]

CHECKPOINT_FORMAT = "evo-checkpoint"
CHECKPOINT_VERSION = 1

_INT_COLUMNS = ("generation", "evaluations", "exploded")


# -- individuals -------------------------------------------------------------------------------------
def model_json(creature: Creature) -> str:
    """The creature's model document as compact JSON text (what checkpoints hold)."""
    return json.dumps(creature_to_dict(creature), separators=(",", ":"), allow_nan=False)


def model_document(ind: Individual) -> dict[str, Any]:
    """The individual's creature as a model document, made once (do not modify it)."""
    if ind.model_doc is None:
        ind.model_doc = (
            json.loads(ind.model_text) if ind.model_text is not None else creature_to_dict(ind.creature)
        )
    return ind.model_doc


def model_text(ind: Individual) -> str:
    """:func:`model_json` of the individual's creature, made once (or adopted from a worker process)."""
    if ind.model_text is None:
        ind.model_text = json.dumps(model_document(ind), separators=(",", ":"), allow_nan=False)
    return ind.model_text


def _head(ind: Individual) -> dict[str, Any]:
    return {
        "id": ind.id,
        "parents": list(ind.parents),
        "born": ind.born,
        "seed": ind.seed,
        "exploded": ind.exploded,
        "fitness": None if ind.values is None else encode_numbers(ind.values),
    }


def individual_json(ind: Individual) -> str:
    """One individual of a checkpoint as compact JSON text, reusing its model text once made."""
    head = json.dumps(_head(ind), separators=(",", ":"), allow_nan=False)
    return f'{head[:-1]},"model":{model_text(ind)}}}'


def individual_from_dict(doc: Mapping[str, Any], weights: tuple[float, ...]) -> Individual:
    """The inverse of :func:`individual_json` (parsed); the fitness is set from the same raw values."""
    ind = Individual(
        creature_from_dict(doc["model"], source="checkpoint.json"),
        weights,
        id=str(doc["id"]),
        parents=tuple(str(p) for p in doc["parents"]),
        born=int(doc["born"]),
    )
    if doc.get("fitness") is not None:
        ind.set_fitness(decode_numbers(doc["fitness"]), exploded=bool(doc["exploded"]), seed=doc["seed"])
    return ind


# -- the state ---------------------------------------------------------------------------------------
def _encode_cell(value: Any) -> Any:
    return value if isinstance(value, int) else encode_number(value)


def _decode_cell(key: str, value: Any) -> Any:
    return int(value) if key in _INT_COLUMNS else decode_number(value)


def state_parts(state: EvolutionState) -> tuple[dict[str, Any], dict[str, list[str]]]:
    """The state as a JSON-able dict without its individuals (:func:`checkpoint_contents`' head and the
    logbook), and the ``population`` and ``hall_of_fame`` as lists of JSON texts
    (:func:`individual_json`), to be spliced into one document."""
    head, groups = checkpoint_contents(state)
    head["logbook"] = [{k: _encode_cell(v) for k, v in record.items()} for record in state.logbook]
    return head, {name: [individual_json(ind) for ind in members] for name, members in groups.items()}


def state_from_dict(doc: Mapping[str, Any], weights: Sequence[float]) -> EvolutionState:
    """The state of a parsed checkpoint document.

    Raises:
        KeyError, TypeError, ValueError: the document is not a checkpoint of this format.
    """
    weights = tuple(float(w) for w in weights)
    return EvolutionState(
        generation=int(doc["generation"]),
        seed=int(doc["seed"]),
        objectives=tuple(str(o) for o in doc["objectives"]),
        weights=tuple(float(w) for w in doc["weights"]),
        rng=dict(doc["rng"]),
        population=tuple(individual_from_dict(d, weights) for d in doc["population"]),
        hall_of_fame=tuple(individual_from_dict(d, weights) for d in doc["hall_of_fame"]),
        logbook=tuple({k: _decode_cell(k, v) for k, v in rec.items()} for rec in doc["logbook"]),
    )


def evolution_to_dict(evolution: Evolution) -> dict[str, Any]:
    """The whole state of ``evolution`` as one JSON-able dict (between a ``tell`` and the next ``ask``)."""
    head, individuals = state_parts(evolution.state())
    return {**head, **{key: [json.loads(text) for text in texts] for key, texts in individuals.items()}}


def evolution_from_dict(
    doc: Mapping[str, Any], settings: LoopSettings, *, seed_models: Sequence[Creature] = ()
) -> Evolution:
    """Restore an evolution saved by :func:`evolution_to_dict` (``settings`` must match the saved run's)."""
    return Evolution.from_state(state_from_dict(doc, settings.weights), settings, seed_models=seed_models)


def checkpoint_contents(state: EvolutionState) -> tuple[dict[str, Any], dict[str, Sequence[Individual]]]:
    """What ``checkpoint.npz`` holds of a GA state: the JSON-able head (generation, seed, objectives,
    weights, the generator's state) and the individuals of each group (:mod:`evo.io.checkpoint.disk`);
    the logbook is ``history.csv``, appended to."""
    head = {
        "generation": state.generation,
        "seed": state.seed,
        "objectives": list(state.objectives),
        "weights": list(state.weights),
        "rng": state.rng,
    }
    return head, {"population": state.population, "hall_of_fame": state.hall_of_fame}
