"""Fuzzed plugin parameters: each is taken or refused in one line, and a plugin given checked parameters
scores a creature or fails as PluginFailed; never another exception."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evo.errors import EvoInputError
from evo.fitness import check_params, find_plugin
from evo.fitness.evaluate import EvaluationSpec, PluginFailed, evaluate
from evo.io.models import load_model
from evo.sim import World

ROOT = Path(__file__).resolve().parents[2]
PLUGINS = ("distance", "speed", "race", "jump", "climb")
VALUES = st.recursive(
    st.sampled_from([0, -1, 1, 100, 5000, 0.5, 1e308, 10**400, math.nan, math.inf, True, None, "", "a\nb"])
    | st.floats()
    | st.integers()
    | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=2),
    max_leaves=4,
)
PARAMS = st.dictionaries(
    st.sampled_from(["settle_frames", "finish_x", "penalty", "step", "bogus", "a\nb"]), VALUES, max_size=3
)


@pytest.fixture(scope="module")
def walker():
    return load_model(ROOT / "genomes" / "walker.json")


@settings(max_examples=150, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])  # fmt: skip
@given(name=st.sampled_from(PLUGINS), params=PARAMS, seed=st.sampled_from([0, 2**64 - 1]))
def test_plugin_parameters_are_taken_or_refused_in_one_line_and_never_crash_an_evaluation(
    walker, name, params, seed
):
    plugin = find_plugin(name)
    try:
        checked = check_params(plugin, params, source="c.toml")
    except EvoInputError as exc:
        assert "\n" not in str(exc) and len(str(exc)) < 400, str(exc)
        return
    spec = EvaluationSpec(World(), 300, plugin.ref(), checked)
    try:
        evaluate(walker, spec, seed)
    except PluginFailed as exc:
        assert "\n" not in exc.message
