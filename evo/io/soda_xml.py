"""Sodaconstructor XML models: read them (elements evo does not know are skipped with a warning), write them,
and read terrain (fixed bars) from them. The dialect's names, ranges and muscle law are in
:mod:`evo.io.soda_dialect`; docs/model-format.md has the whole mapping. Fixed nodes that links or polygons
use become fixed masses; fixed nodes used only by fixed bars become terrain polylines.
"""

from __future__ import annotations

import math
import os
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from evo.errors import EvoInputError, closest, input_warnings_as_errors, warn_input
from evo.io.safe_xml import parse_xml_bytes, parse_xml_file
from evo.io.soda_dialect import (
    ATTRIBUTES,
    CHILDREN,
    CHOICES,
    WORLD_NUMBERS,
    file_muscle_phase,
    file_speed,
    file_wave_phase,
    muscle_phase,
    wave_omega,
    wave_phase,
)
from evo.model import Creature, Polygon, is_color
from evo.schema import number_problem, shown
from evo.sim.world import World, field_label

__all__ = [
    "TerrainFile",
    "creature_of",
    "document_of",
    "dumps_soda_xml",
    "loads_soda_xml",
    "loads_terrain",
    "model_element",
    "read_soda_xml",
    "read_terrain",
    "terrain_element",
    "terrain_of",
    "xml_text",
]

Polyline = tuple[tuple[float, float], ...]
# the encoding named by an XML declaration (``<?xml version="1.0" encoding="ISO-8859-1"?>``)
_DECLARED_ENCODING = re.compile(r"""(\A\s*<\?xml[^>]*?encoding\s*=\s*["'])[^"']*(["'])""")

_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
_ID_LIST = re.compile(r"[\s,]+")
_NOT_XML_CHAR = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


# --------------------------------------------------------------------------------------------- reading
class _Checker:
    """Reads one element's attributes; errors name the file, ``path@attribute`` and what was expected.

    Attributes the element does not have in the dialect, and children of an element that has none, are
    skipped with a warning each.
    """

    def __init__(self, element: ET.Element, path: str, source: str):
        self.element, self.path, self.source = element, path, source
        allowed = ATTRIBUTES[element.tag]
        for attr in element.attrib:
            if attr not in allowed:
                best = closest(attr, allowed)
                hint = f"did you mean '{best}'?" if best else f"valid: {', '.join(allowed) or 'none'}"
                warn_input(f"unknown attribute '{attr}'", hint=hint, source=source, field=path)
        if element.tag not in CHILDREN:
            for child in element:
                warn_input(f"unknown element <{child.tag}> inside <{element.tag}>", source=source, field=path)

    def fail(self, attr: str | None, expected: str) -> EvoInputError:
        return EvoInputError(expected, source=self.source, field=f"{self.path}@{attr}" if attr else self.path)

    def text(self, attr: str) -> str:
        if attr not in self.element.attrib:
            raise self.fail(attr, "missing attribute")
        return self.element.attrib[attr]

    def number(self, attr: str, low: float | None = None, high: float | None = None, *,
               open_low: bool = False, default: float | None = None) -> float:  # fmt: skip
        """A decimal literal (``12``, ``-0.5``, ``.5``, ``1e-3``) within the bounds."""
        if default is not None and attr not in self.element.attrib:
            return default
        raw = self.text(attr).strip()
        value: Any = raw
        if _NUMBER.fullmatch(raw):
            value = float(raw)  # never int(raw): 400 digits do not fit a float, 5000 are refused by int
            if not math.isfinite(value):  # 1e400: say what the file wrote
                value = raw
        problem = number_problem(value, low=low, high=high, open_low=open_low)
        if problem:
            raise self.fail(attr, problem)
        return float(value)

    def choice(self, attr: str, default: str) -> str:
        value = self.element.attrib.get(attr, default)
        if value not in CHOICES[attr]:
            raise self.fail(attr, f"expected one of {', '.join(CHOICES[attr])}, got {shown(value)}")
        return value


