"""The shards backend: worker processes that own the population as arrays select, breed and score each
generation, the evo run process tells it from their arrays; the folder is every other backend's, whether
the workers made every generation or left some to the evo run process (a brood or lane left to Python, a
worker that died), stopped on request or resumed."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import psutil
import pytest
from test_fork_pool import files, users_distance

from evo.run.callbacks import Callback
from evo.run.config import parse_config, resolve
from evo.run.evolve import run_prepared
from evo.run.folder.writer import FolderWriter, prepare
from evo.run.shards.state import ShardState, Unsupported


def config_of(workers: int, backend: str | None, generations: int = 6, **changes):
    doc = {
        "run": {"name": "shards", "seed": 5, "generations": generations, "population": 30},
        "evaluation": {"frames": 300, "plugin": "distance", "params": {"settle_frames": 0}},
        "pool": {"workers": workers} | ({"backend": backend} if backend else {}),
    }
    for table, values in changes.items():
        doc[table] = doc.get(table, {}) | values
    return resolve(parse_config(doc, source="<shards>"))


def run(tmp_path: Path, name: str, config, callbacks=(), resume: bool = False):
    """The run's log and its files but config.toml and the log (by path), and its result."""
    folder = tmp_path / name
    prepared = prepare(config, out=folder, resume=resume)
    result = run_prepared(prepared, [FolderWriter(prepared), *callbacks])
    return (folder / "run.log").read_text(), files(folder), result


def made_by_workers(log: str) -> int:
    return log.count("selected, bred and evaluated by the shard workers")


def made_from_arrays_here(log: str) -> int:
    return log.count("selected, bred and evaluated from arrays in this process")


def leave_generation_3(monkeypatch) -> None:
    """The compiled brood bails out of a brood of generation 3 wherever it runs (with two workers, only
    worker 1 breeds it, and worker 0 hears so from the room they share)."""
    from evo.run.shards import state

    pairs, generation = state._pairs, [0]
    planned = ShardState.planned

    def planning(self):
        generation[0] = self.generation + 1
        return planned(self)

    def bailing(*args):
        ok, *rest = pairs(*args)
        return (ok & (generation[0] != 3), *rest)

    monkeypatch.setattr(ShardState, "planned", planning)
    monkeypatch.setattr(state, "_pairs", bailing)


@pytest.fixture(scope="module")
def alone(tmp_path_factory):
    """The 8-generation run of 1 worker on the inprocess backend."""
    return run(tmp_path_factory.mktemp("alone"), "alone", config_of(1, "inprocess", 8))[1]


def test_the_workers_make_every_generation_after_the_first_and_leave_the_folder_of_one(tmp_path, alone):
    log, made, result = run(tmp_path, "shards", config_of(2, "shards", 8))
    assert made_by_workers(log) == 7 and "backend shards" in log
    assert made == alone
    assert result.generation == 7 and not result.stopped
    three, made, _ = run(tmp_path, "three", config_of(3, "shards", 8))
    assert made_by_workers(three) == 7 and made == alone


def test_the_default_for_more_workers_with_a_shipped_plugin_is_the_shards_backend(tmp_path, alone):
    log, made, _ = run(tmp_path, "default", config_of(2, None, 8))
    assert made_by_workers(log) == 7 and made == alone
    refined = {"refine": {"every": 2, "top": 1, "budget": 40}}
    log, made, _ = run(tmp_path, "refine", config_of(2, None, 4, ga=refined))
    assert "as the threads backend does: [ga] refine" in log and made_by_workers(log) == 0


def test_a_generation_the_workers_cannot_make_is_made_here_and_they_go_on_after_it(
    tmp_path, alone, monkeypatch
):
    leave_generation_3(monkeypatch)  # (the forked workers inherit it)
    log, made, _ = run(tmp_path, "left", config_of(2, "shards", 8))
    assert "generation 3 is made in this process: a brood the compiled operators leave to Python" in log
    assert made_by_workers(log) == 6  # 1, 2, then 4 to 7 by a second stint
    assert made == alone


