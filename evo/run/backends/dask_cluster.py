"""The dask backend's cluster side in this process: the LocalCluster it starts (and the dask settings it
starts it with), a client that closes itself when it fails to start, and the workers' log records replayed
here. See :mod:`evo.run.backends.dask_pool` and docs/cluster.md."""

from __future__ import annotations

import contextlib
import logging
import signal
import threading
from typing import Any

import dask
import distributed

__all__ = ["LOCAL_CLUSTER_CONFIG", "Client", "local_cluster", "replay"]

# dask settings of the LocalCluster the backend starts: its scheduler and nannies share this process with
# the run, and its workers share the machine, so fewer housekeeping wake-ups (no sampling profiler in
# the workers, memory and system monitors every second or two, the event-loop watchdog every 200 ms)
LOCAL_CLUSTER_CONFIG: dict[str, Any] = {
    "distributed.worker.profile.enabled": False,
    "distributed.worker.memory.monitor-interval": "1s",
    "distributed.admin.system-monitor.interval": "2s",
    "distributed.admin.tick.interval": "200ms",
}


def local_cluster(workers: int) -> Any:
    """A LocalCluster of ``workers`` single-threaded processes on 127.0.0.1, no dashboard; they start
    with Ctrl-C ignored (the parent decides what it means)."""
    main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN) if main else None
    try:
        with dask.config.set(LOCAL_CLUSTER_CONFIG):
            return distributed.LocalCluster(
                n_workers=workers,
                threads_per_worker=1,
                processes=True,
                host="127.0.0.1",
                scheduler_port=0,
                dashboard_address=None,
                # its small HTTP server (health, metrics) on any free port, not on 8787
                scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
            )
    finally:
        if main and previous is not None:
            signal.signal(signal.SIGINT, previous)


class Client(distributed.Client):
    """A dask client that closes itself when it fails to start: a half-started client's event loop would
    otherwise keep the process from exiting after the run's error message."""

    def start(self, **kwargs: Any) -> Any:
        try:
            return super().start(**kwargs)
        except BaseException:
            with contextlib.suppress(Exception):
                self.close(timeout=5)
            raise


def replay(records: list[dict[str, Any]]) -> None:
    """Hand a worker's log records to this process's loggers (``run.log`` among their handlers)."""
    for data in records:
        record = logging.makeLogRecord(data)
        logger = logging.getLogger(record.name)
        if logger.isEnabledFor(record.levelno):
            logger.handle(record)
