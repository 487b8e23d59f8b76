"""Sodaconstructor XML: reading, writing, the JSON -> XML -> JSON round trip, terrain files, evo convert."""

import json
import math
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evo.cli import main
from evo.errors import EvoInputError, EvoInputWarning
from evo.io.models import creature_from_dict, creature_to_dict, load_model, save_model
from evo.io.soda_xml import dumps_soda_xml, read_soda_xml, read_terrain
from evo.io.worlds import world_from
from evo.model import Creature, Polygon
from evo.sim.simulate import simulate
from evo.sim.world import World

GENOMES = Path(__file__).resolve().parents[2] / "genomes"

SWING = """
<model>
  <name>swing</name>
  <comment>a hand-written test model</comment>
  <container width="800" height="600"/>
  <environment gravity="0.3" friction="0.05" springyness="0.25"/>
  <collisions surface_friction="0.2" surface_reflection="-0.5"/>
  <wave amplitude="0.5" phase="0.25" speed="0.01"/>
  <settings gravitydirection="up" wavedirection="reverse" autoreverse="on"/>
  <nodes>
    <node id="hook" x="100" y="300"/>
    <mass id="a" x="100" y="200" vx="1.5" vy="-0.25"/>
    <mass id="b" x="150.5" y="2e2"/>
    <node id="g0" x="0" y="10"/>
    <node id="g1" x="400" y="30"/>
    <node id="g2" x="800" y="10"/>
    <node id="spare" x="5" y="5"/>
  </nodes>
  <links>
    <spring a="hook" b="a" restlength="100"/>
    <muscle a="a" b="b" restlength="50" amplitude="0.4" phase="0.5"/>
    <fixedbar a="g0" b="g1"/>
    <fixedbar a="g1" b="g2"/>
  </links>
  <polys><poly nodes="hook a b"/></polys>
</model>
"""

HEADERS = {
    "bare": "",
    "declaration": '<?xml version="1.0" encoding="UTF-8"?>\n',
    "declaration and DOCTYPE": '<?xml version="1.0"?>\n<!DOCTYPE model SYSTEM "http://example.invalid/soda.dtd">\n',
    "DOCTYPE with an internal subset": '<!DOCTYPE model [ <!ATTLIST mass id CDATA "]>"> ]>\n',
}


def write(tmp_path, text, name="model.xml"):
    """Write ``text`` (UTF-8) or bytes as they are."""
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("header", HEADERS.values(), ids=HEADERS.keys())
def test_a_hand_written_file_reads_with_or_without_declaration_and_doctype(tmp_path, header):
    creature = read_soda_xml(write(tmp_path, header + SWING))
    assert creature.name == "swing"
    assert creature.meta == {"comment": "a hand-written test model"}
    # fixed nodes a spring uses, and unused ones, are fixed masses; g0..g2 serve only the fixed bars
    np.testing.assert_array_equal(creature.positions, [[100, 300], [100, 200], [150.5, 200], [5, 5]])
    np.testing.assert_array_equal(creature.velocities, [[0, 0], [1.5, -0.25], [0, 0], [0, 0]])
    assert creature.fixed.tolist() == [True, False, False, True]
    assert (creature.link_a.tolist(), creature.link_b.tolist()) == ([0, 1], [1, 2])
    assert creature.rest.tolist() == [100.0, 50.0]
    assert creature.alpha.tolist() == [0.0, 0.4]
    assert creature.phi.tolist() == [0.0, 0.0]  # a spring; a muscle half a cycle behind: pi - 2 pi 0.5
    assert creature.beta == 0.5 and creature.wave_phase == math.pi / 2
    assert creature.omega == pytest.approx(2 * math.pi * 0.01, abs=1e-15)
    assert creature.wave_reverse and creature.autoreverse
    assert creature.polys == (Polygon((0, 1, 2)),)
    assert creature.world == {
        "width": 800.0, "height": 600.0, "gravity": 0.3, "damping": 0.05, "stiffness": 0.25,
        "restitution_tangential": 0.2, "restitution_normal": 0.5, "gravity_direction": "up",
        "terrain": [[[0.0, 10.0], [400.0, 30.0], [800.0, 10.0]]],
    }  # fmt: skip


def test_a_minimal_file_takes_its_name_from_the_file_and_leaves_the_world_to_the_defaults(tmp_path):
    text = '<model><nodes><mass id="0" x="1" y="2"/></nodes></model>'
    creature = read_soda_xml(write(tmp_path, text, "lonely.xml"))
    assert creature.name == "lonely" and creature.n_masses == 1 and creature.n_links == 0
    assert creature.world == {} and creature.omega == 0.0 and not creature.autoreverse


