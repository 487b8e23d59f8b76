"""Sodarace race files (issue 20): read with each contender in its own world, the race's constraints
imposed where they are numbers, errors naming the contender and the field, written back without loss."""

from __future__ import annotations

import dataclasses
import math
import warnings
from pathlib import Path

import numpy as np
import pytest

from evo.errors import EvoInputError, EvoInputWarning
from evo.io.models import load_model
from evo.io.soda_race import CONTENDER, Contender, Race, dumps_race_xml, is_race_file, read_race, write_race

CLASSIC = Path(__file__).resolve().parents[2] / "genomes" / "classic"
EXAMPLE = CLASSIC / "race.xml"

STRIDER = (CLASSIC / "strider.xml").read_text(encoding="utf-8").split("?>", 1)[1].split("-->", 1)[1]


def race_text(contenders: list[str], constraints: str = "", terrain: str = "", timeout: str = "") -> str:
    items = "".join(f'<contender>{c}<result frames="-1.0"/></contender>' for c in contenders)
    return (
        f'<race racer="soda.race.Racer">{timeout}<terrain filter="x">{terrain}</terrain>'
        f"<race_constraints>{constraints}</race_constraints>"
        f'<contenders filter="y">{items}</contenders></race>'
    )


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "race.xml"
    path.write_text(text, encoding="utf-8")
    return path


TERRAIN = (
    '<model><name>track</name><environment gravity="0.0" friction="0.0" springyness="0.0"/>'
    '<nodes><node id="a" x="0" y="0"/><node id="b" x="300" y="10"/><node id="c" x="600" y="0"/></nodes>'
    '<links><fixedbar a="a" b="b"/><fixedbar a="b" b="c"/></links></model>'
)


def test_the_shipped_example_race_is_a_race_of_the_classic_creatures():
    assert is_race_file(EXAMPLE) and not is_race_file(CLASSIC / "strider.xml")
    race = read_race(EXAMPLE)
    assert [c.creature.name for c in race.contenders] == ["strider", "hopper", "roller", "crawler"]
    assert race.timeout == 5000 and max(x for line in race.terrain for x, _ in line) == 1500
    strider = load_model(CLASSIC / "strider.xml")
    got = race.ruled(0)
    np.testing.assert_array_equal(got.positions, strider.positions)
    assert got.omega == strider.omega and got.world["gravity"] == strider.world["gravity"]


def test_contender_keeps_its_own_values_and_numbers_are_imposed(tmp_path):
    hopper = (CLASSIC / "hopper.xml").read_text(encoding="utf-8")
    hopper = hopper[hopper.index("<model") :]
    constraints = (
        '<environment gravity="0.25" friction="CONTENDER" springyness="CONTENDER"/>'
        '<collisions surface_friction="CONTENDER" surface_reflection="-0.5"/>'
        '<wave amplitude="CONTENDER" phase="CONTENDER" speed="0.05"/>'
        '<settings gravitydirection="CONTENDER" wavedirection="forward" autoreverse="CONTENDER"/>'
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EvoInputWarning)
        race = read_race(write(tmp_path, race_text([STRIDER, hopper], constraints, TERRAIN)))
    assert race.world == {"gravity": 0.25, "restitution_normal": 0.5}
    assert race.wave == {"omega": 0.05 * math.tau, "wave_reverse": False}
    own = [load_model(CLASSIC / f"{n}.xml") for n in ("strider", "hopper")]
    for k, creature in enumerate(own):
        ruled = race.ruled(k)
        assert ruled.world["gravity"] == 0.25 and ruled.world["restitution_normal"] == 0.5
        assert ruled.world["damping"] == creature.world["damping"]  # CONTENDER: its own
        assert ruled.beta == creature.beta and ruled.omega == 0.05 * math.tau
        assert ruled.wave_reverse is False
        assert ruled.world["terrain"] == [[[0.0, 0.0], [300.0, 10.0], [600.0, 0.0]]]
    assert own[1].wave_reverse is True  # the hopper's own reverse wave is overruled


def test_class_attributes_give_one_warning_and_a_terrain_physics_at_zero_none(tmp_path):
    path = write(tmp_path, race_text([STRIDER], terrain=TERRAIN))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        race = read_race(path)
    messages = [str(w.message) for w in caught if issubclass(w.category, EvoInputWarning)]
    assert len(messages) == 1 and "race@racer, terrain@filter, contenders@filter name classes" in messages[0]
    assert race.attributes == {"race": {"racer": "soda.race.Racer"}, "terrain": {"filter": "x"},
                               "contenders": {"filter": "y"}}  # fmt: skip
    with pytest.raises(EvoInputError, match="race@racer, terrain@filter, contenders@filter name classes"):
        read_race(path, strict=True)


