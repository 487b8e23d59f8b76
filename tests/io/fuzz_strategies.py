"""Hypothesis strategies for structured-but-wrong input: valid documents (models, Soda XML, configs) with a
few values replaced by wrong ones (wrong types, NaN and inf, huge and negative numbers, unicode, deep
nesting), keys removed or added, and their text duplicated, truncated, nested or re-encoded.

The oracle of every fuzz test is :func:`loads_or_refuses`: the call returns, or raises evo's one-line
input error; never another exception, and never a file written beside the input.
"""

from __future__ import annotations

import copy
import json
import math
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from evo.errors import EvoInputError

# every fuzz test runs this many examples, derandomized: the same inputs on every run of the suite
FUZZ = settings(
    max_examples=200,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)
LONGEST_MESSAGE = 600  # characters after the file's name: a message names the problem, it does not dump it

WRONG_SCALARS = st.one_of(
    st.sampled_from(
        [
            0,
            -1,
            1,
            -0.0,
            0.5,
            1e308,
            -1e308,
            1e-320,
            10**400,
            -(10**400),
            2**63,
            2**64,
            True,
            False,
            None,
            math.nan,
            math.inf,
            -math.inf,
            "",
            "nan",
            "1e999",
            "\u00e9t\u00e9",
            "\U0001f600",
            "a\nb",
            "\x00",
            "x" * 2000,
            "../../etc/passwd",
            "/dev/zero",
        ]
    ),  # fmt: skip
    st.floats(),
    st.integers(),
    st.text(max_size=8),
)
EDGE_NUMBERS = st.sampled_from(
    [0, -1, -0.0, 1e-320, 1e-300, 1e300, 1e308, -1e308, 10**400, 2**63, math.nan, math.inf, -math.inf, True]
)
WRONG = st.recursive(
    WRONG_SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=6,
)


def loads_or_refuses(call: Callable[[], Any], folder: Path) -> Any:
    """``call()``'s result, or None when it raised :class:`EvoInputError` with a one-line message of
    reasonable length; anything else fails the test, and so does a new file in ``folder``."""
    before = sorted(os.listdir(folder))
    try:
        return call()
    except EvoInputError as exc:
        message = str(exc)
        assert "\n" not in message and "\r" not in message, message
        assert len(message) <= LONGEST_MESSAGE + len(str(folder)) + 40, message
        return None
    finally:
        assert sorted(os.listdir(folder)) == before, "a file was written"


# -- mutations of a valid document -------------------------------------------------------------------
def _paths(doc: Any, prefix: tuple = ()) -> list[tuple]:
    out = [prefix]
    if isinstance(doc, dict):
        for key, value in doc.items():
            out += _paths(value, (*prefix, key))
    elif isinstance(doc, list):
        for index, value in enumerate(doc):
            out += _paths(value, (*prefix, index))
    return out


@st.composite
def mutated(draw: st.DrawFn, valid: st.SearchStrategy, extra_keys: tuple[str, ...] = ("bogus",)) -> Any:
    """A document of ``valid`` with one to three values replaced, removed, added or repeated."""
    doc = copy.deepcopy(draw(valid))
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(_paths(doc)))
        if not path:
            return draw(WRONG)
        parent = doc
        for step in path[:-1]:
            parent = parent[step]
        key = path[-1]
        how = draw(st.sampled_from(["replace", "replace", "remove", "add", "repeat", "edge", "edge"]))
        number = isinstance(parent[key], int | float) and not isinstance(parent[key], bool)
        if how == "edge" and number:  # a number at the edge of what a float holds, or past it
            parent[key] = draw(EDGE_NUMBERS)
        elif how in ("replace", "edge"):
            parent[key] = draw(WRONG)
        elif how == "remove":
            del parent[key]
        elif how == "add" and isinstance(parent, dict):
            parent[draw(st.sampled_from(extra_keys) | st.text(max_size=6))] = draw(WRONG)
        elif how == "repeat" and isinstance(parent, list):
            parent.append(copy.deepcopy(parent[key]))
    return doc


