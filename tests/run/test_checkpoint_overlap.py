"""A generation's checkpoint written while the next generation is bred and evaluated: reported only once
durable, stops that drop the next generation's work, write errors, and the same files as ever."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

import evo
from evo.fitness.evaluate import evaluate
from evo.io.run_folder.folder import RunFolder
from evo.run.callbacks import Callback, as_callbacks
from evo.run.config import parse_config, resolve
from evo.run.evolve import RunFailed, run_prepared
from evo.run.folder.writer import FolderWriter, prepare

TINY = {
    "run": {"name": "tiny", "seed": 5, "generations": 5, "population": 12, "checkpoint_interval": 0},
    "evaluation": {"frames": 200, "plugin": "distance", "params": {"settle_frames": 0}},
    "world": {"max_speed": 50.0},
    "pool": {"workers": 1},
}


def tiny(**pool) -> evo.Config:
    doc = {table: dict(keys) for table, keys in TINY.items()}
    doc["pool"].update(pool)
    return resolve(parse_config(doc, source="<tiny>"))


def checkpointed_generation(folder: Path) -> int:
    return int(RunFolder(folder).read_checkpoint()["generation"])


def history_rows(folder: Path) -> int:
    return len((folder / "history.csv").read_text().splitlines()) - 1


def bests(folder: Path) -> set[int]:
    """The generations whose best is in ``generations/``."""
    return {int(path.stem[3:]) for path in (folder / "generations").glob("gen*.json")}


class Events(Callback):
    """The order of what the loop does: ('told', g), ('evaluate', g), ('end', g), with the files then."""

    def __init__(self, folder: Path, log: list):
        self.folder = folder
        self.log = log

    def on_generation_told(self, status):
        self.log.append(("told", status.generation))

    def on_generation_end(self, status):
        self.log.append(("end", status.generation))
        assert checkpointed_generation(self.folder) == status.generation
        assert history_rows(self.folder) == status.generation + 1


def test_a_generation_is_reported_once_its_checkpoint_is_durable_after_the_next_one_was_evaluated(tmp_path):
    folder = tmp_path / "run"
    log: list = []

    class Writer(FolderWriter):
        def _write_checkpoint(self, state):
            log.append(("write", state.generation, threading.current_thread() is threading.main_thread()))
            super()._write_checkpoint(state)

    def counted(creature, spec, seed):
        log.append(("evaluate",))
        return evaluate(creature, spec, seed)

    prepared = prepare(tiny(batch=False), out=folder)
    run_prepared(prepared, [Writer(prepared), Events(folder, log)], evaluate=counted)
    assert [e for e in log if e[0] == "write"] == [("write", g, False) for g in range(5)]  # in the thread
    assert [e for e in log if e[0] == "end"] == [("end", g) for g in range(5)]
    for g in range(4):  # generation g+1 was bred and evaluated before generation g was reported
        told = log.index(("told", g))
        assert ("evaluate",) in log[told : log.index(("end", g))]
        assert log.index(("end", g)) < log.index(("told", g + 1))


def test_in_process_a_generation_is_reported_while_the_next_one_is_evaluated_once_it_is_written(tmp_path):
    folder = tmp_path / "run"
    log: list = []

    def slow(creature, spec, seed):  # slow enough that the writer is done after the first few children
        time.sleep(0.01)
        log.append(("evaluate",))
        return evaluate(creature, spec, seed)

    prepared = prepare(tiny(), out=folder)  # batch: the generation is one task chunk in-process
    run_prepared(prepared, [FolderWriter(prepared), Events(folder, log)], evaluate=slow)
    assert [e for e in log if e[0] == "end"] == [("end", g) for g in range(5)]
    for g in range(4):  # reported after some of generation g + 1's evaluations, before most of them
        evaluations = log[log.index(("told", g)) : log.index(("told", g + 1))]
        before = evaluations[: evaluations.index(("end", g))].count(("evaluate",))
        after = evaluations.count(("evaluate",)) - before
        assert before >= 1 and after > before


def test_with_worker_processes_a_generation_is_reported_as_soon_as_the_next_one_is_sent_out(tmp_path):
    finished = tmp_path / "finished"  # one file per evaluation, named by when it ended (any process)
    finished.mkdir()

    def slow(creature, spec, seed):  # long enough that the next generation's results come back late
        time.sleep(0.1)
        outcome = evaluate(creature, spec, seed)
        (finished / f"{time.monotonic_ns()}-{os.getpid()}").touch()
        return outcome

    when: dict = {}

    class Times(Callback):
        def on_generation_told(self, status):
            when["told", status.generation] = time.monotonic_ns()

        def on_generation_end(self, status):
            when["end", status.generation] = time.monotonic_ns()

    folder = tmp_path / "run"
    prepared = prepare(tiny(workers=2, batch=False).replace(run={"generations": 3}), out=folder)
    run_prepared(prepared, [FolderWriter(prepared), Times()], evaluate=slow)
    ends = sorted(int(path.name.split("-")[0]) for path in finished.iterdir())
    for g in range(2):  # generation g is reported before any evaluation of generation g + 1 has ended
        next_ones = [t for t in ends if when["told", g] < t < when["told", g + 1]]
        assert next_ones and when["end", g] < min(next_ones)


@pytest.mark.parametrize("workers", [1, 2])
def test_a_callback_that_stops_leaves_the_result_it_leaves_in_memory(tmp_path, workers):
    def stop_at_2(status):
        if status.generation == 2:
            status.stop()

    kept = evo.evolve(tiny(workers=workers), callbacks=[stop_at_2], progress=False)
    written = evo.evolve(tiny(workers=workers), out=tmp_path / "run", callbacks=[stop_at_2], progress=False)
    assert written.stopped and kept.stopped and written.generation == kept.generation == 2
    assert checkpointed_generation(tmp_path / "run") == 2 and history_rows(tmp_path / "run") == 3
    assert written.history.tolist() == kept.history.tolist()
    assert [m.id for m in written.hall_of_fame] == [m.id for m in kept.hall_of_fame]
    # the next generation's ask, made while generation 2 was written, was taken back
    a, b = written.evolution.state(), kept.evolution.state()
    assert a.rng == b.rng and [i.id for i in a.population] == [i.id for i in b.population]
    assert plans(written.evolution.ask().broods) == plans(kept.evolution.ask().broods)
    resumed = evo.evolve(tiny(workers=workers), out=tmp_path / "run", resume=True, progress=False)
    evo.evolve(tiny(), out=tmp_path / "whole", progress=False)
    assert resumed.generation == 4
    for name in ("checkpoint.npz", "history.csv"):
        assert (tmp_path / "run" / name).read_bytes() == (tmp_path / "whole" / name).read_bytes()


def plans(broods) -> list[tuple]:
    return [(b.kind, b.seed, b.mate, b.mutate, b.plugin_seeds, len(b.parents)) for b in broods]


def test_a_checkpoint_write_that_fails_stops_the_run_before_its_generation_is_reported(tmp_path):
    folder = tmp_path / "run"
    reported: list[int] = []

    class Failing(FolderWriter):
        def _write_checkpoint(self, state):
            if state.generation == 2:
                raise OSError(28, "No space left on device")
            super()._write_checkpoint(state)

    prepared = prepare(tiny(workers=2), out=folder)
    with pytest.raises(RunFailed, match="cannot write the run folder: .*No space left on device"):
        run_prepared(prepared, [Failing(prepared), as_callbacks([reported_to(reported)])[0]])
    assert reported == [0, 1] and checkpointed_generation(folder) == 1
    assert not list(folder.glob(".*.tmp"))
    resumed = evo.evolve(tiny(), out=folder, resume=True, progress=False)
    evo.evolve(tiny(), out=tmp_path / "whole", progress=False)
    assert resumed.generation == 4
    assert (folder / "checkpoint.npz").read_bytes() == (tmp_path / "whole" / "checkpoint.npz").read_bytes()


def reported_to(out: list[int]):
    return lambda status: out.append(status.generation)


@pytest.mark.parametrize("interval", [0.0, 1e6], ids=["every-generation", "only-the-first"])
def test_a_failed_evaluation_reports_the_generation_before_and_names_its_checkpoint(tmp_path, interval):
    """With ``checkpoint_interval`` 1e6 only generation 0 was checkpointed before the failure: the
    generation before it is checkpointed when the run ends, as the message says, with every best."""
    folder = tmp_path / "run"
    reported: list[int] = []
    calls = [0]

    def fails_in_generation_3(creature, spec, seed):
        calls[0] += 1
        if calls[0] > 12 + 3 * 11:  # generation 0 evaluates 12, each later one at most 11
            raise ValueError("boom")
        return evaluate(creature, spec, seed)

    prepared = prepare(tiny(batch=False).replace(run={"checkpoint_interval": interval}), out=folder)
    with pytest.raises(RunFailed, match=r"boom.*the last checkpoint \(generation (\d)\) is intact") as caught:
        listeners = [FolderWriter(prepared), *as_callbacks([reported_to(reported)])]
        run_prepared(prepared, listeners, evaluate=fails_in_generation_3)
    last = int(caught.value.args[0].rsplit("(generation ", 1)[1][0])
    assert last >= 1 and reported == list(range(last + 1)) and checkpointed_generation(folder) == last
    assert bests(folder) == set(range(last + 1))


def test_a_stop_asked_when_a_generation_is_told_ends_the_run_there_the_next_one_s_work_dropped(tmp_path):
    """A generation is told beside the next one's work (its bookkeeping waits for it): a stop asked then
    drops that work, unannounced (no ``on_generation_start``), its ask taken back."""

    class StopWhenTold(Callback):
        def on_generation_told(self, status):
            if status.generation == 1:
                status.stop()

    asked: list[int] = []

    class Starts(Callback):
        def on_generation_start(self, generation, evaluations):
            asked.append(generation)

    result = evo.evolve(
        tiny(workers=2), out=tmp_path / "run", callbacks=[StopWhenTold(), Starts()], progress=False
    )
    assert result.stopped and result.generation == 1 and asked == [0, 1]
    assert checkpointed_generation(tmp_path / "run") == 1
    kept = evo.evolve(tiny(), callbacks=[lambda s: s.stop() if s.generation == 1 else None], progress=False)
    assert result.evolution.state().rng == kept.evolution.state().rng


def test_a_generation_is_told_beside_the_next_one_s_kernel_calls_and_its_errors_still_end_the_run(tmp_path):
    """With lane threads, a generation's bookkeeping and ``on_generation_told`` run in the next one's
    window (its kernel calls under way, the switch interval lowered); the last one's at the end. What a
    callback raises there ends the run as it did, before the next generation is announced."""
    import sys

    from evo.run.batching import WINDOW_SWITCH_INTERVAL

    intervals: dict[int, float] = {}
    starts: list[int] = []

    class Told(Callback):
        def on_generation_told(self, status):
            intervals[status.generation] = sys.getswitchinterval()

        def on_generation_start(self, generation, evaluations):
            starts.append(generation)

    threads = {"backend": "threads"}  # (the default, shards, tells the generations its workers made)
    result = evo.evolve(tiny(workers=2), out=tmp_path / "run", callbacks=[Told()], progress=False, **threads)
    assert result.generation == 4 and sorted(intervals) == list(range(5))
    assert [intervals[g] for g in range(4)] == pytest.approx([WINDOW_SWITCH_INTERVAL] * 4)
    assert intervals[4] == sys.getswitchinterval() > WINDOW_SWITCH_INTERVAL
    same = evo.evolve(tiny(), out=tmp_path / "one", progress=False)
    assert same.evolution.state().rng == result.evolution.state().rng

    class Fails(Callback):
        def on_generation_told(self, status):
            if status.generation == 1:
                raise ValueError("a callback's own error")

    starts.clear()
    with pytest.raises(ValueError, match="a callback's own error"):
        evo.evolve(
            tiny(workers=2), out=tmp_path / "fails", callbacks=[Fails(), Told()], progress=False, **threads
        )
    assert starts == [0, 1]


@pytest.mark.parametrize("where", ["ask", "ask's start", "breeding", "drawing ahead"])
def test_an_interrupt_before_the_next_generation_s_window_still_checkpoints_the_generation_before(
    tmp_path, monkeypatch, where
):
    """A generation's bookkeeping waits for the next generation's window; an interrupt (a second Ctrl-C)
    or an error before it -- in the next ask, after its draws (made ahead beside the work before), or in
    its breeding -- still checkpoints that generation as told at once, and the run resumes from it to
    the uninterrupted run's files. One while the draws are made ahead (beside generation 1's work, the
    bookkeeping of generation 0) leaves generation 0's checkpoint, and resumes the same."""
    from test_checkpoint_interval import files

    from evo.ga import loop
    from evo.run import batching

    module, name, nth, told = {
        "ask": (loop, "_winners", 2, 1),  # generation 2's ask picking its parents (1's drew its own)
        "ask's start": (loop.Evolution, "_fits", 1, 1),  # generation 2's, its draws made ahead
        "breeding": (batching, "bred_broods", 3, 1),  # generation 2's breeding, before its window
        "drawing ahead": (loop, "plugin_seeds", 3, 0),  # generation 2's, beside generation 1's work
    }[where]
    real, calls = getattr(module, name), []

    def interrupted(*args, **kwargs):
        calls.append(1)
        if len(calls) == nth:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, interrupted)
    folder = tmp_path / "run"
    inprocess = tiny(backend="inprocess")  # (the default, shards, makes generations from arrays: below)
    with pytest.raises(KeyboardInterrupt):
        evo.evolve(inprocess, out=folder, progress=False)
    assert checkpointed_generation(folder) == told
    monkeypatch.setattr(module, name, real)
    evo.evolve(inprocess, out=folder, resume=True, progress=False)
    evo.evolve(inprocess, out=tmp_path / "whole", progress=False)
    assert files(folder) == files(tmp_path / "whole")


