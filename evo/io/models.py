"""Model files: the ``evo-model`` JSON format, version 1 (see docs/model-format.md).

``load_model`` reads JSON or Sodaconstructor XML (by extension) and validates everything; a bad file
raises :class:`evo.errors.EvoInputError` naming the file, the field path (``links[3].rest``) and what
was expected.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from evo.errors import EvoInputError, digits_problem, input_warnings_as_errors, unknown_key_message
from evo.io.atomic import atomic_write_text
from evo.io.bounded import read_input_text
from evo.io.soda_xml import with_terrain_read
from evo.model import MAX_COORDINATE, Creature, Polygon, is_color
from evo.schema import describe_number, number_problem, shown
from evo.sim.world import World

__all__ = [
    "FORMAT",
    "VERSION",
    "creature_from_dict",
    "creature_to_dict",
    "dumps_model",
    "load_model",
    "loads_model",
    "save_model",
]

FORMAT = "evo-model"
VERSION = 1

_TOP_KEYS = ("format", "version", "name", "masses", "links", "wave", "world", "meta", "polys")
_MASS_KEYS = ("x", "y", "vx", "vy", "fixed", "mass")
_LINK_KEYS = ("a", "b", "rest", "alpha", "phi", "stiffness", "dashpot")
_WAVE_KEYS = ("omega", "beta", "phase", "direction", "autoreverse")
_POLY_KEYS = ("masses", "color", "curvy")


class _Reader:
    """Typed access to a parsed document that reports the field path on error."""

    def __init__(self, source: str | None):
        self.source = source

    def fail(self, field: str, expected: str) -> EvoInputError:
        return EvoInputError(expected, source=self.source, field=field)

    def keys(self, obj: Any, allowed: tuple[str, ...], where: str) -> None:
        if not isinstance(obj, Mapping):
            raise self.fail(where or "(top level)", "expected an object")
        for key in obj:
            if key not in allowed:
                raise EvoInputError(
                    unknown_key_message(key, where or "the model", allowed), source=self.source
                )

    def number(
        self, obj: Mapping, key: str, where: str, default: float | None = None, low: float | None = None,
        high: float | None = None, *, open_low: bool = False,
    ) -> float:  # fmt: skip
        """A finite number in the bounds (``default`` when absent; required when it is None)."""
        field = f"{where}.{key}" if where else key
        if key not in obj:
            if default is None:
                raise self.fail(field, f"missing (expected {describe_number(low=low, high=high)})")
            return default
        problem = number_problem(obj[key], low=low, high=high, open_low=open_low)
        if problem:
            raise self.fail(field, problem)
        return float(obj[key])

    def positive(self, obj: Mapping, key: str, where: str, default: float) -> float:
        """A number > 0 (``default`` when absent)."""
        return self.number(obj, key, where, default, low=0.0, open_low=True)

    def index(self, obj: Mapping, key: str, where: str, n: int) -> int:
        field = f"{where}.{key}"
        if key not in obj:
            raise self.fail(field, "missing (expected a mass index)")
        value = obj[key]
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < n:
            raise self.fail(field, f"expected a mass index in 0..{n - 1}, got {shown(value)}")
        return value

    def boolean(self, obj: Mapping, key: str, where: str, default: bool = False) -> bool:
        value = obj.get(key, default)
        if not isinstance(value, bool):
            raise self.fail(f"{where}.{key}" if where else key, f"expected true or false, got {shown(value)}")
        return value


def _is_unicode(text: str) -> bool:
    """False when ``text`` holds a lone surrogate (JSON's ``"\\ud800"``), which no file or terminal can
    hold."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def may_hold_surrogates(text: str) -> bool:
    """Whether the JSON text ``text`` has a ``\\ud800``-``\\udfff`` escape, the only way its document
    can hold a lone surrogate (see :func:`lone_surrogate_at`)."""
    return _SURROGATE_ESCAPE.search(text) is not None


def lone_surrogate_at(doc: Any) -> str | None:
    """Where a parsed JSON document holds a lone surrogate, which no file or terminal can hold.

    Iterative: a document nested as deeply as JSON allows is fine.

    Args:
        doc: the parsed document (dicts, lists, strings, numbers).

    Returns:
        The field (``meta.note``, ``masses[2].x``) of the first string (key or value) holding one, or None.
    """
    stack: list[tuple[str, Any]] = [("", doc)]
    while stack:
        where, value = stack.pop()
        if isinstance(value, str) and not _is_unicode(value):
            return where or "(root)"
        if isinstance(value, dict):
            for key in value:
                if not _is_unicode(key):
                    return f"{where or '(root)'}: a key"
            # reversed, so that the first one in the file is found first
            stack.extend((f"{where}.{key}" if where else str(key), value[key]) for key in reversed(value))
        elif isinstance(value, list):
            stack.extend((f"{where}[{k}]", value[k]) for k in reversed(range(len(value))))
    return None


def creature_from_dict(doc: Any, *, source: str | None = None) -> Creature:
    """Build a validated creature from a parsed ``evo-model`` document."""
    r = _Reader(source)
    r.keys(doc, _TOP_KEYS, "")
    if doc.get("format") != FORMAT:
        raise r.fail("format", f'expected "{FORMAT}", got {shown(doc.get("format"))}')
    version = doc.get("version")
    if type(version) is not int or version != VERSION:  # not true, not 1.0
        raise r.fail("version", f"expected {VERSION}, got {shown(version)}")
    name = doc.get("name", "creature")
    if not isinstance(name, str):
        raise r.fail("name", f"expected a string, got {shown(name)}")
    if not _is_unicode(name):
        raise r.fail("name", f"expected Unicode text, got a lone surrogate in {shown(name)}")

    masses = doc.get("masses")
    if not isinstance(masses, list) or not masses:
        raise r.fail("masses", "expected a non-empty list of masses")
    pos, vel, fixed, mass = [], [], [], []
    for i, m in enumerate(masses):
        where = f"masses[{i}]"
        r.keys(m, _MASS_KEYS, where)
        far = {"low": -MAX_COORDINATE, "high": MAX_COORDINATE}  # px, px/frame: what simulate can square
        pos.append((r.number(m, "x", where, **far), r.number(m, "y", where, **far)))
        vel.append((r.number(m, "vx", where, 0.0, **far), r.number(m, "vy", where, 0.0, **far)))
        fixed.append(r.boolean(m, "fixed", where))
        mass.append(r.positive(m, "mass", where, 1.0))
    n = len(masses)

    links = doc.get("links", [])
    if not isinstance(links, list):
        raise r.fail("links", "expected a list of links")
    la, lb, rest, alpha, phi, stiffness, dashpot = [], [], [], [], [], [], []
    for k, link in enumerate(links):
        where = f"links[{k}]"
        r.keys(link, _LINK_KEYS, where)
        a, b = r.index(link, "a", where, n), r.index(link, "b", where, n)
        if a == b:
            raise r.fail(where, f"expected two different masses, got a self-link on mass {a}")
        la.append(a)
        lb.append(b)
        rest.append(r.number(link, "rest", where, low=0.0, high=MAX_COORDINATE))
        alpha.append(r.number(link, "alpha", where, 0.0, low=0.0, high=1.0))
        phi.append(r.number(link, "phi", where, 0.0))
        stiffness.append(r.positive(link, "stiffness", where, 1.0))
        dashpot.append(r.number(link, "dashpot", where, 0.0, low=0.0))

    wave = doc.get("wave", {})
    r.keys(wave, _WAVE_KEYS, "wave")
    direction = wave.get("direction", "forward")
    if direction not in ("forward", "reverse"):
        raise r.fail("wave.direction", f'expected "forward" or "reverse", got {shown(direction)}')

    world = doc.get("world", {})
    if not isinstance(world, Mapping):
        raise r.fail("world", "expected an object of world parameters")
    # validate (reading a terrain file it names); keep the mapping as given
    World().updated(with_terrain_read(world, source=source, where="world"), source=source, where="world")

    meta = doc.get("meta", {})
    if not isinstance(meta, Mapping):
        raise r.fail("meta", "expected an object")
    polys = doc.get("polys", [])
    if not isinstance(polys, list):
        raise r.fail("polys", "expected a list of polygons")
    polygons = [_polygon(r, poly, f"polys[{k}]", n) for k, poly in enumerate(polys)]

    return Creature(
        positions=np.array(pos, dtype=float).reshape(n, 2),
        velocities=np.array(vel, dtype=float).reshape(n, 2),
        fixed=np.array(fixed, dtype=bool),
        link_a=np.array(la, dtype=np.int64),
        link_b=np.array(lb, dtype=np.int64),
        rest=np.array(rest, dtype=float),
        alpha=np.array(alpha, dtype=float),
        phi=np.array(phi, dtype=float),
        omega=r.number(wave, "omega", "wave", 0.0, low=0.0),
        beta=r.number(wave, "beta", "wave", 0.0, low=0.0, high=1.0),
        wave_phase=r.number(wave, "phase", "wave", 0.0),
        wave_reverse=direction == "reverse",
        autoreverse=r.boolean(wave, "autoreverse", "wave"),
        name=name,
        world=dict(world),
        meta=dict(meta),
        polys=tuple(polygons),
        stiffness=np.array(stiffness, dtype=float),
        dashpot=np.array(dashpot, dtype=float),
        mass=np.array(mass, dtype=float),
    )


def _polygon(r: _Reader, poly: Any, where: str, n: int) -> Polygon:
    """A polygon: a list of mass indices, or ``{"masses": [...], "color": "#rrggbb", "curvy": true}``."""
    if isinstance(poly, Mapping):
        r.keys(poly, _POLY_KEYS, where)
        if "masses" not in poly:
            raise r.fail(f"{where}.masses", "missing (expected a list of mass indices)")
        color = poly.get("color")
        if color is not None and not is_color(color):
            raise r.fail(f"{where}.color", f"expected a colour #rrggbb or #rgb, got {shown(color)}")
        masses = _poly_masses(r, poly["masses"], f"{where}.masses", n)
        return Polygon(masses, color, r.boolean(poly, "curvy", where))
    return Polygon(_poly_masses(r, poly, where, n))


def _poly_masses(r: _Reader, masses: Any, where: str, n: int) -> tuple[int, ...]:
    if not isinstance(masses, list):
        raise r.fail(where, f"expected a list of mass indices or a polygon object, got {shown(masses)}")
    for k, i in enumerate(masses):
        if isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < n:
            raise r.fail(f"{where}[{k}]", f"expected a mass index in 0..{n - 1}, got {shown(i)}")
    return tuple(masses)


def _num(x: float) -> float | int:
    """Plain Python number for JSON (floats keep full precision through repr)."""
    return float(x)


def creature_to_dict(creature: Creature) -> dict[str, Any]:
    """The ``evo-model`` document of a creature; optional fields at their defaults are left out.

    Arrays are turned into Python numbers with ``tolist()`` in one go: this runs for every creature a
    run checkpoints, so it is kept cheap.
    """
    masses = []
    columns = zip(
        creature.positions.tolist(),
        creature.velocities.tolist(),
        creature.fixed.tolist(),
        creature.mass.tolist(),
        strict=True,
    )
    for (x, y), (vx, vy), fixed, mass in columns:
        m: dict[str, Any] = {"x": x, "y": y}
        if vx != 0.0 or vy != 0.0:
            m["vx"] = vx
            m["vy"] = vy
        if fixed:
            m["fixed"] = True
        if mass != 1.0:
            m["mass"] = mass
        masses.append(m)
    links = []
    columns = zip(
        creature.link_a.tolist(),
        creature.link_b.tolist(),
        creature.rest.tolist(),
        creature.alpha.tolist(),
        creature.phi.tolist(),
        creature.stiffness.tolist(),
        creature.dashpot.tolist(),
        strict=True,
    )
    for a, b, rest, alpha, phi, stiffness, dashpot in columns:
        link: dict[str, Any] = {"a": a, "b": b, "rest": rest}
        if alpha != 0.0:
            link["alpha"] = alpha
        if phi != 0.0:
            link["phi"] = phi
        if stiffness != 1.0:
            link["stiffness"] = stiffness
        if dashpot != 0.0:
            link["dashpot"] = dashpot
        links.append(link)
    wave: dict[str, Any] = {"omega": _num(creature.omega), "beta": _num(creature.beta)}
    if creature.wave_phase != 0.0:
        wave["phase"] = _num(creature.wave_phase)
    if creature.wave_reverse:
        wave["direction"] = "reverse"
    if creature.autoreverse:
        wave["autoreverse"] = True
    doc: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION,
        "name": creature.name,
        "masses": masses,
        "links": links,
        "wave": wave,
        "world": dict(creature.world),
        "meta": dict(creature.meta),
    }
    if creature.polys:
        doc["polys"] = [_polygon_doc(p) for p in creature.polys]
    return doc


