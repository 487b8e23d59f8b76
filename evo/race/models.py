"""A race of models (evo JSON or classic XML files, or creatures): each in its own world, all on one terrain
if one is given, run by :func:`~evo.race.running.run_race`; and a fitness plugin's score of each beside its
race distance, with the frame each of the two counts from (docs/model-format.md, "Race files")."""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from evo.errors import EvoInputError
from evo.io.models import load_model
from evo.io.soda_race import Contender, Race
from evo.model import Creature

__all__ = ["MAX_MODELS", "Score", "race_of_creatures", "race_of_models", "scores_of"]

MAX_MODELS = 100  # contenders of one race of models


@dataclass(frozen=True)
class Score:
    """A fitness plugin's score of one contender, as it raced (its world, the race's frames).

    Attributes:
        index: the contender's position in the race (the first is 1).
        plugin: the plugin's name.
        objectives: the plugin's objective names.
        fitness: one value per objective (None where not finite).
        counted_from: the frame the plugin starts counting from (its ``settle_frames``; 0 without one).
        exploded: the plugin's run blew up.
        label: ``"distance 3966.59"``: the objectives and values, as ``evo simulate --plugin`` prints them.
    """

    index: int
    plugin: str
    objectives: tuple[str, ...]
    fitness: tuple[float | None, ...]
    counted_from: float
    exploded: bool
    label: str

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (``evo race --json``'s ``"fitness"`` of a contender)."""
        return {
            "plugin": self.plugin,
            "objectives": list(self.objectives),
            "values": list(self.fitness),
            "counted_from_frame": _whole(self.counted_from),
            "exploded": self.exploded,
        }


def _whole(frames: float) -> int | float:
    return int(frames) if float(frames).is_integer() else frames


def race_of_creatures(
    creatures: Sequence[Creature], *, terrain: Sequence[Sequence[Sequence[float]]] = (), frames: float | None
) -> Race:
    """A race of ``creatures``, each in its own world (nothing imposed).

    Args:
        creatures: the contenders, in race order.
        terrain: polylines of (x, y) px every contender races on (replacing its own); empty: each keeps
            its own world's terrain.
        frames: the race's frames (its timeout); None: the default 3000.

    Raises:
        EvoInputError: no contender, or more than :data:`MAX_MODELS`.
    """
    if not creatures:
        raise EvoInputError("a race needs at least one model")
    if len(creatures) > MAX_MODELS:
        raise EvoInputError(f"a race takes at most {MAX_MODELS} models, got {len(creatures)}")
    lines = tuple(tuple((float(x), float(y)) for x, y in line) for line in terrain)
    return Race(contenders=tuple(Contender(c) for c in creatures), terrain=lines, timeout=frames)


def race_of_models(
    paths: Sequence[str | os.PathLike], *, terrain: str | os.PathLike | None = None, frames: float | None
) -> Race:
    """A race of model files (``.json`` or classic ``.xml``), each in the world its file gives.

    Args:
        paths: the model files, in race order.
        terrain: a Soda XML file whose fixed bars every contender races on; None: each its own.
        frames: the race's frames; None: the default 3000.

    Raises:
        EvoInputError: a file that is not a valid model (naming it), or a terrain file without bars.
    """
    creatures = [load_model(path) for path in paths]
    lines: tuple = ()
    if terrain is not None:
        from evo.io.soda_xml import read_terrain

        lines = read_terrain(terrain, field="--terrain")
        if not lines:
            raise EvoInputError(
                "a terrain file needs <fixedbar> links; this one has none", source=str(terrain)
            )
    return race_of_creatures(creatures, terrain=lines, frames=frames)


def scores_of(
    result: Any, plugin: str = "distance", params: Mapping[str, Any] | None = None
) -> tuple[Score, ...]:
    """The plugin's score of each contender of a race's result (in race order), in the world it raced in,
    from its start as it raced, for the race's frames, as ``evo simulate --plugin`` scores a model file.

    Args:
        result: a :class:`~evo.race.running.RaceResult`.
        plugin: a registered fitness plugin's name.
        params: the plugin's parameters (None: its defaults; an elite's run parameters when its meta
            names the same plugin).

    Raises:
        EvoInputError: an unknown plugin, bad params, or a plugin that failed (naming the contender).
    """
    from evo.fitness import load_ref
    from evo.fitness.evaluate import PluginFailed, evaluate
    from evo.run.rescore import scoring

    frames = int(math.ceil(result.frames))
    out = []
    for k, (creature, world) in enumerate(zip(result.creatures, result.worlds, strict=True)):
        spec, seed = scoring(creature, plugin, world=world, frames=frames, params=params)
        try:
            outcome = evaluate(creature, spec, seed)
        except PluginFailed as exc:
            raise EvoInputError(f"contender {k + 1}: plugin {plugin}: {exc.message}") from None
        names = tuple(load_ref(spec.plugin).objectives) or tuple(
            f"objective {i + 1}" for i in range(len(outcome.fitness))
        )
        values = tuple(float(v) if math.isfinite(v) else None for v in outcome.fitness)
        settle = spec.params.get("settle_frames")
        counted = float(settle) if isinstance(settle, int | float) and not isinstance(settle, bool) else 0.0
        label = ", ".join(
            f"{n} {v:.6g}" if v is not None else f"{n} -" for n, v in zip(names, values, strict=False)
        )
        out.append(Score(k + 1, plugin, names, values, min(counted, frames), bool(outcome.exploded), label))
    return tuple(out)
