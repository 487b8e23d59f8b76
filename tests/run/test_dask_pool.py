"""The dask backend on its own: task order, chunk keys, errors as data, progress, logs, and the ways a
cluster can fail (no scheduler, no worker, workers that die)."""

from __future__ import annotations

import logging
import os
import time

import dask  # .[test] installs dask: without it these tests fail, they do not vanish
import distributed
import pytest
from backend_jobs import (
    dies,
    dies_once,
    evaluate_payload,
    fails_late_on_one_and_at_once_on_a_later_one,
    fails_on_the_fifth,
    holds_run_data,
    logs,
    stuck_once,
    where_evaluated,
)

from evo.run.backends import EvaluationFailed, InProcess, Task
from evo.run.backends.dask_pool import LAST_WEIGHT, DaskPool
from evo.run.folder.writer import run_logging


def local_cluster(**options):
    """A LocalCluster on 127.0.0.1, no dashboard, its HTTP server on a free port."""
    return distributed.LocalCluster(
        host="127.0.0.1", dashboard_address=None, scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
        **options,
    )  # fmt: skip


@pytest.fixture(scope="module")
def address():
    """A LocalCluster of two worker processes, shared by the tests; a task whose worker dies is not
    tried again (``allowed-failures`` 0), so that a test of dying workers stays short."""
    with dask.config.set({"distributed.scheduler.allowed-failures": 0}):
        cluster = local_cluster(n_workers=2, threads_per_worker=1)
    yield cluster.scheduler_address
    cluster.close(timeout=20)


def test_results_come_back_in_task_order_equal_to_in_process_whatever_the_chunks(spec, tasks, address):
    with InProcess(evaluate_payload, spec) as local:
        expected = local.run(tasks)
    for chunksize in (0, 1):
        with DaskPool(evaluate_payload, spec, 2, chunksize, address=address) as pool:
            assert pool.run(tasks) == expected
            assert pool.run(list(reversed(tasks))) == expected[::-1]


def _square(payload, context):
    return payload * payload + context


def test_equal_payloads_in_chunks_of_later_batches_are_not_taken_for_earlier_ones(address):
    with DaskPool(_square, 0, 2, 1, address=address) as pool:
        assert pool.run([Task(0, 3), Task(1, 3)]) == [9, 9]
        assert pool.run([Task(0, 4), Task(1, 5)]) == [16, 25]  # same chunk numbers, new keys
    with DaskPool(_square, 1, 2, 1, address=address) as pool:  # another pool: another context
        assert pool.run([Task(0, 3), Task(1, 3)]) == [10, 10]


def _keys_on_the_cluster(client) -> set:
    return {key for keys in client.has_what().values() for key in keys}


def test_a_batchs_results_are_let_go_once_the_next_batch_is_sent_and_none_are_left_at_the_end(address):
    with distributed.Client(address, set_as_default=False) as client:
        with DaskPool(_square, 0, 2, 1, address=address) as pool:
            assert pool.run([Task(0, 3), Task(1, 4)]) == [9, 16]
            first = {future.key for future in pool._last_batch}
            assert len(first) == 2 and first <= _keys_on_the_cluster(client)  # held: no message yet
            assert pool.run([Task(0, 5), Task(1, 6)]) == [25, 36]
            second = {future.key for future in pool._last_batch}
            assert second.isdisjoint(first)
            deadline = time.monotonic() + 10
            while first & _keys_on_the_cluster(client) and time.monotonic() < deadline:
                time.sleep(0.05)
            assert not first & _keys_on_the_cluster(client)
        deadline = time.monotonic() + 10
        while second & _keys_on_the_cluster(client) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not second & _keys_on_the_cluster(client)


def _frozen() -> int:
    import gc

    return gc.get_freeze_count()


def test_a_worker_freezes_its_heap_once_the_run_is_set_up(address):
    with (
        distributed.Client(address, set_as_default=False) as client,
        DaskPool(_square, 0, 2, 1, address=address) as pool,
    ):
        assert pool.run([Task(0, 3), Task(1, 4)]) == [9, 16]
        frozen = client.run(_frozen)
    assert len(frozen) == 2 and all(count > 10_000 for count in frozen.values())


