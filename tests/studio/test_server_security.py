"""The studio's door: the token, the Origin check and the limits on what a request may ask."""

from __future__ import annotations

import json
import urllib.request

import pytest
from websockets.exceptions import ConnectionClosed, InvalidStatus


def _small_model(n_masses: int) -> dict:
    masses = [{"x": 10.0 * i, "y": 10.0} for i in range(n_masses)]
    links = [{"a": i, "b": i + 1, "rest": 10.0} for i in range(n_masses - 1)]
    return {"format": "evo-model", "version": 1, "name": "chain", "masses": masses, "links": links}


def test_the_first_line_of_stdout_is_the_url_with_a_long_random_token(studio):
    assert studio.url.startswith("http://127.0.0.1:")
    assert len(studio.token) >= 40


@pytest.mark.parametrize("path", ["/api/session", "/static/index.html", "/"])
def test_a_request_without_the_token_is_refused(studio, path):
    status, body = studio.get(path, token=False)
    assert status == 403
    assert "token" in body["error"]


def test_a_request_with_a_wrong_token_is_refused(studio):
    status, _ = studio.get("/api/session", token=False, headers={"X-Evo-Token": studio.token[:-2] + "xx"})
    assert status == 403


def test_a_request_from_a_foreign_origin_is_refused_even_with_the_token(studio):
    status, body = studio.get("/api/session", headers={"Origin": "http://evil.example"})
    assert status == 403
    assert "origin" in body["error"]
    status, _ = studio.get("/api/session", headers={"Origin": studio.base})
    assert status == 200


def test_the_page_url_sets_an_http_only_strict_cookie_named_with_the_port_that_opens_the_api(studio):
    with urllib.request.urlopen(studio.url, timeout=30) as response:
        cookie = response.headers["set-cookie"]
        assert response.status == 200
    port = studio.base.rsplit(":", 1)[1]
    assert cookie.startswith(f"evo_studio_token_{port}={studio.token};")
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Path=/" in cookie
    assert response.headers["referrer-policy"] == "no-referrer"  # the URL holds the token
    assert response.headers["x-frame-options"] == "DENY"
    status, body = studio.get("/api/session", token=False, headers={"Cookie": cookie.split(";")[0]})
    assert status == 200 and body["model"]["name"] == "crawler"


def test_another_studios_cookie_does_not_stop_the_right_token(studio):
    stale = "evo_studio_token_1=someone-elses; evo_studio_token=older"
    status, _ = studio.get("/?token=" + studio.token, token=False, headers={"Cookie": stale})
    assert status == 200
    status, _ = studio.get("/api/session", headers={"Cookie": stale})
    assert status == 200
    status, _ = studio.get("/api/session", token=False, headers={"Cookie": stale})
    assert status == 403


def test_a_websocket_without_the_token_is_refused(studio):
    with pytest.raises((InvalidStatus, ConnectionClosed)), studio.socket(token=False) as ws:
        ws.send_json({"type": "pause"})
        ws.receive_json(timeout=10)


def test_a_websocket_from_a_foreign_origin_is_refused(studio):
    refused = (InvalidStatus, ConnectionClosed)
    with pytest.raises(refused), studio.socket(origin="http://evil.example") as ws:
        ws.send_json({"type": "pause"})
        ws.receive_json(timeout=10)


def test_a_websocket_with_the_token_and_its_own_origin_is_served(studio):
    with studio.socket(origin=studio.base) as ws:
        ws.send_json({"type": "load", "model": _small_model(3)})
        assert ws.receive_json()["type"] == "frames"


def test_the_session_reports_the_limits(studio):
    _, body = studio.get("/api/session")
    assert body["limits"] == {
        "masses": 1000, "links": 5000, "frames": 100000, "upload_bytes": 2097152, "body_bytes": 4194304,
        "terrain_points": 20000, "work": 500000000, "child_seconds": 120.0, "message_values": 1000000,
        "step_values": 20000000,
    }  # fmt: skip