def test_a_fixed_node_used_by_a_spring_and_a_fixed_bar_is_both_a_fixed_mass_and_terrain(tmp_path):
    text = """<model><nodes>
      <node id="p" x="0" y="50"/><node id="q" x="100" y="50"/><node id="r" x="200" y="80"/>
      <node id="s" x="0" y="90"/>
      <mass id="m" x="100" y="150"/></nodes>
      <links><spring a="q" b="m" restlength="100"/>
        <fixedbar a="p" b="q"/><fixedbar a="r" b="q"/><fixedbar a="s" b="p"/></links></model>"""
    creature = read_soda_xml(write(tmp_path, text))
    assert creature.positions.tolist() == [[100.0, 50.0], [100.0, 150.0]]
    assert creature.fixed.tolist() == [True, False]
    # a bar continuing from the previous bar's end (either way round) extends its polyline
    assert creature.world["terrain"] == [
        [[0.0, 50.0], [100.0, 50.0], [200.0, 80.0]],
        [[0.0, 90.0], [0.0, 50.0]],
    ]


VALID = """<model>
  <container width="400" height="300"/>
  <environment gravity="0.5" friction="0.02" springyness="0.3"/>
  <collisions surface_friction="0.1" surface_reflection="-0.75"/>
  <wave amplitude="0.5" phase="0.1" speed="0.02"/>
  <settings gravitydirection="down" wavedirection="forward" autoreverse="off"/>
  <nodes><mass id="a" x="0" y="0"/><mass id="b" x="40" y="0"/><mass id="c" x="20" y="30"/>
    <node id="f" x="50" y="50"/><node id="g" x="90" y="50"/></nodes>
  <links><spring a="a" b="b" restlength="40"/><spring a="b" b="c" restlength="36"/>
    <muscle a="a" b="c" restlength="36" amplitude="0.5" phase="0.25"/>
    <muscle a="a" b="c" restlength="36" amplitude="0.5" phase="0.75"/><fixedbar a="f" b="g"/></links>
  <polys><poly nodes="a b c"/></polys>
</model>"""

BAD = [
    # (replace this, with this, and expect this in the one-line message)
    ('amplitude="0.5" phase="0.75"', 'amplitude="1.7" phase="0.75"',
     "links/muscle[2]@amplitude: expected a number in [0, 1], got 1.7"),
    ('phase="0.25"', 'phase="-0.1"', "links/muscle[1]@phase: expected a number in [0, 1], got -0.1"),
    ('b="c" restlength="36"/>', 'b="zz" restlength="36"/>', "links/spring[2]@b: unknown node id 'zz'"),
    ('a="a" b="b"', 'a="b" b="b"', "links/spring[1]: a and b are the same node 'b'; self-links"),
    ('<fixedbar a="f" b="g"/>', '<fixedbar a="g" b="g"/>', "links/fixedbar[1]: a and b are the same node"),
    ('<fixedbar a="f" b="g"/>', '<fixedbar a="f" b="a"/>', "links/fixedbar[1]@b: 'a' is a free <mass>"),
    ('restlength="40"', "", "links/spring[1]@restlength: missing attribute"),
    ('restlength="40"', 'restlength="-4"', "links/spring[1]@restlength: expected a number >= 0, got -4"),
    ('<mass id="a" x="0"', '<mass x="0"', "nodes/mass[1]@id: missing attribute"),
    ('<mass id="b" x="40"', '<mass id="b" x="forty"',
     "nodes/mass[2]@x: expected a finite number, got 'forty'"),
    ('<mass id="b" x="40"', '<mass id="b" x="nan"', "nodes/mass[2]@x: expected a finite number, got 'nan'"),
    ('<mass id="b" x="40"', '<mass id="b" x="1e400"',
     "nodes/mass[2]@x: expected a finite number, got '1e400'"),
    ('<mass id="b" x="40"', '<mass id="b" x="4_0"', "nodes/mass[2]@x: expected a finite number, got '4_0'"),
    ('phase="0.25"', 'phase="quarter"', "links/muscle[1]@phase: expected a number in [0, 1], got 'quarter'"),
    ('<mass id="b"', '<mass id="a"', "nodes/mass[2]@id: duplicate id 'a' (first used by nodes/mass[1])"),
    ('<node id="g"', '<node id="a"', "nodes/node[2]@id: duplicate id 'a'"),
    ('gravity="0.5"', 'gravity="5"', "environment@gravity: expected a number in [0, 4], got 5"),
    ('friction="0.02"', 'friction="1.2"', "environment@friction: expected a number in [0, 1], got 1.2"),
    ('springyness="0.3"', 'springyness="0.6"',
     "environment@springyness: expected a number in (0, 0.5], got 0.6"),
    ('springyness="0.3"', 'springyness="0"', "environment@springyness: expected a number in (0, 0.5], got 0"),
    ('surface_reflection="-0.75"', 'surface_reflection="0.5"',
     "collisions@surface_reflection: expected a number in [-1, 0], got 0.5"),
    ('surface_friction="0.1"', 'surface_friction="-0.1"',
     "collisions@surface_friction: expected a number in [0, 1], got -0.1"),
    ('speed="0.02"', 'speed="2"', "wave@speed: expected a number in [0, 1], got 2"),
    ('<wave amplitude="0.5"', '<wave amplitude="1.5"', "wave@amplitude: expected a number in [0, 1]"),
    ('phase="0.1"', 'phase="1.5"', "wave@phase: expected a number in [0, 1], got 1.5"),
    ('width="400"', 'width="0"', "container@width: expected a number > 0, got 0"),
    ('wavedirection="forward"', 'wavedirection="backwards"',
     "settings@wavedirection: expected one of forward, reverse, got 'backwards'"),
    ('autoreverse="off"', 'autoreverse="yes"', "settings@autoreverse: expected one of on, off, got 'yes'"),
    ('gravitydirection="down"', 'gravitydirection="left"',
     "settings@gravitydirection: expected one of down, up, off, got 'left'"),
    ("<polys>", '<wave speed="0"/><polys>', "model: <wave> given more than once"),
    ('<poly nodes="a b c"/>', '<poly nodes="a b q"/>', "polys/poly[1]@nodes: unknown node id 'q'"),
    ('<poly nodes="a b c"/>', '<poly points="a,b,q"/>', "polys/poly[1]@points: unknown node id 'q'"),
    ('<poly nodes="a b c"/>', '<poly color="#ff0000"/>', "polys/poly[1]@points: missing attribute"),
    ('<poly nodes="a b c"/>', '<poly points="a,b" nodes="a b"/>',
     "polys/poly[1]@points: give points or nodes"),
    ('<poly nodes="a b c"/>', '<poly points="a,b,c" color="red"/>',
     "polys/poly[1]@color: expected a colour #rrggbb or #rgb, got 'red'"),
    ('<poly nodes="a b c"/>', '<poly points="a,b,c" curvy="2"/>',
     "polys/poly[1]@curvy: expected one of 0, 1, false, true, got '2'"),
    ("<model>", "<creature>", "not well-formed XML: mismatched tag"),
]  # fmt: skip