def test_an_interrupt_while_one_worker_makes_a_generation_from_arrays_checkpoints_the_one_before(
    tmp_path, monkeypatch
):
    """One worker's default (generations made from arrays in the evo run process): an interrupt while
    generation 3 is bred leaves generation 2, told, as the checkpoint, and the run resumes from it to the
    uninterrupted run's files (the inprocess backend's too)."""
    from test_checkpoint_interval import files

    from evo.run.shards.state import ShardState

    real, calls = ShardState.bred, []

    def interrupted(self, *args):
        calls.append(self.generation + 1)
        if self.generation + 1 == 3:
            raise KeyboardInterrupt
        return real(self, *args)

    monkeypatch.setattr(ShardState, "bred", interrupted)
    folder = tmp_path / "run"
    with pytest.raises(KeyboardInterrupt):
        evo.evolve(tiny(), out=folder, progress=False)
    assert calls == [1, 2, 3] and checkpointed_generation(folder) == 2
    monkeypatch.setattr(ShardState, "bred", real)
    evo.evolve(tiny(), out=folder, resume=True, progress=False)
    evo.evolve(tiny(backend="inprocess"), out=tmp_path / "whole", progress=False)
    assert files(folder) == files(tmp_path / "whole")


def test_with_lane_threads_a_generation_is_reported_between_the_next_one_s_kernel_calls(
    tmp_path, monkeypatch
):
    """With lane threads, the generation before is reported (``on_generation_end``, then the next one's
    ``on_generation_start``) as soon as its checkpoint is durable, between the kernel calls the main
    thread reads back: before the chunk's calls are all back. The files are a 1-worker run's."""
    from test_checkpoint_interval import files

    from evo.run import generations, job

    log: list = []
    real_prepare = job.prepare_broods

    def prepare_broods(*args, **kwargs):
        out = real_prepare(*args, **kwargs)
        log.append(("prepared",))
        return out

    class Starts(Callback):
        def on_generation_start(self, generation, evaluations):
            log.append(("start", generation))

        def on_generation_end(self, status):
            log.append(("end", status.generation))

    monkeypatch.setattr(job, "prepare_broods", prepare_broods)
    # the write taken for done at once: the report then waits for it (the run folder's writer joins it)
    monkeypatch.setattr(generations, "_written", lambda callbacks: True)
    config = tiny(workers=2).replace(run={"population": 48})
    evo.evolve(config, out=tmp_path / "run", callbacks=[Starts()], progress=False, backend="threads")
    prepared = [k for k, event in enumerate(log) if event == ("prepared",)]
    assert len(prepared) == 5  # generation g's chunk is the g-th
    for g in range(1, 5):
        assert log.index(("end", g - 1)) < log.index(("start", g)) < prepared[g], log
    evo.evolve(config.replace(pool={"workers": 1}), out=tmp_path / "one", progress=False)
    assert files(tmp_path / "run") == files(tmp_path / "one")
