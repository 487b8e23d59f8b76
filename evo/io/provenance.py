"""Where a creature of a run comes from: the typed ``meta`` of elites, generation bests and failed creatures
(the keys are listed in docs/runs.md)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from evo.io.numbers import decode_numbers, encode_numbers
from evo.schema import is_finite_number

__all__ = ["Provenance", "frames_in"]


def _strings(value: Any) -> tuple[str, ...]:
    return tuple(v for v in value if isinstance(v, str)) if isinstance(value, list | tuple) else ()


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def frames_in(meta: Any) -> int | None:
    """The frames a model's ``meta`` says it is simulated for (a run's elites and hand-made models alike),
    or None when it says nothing usable."""
    frames = meta.get("frames") if isinstance(meta, Mapping) else None
    return frames if isinstance(frames, int) and not isinstance(frames, bool) and frames > 0 else None


@dataclass(frozen=True)
class Provenance:
    """The run, the evaluation and the lineage of one creature.

    Attributes:
        run: the run's name.
        id: ``"g12-34"``: generation and index of its first evaluation.
        generation: the generation it was born in.
        parents: ids of the individuals it was made from (empty for a failed creature).
        plugin: the fitness plugin's name; ``plugin_paths`` where it was found; ``params`` its parameters.
        frames: frames each evaluation simulated.
        seed: the seed its plugin was called with (None if unknown).
        fitness: its objective values (None for a failed creature, or if unknown).
        objectives: the objective names, in the order of ``fitness``.
        error: the one-line error of a failed evaluation, else None.
        cell: the archive cell of a MAP-Elites elite, else None; ``measures`` its measures by name.
    """

    run: str
    id: str
    generation: int
    plugin: str
    frames: int
    parents: tuple[str, ...] = ()
    plugin_paths: tuple[str, ...] = ()
    params: Mapping[str, Any] = field(default_factory=dict)
    seed: int | None = None
    fitness: tuple[float, ...] | None = None
    objectives: tuple[str, ...] = ()
    error: str | None = None
    cell: int | None = None
    measures: Mapping[str, float] | None = None

    def to_meta(self) -> dict[str, Any]:
        """The ``meta`` mapping of the creature's model file (JSON-safe; keys in a fixed order).

        Returns:
            ``{key: value}`` with the keys of docs/runs.md ("elites/"); non-finite fitness values as the
            strings ``"inf"``, ``"-inf"``, ``"nan"``. :meth:`from_meta` reads it back (a failed creature's
            ``parents`` are not written).
        """
        meta: dict[str, Any] = {}
        if self.fitness is not None:
            meta["fitness"] = encode_numbers(self.fitness)
            meta["objectives"] = list(self.objectives)
        meta.update(run=self.run, id=self.id, generation=self.generation)
        if self.error is None:
            meta["parents"] = list(self.parents)
        meta.update(
            plugin=self.plugin,
            plugin_paths=list(self.plugin_paths),
            params=dict(self.params),
            frames=self.frames,
            seed=self.seed,
        )
        if self.error is not None:
            meta["error"] = self.error
        if self.cell is not None:
            meta["cell"] = self.cell
        if self.measures is not None:
            meta["measures"] = dict(self.measures)
        return meta

    @classmethod
    def from_meta(cls, meta: Any) -> Provenance | None:
        """The provenance in a model's ``meta``, or None when it has none (a hand-made model). Fields of
        the wrong type read as unknown, never as an error: a model's meta is free-form.

        Args:
            meta: a creature's ``meta`` (anything: only a mapping can hold a provenance).

        Returns:
            The :class:`Provenance`, or None when ``meta`` lacks a string ``run`` and ``plugin`` or an
            integer ``frames`` and ``generation``.
        """
        if not isinstance(meta, Mapping):
            return None
        run, plugin = meta.get("run"), meta.get("plugin")
        frames, generation = _int(meta.get("frames")), _int(meta.get("generation"))
        if not isinstance(run, str) or not isinstance(plugin, str) or frames is None or generation is None:
            return None
        try:
            fitness = decode_numbers(meta["fitness"]) if "fitness" in meta else None
        except (TypeError, ValueError):
            fitness = None
        params = meta.get("params")
        error = meta.get("error")
        measures = meta.get("measures")
        if isinstance(measures, Mapping):
            measures = {str(k): float(v) for k, v in measures.items() if is_finite_number(v)}
        else:
            measures = None
        return cls(
            run=run,
            id=str(meta.get("id", "")),
            generation=generation,
            plugin=plugin,
            frames=frames,
            parents=_strings(meta.get("parents")),
            plugin_paths=_strings(meta.get("plugin_paths")),
            params=dict(params) if isinstance(params, Mapping) else {},
            seed=_int(meta.get("seed")),
            fitness=fitness,
            objectives=_strings(meta.get("objectives")),
            error=error if isinstance(error, str) else None,
            cell=_int(meta.get("cell")),
            measures=measures,
        )