@pytest.mark.parametrize("old, new, expected", BAD, ids=[b[2][:60] for b in BAD])
def test_a_bad_file_gives_one_line_naming_the_file_the_element_and_what_was_expected(
    tmp_path, old, new, expected
):
    assert old in VALID
    path = write(tmp_path, VALID.replace(old, new, 1))
    with pytest.raises(EvoInputError) as info:
        read_soda_xml(path)
    message = str(info.value)
    assert message.startswith(f"{path}: ")
    assert expected in message
    assert "\n" not in message


# -- what evo does not know: one warning each, or an error when strict -----------------------------
UNKNOWN = [
    # (replace this, with this: the warning's place and problem as the strict error words it, and the
    # text the file then reads as)
    ('<spring a="a" b="b" restlength="40"/>', '<sprng a="a" b="b" restlength="40"/>',
     "links: unknown element <sprng>; did you mean <spring>?", ""),
    ('<environment gravity="0.5" friction="0.02" springyness="0.3"/>',
     '<enviroment gravity="0.5" friction="0.02" springyness="0.3"/>',
     "model: unknown element <enviroment>; did you mean <environment>?", ""),
    ('<mass id="a" x="0" y="0"/>', '<mass id="a" x="0" y="0" vxx="1"/>',
     "nodes/mass[1]: unknown attribute 'vxx'; did you mean 'vx'?", None),
    ('gravity="0.5" ', 'gravty="0.5" ',
     "environment: unknown attribute 'gravty'; did you mean 'gravity'?", ""),
    ("<model>", '<model version="2">', "model: unknown attribute 'version'; valid: none", None),
    ('<mass id="c" x="20" y="30"/>', '<mass id="c" x="20" y="30"><x/></mass>',
     "nodes/mass[3]: unknown element <x> inside <mass>", None),
    ('autoreverse="off"', 'autoreverse="off" soundon="1"', "settings: unknown attribute 'soundon'; valid: ",
     None),
    ("<nodes>", '<sound volume="3"><loud/></sound><nodes>', "model: unknown element <sound>; valid: name, ",
     None),
]  # fmt: skip


