"""Designs between the page and evo: JSON model objects checked by evo's own readers, uploads parsed by
the safe JSON and XML readers (never executed), exports written as evo writes files."""

from __future__ import annotations

import json
import warnings
from pathlib import PurePath
from typing import Any

from evo.errors import EvoInputError, EvoInputWarning
from evo.io.models import creature_from_dict, creature_to_dict, dumps_model, loads_model
from evo.io.soda_xml import dumps_soda_xml, loads_soda_xml, loads_terrain
from evo.model import Creature
from evo.sim.world import World
from evo.studio.limits import StudioLimits, TooLarge

__all__ = [
    "FORMATS",
    "design_of",
    "export_text",
    "format_of",
    "model_object",
    "open_terrain",
    "open_upload",
    "readable_again",
    "work_of",
]

FORMATS = ("json", "xml")


def model_object(creature: Creature) -> dict[str, Any]:
    """The evo JSON model object of ``creature`` (what a ``.json`` model file holds), JSON-safe."""
    return json.loads(json.dumps(creature_to_dict(creature)))


def design_of(obj: Any, limits: StudioLimits, *, source: str = "model") -> Creature:
    """The creature of a JSON model object from the page, checked as a model file is (world included).

    Raises:
        TooLarge: more masses or links than ``limits`` allow.
        EvoInputError: not a valid model (one line naming the field).
    """
    if isinstance(obj, dict):
        masses, links = obj.get("masses"), obj.get("links")
        limits.check_model(
            len(masses) if isinstance(masses, list) else 0, len(links) if isinstance(links, list) else 0
        )
    creature = creature_from_dict(obj, source=source)
    limits.check_terrain(_terrain_points(creature.world.get("terrain") if creature.world else None))
    World.from_model(creature)
    return creature


def work_of(creature: Creature) -> int:
    """The work of one frame of ``creature``: its links, plus its masses times its terrain's points (each
    mass is tested against each segment)."""
    terrain = creature.world.get("terrain") if creature.world else None
    return creature.n_links + creature.n_masses * _terrain_points(terrain)


def _terrain_points(terrain: Any) -> int:
    """The points of a world's terrain (a list of polylines, or one), 0 for none or a file name."""
    if not isinstance(terrain, list | tuple):
        return 0
    return sum(len(line) if isinstance(line, list | tuple) else 1 for line in terrain)


def format_of(filename: str) -> str:
    """``xml`` for a ``.xml`` name (any case), else ``json``."""
    return "xml" if PurePath(filename).suffix.lower() == ".xml" else "json"


def open_upload(filename: str, data: str | bytes, limits: StudioLimits) -> tuple[Creature, str, list[str]]:
    """Parse an uploaded model file with evo's safe readers.

    Args:
        filename: the file's name (its extension picks the format).
        data: the file's bytes (XML: decoded as its declaration says; JSON: UTF-8) or its text.
        limits: the studio's limits.

    Returns:
        (creature, format, warnings): ``format`` is ``json`` or ``xml``; ``warnings`` are the one-line
        input warnings (what a classic file holds that evo skips).

    Raises:
        TooLarge: a file over ``limits.upload_bytes``, or a model over the mass or link limits.
        EvoInputError: not a valid model file.
    """
    size = len(data) if isinstance(data, bytes) else len(data.encode("utf-8"))
    if size > limits.upload_bytes:
        raise TooLarge(
            f"{filename}: {size} bytes; the studio opens files of at most {limits.upload_bytes} bytes"
        )
    kind = format_of(filename)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", EvoInputWarning)
        if kind == "xml":
            creature = loads_soda_xml(data, source=filename, name=PurePath(filename).stem or "creature")
        else:
            if isinstance(data, bytes):
                try:
                    data = data.decode("utf-8")
                except UnicodeDecodeError:
                    raise EvoInputError("not UTF-8 text", source=filename) from None
            creature = loads_model(data, source=filename)
    limits.check_model(creature.n_masses, creature.n_links)
    World.from_model(creature)
    lines = [str(w.message) for w in caught if issubclass(w.category, EvoInputWarning)]
    return creature, kind, list(dict.fromkeys(lines))


def open_terrain(filename: str, data: str | bytes, limits: StudioLimits) -> list[list[list[float]]]:
    """The terrain polylines ``[[[x, y], ...], ...]`` px of an uploaded Soda XML file's fixed bars.

    Raises:
        TooLarge: a file over ``limits.upload_bytes``.
        EvoInputError: not a Soda XML file with fixed bars.
    """
    size = len(data) if isinstance(data, bytes) else len(data.encode("utf-8"))
    if size > limits.upload_bytes:
        raise TooLarge(
            f"{filename}: {size} bytes; the studio opens files of at most {limits.upload_bytes} bytes"
        )
    if format_of(filename) != "xml":
        raise EvoInputError("a terrain file is a Sodaconstructor .xml file of fixed bars", source=filename)
    terrain = [[[float(x), float(y)] for x, y in line] for line in loads_terrain(data, source=filename)]
    limits.check_terrain(_terrain_points(terrain))
    return terrain


def export_text(creature: Creature, kind: str) -> str:
    """The text of a model file of ``kind`` (``json`` or ``xml``) holding ``creature``.

    Raises:
        EvoInputError: an unknown format, or (XML) a value outside the dialect's ranges.
    """
    if kind == "json":
        return dumps_model(creature)
    if kind == "xml":
        return dumps_soda_xml(creature)
    raise EvoInputError(f"format: expected one of {', '.join(FORMATS)}, got {kind!r}")


def readable_again(creature: Creature, kind: str) -> None:
    """Check that the file of ``kind`` written for ``creature`` reads back as ``evo validate`` reads it.

    Raises:
        EvoInputError: the written file would be refused (naming ``model`` and evo's reason).
    """
    text = export_text(creature, kind)
    try:
        if kind == "xml":
            loads_soda_xml(text, source="the saved file")
        else:
            loads_model(text, source="the saved file")
    except EvoInputError as exc:
        raise EvoInputError(f"evo validate would refuse it: {exc}", field="model") from None
