"""Generations from arrays on a local dask cluster: the evo run process and the cluster's chunk runners each
make every generation on their own copy of the run, score the share of the kernel calls dealt to them and
send each other the scores; the folder is every other backend's, whether they made every generation or
left some to the dask chunks (a partner that cannot make one, a worker lost)."""

from __future__ import annotations

import contextlib
import os
import signal
import time

import psutil
import pytest
from test_shards import StopAfter, config_of, leave_generation_3, made_from_arrays_here, run

from evo.run.backends.dask_pool import DaskPool, started_first
from evo.run.callbacks import Callback
from evo.run.folder.writer import RunFailed
from evo.run.shards.engine import FIRST_SHARE, Partnered
from evo.run.shards.state import ShardState, Unsupported, dealt


def made_with_dask(log: str) -> int:
    return log.count("selected, bred and evaluated by this process and the dask workers")


@pytest.fixture(scope="module")
def alone(tmp_path_factory):
    """The 8-generation run of 1 worker on the inprocess backend."""
    return run(tmp_path_factory.mktemp("alone"), "alone", config_of(1, "inprocess", 8))[1]


@pytest.fixture
def counted(monkeypatch):
    """Each pool's chunks sent, read as it closes, and the steps sent to its chunk runners."""
    sent: dict[str, int] = {}
    close, send = DaskPool.close, Partnered._send

    def noting(pool: DaskPool) -> None:
        sent.update(pool.sent | {"step": sent.get("step", 0)})
        close(pool)

    def sending(stint: Partnered, *args) -> None:
        send(stint, *args)
        sent["step"] = sent.get("step", 0) + stint.parties - 1

    monkeypatch.setattr(DaskPool, "close", noting)
    monkeypatch.setattr(Partnered, "_send", sending)
    return sent


def test_this_process_and_the_chunk_runners_make_every_generation_after_the_first_and_the_folder_of_one(
    tmp_path, alone, counted
):
    with started_first():  # (the cluster ready before generation 0: every later generation from arrays)
        log, made, result = run(tmp_path, "dask", config_of(2, "dask", 8))
    assert made_with_dask(log) == 7 and made == alone and result.generation == 7
    # generation 0 in chunks (one to the chunk runner), then one step a generation, the first carrying
    # the copy of the run
    assert counted == {"runner": 1, "task": 0, "step": 7}
    with started_first():
        log, made, _ = run(tmp_path, "three", config_of(3, "dask", 8))
    assert made_with_dask(log) == 7 and made == alone and counted["step"] == 7 + 14  # to two runners


def test_a_generation_a_partner_cannot_make_is_made_in_chunks_and_a_new_stint_starts_after_it(
    tmp_path, alone, monkeypatch
):
    share = ShardState.scored_share

    def not_in_generation_3(self, laid, parity, weights, me):
        if me == 1 and self.generation + 1 == 3:
            raise Unsupported("the partner's reason")
        return share(self, laid, parity, weights, me)

    monkeypatch.setattr(ShardState, "scored_share", not_in_generation_3)  # (the forked workers have it)
    with started_first():
        log, made, _ = run(tmp_path, "left", config_of(2, "dask", 8))
    assert "generation 3 is made in this process: the partner's reason" in log
    assert made_with_dask(log) == 6 and made == alone  # 1, 2, then 4 to 7 by a second stint


def test_a_brood_left_to_python_is_made_in_chunks_and_changes_nothing(tmp_path, alone, monkeypatch):
    leave_generation_3(monkeypatch)  # (this process and the partner both meet it)
    with started_first():
        log, made, _ = run(tmp_path, "left", config_of(2, "dask", 8))
    assert "generation 3 is made in this process: a brood the compiled operators leave to Python" in log
    assert made_with_dask(log) == 6 and made == alone


class _KillAPartner(Callback):
    """SIGKILLs one of the local cluster's worker processes (forked from this one) once generation ``at``
    is told."""

    def __init__(self, at: int):
        self.at, self.killed = at, None

    def on_generation_told(self, status) -> None:
        if status.generation == self.at and self.killed is None:
            me = psutil.Process()
            workers = [p for p in me.children() if p.cmdline() == me.cmdline()]
            self.killed = min(p.pid for p in workers)
            os.kill(self.killed, signal.SIGKILL)