@pytest.mark.parametrize("old, new, problem, reads_as", UNKNOWN, ids=[u[2][:50] for u in UNKNOWN])
def test_an_unknown_element_or_attribute_is_one_warning_and_the_rest_of_the_file_loads(
    tmp_path, old, new, problem, reads_as
):
    assert old in VALID
    path = write(tmp_path, VALID.replace(old, new, 1))
    with pytest.warns(EvoInputWarning) as record:
        creature = read_soda_xml(path)
    assert len(record) == 1
    text = str(record[0].message)
    where, what = problem.split(": ", 1)
    assert text.startswith(f"{path}: {where}: {what.split(';')[0]} (ignored)")
    assert "\n" not in text
    (tmp_path / "same").mkdir()
    same = write(tmp_path / "same", VALID.replace(old, reads_as if reads_as is not None else old, 1))
    assert creature_to_dict(creature) == creature_to_dict(read_soda_xml(same))
    with pytest.raises(EvoInputError) as info:
        read_soda_xml(path, strict=True)
    assert str(info.value).startswith(f"{path}: {problem}")


def test_a_file_evo_knows_entirely_reads_without_a_warning(tmp_path, recwarn):
    read_soda_xml(write(tmp_path, VALID))
    read_soda_xml(write(tmp_path, CLASSIC.encode("latin-1"), "classic.xml"), strict=True)
    assert [w for w in recwarn if issubclass(w.category, EvoInputWarning)] == []


# -- classic files: polygons with colours and curves, ISO-8859-1, DOCTYPE -------------------------
CLASSIC = """<?xml version="1.0" encoding="ISO-8859-1"?>
<!DOCTYPE model SYSTEM "sodaconstructor.dtd">
<model>
  <name>Schrittmacher Nr. 3</name>
  <comment>gespeichert mitten im Schritt, Geschwindigkeit nach links (à gauche)</comment>
  <environment gravity="0.3" friction="0.04" springyness="0.3"/>
  <collisions surface_friction="0.5" surface_reflection="-0.2"/>
  <wave amplitude="0.8" phase="0.125" speed="0.025"/>
  <settings gravitydirection="down" wavedirection="reverse" autoreverse="off"/>
  <nodes>
    <mass id="m1" x="600" y="9.89" vx="-0.578" vy="-2.276"/>
    <mass id="m2" x="638.3" y="6.39" vx="-0.352" vy="0.556"/>
    <mass id="m3" x="686.69" y="0" vx="-0.251"/>
    <mass id="m9" x="662" y="40"/>
    <node id="hook" x="640" y="300"/>
  </nodes>
  <links>
    <muscle a="m1" b="m2" restlength="30" amplitude="0.3" phase="0.25"/>
    <muscle a="m2" b="m3" restlength="40" amplitude="0.3" phase="0.925"/>
    <spring a="m3" b="m9" restlength="45.5"/>
    <spring a="m9" b="m1" restlength="70"/>
    <spring a="m9" b="hook" restlength="260"/>
  </links>
  <polys>
    <poly color="#770000" points="m3,m2,m9" curvy="1"/>
    <poly color="#0A0" points="m1,m2,m9" curvy="0"/>
    <poly points="m1, m9, hook"/>
  </polys>
</model>
"""


def test_a_classic_file_keeps_its_polygons_colours_and_curves(tmp_path):
    creature = read_soda_xml(write(tmp_path, CLASSIC.encode("latin-1"), "classic.xml"))
    assert creature.name == "Schrittmacher Nr. 3" and creature.meta["comment"].endswith("(à gauche)")
    assert creature.polys == (
        Polygon((2, 1, 3), "#770000", True),
        Polygon((0, 1, 3), "#0A0", False),
        Polygon((0, 3, 4), None, False),
    )
    assert creature.velocities[:3, 0].tolist() == [-0.578, -0.352, -0.251]
    assert creature.wave_reverse and creature.fixed.tolist() == [False] * 4 + [True]
    doc = creature_to_dict(creature)
    assert doc["polys"] == [
        {"masses": [2, 1, 3], "color": "#770000", "curvy": True},
        {"masses": [0, 1, 3], "color": "#0A0"},
        [0, 3, 4],
    ]


