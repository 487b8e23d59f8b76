"""The worker side of the dask backend: the run's static data given once to every worker (and to each
that joins later) by a worker plugin, the run set up once per worker, chunks run with their errors as
data and the worker's ``evo`` log records.
"""

from __future__ import annotations

import gc
import logging
import os
import pickle
import socket
import tempfile
import threading
import time
from importlib.metadata import PackageNotFoundError, version
from typing import Any

import distributed

from evo.errors import EvoInputError
from evo.run.backends.base import ErrorData, Job, log, run_chunk

__all__ = [
    "ChunkRunner",
    "RunData",
    "chunk_on_worker",
    "one_line",
    "setup_on_worker",
    "versions",
    "worker_pids",
]

# a forked local-cluster worker's end of its pipe to the evo run process for the steps of generations made
# from arrays (evo.run.backends.dask_cluster); None in any other worker
STEPS: Any = None
_STATES: dict[str, tuple[Job, Any]] = {}  # run token -> (job, context ready to use), in this worker
_BLOBS: dict[str, tuple[bytes, int]] = {}  # run token -> (pickled job, context, setup; evo's log level)
_STATE_LOCK = threading.Lock()
_KEPT_STATES = 4  # runs remembered per worker (a long-lived cluster serves run after run)


def _local_folder(worker: Any = None) -> str:
    if worker is None:
        try:
            worker = distributed.get_worker()
        except ValueError:
            worker = None
    folder = getattr(worker, "local_directory", None)
    return str(folder) if folder else os.path.join(tempfile.gettempdir(), f"evo-worker-{os.getpid()}")


class RunData(distributed.WorkerPlugin):
    """A run's static data (the job, its context and the worker setup, pickled once by the parent; the
    ``evo`` log level), registered with the scheduler for the run: dask gives it to every worker, and to
    each worker that joins or is restarted later, before that worker runs a task. Tasks then carry only
    the run's token and their chunk."""

    def __init__(self, token: str, blob: bytes, level: int):
        self.token = token
        self.blob = blob
        self.level = level
        self.name = f"evo-run-{token}"

    def setup(self, worker: Any) -> None:
        with _STATE_LOCK:
            _BLOBS[self.token] = (self.blob, self.level)

    def teardown(self, worker: Any) -> None:
        with _STATE_LOCK:
            _BLOBS.pop(self.token, None)
            _STATES.pop(self.token, None)


def _state(token: str, worker: Any = None) -> tuple[Job, Any]:
    """The run's (job, context) in this worker, set up on first use from its :class:`RunData`."""
    with _STATE_LOCK:
        state = _STATES.get(token)
        if state is not None:
            return state
        if token not in _BLOBS:
            raise RuntimeError("the run's data never reached this worker (its plugin was not set up)")
        blob, level = _BLOBS[token]
        logging.getLogger("evo").setLevel(level)
        job, context, setup = pickle.loads(blob)
        if setup is not None:
            context = setup(context, _local_folder(worker))
        _STATES[token] = state = (job, context)
        while len(_STATES) > _KEPT_STATES:
            del _STATES[next(iter(_STATES))]
        _freeze_heap()
        return state


def _freeze_heap() -> None:
    """Collect, then move every object left (dask's, numba's, the run's context: ~150,000 in a worker)
    out of the garbage collector's sight: a full collection walked them all, 80-90 ms of a worker's
    chunk every few generations (the fork pool's workers have a far smaller heap). Objects made later are
    collected as usual; a run set up later unfreezes them first, so what earlier runs left is collected
    then -- except in a worker forked with its parent's heap frozen (:func:`freeze_inherited_heap`)."""
    if not _INHERITED_FROZEN:
        gc.unfreeze()
    gc.collect()
    gc.freeze()


_INHERITED_FROZEN = False


def freeze_inherited_heap() -> None:
    """In a worker just forked: put every object of the parent's out of the garbage collector's sight for
    good. A collection writes into each object it walks, so walking the parent's objects copies every
    page they share with it: 0.05-0.11 s of a forked worker's set-up, and its memory."""
    global _INHERITED_FROZEN
    gc.freeze()
    _INHERITED_FROZEN = True


class _Records(logging.Handler):
    """Keeps the ``evo`` log records of one thread, as plain dicts (to send back with a result)."""

    def __init__(self) -> None:
        super().__init__(logging.NOTSET)
        self.thread = threading.get_ident()
        self.records: list[dict[str, Any]] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.thread != self.thread:
            return
        data = dict(record.__dict__)
        data["msg"], data["args"] = record.getMessage(), None
        if record.exc_info:
            data["exc_text"] = logging.Formatter().formatException(record.exc_info)
        data["exc_info"] = None
        self.records.append({k: v for k, v in data.items() if _plain(v)})

    def __enter__(self) -> _Records:
        logging.getLogger("evo").addHandler(self)
        return self

    def __exit__(self, *exc: object) -> None:
        logging.getLogger("evo").removeHandler(self)


def _plain(value: Any) -> bool:
    return value is None or isinstance(value, str | int | float | bool)


