"""The Refine bridge: 501 while evo has no ``evo.refine``; with one (a stand-in here, of the agreed
signature), the refinement runs in the background, reports each generation and stops when asked."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import evo
from evo.io.models import creature_to_dict

CLASSIC = Path(__file__).resolve().parents[2] / "genomes" / "classic"

# the agreed signature: evo.refine(creature, *, fitness, world=None, budget, genes, sigma=None, seed=0,
# callbacks=()) -> RefineResult
STAND_IN = """
import sys, time, types
from dataclasses import dataclass

@dataclass
class Report:
    evaluations: int
    budget: int
    best_fitness: float
    best: object

@dataclass
class RefineResult:
    best: object
    best_fitness: float

def refine(creature, *, fitness, world=None, budget, genes, sigma=None, seed=0, callbacks=()):
    best = creature
    for generation in range(1, budget // 10 + 1):
        best = best.replace(omega=best.omega * 1.01, name=f"refined-{generation}")
        report = Report(10 * generation, budget, float(generation), best)
        if any(callback(report) for callback in callbacks):
            break
        time.sleep(0.05)
    return RefineResult(best, float(generation))

module = types.ModuleType("evo.refine")
module.refine = refine
sys.modules["evo.refine"] = module
"""


def _design() -> dict:
    return json.loads(json.dumps(creature_to_dict(evo.load_model(CLASSIC / "strider.xml"))))


def test_refine_answers_501_while_evo_has_no_refine(studio):
    body = {"model": _design(), "plugin": "distance", "budget": 100, "genes": ["phi"]}
    assert studio.post("/api/refine", body) == (501, {"error": "refine is not available in this version"})
    assert studio.get("/api/refine")[0] == 501
    assert studio.post("/api/refine/stop", {})[0] == 501


def _waited(server, until, timeout=60.0):
    deadline = time.monotonic() + timeout
    while True:
        _, state = server.get("/api/refine")
        if until(state) or time.monotonic() > deadline:
            return state
        time.sleep(0.1)


def test_with_evo_refine_the_bridge_reports_each_generation_and_the_best_body(studio_factory, tmp_path):
    (tmp_path / "sitecustomize.py").write_text(STAND_IN)
    path = os.pathsep.join(filter(None, [str(tmp_path), os.environ.get("PYTHONPATH")]))
    server = studio_factory(env={"PYTHONPATH": path})
    body = {"model": _design(), "plugin": "distance", "budget": 50, "genes": ["phi"]}
    status, started = server.post("/api/refine", body)
    assert status == 200 and started["state"] == "running"
    state = _waited(server, lambda s: s["state"] != "running")
    assert state["state"] == "done"
    assert [p["evaluations"] for p in state["progress"]] == [10, 20, 30, 40, 50]
    assert state["best_model"]["name"] == "refined-5"


def test_stop_ends_a_refinement_at_the_next_generation(studio_factory, tmp_path):
    (tmp_path / "sitecustomize.py").write_text(STAND_IN)
    path = os.pathsep.join(filter(None, [str(tmp_path), os.environ.get("PYTHONPATH")]))
    server = studio_factory(env={"PYTHONPATH": path})
    body = {"model": _design(), "plugin": "distance", "budget": 100000, "genes": ["phi"]}
    assert server.post("/api/refine", body)[0] == 200
    _waited(server, lambda s: len(s["progress"]) >= 2)
    assert server.post("/api/refine/stop", {})[0] == 200
    state = _waited(server, lambda s: s["state"] != "running")
    assert state["state"] == "done" and len(state["progress"]) < 10000