def test_progress_counts_the_weight_of_the_tasks_as_chunks_come_back(tasks, spec, address):
    seen = []
    weighted = [Task(t.index, t.payload, weight=2) for t in tasks]
    with DaskPool(evaluate_payload, spec, 2, 3, address=address) as pool:
        pool.run(iter(weighted), seen.append, expected=len(weighted))
    assert seen[0] == 0  # every chunk sent out, none back yet
    assert sum(seen) == 2 * len(tasks) and len(seen[1:]) == 5  # 13 tasks in chunks of 3


def test_a_failing_task_comes_back_as_data_naming_the_plugin_and_what_failed(spec, tasks, address):
    with DaskPool(fails_on_the_fifth, spec, 2, address=address) as pool:
        with pytest.raises(EvaluationFailed) as caught:
            pool.run(tasks)
        assert caught.value.index == 4 and caught.value.plugin == "distance"
        assert caught.value.detail == ("the creature", 1004)
        assert pool.run(tasks[:4]) == [evaluate_payload(t.payload, spec) for t in tasks[:4]]  # still usable


def test_the_first_failing_task_in_order_is_reported_whatever_fails_first(spec, tasks, address, tmp_path):
    context = (spec, str(tmp_path / "fast-failed"), 2, 3)
    with (
        DaskPool(fails_late_on_one_and_at_once_on_a_later_one, context, 2, 1, address=address) as pool,
        pytest.raises(EvaluationFailed, match="KeyError: 'slow'") as caught,
    ):
        pool.run(tasks)
    assert caught.value.index == 2


def test_log_records_of_dask_workers_reach_the_run_log(spec, tasks, address, tmp_path):
    path = tmp_path / "run.log"
    with run_logging(path), DaskPool(logs, spec, 2, 1, address=address) as pool:
        pool.run(tasks)
    lines = [line for line in path.read_text().splitlines() if "evaluated seed" in line]
    assert sorted(int(line.split()[-4]) for line in lines) == [1000 + t.index for t in tasks]
    pids = {line.split()[2] for line in lines}
    assert str(os.getpid()) not in pids and {line.split()[-1] for line in lines} == pids


def test_a_task_whose_workers_die_raises_instead_of_hanging(spec, tasks, address):
    with DaskPool(dies, spec, 2, address=address) as pool, pytest.raises(EvaluationFailed) as caught:
        pool.run(tasks[:2])
    assert caught.value.index == -1 and "dask workers kept dying" in caught.value.message
    with distributed.Client(address, set_as_default=False) as client:
        client.wait_for_workers(2, timeout=60)  # the nannies start them again


def test_a_local_cluster_whose_workers_all_die_fails_at_once(spec, tasks):
    started = time.monotonic()
    # a local cluster of its own
    with DaskPool(dies, spec, 2) as pool, pytest.raises(EvaluationFailed) as caught:
        pool.run(tasks[:4])
    assert caught.value.index == -1 and "no worker of the local dask cluster is left" in caught.value.message
    assert time.monotonic() - started < pool.worker_wait / 2  # its forked workers have no nanny to wait for


def test_a_local_cluster_sends_chunks_to_its_runners_with_the_results_of_tasks(spec, tasks, tmp_path):
    with InProcess(evaluate_payload, spec) as local:
        expected = local.run(tasks)
    seen = []
    with DaskPool(evaluate_payload, spec, 2, 3) as pool:  # a LocalCluster of its own
        assert pool.run(tasks, seen.append) == expected
        assert pool.run(list(reversed(tasks))) == expected[::-1]
        assert pool.sent == {"runner": 10, "task": 0}  # 13 tasks in chunks of 3, twice
    assert seen[0] == 0 and sum(seen) == len(tasks) and len(seen) == 6
    context = (spec, str(tmp_path / "fast-failed"), 2, 3)
    with (
        DaskPool(fails_late_on_one_and_at_once_on_a_later_one, context, 2, 1) as pool,
        pytest.raises(EvaluationFailed, match="KeyError: 'slow'") as caught,
    ):
        pool.run(tasks)
    assert caught.value.index == 2 and pool.sent["task"] == 0  # the first in order, not the first to fail


