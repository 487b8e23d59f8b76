"""``python -m evo bench --studio``: how fast ``evo studio`` streams frames and answers an edit (a benchmark,
not a test). A real server in a subprocess, driven over its WebSocket; docs/performance.md, "Studio"."""

from __future__ import annotations

import argparse
import contextlib
import json
import signal
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from evo.bench import Section, best_time
from evo.bench.simulator import bench_world, standard_creature
from evo.io.models import creature_to_dict, load_model
from evo.model import Creature
from evo.studio.limits import StudioLimits
from evo.studio.player import Player

__all__ = ["studio_section", "walker"]

WALKER = Path(__file__).resolve().parents[2] / "genomes" / "classic" / "strider.xml"
FRAMES = {"walker": 3000, "200 masses": 1000}  # frames streamed per timed request
EDITS = 20  # loads of an edited design timed


def walker() -> Creature:
    """The walker the section streams: genomes/classic/strider.xml (hand-made, of the applet's kind)."""
    return load_model(WALKER)


def _big() -> Creature:
    creature = standard_creature(200, 600)
    return creature.replace(world=bench_world().to_dict(only_changed=True))


class _Studio:
    """``evo studio --port 0`` in a subprocess and one WebSocket to it."""

    def __enter__(self) -> _Studio:
        from websockets.sync.client import connect

        self.process = subprocess.Popen(
            [sys.executable, "-m", "evo", "studio", "--port", "0", "--no-open"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, text=True,
        )  # fmt: skip
        url = self.process.stdout.readline().strip()
        base, _, token = url.partition("/?token=")
        host, _, port = base.removeprefix("http://").rpartition(":")
        sock = socket.create_connection((host, int(port)), timeout=60)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # as browsers do: no Nagle delay
        self._stack = contextlib.ExitStack()
        self.ws = self._stack.enter_context(
            connect(
                base.replace("http://", "ws://") + "/ws",
                sock=sock,
                additional_headers={"X-Evo-Token": token},
                max_size=None,
            )  # fmt: skip
        )
        return self

    def until(self, kind: str) -> list[dict[str, Any]]:
        out = []
        while True:
            message = json.loads(self.ws.recv(timeout=600))
            out.append(message)
            if message["type"] == "error":
                raise RuntimeError(message["error"])
            if message["type"] == kind:
                return out

    def send(self, message: dict[str, Any]) -> None:
        self.ws.send(json.dumps(message))

    def __exit__(self, *exc: object) -> None:
        self._stack.close()
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(timeout=60)


def _design(creature: Creature, k: int) -> dict[str, Any]:
    """The design with the first link's rest length changed by ``k`` * 0.01 px (an edit)."""
    rest = np.array(creature.rest, dtype=float)
    rest[0] += 0.01 * k
    return json.loads(json.dumps(creature_to_dict(creature.replace(rest=rest))))


def stream_row(studio: _Studio, name: str, creature: Creature, frames: int, repeats: int, edits: int) -> dict:
    """Frames/s streamed for one design, and the time from a ``load`` of an edited design (with a ``step``)
    to its first simulated frame (frame 1) arriving, ms."""
    design = _design(creature, 0)
    studio.send({"type": "load", "model": design})
    studio.until("status")
    studio.send({"type": "step", "frames": 50})  # warm: compile or load the kernel from numba's cache
    studio.until("status")

    def stream() -> None:
        studio.send({"type": "reset"})
        studio.until("status")
        studio.send({"type": "step", "frames": frames})
        studio.until("status")

    streamed = best_time(stream, repeats)
    latencies = []
    for k in range(1, edits + 1):
        start = time.perf_counter()
        studio.send({"type": "load", "model": _design(creature, k)})
        studio.send({"type": "step", "frames": 1})
        while not any(m["type"] == "frames" and m["first"] == 1 for m in studio.until("frames")):
            pass
        latencies.append(time.perf_counter() - start)
        studio.until("status")
    player = Player(creature, StudioLimits())
    in_process = best_time(lambda: (player.reset(), player.advance(frames)), repeats)
    return {
        "design": name,
        "masses": creature.n_masses,
        "links": creature.n_links,
        "frames": frames,
        "streamed_fps": frames / streamed,
        "player_fps": frames / in_process,
        "edit_to_frame_ms_median": 1e3 * statistics.median(latencies),
        "edit_to_frame_ms_best": 1e3 * min(latencies),
    }


def studio_section(args: argparse.Namespace) -> Section:
    """Frames per second streamed over the WebSocket (and computed by the player alone) for a walker and a
    200-mass model, and the time from an edit (a ``load``) to the first new frame.

    Args:
        args: ``repeats``; optionally ``studio_frames`` ({design: frames}) and ``studio_edits`` (tests pass
            tiny values).

    Returns:
        The :class:`~evo.bench.Section` (``data["studio"]``: one row per design).
    """
    frames = getattr(args, "studio_frames", None) or FRAMES
    edits = getattr(args, "studio_edits", None) or EDITS
    designs = {"walker": walker(), "200 masses": _big()}
    rows = []
    with _Studio() as studio:
        for name, count in frames.items():
            rows.append(stream_row(studio, name, designs[name], count, max(1, args.repeats), edits))
    lines = [
        f"{'design':<11} {'masses':>6} {'links':>5} {'streamed frames/s':>17} {'player frames/s':>15} "
        f"{'edit -> frame ms (median, best)':>32}"
    ]
    for r in rows:
        lines.append(
            f"{r['design']:<11} {r['masses']:>6} {r['links']:>5} {r['streamed_fps']:>17.0f} "
            f"{r['player_fps']:>15.0f} {r['edit_to_frame_ms_median']:>21.2f}, "
            f"{r['edit_to_frame_ms_best']:.2f}"
        )
    lines.append("goal: an edit shows its first frame in under 50 ms for walker-size creatures on one core")
    return Section(
        "studio: frames streamed and edit latency (evo studio over its WebSocket)", lines, {"studio": rows}
    )