@st.composite
def damaged(draw: st.DrawFn, text: str, declaration: str = "") -> bytes:
    """``text`` as bytes, mostly as it is; else truncated, with junk bytes in it, with a byte-order mark,
    in UTF-16 (with ``declaration`` in front, e.g. an XML declaration saying so) or in Latin-1."""
    how = draw(st.sampled_from(["utf-8"] * 6 + ["truncated", "junk", "bom", "utf-16", "latin-1"]))
    data = text.encode("utf-8", "surrogatepass")
    if how == "truncated":
        return data[: draw(st.integers(0, len(data)))]
    if how == "junk":
        at = draw(st.integers(0, len(data)))
        return data[:at] + draw(st.binary(min_size=1, max_size=6)) + data[at:]
    if how == "bom":
        return b"\xef\xbb\xbf" + data
    if how == "utf-16":
        return (declaration + text).encode("utf-16", "surrogatepass")
    if how == "latin-1":
        return (text + "\u00e9").encode("latin-1", "replace")
    return data


def deep(depth: int, kind: str) -> str:
    """JSON (or TOML) text nested ``depth`` deep: lists, or objects (``kind``: ``json``, ``toml``)."""
    if kind == "toml":
        return "x = " + "[" * depth + "]" * depth + "\n"
    return '{"meta": ' + '{"a": ' * depth + "1" + "}" * depth + "}"


# -- models --------------------------------------------------------------------------------------------
@st.composite
def valid_models(draw: st.DrawFn) -> dict[str, Any]:
    """An evo-model document using every optional key."""
    n = draw(st.integers(2, 4))
    masses = [{"x": draw(st.floats(-100, 100)), "y": draw(st.floats(0, 100))} for _ in range(n)]
    masses[0].update(vx=0.5, vy=-0.5, mass=2.0)
    masses[-1]["fixed"] = True
    links = [
        {"a": k, "b": k + 1, "rest": draw(st.floats(0, 100)), "alpha": 0.5, "phi": 1.0, "stiffness": 1.5,
         "dashpot": 0.1}
        for k in range(n - 1)
    ]  # fmt: skip
    return {
        "format": "evo-model",
        "version": 1,
        "name": draw(st.text(max_size=6)),
        "masses": masses,
        "links": links,
        "wave": {"omega": 0.1, "beta": 0.5, "phase": 0.2, "direction": "reverse", "autoreverse": True},
        "world": {
            "gravity": 0.3,
            "width": 500.0,
            "max_speed": 50.0,
            "integrator": "rk4",
            "psm_order": 4,
            "terrain": [[[0, 0], [100, 10]]],
            "ground": {"type": "hills", "amplitude": 5.0, "wavelength": 200.0},
        },  # fmt: skip
        "meta": {"k": [1, 2]},
        "polys": [[0, 1]],
    }


@st.composite
def model_texts(draw: st.DrawFn) -> bytes:
    """The bytes of a model file: a mutated document, or one with a repeated key, nested too deeply or
    damaged."""
    doc = draw(mutated(valid_models(), extra_keys=("bogus", "rset", "mases", "speed")))
    text = json.dumps(doc, allow_nan=True)
    form = draw(st.sampled_from(["plain"] * 5 + ["repeated key", "deep"]))
    if form == "repeated key" and text.startswith("{") and len(text) > 2:
        text = '{"format": "evo-model", ' + text[1:]
    elif form == "deep":
        text = deep(draw(st.sampled_from([10, 1000, 100_000])), "json")
    return draw(damaged(text))


# -- Sodaconstructor XML ---------------------------------------------------------------------------------
XML_TAGS = ("name", "comment", "container", "environment", "collisions", "wave", "settings", "nodes", "links",
            "polys", "mass", "node", "spring", "muscle", "fixedbar", "poly", "bogus", "model")  # fmt: skip
XML_ATTRIBUTES = ("width", "height", "gravity", "friction", "springyness", "surface_friction",
                  "surface_reflection", "amplitude", "phase", "speed", "gravitydirection",
                  "wavedirection", "autoreverse", "id", "x", "y", "vx", "vy", "a", "b", "restlength",
                  "nodes", "bogus")  # fmt: skip
XML_VALUES = st.sampled_from(
    ["", "nan", "inf", "-inf", "1e999", "-1", "0", "1", "0.5", "2", "1e308", "abc", "1,5", " 3 ", "+.5", "on",
     "off", "down", "m0", "m1", "n9", "\u00e9", "\U0001f600", "1" * 400, "0x10", "1e-400", "1&#10;2"]
) | st.text(max_size=6)  # fmt: skip