def test_a_classic_file_goes_to_json_and_back_to_xml_exactly(tmp_path):
    """XML -> JSON -> XML -> JSON: the second XML is the first export to the byte, and the creature is
    the one the file held to the last bit (phases, wave phase and speed included)."""
    first = read_soda_xml(write(tmp_path, CLASSIC.encode("latin-1"), "classic.xml"))
    json_path, xml_path = tmp_path / "classic.json", tmp_path / "again.xml"
    save_model(first, json_path)
    save_model(load_model(json_path), xml_path)
    again = read_soda_xml(xml_path)
    assert creature_to_dict(again) == creature_to_dict(first)
    assert xml_path.read_text(encoding="utf-8") == dumps_soda_xml(again)
    text = xml_path.read_text(encoding="utf-8")
    assert '<poly color="#770000" points="m2,m1,m3" curvy="1" />' in text
    assert 'amplitude="0.3" phase="0.25"' in text and 'amplitude="0.3" phase="0.925"' in text
    assert '<wave amplitude="0.8" phase="0.125" speed="0.025" />' in text


@pytest.mark.parametrize(
    "text, expected",
    [
        ("<creature/>", "(root): expected a <model> element, got <creature>"),
        ('<model><links><fixedbar a="p" b="q"/></links><nodes><node id="p" x="0" y="0"/>'
         '<node id="q" x="9" y="0"/></nodes></model>', "the model has no masses"),
        ('<!DOCTYPE m [<!ENTITY e SYSTEM "file:///etc/passwd">]><model>&e;</model>', "entity declarations"),
        ('<!DOCTYPE m [<!ENTITY a "aaaa">]><model>&a;</model>', "entity declarations are not allowed"),
        ("<model>&e;</model>", "not well-formed XML: undefined entity"),
        ('<!-- <!DOCTYPE m> --><!DOCTYPE m [<!ENTITY e "x">]><model>&e;</model>', "entity declarations"),
        ("<!DOCTYPE model [ <!ELEMENT model ANY>", "unterminated DOCTYPE"),
        ("", "not well-formed XML: no element found"),
        ('<?xml version="1.0" encoding="bogus"?><model/>', "not readable XML: unknown encoding: bogus"),
        ('<?xml version="1.0" encoding="Shift_JIS"?><model/>', "not readable XML: multi-byte encodings"),
    ],
)  # fmt: skip
def test_a_broken_or_unsafe_document_is_refused_with_one_line(tmp_path, text, expected):
    path = write(tmp_path, text)
    with pytest.raises(EvoInputError) as info:
        read_soda_xml(path)
    assert expected in str(info.value) and "\n" not in str(info.value)


ENCODINGS = {
    "UTF-16 little-endian": ("UTF-16", lambda text: text.encode("utf-16-le")),
    "UTF-16 big-endian": ("UTF-16", lambda text: text.encode("utf-16-be")),
    "ISO-8859-1": ("ISO-8859-1", lambda text: text.encode("latin-1")),
}


@pytest.mark.parametrize("name, encode", ENCODINGS.values(), ids=ENCODINGS.keys())
def test_entity_declarations_are_refused_whatever_the_files_encoding(tmp_path, name, encode):
    text = (
        f'\ufeff<?xml version="1.0" encoding="{name}"?>\n<!DOCTYPE model [<!ENTITY n "injected">]>\n'
        '<model><name>&n;</name><nodes><mass id="a" x="0" y="1"/></nodes></model>'
    )
    if name == "ISO-8859-1":
        text = text.lstrip("\ufeff")
    path = tmp_path / "model.xml"
    path.write_bytes(encode(text))
    with pytest.raises(EvoInputError, match="entity declarations are not allowed"):
        read_soda_xml(path)
    path.write_bytes(encode(text.replace('[<!ENTITY n "injected">]', "").replace("&n;", "plain")))
    assert read_soda_xml(path).name == "plain"  # the same file without entities reads


def test_a_missing_file_is_named(tmp_path):
    with pytest.raises(EvoInputError, match="nope.xml: no such file"):
        read_soda_xml(tmp_path / "nope.xml")


# -- JSON -> XML -> JSON -------------------------------------------------------------------------
FULL_WORLD = {
    "gravity": 0.38, "gravity_direction": "off", "damping": 0.031, "stiffness": 0.27,
    "restitution_normal": 0.6, "restitution_tangential": 0.15, "width": 900.5, "height": 420.0,
    "terrain": [[[0.0, 10.0], [250.0, 35.5]], [[300.0, 0.0], [310.0, 20.0], [330.0, 1e-3]]],
}  # fmt: skip
RICH = {
    "format": "evo-model", "version": 1, "name": "rich <&> \"one\"",
    "masses": [
        {"x": 10.0, "y": 40.0},
        {"x": 60.1, "y": -3.25, "vx": 0.5, "vy": -1e-7},
        {"x": 35.0, "y": 300.0, "fixed": True},
        {"x": 0.1 + 0.2, "y": 1 / 3},
    ],
    "links": [
        {"a": 0, "b": 1, "rest": 50.0},
        {"a": 1, "b": 2, "rest": 45.0, "alpha": 0.5, "phi": 1.5708},
        {"a": 2, "b": 1, "rest": 0.0, "alpha": 1.0, "phi": 2 * math.pi},
        {"a": 3, "b": 0, "rest": 12.3, "phi": 0.2},  # a spring with a phase: a muscle of amplitude 0
        {"a": 0, "b": 3, "rest": 12.3, "alpha": 1e-9, "phi": 6.0},
    ],
    "wave": {"omega": 0.0764, "beta": 0.5, "phase": 4.0, "direction": "reverse", "autoreverse": True},
    "world": FULL_WORLD,
    "meta": {"comment": "kept as the XML comment"},
    "polys": [[0, 1, 2], [3]],
}  # fmt: skip


