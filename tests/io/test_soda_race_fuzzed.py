"""Fuzzed race files (issue 20): each reads, and its race runs, or is refused in one line -- never another
exception, and nothing written beside it."""

from __future__ import annotations

from pathlib import Path
from xml.sax.saxutils import quoteattr

import pytest
from fuzz_strategies import FUZZ, XML_VALUES, damaged, loads_or_refuses, xml_texts
from hypothesis import given
from hypothesis import strategies as st

from evo.io.soda_race import read_race
from evo.race import run_race

pytestmark = pytest.mark.filterwarnings("ignore::evo.errors.EvoInputWarning")

CONSTRAINTS = {
    "environment": ("gravity", "friction", "springyness"),
    "collisions": ("surface_friction", "surface_reflection"),
    "wave": ("amplitude", "phase", "speed"),
    "settings": ("gravitydirection", "wavedirection", "autoreverse"),
}
VALUES = XML_VALUES | st.sampled_from(["CONTENDER", "contender", "0.3", "-0.5", "forward", "reverse", "on"])
CLASSIC = Path(__file__).resolve().parents[2] / "genomes" / "classic"
STRIDER = (CLASSIC / "strider.xml").read_text(encoding="utf-8").split("-->", 1)[1]
TAGS = ("timeout", "terrain", "race_constraints", "contenders", "contender", "result", "model", "bogus")


@st.composite
def race_texts(draw: st.DrawFn) -> bytes:
    """A race of one to three contenders (damaged Soda models), with changed constraints, timeout and
    terrain, renamed or repeated elements, and the whole text damaged."""

    def rarely() -> bool:  # one time in ten (Hypothesis draws small integers often: a list decides)
        return draw(st.sampled_from([False] * 9 + [True]))

    def tag(name: str) -> str:
        return draw(st.sampled_from(TAGS)) if rarely() else name

    contenders = []
    for _ in range(draw(st.sampled_from([1, 1, 2, 2, 3, 0]))):
        if draw(st.sampled_from([False] * 3 + [True])):
            model = draw(xml_texts()).decode("utf-8", "replace")
            model = model[model.find("<model") :] if "<model" in model else model
        else:
            model = STRIDER
        result = f"<result frames={quoteattr(draw(VALUES))}/>" if draw(st.booleans()) else ""
        contenders.append(f"<{tag('contender')}>{model}{result}</contender>")
    messy = draw(st.sampled_from([False, False, True]))  # constraints with a few wrong values
    constraints = "".join(
        f"<{tag(element)} "
        + " ".join(f"{a}={quoteattr(draw(VALUES) if messy and rarely() else 'CONTENDER')}" for a in attrs)
        + "/>"
        for element, attrs in CONSTRAINTS.items()
    )
    bars = draw(st.integers(0, 3))
    xs = [draw(VALUES) if rarely() else str(100 * k) for k in range(bars + 1)]
    nodes = "".join(f'<node id="t{k}" x={quoteattr(x)} y="0"/>' for k, x in enumerate(xs))
    links = "".join(f'<fixedbar a="t{k}" b="t{k + 1}"/>' for k in range(bars))
    terrain = f"<terrain><model><nodes>{nodes}</nodes><links>{links}</links></model></terrain>"
    timeout = (
        f"<timeout value={quoteattr(draw(VALUES) if rarely() else '300')}/>" if draw(st.booleans()) else ""
    )
    parts = [timeout, terrain, f"<race_constraints>{constraints}</race_constraints>",
             f"<{tag('contenders')}>{''.join(contenders)}</contenders>"]  # fmt: skip
    parts = [p for p in parts if not rarely()]
    if parts and rarely():
        parts.append(parts[-1])
    text = "<race>" + "".join(parts) + "</race>"
    return draw(damaged(text)) if rarely() else text.encode("utf-8")


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("fuzzed-races")


@FUZZ
@given(data=race_texts())
def test_a_damaged_race_file_reads_and_runs_or_is_refused_in_one_line(folder, data):
    path = folder / "race.xml"
    path.write_bytes(data)
    loads_or_refuses(lambda: run_race(read_race(path), frames=20), folder)