def one_line(exc: BaseException) -> str:
    """An exception as one line: an :class:`EvoInputError`'s message, else ``Type: message``."""
    if isinstance(exc, EvoInputError):
        return " ".join(str(exc).split())
    return f"{type(exc).__name__}: {' '.join(str(exc).split())}"


def _where_am_i(worker: Any = None) -> str:
    try:
        worker = worker or distributed.get_worker()
    except ValueError:
        return f"dask worker process {os.getpid()} on {socket.gethostname()}"
    return f"dask worker {worker.address} (host {socket.gethostname()})"


def setup_on_worker(token: str, dask_worker: Any = None) -> dict[str, Any]:
    """The check run on every worker before the first batch: set the run up; errors come back as data."""
    with _Records() as records:
        try:
            _state(token, dask_worker)
            error = None
        except Exception as exc:
            error = f"{_where_am_i(dask_worker)}: {one_line(exc)}"
    return {
        "error": error,
        "versions": versions(),
        "records": records.records,
    }


def worker_pids(dask_scheduler: Any) -> dict[str, tuple[int, float]]:
    """Run on the scheduler (``Client.run_on_scheduler``): each worker's process id, as it gave it when it
    joined, and the seconds since the scheduler last heard from it, by address."""
    from distributed.metrics import time as now

    return {
        address: (state.pid, now() - state.last_seen) for address, state in dask_scheduler.workers.items()
    }


def versions() -> dict[str, str]:
    """The versions that must match between machines for bit-identical results."""
    found = {}
    for name in ("evo", "numba", "numpy"):
        try:
            found[name] = version(name)
        except PackageNotFoundError:
            found[name] = "unknown"
    return found


def chunk_on_worker(token: str, chunk: bytes) -> bytes:
    """Run a pickled chunk of the run ``token`` (setting the run up first in a worker that joined late);
    return the pickled ``(results, first error, seconds, log records)``. Pickling here, in one piece, is
    much cheaper than dask's serialisation of many small arrays."""
    start = time.perf_counter()
    with _Records() as records:
        try:
            job, context = _state(token)
        except Exception as exc:  # a worker that joined after the check cannot run this run's job
            failed: ErrorData = (-1, None, f"{_where_am_i()}: {one_line(exc)}", None)
            outcome = ([], failed, time.perf_counter() - start, records.records)
            return pickle.dumps(outcome, protocol=pickle.HIGHEST_PROTOCOL)
        done, error = run_chunk(job, context, pickle.loads(chunk))
        error = _named_as_at_home(error, context)
        if error is not None:
            log.error("worker %d: task %d: %s", os.getpid(), error[0], error[2])
    outcome = (done, error, time.perf_counter() - start, records.records)
    return pickle.dumps(outcome, protocol=pickle.HIGHEST_PROTOCOL)


class ChunkRunner:
    """A dask actor holding one run on one worker of a local cluster: its :meth:`run` is
    :func:`chunk_on_worker`, called by the client straight on the worker (one round trip), not as a task
    through the scheduler (docs/cluster.md, "Chunk runners"); :meth:`serve_steps` makes generations
    from arrays with it (:mod:`evo.run.shards.remote`)."""

    def __init__(self, token: str):
        self.token = token
        self.shard: Any = None  # its copy of the run, while generations are made from arrays

    def ready(self) -> int:
        """Its worker's process id (a local cluster's workers are this machine's processes)."""
        return os.getpid()

    def run(self, chunk: bytes) -> bytes:
        return chunk_on_worker(self.token, chunk)

    def serve_steps(self, stint: int) -> int:
        """Serve the steps of stint ``stint`` of generations made from arrays with the ``evo run``
        process on the pipe this worker was forked with (:data:`STEPS`), until it sends an empty message
        or closes; returns how many were served (:func:`evo.run.shards.remote.serve_steps`). Its chunks
        wait meanwhile."""
        from evo.run.shards.remote import serve_steps

        return serve_steps(self, lambda: _state(self.token)[1], STEPS, stint)


def _named_as_at_home(error: ErrorData | None, context: Any) -> ErrorData | None:
    """An error whose message (and traceback) names this worker's copy of a shipped plugin file, naming the
    file it was copied from instead, so that it reads as on the fork pool (``plugins/sprint.py:15: ...``)."""
    shipped = getattr(context, "plugin_files", None)
    origin = getattr(getattr(getattr(context, "spec", None), "plugin", None), "origin", "")
    if error is None or shipped is None or not origin.startswith("file:"):
        return error
    index, plugin, message, detail = error
    copy, home = os.path.dirname(origin[len("file:") :]), os.path.dirname(shipped.origin)

    def at_home(text: str) -> str:
        for shown in {copy, os.path.relpath(copy)} if copy else set():
            text = text.replace(shown + os.sep, home + os.sep)
        return text

    if isinstance(detail, tuple) and len(detail) == 4 and isinstance(detail[3], str):  # ChildFailed's
        detail = (*detail[:3], at_home(detail[3]))
    return index, plugin, at_home(message), detail
