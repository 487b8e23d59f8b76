"""The studio's HTTP and WebSocket API fuzzed (a bounded, derandomized number of examples, to a studio on
127.0.0.1 that stops with the module): every request is answered with JSON, a failure is one line with
a 4xx status, and the server never prints a traceback or stops."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.studio.test_server_hardening import _chain

API_FUZZ = settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.function_scoped_fixture,
    ],
)
ODD_STRINGS = st.sampled_from(
    ["", "\ud800", "\udcff.json", "a/" * 300, "../x.json", "\x00", "x" * 300, "é.xml"]
)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=20),
    ODD_STRINGS,
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)
KEYS = ["model", "filename", "text", "base64", "format", "path", "overwrite", "plugin", "params", "frames",
        "config", "seed_model", "budget", "genes", "seed", "bogus"]  # fmt: skip
MODELS = st.sampled_from([_chain(2), _chain(3, gravity=0.5), {**_chain(2), "links": "x"}, {"masses": []}])
BODIES = st.dictionaries(st.sampled_from(KEYS), VALUES | MODELS, max_size=5)
ROUTES = [
    "/api/open",
    "/api/terrain",
    "/api/export",
    "/api/save",
    "/api/validate",
    "/api/analyze",
    "/api/score",
]


def _sent(body) -> str:
    """JSON text (ASCII: a lone surrogate travels as its escape, NaN as NaN, as Python writes them)."""
    return json.dumps(body)


@API_FUZZ
@given(route=st.sampled_from(ROUTES), body=BODIES | VALUES)
def test_any_body_to_any_route_is_json_and_a_failure_is_one_4xx_line(studio, route, body):
    status, answer = studio.post(route, _sent(body).encode())
    assert status in (200, 400, 404, 409, 413), (status, answer)
    assert isinstance(answer, dict)
    if status != 200:
        assert "\n" not in answer["error"] and not answer["error"].startswith("internal error")
    assert studio.process.poll() is None and not any("Traceback" in line for line in studio.errors)


MESSAGE_TYPES = ["load", "play", "pause", "step", "reset", "grab", "drag", "release", "bogus", 3, None]
MESSAGES = st.builds(
    lambda kind, fields: {"type": kind, **fields},
    st.sampled_from(MESSAGE_TYPES),
    st.dictionaries(
        st.sampled_from(["model", "fps", "frames", "mass", "x", "y", "vx", "vy", "bogus"]),
        VALUES | MODELS | st.integers(0, 300),
        max_size=3,
    ),  # fmt: skip
)


@API_FUZZ
@given(messages=st.lists(MESSAGES | VALUES, min_size=1, max_size=6))
def test_any_websocket_messages_get_frames_status_or_one_line_errors_and_the_socket_stays(studio, messages):
    with studio.socket() as ws:
        for message in messages:
            ws.ws.send(_sent(message))
            ws.send_json({"type": "ping"})  # answered with an error: everything before it has been handled
            while True:
                answer = ws.receive_json(timeout=60)
                assert answer["type"] in ("frames", "status", "error"), answer
                if answer["type"] == "error":
                    assert "\n" not in answer["error"]
                    if answer["error"].startswith("unknown message type 'ping'"):
                        break
        ws.send_json({"type": "pause"})
    assert studio.process.poll() is None and not any("Traceback" in line for line in studio.errors)
