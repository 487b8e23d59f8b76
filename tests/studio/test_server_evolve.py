"""Evolve from here: a run seeded with the design, in its own process, is an ordinary run folder that
``evo.open_run`` reads and ``evo run --resume`` continues; Stop ends it at a checkpoint; runs open."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import evo
from evo.io.models import creature_to_dict

CLASSIC = Path(__file__).resolve().parents[2] / "genomes" / "classic"
TINY = """\
[run]
name = "tiny"
seed = 5
generations = GENERATIONS
population = 8

[evaluation]
frames = 300
plugin = "distance"

[evaluation.params]
settle_frames = 0

[world]
max_speed = 50.0

[pool]
workers = 1
"""


def _design() -> dict:
    return json.loads(json.dumps(creature_to_dict(evo.load_model(CLASSIC / "crawler.xml"))))


def _wait(server, until, timeout: float = 240.0) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        _, state = server.get("/api/evolve")
        if until(state) or time.monotonic() > deadline:
            return state
        time.sleep(0.3)


def test_a_three_generation_evolution_from_a_design_is_an_ordinary_run_folder(studio_factory, tmp_path):
    server = studio_factory(str(tmp_path), cwd=tmp_path)
    assert server.get("/api/evolve")[1]["state"] == "idle"
    status, body = server.post(
        "/api/evolve", {"config": TINY.replace("GENERATIONS", "3"), "seed_model": _design()}
    )
    assert status == 200
    folder = Path(body["run"])
    assert folder.parent == tmp_path / "runs"
    state = _wait(server, lambda s: s["state"] not in ("running", "stopping"))
    assert state["state"] == "done", state
    assert [row["generation"] for row in state["history"]] == [0, 1, 2]
    assert state["best_model"]["format"] == "evo-model"
    result = evo.open_run(folder)
    assert result.generation == 2
    assert result.config.genome.seed_models and Path(result.config.genome.seed_models[0]).is_file()
    assert state["history"][-1]["best"] == float(result.history["distance_best"][-1])
    _, listing = server.get("/api/run")
    assert listing["kind"] == "ga" and listing["folder"] == str(folder)
    assert listing["elites"][0]["fitness"] == list(result.best.fitness)
    status, elite = server.get("/api/run/elite/0")
    assert (
        status == 200
        and elite["model"]["masses"]
        == json.loads(json.dumps(creature_to_dict(result.best.creature)))["masses"]
    )
    raised = folder / "more.toml"
    raised.write_text((folder / "config.toml").read_text().replace("generations = 3", "generations = 4"))
    resumed = subprocess.run(
        [sys.executable, "-m", "evo", "run", str(raised), "--resume", "--out", str(folder), "--quiet"],
        capture_output=True, text=True, timeout=240,
    )  # fmt: skip
    assert resumed.returncode == 0, resumed.stderr
    assert evo.open_run(folder).generation == 3


def test_stop_ends_the_run_at_a_checkpoint_that_resume_continues(studio_factory, tmp_path):
    server = studio_factory(str(tmp_path), cwd=tmp_path)
    status, body = server.post(
        "/api/evolve", {"config": TINY.replace("GENERATIONS", "20000"), "seed_model": _design()}
    )
    assert status == 200
    state = _wait(server, lambda s: s["generation"] is not None and s["generation"] >= 1)
    assert state["state"] == "running"
    status, stopping = server.post("/api/evolve/stop", {})
    assert status == 200 and stopping["state"] in ("stopping", "done")
    state = _wait(server, lambda s: s["state"] not in ("running", "stopping"))
    assert state["state"] == "done" and "--resume" in state["message"]
    folder = Path(body["run"])
    stopped_at = evo.open_run(folder).generation
    assert 1 <= stopped_at < 19999
    shorter = folder / "shorter.toml"  # --resume may change [run] generations: two more, not 20000
    shorter.write_text(
        (folder / "config.toml").read_text().replace("generations = 20000", f"generations = {stopped_at + 3}")
    )
    resumed = subprocess.run(
        [sys.executable, "-m", "evo", "run", str(shorter), "--resume", "--out", str(folder), "--quiet"],
        capture_output=True, text=True, timeout=240,
    )  # fmt: skip
    assert resumed.returncode == 0, resumed.stderr
    assert evo.open_run(folder).generation == stopped_at + 2


def test_a_config_error_is_shown_as_evo_validate_shows_it_and_nothing_starts(studio_factory, tmp_path):
    server = studio_factory(str(tmp_path), cwd=tmp_path)
    status, body = server.post("/api/evolve", {"config": "[run]\npopulaton = 8\n", "seed_model": _design()})
    assert status == 400
    assert body["errors"] == [
        "evo validate: error: config: unknown key 'populaton' in [run]; did you mean 'population'?"
    ]
    long = TINY.replace("GENERATIONS", "3").replace("frames = 300", "frames = 100001")
    status, body = server.post("/api/evolve", {"config": long, "seed_model": _design()})
    assert status == 400 and "at most 100000 frames per evaluation" in body["errors"][0]
    assert server.get("/api/evolve")[1]["state"] == "idle"
    assert not (tmp_path / "runs").exists()


def test_a_studio_started_on_a_run_folder_lists_its_hall_of_fame_and_opens_an_elite(studio_factory, tmp_path):
    config = tmp_path / "tiny.toml"
    config.write_text(TINY.replace("GENERATIONS", "2"))
    result = evo.evolve(str(config), out=tmp_path / "run")
    server = studio_factory(str(tmp_path / "run"))
    _, session = server.get("/api/session")
    assert session["run"] == str(tmp_path / "run") and session["model"] is None
    _, listing = server.get("/api/run")
    assert listing["kind"] == "ga" and listing["cells"] == []
    assert [row["fitness"] for row in listing["elites"]] == [list(m.fitness) for m in result.hall_of_fame]
    last = len(listing["elites"]) - 1
    _, elite = server.get(f"/api/run/elite/{last}")
    saved = evo.load_model(tmp_path / "run" / "elites" / listing["elites"][last]["file"])  # with its world
    assert elite["model"] == json.loads(json.dumps(creature_to_dict(saved)))
    assert saved.positions.tolist() == result.hall_of_fame[last].creature.positions.tolist()
    assert (
        elite["model"]["world"]["max_speed"] == 50.0
        and elite["model"]["meta"]["fitness"] == listing["elites"][last]["fitness"]
    )
    assert server.get(f"/api/run/elite/{last + 1}")[0] == 404


def test_a_studio_on_a_map_elites_run_lists_its_cells_with_their_measures(studio_factory, tmp_path):
    config = tmp_path / "qd.toml"
    config.write_text(
        TINY.replace("GENERATIONS", "2").replace("seed = 5\n", 'seed = 5\nalgorithm = "map-elites"\n')
        + '\n[qd]\narchive = "grid"\nmeasures = ["masses", "settled_height"]\nbins = [4, 4]\n'
        + "ranges = { masses = [3.0, 12.0], settled_height = [0.0, 120.0] }\nbatch_size = 4\nemitters = 1\n"
    )
    result = evo.evolve(str(config), out=tmp_path / "qd")
    server = studio_factory(str(tmp_path / "qd"))
    _, listing = server.get("/api/run")
    assert listing["kind"] == "map-elites"
    assert len(listing["cells"]) == len(result.archive.cells) > 0
    assert set(listing["cells"][0]["measures"]) == {"masses", "settled_height"}
    _, elite = server.get("/api/run/elite/0")
    assert (
        elite["model"]["masses"]
        == json.loads(json.dumps(creature_to_dict(result.archive.cells[0].member.creature)))["masses"]
    )
    assert listing["cells"][0]["file"] and elite["model"]["world"]["max_speed"] == 50.0


def test_an_evolution_from_a_studio_on_a_run_folder_lands_beside_it_and_is_the_run_listed(
    studio_factory, tmp_path
):
    runs = tmp_path / "runs"
    config = tmp_path / "tiny.toml"
    config.write_text(TINY.replace("GENERATIONS", "1"))
    evo.evolve(str(config), out=runs / "first")
    server = studio_factory(str(runs / "first"))
    assert server.get("/api/run")[1]["folder"] == str(runs / "first")
    status, body = server.post(
        "/api/evolve", {"config": TINY.replace("GENERATIONS", "1"), "seed_model": _design()}
    )
    assert status == 200 and Path(body["run"]) == runs / "tiny-1"
    assert _wait(server, lambda s: s["state"] not in ("running", "stopping"))["state"] == "done"
    assert server.get("/api/run")[1]["folder"] == str(runs / "tiny-1")


def test_sigterm_to_the_server_stops_its_evolution_at_a_checkpoint_first(studio_factory, tmp_path):
    server = studio_factory(str(tmp_path), cwd=tmp_path)
    status, body = server.post(
        "/api/evolve", {"config": TINY.replace("GENERATIONS", "20000"), "seed_model": _design()}
    )
    assert status == 200
    _wait(server, lambda s: s["generation"] is not None and s["generation"] >= 1)
    assert server.stop() == 143
    assert not any("Traceback" in line for line in server.errors), server.errors
    folder = Path(body["run"])
    deadline = time.monotonic() + 60  # evo run was asked once and finishes its checkpoint on its own
    while (folder / "run.lock").exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not (folder / "run.lock").exists()
    assert 1 <= evo.open_run(folder).generation < 19999


def test_stop_before_the_first_generation_is_done_with_no_run_to_resume(studio_factory, tmp_path):
    server = studio_factory(str(tmp_path), cwd=tmp_path)
    config = TINY.replace("GENERATIONS", "20000")
    assert server.post("/api/evolve", {"config": config, "seed_model": _design()})[0] == 200
    assert server.post("/api/evolve/stop", {})[0] == 200  # at once: evo run may not even have started
    state = _wait(server, lambda s: s["state"] not in ("running", "stopping"))
    assert state["state"] == "done", state
    if state["generation"] is None:
        assert state["message"] == "stopped before its first generation: there is no run to resume"
        assert server.get("/api/run")[0] == 404
    else:
        assert "--resume" in state["message"]


def test_a_configs_terrain_replaces_the_designs_terrain_and_its_file_name():
    from evo.studio.evolving import _merged_world

    design = {"gravity": 0.3, "terrain": [[0, 0], [1, 1]], "terrain_file": "/models/hills.xml"}
    assert _merged_world(design, {"terrain": [[0, 0], [2, 2]]}) == {
        "gravity": 0.3,
        "terrain": [[0, 0], [2, 2]],
    }
    assert _merged_world(design, {"gravity": 0.4})["terrain_file"] == "/models/hills.xml"