class _Node(NamedTuple):
    kind: str  # "mass" (free) or "node" (fixed)
    x: float  # px
    y: float  # px
    vx: float  # px/frame
    vy: float  # px/frame
    where: str  # element path, for messages


class _Link(NamedTuple):
    kind: str  # "spring", "muscle" or "fixedbar"
    a: str  # node ids
    b: str
    rest: float  # px
    amplitude: float  # muscle amplitude alpha in [0, 1]
    phase: float  # cycles in [0, 1], the file's delay p
    phi: float = 0.0  # rad: evo's phase (exact where the file gives it, else from ``phase``)


class _Poly(NamedTuple):
    ids: list[str]  # node ids, in drawing order
    color: str | None
    curvy: bool


@dataclass
class _Document:
    """What a Soda XML file says, before it is split into a creature and terrain."""

    name: str | None = None
    comment: str | None = None
    world: dict = field(default_factory=dict)
    wave: dict = field(default_factory=dict)
    nodes: dict[str, _Node] = field(default_factory=dict)  # by id, in document order
    links: list[_Link] = field(default_factory=list)
    polys: list[_Poly] = field(default_factory=list)


def _children(parent: ET.Element, path: str, source: str) -> Iterator[tuple[ET.Element, str]]:
    """Yield (child, path of child) of the children the dialect has (the others are skipped with a
    warning); elements of ``model`` may appear at most once."""
    allowed = CHILDREN[parent.tag]
    counts: dict[str, int] = {}
    for child in parent:
        tag = child.tag
        if tag not in allowed:
            best = closest(str(tag), allowed)
            hint = f"did you mean <{best}>?" if best else f"valid: {', '.join(allowed)}"
            warn_input(f"unknown element <{tag}>", hint=hint, source=source, field=path)
            continue
        counts[tag] = counts.get(tag, 0) + 1
        if parent.tag == "model":
            if counts[tag] > 1:
                raise EvoInputError(f"<{tag}> given more than once", source=source, field=path)
            yield child, tag
        else:
            yield child, f"{path}/{tag}[{counts[tag]}]"


def _read_document(root: ET.Element, source: str) -> _Document:
    if root.tag != "model":
        hint = "; a race file: evo race FILE runs it" if root.tag == "race" else ""
        raise EvoInputError(
            f"expected a <model> element, got <{root.tag}>{hint}", source=source, field="(root)"
        )
    return document_of(root, source)


def document_of(root: ET.Element, source: str, where: str = "", *, physics: bool = True) -> _Document:
    """What the ``<model>`` element ``root`` says. ``where`` prefixes the element paths of messages
    (``contenders/contender[2]/model/`` inside a race file); ``physics=False`` reads only the nodes, links
    and polygons (a race's terrain model, whose world values are not used)."""
    model = f"{where}model" if where else "model"
    _Checker(root, model, source)  # warns of attributes
    sections = {tag: _Checker(child, where + tag, source) for child, tag in _children(root, model, source)}
    doc = _Document()
    if physics:
        _read_settings(sections, doc)
    for tag in ("name", "comment") if not physics else ():
        if tag in sections:
            setattr(doc, tag, sections[tag].element.text or "")
    if "nodes" in sections:
        _read_nodes(sections["nodes"].element, doc, source, sections["nodes"].path)
    if "links" in sections:
        _read_links(sections["links"].element, doc, source, sections["links"].path)
    if "polys" in sections:
        _read_polys(sections["polys"].element, doc, source, sections["polys"].path)
    return doc


