"""Fuzzed model files (evo JSON and Soda XML): each loads, and then simulates, or is refused in one line."""

from __future__ import annotations

from pathlib import Path

import pytest
from fuzz_strategies import FUZZ, loads_or_refuses, model_texts, xml_texts
from hypothesis import given

from evo.io.models import load_model
from evo.sim import World, simulate

# a damaged file that still loads warns about what it ignored; the warnings are expected, not shown
pytestmark = pytest.mark.filterwarnings("ignore::evo.errors.EvoInputWarning")


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("fuzzed-models")


def _load_and_simulate(path: Path):
    creature = load_model(path)
    world = World.from_model(creature)
    return simulate(creature, world, frames=20 * world.dt, record_every=5 * world.dt)


@FUZZ
@given(data=model_texts())
def test_a_damaged_json_model_loads_and_simulates_or_is_refused_in_one_line(folder, data):
    path = folder / "model.json"
    path.write_bytes(data)
    loads_or_refuses(lambda: _load_and_simulate(path), folder)


@FUZZ
@given(data=xml_texts())
def test_a_damaged_soda_xml_model_loads_and_simulates_or_is_refused_in_one_line(folder, data):
    path = folder / "model.xml"
    path.write_bytes(data)
    loads_or_refuses(lambda: _load_and_simulate(path), folder)
