"""``evo studio`` starts, stops cleanly on SIGTERM and Ctrl-C, and says what to install without its extra."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

CLASSIC = Path(__file__).resolve().parents[2] / "genomes" / "classic"


def test_sigterm_stops_the_server_with_status_143_and_no_traceback(studio_factory):
    server = studio_factory(str(CLASSIC / "hopper.xml"))
    status, _ = server.get("/api/session")
    assert status == 200
    assert server.stop(signal.SIGTERM) == 143
    assert not any("Traceback" in line for line in server.errors), server.errors


def test_ctrl_c_stops_the_server_with_status_0_and_no_traceback(studio_factory):
    server = studio_factory()
    with server.socket() as ws:  # an open WebSocket does not hold the server up
        ws.send_json({"type": "pause"})
        ws.receive_json()
        assert server.stop(signal.SIGINT) == 0
    assert not any("Traceback" in line for line in server.errors), server.errors


def test_without_the_extra_the_command_is_one_line_saying_what_to_install(tmp_path):
    blocker = tmp_path / "starlette"
    blocker.mkdir()
    (blocker / "__init__.py").write_text("raise ImportError('blocked for the test')\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(
        [sys.executable, "-m", "evo", "studio", "--no-open", "--port", "0"],
        capture_output=True, text=True, env=env, timeout=120, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr == "evo studio: error: the studio needs its extra: pip install 'evo[studio]'\n"
    assert done.stdout == ""


def test_a_missing_model_is_one_line_and_status_2(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "evo", "studio", str(tmp_path / "nope.json"), "--no-open", "--port", "0"],
        capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.startswith("evo studio: error: ") and "no such file" in done.stderr
    assert done.stderr.count("\n") == 1


def test_a_port_in_use_is_one_line_and_status_2_with_a_hint(studio):
    port = studio.base.rsplit(":", 1)[1]
    done = subprocess.run(
        [sys.executable, "-m", "evo", "studio", "--no-open", "--port", port],
        capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith(f"evo studio: error: cannot listen on 127.0.0.1:{port}: ")
    assert done.stderr.endswith("try --port 0 (any free port)\n") and done.stderr.count("\n") == 1