def test_a_partner_lost_leaves_its_generation_and_the_rest_to_chunks_as_tasks(tmp_path, alone):
    killer = _KillAPartner(at=3)
    with started_first():
        log, made, _ = run(tmp_path, "lost", config_of(3, "dask", 8), callbacks=[killer])
    assert killer.killed is not None
    assert "a dask worker of the local cluster was lost" in log and "chunks go as tasks" in log
    assert 3 <= made_with_dask(log) < 7 and made == alone


@pytest.mark.parametrize("stuck", [3, 5])
def test_a_partner_that_gives_no_answer_leaves_its_generation_and_the_rest_to_chunks_as_tasks(
    stuck, tmp_path, alone, monkeypatch
):
    from evo.run.shards.shared import Watch

    with started_first():  # (the runners' compiled code loaded, not compiled, below)
        run(tmp_path, "warm", config_of(2, "dask", 5))
    share = ShardState.scored_share

    def stuck_in_a_generation(self, laid, parity, weights, me):
        if me == 1 and self.generation + 1 == stuck:
            time.sleep(30.0)  # (stuck: the worker itself still runs tasks; it is ended)
        return share(self, laid, parity, weights, me)

    monkeypatch.setattr(ShardState, "scored_share", stuck_in_a_generation)  # (the forked workers have it)
    monkeypatch.setattr(Watch, "FLOOR", 2.0)
    monkeypatch.setattr(Watch, "FACTOR", 0.0)  # (the limit the floor, however slow this machine)
    with started_first():
        log, made, _ = run(tmp_path, "stuck", config_of(2, "dask", 8))
    said = "a dask chunk runner gave no answer for 2 s (stopped or stuck)"
    assert f"generation {stuck}: {said}; it is made in this process" in log
    assert f"generation {stuck} is made in this process: {said}" in log
    # (its worker, the cluster's only one, ended: the stuck generation in this process's chunks, then
    # the rest from arrays in this process, as one worker makes them -- even the last few)
    assert "a chunk runner stalled; no worker is left: chunks are run here from now on" in log
    assert made_with_dask(log) == stuck - 1 and made == alone  # (from arrays with the runner)
    assert made_from_arrays_here(log) == 7 - stuck


def test_a_stop_request_leaves_the_reported_generation_and_a_resume_on_dask_goes_on_exactly(tmp_path, alone):
    with started_first():
        log, made, result = run(tmp_path, "stopped", config_of(2, "dask", 8), [StopAfter(2)])
    assert result.stopped and result.generation == 2 and made_with_dask(log) == 2
    _, made_alone, _ = run(tmp_path, "stopped-alone", config_of(1, "inprocess", 8), [StopAfter(2)])
    assert made == made_alone
    with started_first():
        log, made, result = run(tmp_path, "stopped", config_of(2, "dask", 8), resume=True)
    # (run.log goes on; the resumed run starts its cluster before its first generation, 3)
    assert result.generation == 7 and made_with_dask(log) == 2 + 5 and made == alone


def test_a_run_the_shards_workers_cannot_make_keeps_its_chunks(tmp_path):
    refined = {"refine": {"every": 2, "top": 1, "budget": 40}}
    with started_first():
        log, made, _ = run(tmp_path, "refine", config_of(2, "dask", 4, ga=refined))
    assert "the dask workers make this run's generations in chunks: [ga] refine" in log
    assert made_with_dask(log) == 0
    assert made == run(tmp_path, "refine-alone", config_of(1, "inprocess", 4, ga=refined))[1]