def angles(doc):
    """Pop the values that pass through a division by 2 pi (link phases, wave omega and phase)."""
    out = [link.pop("phi", 0.0) for link in doc["links"]]
    return out + [doc["wave"].pop("omega", 0.0), doc["wave"].pop("phase", 0.0)]


def assert_same_angles(actual, desired):
    """The phases of :func:`angles` equal as angles (mod 2 pi), omega as a number, both to 1e-12."""
    actual, desired = np.asarray(actual), np.asarray(desired)
    np.testing.assert_allclose(actual[-2], desired[-2], rtol=0, atol=1e-12)
    turn = np.angle(np.exp(1j * (np.delete(actual, -2) - np.delete(desired, -2))))
    np.testing.assert_allclose(turn, 0.0, rtol=0, atol=1e-12)


def xml_round_trip(doc, tmp_dir):
    json_in, xml, json_out = (Path(tmp_dir) / name for name in ("in.json", "mid.xml", "out.json"))
    json_in.write_text(json.dumps(doc))
    save_model(load_model(json_in), xml)
    save_model(load_model(xml), json_out)
    return json.loads(json_out.read_text())


def test_json_to_xml_to_json_keeps_everything_xml_can_hold(tmp_path):
    back = xml_round_trip(RICH, tmp_path)
    original = creature_to_dict(creature_from_dict(RICH))
    assert_same_angles(angles(back), angles(original))
    assert back == original


def test_what_xml_cannot_hold_is_dropped_and_missing_world_values_become_the_defaults(tmp_path):
    doc = json.loads(json.dumps(RICH))
    doc["world"] = {"gravity_cursor": 30, "dt": 0.5, "integrator": "rk4", "max_speed": 90.0}
    doc["meta"] = {"fitness": 12.0}
    doc["masses"][2].update(vx=3.0)  # a fixed mass's velocity
    back = creature_from_dict(xml_round_trip(doc, tmp_path))
    assert back.meta == {}
    assert back.velocities[2].tolist() == [0.0, 0.0]
    expected = World().updated({"gravity_cursor": 30})
    assert World().updated(back.world) == expected
    assert set(back.world) == {"gravity", "gravity_direction", "damping", "stiffness",
                               "restitution_normal", "restitution_tangential"}  # fmt: skip


def test_phases_outside_one_cycle_are_wrapped_into_it_on_export(tmp_path):
    doc = json.loads(json.dumps(RICH))
    doc["links"][1]["phi"] = -math.pi / 2
    doc["wave"]["phase"] = 3 * math.pi
    back = xml_round_trip(doc, tmp_path)
    assert back["links"][1]["phi"] == pytest.approx(1.5 * math.pi, abs=1e-12)
    assert back["wave"]["phase"] == pytest.approx(math.pi, abs=1e-12)


finite = st.floats(allow_nan=False, allow_infinity=False)
unit = st.floats(0.0, 1.0)
coordinate = st.floats(-1e8, 1e8)  # inside MAX_COORDINATE, with room for the file's unit conversions
radians = st.floats(0.0, 2 * math.pi, exclude_max=True)