def _polygon_doc(poly: Polygon) -> list[int] | dict[str, Any]:
    """A plain list of mass indices when the polygon has no colour and is not curvy, else an object."""
    if poly.color is None and not poly.curvy:
        return list(poly.masses)
    out: dict[str, Any] = {"masses": list(poly.masses)}
    if poly.color is not None:
        out["color"] = poly.color
    if poly.curvy:
        out["curvy"] = True
    return out


def dumps_model(creature: Creature) -> str:
    """The model file's text: one top-level key per line, one mass or link per line.

    Readable and diff-friendly, and written by json's C encoder (``indent=`` would switch to its much
    slower pure-Python one, and runs write many of these).
    """
    doc = creature_to_dict(creature)
    lines = []
    for key, value in doc.items():
        name = json.dumps(key)
        if isinstance(value, list) and value:
            items = ",\n".join(f"  {json.dumps(item)}" for item in value)
            lines.append(f" {name}: [\n{items}\n ]")
        else:
            lines.append(f" {name}: {json.dumps(value)}")
    return "{\n" + ",\n".join(lines) + "\n}\n"


class _RepeatedKey(Exception):
    pass


def _object_without_repeated_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object as a dict; a key given twice (json would silently keep the last) is an error."""
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _RepeatedKey(key)
            seen.add(key)
    return out


def load_model(path: str | Path, *, strict: bool = False) -> Creature:
    """Read a model file: ``.json`` (evo-model) or ``.xml`` (Sodaconstructor).

    What a classic XML file holds that evo does not know is skipped with an
    :class:`~evo.errors.EvoInputWarning` each; ``strict`` makes the first one an
    :class:`~evo.errors.EvoInputError` instead.

    Args:
        path: the model file; its extension picks the format (``.xml``, any case; anything else is JSON).
        strict: turn the first input warning into an error.

    Returns:
        The :class:`~evo.model.Creature`, its world overrides in ``creature.world``.

    Raises:
        EvoInputError: no such file, a file that cannot be read, not valid JSON or XML, or not a valid
            model (one line naming the file and the field; docs/model-format.md).
    """
    if strict:
        with input_warnings_as_errors():
            return load_model(path)
    path = Path(path)
    source = str(path)
    if path.suffix.lower() == ".xml":
        from evo.io.soda_xml import read_soda_xml

        return read_soda_xml(path)
    return loads_model(read_input_text(path, source=source), source=source)


def loads_model(text: str, *, source: str | None = None) -> Creature:
    """A creature from the text of an ``evo-model`` JSON file (``source`` names it in errors).

    Raises:
        EvoInputError: not valid JSON, or not a valid model.
    """
    try:
        doc = json.loads(text, object_pairs_hook=_object_without_repeated_keys)
    except _RepeatedKey as exc:
        raise EvoInputError(
            f"not valid JSON: the key '{exc.args[0]}' is given twice in one object", source=source
        ) from None
    except json.JSONDecodeError as exc:
        raise EvoInputError(f"not valid JSON: {exc.msg} at line {exc.lineno}", source=source) from None
    except RecursionError:
        raise EvoInputError("not valid JSON: nested too deeply", source=source) from None
    except ValueError as exc:  # an integer literal of more than 4300 digits
        raise EvoInputError(f"not valid JSON: {digits_problem(exc) or exc}", source=source) from None
    if may_hold_surrogates(text):
        where = lone_surrogate_at(doc)
        if where is not None:
            raise EvoInputError(
                "expected Unicode text, got a lone surrogate (\\ud800-\\udfff)", source=source, field=where
            )
    return creature_from_dict(doc, source=source)


def save_model(creature: Creature, path: str | Path, *, source: str | None = None) -> None:
    """Write a model file atomically: ``.json`` (evo-model) or ``.xml`` (Sodaconstructor).

    Args:
        creature: the creature to write.
        path: the file; its extension picks the format (``.xml``, any case; anything else is JSON). Its
            folder is made if missing.
        source: the file the creature was read from: a relative terrain path in its world is resolved
            against that file's folder when the terrain has to be written out as fixed bars (XML only).

    Raises:
        EvoInputError: XML only: the creature is not valid, or a value is outside the dialect's ranges
            (e.g. omega above 1 cycle/frame), or its terrain file cannot be read.
        OSError: the file cannot be written (the old file, if any, is left as it was).
    """
    path = Path(path)
    if path.suffix.lower() == ".xml":
        from evo.io.soda_xml import dumps_soda_xml

        atomic_write_text(path, dumps_soda_xml(creature, source=source))
    else:
        atomic_write_text(path, dumps_model(creature))