@st.composite
def xml_texts(draw: st.DrawFn) -> bytes:
    """The bytes of a Soda XML file: a valid model with attributes changed, removed or added, elements
    renamed or repeated, and a DOCTYPE, an entity, deep nesting or another encoding."""
    n = draw(st.integers(1, 3))

    def attributes(values: dict[str, str]) -> str:
        values = dict(values)
        for _ in range(draw(st.integers(0, 2)) if draw(st.integers(0, 3)) == 0 else 0):
            how = draw(st.sampled_from(["set", "remove", "add"]))
            if how == "set" and values:
                values[draw(st.sampled_from(sorted(values)))] = draw(XML_VALUES)
            elif how == "remove" and values:
                del values[draw(st.sampled_from(sorted(values)))]
            else:
                values[draw(st.sampled_from(XML_ATTRIBUTES))] = draw(XML_VALUES)
        return "".join(f" {k}={quoteattr(v)}" for k, v in values.items()).replace("&amp;#10;", "&#10;")

    def tag(name: str) -> str:
        return draw(st.sampled_from(XML_TAGS)) if draw(st.integers(0, 20)) == 0 else name

    def element(name: str, values: dict[str, str], body: str | None = None) -> str:
        name = tag(name)
        return (
            f"<{name}{attributes(values)}/>"
            if body is None
            else f"<{name}{attributes(values)}>{body}</{name}>"
        )

    nodes = "".join(
        element(
            draw(st.sampled_from(["mass", "mass", "node"])), {"id": f"m{i}", "x": str(10.0 * i), "y": "5"}
        )
        for i in range(n)
    )
    links = "".join(
        element(draw(st.sampled_from(["spring", "muscle"])),
                {"a": f"m{i}", "b": f"m{i + 1}", "restlength": "10", "amplitude": "0.5", "phase": "0.25"})
        for i in range(n - 1)
    )  # fmt: skip
    parts = [
        element("name", {}, escape(draw(st.text(max_size=5)))),
        element("container", {"width": "600", "height": "400"}),
        element("environment", {"gravity": "0.3", "friction": "0.04", "springyness": "0.3"}),
        element("collisions", {"surface_friction": "0.5", "surface_reflection": "-0.2"}),
        element("wave", {"amplitude": "0.8", "phase": "0", "speed": "0.02"}),
        element("settings", {"gravitydirection": "down", "wavedirection": "forward", "autoreverse": "off"}),
        element("nodes", {}, nodes),
        element("links", {}, links),
        element("polys", {}, element("poly", {"nodes": " ".join(f"m{i}" for i in range(n))})),
    ]
    parts = [p for p in parts if draw(st.integers(0, 8))]
    if parts and draw(st.integers(0, 10)) == 0:
        parts.append(parts[0])
    text = "<model>" + "".join(parts) + "</model>"
    form = draw(
        st.sampled_from(["plain"] * 6 + ["declaration", "doctype", "entity", "deep", "root attribute"])
    )
    if form == "declaration":
        text = (
            '<?xml version="1.0" encoding="'
            + draw(st.sampled_from(["UTF-8", "bogus", "Shift_JIS", "UTF-32"]))
            + '"?>'
            + text
        )
    elif form == "doctype":
        text = "<!DOCTYPE model [ <!ELEMENT model ANY> ]>" + text
    elif form == "entity":
        text = '<!DOCTYPE model [ <!ENTITY a "aaaaaaaa"> ]><model><name>&a;</name></model>'
    elif form == "deep":
        depth = draw(st.sampled_from([10, 100_000]))
        text = "<model><comment>" + "<b>" * depth + "</b>" * depth + "</comment></model>"
    elif form == "root attribute":
        text = text.replace("<model>", '<model version="2">', 1)
    return draw(damaged(text, declaration='<?xml version="1.0" encoding="UTF-16"?>'))