@st.composite
def creatures(draw):
    n = draw(st.integers(1, 5))
    pairs = st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)).filter(lambda p: p[0] != p[1])
    links = draw(st.lists(pairs, max_size=6)) if n > 1 else []
    return Creature(
        positions=draw(st.lists(st.tuples(coordinate, coordinate), min_size=n, max_size=n)),
        velocities=draw(st.lists(st.tuples(coordinate, coordinate), min_size=n, max_size=n)),
        fixed=draw(st.lists(st.booleans(), min_size=n, max_size=n)),
        link_a=[a for a, _ in links], link_b=[b for _, b in links],
        rest=[draw(st.floats(0.0, 1e6)) for _ in links], alpha=[draw(unit) for _ in links],
        phi=[draw(radians) for _ in links], omega=draw(st.floats(0.0, 2 * math.pi)), beta=draw(unit),
        wave_phase=draw(radians), wave_reverse=draw(st.booleans()), autoreverse=draw(st.booleans()),
        name=draw(st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc", "Cn")))),
    )  # fmt: skip


@settings(max_examples=60, deadline=None)
@given(creatures())
def test_any_valid_creature_survives_the_xml_round_trip(creature):
    before = creature_to_dict(creature)
    for mass, fixed in zip(before["masses"], creature.fixed, strict=True):
        if fixed:  # fixed masses have no velocity in the XML
            mass.pop("vx", None)
            mass.pop("vy", None)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "c.xml"
        path.write_text(dumps_soda_xml(creature), encoding="utf-8")
        after = creature_to_dict(read_soda_xml(path))
    assert_same_angles(angles(after), angles(before))
    del after["world"]
    before.pop("world")
    assert after == before


@pytest.mark.parametrize(
    "change, expected",
    [
        (
            {"world": {"gravity": 5.0}},
            "world.gravity: 5.0 cannot be written to Soda XML (environment@gravity",
        ),
        (
            {"world": {"stiffness": 0.8}},
            "world.stiffness: 0.8 cannot be written to Soda XML (environment@springyness must lie in (0, 0.5",
        ),
        ({"world": {"damping": 1.5}}, "world.damping: 1.5 cannot be written"),
        ({"omega": 7.0}, "wave.omega: 7.0 rad/frame is above Soda XML's 1 cycle/frame"),
        ({"name": "bell\x07"}, "name: contains characters XML cannot hold"),
        ({"beta": 1.5}, "wave.beta: expected a number in [0, 1], got 1.5"),
        # written as "nan", which no reader takes back
        ({"wave_phase": math.nan}, "wave.phase: expected a finite phase in radians"),
        ({"velocities": [[math.inf, 0.0], [0, 0], [0, 0], [0, 0]]}, "masses: expected finite velocities"),
    ],
)
def test_a_creature_the_dialect_cannot_hold_is_refused_on_export(change, expected):
    creature = creature_from_dict(RICH).replace(**change)
    with pytest.raises(EvoInputError) as info:
        dumps_soda_xml(creature)
    assert expected in str(info.value)


# -- evo convert ---------------------------------------------------------------------------------
def test_evo_convert_goes_json_to_xml_and_back(tmp_path, capsys):
    (tmp_path / "a.json").write_text(json.dumps(RICH))
    assert main(["convert", str(tmp_path / "a.json"), str(tmp_path / "b.xml")]) == 0
    assert main(["convert", str(tmp_path / "b.xml"), str(tmp_path / "c.json")]) == 0
    back = json.loads((tmp_path / "c.json").read_text())
    original = creature_to_dict(creature_from_dict(RICH))
    assert_same_angles(angles(back), angles(original))
    assert back == original
    assert "wrote" in capsys.readouterr().out


def test_evo_convert_of_a_bad_xml_file_exits_2_with_one_line_and_writes_nothing(tmp_path, capsys):
    bad = write(tmp_path, VALID.replace('friction="0.02"', 'friction="3"'))
    assert main(["convert", str(bad), str(tmp_path / "out.json")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith("evo convert: error: ") and "environment@friction" in err
    assert not (tmp_path / "out.json").exists()


# -- terrain files -------------------------------------------------------------------------------
GROUND = """<?xml version="1.0"?>
<model><nodes><node id="p" x="0" y="0"/><node id="q" x="100" y="20"/><node id="r" x="200" y="0"/></nodes>
<links><fixedbar a="p" b="q"/><fixedbar a="q" b="r"/></links></model>"""


def test_a_model_world_may_name_a_terrain_xml_file_beside_the_model(tmp_path, monkeypatch):
    folder = tmp_path / "models"
    folder.mkdir()
    write(folder, GROUND, "ground.xml")
    doc = {**json.loads(json.dumps(RICH)), "world": {"terrain": "ground.xml"}}
    model = folder / "m.json"
    model.write_text(json.dumps(doc))
    monkeypatch.chdir(tmp_path)  # the path is relative to the model file, not the working directory
    creature = load_model(model)
    world = world_from(creature.world, source=str(model))
    assert world.terrain == (((0.0, 0.0), (100.0, 20.0), (200.0, 0.0)),)


def test_a_terrain_path_without_a_source_file_is_relative_to_the_working_directory(tmp_path, monkeypatch):
    write(tmp_path, GROUND, "ground.xml")
    monkeypatch.chdir(tmp_path)
    assert read_terrain("ground.xml", source=None, field="--set.terrain")[0][1] == (100.0, 20.0)
    assert world_from({"terrain": "ground.xml"}, where="--set").terrain[0][2] == (200.0, 0.0)


def test_a_terrain_read_from_a_file_keeps_the_files_absolute_path_beside_its_polylines(tmp_path, monkeypatch):
    folder = tmp_path / "models"
    folder.mkdir()
    write(folder, GROUND, "ground.xml")
    model = folder / "m.json"
    model.write_text(json.dumps({**RICH, "world": {"terrain": "ground.xml"}}))
    monkeypatch.chdir(tmp_path)
    assert world_from(load_model(model).world, source=str(model)).terrain_file == str(folder / "ground.xml")
    assert world_from({"terrain": "models/ground.xml"}, where="--set").terrain_file == str(
        folder / "ground.xml"
    )
    assert world_from({"terrain": [[0, 0], [1, 1]]}).terrain_file is None


def test_a_terrain_path_in_the_world_is_written_as_the_fixed_bars_it_names(tmp_path, monkeypatch):
    write(tmp_path, GROUND, "ground.xml")
    model = tmp_path / "m.json"
    model.write_text(json.dumps({**RICH, "world": {"terrain": "ground.xml"}}))
    monkeypatch.chdir(tmp_path.parent)
    path = write(tmp_path, dumps_soda_xml(load_model(model), source=str(model)), "m.xml")
    assert read_soda_xml(path).world["terrain"] == [[[0.0, 0.0], [100.0, 20.0], [200.0, 0.0]]]


@pytest.mark.parametrize(
    "text, expected",
    [
        (None, "m.json: world.terrain: terrain file "),
        (GROUND.replace('b="r"', 'b="s"'), "links/fixedbar[2]@b: unknown node id 's'"),
        ('<model><nodes><node id="p" x="0" y="0"/></nodes></model>', "has no <fixedbar> links"),
    ],
)
def test_a_bad_terrain_file_is_reported_under_the_model_and_field_that_named_it(tmp_path, text, expected):
    if text is not None:
        write(tmp_path, text, "ground.xml")
    model = tmp_path / "m.json"
    model.write_text(json.dumps({**RICH, "world": {"terrain": "ground.xml"}}))
    with pytest.raises(EvoInputError) as info:
        load_model(model)
    message = str(info.value)
    assert message.startswith(f"{model}: world.terrain: terrain file ") and expected in message
    assert "\n" not in message


# -- shipped examples ----------------------------------------------------------------------------
CLASSIC_FILES = sorted(
    p for p in GENOMES.glob("classic/*.xml") if p.name != "race.xml"
)  # race: test_soda_race


@pytest.mark.parametrize("path", CLASSIC_FILES, ids=lambda p: p.name)
def test_every_shipped_classic_xml_file_reads_strictly_as_a_model_or_as_terrain(path):
    try:
        creature = read_soda_xml(path, strict=True)
    except EvoInputError as exc:
        assert "no masses" in str(exc)
        assert read_terrain(path, source=None, field="terrain")
    else:
        assert creature.n_masses > 0 and not creature.structural_errors()
        World().updated(creature.world)


def test_the_shipped_classic_models_draw_polygons_and_use_both_wave_directions():
    models = [read_soda_xml(path) for path in CLASSIC_FILES if path.name != "hills.xml"]
    with_polygons = [m for m in models if any(p.color for p in m.polys)]
    assert {m.wave_reverse for m in with_polygons} == {False, True}
    assert any(p.curvy for m in with_polygons for p in m.polys)


def walked(creature, frames=3000):
    trajectory = simulate(creature, World().updated(creature.world), frames=frames, record_every=frames)
    assert not trajectory.exploded
    return trajectory.centroids[-1, 0] - trajectory.centroids[0, 0]


def test_the_shipped_strider_walks_to_the_right_on_flat_ground():
    assert walked(read_soda_xml(GENOMES / "classic" / "strider.xml")) > 1000.0


def test_a_walker_saved_mid_stride_keeps_walking_the_way_its_velocities_point():
    """The crawler was saved at frame 641 of its walk, every mass moving left, its wave at phase 0.025:
    read with the applet's law it walks on to the left. Read the old way (phi = 2 pi p, the muscles in
    mirror order) it would not."""
    path = GENOMES / "classic" / "crawler.xml"
    crawler = read_soda_xml(path)
    assert np.all(crawler.velocities[:, 0] < 0.0)
    assert walked(crawler, 300) < -100.0 and walked(crawler) < -1000.0
    links = ET.parse(path).getroot().find("links")
    old_phi = [2 * math.pi * float(link.get("phase", 0.0)) for link in links if link.tag != "fixedbar"]
    assert walked(crawler.replace(phi=old_phi)) > -300.0
