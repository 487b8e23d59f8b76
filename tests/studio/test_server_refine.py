"""The Refine bridge: ``evo.refine`` on the design in the background, its progress after each CMA-ES
generation, the refined body to open, Stop at the next generation; 501 where evo has no refine."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import evo
from evo.io.models import creature_to_dict
from evo.refine import GENES, refine
from evo.studio import refining

CLASSIC = Path(__file__).resolve().parents[2] / "genomes" / "classic"


def _design() -> dict:
    return json.loads(json.dumps(creature_to_dict(evo.load_model(CLASSIC / "strider.xml"))))


def _waited(server, until, timeout=120.0):
    deadline = time.monotonic() + timeout
    while True:
        _, state = server.get("/api/refine")
        if until(state) or time.monotonic() > deadline:
            return state
        time.sleep(0.1)


def test_the_session_offers_refine_with_its_genes(studio):
    _, session = studio.get("/api/session")
    assert session["refine"] == {
        "available": True, "message": None, "genes": list(GENES), "default_genes": list(GENES)
    }  # fmt: skip


def test_a_refinement_reports_each_generation_and_ends_with_what_evo_refine_finds(studio):
    body = {"model": _design(), "plugin": "distance", "budget": 64, "genes": ["phi", "alpha"], "seed": 3}
    status, started = studio.post("/api/refine", body)
    assert status == 200 and started["state"] == "running"
    state = _waited(studio, lambda s: s["state"] != "running")
    assert state["state"] == "done", state
    expected = refine(
        evo.load_model(CLASSIC / "strider.xml"), fitness="distance", budget=64, genes=("phi", "alpha"), seed=3
    )
    assert [p["evaluations"] for p in state["progress"]] == [p.evaluations for p in expected.history]
    assert [p["best_fitness"] for p in state["progress"]] == [p.best_fitness for p in expected.history]
    assert state["fitness"] == expected.fitness and state["start_fitness"] == expected.start_fitness
    assert state["best_model"] == json.loads(json.dumps(creature_to_dict(expected.best)))


def test_stop_ends_a_refinement_at_the_next_generation(studio):
    body = {"model": _design(), "plugin": "distance", "budget": 20000}
    assert studio.post("/api/refine", body)[0] == 200
    _waited(studio, lambda s: len(s["progress"]) >= 1)
    assert studio.post("/api/refine", body)[0] == 409  # one at a time
    assert studio.post("/api/refine/stop", {})[0] == 200
    state = _waited(studio, lambda s: s["state"] != "running")
    assert state["state"] == "done" and state["stopped"] is True
    assert state["progress"][-1]["evaluations"] < 20000 and state["best_model"] is not None


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"budget": 0}, "budget: expected an integer in [1, 20000], got 0"),
        ({"budget": 20001}, "budget: expected an integer in [1, 20000], got 20001 (the studio's cap)"),
        ({"genes": "phi"}, "genes: expected a list of strings, got 'phi'"),
        ({"genes": ["phi", "tail"]}, "genes: expected gene names"),
        ({"plugin": 3}, "plugin: expected a string, got 3"),
        ({"modle": {}}, "unknown key 'modle'"),
    ],
)
def test_a_bad_refine_request_is_a_one_line_400(studio, change, expected):
    status, body = studio.post("/api/refine", {"model": _design(), **change})
    assert status == 400 and body["error"].startswith(expected)


def test_a_refinement_evo_refuses_fails_with_its_one_line(studio):
    status, _ = studio.post("/api/refine", {"model": _design(), "budget": 2, "genes": ["phi"]})
    assert status == 200
    state = _waited(studio, lambda s: s["state"] != "running")
    assert state["state"] == "failed" and "budget" in state["message"] and "\n" not in state["message"]


def test_every_refine_route_answers_501_where_evo_has_no_refine(tmp_path):
    # a fresh process where evo.refine's names cannot be imported (`import evo` imports the package itself)
    script = """
import asyncio, json, sys
sys.modules["evo.refine.search"] = None  # evo.refine's search cannot be imported
from starlette.routing import Router
from evo.studio import refining
from evo.studio.routing import routes_of
from evo.studio.session import StudioSession

async def call(app, method, path):
    sent = []
    async def receive():
        return {"type": "http.request", "body": b"{}", "more_body": False}
    async def send(message):
        sent.append(message)
    scope = {"type": "http", "method": method, "path": path, "headers": [], "query_string": b""}
    await app(scope, receive, send)
    return sent[0]["status"], json.loads(sent[1]["body"])

app = Router(routes=routes_of([refining.ROUTES], StudioSession()))
paths = (("POST", "/api/refine"), ("GET", "/api/refine"), ("POST", "/api/refine/stop"))
print(json.dumps([asyncio.run(call(app, m, p)) for m, p in paths] + [refining.refine_session()]))
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path)
    *answers, session = json.loads(out.stdout)
    assert answers == [[501, {"error": "refine is not available in this version"}]] * 3
    assert session == {"available": False, "message": refining.UNAVAILABLE, "genes": [], "default_genes": []}


def test_the_refine_bridge_imports_evo_refine_where_the_layer_test_sees_it():
    from tests.test_layout import GRAPH

    assert "evo.refine" in GRAPH["evo.studio.refining"]
    assert "importlib" not in Path(refining.__file__).read_text(encoding="utf-8")


def test_eight_simultaneous_refine_presses_start_exactly_one(studio_factory, tmp_path):
    server = studio_factory(str(tmp_path), cwd=tmp_path)
    body = {"model": _design(), "plugin": "distance", "budget": 20000}
    with ThreadPoolExecutor(8) as pool:
        statuses = sorted(s for s, _ in pool.map(lambda _: server.post("/api/refine", body), range(8)))
    assert statuses == [200] + [409] * 7
    server.post("/api/refine/stop", {})
    assert _waited(server, lambda s: s["state"] != "running")["state"] == "done"


@pytest.mark.parametrize("body", [b"\xff\xfe{}", b"[" * 100000 + b"]" * 100000, b"", b"{not json"])
def test_a_refine_body_that_is_not_json_text_is_one_line_400(studio, body):
    status, answer = studio.post("/api/refine", body)
    assert status == 400 and "not valid JSON" in answer["error"] and "\n" not in answer["error"]