def test_a_shared_local_cluster_has_one_worker_fewer_and_this_process_runs_the_last_chunk(spec, tasks):
    with InProcess(evaluate_payload, spec) as local:
        expected = local.run(tasks)
    seen: list[int] = []
    with DaskPool(where_evaluated, spec, 2, 3, share=True) as pool:  # a LocalCluster of its own
        for _ in range(2):
            done = pool.run(tasks, seen.append)
            assert [evaluation for _, evaluation in done] == expected
            pids = [pid for pid, _ in done]
            assert pids[12] == os.getpid()  # 13 tasks in chunks of 3: the last holds one
            assert len(set(pids)) <= 2 and pool._worker_count() == 1
        assert pool.sent["task"] == 0 and pool.sent["runner"] < 8  # 5 chunks twice, some run here
        assert pool.last_weight == LAST_WEIGHT > 1.0  # the run cuts this process a larger last chunk
        pool._drop_runners()  # a worker lost: chunks go as tasks, none runs here
        assert pool.last_weight == 1.0
    assert sum(seen) == 2 * len(tasks) and seen.count(0) == 2
    with DaskPool(where_evaluated, spec, 2, 3, share=True, address="tcp://127.0.0.1:1") as pool:
        assert not pool.share and pool.last_weight == 1.0  # a scheduler's workers: this process only sends


def test_a_local_cluster_started_early_leaves_the_first_batches_to_this_process_then_shares_them(spec, tasks):
    with InProcess(evaluate_payload, spec) as local:
        expected = local.run(tasks)
    with DaskPool(where_evaluated, spec, 2, 3, share=True, early_start=True) as pool:
        assert pool.processes == 1 and pool.last_weight == 1.0  # the first batch is cut for this process
        done = pool.run(tasks)
        assert [evaluation for _, evaluation in done] == expected
        assert {pid for pid, _ in done} == {os.getpid()} and pool.sent == {"runner": 0, "task": 0}
        deadline = time.monotonic() + 120
        while pool.processes == 1:  # this process alone until the cluster has started
            assert time.monotonic() < deadline, "the local cluster never became ready"
            done = pool.run(tasks)
            assert [evaluation for _, evaluation in done] == expected
        assert pool.processes == 2 and pool.last_weight == LAST_WEIGHT and pool._worker_count() == 1
        done = pool.run(tasks)  # now shared with the worker's chunk runner, the same results
        assert [evaluation for _, evaluation in done] == expected and pool.sent["runner"] >= 1
    with DaskPool(where_evaluated, spec, 2, 3, early_start=True) as pool:  # without share: no early start
        assert not pool.early_start and pool.processes == 2


def test_a_local_cluster_that_fails_to_start_early_fails_the_next_batch_in_one_line(
    spec, tasks, monkeypatch, caplog
):
    from evo.run.backends.dask_cluster import ForkedCluster

    def broken(self):
        raise OSError("no port left")

    monkeypatch.setattr(ForkedCluster, "start", broken)
    with InProcess(evaluate_payload, spec) as local:
        expected = local.run(tasks[:4])
    said = "dask: cannot start a local dask cluster: OSError: no port left"
    started = time.monotonic()
    with DaskPool(evaluate_payload, spec, 2, share=True, early_start=True) as pool:
        assert pool.run(tasks[:4]) == expected  # this process's, while the start fails on its thread
        if pool._starting is not None:  # still starting when the batch ended
            pool._starting.join(timeout=30)
        with pytest.raises(EvaluationFailed) as caught:
            pool.run(tasks[:4])
        assert caught.value.index == -1 and "dask: " + caught.value.message == said
        workers = pool._cluster
    assert workers.alive() == 0  # the forked workers end with the pool
    assert time.monotonic() - started < pool.worker_wait / 2
    assert said not in caplog.text  # said once, by the batch
    # a run that ends before its next batch: the pool's close says it
    with DaskPool(evaluate_payload, spec, 2, share=True, early_start=True) as pool:
        assert pool.run(tasks[:4]) == expected
        if pool._starting is not None:
            pool._starting.join(timeout=30)
    assert said in caplog.text


def test_a_start_asked_for_by_the_partners_question_that_fails_fails_the_next_batch(
    spec, tasks, monkeypatch, caplog
):
    """A resumed run asks whether the chunk runners can make its generations before any batch has started
    the cluster: a start that fails there, after its client exists, fails the next batch with its own
    message (it was swallowed, and the batch ran on workers the run was never set up on)."""

    def refused(self):
        raise EvaluationFailed(-1, None, "dask worker tcp://127.0.0.1:1 cannot load plugin 'distance'")

    monkeypatch.setattr(DaskPool, "_check_workers", refused)
    with DaskPool(evaluate_payload, spec, 2, share=True) as pool:
        assert pool.partners_why() == ("the local dask cluster did not start", True)
        assert pool._client is not None  # (the start got that far)
        with pytest.raises(EvaluationFailed) as caught:
            pool.run(tasks[:4])
        assert caught.value.message == "dask worker tcp://127.0.0.1:1 cannot load plugin 'distance'"
        assert pool.sent == {"runner": 0, "task": 0}
    assert "cannot load plugin" not in caplog.text  # (raised by the batch, not said again at the close)