@pytest.mark.parametrize(
    ("edit", "field", "expected"),
    [
        (('x="40"', 'x="forty"'), "contenders/contender[2]/model/nodes/mass[2]@x", "a finite number"),
        (('restlength="40"', 'restlength="-4"'), "contenders/contender[2]/model/links/muscle[1]@restlength",
         ">= 0"),
        (('a="back"', 'a="nobody"'), "contenders/contender[2]/model/links/muscle[1]@a", "unknown node id"),
        (('<environment gravity="0.3"', '<environment gravity="9"'),
         "contenders/contender[2]/model/environment@gravity", "in [0, 4]"),
    ],
)  # fmt: skip
def test_a_bad_contender_is_named_with_its_field(tmp_path, edit, field, expected):
    bad = STRIDER.replace(*edit, 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EvoInputWarning)
        with pytest.raises(EvoInputError) as info:
            read_race(write(tmp_path, race_text([STRIDER, bad])))
    assert info.value.field == field and expected in info.value.message
    assert "\n" not in str(info.value)


@pytest.mark.parametrize(
    ("text", "field", "expected"),
    [
        (race_text([STRIDER], '<environment gravity="lots"/>'), "race_constraints/environment@gravity",
         "expected a number"),
        (race_text([STRIDER], '<wave speed="2"/>'), "race_constraints/wave@speed", "in [0, 1]"),
        (race_text([STRIDER], '<settings autoreverse="maybe"/>'), "race_constraints/settings@autoreverse",
         "CONTENDER"),
        (race_text([STRIDER], '<environment springyness="0"/>'), "race_constraints/environment@springyness",
         "> 0"),
        (race_text([STRIDER], timeout='<timeout value="soon"/>'), "timeout@value", "expected a number"),
        (race_text([]), "contenders", "no <contender>"),
        ("<race><timeout value='10'/></race>", "race", "missing <contenders>"),
        (race_text(["<model><nodes/></model>"]), "contenders/contender[1]/model", "no masses"),
        (race_text([STRIDER]).replace("<result", "<model/><result"), "contenders/contender[1]",
         "one <model>"),
        (STRIDER, "(root)", "expected a <race>"),
    ],
)  # fmt: skip
def test_a_bad_race_is_one_line_naming_the_field(tmp_path, text, field, expected):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EvoInputWarning)
        with pytest.raises(EvoInputError) as info:
            read_race(write(tmp_path, text))
    assert info.value.field == field and expected in info.value.message, str(info.value)


def test_a_model_reader_given_a_race_says_how_to_run_it(tmp_path):
    with pytest.raises(EvoInputError, match="a race file: evo race FILE runs it"):
        load_model(EXAMPLE)


def test_a_race_written_and_read_back_is_the_same_race(tmp_path):
    race = read_race(EXAMPLE)
    imposed = dataclasses.replace(
        race,
        timeout=1234.0,
        world={"gravity": 0.2, "damping": 0.05},
        wave={"beta": 0.5, "autoreverse": True},
        attributes={"race": {"racer": "r"}},
        terrain_name="track",
    )
    path = tmp_path / "again.xml"
    write_race(imposed, path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EvoInputWarning)
        back = read_race(path)
    assert (back.timeout, back.terrain, back.terrain_name) == (1234.0, race.terrain, "track")
    assert dict(back.world) == {"gravity": 0.2, "damping": 0.05}
    assert dict(back.wave) == {"beta": 0.5, "autoreverse": True}
    assert back.attributes == {"race": {"racer": "r"}}
    for a, b in zip(race.contenders, back.contenders, strict=True):
        for name in ("positions", "velocities", "fixed", "link_a", "link_b", "rest", "alpha", "phi"):
            np.testing.assert_array_equal(getattr(a.creature, name), getattr(b.creature, name))
        assert (
            a.creature.omega,
            a.creature.beta,
            a.creature.wave_phase,
            a.creature.world,
            a.creature.polys,
        ) == (b.creature.omega, b.creature.beta, b.creature.wave_phase, b.creature.world, b.creature.polys)
    assert dumps_race_xml(back) == dumps_race_xml(imposed)
    text = path.read_text(encoding="utf-8")
    assert text.count(CONTENDER) == 11 - 4  # 11 constrainable values, 4 imposed


def test_a_race_is_built_from_named_fields_only_and_never_changes():
    race = read_race(EXAMPLE)
    with pytest.raises(TypeError):
        Race(race.contenders, race.terrain)  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        race.timeout = 1.0  # type: ignore[misc]
    assert Race(contenders=race.contenders).timeout is None


@pytest.mark.filterwarnings("ignore::evo.errors.EvoInputWarning")
def test_too_many_contenders_are_refused(tmp_path, monkeypatch):
    monkeypatch.setattr("evo.io.soda_race.MAX_CONTENDERS", 2)
    with pytest.raises(EvoInputError, match="more than 2 contenders"):
        read_race(write(tmp_path, race_text([STRIDER] * 3)))


def test_a_contender_that_xml_cannot_hold_is_named_when_writing():
    race = read_race(EXAMPLE)
    odd = Contender(race.contenders[1].creature.replace(world={"gravity": 99.0}))
    with pytest.raises(EvoInputError, match="contender 2: world.gravity"):
        dumps_race_xml(Race(contenders=(race.contenders[0], odd)))
