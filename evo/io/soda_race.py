"""Sodarace race files: read a ``<race>`` (timeout, terrain, race constraints, contenders) into a
:class:`Race`, and write one. Each contender is a whole Soda ``<model>``, read by :mod:`evo.io.soda_xml`;
the rules and the reading of ``CONTENDER`` are in docs/model-format.md, "Race files".
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evo.errors import EvoInputError, input_warnings_as_errors, warn_input
from evo.io.bounded import read_input_bytes
from evo.io.safe_xml import parse_xml_file
from evo.io.soda_dialect import CHOICES, WORLD_NUMBERS, file_speed, file_wave_phase, wave_omega, wave_phase
from evo.io.soda_xml import creature_of, document_of, model_element, terrain_element, terrain_of, xml_text
from evo.model import Creature
from evo.schema import number_problem, shown

__all__ = [
    "CONTENDER",
    "MAX_CONTENDERS",
    "Contender",
    "Race",
    "dumps_race_xml",
    "is_race_file",
    "read_race",
    "write_race",
]

CONTENDER = "CONTENDER"  # a constraint's value meaning "each contender keeps its own"
MAX_CONTENDERS = 1000
# the attributes of <race_constraints>'s elements: (element, attribute) -> what it constrains
_WAVE = {"amplitude": ("beta", 0.0, 1.0), "phase": ("wave_phase", 0.0, 1.0), "speed": ("omega", 0.0, 1.0)}
_SETTINGS = ("gravitydirection", "wavedirection", "autoreverse")
_CONSTRAINTS = {
    "environment": ("gravity", "friction", "springyness"),
    "collisions": ("surface_friction", "surface_reflection"),
    "wave": tuple(_WAVE),
    "settings": _SETTINGS,
}
_CHILDREN = ("timeout", "terrain", "race_constraints", "contenders")
# attributes naming classes of the original Java program: kept, ignored
_CLASS_ATTRIBUTES = {"race": ("racer",), "terrain": ("filter",), "contenders": ("filter",)}


@dataclass(frozen=True)
class Contender:
    """One contender of a race.

    Attributes:
        creature: its model as the file gives it, in its own world (the race's rules not applied).
        result_frames: the ``<result frames>`` the file records (-1: none), kept and not used.
    """

    creature: Creature
    result_frames: float = -1.0


@dataclass(frozen=True, kw_only=True)
class Race:
    """A Sodarace race, built from keyword fields only.

    Attributes:
        contenders: in file order (the first is contender 1).
        terrain: polylines of (x, y) px, the terrain model's fixed bars.
        timeout: frames a contender has to finish; None when the file gives none.
        world: World fields the race imposes on every contender (``gravity``, ``damping``,
            ``stiffness``, ``restitution_normal``, ``restitution_tangential``, ``gravity_direction``).
        wave: creature wave fields it imposes (``beta``, ``wave_phase``, ``omega``, ``wave_reverse``,
            ``autoreverse``).
        attributes: the ignored class-name attributes (``racer``, ``filter``) by element, kept to write
            them back.
        terrain_name: the terrain model's ``<name>``, if any.
    """

    contenders: tuple[Contender, ...]
    terrain: tuple[tuple[tuple[float, float], ...], ...] = ()
    timeout: float | None = None
    world: Mapping[str, Any] = field(default_factory=dict)
    wave: Mapping[str, Any] = field(default_factory=dict)
    attributes: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    terrain_name: str | None = None

    def ruled(self, index: int) -> Creature:
        """Contender ``index`` (0-based) as it races: the race's imposed values and terrain applied to its
        own world and wave (its own terrain, if it had one, is replaced by the race's)."""
        creature = self.contenders[index].creature
        world = {k: v for k, v in creature.world.items() if k != "terrain"}
        world.update(self.world)
        if self.terrain:
            world["terrain"] = [[list(p) for p in line] for line in self.terrain]
        return creature.replace(world=world, **self.wave)


def is_race_file(path: str | Path) -> bool:
    """True for an ``.xml`` file whose root element is ``<race>`` (only its first KiB is looked at)."""
    path = Path(path)
    if path.suffix.lower() != ".xml" or not path.is_file():
        return False
    try:
        head = read_input_bytes(path, limit=1024, partial=True)
    except EvoInputError:
        return False
    text = head.decode("utf-8", "replace")
    start = 0
    while True:  # the first tag that is not a declaration, a comment or a DOCTYPE
        start = text.find("<", start)
        if start < 0 or start + 1 >= len(text):
            return False
        if text[start + 1] not in "?!":
            return text[start + 1 : start + 5] == "race" and text[start + 5 : start + 6] in " >\t\r\n/"
        start += 1


def read_race(path: str | Path, *, strict: bool = False) -> Race:
    """Read a Sodarace race file.

    Args:
        path: the ``.xml`` race file.
        strict: turn every warning (unknown elements and attributes, the ignored class names) into an
            error.

    Returns:
        The :class:`Race`.

    Raises:
        EvoInputError: one line naming the file, the element (``contenders/contender[2]/model/nodes/
            mass[1]@x``) and what was expected.
    """
    if strict:
        with input_warnings_as_errors():
            return read_race(path)
    path = Path(path)
    source = str(path)
    root = parse_xml_file(path, source)
    if root.tag != "race":
        raise EvoInputError(f"expected a <race> element, got <{root.tag}>", source=source, field="(root)")
    attributes = _class_attributes(root, "race", source)
    sections: dict[str, ET.Element] = {}
    for child in root:
        if child.tag not in _CHILDREN:
            warn_input(f"unknown element <{child.tag}>", hint=f"valid: {', '.join(_CHILDREN)}", source=source,
                       field="race")  # fmt: skip
            continue
        if child.tag in sections:
            raise EvoInputError(f"<{child.tag}> given more than once", source=source, field="race")
        sections[child.tag] = child
    if "contenders" not in sections:
        raise EvoInputError("missing <contenders>", source=source, field="race")
    timeout = _timeout(sections.get("timeout"), source)
    terrain, terrain_name = (), None
    if "terrain" in sections:
        attributes.update(_class_attributes(sections["terrain"], "terrain", source))
        terrain, terrain_name = _terrain(sections["terrain"], source)
    world, wave = {}, {}
    if "race_constraints" in sections:
        world, wave = _constraints(sections["race_constraints"], source)
    attributes.update(_class_attributes(sections["contenders"], "contenders", source))
    if attributes:
        names = ", ".join(f"{tag}@{name}" for tag, kept in attributes.items() for name in kept)
        warn_input(f"{names} name classes of the original program", hint="kept, not used", source=source,
                   field="race")  # fmt: skip
    contenders = _contenders(sections["contenders"], source)
    return Race(
        contenders=contenders,
        terrain=terrain,
        timeout=timeout,
        world=world,
        wave=wave,
        attributes=attributes,
        terrain_name=terrain_name,
    )


def _class_attributes(element: ET.Element, tag: str, source: str) -> dict[str, dict[str, str]]:
    """The class-name attributes of ``element`` (kept); any other attribute is warned about."""
    kept = {}
    for name, value in element.attrib.items():
        if name in _CLASS_ATTRIBUTES.get(tag, ()):
            kept[name] = value
        else:
            warn_input(f"unknown attribute '{name}'", source=source, field=tag)
    return {tag: kept} if kept else {}


def _number(element: ET.Element, attr: str, where: str, source: str, low: float, high: float) -> float:
    raw = element.attrib.get(attr)
    if raw is None:
        raise EvoInputError("missing attribute", source=source, field=f"{where}@{attr}")
    try:
        value: Any = float(raw.strip()) if len(raw) <= 100 else raw
    except ValueError:
        value = raw
    if isinstance(value, float) and not math.isfinite(value):
        value = raw
    problem = number_problem(value, low=low, high=high)
    if problem:
        raise EvoInputError(problem, source=source, field=f"{where}@{attr}")
    return float(value)


def _timeout(element: ET.Element | None, source: str) -> float | None:
    if element is None:
        return None
    value = _number(element, "value", "timeout", source, 0.0, 1e9)
    if value <= 0:
        return None  # the applet's files write 0 or -1 for "no timeout"
    return value


def _terrain(element: ET.Element, source: str) -> tuple[tuple, str | None]:
    models = [child for child in element if child.tag == "model"]
    for child in element:
        if child.tag != "model":
            warn_input(f"unknown element <{child.tag}>", hint="valid: model", source=source, field="terrain")
    if len(models) > 1:
        raise EvoInputError("more than one <model>", source=source, field="terrain")
    if not models:
        return (), None
    doc = document_of(models[0], source, "terrain/model/", physics=False)
    free = [node_id for node_id, node in doc.nodes.items() if node.kind == "mass"]
    if free or any(link.kind != "fixedbar" for link in doc.links):
        warn_input("masses, springs and muscles of the terrain model", hint="only its fixed bars are used",
                   source=source, field="terrain/model")  # fmt: skip
    return terrain_of(doc), doc.name


def _constraints(element: ET.Element, source: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The values the race imposes: (World fields, creature wave fields)."""
    world: dict[str, Any] = {}
    wave: dict[str, Any] = {}
    for child in element:
        where = f"race_constraints/{child.tag}"
        if child.tag not in _CONSTRAINTS:
            warn_input(f"unknown element <{child.tag}>", hint=f"valid: {', '.join(_CONSTRAINTS)}",
                       source=source, field="race_constraints")  # fmt: skip
            continue
        for attr, raw in child.attrib.items():
            if attr not in _CONSTRAINTS[child.tag]:
                warn_input(f"unknown attribute '{attr}'", hint=f"valid: {', '.join(_CONSTRAINTS[child.tag])}",
                           source=source, field=where)  # fmt: skip
                continue
            if raw.strip().upper() == CONTENDER:
                continue
            if child.tag == "wave":
                key, low, high = _WAVE[attr]
                value = _number(child, attr, where, source, low, high)
                wave[key] = {"beta": value, "wave_phase": wave_phase(value), "omega": wave_omega(value)}[key]
            elif child.tag == "settings":
                if raw not in CHOICES[attr]:
                    choices = ", ".join((*CHOICES[attr], CONTENDER))
                    raise EvoInputError(f"expected one of {choices}, got {shown(raw)}", source=source,
                                        field=f"{where}@{attr}")  # fmt: skip
                if attr == "gravitydirection":
                    world["gravity_direction"] = raw
                elif attr == "wavedirection":
                    wave["wave_reverse"] = raw == "reverse"
                else:
                    wave["autoreverse"] = raw == "on"
            else:
                key, low, high, open_low, factor = WORLD_NUMBERS[(child.tag, attr)]
                value = _number(child, attr, where, source, low, high)
                if open_low and value <= low:
                    raise EvoInputError(f"expected a number > {low:g}, got {shown(raw)}", source=source,
                                        field=f"{where}@{attr}")  # fmt: skip
                world[key] = factor * value if factor != 1.0 else value
    return world, wave


def _contenders(element: ET.Element, source: str) -> tuple[Contender, ...]:
    out = []
    for child in element:
        if child.tag != "contender":
            warn_input(f"unknown element <{child.tag}>", hint="valid: contender", source=source,
                       field="contenders")  # fmt: skip
            continue
        if len(out) >= MAX_CONTENDERS:
            raise EvoInputError(f"more than {MAX_CONTENDERS} contenders", source=source, field="contenders")
        where = f"contenders/contender[{len(out) + 1}]"
        models = [c for c in child if c.tag == "model"]
        if len(models) != 1:
            raise EvoInputError(f"expected one <model>, got {len(models)}", source=source, field=where)
        result = -1.0
        for c in child:
            if c.tag == "result":
                if "frames" in c.attrib:
                    result = _number(c, "frames", f"{where}/result", source, -1.0, 1e12)
            elif c.tag != "model":
                warn_input(
                    f"unknown element <{c.tag}>", hint="valid: model, result", source=source, field=where
                )
        doc = document_of(models[0], source, f"{where}/model/")
        creature = creature_of(doc, source, f"contender {len(out) + 1}", f"{where}/model")
        if creature.world.get("terrain"):
            warn_input("the contender's own fixed bars", hint="the race's terrain is used", source=source,
                       field=f"{where}/model")  # fmt: skip
        out.append(Contender(creature, result))
    if not out:
        raise EvoInputError("the race has no <contender>", source=source, field="contenders")
    return tuple(out)


def dumps_race_xml(race: Race) -> str:
    """The text of a race file: the timeout, the terrain as fixed nodes and bars, the constraints
    (``CONTENDER`` wherever the race imposes nothing) and every contender's ``<model>`` in its own world.

    Raises:
        EvoInputError: a contender the Soda dialect cannot hold (see :func:`evo.io.soda_xml.model_element`),
            naming it.
    """
    root = ET.Element("race", dict(race.attributes.get("race", {})))
    if race.timeout is not None:
        ET.SubElement(root, "timeout", {"value": repr(float(race.timeout))})
    terrain = ET.SubElement(root, "terrain", dict(race.attributes.get("terrain", {})))
    terrain.append(terrain_element(race.terrain, race.terrain_name or "terrain"))
    constraints = ET.SubElement(root, "race_constraints")
    imposed = _imposed_attributes(race)
    for tag, attrs in _CONSTRAINTS.items():
        ET.SubElement(constraints, tag, {a: imposed.get((tag, a), CONTENDER) for a in attrs})
    contenders = ET.SubElement(root, "contenders", dict(race.attributes.get("contenders", {})))
    for k, contender in enumerate(race.contenders, start=1):
        element = ET.SubElement(contenders, "contender")
        creature = contender.creature
        if creature.world.get("terrain"):
            creature = creature.replace(world={k: v for k, v in creature.world.items() if k != "terrain"})
        try:
            element.append(model_element(creature))
        except EvoInputError as exc:
            raise EvoInputError(exc.message, source=exc.source, field=f"contender {k}: {exc.field}") from None
        ET.SubElement(element, "result", {"frames": repr(float(contender.result_frames))})
    return xml_text(root)


def _imposed_attributes(race: Race) -> dict[tuple[str, str], str]:
    """The race's imposed values in the file's terms, by (element, attribute)."""
    out: dict[tuple[str, str], str] = {}
    for (tag, attr), (key, _low, _high, _open, factor) in WORLD_NUMBERS.items():
        if key in race.world and tag != "container":
            out[(tag, attr)] = repr(factor * race.world[key] if factor != 1.0 else race.world[key])
    if "gravity_direction" in race.world:
        out[("settings", "gravitydirection")] = race.world["gravity_direction"]
    if "beta" in race.wave:
        out[("wave", "amplitude")] = repr(float(race.wave["beta"]))
    if "wave_phase" in race.wave:
        out[("wave", "phase")] = file_wave_phase(race.wave["wave_phase"])
    if "omega" in race.wave:
        out[("wave", "speed")] = file_speed(race.wave["omega"])
    if "wave_reverse" in race.wave:
        out[("settings", "wavedirection")] = "reverse" if race.wave["wave_reverse"] else "forward"
    if "autoreverse" in race.wave:
        out[("settings", "autoreverse")] = "on" if race.wave["autoreverse"] else "off"
    return out


def write_race(race: Race, path: str | Path) -> None:
    """Write :func:`dumps_race_xml` of ``race`` to ``path`` atomically (refusing a symlink in the way)."""
    from evo.io.atomic import atomic_write_text

    atomic_write_text(path, dumps_race_xml(race))