def test_a_chunk_runner_that_gives_no_answer_leaves_its_chunks_to_tasks_and_the_folder_of_one(
    tmp_path, monkeypatch
):
    from evo.run.backends import dask_worker
    from evo.run.shards.shared import Watch

    refined = {"refine": {"every": 2, "top": 1, "budget": 40}}
    alone = run(tmp_path, "refine-alone", config_of(1, "inprocess", 4, ga=refined))[1]
    marker, here, chunk = tmp_path / "stuck", os.getpid(), dask_worker.run_chunk
    seen = [0]

    def stuck_in_its_third(job, context, pairs):  # (in the forked worker, once)
        seen[0] += 1
        if os.getpid() != here and seen[0] == 3 and not marker.exists():
            marker.touch()
            time.sleep(30.0)  # (stuck: the worker itself still runs tasks; it is ended)
        return chunk(job, context, pairs)

    monkeypatch.setattr(dask_worker, "run_chunk", stuck_in_its_third)  # (the forked workers have it)
    monkeypatch.setattr(Watch, "FLOOR", 2.0)
    monkeypatch.setattr(Watch, "FACTOR", 0.0)  # (the limit the floor, however slow this machine)
    with started_first():
        log, made, _ = run(tmp_path, "refine", config_of(2, "dask", 4, ga=refined))
    assert marker.exists() and made == alone
    assert "dask: a chunk runner gave no answer for 2 s (stopped or stuck); its worker is ended" in log
    assert "a chunk runner stalled; no worker is left: chunks are run here from now on" in log


class _StopAPartner(_KillAPartner):
    """SIGSTOPs the worker process of the dask pool's first chunk runner (the one each batch sends a chunk
    to) once generation ``at`` is told, and the pool's other workers once generation ``then`` is."""

    def __init__(self, at: int, pools: list[DaskPool], then: int | None = None):
        super().__init__(at)
        self.pools, self.then = pools, then
        self.stopped: list[int] = []

    def on_generation_told(self, status) -> None:
        if status.generation == self.at and self.killed is None:
            self.killed = self.pools[-1]._runner_pids[0]
            self._stop([self.killed])
        if status.generation == self.then:
            self._stop([pid for pid in self.pools[-1]._cluster.pids if pid not in self.stopped])

    def _stop(self, pids: list[int]) -> None:
        for pid in pids:
            os.kill(pid, signal.SIGSTOP)
            self.stopped.append(pid)

    def go_on(self) -> None:
        """SIGCONT to those stopped that are still there (a failed test's)."""
        for pid in self.stopped:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)


@pytest.fixture
def pools(monkeypatch) -> list[DaskPool]:
    """The dask pools of the runs that follow, each as it runs its first batch; partners and runners may
    be silent for 2 s (the watch's floor, whatever this machine's speed)."""
    from evo.run.shards.shared import Watch

    monkeypatch.setattr(Watch, "FLOOR", 2.0)
    monkeypatch.setattr(Watch, "FACTOR", 0.0)
    seen: list[DaskPool] = []
    ran = DaskPool.run

    def running(pool: DaskPool, *args, **kwargs):
        if pool not in seen:
            seen.append(pool)
        return ran(pool, *args, **kwargs)

    monkeypatch.setattr(DaskPool, "run", running)
    return seen


@pytest.mark.parametrize("path", ["arrays", "chunks"])
def test_a_stopped_dask_worker_is_ended_and_the_run_goes_on_with_the_folder_of_one(path, tmp_path, pools):
    ga = {"refine": {"every": 2, "top": 1, "budget": 40}} if path == "chunks" else {}
    alone = run(tmp_path, "alone", config_of(1, "inprocess", 5, ga=ga))[1]
    stopper = _StopAPartner(at=1, pools=pools)
    try:
        with started_first():
            log, made, result = run(tmp_path, "stopped", config_of(3, "dask", 5, ga=ga), callbacks=[stopper])
        assert stopper.killed is not None and not psutil.pid_exists(stopper.killed)  # (ended and reaped)
    finally:
        stopper.go_on()
    assert made == alone and result.generation == 4
    assert "gave no answer for 2 s (stopped or stuck)" in log
    assert "a chunk runner stalled; chunks go as tasks from now on" in log  # (to the other worker)