def _read_settings(sections: dict[str, _Checker], doc: _Document) -> None:
    """Name, comment, world values and the wave."""
    for tag in ("name", "comment"):
        if tag in sections:
            setattr(doc, tag, sections[tag].element.text or "")
    for (tag, attr), (key, low, high, open_low, factor) in WORLD_NUMBERS.items():
        if tag in sections and attr in sections[tag].element.attrib:
            value = sections[tag].number(attr, low, high, open_low=open_low)
            doc.world[key] = factor * value if factor != 1.0 else value
    if "settings" in sections:
        settings = sections["settings"]
        if "gravitydirection" in settings.element.attrib:
            doc.world["gravity_direction"] = settings.choice("gravitydirection", "down")
        doc.wave["reverse"] = settings.choice("wavedirection", "forward") == "reverse"
        doc.wave["autoreverse"] = settings.choice("autoreverse", "off") == "on"
    if "wave" in sections:
        wave = sections["wave"]
        doc.wave["beta"] = wave.number("amplitude", 0.0, 1.0, default=0.0)
        doc.wave["phase"] = wave.number("phase", 0.0, 1.0, default=0.0)
        doc.wave["speed"] = wave.number("speed", 0.0, 1.0, default=0.0)
        doc.wave["omega"] = _exact(wave, "omega", wave_omega(doc.wave["speed"]), "speed", period=None)
        doc.wave["theta0"] = _exact(wave, "theta0", wave_phase(doc.wave["phase"]), "phase")


def _exact(
    c: _Checker, attr: str, decimal: float, decimal_attr: str, period: float | None = math.tau
) -> float:
    """evo's exact radians in ``attr`` (written where the decimal cycles cannot carry them bit for bit):
    they must agree with what ``decimal_attr`` says (mod ``period``) to 1e-9 rad; absent, ``decimal``."""
    if attr not in c.element.attrib:
        return decimal
    value = c.number(attr)
    gap = abs(value - decimal) if period is None else abs((value - decimal + math.pi) % period - math.pi)
    if not gap <= 1e-9:
        raise c.fail(attr, f"{value!r} rad disagrees with {decimal_attr} (which says {decimal!r} rad)")
    return value


def _read_nodes(parent: ET.Element, doc: _Document, source: str, path: str = "nodes") -> None:
    for element, where in _children(parent, path, source):
        c = _Checker(element, where, source)
        node_id = c.text("id")
        if node_id in doc.nodes:
            raise c.fail("id", f"duplicate id {node_id!r} (first used by {doc.nodes[node_id].where})")
        x, y = c.number("x"), c.number("y")
        vx, vy = 0.0, 0.0
        if element.tag == "mass":
            vx, vy = c.number("vx", default=0.0), c.number("vy", default=0.0)
        doc.nodes[node_id] = _Node(element.tag, x, y, vx, vy, where)


def _read_links(parent: ET.Element, doc: _Document, source: str, path: str = "links") -> None:
    for element, where in _children(parent, path, source):
        c = _Checker(element, where, source)
        a, b = _node_ref(c, doc, "a"), _node_ref(c, doc, "b")
        if a == b:
            raise c.fail(None, f"a and b are the same node {a!r}; self-links are not allowed")
        if element.tag == "fixedbar":
            for end, node_id in (("a", a), ("b", b)):
                if doc.nodes[node_id].kind != "node":
                    raise c.fail(end, f"{node_id!r} is a free <mass>; fixed bars join fixed <node>s")
            doc.links.append(_Link("fixedbar", a, b, 0.0, 0.0, 0.0, 0.0))
            continue
        rest = c.number("restlength", 0.0)
        muscle = element.tag == "muscle"
        amplitude = c.number("amplitude", 0.0, 1.0) if muscle else 0.0
        phase = c.number("phase", 0.0, 1.0) if muscle else 0.0
        phi = _exact(c, "phi", muscle_phase(phase), "phase") if muscle else 0.0
        doc.links.append(_Link(element.tag, a, b, rest, amplitude, phase, phi))