def test_an_early_start_that_fails_once_its_client_exists_fails_the_next_batch_and_closes_all_it_made(
    spec, tasks, monkeypatch, caplog
):
    def refused(self):  # after the scheduler, the client and the worker joining: the run's set-up fails
        raise EvaluationFailed(-1, None, "dask worker tcp://127.0.0.1:1 cannot load plugin 'distance'")

    monkeypatch.setattr(DaskPool, "_check_workers", refused)
    with InProcess(evaluate_payload, spec) as local:
        expected = local.run(tasks[:4])
    pool = DaskPool(evaluate_payload, spec, 2, share=True, early_start=True)
    try:
        assert pool.run(tasks[:4]) == expected
        if pool._starting is not None:
            pool._starting.join(timeout=60)
        client, workers = pool._client, pool._cluster
        assert client is not None and client.status == "running"  # the start got that far
        with pytest.raises(EvaluationFailed) as caught:
            pool.run(tasks[:4])
        assert caught.value.message == "dask worker tcp://127.0.0.1:1 cannot load plugin 'distance'"
        with pytest.raises(EvaluationFailed) as again:  # and so does every later batch, no second cluster
            pool.run(tasks[:4])
        assert again.value.message == caught.value.message
        assert pool._cluster is workers and pool.sent == {"runner": 0, "task": 0}
    finally:
        pool.close()
    assert client.status == "closed" and workers.alive() == 0
    assert "cannot load plugin" not in caplog.text  # raised by the batch, not said again at the close


def test_a_pool_closed_while_its_local_cluster_starts_ends_at_once_and_its_workers_with_it(
    spec, tasks, monkeypatch, caplog
):
    from evo.run.backends.dask_cluster import ForkedCluster

    start = ForkedCluster.start

    def mute(self):  # the scheduler starts, its workers never hear of it: the start waits for them
        pipes, self._pipes = self._pipes, []
        try:
            start(self)
        finally:
            self._pipes = pipes

    monkeypatch.setattr(ForkedCluster, "start", mute)
    with InProcess(evaluate_payload, spec) as local:
        expected = local.run(tasks[:2])
    pool = DaskPool(evaluate_payload, spec, 2, share=True, early_start=True)
    assert pool.run(tasks[:2]) == expected
    workers, thread = pool._cluster, pool._starting
    assert thread is not None and thread.is_alive()
    closing = time.monotonic()
    pool.close()
    assert time.monotonic() - closing < 10  # the start gave up: no wait for a worker (worker_wait, 60 s)
    assert not thread.is_alive() and workers.alive() == 0
    assert "cannot start" not in caplog.text and "had started" not in caplog.text  # a close, not a failure


def test_a_runner_whose_worker_dies_leaves_its_chunks_to_tasks_and_changes_nothing(
    spec, tasks, tmp_path, monkeypatch
):
    monkeypatch.setenv("EVO_TEST_DIE_ONCE", str(tmp_path / "died"))  # the workers inherit it
    with InProcess(evaluate_payload, spec) as local:
        expected = local.run(tasks)
    with DaskPool(dies_once, spec, 2, 3) as pool:
        assert pool.run(tasks) == expected
        assert (tmp_path / "died").exists() and pool.sent["runner"] >= 2 and pool.sent["task"] >= 1
        assert pool._runners is None  # tasks from now on
        assert pool.run(tasks) == expected


def test_a_runner_that_gives_no_answer_leaves_its_chunk_and_the_rest_to_tasks_and_changes_nothing(
    spec, tasks, tmp_path, monkeypatch, caplog
):
    from evo.run.shards.shared import Watch

    monkeypatch.setenv("EVO_TEST_STUCK_ONCE", str(tmp_path / "stuck"))  # the workers inherit it
    monkeypatch.setattr(Watch, "FLOOR", 2.0)
    monkeypatch.setattr(Watch, "FACTOR", 0.0)  # (the limit the floor, however slow this machine)
    with InProcess(evaluate_payload, spec) as local:
        expected = local.run(tasks)
    with DaskPool(stuck_once, spec, 2, 3, poll=0.1) as pool, caplog.at_level(logging.INFO, "evo"):
        assert pool.run(tasks) == expected  # (chunk 2, with task 6, as a task: the marker is there)
        assert (tmp_path / "stuck").exists() and pool.sent["task"] >= 1
        assert pool._runners is None and pool._cluster.alive() == 1  # its worker ended; tasks from now on
        assert pool.run(tasks) == expected
    said = "dask: a chunk runner gave no answer for 2 s (stopped or stuck); its worker is ended"
    assert said in caplog.text and "a chunk runner stalled; chunks go as tasks from now on" in caplog.text