def test_a_worker_stopped_while_chunks_go_as_tasks_is_ended_and_this_process_runs_the_rest(tmp_path, pools):
    refined = {"refine": {"every": 2, "top": 1, "budget": 40}}
    alone = run(tmp_path, "alone", config_of(1, "inprocess", 6, ga=refined))[1]
    # the first runner's worker stopped after generation 1 (chunks then go as tasks to the other), the
    # other after generation 3: none is left, and this process runs the rest (a plugin of evo's)
    stopper = _StopAPartner(at=1, pools=pools, then=3)
    try:
        with started_first():
            log, made, result = run(
                tmp_path, "stopped", config_of(3, "dask", 6, ga=refined), callbacks=[stopper]
            )
        assert len(stopper.stopped) == 2 and not any(psutil.pid_exists(pid) for pid in stopper.stopped)
    finally:
        stopper.go_on()
    assert made == alone and result.generation == 5
    assert "a chunk runner stalled; chunks go as tasks from now on" in log
    said = "dask: a chunk sent as a task gave no answer for 2 s (stopped or stuck); its worker is ended"
    assert said in log and "dask: no worker is left: chunks are run here from now on" in log


def test_a_runner_late_to_serve_its_first_stint_leaves_that_generation_to_chunks_and_serves_the_next(
    tmp_path, alone, monkeypatch
):
    from evo.run.backends import dask_pool
    from evo.run.shards import remote

    serve = remote.serve_steps

    def late(holder, context, pipe, stint):  # (in the forked worker)
        if stint == 1:
            time.sleep(1.0)
        return serve(holder, context, pipe, stint)

    monkeypatch.setattr(remote, "serve_steps", late)
    monkeypatch.setattr(dask_pool, "RUNNER_ANSWER", 0.5)
    with started_first():
        log, made, _ = run(tmp_path, "late", config_of(2, "dask", 8))
    assert "generation 1 is made in this process: the chunk runners could not serve steps" in log
    assert made_with_dask(log) == 5 and made == alone  # (1 and 2 in chunks: a first try waits) 3 to 7


def test_a_cluster_that_fails_to_start_while_this_process_goes_on_alone_fails_the_run_in_one_line(
    tmp_path, monkeypatch
):
    from evo.run.backends.dask_cluster import ForkedCluster

    def broken(self):
        raise OSError("no port left")

    monkeypatch.setattr(ForkedCluster, "start", broken)
    with pytest.raises(RunFailed, match="cannot start a local dask cluster: OSError: no port left"):
        run(tmp_path, "failed", config_of(2, "dask", 8))


def test_calls_are_dealt_once_each_the_same_way_and_by_the_weights():
    costs = [9, 7, 7, 5, 4, 4, 3, 2, 2, 1]
    halves = dealt(costs, (0.5, 0.5))
    assert sorted(i for party in halves for i in party) == list(range(len(costs)))
    assert halves == dealt(costs, (0.5, 0.5)) and halves[0][0] == 0  # the first of equals: party 0
    loads = [sum(costs[i] for i in party) for party in halves]
    assert abs(loads[0] - loads[1]) <= max(costs)
    light = dealt(costs, (0.25, 0.75))
    assert sum(costs[i] for i in light[0]) < sum(costs[i] for i in light[1]) / 2
    assert dealt(costs, (1.0,)) == [list(range(len(costs)))]
    assert dealt([], (0.5, 0.5)) == [[], []]


def test_this_process_s_share_grows_when_it_waited_and_shrinks_when_the_partners_did():
    stint = Partnered.__new__(Partnered)  # (its shares alone)
    stint.parties = 2
    stint.weights = (FIRST_SHARE / 2, 1 - FIRST_SHARE / 2)
    first = stint.weights[0]
    stint._balance(own=0.010, blocked=0.002, late=0.0)
    assert stint.weights[0] > first and sum(stint.weights) == pytest.approx(1.0)
    grown = stint.weights[0]
    stint._balance(own=0.010, blocked=0.0, late=0.004)
    assert stint.weights[0] < grown
    for _ in range(100):
        stint._balance(own=0.010, blocked=0.0, late=1.0)
    assert stint.weights[0] == pytest.approx(0.05) and stint.weights[1] == pytest.approx(0.95)
