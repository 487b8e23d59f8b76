"""A checkpoint document checked before anything trusts it: every key, individual and logbook row against
the schema engine (:mod:`evo.schema`), every model against the model format and the size limits. The
first problem is one line naming the field (docs/runs.md, "Checkpoints are input").
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import re
from collections.abc import Mapping
from typing import Any

import numpy as np

from evo.errors import EvoInputError
from evo.io.models import creature_from_dict
from evo.schema import check_fields, setting, shown
from evo.sim.limits import Limits

__all__ = ["MAX_GENERATION", "validate_checkpoint"]

MAX_GENERATION = 10_000_000  # no run of evo gets near; a larger number is an edit
_MAX_SEED = 2**64 - 1
_ID = re.compile(r"g(\d{1,8})-r?(\d{1,9})")  # g7-12; g7-r0: refined by [ga] refine
_INT_COLUMNS = ("generation", "evaluations", "exploded", "num_elites")
_NON_FINITE = ("inf", "-inf", "nan")


@dataclasses.dataclass(frozen=True)
class _Head:
    format: str = setting("evo-checkpoint", choices=("evo-checkpoint",))
    version: int = setting(2, low=1, high=2)
    algorithm: str = setting("map-elites", choices=("map-elites",))
    generation: int = setting(0, low=0, high=MAX_GENERATION)
    seed: int = setting(1, low=0, high=_MAX_SEED)
    objectives: tuple[str, ...] = ()
    weights: tuple[float, ...] = ()
    measures: tuple[str, ...] = ()
    rng: dict = dataclasses.field(default=None)  # type: ignore[assignment]
    centroids: tuple[tuple[float, ...], ...] | None = None
    logbook: list = ()  # type: ignore[assignment]
    population: list = ()  # type: ignore[assignment]
    hall_of_fame: list = ()  # type: ignore[assignment]
    elites: list = ()  # type: ignore[assignment]


@dataclasses.dataclass(frozen=True)
class _Member:
    id: str = ""
    parents: tuple[str, ...] = ()
    born: int = setting(0, low=0, high=MAX_GENERATION)
    seed: int | None = setting(None, low=0, high=_MAX_SEED)
    exploded: bool = False
    fitness: tuple[float | str, ...] | None = None
    model: dict = dataclasses.field(default=None)  # type: ignore[assignment]
    cell: int = setting(0, low=0)
    measures: tuple[float, ...] = ()
    objective: float | str = 0.0


_GA_KEYS = (
    "format",
    "version",
    "generation",
    "seed",
    "objectives",
    "weights",
    "rng",
    "logbook",
    "population",
    "hall_of_fame",
)
_QD_KEYS = (
    "format",
    "version",
    "algorithm",
    "generation",
    "seed",
    "objectives",
    "weights",
    "measures",
    "rng",
    "centroids",
    "logbook",
    "elites",
)
_MEMBER_KEYS = ("id", "parents", "born", "seed", "exploded", "fitness", "model")
_ELITE_KEYS = ("cell", "measures", "objective", *_MEMBER_KEYS)


def _require(doc: Mapping[str, Any], keys: tuple[str, ...], where: str, source: str | None) -> None:
    if not isinstance(doc, Mapping):
        raise EvoInputError(
            f"{where or 'the checkpoint'}: expected an object, got {shown(doc)}", source=source
        )
    for key in keys:
        if key not in doc:
            raise EvoInputError(f"{where}{'.' if where else ''}{key}: missing", source=source)
    for key in doc:
        if key not in keys:
            raise EvoInputError(f"unknown key {shown(key)} in {where or 'the checkpoint'}", source=source)


def _value(number: Any, field: str, source: str | None, *, nan: bool = False) -> float:
    """A number or one of "inf", "-inf" (and "nan" when allowed), as a float."""
    if isinstance(number, str) and number in _NON_FINITE and (nan or number != "nan"):
        return float(number)
    if isinstance(number, int | float) and not isinstance(number, bool):
        with contextlib.suppress(OverflowError):  # a 400-digit integer is no fitness
            if nan or not math.isnan(float(number)):
                return float(number)
    allowed = "'inf', '-inf', 'nan'" if nan else "'inf', '-inf'"
    raise EvoInputError(
        f"expected a number or one of {allowed}, got {shown(number)}", source=source, field=field
    )


def _member(
    doc: Any, where: str, qd: bool, head: Mapping[str, Any], limits: Limits, source: str | None
) -> None:
    _require(doc, _ELITE_KEYS if qd else _MEMBER_KEYS, where, source)
    values = check_fields(_Member, doc, source=source, where=where)
    match = _ID.fullmatch(values["id"])
    if match is None or int(match.group(1)) != values["born"]:
        expected = (
            f"an id 'g{values['born']}-<index>' or 'g{values['born']}-r<index>' (the generation it was born "
            "in, then its index)"
        )
        raise EvoInputError(
            f"expected {expected}, got {shown(values['id'])}", source=source, field=f"{where}.id"
        )
    if values["born"] > head["generation"]:
        raise EvoInputError(
            f"expected a generation <= {head['generation']}, got {values['born']}",
            source=source,
            field=f"{where}.born",
        )
    for k, parent in enumerate(values["parents"]):
        if _ID.fullmatch(parent) is None:
            raise EvoInputError(
                f"expected an id 'g<generation>-<index>', got {shown(parent)}",
                source=source,
                field=f"{where}.parents[{k}]",
            )
    fitness = values["fitness"]
    if fitness is None or len(fitness) != len(head["objectives"]):
        raise EvoInputError(
            f"expected a list of {len(head['objectives'])} number(s), got {shown(fitness)}",
            source=source,
            field=f"{where}.fitness",
        )
    for k, v in enumerate(fitness):
        _value(v, f"{where}.fitness[{k}]", source)
    if qd:
        if len(values["measures"]) != len(head["measures"]):
            raise EvoInputError(
                f"expected {len(head['measures'])} number(s), got {shown(values['measures'])}",
                source=source,
                field=f"{where}.measures",
            )
        _value(values["objective"], f"{where}.objective", source)
    model = values["model"]
    if isinstance(model, Mapping) and isinstance(model.get("masses"), list):
        links = model.get("links")
        masses, links = len(model["masses"]), len(links) if isinstance(links, list) else 0
        for count, cap, what in ((masses, limits.max_masses, "masses"), (links, limits.max_links, "links")):
            if count > cap:
                raise EvoInputError(
                    f"the creature has {count:,} {what}, more than the {cap:,} a creature may have",
                    source=source,
                    field=f"{where}.model",
                )
    try:
        creature_from_dict(model, source=source)
    except EvoInputError as exc:
        inner = f"{where}.model.{exc.field}" if exc.field else f"{where}.model"
        raise EvoInputError(exc.message, source=source, field=inner) from None


def _logbook(rows: Any, head: Mapping[str, Any], source: str | None) -> None:
    generation = head["generation"]
    if not isinstance(rows, list) or len(rows) != generation + 1:
        count = len(rows) if isinstance(rows, list) else shown(rows)
        raise EvoInputError(
            f"expected {generation + 1} rows (generations 0 to {generation}), got {count}",
            source=source,
            field="logbook",
        )
    columns = ["generation", "evaluations", "masses_mean", "links_mean", "exploded"]
    for name in head["objectives"]:
        columns += [f"{name}_{what}" for what in ("best", "mean", "std", "min")]
    for g, row in enumerate(rows):
        where = f"logbook[{g}]"
        if not isinstance(row, Mapping):
            raise EvoInputError(f"expected an object, got {shown(row)}", source=source, field=where)
        missing = [c for c in columns if c not in row]
        if missing:
            raise EvoInputError(f"missing {', '.join(missing[:3])}", source=source, field=where)
        for key, cell in row.items():
            if key in _INT_COLUMNS:
                if isinstance(cell, bool) or not isinstance(cell, int) or cell < 0:
                    raise EvoInputError(
                        f"expected an integer >= 0, got {shown(cell)}", source=source, field=f"{where}.{key}"
                    )
            else:
                _value(cell, f"{where}.{key}", source, nan=True)
        if row["generation"] != g:
            raise EvoInputError(
                f"expected {g}, got {shown(row['generation'])}", source=source, field=f"{where}.generation"
            )


def validate_checkpoint(
    doc: Any,
    *,
    source: str | None = None,
    objectives: tuple[str, ...] | None = None,
    weights: tuple[float, ...] | None = None,
) -> None:
    """Check a checkpoint document (a JSON checkpoint, or :mod:`evo.io.checkpoint.disk`'s view of a
    ``checkpoint.npz``): keys, types and ranges, individuals, models and their sizes, the logbook.

    Args:
        doc: the parsed document.
        source: the file, for messages.
        objectives, weights: the plugin's, when resuming (the checkpoint's must be the same).

    Raises:
        EvoInputError: the first problem, one line naming the file and the field.
    """
    qd = isinstance(doc, Mapping) and "algorithm" in doc
    _require(doc, _QD_KEYS if qd else _GA_KEYS, "", source)
    head = check_fields(_Head, doc, source=source)
    if not head["objectives"] or len(head["weights"]) != len(head["objectives"]):
        raise EvoInputError(
            f"expected as many weights as objectives (at least one), got {shown(doc['weights'])}",
            source=source,
            field="weights",
        )
    if any(w == 0 for w in head["weights"]):
        raise EvoInputError(
            f"expected non-zero weights, got {shown(doc['weights'])}", source=source, field="weights"
        )
    if objectives is not None and (head["objectives"], head["weights"]) != (
        tuple(objectives),
        tuple(weights or ()),
    ):
        raise EvoInputError(
            f"expected the plugin's objectives {list(objectives)} with weights {list(weights or ())}, "
            f"got {list(head['objectives'])} with {list(head['weights'])}",
            source=source,
            field="objectives",
        )
    try:
        np.random.Generator(np.random.PCG64()).bit_generator.state = head["rng"]
    except (TypeError, ValueError, KeyError, OverflowError) as exc:
        raise EvoInputError(
            f"expected a PCG64 state: {shown(str(exc), 80)}", source=source, field="rng"
        ) from None
    _logbook(head["logbook"], head, source)
    limits = Limits.from_environment()
    groups = ("elites",) if qd else ("population", "hall_of_fame")
    for group in groups:
        if group == "population" and not head[group]:
            raise EvoInputError(
                "expected a non-empty list of individuals, got []", source=source, field=group
            )
        for i, member in enumerate(head[group]):
            _member(member, f"{group}[{i}]", qd, head, limits, source)
