"""Hostile requests to a running studio (issue 32): a foreign Host header, lone surrogates, deep paths and
configs, binary WebSocket frames, huge steps, terrains and scores; each one line, the server unharmed."""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from evo.errors import EvoInputError
from tests.studio.conftest import CLASSIC


def _chain(n_masses: int, **world) -> dict:
    masses = [{"x": 10.0 * i, "y": 10.0} for i in range(n_masses)]
    links = [{"a": i, "b": i + 1, "rest": 10.0} for i in range(n_masses - 1)]
    model = {"format": "evo-model", "version": 1, "name": "chain", "masses": masses, "links": links}
    return {**model, "world": world} if world else model


def _upgrade_status(base: str, host: str, token: str) -> str:
    """The status line a WebSocket handshake on ``/ws`` gets with this Host header."""
    address = base.removeprefix("http://")
    name, _, port = address.rpartition(":")
    with socket.create_connection((name, int(port)), timeout=30) as conn:
        conn.sendall(
            (
                f"GET /ws HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                f"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
                f"X-Evo-Token: {token}\r\n\r\n"
            ).encode()
        )
        return conn.recv(4096).decode("latin-1").split("\r\n", 1)[0]


def test_a_foreign_host_header_is_refused_over_http_and_websocket_even_with_the_token(studio):
    own = studio.base.removeprefix("http://")
    assert studio.get("/api/session", headers={"Host": own})[0] == 200
    port = own.rpartition(":")[2]
    for host in ("evil.example", f"evil.example:{port}", f"127.0.0.1.evil.example:{port}", f"{own}.x"):
        status, body = studio.get("/api/session", headers={"Host": host})
        assert status == 403 and "host" in body["error"], host
        assert " 101 " not in _upgrade_status(studio.base, host, studio.token), host
    assert " 101 " in _upgrade_status(studio.base, own, studio.token)


def test_a_studio_bound_to_every_address_takes_an_ip_or_localhost_as_host_but_no_domain(studio_factory):
    server = studio_factory("--host", "0.0.0.0")
    port = server.base.rpartition(":")[2]
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}"):
        assert server.get("/api/session", headers={"Host": host})[0] == 200, host
    assert server.get("/api/session", headers={"Host": f"evil.example:{port}"})[0] == 403
    assert server.get("/api/session", headers={"Host": "127.0.0.1:1"})[0] == 403


