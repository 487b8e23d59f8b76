"""A MAP-Elites run's state to JSON and back, exactly, and the ``archive.json`` document (docs/runs.md).

The checkpoint is an ``evo-checkpoint`` with ``"algorithm": "map-elites"``: the run generator's state,
the CVT's centroids, the logbook and every elite (its cell, measures and archive objective beside the
individual as the GA's checkpoint stores it). Floats are written with full precision.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from evo.io.checkpoint.document import (
    _decode_cell,
    _encode_cell,
    decode_number,
    encode_numbers,
    individual_from_dict,
)
from evo.io.checkpoint.document import individual_json as _individual_json
from evo.qd.state import ArchiveSpec, Elite, QDState, archive_statistics

__all__ = [
    "ALGORITHM",
    "ARCHIVE_FORMAT",
    "ARCHIVE_VERSION",
    "archive_document",
    "qd_checkpoint_contents",
    "elite_json",
    "is_qd_checkpoint",
    "qd_state_from_dict",
    "qd_state_parts",
    "qd_state_to_dict",
]

ALGORITHM = "map-elites"
ARCHIVE_FORMAT = "evo-archive"
ARCHIVE_VERSION = 1


def is_qd_checkpoint(doc: Mapping[str, Any]) -> bool:
    """Whether a parsed checkpoint is a MAP-Elites run's."""
    return doc.get("algorithm") == ALGORITHM


def elite_json(elite: Elite) -> str:
    """One elite as compact JSON text: its cell, measures and objective, then the individual."""
    head = json.dumps(
        {"cell": elite.index, "measures": list(elite.measures), "objective": elite.objective},
        separators=(",", ":"),
        allow_nan=False,
    )
    return f"{head[:-1]},{_individual_json(elite.individual)[1:]}"


def qd_state_parts(state: QDState) -> tuple[dict[str, Any], dict[str, list[str]]]:
    """The state as a JSON-able dict without its elites, and the elites as a list of JSON texts
    (:func:`elite_json`), to be spliced into one document (``RunFolder.write_checkpoint``)."""
    head = {
        **_head(state),
        "centroids": None if state.centroids is None else np.asarray(state.centroids).tolist(),
        "logbook": [{k: _encode_cell(v) for k, v in record.items()} for record in state.logbook],
    }
    return head, {"elites": [elite_json(e) for e in state.elites]}


def _head(state: QDState) -> dict[str, Any]:
    """The state's scalars and names, as both checkpoint forms begin."""
    return {
        "algorithm": ALGORITHM,
        "generation": state.generation,
        "seed": state.seed,
        "objectives": list(state.objectives),
        "weights": list(state.weights),
        "measures": list(state.measures),
        "rng": state.rng,
    }


def qd_checkpoint_contents(
    state: QDState,
) -> tuple[dict[str, Any], dict[str, Sequence[Any]], dict[str, np.ndarray]]:
    """What ``checkpoint.npz`` holds of a MAP-Elites state: the JSON-able head, the elites' individuals,
    and the arrays ``elites.cell`` (n,), ``elites.measures`` (n, measures), ``elites.objective`` (n,) and
    a CVT's ``centroids`` (cells, measures; unit cube)."""
    head = _head(state)
    extra = {
        "elites.cell": np.array([e.index for e in state.elites], dtype=np.int64),
        "elites.measures": np.array([e.measures for e in state.elites], dtype=np.float64).reshape(
            len(state.elites), len(state.measures)
        ),
        "elites.objective": np.array([e.objective for e in state.elites], dtype=np.float64),
    }
    if state.centroids is not None:
        extra["centroids"] = np.asarray(state.centroids, dtype=np.float64)
    return head, {"elites": [e.individual for e in state.elites]}, extra


def qd_state_to_dict(state: QDState) -> dict[str, Any]:
    """The whole state as one JSON-able dict."""
    head, parts = qd_state_parts(state)
    return {**head, "elites": [json.loads(text) for text in parts["elites"]]}


def qd_state_from_dict(doc: Mapping[str, Any], weights: Sequence[float]) -> QDState:
    """The state of a parsed MAP-Elites checkpoint.

    Raises:
        KeyError, TypeError, ValueError: the document is not such a checkpoint.
    """
    if not is_qd_checkpoint(doc):
        raise ValueError(f"expected a checkpoint of algorithm '{ALGORITHM}', got {doc.get('algorithm')!r}")
    weights = tuple(float(w) for w in weights)
    elites = tuple(
        Elite(
            index=int(e["cell"]),
            measures=tuple(decode_number(v) for v in e["measures"]),
            objective=decode_number(e["objective"]),
            individual=individual_from_dict(e, weights),
        )
        for e in doc["elites"]
    )
    centroids = doc.get("centroids")
    return QDState(
        generation=int(doc["generation"]),
        seed=int(doc["seed"]),
        objectives=tuple(str(o) for o in doc["objectives"]),
        weights=tuple(float(w) for w in doc["weights"]),
        measures=tuple(str(m) for m in doc["measures"]),
        rng=dict(doc["rng"]),
        elites=elites,
        logbook=tuple({k: _decode_record_cell(k, v) for k, v in rec.items()} for rec in doc["logbook"]),
        centroids=None if centroids is None else np.asarray(centroids, dtype=np.float64),
    )


def _decode_record_cell(key: str, value: Any) -> Any:
    return int(value) if key == "num_elites" else _decode_cell(key, value)


def archive_document(
    state: QDState, spec: ArchiveSpec, files: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """``archive.json``: the archive's shape and figures, and every occupied cell (index, bins of a grid,
    measures, objective, fitness, the creature's id and its model file under ``archive/``).

    Args:
        state: the run's state; spec: its archive's shape.
        files: the model file of each elite, by id (relative to the run folder).
    """
    files = files or {}
    axes = []
    for k, (name, (low, high)) in enumerate(zip(spec.measures, spec.ranges, strict=True)):
        axis: dict[str, Any] = {"name": name, "low": low, "high": high}
        if spec.kind == "grid":
            axis["bins"] = spec.bins[k]
        axes.append(axis)
    doc: dict[str, Any] = {
        "format": ARCHIVE_FORMAT,
        "version": ARCHIVE_VERSION,
        "generation": state.generation,
        "archive": spec.kind,
        "objective": state.objectives[0] if state.objectives else None,
        "maximise": bool(state.weights and state.weights[0] > 0),
        "measures": axes,
        "cells": spec.total_cells,
        "score_offset": spec.score_offset,
        "stats": {
            k: v if isinstance(v, int) else encode_numbers([v])[0]
            for k, v in archive_statistics(state.elites, spec).items()
        },
    }
    if state.centroids is not None:
        doc["centroids"] = spec.unscaled(state.centroids).tolist()
    cells = []
    for elite in state.elites:
        ind = elite.individual
        cell: dict[str, Any] = {"index": elite.index}
        grid = spec.grid_index(elite.index)
        if grid is not None:
            cell["grid"] = list(grid)
        cell.update(
            measures=list(elite.measures),
            objective=elite.objective,
            fitness=encode_numbers(ind.values or ()),
            id=ind.id,
        )
        if ind.id in files:
            cell["file"] = files[ind.id]
        cells.append(cell)
    doc["elites"] = cells
    return doc