def test_a_model_over_the_mass_limit_is_refused_with_413(studio):
    status, body = studio.post("/api/validate", {"model": _small_model(1001)})
    assert status == 200 and "1001 masses" in body["errors"][0]
    status, body = studio.post("/api/analyze", {"model": _small_model(1001)})
    assert status == 413 and "at most 1000" in body["error"]


def test_a_websocket_load_over_the_mass_limit_is_an_error_message(studio):
    with studio.socket() as ws:
        ws.send_json({"type": "load", "model": _small_model(1001)})
        message = ws.receive_json()
    assert message["type"] == "error" and "at most 1000" in message["error"]


def test_an_upload_over_the_upload_limit_is_refused_with_413(studio):
    status, body = studio.post("/api/open", {"filename": "big.json", "text": " " * (2 * 1024 * 1024 + 1)})
    assert status == 413 and "at most 2097152 bytes" in body["error"]


def test_a_body_over_the_body_limit_is_refused_with_413(studio):
    status, body = studio.post("/api/validate", b"[" + b"0," * (2 * 1024 * 1024 + 10) + b"0]")
    assert status == 413 and "at most 4194304 bytes" in body["error"]


def test_a_score_over_the_frame_limit_is_refused_with_413(studio):
    status, body = studio.post(
        "/api/score", {"model": _small_model(3), "plugin": "distance", "frames": 100001}
    )
    assert status == 413 and "at most 100000" in body["error"]


def test_a_step_over_the_frame_limit_is_an_error_message(studio):
    with studio.socket() as ws:
        ws.send_json({"type": "load", "model": _small_model(3)})
        ws.receive_until("status")
        ws.send_json({"type": "step", "frames": 100001})
        message = ws.receive_json()
    assert message["type"] == "error" and "at most 100000" in message["error"]


def test_a_bad_json_body_is_one_line_400(studio):
    status, body = studio.post("/api/validate", b"{not json")
    assert status == 400 and "not valid JSON" in body["error"] and "\n" not in body["error"]
    assert json.dumps(body)


@pytest.mark.parametrize("body", [b"\xff\xfe{}", b"[" * 100000 + b"]" * 100000, b""])
def test_a_body_that_is_not_json_text_is_one_line_400(studio, body):
    status, answer = studio.post("/api/validate", body)
    assert status == 400 and "not valid JSON" in answer["error"]


def test_a_websocket_message_over_the_body_limit_closes_the_socket(studio):
    with pytest.raises(ConnectionClosed), studio.socket() as ws:
        ws.send_json({"type": "load", "model": {"pad": "x" * (4 * 1024 * 1024 + 1)}})
        ws.receive_json(timeout=30)


def test_a_studio_bound_to_every_address_takes_its_own_host_as_origin_and_no_other(studio_factory):
    server = studio_factory("--host", "0.0.0.0")
    host = server.base.removeprefix("http://")
    assert server.get("/api/session", headers={"Origin": f"http://{host}"})[0] == 200
    assert server.get("/api/session", headers={"Origin": "http://evil.example"})[0] == 403
    assert server.get("/api/session", token=False, headers={"Origin": f"http://{host}"})[0] == 403


@pytest.mark.parametrize(
    "text",
    [
        "[" * 100000 + "]" * 100000,
        '{"type": "step", "frames": 1e400}',
        '{"type": "grab", "mass": 0, "x": NaN, "y": 10}',
        '{"type": "grab", "mass": 0, "x": 10, "y": Infinity}',
    ],
)
def test_a_websocket_message_with_bad_numbers_or_deep_nesting_is_an_error_message_and_the_socket_stays(
    studio, text
):
    with studio.socket() as ws:
        ws.send_json({"type": "load", "model": _small_model(3)})
        ws.receive_until("status")
        ws.ws.send(text)
        message = ws.receive_json(timeout=30)
        assert message["type"] == "error" and "\n" not in message["error"]
        ws.send_json({"type": "step", "frames": 2})
        frames = ws.receive_until("status")[0]
    assert frames["type"] == "frames" and all(x == x for row in frames["positions"][-1] for x in row)
    assert not any("Traceback" in line for line in studio.errors)
