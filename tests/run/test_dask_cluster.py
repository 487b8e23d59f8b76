"""The local dask cluster the dask backend starts: workers forked from this process before any thread of
the cluster runs, a scheduler here, and every worker gone once it closes or this process dies."""

from __future__ import annotations

import gc
import os
import signal
import subprocess
import sys
import textwrap
import time
import weakref

import distributed  # .[test] installs dask: without it these tests fail, they do not vanish
import psutil

from evo.run.backends import dask_worker
from evo.run.backends.dask_cluster import ForkedCluster

_MARKS: list[int] = []  # set here before a fork: a forked worker sees it, a spawned one imports it empty


def _seen_marks() -> int:
    return len(_MARKS)


class _Cycle:
    def __init__(self):
        self.me = self


_WATCHED: list[weakref.ref] = []  # a garbage cycle made here just before a fork


def _inherited_garbage_before_and_after_the_runs_freeze() -> tuple[bool, bool]:
    before = _WATCHED[0]() is not None
    dask_worker._freeze_heap()  # what setting a run up does
    return before, _WATCHED[0]() is not None


def _offload_runs() -> bool:
    """Whether dask's offload pool runs a job in this worker (a pool forked with a dead thread never does)."""
    return distributed.utils._offload_executor.submit(int).result(timeout=10) == 0


def _gone(pids: list[int], within: float) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        alive = [pid for pid in pids if psutil.pid_exists(pid) and psutil.Process(pid).status() != "zombie"]
        if not alive:
            return True
        time.sleep(0.05)
    return False


def test_the_workers_are_forked_from_this_process_and_end_when_the_cluster_closes():
    _MARKS.append(1)
    try:
        cluster = ForkedCluster(2)
        try:
            with distributed.Client(cluster.cluster, set_as_default=False) as client:
                client.wait_for_workers(2, timeout=30)
                assert sorted(client.run(os.getpid).values()) == sorted(cluster.pids)
                assert set(client.run(os.getppid).values()) == {os.getpid()}
                assert set(client.run(_seen_marks).values()) == {1}  # this process's memory, not an import
        finally:
            pids = cluster.pids
            started = time.monotonic()
            cluster.close(timeout=10)
        assert time.monotonic() - started < 10  # they left when asked; none had to be killed
        assert _gone(pids, 1.0) and cluster.cluster is None and cluster.pids == []
    finally:
        _MARKS.clear()


def test_the_objects_a_worker_is_forked_with_are_never_walked_by_its_garbage_collector():
    # a collection writes into each object it walks, copying the pages the worker shares with this process:
    # an unreachable cycle made here just before the fork is never collected there, even when the run's
    # set-up collects and freezes the worker's heap
    gc.disable()  # the workers inherit it: nothing collects the cycle before they freeze what they have
    try:
        cycle = _Cycle()
        _WATCHED[:] = [weakref.ref(cycle)]
        del cycle
        cluster = ForkedCluster(2)
    finally:
        gc.enable()
    try:
        with distributed.Client(cluster.cluster, set_as_default=False) as client:
            client.wait_for_workers(2, timeout=30)
            seen = client.run(_inherited_garbage_before_and_after_the_runs_freeze)
        assert list(seen.values()) == [(True, True), (True, True)]
    finally:
        cluster.close(timeout=10)
        _WATCHED.clear()


def test_a_worker_forked_after_dask_used_its_offload_pool_here_still_offloads():
    assert distributed.utils._offload_executor.submit(int).result(timeout=10) == 0  # its thread runs here
    cluster = ForkedCluster(1)
    try:
        with distributed.Client(cluster.cluster, set_as_default=False) as client:
            client.wait_for_workers(1, timeout=30)
            assert list(client.run(_offload_runs).values()) == [True]
    finally:
        cluster.close(timeout=10)


def test_the_workers_end_with_a_process_that_is_killed(tmp_path):
    script = textwrap.dedent(
        """
        import os, signal, sys
        import distributed
        from evo.run.backends.dask_cluster import ForkedCluster
        cluster = ForkedCluster(2)
        with distributed.Client(cluster.cluster, set_as_default=False) as client:
            client.wait_for_workers(2, timeout=30)
        print(*cluster.pids, flush=True)
        os.kill(os.getpid(), signal.SIGKILL)
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == -signal.SIGKILL, done.stderr[-2000:]
    pids = [int(pid) for pid in done.stdout.split()]
    assert len(pids) == 2 and _gone(pids, 10.0)