def test_a_worker_that_dies_leaves_its_generation_to_this_process(tmp_path, alone, monkeypatch):
    scored = ShardState.scored

    def dies_in_generation_4(self, laid, parity, *calls):
        if self.generation + 1 == 4 and os.getpid() != parent:
            os._exit(3)
        return scored(self, laid, parity, *calls)

    parent = os.getpid()
    monkeypatch.setattr(ShardState, "scored", dies_in_generation_4)
    log, made, _ = run(tmp_path, "died", config_of(2, "shards", 8))
    assert "generation 4 is made in this process: a worker process ended" in log
    assert made == alone


@pytest.mark.parametrize("where", ["bred", "scored"])
def test_a_worker_that_stops_making_progress_is_ended_and_its_generation_made_here(
    tmp_path, alone, monkeypatch, where
):
    """A worker stopped (SIGSTOP: the same as one stuck in a deadlock) while it breeds the generation
    worker 0 waits for, or before its kernel calls (worker 0 then waits at the meeting point): worker 0
    sees no progress for the watch's limit, ends it and makes the generation itself."""
    from evo.run.shards.shared import Watch

    run(tmp_path, "warm", config_of(2, "shards", 5))  # (worker 1's compiled code loaded, not compiled, below)
    shipped, parent, noted = getattr(ShardState, where), os.getpid(), tmp_path / "pid"

    def stops_in_generation_4(self, *args):
        if self.generation + 1 == 4 and os.getpid() != parent:
            noted.write_text(str(os.getpid()))
            os.kill(os.getpid(), signal.SIGSTOP)
        return shipped(self, *args)

    monkeypatch.setattr(ShardState, where, stops_in_generation_4)
    monkeypatch.setattr(Watch, "FLOOR", 0.5)
    monkeypatch.setattr(Watch, "FACTOR", 0.0)  # (the limit the floor, however slow this machine)
    log, made, _ = run(tmp_path, "stopped", config_of(2, "shards", 8))
    said = "the worker processes made no progress for 0.5 s (stopped or stuck)"
    assert f"generation 4: {said}; it is made in this process" in log
    assert f"generation 4 is made in this process: {said}" in log
    assert made_by_workers(log) == 3 and made == alone  # (5 to 7: too few left for another stint)
    assert not psutil.pid_exists(int(noted.read_text()))  # ended (and waited for)


def test_generations_the_workers_keep_failing_wait_longer_here_each_time(tmp_path, alone, monkeypatch):
    monkeypatch.setattr(ShardState, "bred", lambda self, *args: (_ for _ in ()).throw(Unsupported("never")))
    log, made, _ = run(tmp_path, "never", config_of(2, "shards", 10))
    tried = [line for line in log.splitlines() if "is made in this process: never" in line]
    assert [line.split("generation ")[1].split()[0] for line in tried] == ["1", "3", "6"]  # 1, 2 here between
    assert made_by_workers(log) == 0
    assert made == run(tmp_path, "never-alone", config_of(1, "inprocess", 10))[1]


def test_no_stint_starts_with_fewer_generations_left_than_repay_it(tmp_path):
    from evo.run.shards.engine import FEWEST

    log, made, _ = run(tmp_path, "short", config_of(2, "shards", FEWEST))  # generation 0, then FEWEST - 1
    assert made_by_workers(log) == 0
    assert made == run(tmp_path, "short-alone", config_of(1, "inprocess", FEWEST))[1]
    log, _, _ = run(tmp_path, "long-enough", config_of(2, "shards", FEWEST + 1))
    assert made_by_workers(log) == FEWEST


class StopAfter(Callback):
    def __init__(self, generation: int):
        self.generation = generation

    def on_generation_end(self, status) -> None:
        if status.generation == self.generation:
            status.stop()