def test_the_browser_gets_a_private_redirect_file_and_no_token_in_its_command_line(tmp_path):
    record = tmp_path / "browser.txt"
    browser = tmp_path / "browser.sh"
    page = '"${1#file://}"'
    script = f'echo "$@" > {record}.tmp; cat {page} >> {record}.tmp; echo >> {record}.tmp\n'
    script += f"stat -c %a {page} >> {record}.tmp; mv {record}.tmp {record}\n"
    browser.write_text("#!/bin/sh\n" + script)
    browser.chmod(0o755)
    env = {**os.environ, "BROWSER": f"{browser} %s", "PYTHONUNBUFFERED": "1"}
    process = subprocess.Popen([sys.executable, "-m", "evo", "studio", "--port", "0"], cwd=tmp_path, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
    try:
        url = process.stdout.readline().strip()
        token = url.partition("?token=")[2]
        deadline = time.monotonic() + 60
        while not record.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        argv, *page, mode = record.read_text().splitlines()
    finally:
        process.terminate()
        process.wait(timeout=30)
    assert len(token) >= 40 and token not in argv and argv.startswith("file://")
    assert url.replace("&", "&amp;") in "\n".join(page) and mode == "600"
    assert not Path(argv.removeprefix("file://")).exists()  # removed when the studio stopped


@pytest.mark.parametrize("route", ["/api/open", "/api/terrain"])
def test_a_lone_surrogate_file_name_is_a_one_line_400(studio, route):
    text = json.dumps(_chain(3)) if route == "/api/open" else (CLASSIC / "crawler.xml").read_text("latin-1")
    status, body = studio.post(
        route, b'{"filename": "\\ud800.xml", "text": ' + json.dumps(text).encode() + b"}"
    )
    assert status == 400 and body["error"] == "filename: a string that is not Unicode text (a lone surrogate)"


def test_a_save_with_a_lone_surrogate_in_its_path_or_meta_is_refused_and_writes_nothing(studio):
    folder = Path(studio.get("/api/session")[1]["path"]).parent
    before = sorted(folder.iterdir())
    model = json.dumps(_chain(3))
    for body in (
        f'{{"model": {model}, "path": "\\udcff.json"}}',
        f'{{"model": {model[:-1]}, "meta": {{"note": "\\ud83d"}}}}, "path": "meta.json"}}',
    ):
        status, answer = studio.post("/api/save", body.encode())
        assert status == 400 and "lone surrogate" in answer["error"] and "\n" not in answer["error"]
    assert sorted(folder.iterdir()) == before


def test_save_refuses_a_design_whose_file_evo_validate_would_refuse_and_takes_one_it_accepts(studio):
    from evo.io.models import creature_from_dict
    from evo.studio.designs import readable_again

    refused = creature_from_dict({**_chain(3), "meta": {"note": "\ud800"}})  # past the body's own check
    with pytest.raises(EvoInputError, match="^model: evo validate would refuse it: "):
        readable_again(refused, "json")
    status, answer = studio.post(
        "/api/save", {"model": {**_chain(3), "meta": {"note": "ok"}}, "path": "ok.json"}
    )
    assert status == 200
    check = subprocess.run([sys.executable, "-m", "evo", "validate", answer["path"]], capture_output=True)
    assert check.returncode == 0, check.stderr


def test_a_2000_deep_save_path_is_a_one_line_400(studio):
    status, body = studio.post("/api/save", {"model": _chain(3), "path": "a/" * 2000 + "x.json"})
    assert status == 400 and body["error"].startswith("path: expected at most") and "\n" not in body["error"]


def test_a_50000_deep_evolve_config_is_a_one_line_400(studio):
    config = "x = " + "[" * 50000 + "]" * 50000
    status, body = studio.post("/api/evolve", {"config": config, "seed_model": None})
    assert status == 400 and "nested too deeply" in body["error"] and "\n" not in body["error"]
    status, body = studio.post("/api/validate", b'{"model": ' + b"[" * 5000 + b"]" * 5000 + b"}")
    assert status == 400 and "\n" not in body["error"]


def test_a_binary_websocket_frame_is_an_error_message_and_the_socket_stays(studio):
    with studio.socket() as ws:
        ws.ws.send(b'{"type": "pause"}')
        message = ws.receive_json()
        assert message == {
            "type": "error",
            "error": "a binary WebSocket message: the studio takes JSON text messages",
        }
        ws.send_json({"type": "load", "model": _chain(3)})
        assert ws.receive_until("status")[-1]["frame"] == 0
    assert not any("Traceback" in line for line in studio.errors), studio.errors


def _peak_rss(pid: int) -> int:
    """The process's peak resident memory, bytes (VmHWM)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmHWM")


def test_a_step_of_any_size_on_a_1000_mass_design_keeps_the_servers_memory_bounded(studio_factory):
    server = studio_factory()
    with server.socket() as ws:
        ws.send_json({"type": "load", "model": _chain(1000)})
        ws.receive_until("status")
        before = _peak_rss(server.process.pid)
        ws.send_json({"type": "step", "frames": 100000})
        message = ws.receive_json()
        assert message["type"] == "error" and "at most 2e+07" in message["error"]
        ws.send_json({"type": "step", "frames": 2500})  # before: ~+0.5 GB at once; now in parts
        parts = ws.receive_until("status")
    records = sum(len(p["positions"]) for p in parts if p["type"] == "frames")
    assert records == 2500 and len(parts) > 2 and parts[-1]["frame"] == 2500
    assert _peak_rss(server.process.pid) - before < 300 * 1024 * 1024


def test_a_terrain_over_the_point_limit_is_refused_in_a_model_and_an_upload(studio):
    terrain = [[[float(x), 0.0] for x in range(20001)]]
    status, body = studio.post("/api/analyze", {"model": _chain(3, terrain=terrain)})
    assert status == 413 and "at most 20000" in body["error"]
    bars = "".join(f'<mass id="m{i}" x="{i}" y="0" vx="0" vy="0" fixed="true"/>' for i in range(20002))
    status, body = studio.post(
        "/api/terrain", {"filename": "t.xml", "text": f"<model><nodes>{bars}</nodes></model>"}
    )
    assert status in (400, 413) and "\n" not in body["error"]


def test_a_score_whose_work_is_over_the_limit_is_refused_before_it_starts(studio):
    terrain = [[[float(x), 0.0] for x in range(10000)]]
    status, body = studio.post(
        "/api/score", {"model": _chain(200, terrain=terrain), "plugin": "distance", "frames": 100000}
    )
    assert status == 413 and "units of work" in body["error"]


def test_the_session_refuses_unknown_keys_and_wrong_kinds_naming_the_field(studio):
    status, body = studio.post("/api/score", {"model": _chain(3), "plugin": "distance", "frame": 10})
    assert status == 400 and body["error"].startswith("unknown key 'frame'") and "'frames'" in body["error"]
    status, body = studio.post("/api/score", {"model": _chain(3), "plugin": "distance", "frames": "10"})
    assert status == 400 and body["error"] == "frames: expected an integer >= 1, got '10'"
    status, body = studio.post("/api/save", {"model": _chain(3), "path": "y.json", "overwrite": "yes"})
    assert status == 400 and body["error"] == "overwrite: expected true or false, got 'yes'"
    assert stat.S_ISDIR(os.stat(Path(studio.get("/api/session")[1]["path"]).parent).st_mode)