@pytest.mark.parametrize("workers, checked", [(2, True), (1, True), (2, False)])
def test_a_task_that_gives_no_answer_has_its_worker_ended_and_changes_nothing(
    workers, checked, spec, tasks, tmp_path, monkeypatch, caplog
):
    """Chunks sent as tasks (no chunk runners: a scheduler's address, or runners dropped): the worker
    holding a stuck one is ended, and dask gives its tasks to the worker left -- or, with none left,
    this process runs them (``share``). Not ``checked``: the workers joined after the run's first check
    (they set the run up with their first chunk), and are known by the scheduler's records alone."""
    from evo.run.shards.shared import Watch

    monkeypatch.setenv("EVO_TEST_STUCK_ONCE", str(tmp_path / "stuck"))  # the workers inherit it
    monkeypatch.setattr(Watch, "FLOOR", 2.0)
    monkeypatch.setattr(Watch, "FACTOR", 0.0)  # (the limit the floor, however slow this machine)
    monkeypatch.setattr(DaskPool, "_start_runners", lambda pool: None)  # (chunks go as tasks)
    if not checked:
        monkeypatch.setattr(DaskPool, "_check_workers", lambda pool: None)
    with InProcess(evaluate_payload, spec) as local:
        expected = local.run(tasks)
    share = workers == 1  # (one dask worker and this process)
    with (
        DaskPool(stuck_once, spec, workers + share, 3, poll=0.1, share=share) as pool,
        caplog.at_level(logging.INFO, "evo"),
    ):
        assert pool.run(tasks) == expected
        assert (tmp_path / "stuck").exists() and pool.sent["runner"] == 0
        assert pool._cluster.alive() == workers - 1 and pool._on_its_own == share
        assert pool.run(tasks) == expected
    said = "dask: a chunk sent as a task gave no answer for 2 s (stopped or stuck); its worker is ended"
    assert said in caplog.text


class _Held:
    """A chunk's future as ``_tasks_stalled`` reads it."""

    def __init__(self, key: str, status: str):
        self.key, self.status = key, status


class _Scheduler:
    """What a local cluster's client answers ``_tasks_stalled``: chunk ``run`` running on worker a, the
    results of ``done`` and ``late`` held by workers b (heard from 0.5 s ago) and c (30 s ago)."""

    def processing(self):
        return {"tcp://a": ["run"], "tcp://b": [], "tcp://c": []}

    def who_has(self, futures):
        holder = {"done": ["tcp://b"], "late": ["tcp://c"]}
        return {future.key: holder[future.key] for future in futures}

    def run_on_scheduler(self, function):
        return {"tcp://a": (11, 0.5), "tcp://b": (12, 0.5), "tcp://c": (13, 30.0)}


class _Forked:
    pids = [11, 12, 13]

    def __init__(self):
        self.ended: list[int] = []

    def end(self, pid):
        self.ended.append(pid)

    def alive(self):
        return 3 - len(self.ended)


@pytest.mark.parametrize(
    "pending, ended",
    [
        ([("run", "pending")], [11]),  # running it, however recently heard from
        ([("done", "finished")], []),  # a result a live worker holds: its fetch is under way
        ([("late", "finished")], [13]),  # a result a worker unheard from for 30 s holds: stopped
        ([("run", "pending"), ("done", "finished"), ("late", "finished")], [11, 13]),
    ],
)
def test_the_workers_ended_for_silent_tasks_are_those_running_them_or_holding_results_unheard_of(
    pending, ended, spec
):
    pool = DaskPool(evaluate_payload, spec, 3)
    pool._client, pool._cluster = _Scheduler(), _Forked()
    try:
        pool._tasks_stalled({_Held(*held) for held in pending}, 60.0)
        assert pool._cluster.ended == ended
    finally:
        pool._client = pool._cluster = None