def _read_polys(parent: ET.Element, doc: _Document, source: str, path: str = "polys") -> None:
    """``<poly color points curvy>`` (classic: ids joined by commas) or ``<poly nodes>`` (ids by spaces)."""
    for element, where in _children(parent, path, source):
        c = _Checker(element, where, source)
        given = [attr for attr in ("points", "nodes") if attr in element.attrib]
        if len(given) != 1:
            raise c.fail("points", "missing attribute" if not given else "give points or nodes, not both")
        ids = [i for i in _ID_LIST.split(element.attrib[given[0]].strip()) if i]
        for node_id in ids:
            if node_id not in doc.nodes:
                raise c.fail(given[0], f"unknown node id {node_id!r}")
        color = element.attrib.get("color")
        if color is not None and not is_color(color):
            raise c.fail("color", f"expected a colour #rrggbb or #rgb, got {shown(color)}")
        doc.polys.append(_Poly(ids, color, c.choice("curvy", "0") in ("1", "true")))


def _node_ref(c: _Checker, doc: _Document, end: str) -> str:
    node_id = c.text(end)
    if node_id not in doc.nodes:
        raise c.fail(end, f"unknown node id {node_id!r}")
    return node_id


def terrain_of(doc: _Document) -> tuple[Polyline, ...]:
    """Chain the fixed bars, in file order, into polylines: a bar that continues from the previous
    bar's last node extends that polyline, otherwise it starts a new one."""
    lines: list[list[str]] = []
    for bar in doc.links:
        if bar.kind != "fixedbar":
            continue
        if lines and lines[-1][-1] == bar.a:
            lines[-1].append(bar.b)
        elif lines and lines[-1][-1] == bar.b:
            lines[-1].append(bar.a)
        else:
            lines.append([bar.a, bar.b])
    return tuple(tuple((doc.nodes[i].x, doc.nodes[i].y) for i in line) for line in lines)


class TerrainFile(EvoInputError):
    """A Soda XML file of fixed bars only: terrain, not a creature. ``terrain`` holds its polylines (px)."""

    def __init__(self, terrain: tuple[Polyline, ...], *, source: str):
        super().__init__(
            "the model has no masses: a terrain file (fixed bars only), not a creature; use it as "
            f'[world] terrain = "{source}" in a config or a model\'s world, or --set terrain={source}',
            source=source,
        )
        self.terrain = terrain


def read_soda_xml(path: str | Path, *, strict: bool = False) -> Creature:
    """Read a Sodaconstructor XML model into a creature (world settings go into ``creature.world``).

    An element or attribute the dialect does not have is skipped with an
    :class:`~evo.errors.EvoInputWarning`; ``strict`` makes it an :class:`~evo.errors.EvoInputError`.
    """
    if strict:
        with input_warnings_as_errors():
            return read_soda_xml(path)
    path = Path(path)
    source = str(path)
    return creature_of(_read_document(parse_xml_file(path, source), source), source, path.stem)


def loads_soda_xml(data: str | bytes, *, source: str, name: str = "creature") -> Creature:
    """A creature from a Sodaconstructor XML file's bytes (decoded as its declaration says) or text (already
    decoded: its declared encoding is ignored), as :func:`read_soda_xml` reads one.

    Args:
        data: the file's bytes or text.
        source: what names the file in errors (an uploaded file's name).
        name: the creature's name when the file has no ``<name>``.

    Raises:
        EvoInputError: not well-formed XML, or not a valid model.
    """
    if isinstance(data, str):
        data = _DECLARED_ENCODING.sub(r"\1UTF-8\2", data, count=1).encode("utf-8")
    return creature_of(_read_document(parse_xml_bytes(data, source), source), source, name)


