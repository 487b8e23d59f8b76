"""The studio's children (issue 32): plugin code runs only in child processes, so an import that sleeps,
ends the process or moves the current folder cannot stall, end or move the studio; children share its
process group and end with it, even when it is killed; SIGTERM stops it at once; a relative start works."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import evo
from evo.io.models import creature_to_dict
from tests.studio.conftest import CLASSIC
from tests.studio.test_server_evolve import TINY

PLUGIN = """
from evo import fitness_plugin
IMPORT_TIME

@fitness_plugin("hostile")
def hostile(result):
    return float(result.centroids[-1, 0])
"""


def _plugin(folder: Path, at_import: str) -> Path:
    path = folder / "hostile.py"
    path.write_text(PLUGIN.replace("IMPORT_TIME", at_import))
    return path


def _design(plugin_file: Path | None = None) -> dict:
    model = json.loads(json.dumps(creature_to_dict(evo.load_model(CLASSIC / "crawler.xml"))))
    if plugin_file is not None:  # a model scored in a run: its plugin file comes with its meta
        meta = {
            "run": "r",
            "plugin": "hostile",
            "frames": 300,
            "generation": 0,
            "plugin_paths": [str(plugin_file)],
        }
        model["meta"] = meta
    return model


def _children_of(pid: int) -> list[int]:
    """The studio's child processes (``python -m evo.studio.child TASK PID ...``) still alive."""
    return _processes(lambda argv: b"evo.studio.child" in argv and str(pid).encode() in argv)


def _processes(match) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if entry.name.isdigit() and match(argv):
            found.append(int(entry.name))
    return found


def _gone(pids: list[int], timeout: float = 60) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not any(Path(f"/proc/{p}").exists() and "zombie" not in _state(p) for p in pids):
            return True
        time.sleep(0.1)
    return False


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/status").read_text().split("State:")[1].split("\n")[0]
    except (OSError, IndexError):
        return "zombie"