def test_a_task_that_gives_no_answer_on_a_scheduler_s_cluster_is_said_once_and_waited_for(
    spec, tasks, tmp_path, monkeypatch, caplog
):
    """A cluster given by ``address``: its workers are not the run's to end; the run says so once and
    waits (dask's scheduler removes a worker whose heartbeats stop after its ``worker-ttl``)."""
    from evo.run.shards.shared import Watch

    monkeypatch.setenv("EVO_TEST_STUCK_ONCE", str(tmp_path / "stuck"))
    monkeypatch.setenv("EVO_TEST_STUCK_SECONDS", "5")
    monkeypatch.setattr(Watch, "FLOOR", 1.0)
    monkeypatch.setattr(Watch, "FACTOR", 0.0)
    with InProcess(evaluate_payload, spec) as local:
        expected = local.run(tasks)
    with (
        local_cluster(n_workers=1, threads_per_worker=1, processes=False, protocol="tcp://") as cluster,
        DaskPool(stuck_once, spec, 1, 3, address=cluster.scheduler_address, poll=0.1) as pool,
        caplog.at_level(logging.INFO, "evo"),
    ):
        assert pool.run(tasks) == expected and (tmp_path / "stuck").exists()
    said = "dask: a chunk sent as a task gave no answer for 1 s (stopped or stuck); waiting for the dask"
    assert caplog.text.count(said) == 1


def test_a_local_cluster_whose_only_worker_gives_no_answer_fails_where_its_plugin_may_not_run_here(
    spec, tasks, tmp_path, monkeypatch
):
    from evo.run.shards.shared import Watch

    monkeypatch.setenv("EVO_TEST_STUCK_ONCE", str(tmp_path / "stuck"))  # the worker inherits it
    monkeypatch.setattr(Watch, "FLOOR", 2.0)
    monkeypatch.setattr(Watch, "FACTOR", 0.0)
    with (
        DaskPool(stuck_once, spec, 1, 3) as pool,  # (not shared: this process never evaluates)
        pytest.raises(EvaluationFailed, match=r"workers gave no answer \(stopped or stuck\): none is left"),
    ):
        pool.run(tasks)
    assert (tmp_path / "stuck").exists() and pool._cluster is None  # (closed)


def test_an_unreachable_scheduler_is_one_line_and_no_hang():
    start = time.monotonic()
    with (
        DaskPool(_square, 0, 2, address="tcp://127.0.0.1:9", connect_timeout=1) as pool,
        pytest.raises(EvaluationFailed) as caught,
    ):
        pool.run([Task(0, 1)])
    assert caught.value.message.startswith("cannot reach the dask scheduler at tcp://127.0.0.1:9: ")
    assert "\n" not in caught.value.message and time.monotonic() - start < 30


def test_a_cluster_without_workers_fails_after_the_wait_and_so_does_one_that_loses_them():
    no_worker = "no dask worker joined the dask scheduler at .* within 0.5 s"
    with (
        local_cluster(n_workers=0) as empty,
        DaskPool(_square, 0, 2, address=empty.scheduler_address, worker_wait=0.5) as pool,
        pytest.raises(EvaluationFailed, match=no_worker),
    ):
        pool.run([Task(0, 1)])
    with (
        local_cluster(n_workers=1, threads_per_worker=1, processes=False, protocol="tcp://") as cluster,
        DaskPool(_square, 0, 1, address=cluster.scheduler_address, worker_wait=0.5, poll=0.1) as pool,
    ):
        assert pool.run([Task(0, 2)]) == [4]
        cluster.scale(0)
        deadline = time.monotonic() + 30
        while cluster.workers and time.monotonic() < deadline:
            time.sleep(0.05)
        with pytest.raises(
            EvaluationFailed, match="no dask worker left on the dask scheduler at .* for 0.5 s"
        ):
            pool.run([Task(0, 3)])


def test_the_run_data_reaches_each_worker_once_also_one_that_joins_later_and_is_forgotten_at_the_end(
    spec, tasks
):
    expected = InProcess(evaluate_payload, spec).run(tasks)
    with local_cluster(n_workers=1, threads_per_worker=1) as cluster, distributed.Client(cluster) as client:
        with DaskPool(evaluate_payload, spec, 1, 1, address=cluster.scheduler_address) as pool:
            assert pool.run(tasks) == expected
            cluster.scale(2)
            client.wait_for_workers(2)
            assert list(client.run(holds_run_data, pool._token).values()) == [True, True]
            assert pool.run(tasks) == expected
            token = pool._token
        assert list(client.run(holds_run_data, token).values()) == [False, False]
