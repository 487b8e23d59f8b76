"""The CSV trace of a trajectory (``evo simulate --trace``): one row per record and mass,
``frame,mass,x,y,vx,vy``, numbers written exactly."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np

from evo.io.atomic import atomic_write_text
from evo.sim import Trajectory

__all__ = ["frame_text", "trace_csv", "write_trace"]


def frame_text(frame: float) -> str:
    """A frame number as written in the trace: ``1234567``, ``12345.25``, ``0.3`` (not ``1.23457e+06``,
    ``12345.2`` or the ``0.30000000000000004`` of 3 steps of dt = 0.1)."""
    frame = round(frame, 9)
    return str(int(frame)) if frame.is_integer() else repr(frame)


def trace_csv(trajectory) -> str:
    out = io.StringIO()
    out.write("frame,mass,x,y,vx,vy\n")
    n_rec, n = trajectory.positions.shape[:2]
    frames = np.repeat(trajectory.frames, n)
    masses = np.tile(np.arange(n), n_rec)
    pos = trajectory.positions.reshape(-1, 2).tolist()  # Python floats: repr() is the shortest exact form
    vel = trajectory.velocities.reshape(-1, 2).tolist()
    for f, m, (x, y), (vx, vy) in zip(
        map(frame_text, frames.tolist()), masses.tolist(), pos, vel, strict=True
    ):
        out.write(f"{f},{m},{x!r},{y!r},{vx!r},{vy!r}\n")
    return out.getvalue()


def write_trace(path: str | Path, trajectory: Trajectory) -> None:
    """Write :func:`trace_csv` of ``trajectory`` to ``path`` atomically."""
    atomic_write_text(path, trace_csv(trajectory))