# -- TOML ------------------------------------------------------------------------------------------------
def toml_value(value: Any) -> str:
    """A TOML value for what the strategies make (NaN and inf too, which TOML spells nan and inf)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return (
            "nan"
            if math.isnan(value)
            else ("inf" if value > 0 else "-inf")
            if math.isinf(value)
            else repr(value)
        )
    if isinstance(value, list | tuple):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(str(k))} = {toml_value(v)}" for k, v in value.items()) + "}"
    return json.dumps("" if value is None else str(value))  # JSON's escapes are TOML's


def toml_text(doc: Any) -> str:
    """A config document as TOML: top-level tables as [table], their ``params`` as [table.params]."""
    if not isinstance(doc, dict):
        return f"run = {toml_value(doc)}\n"
    head, lines = [], []
    for table, body in doc.items():
        name = json.dumps(str(table))
        if not isinstance(body, dict):
            head.append(f"{name} = {toml_value(body)}")
            continue
        lines.append(f"[{name}]")
        nested = [(k, v) for k, v in body.items() if k == "params" and isinstance(v, dict)]
        lines += [f"{json.dumps(str(k))} = {toml_value(v)}" for k, v in body.items() if (k, v) not in nested]
        for key, values in nested:
            lines.append(f"[{name}.{json.dumps(key)}]")
            lines += [f"{json.dumps(str(k))} = {toml_value(v)}" for k, v in values.items()]
    return "\n".join(head + lines) + "\n"


VALID_CONFIGS = st.fixed_dictionaries(
    {
        "run": st.fixed_dictionaries(
            {"name": st.just("fuzz"), "seed": st.integers(0, 9), "generations": st.integers(1, 5),
             "population": st.integers(2, 20)}
        ),
        "evaluation": st.fixed_dictionaries(
            {"frames": st.sampled_from([100, 300]), "plugin": st.sampled_from(["distance", "race", "climb"]),
             "timeout": st.floats(0, 100), "on_timeout": st.sampled_from(["stop", "worst"]),
             "params": st.fixed_dictionaries({}, optional={"settle_frames": st.integers(0, 100)})}
        ),
        "world": st.fixed_dictionaries(
            {"gravity": st.floats(0, 1), "max_speed": st.floats(1, 100), "dt": st.sampled_from([1.0, 0.5]),
             "ground": st.just({"type": "slope", "angle": 0.1}), "terrain": st.just([[0, 0], [10, 1]])}
        ),
        "genome": st.fixed_dictionaries(
            {"masses": st.just([3, 6]), "box": st.just([100.0, 50.0]), "max_links": st.integers(5, 50),
             "omega_init": st.sampled_from(["random", "resonant"])}
        ),
        "ga": st.fixed_dictionaries({"tournament_size": st.integers(1, 5), "elite": st.integers(0, 1)}),
        "pool": st.fixed_dictionaries({"workers": st.integers(1, 4), "chunksize": st.integers(1, 5)}),
    }
)  # fmt: skip


@st.composite
def config_texts(draw: st.DrawFn) -> bytes:
    """The bytes of a run config: mutated, with a table or a key given twice, nested too deeply, or
    damaged."""
    doc = draw(mutated(VALID_CONFIGS, extra_keys=("populaton", "bogus", "wrold", "seed", "a\nb")))
    text = toml_text(doc)
    form = draw(st.sampled_from(["plain"] * 5 + ["table twice", "key twice", "deep"]))
    if form == "table twice":
        text += '["run"]\nseed = 2\n'
    elif form == "key twice":
        text = text.replace('["run"]\n', '["run"]\nseed = 1\nseed = 2\n', 1)
    elif form == "deep":
        text = deep(draw(st.sampled_from([10, 100_000])), "toml")
    return draw(damaged(text))


# -- --set values ----------------------------------------------------------------------------------------
WORLD_KEYS = ("gravity", "gravity_direction", "damping", "stiffness", "restitution_normal",
              "restitution_tangential", "dt", "integrator", "width", "height", "terrain", "max_speed",
              "contact",
              "ground", "ground_stiffness", "ground_friction", "ground_slip_speed", "psm_order",
              "newton_iterations", "newton_tolerance", "gravity_cursor", "damping_cursor", "stiffness_cursor",
              "gravty", "", " gravity ", "a.b")  # fmt: skip
SET_VALUES = st.one_of(
    st.sampled_from(
        ["0", "1", "-1", "0.5", "2", "1e-300", "1e300", "1e999", "nan", "inf", "-inf", "1_000", "0x10",
         "true",
         '"x"', "x", "", "[]", "[[0, 0], [10, 1]]", "[[[0, 0], [10, 1]], [[5, 5], [6, 6]]]", "[[0, 0]]",
         '{type = "hills", amplitude = 20, wavelength = 400}', '{type = "steps", height = 5, width = 10}',
         '{type = "slope", angle = 1.6}', '{type = "hills", amplitude = 1e300, wavelength = 1e-300}',
         "[" * 300 + "]" * 300, "{a = " * 300 + "1" + "}" * 300, "rk4", "psm", "backward-euler", "midpoint",
         "penalty", "up", "off", "missing.xml", "/dev/null", "10" * 200, "\u00e9", "107", "108", "0.25",
         "[[0, 0], [1e300, 1e300]]", "[[0, 0], [0, 0]]"]
    ),
    st.text(max_size=8),
    st.floats().map(repr),
    st.integers().map(str),
)  # fmt: skip
SET_ITEMS = st.builds(lambda key, value: f"{key}={value}", st.sampled_from(WORLD_KEYS), SET_VALUES) | st.text(
    max_size=10
)