def creature_of(doc: _Document, source: str, default_name: str, where: str = "") -> Creature:
    """The creature (and its world, terrain included) that a read ``<model>`` describes; ``where`` names
    the model in messages (a race's contender)."""
    links = [link for link in doc.links if link.kind != "fixedbar"]
    used = {i for link in links for i in (link.a, link.b)}
    used.update(i for poly in doc.polys for i in poly.ids)
    on_bars = {i for bar in doc.links if bar.kind == "fixedbar" for i in (bar.a, bar.b)}
    ids = [i for i, node in doc.nodes.items() if node.kind == "mass" or i in used or i not in on_bars]
    if not ids:
        terrain = terrain_of(doc)
        if terrain and not where:  # a file of fixed bars only: a terrain, and how to use it
            raise TerrainFile(terrain, source=source)
        raise EvoInputError(
            "the model has no masses (a file of fixed bars only is terrain)",
            source=source,
            field=where or None,
        )
    index = {node_id: k for k, node_id in enumerate(ids)}
    nodes = [doc.nodes[i] for i in ids]
    world = dict(doc.world)
    terrain = terrain_of(doc)
    if terrain:
        world["terrain"] = [[list(p) for p in line] for line in terrain]
    World().updated(world, source=source, where=f"{where}world" if where else "world")  # a formality
    comment = {} if doc.comment is None else {"comment": doc.comment}
    return Creature(
        positions=np.array([(n.x, n.y) for n in nodes], dtype=float),
        velocities=np.array([(n.vx, n.vy) for n in nodes], dtype=float),
        fixed=np.array([n.kind == "node" for n in nodes], dtype=bool),
        link_a=np.array([index[link.a] for link in links], dtype=np.int64),
        link_b=np.array([index[link.b] for link in links], dtype=np.int64),
        rest=np.array([link.rest for link in links], dtype=float),
        alpha=np.array([link.amplitude for link in links], dtype=float),
        phi=np.array([k.phi for k in links], dtype=float),
        omega=doc.wave.get("omega", 0.0),
        beta=doc.wave.get("beta", 0.0),
        wave_phase=doc.wave.get("theta0", 0.0),
        wave_reverse=doc.wave.get("reverse", False),
        autoreverse=doc.wave.get("autoreverse", False),
        name=default_name if doc.name is None else doc.name,
        world=world,
        meta=comment,
        polys=tuple(Polygon([index[i] for i in poly.ids], poly.color, poly.curvy) for poly in doc.polys),
    )


def read_terrain(
    path: str | Path, *, source: str | None = None, field: str | None = None
) -> tuple[Polyline, ...]:
    """Terrain polylines ((x, y) px pairs) from the fixed nodes and fixed bars of a Soda XML file.

    A relative ``path`` is taken relative to the directory of ``source`` when that is a file, else to the
    current directory. Errors name ``source`` and ``field`` first, then the terrain file and element.
    """
    target = _terrain_target(path, source)
    try:
        doc = _read_document(parse_xml_file(target, str(target)), str(target))
    except EvoInputError as exc:
        raise EvoInputError(f"terrain file {exc}", source=source, field=field) from None
    terrain = terrain_of(doc)
    if not terrain:
        raise EvoInputError(f"terrain file {target} has no <fixedbar> links", source=source, field=field)
    return terrain


def _terrain_target(path: str | Path, source: str | None) -> Path:
    """A terrain path relative to the folder of ``source`` when that is a file, else to the cwd."""
    target = Path(path).expanduser()
    if not target.is_absolute() and source and Path(source).is_file():
        target = Path(source).parent / target
    return target


def loads_terrain(data: str | bytes, *, source: str) -> tuple[Polyline, ...]:
    """Terrain polylines from a Soda XML file's bytes or decoded text, as :func:`read_terrain` reads a file.

    Raises:
        EvoInputError: not a Soda XML file, or one without ``<fixedbar>`` links (naming ``source``).
    """
    if isinstance(data, str):
        data = _DECLARED_ENCODING.sub(r"\1UTF-8\2", data, count=1).encode("utf-8")
    terrain = terrain_of(_read_document(parse_xml_bytes(data, source), source))
    if not terrain:
        raise EvoInputError("a terrain file needs <fixedbar> links; this one has none", source=source)
    return terrain


