"""A real dask cluster for the tests: a ``dask scheduler`` and ``dask worker`` subprocesses on 127.0.0.1.

Every wait is bounded; :meth:`ExternalCluster.close` kills whatever is left (each process in a session of
its own, so a worker's nanny and its worker process go together).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import distributed

START_TIMEOUT = 60.0  # s: a scheduler or worker that takes longer on a loaded machine fails the test


class ExternalCluster:
    """``dask scheduler`` plus ``workers`` ``dask worker`` processes (with nannies unless ``nanny`` is
    False), extra environment ``env`` for the workers, files under ``folder``."""

    def __init__(self, folder: Path, workers: int = 2, *, nanny: bool = True, env: dict | None = None):
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        scheduler_file = folder / "scheduler.json"
        dask = [sys.executable, "-m", "dask"]
        self.scheduler = self._start(
            [*dask, "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
             "--dashboard-address", "127.0.0.1:0", "--scheduler-file", str(scheduler_file)],
            "scheduler.log",
        )  # fmt: skip
        deadline = time.monotonic() + START_TIMEOUT
        while not scheduler_file.is_file() or not scheduler_file.read_text().strip():
            if time.monotonic() > deadline or self.scheduler.poll() is not None:
                self.close()
                raise RuntimeError(f"the dask scheduler did not start: {self.log('scheduler.log')}")
            time.sleep(0.05)
        self.address = json.loads(scheduler_file.read_text())["address"]
        worker_env = {**os.environ, **(env or {})}
        self.workers = [
            self._start(
                [*dask, "worker", self.address, "--nthreads", "1", "--no-dashboard", "--host", "127.0.0.1",
                 "--nanny" if nanny else "--no-nanny", "--local-directory", str(folder / f"worker{k}")],
                f"worker{k}.log",
                worker_env,
            )
            for k in range(workers)
        ]  # fmt: skip
        with self.client() as client:
            client.wait_for_workers(workers, timeout=START_TIMEOUT)

    def _start(self, command: list[str], log: str, env: dict | None = None) -> subprocess.Popen:
        with open(self.folder / log, "wb") as out:
            return subprocess.Popen(
                command, stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True
            )

    def log(self, name: str) -> str:
        return (self.folder / name).read_text(errors="replace")[-2000:]

    @contextlib.contextmanager
    def client(self):
        client = distributed.Client(self.address, timeout=START_TIMEOUT, set_as_default=False)
        try:
            yield client
        finally:
            client.close(timeout=10)

    def worker_pids(self) -> dict[str, int]:
        """The process of each worker, by address (with nannies: the worker processes they started)."""
        with self.client() as client:
            return client.run(os.getpid)

    def wait_for_workers(self, count: int) -> None:
        with self.client() as client:
            client.wait_for_workers(count, timeout=START_TIMEOUT)

    def kill_scheduler(self) -> None:
        _kill(self.scheduler)

    def close(self) -> None:
        for process in [*getattr(self, "workers", []), self.scheduler]:
            _kill(process)


def _kill(process: subprocess.Popen) -> None:
    if process.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=10)