def test_a_stop_request_leaves_the_reported_generation_and_a_resume_goes_on_exactly(tmp_path, alone):
    log, made, result = run(tmp_path, "stopped", config_of(2, "shards", 8), [StopAfter(3)])
    assert result.stopped and result.generation == 3 and "stopped on request after generation 3" in log
    _, made_alone, _ = run(tmp_path, "stopped-alone", config_of(1, "inprocess", 8), [StopAfter(3)])
    assert made == made_alone
    log, made, result = run(tmp_path, "stopped", config_of(2, "shards", 8), resume=True)
    assert result.generation == 7 and made_by_workers(log) >= 4
    assert made == alone


def test_runs_the_workers_cannot_make_run_as_the_threads_backend_and_a_user_s_plugin_forks(tmp_path):
    refined = {"refine": {"every": 2, "top": 1, "budget": 40}}
    log, made, _ = run(tmp_path, "refine", config_of(2, "shards", 4, ga=refined))
    assert "makes this run's generations as the threads backend does: [ga] refine" in log
    assert made == run(tmp_path, "refine-alone", config_of(1, "inprocess", 4, ga=refined))[1]
    rk4 = {"integrator": "rk4"}  # its kernel packs lanes from creatures, not the children's arrays
    log, made, _ = run(tmp_path, "rk4", config_of(2, "shards", 5, world=rk4))
    assert "as the threads backend does: a kernel that packs its lanes from creatures" in log
    assert made_by_workers(log) == 0
    assert made == run(tmp_path, "rk4-alone", config_of(1, "inprocess", 5, world=rk4))[1]
    hills = {"ground": {"type": "hills", "amplitude": 10.0, "wavelength": 200.0}}  # children stood on it
    log, made, _ = run(tmp_path, "hills", config_of(2, "shards", 5, world=hills))
    assert "as the threads backend does: ground or terrain that is not level" in log
    assert made_by_workers(log) == 0
    assert made == run(tmp_path, "hills-alone", config_of(1, "inprocess", 5, world=hills))[1]
    copy = users_distance(tmp_path)
    users = config_of(2, "shards", 3, evaluation={"plugin": "my_distance", "plugin_paths": [str(copy)]})
    log, _, _ = run(tmp_path, "users", users)
    assert "the shards backend needs one of evo's plugins scored in lanes: using fork" in log


def test_the_backend_is_the_threads_one_with_its_worker_count(spec):
    from backend_jobs import evaluate_payload

    from evo.run.backends import Shards, make_backend

    with make_backend(evaluate_payload, spec, 2, kind="shards") as backend:
        assert isinstance(backend, Shards) and backend.shards and backend.workers == 2
    with make_backend(evaluate_payload, spec, 1, kind="shards") as backend:
        assert isinstance(backend, Shards) and backend.shards and backend.workers == 1
    with pytest.raises(ValueError, match="at least 1"):
        Shards(evaluate_payload, spec, 0)


def test_one_worker_makes_the_generations_from_arrays_itself_by_default_and_leaves_the_same_folder(
    tmp_path, alone
):
    log, made, result = run(tmp_path, "one", config_of(1, None, 8))
    assert made_from_arrays_here(log) == 7 and made_by_workers(log) == 0
    assert "backend shards" in log or "breeding and evaluating with 1 worker(s)" in log
    assert made == alone and result.generation == 7
    log, made, _ = run(tmp_path, "inprocess", config_of(1, "inprocess", 8))
    assert made_from_arrays_here(log) == 0
    refined = {"refine": {"every": 2, "top": 1, "budget": 40}}
    log, made, _ = run(tmp_path, "refine", config_of(1, None, 4, ga=refined))
    assert "as the inprocess backend does: [ga] refine" in log and made_from_arrays_here(log) == 0
    assert made == run(tmp_path, "refine-alone", config_of(1, "inprocess", 4, ga=refined))[1]


def test_one_worker_leaves_a_generation_it_cannot_make_from_arrays_to_the_inprocess_path(
    tmp_path, alone, monkeypatch
):
    leave_generation_3(monkeypatch)
    log, made, _ = run(tmp_path, "left", config_of(1, None, 8))
    assert "generation 3 is made in this process: a brood the compiled operators leave to Python" in log
    assert made_from_arrays_here(log) == 6 and made == alone