def with_terrain_read(mapping: Mapping[str, Any], *, source: str | None, where: str) -> Mapping[str, Any]:
    """``mapping`` with a ``terrain`` that names a Soda XML file replaced by the file's polylines, and
    the file's absolute path kept beside them as ``terrain_file`` (a label: docs/config.md).

    A relative path is relative to the folder of ``source`` when that is a file, else to the working
    directory. Raises :class:`~evo.errors.EvoInputError` naming ``source`` and the field.
    """
    if not isinstance(mapping, Mapping) or not isinstance(mapping.get("terrain"), str):
        return mapping
    field = field_label(where, "terrain")
    terrain = read_terrain(mapping["terrain"], source=source, field=field)
    polylines = [[list(point) for point in line] for line in terrain]
    named = os.path.abspath(_terrain_target(mapping["terrain"], source))
    return {**mapping, "terrain": polylines, "terrain_file": named}


# --------------------------------------------------------------------------------------------- writing
def _num(value: float) -> str:
    """Shortest text that reads back as exactly the same float."""
    return repr(float(value))


def _xml_text(value: str, field_name: str) -> str:
    if _NOT_XML_CHAR.search(value):
        raise EvoInputError("contains characters XML cannot hold", field=field_name)
    return value


def _world_attributes(world: World) -> dict[str, dict[str, str]]:
    """World values by (element, attribute), checked against the ranges the XML dialect allows."""
    out: dict[str, dict[str, str]] = {}
    for (tag, attr), (key, low, high, open_low, factor) in WORLD_NUMBERS.items():
        value = getattr(world, key)
        if value is None:
            continue
        in_file = factor * value if factor != 1.0 else value
        if (in_file <= low if open_low else in_file < low) or in_file > high:
            bounds = f"{'(' if open_low else '['}{low:g}, {high:g}]"
            raise EvoInputError(
                f"{value!r} cannot be written to Soda XML ({tag}@{attr} must lie in {bounds})",
                field=f"world.{key}",
            )
        out.setdefault(tag, {})[attr] = _num(in_file)
    return out


def model_element(creature: Creature, *, source: str | None = None) -> ET.Element:
    """The ``<model>`` element of a creature in the Sodaconstructor dialect.

    World values the creature's ``world`` lacks are written at their World() defaults. What the dialect
    cannot hold is dropped: ``meta`` (except a string ``meta["comment"]``), the world keys other than
    those of the mapping (``dt``, ``integrator``, ``max_speed``, ``contact``, ``ground``, ...), per-link
    stiffness and dashpots, per-mass masses, and the velocities of fixed masses. ``source`` is the file
    the creature came from: a relative terrain path in its world is resolved against that file's
    directory (else the cwd).
    Values outside the dialect's ranges raise :class:`EvoInputError` naming the field.
    """
    for where, expected in creature.structural_errors()[:1]:
        raise EvoInputError(f"expected {expected}", source=source, field=where)
    world = World().updated(
        with_terrain_read(creature.world, source=source, where="world"), source=source, where="world"
    )
    if creature.omega / math.tau > 1.0:
        raise EvoInputError(
            f"{creature.omega!r} rad/frame is above Soda XML's 1 cycle/frame", field="wave.omega"
        )
    root = ET.Element("model")
    ET.SubElement(root, "name").text = _xml_text(creature.name, "name")
    comment = creature.meta.get("comment")
    if isinstance(comment, str):
        ET.SubElement(root, "comment").text = _xml_text(comment, "meta.comment")
    attributes = _world_attributes(world)
    for tag in ("container", "environment", "collisions"):
        if tag in attributes:
            ET.SubElement(root, tag, attributes[tag])
    wave = {
        "amplitude": _num(creature.beta),
        "phase": file_wave_phase(creature.wave_phase),
        "speed": file_speed(creature.omega),
    }
    # where no decimal carries a value in one cycle bit for bit, evo's radians go beside it (outside one
    # cycle, a phase is wrapped into it: the same angle)
    if wave_omega(float(wave["speed"])) != creature.omega:
        wave["omega"] = _num(creature.omega)
    if 0.0 <= creature.wave_phase <= math.tau and wave_phase(float(wave["phase"])) != creature.wave_phase:
        wave["theta0"] = _num(creature.wave_phase)
    ET.SubElement(root, "wave", wave)
    settings = {
        "gravitydirection": world.gravity_direction,
        "wavedirection": "reverse" if creature.wave_reverse else "forward",
        "autoreverse": "on" if creature.autoreverse else "off",
    }
    ET.SubElement(root, "settings", settings)
    _add_nodes_and_links(root, creature, world.terrain)
    if creature.polys:
        polys = ET.SubElement(root, "polys")
        for poly in creature.polys:
            shape = {} if poly.color is None else {"color": poly.color}
            shape["points"] = ",".join(f"m{i}" for i in poly.masses)
            if poly.curvy:
                shape["curvy"] = "1"
            ET.SubElement(polys, "poly", shape)
    return root


