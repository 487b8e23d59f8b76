"""``python -m evo.studio.child TASK PARENT_PID [ARGS]``: where the studio's plugin code runs (score, refine,
check, plugins, a run's listing) and how it runs ``evo run``; it ends when the studio does. Protocol:
evo.studio.children."""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import runpy
import signal
import subprocess
import sys
import threading
from typing import Any, TextIO

__all__ = ["main"]

_PR_SET_PDEATHSIG = 1
STOP = threading.Event()  # the studio asked the work to stop


def _end_with(parent: int, signum: int) -> None:
    """Have the kernel send ``signum`` when the studio's thread that started us ends (Linux), and end now
    if the studio is already gone."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signum, 0, 0, 0)
    except (OSError, AttributeError):  # not Linux: the stdin watch below still ends us
        pass
    if os.getppid() != parent:
        os._exit(1)


def _first_line() -> tuple[bytes, bytes]:
    """(the first line of stdin, what was read after it), read from the raw file descriptor."""
    read = b""
    while b"\n" not in read:
        chunk = os.read(0, 65536)
        if not chunk:
            break
        read += chunk
    line, _, rest = read.partition(b"\n")
    return line, rest


def _descendants(pid: int) -> list[int]:
    """The processes below ``pid``, children first (``pgrep -P``; none where it is missing)."""
    out, queue = [], [pid]
    while queue:
        try:
            found = subprocess.run(
                ["pgrep", "-P", str(queue.pop())], capture_output=True, text=True, timeout=5
            )
        except (OSError, subprocess.SubprocessError):
            return out
        below = [int(p) for p in found.stdout.split() if p.isdigit()]
        out += below
        queue += below
    return out


def _end_with_descendants(signum: int, frame: Any) -> None:
    """SIGTERM (the studio's end or its time limit): end what a plugin started (a helper importing it in
    isolation, a pool), then this process."""
    for pid in _descendants(os.getpid()):
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    os._exit(1)


def _watch_stdin(on_stop: Any, on_gone: Any, pending: bytes = b"") -> None:
    """Read stdin's lines (``stop``) in a thread; its end means the studio has gone. It reads the raw file
    descriptor: a thread blocked in ``sys.stdin`` holds its lock, and a process forked meanwhile (a pool's
    worker) that closes ``sys.stdin`` would wait for that lock forever."""

    def watch() -> None:
        rest = pending
        while True:
            *lines, rest = rest.split(b"\n")
            if any(line.strip() == b"stop" for line in lines):
                on_stop()
            chunk = os.read(0, 4096)
            if not chunk:
                break
            rest += chunk
        on_gone()

    threading.Thread(target=watch, daemon=True).start()


def _run_evo(argv: list[str]) -> None:
    """``evo run ...`` in this process: ``stop`` or the studio's end is one SIGTERM (a checkpoint first)."""
    sent = threading.Event()

    def terminate() -> None:
        if not sent.is_set():
            sent.set()
            os.kill(os.getpid(), signal.SIGTERM)

    _watch_stdin(terminate, terminate)
    sys.argv = ["evo", *argv]
    try:
        runpy.run_module("evo", run_name="__main__", alter_sys=True)
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)  # not held up by the stdin watch (a thread blocked reading stdin)


def _task(task: str, payload: dict[str, Any], answer: Any) -> Any:
    from evo.errors import EvoInputError
    from evo.studio.designs import design_of
    from evo.studio.limits import StudioLimits

    limits = StudioLimits(**payload.get("limits", {}))
    if task == "score":
        from evo.studio.looking import score_of

        creature = design_of(payload["model"], limits)
        return score_of(creature, payload["plugin"], payload.get("params"), payload.get("frames"), limits)
    if task == "refine":
        from evo.studio.refining import run_refinement

        return run_refinement(design_of(payload["model"], limits), payload["options"], answer, STOP)
    if task == "check":
        from evo.studio.evolving import check_config

        return check_config(payload["config"], payload.get("world"), limits)
    if task == "plugins":
        from evo.studio.looking import plugin_list

        return plugin_list()
    if task in ("listing", "elite"):  # reading a run's config imports its plugins
        from evo.studio.designs import model_object
        from evo.studio.runs import RunView

        view = RunView(payload["folder"])
        if task == "listing":
            return view.listing()
        try:
            return {"model": model_object(view.elite(payload["index"]))}
        except IndexError:
            raise EvoInputError(f"no elite {payload['index']} in this run") from None
    raise ValueError(f"unknown task {task!r}")


def _answered(task: str, payload: dict[str, Any], answer: Any) -> None:
    """Run one task and answer its ``result``, or its ``error`` in one line."""
    from evo.errors import EvoInputError

    try:
        answer({"result": _task(task, payload, answer)})
    except EvoInputError as exc:
        answer({"error": str(exc)})
    except BaseException as exc:  # a plugin's own failure, sys.exit included: one line for the page
        answer({"error": f"{type(exc).__name__}: {exc}".splitlines()[0][:300]})


def main() -> None:
    task, parent, argv = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    if task == "run":
        _run_evo(argv)
        return
    signal.signal(signal.SIGTERM, _end_with_descendants)
    _end_with(parent, signal.SIGTERM)
    protocol: TextIO = os.fdopen(os.dup(1), "w", encoding="utf-8")  # answers; a plugin's prints: stderr
    os.dup2(2, 1)

    def answer(obj: dict[str, Any]) -> None:
        protocol.write(json.dumps(obj, separators=(",", ":")) + "\n")
        protocol.flush()

    if task == "serve":  # a worker: one task per stdin line, until stdin ends (the studio has gone)
        for line in sys.stdin:
            request = json.loads(line)
            _answered(request["task"], request["payload"], answer)
    else:
        line, rest = _first_line()
        payload = json.loads(line or b"{}")
        _watch_stdin(STOP.set, lambda: os._exit(1), rest)
        _answered(task, payload, answer)
    protocol.close()
    os._exit(0)  # no plugin's atexit or thread holds the answer up


if __name__ == "__main__":
    main()