def test_one_worker_stopped_on_request_resumes_exactly(tmp_path, alone):
    log, made, result = run(tmp_path, "stopped", config_of(1, None, 8), [StopAfter(3)])
    assert result.stopped and result.generation == 3 and made_from_arrays_here(log) == 3
    _, made_alone, _ = run(tmp_path, "stopped-alone", config_of(1, "inprocess", 8), [StopAfter(3)])
    assert made == made_alone
    log, made, result = run(tmp_path, "stopped", config_of(1, None, 8), resume=True)
    assert result.generation == 7 and made_from_arrays_here(log) >= 4
    assert made == alone


def test_the_evo_run_process_keeps_its_books_while_its_partner_breeds_and_ends_its_calls(
    tmp_path, alone, monkeypatch
):
    from evo.run.shards import books, shared

    step, pieces = books.Books.step, []

    def counted(self):
        done = step(self)
        pieces.append(done)
        return done

    def put_late(self, *generation):  # (worker 1: the evo run process waits for it each time)
        time.sleep(0.02)
        put(self, *generation)

    put = shared.Room.put
    monkeypatch.setattr(books.Books, "step", counted)
    monkeypatch.setattr(shared.Room, "put", put_late)
    log, made, _ = run(tmp_path, "books", config_of(2, "shards", 8))
    assert made_by_workers(log) == 7 and made == alone
    assert sum(pieces) >= 5  # (from generation 2 on, the books of the one before, a few children a piece)
    pieces.clear()
    log, made, _ = run(tmp_path, "books-alone", config_of(1, None, 8))
    assert made_from_arrays_here(log) == 7 and made == alone and not any(pieces)  # (no one to wait for)


def test_children_larger_than_the_room_are_made_here(tmp_path, alone, monkeypatch):
    from evo.run.shards import shared

    room = shared.Room
    monkeypatch.setattr(shared, "Room", lambda size, masses, links: room(size, 3, 3))
    log, made, _ = run(tmp_path, "small", config_of(2, "shards", 8))
    assert "generation 1 is made in this process: children larger than the room shared with worker 0" in log
    assert made_by_workers(log) == 0 and made == alone


class FailsWhenTold(Callback):
    def on_generation_told(self, status) -> None:
        if status.generation == 4:
            raise RuntimeError("the disk is full")


def test_an_error_in_the_books_kept_in_a_wait_is_the_run_s_not_a_generation_made_here(tmp_path):
    with pytest.raises(RuntimeError, match="the disk is full"):
        run(tmp_path, "fails", config_of(2, "shards", 8), [FailsWhenTold()])
    log = (tmp_path / "fails" / "run.log").read_text()
    assert "is made in this process" not in log and made_by_workers(log) == 3


def test_an_unexpected_error_on_the_arrays_is_logged_with_where_and_its_generation_made_the_other_way(
    tmp_path, alone, monkeypatch
):
    scored = ShardState.scored

    def fails_in_generation_3(self, laid, parity, *calls):
        if self.generation + 1 == 3:
            raise ZeroDivisionError("a bug")
        return scored(self, laid, parity, *calls)

    monkeypatch.setattr(ShardState, "scored", fails_in_generation_3)
    for workers in (1, 2):  # (the error in this process; in both, this one's reason first)
        log, made, _ = run(tmp_path, f"bug-{workers}", config_of(workers, None, 8))
        assert "generation 3 is made in this process: ZeroDivisionError: a bug (at test_shards.py:" in log
        assert "WARNING evo.run: generation 3 could not be made from arrays:" in log and "Traceback" in log
        assert made == alone


def test_one_worker_makes_even_a_short_run_s_generations_from_arrays(tmp_path):
    for generations in (2, 3):  # (no fork to repay: from generation 1 on, however few are left)
        log, made, _ = run(tmp_path, f"short-{generations}", config_of(1, None, generations))
        assert made_from_arrays_here(log) == generations - 1
        assert made == run(tmp_path, f"short-{generations}-alone", config_of(1, "inprocess", generations))[1]
