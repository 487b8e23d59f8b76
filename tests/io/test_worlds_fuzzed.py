"""Fuzzed worlds: any mapping of world keys to values near the edges of their ranges, or past them, is
refused in one line or simulates (every integrator, both contacts, every ground), never crashes."""

from __future__ import annotations

from pathlib import Path

import pytest
from fuzz_strategies import EDGE_NUMBERS, FUZZ, loads_or_refuses
from hypothesis import given
from hypothesis import strategies as st

from evo.io.models import load_model
from evo.io.worlds import resolve_world
from evo.sim import simulate

ROOT = Path(__file__).resolve().parents[2]
MODELS = ("walker.json", "classic/strider.xml", "pendulum.json", "pandoras_box.json")


def _number(low: float, high: float) -> st.SearchStrategy:
    return st.one_of(EDGE_NUMBERS, EDGE_NUMBERS, st.floats(low, high), st.sampled_from([low, high]))


POINTS = st.lists(st.lists(_number(-1e3, 1e3), min_size=2, max_size=2), max_size=4)
VALUES = {
    "gravity": _number(0, 5), "damping": _number(0, 1), "stiffness": _number(0, 1),
    "restitution_normal": _number(0, 1), "restitution_tangential": _number(0, 1),
    "gravity_direction": st.sampled_from(["down", "up", "off", "left"]),
    "dt": st.sampled_from([1.0, 0.5, 0.25, 2.0, 1e-3, 1e-300, 3.0]),
    "integrator": st.sampled_from(
        ["euler", "explicit-euler", "finite-difference", "midpoint", "rk4", "backward-euler", "psm"]
    ),
    "width": _number(0, 1e3), "height": _number(0, 1e3), "max_speed": _number(0, 100),
    "terrain": POINTS | st.lists(POINTS, max_size=3), "contact": st.sampled_from(["soda", "penalty"]),
    "ground": POINTS | st.fixed_dictionaries(
        {"type": st.sampled_from(["flat", "slope", "hills", "steps"])},
        optional={k: _number(-10, 500) for k in ("angle", "amplitude", "wavelength", "height", "width")},
    ),
    "ground_stiffness": _number(0, 10), "ground_friction": _number(0, 2), "ground_slip_speed": _number(0, 1),
    "psm_order": st.integers(0, 25), "newton_iterations": st.integers(0, 120),
    "newton_tolerance": _number(0, 1),
    "gravity_cursor": _number(0, 120), "damping_cursor": _number(0, 120), "stiffness_cursor": _number(0, 120),
}  # fmt: skip


@pytest.fixture(scope="module")
def models():
    return [load_model(ROOT / "genomes" / name) for name in MODELS]


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("fuzzed-worlds")


def _simulate(creature, world: dict, every: int):
    resolved = resolve_world([(world, None, "--set")])
    return simulate(creature, resolved, 20 * resolved.dt, record_every=every * resolved.dt)


WORLDS = st.lists(st.sampled_from(sorted(VALUES)), max_size=3, unique=True).flatmap(
    lambda keys: st.fixed_dictionaries({key: VALUES[key] for key in keys})
)


@FUZZ
@given(
    world=WORLDS,
    model=st.integers(0, len(MODELS) - 1),
    every=st.sampled_from([1, 5]),
)
def test_a_world_of_edge_values_simulates_or_is_refused_in_one_line(models, folder, world, model, every):
    loads_or_refuses(lambda: _simulate(models[model], world, every), folder)