def dumps_soda_xml(creature: Creature, *, source: str | None = None) -> str:
    """The Sodaconstructor XML text of a creature (UTF-8, with an XML declaration): what
    :func:`model_element` says, indented. Raises :class:`EvoInputError` as that does."""
    return xml_text(model_element(creature, source=source))


def terrain_element(terrain: tuple[Polyline, ...], name: str = "terrain") -> ET.Element:
    """A ``<model>`` of fixed nodes (``t<polyline>.<point>``) joined by fixed bars: terrain only."""
    root = ET.Element("model")
    ET.SubElement(root, "name").text = _xml_text(name, "terrain name")
    nodes, links = ET.SubElement(root, "nodes"), ET.SubElement(root, "links")
    for j, line in enumerate(terrain):
        for k, (x, y) in enumerate(line):
            ET.SubElement(nodes, "node", {"id": f"t{j}.{k}", "x": _num(x), "y": _num(y)})
        for k in range(len(line) - 1):
            ET.SubElement(links, "fixedbar", {"a": f"t{j}.{k}", "b": f"t{j}.{k + 1}"})
    return root


def xml_text(root: ET.Element) -> str:
    """An element as a whole XML document (declaration, two-space indents, final newline)."""
    ET.indent(root, space="  ")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _add_nodes_and_links(root: ET.Element, creature: Creature, terrain: tuple[Polyline, ...]) -> None:
    """Masses as ``m<index>``, terrain points as ``t<polyline>.<point>``; links, then the fixed bars."""
    nodes = ET.SubElement(root, "nodes")
    for i in range(creature.n_masses):
        (x, y), (vx, vy) = creature.positions[i], creature.velocities[i]
        if creature.fixed[i]:
            ET.SubElement(nodes, "node", {"id": f"m{i}", "x": _num(x), "y": _num(y)})
        else:
            mass = {"id": f"m{i}", "x": _num(x), "y": _num(y), "vx": _num(vx), "vy": _num(vy)}
            ET.SubElement(nodes, "mass", mass)
    for j, line in enumerate(terrain):
        for k, (x, y) in enumerate(line):
            ET.SubElement(nodes, "node", {"id": f"t{j}.{k}", "x": _num(x), "y": _num(y)})
    links = ET.SubElement(root, "links")
    for k in range(creature.n_links):
        link = {
            "a": f"m{creature.link_a[k]}",
            "b": f"m{creature.link_b[k]}",
            "restlength": _num(creature.rest[k]),
        }
        if creature.alpha[k] != 0.0 or creature.phi[k] != 0.0:
            link.update(amplitude=_num(creature.alpha[k]), phase=file_muscle_phase(creature.phi[k]))
            phi = float(creature.phi[k])
            if 0.0 <= phi <= math.tau and muscle_phase(float(link["phase"])) != phi:  # see the wave
                link["phi"] = _num(phi)
            ET.SubElement(links, "muscle", link)
        else:
            ET.SubElement(links, "spring", link)
    for j, line in enumerate(terrain):
        for k in range(len(line) - 1):
            ET.SubElement(links, "fixedbar", {"a": f"t{j}.{k}", "b": f"t{j}.{k + 1}"})
