"""``GET /api/session``: every constant the page shows comes from evo (world fields, cursor laws,
integrators, plugins), and the default evolve config is one evo accepts."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
import tomllib

from evo.fitness import discover
from evo.run.config import parse_config
from evo.sim.world import (
    CURSOR_MAX,
    DAMPING_PER_CURSOR2,
    GRAVITY_PER_CURSOR2,
    INTEGRATORS,
    STIFFNESS_PER_CURSOR2,
    World,
)


def test_the_world_fields_are_evos_defaults_docs_and_bounds(studio):
    _, session = studio.get("/api/session")
    defaults = World().to_dict()
    for field in dataclasses.fields(World):
        if field.name in ("terrain", "terrain_file", "ground"):
            assert field.name not in session["world"]
            continue
        shown = session["world"][field.name]
        assert shown["value"] == defaults.get(field.name)  # None (no walls, no limit) is left out of to_dict
        assert shown["doc"] == field.metadata["doc"]
        assert (shown["low"], shown["high"]) == (field.metadata.get("low"), field.metadata.get("high"))
    assert session["world"]["integrator"]["choices"] == list(INTEGRATORS)


def test_the_cursor_laws_are_seed_000s_as_evo_declares_them(studio):
    _, session = studio.get("/api/session")
    cursors = session["cursors"]
    assert cursors["gravity"]["coefficient"] == GRAVITY_PER_CURSOR2 == 3.50169e-4
    assert cursors["damping"]["coefficient"] == DAMPING_PER_CURSOR2
    assert cursors["stiffness"]["coefficient"] == STIFFNESS_PER_CURSOR2
    assert {c["field"] for c in cursors.values()} == {"gravity", "damping", "stiffness"}
    assert all(c["max"] == CURSOR_MAX for c in cursors.values())
    assert session["integrators"] == list(INTEGRATORS)


def test_the_plugins_are_those_evo_finds_with_their_default_params(studio):
    _, session = studio.get("/api/session")
    found = discover()
    # the server is a fresh process: what a fresh process finds (other tests register Python functions here)
    script = "import json; from evo.fitness import discover; print(json.dumps(sorted(discover())))"
    fresh = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert [p["name"] for p in session["plugins"]] == json.loads(fresh.stdout)
    distance = next(p for p in session["plugins"] if p["name"] == "distance")
    assert distance["params"] == dict(found["distance"].params) and distance["doc"] == found["distance"].doc


def test_the_default_evolve_config_is_one_evo_accepts(studio):
    _, session = studio.get("/api/session")
    config = parse_config(tomllib.loads(session["config"]), source="default")
    assert config.run.population >= 2 and config.evaluation.plugin == "distance"