def test_a_plugin_sleeping_at_import_stalls_no_other_request_and_sigterm_ends_it_all(
    studio_factory, tmp_path
):
    server = studio_factory(str(tmp_path), cwd=tmp_path)
    plugin = _plugin(tmp_path, "import time; time.sleep(600)")
    answers = []
    body = {"model": _design(plugin), "plugin": "hostile", "frames": 300}
    threading.Thread(target=lambda: answers.append(server.post("/api/score", body)), daemon=True).start()
    deadline = time.monotonic() + 60
    while not _children_of(server.process.pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    time.sleep(1.0)  # the worker is inside the plugin's import now
    data = json.dumps({"model": _design()}).encode()
    headers = {"X-Evo-Token": server.token}
    request = urllib.request.Request(server.base + "/api/validate", data=data, headers=headers, method="POST")
    with urllib.request.urlopen(request, timeout=20) as response:  # a stall would time out here
        assert response.status == 200 and json.loads(response.read())["errors"] == []
    children = _children_of(server.process.pid)
    assert children and all(os.getpgid(c) == os.getpgid(server.process.pid) for c in children)
    server.process.send_signal(signal.SIGTERM)
    assert server.process.wait(timeout=10) == 143
    assert _gone(children), "a child outlived the studio"
    importers = _processes(lambda argv: any(str(plugin).encode() in arg for arg in argv))
    assert _gone(importers), "a process importing the plugin outlived the studio"
    assert not answers or answers[0][0] != 200


def test_a_plugin_ending_its_process_at_import_is_a_one_line_400_and_the_studio_goes_on(studio):
    folder = Path(studio.get("/api/session")[1]["path"]).parent
    plugin = _plugin(folder, "import os; os._exit(0)")
    status, body = studio.post("/api/score", {"model": _design(plugin), "plugin": "hostile", "frames": 300})
    assert status == 400 and "status 0" in body["error"] and "\n" not in body["error"]
    status, body = studio.post("/api/score", {"model": _design(), "plugin": "distance", "frames": 300})
    assert status == 200 and body["fitness"][0] is not None


def test_a_plugin_moving_the_current_folder_at_import_does_not_move_the_studios_saves(studio, tmp_path):
    folder = Path(studio.get("/api/session")[1]["path"]).parent
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    plugin = _plugin(folder, f"import os; os.chdir({str(elsewhere)!r})")
    status, body = studio.post("/api/score", {"model": _design(plugin), "plugin": "hostile", "frames": 300})
    assert status == 200 and body["fitness"][0] is not None
    status, body = studio.post("/api/save", {"model": _design(), "path": "after_chdir.json"})
    assert status == 200 and Path(body["path"]) == folder / "after_chdir.json"
    assert (folder / "after_chdir.json").exists() and list(elsewhere.iterdir()) == []


def test_a_killed_studio_leaves_no_evolution_running_and_no_lock(studio_factory, tmp_path):
    server = studio_factory(str(tmp_path), cwd=tmp_path)
    config = TINY.replace("GENERATIONS", "20000")  # still running when killed, however fast
    status, body = server.post("/api/evolve", {"config": config, "seed_model": _design()})
    assert status == 200
    deadline = time.monotonic() + 240
    while (server.get("/api/evolve")[1]["generation"] or 0) < 1 and time.monotonic() < deadline:
        time.sleep(0.3)
    children = _children_of(server.process.pid)
    assert children and all(os.getpgid(c) == os.getpgid(server.process.pid) for c in children)
    server.process.kill()
    server.process.wait(timeout=30)
    assert _gone(children, timeout=120), "evo run outlived the killed studio"
    folder = Path(body["run"])
    assert not (folder / "run.lock").exists() and evo.open_run(folder).generation >= 1


def test_a_studio_started_on_a_relative_folder_evolves_from_a_design(studio_factory, tmp_path):
    (tmp_path / "my_designs").mkdir()
    server = studio_factory("my_designs/", cwd=tmp_path)  # the docs' own example
    config = TINY.replace("GENERATIONS", "1")
    status, body = server.post("/api/evolve", {"config": config, "seed_model": _design()})
    assert status == 200 and Path(body["run"]) == tmp_path / "my_designs" / "runs" / "tiny-1"
    deadline = time.monotonic() + 240
    while server.get("/api/evolve")[1]["state"] == "running" and time.monotonic() < deadline:
        time.sleep(0.3)
    state = server.get("/api/evolve")[1]
    assert state["state"] == "done", state


def test_a_meddling_plugin_scored_over_http_gives_what_the_clean_one_gives(studio):
    meddler = Path(__file__).resolve().parents[1] / "fixtures" / "user_plugins" / "meddler" / "meddler.py"
    model = _design()
    model["meta"] = {
        "run": "r",
        "plugin": "meddler",
        "frames": 300,
        "generation": 0,
        "plugin_paths": [str(meddler)],
    }
    scores = [
        studio.post(
            "/api/score", {"model": model, "plugin": "meddler", "frames": 300, "params": {"meddle": m}}
        )
        for m in (False, True)
    ]
    assert scores[0][0] == 200 and scores[0] == scores[1]


def test_a_run_folder_whose_plugin_ends_the_process_at_import_is_refused_in_one_line(tmp_path):
    plugin = _plugin(tmp_path, "")
    config = TINY.replace("GENERATIONS", "1").replace('plugin = "distance"', 'plugin = "hostile"')
    config = config.replace("[evaluation]\n", f"[evaluation]\nplugin_paths = [{str(plugin)!r}]\n")
    config = config.replace("[evaluation.params]\nsettle_frames = 0\n", "")
    (tmp_path / "c.toml").write_text(config)
    evo_run = [sys.executable, "-m", "evo", "run", "c.toml", "--out", "run", "--quiet"]
    made = subprocess.run(evo_run, cwd=tmp_path, capture_output=True, text=True)
    assert made.returncode == 0, made.stderr
    _plugin(tmp_path, "import os; os._exit(0)")  # before: reading the run's config ended the studio, status 0
    studio = [sys.executable, "-m", "evo", "studio", "run", "--port", "0", "--no-open"]
    out = subprocess.run(studio, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and out.stdout == "" and len(out.stderr.splitlines()) == 1, out
    assert "hostile.py" in out.stderr and "status 0" in out.stderr
