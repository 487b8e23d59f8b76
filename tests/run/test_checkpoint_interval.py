"""``[run] checkpoint_interval``: a generation is checkpointed only when told that long after the last
checkpoint started, the last one told always (finished, stopped or failed), every generation's best is
written all the same, and the folder a run leaves is the same whatever the interval."""

from __future__ import annotations

import itertools
import os
from pathlib import Path

import pytest
from test_checkpoint_overlap import bests, checkpointed_generation, history_rows

import evo
from evo.errors import EvoInputError
from evo.run.callbacks import Callback
from evo.run.config import parse_config, resolve
from evo.run.evolve import RunFailed, run_prepared
from evo.run.folder.writer import FolderWriter, prepare

TINY = {
    "run": {"name": "tiny", "seed": 5, "generations": 8, "population": 12},
    "evaluation": {"frames": 200, "plugin": "distance", "params": {"settle_frames": 0}},
    "world": {"max_speed": 50.0},
    "pool": {"workers": 1},
}


def tiny(interval: float, **pool) -> evo.Config:
    doc = {table: dict(keys) for table, keys in TINY.items()}
    doc["run"]["checkpoint_interval"] = interval
    doc["pool"].update(pool)
    return resolve(parse_config(doc, source="<tiny>"))


def files(folder: Path) -> dict[str, bytes]:
    """Every file of the folder but config.toml (it holds the interval) and run.log (times), by path."""
    return {
        str(path.relative_to(folder)): path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file() and path.name not in ("config.toml", "run.log", "run.lock")
    }


class Clock:
    """A clock that moves ``step`` seconds each time the writer reads it (once per generation told)."""

    def __init__(self, step: float):
        self.times = itertools.count(0.0, step)

    def __call__(self) -> float:
        return next(self.times)


class Recorder(FolderWriter):
    """The writer, recording which generations it checkpointed and what was on disk when each generation
    was reported."""

    def __init__(self, prepared, clock, log: list):
        super().__init__(prepared, clock=clock)
        self.log = log

    def _write_checkpoint(self, state):
        self.log.append(("checkpoint", state.generation))
        super()._write_checkpoint(state)

    def on_generation_end(self, status):
        super().on_generation_end(status)
        folder = self.folder.path
        self.log.append(("end", status.generation, checkpointed_generation(folder), bests(folder)))


@pytest.mark.parametrize("workers", [1, 2])
def test_only_a_generation_told_an_interval_after_the_last_checkpoint_is_checkpointed_and_the_last_at_the_end(
    tmp_path, workers
):
    folder = tmp_path / "run"
    log: list = []
    prepared = prepare(tiny(1.0, workers=workers), out=folder)
    run_prepared(prepared, [Recorder(prepared, Clock(0.4), log)])  # told at 0, 0.4, 0.8, 1.2, ...
    assert [e[1] for e in log if e[0] == "checkpoint"] == [0, 3, 6, 7]  # 7: the last, when the run ends
    ends = [e for e in log if e[0] == "end"]
    assert [e[1] for e in ends] == list(range(8))
    for _, g, durable, written in ends:
        if g in (0, 3, 6):  # reported once its checkpoint is durable, every best before it written
            assert durable == g and set(range(g)) <= written
        else:  # reported at once: the checkpoint is an earlier generation's
            assert durable == g - g % 3
    assert (
        checkpointed_generation(folder) == 7 and history_rows(folder) == 8 and bests(folder) == set(range(8))
    )


def test_the_folder_a_run_leaves_is_the_same_whatever_the_interval(tmp_path):
    every = tmp_path / "every"
    evo.evolve(tiny(0.0), out=every, progress=False)
    assert bests(every) == set(range(8))
    for name, interval, step, workers in (
        ("sparse", 1.0, 0.3, 1),
        ("sparse-2", 1.0, 0.3, 2),
        ("only-ends", 1e6, 1.0, 1),
    ):
        prepared = prepare(tiny(interval, workers=workers), out=tmp_path / name)
        run_prepared(prepared, [FolderWriter(prepared, clock=Clock(step))])
        assert files(tmp_path / name) == files(every), name


@pytest.mark.parametrize("workers", [1, 2])
def test_a_stop_between_checkpoints_checkpoints_the_generation_it_stopped_at_and_resumes_exactly(
    tmp_path, workers
):
    def stop_at_4(status):
        if status.generation == 4:
            status.stop()

    folder = tmp_path / "run"
    result = evo.evolve(tiny(1e6, workers=workers), out=folder, callbacks=[stop_at_4], progress=False)
    assert result.stopped and result.generation == 4
    assert (
        checkpointed_generation(folder) == 4 and history_rows(folder) == 5 and bests(folder) == set(range(5))
    )
    evo.evolve(tiny(1e6), out=folder, resume=True, progress=False)
    evo.evolve(tiny(0.0), out=tmp_path / "whole", progress=False)
    assert files(folder) == files(tmp_path / "whole")


def test_a_write_that_fails_between_checkpoints_is_not_tried_again_when_the_run_ends(tmp_path):
    folder = tmp_path / "run"
    tries: list[int] = []

    class Failing(FolderWriter):
        def _write_checkpoint(self, state):
            tries.append(state.generation)
            if state.generation == 3:
                raise OSError(28, "No space left on device")
            super()._write_checkpoint(state)

    prepared = prepare(tiny(1.0), out=folder)
    with pytest.raises(RunFailed, match="cannot write the run folder: .*No space left on device"):
        run_prepared(prepared, [Failing(prepared, clock=Clock(0.4))])
    assert tries == [0, 3] and checkpointed_generation(folder) == 0
    resumed = evo.evolve(tiny(1.0), out=folder, resume=True, progress=False)
    assert resumed.generation == 7
    evo.evolve(tiny(0.0), out=tmp_path / "whole", progress=False)
    assert files(folder) == files(tmp_path / "whole")


@pytest.mark.parametrize("workers", [1, 2])
def test_a_generation_s_best_between_checkpoints_is_written_as_it_is_told_not_all_at_the_next(
    tmp_path, workers
):
    """Round twenty-three: the best of a generation told between checkpoints is written in the writer's
    thread once it is told (not dozens at once before the next checkpoint, which held up the generation
    reported then), in order, durably; the folder is as before."""
    folder = tmp_path / "run"
    seen: list[tuple[int, set[int]]] = []  # (a generation told, the bests on disk once the writer is idle)

    class Flushed(FolderWriter):
        def on_generation_told(self, status):
            super().on_generation_told(status)
            self._executor.submit(lambda: None).result()  # what it started is written
            seen.append((status.generation, bests(self.folder.path)))

    prepared = prepare(tiny(1.0, workers=workers), out=folder)
    writes: list[int] = []  # each generation best written, by generation
    real = prepared.folder.write_generation_best

    def counted(generation, text, **how):
        writes.append(generation)
        real(generation, text, **how)

    prepared.folder.write_generation_best = counted
    run_prepared(prepared, [Flushed(prepared, clock=Clock(0.4))])  # checkpoints at 0, 3, 6 (and 7)
    for g, written in seen:
        if g not in (0, 3, 6):  # between checkpoints: its own best is on disk already, and every one before
            assert set(range(g + 1)) <= written, g
    assert sorted(writes) == list(range(8))  # each once (the last one's too, checkpointed at the end)
    evo.evolve(tiny(0.0), out=tmp_path / "every", progress=False)
    assert files(folder) == files(tmp_path / "every")


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="names open files by /proc/self/fd")
def test_the_bests_told_between_checkpoints_are_synced_together_before_the_checkpoint_that_covers_them(
    tmp_path, monkeypatch
):
    """Round thirty-nine: a best told between checkpoints is written atomically without ``fsync`` s, and
    the next checkpoint first syncs each one and then ``generations/`` once, before its own files; the
    bests of checkpointed generations are written durably as before; the folder is as before."""
    folder = tmp_path / "run"
    events: list[tuple[str, str]] = []  # ("write", genNNNN.json) and ("fsync", the synced file's name)
    real_fsync = os.fsync

    def fsync(fd):
        events.append(("fsync", os.path.basename(os.readlink(f"/proc/self/fd/{fd}"))))
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    prepared = prepare(tiny(1.0), out=folder)
    real = prepared.folder.write_generation_best

    def write(generation, text, **how):
        events.append(("write", f"gen{generation:04d}.json"))
        real(generation, text, **how)

    prepared.folder.write_generation_best = write
    run_prepared(prepared, [FolderWriter(prepared, clock=Clock(0.4))])  # checkpoints at 0, 3, 6 (and 7)
    npz = ("fsync", ".checkpoint.npz.")  # (its temporary file)
    checkpoints = [i for i, (what, name) in enumerate(events) if (what, name[:16]) == npz]
    assert len(checkpoints) == 4
    for before, checkpoint, between in ((0, 1, (1, 2)), (1, 2, (4, 5))):
        window = events[checkpoints[before] + 1 : checkpoints[checkpoint]]
        names = [f"gen{g:04d}.json" for g in between]
        assert [event for event in window if event[1] in names] == [
            *[("write", name) for name in names],  # written one after the other, not synced then
            *[("fsync", name) for name in names],  # synced together, before the checkpoint
        ]
        synced = max(window.index(("fsync", name)) for name in names)
        assert ("fsync", "generations") in window[synced:]  # (the folder: their names)
        assert not [name for what, name in events if name.startswith(tuple(f".{n}." for n in names))]
    for g in (0, 3, 6):  # a checkpointed generation's best: written durably after its checkpoint
        name = f"gen{g:04d}.json"
        at = events.index(("write", name))
        synced = events[at + 1]  # its temporary file, then renamed; or, linked, the file and its folder
        written = synced[0] == "fsync" and synced[1].startswith(f".{name}.")
        linked = events[at + 1 : at + 3] == [("fsync", name), ("fsync", "generations")]
        assert written or linked
    evo.evolve(tiny(0.0), out=tmp_path / "every", progress=False)
    assert files(folder) == files(tmp_path / "every")


@pytest.mark.parametrize("workers", [1, 2])
def test_a_generation_whose_best_is_the_one_before_s_is_a_hard_link_to_its_file(tmp_path, workers):
    """Round thirty-nine: generations 3 to 7 of the tiny run keep one best; their files are one file
    (hard links: no file made, nothing written back), checkpointed ones and those between alike; the
    others are files of their own; the bytes are those of a run checkpointed every generation."""
    folder = tmp_path / "run"
    prepared = prepare(tiny(1.0, workers=workers), out=folder)
    run_prepared(prepared, [FolderWriter(prepared, clock=Clock(0.4))])  # checkpoints at 0, 3, 6 (and 7)
    generations = sorted((folder / "generations").iterdir())
    assert [path.name for path in generations] == [f"gen{g:04d}.json" for g in range(8)]
    texts = [path.read_bytes() for path in generations]
    assert len(set(texts[3:])) == 1 and len(set(texts[:4])) == 4  # (the run's bests: one from generation 3)
    inodes = [path.stat().st_ino for path in generations]
    assert len(set(inodes[3:])) == 1 and len(set(inodes[:4])) == 4
    assert generations[3].stat().st_nlink == 5
    evo.evolve(tiny(0.0), out=tmp_path / "every", progress=False)
    assert files(folder) == files(tmp_path / "every")


def test_a_generation_s_best_that_cannot_be_written_fails_the_next_checkpoint_and_nothing_after_is_tried(
    tmp_path,
):
    folder = tmp_path / "run"
    tried: list[int] = []

    class Failing(FolderWriter):
        def _best_now(self, generation, best):
            tried.append(generation)
            if generation == 1:
                real = self.folder.write_generation_best

                def full(generation, text, **how):  # (generation 0's best may be written meanwhile)
                    if generation != 1:
                        return real(generation, text, **how)
                    self.folder.write_generation_best = real
                    raise OSError(28, "No space left on device")

                self.folder.write_generation_best = full
            super()._best_now(generation, best)

    prepared = prepare(tiny(1.0), out=folder)
    with pytest.raises(RunFailed, match="cannot write the run folder: .*No space left on device"):
        run_prepared(prepared, [Failing(prepared, clock=Clock(0.4))])
    assert tried == [1, 2] and checkpointed_generation(folder) == 0  # generation 3's checkpoint failed
    assert bests(folder) == {0}  # generation 2's best waited for generation 1's, and was not written
    evo.evolve(tiny(1.0), out=folder, resume=True, progress=False)
    evo.evolve(tiny(0.0), out=tmp_path / "whole", progress=False)
    assert files(folder) == files(tmp_path / "whole")


def test_after_the_elites_of_a_checkpoint_fail_to_be_written_no_best_or_checkpoint_is_written(tmp_path):
    """A write that failed ends the writing: the elites of checkpoint 0 fail, so neither the bests of the
    generations told after it nor the next checkpoint are written; the run fails in one line and resumes
    to the files of a run never interrupted."""
    folder = tmp_path / "run"
    written: list[str] = []

    class Full(FolderWriter):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            real_elites, real_best = self.folder.write_elites, self.folder.write_generation_best

            def elites(*args):
                written.append("elites")
                if written.count("elites") == 1:
                    raise OSError(28, "No space left on device")
                real_elites(*args)

            def best(generation, text, **how):
                written.append(f"best {generation}")
                real_best(generation, text, **how)

            self.folder.write_elites, self.folder.write_generation_best = elites, best

    prepared = prepare(tiny(1.0), out=folder)
    with pytest.raises(RunFailed, match="cannot write the run folder: .*No space left on device"):
        run_prepared(prepared, [Full(prepared, clock=Clock(0.4))])
    assert written == ["elites"] and checkpointed_generation(folder) == 0 and bests(folder) == set()
    evo.evolve(tiny(1.0), out=folder, resume=True, progress=False)
    evo.evolve(tiny(0.0), out=tmp_path / "whole", progress=False)
    assert files(folder) == files(tmp_path / "whole")


def test_a_map_elites_run_checkpoints_every_iteration_whatever_the_interval(tmp_path):
    from test_map_elites import TABLES

    from evo.run.folder.archive import QDFolderWriter

    doc = {table: dict(keys) for table, keys in TABLES.items()}
    doc["run"].update(generations=3, checkpoint_interval=1e6)
    prepared = prepare(evo.Config.from_dict(doc), out=tmp_path / "qd")
    writer = QDFolderWriter(prepared, clock=Clock(0.0))
    assert writer.interval == 0.0
    checkpointed: list[int] = []

    class Watch(Callback):
        def on_generation_end(self, status):
            checkpointed.append(checkpointed_generation(tmp_path / "qd"))

    run_prepared(prepared, [writer, Watch()])
    assert checkpointed == [0, 1, 2]


@pytest.mark.parametrize("value", [-1, "often", float("inf")])
def test_an_interval_no_run_can_take_is_one_line_naming_the_key(value):
    doc = {table: dict(keys) for table, keys in TINY.items()}
    doc["run"]["checkpoint_interval"] = value
    with pytest.raises(
        EvoInputError, match=r"^<tiny>: \[run\] checkpoint_interval: expected a number in \[0, 1e\+06\]"
    ):
        parse_config(doc, source="<tiny>")


def test_the_interval_may_change_when_a_run_is_resumed_also_one_whose_config_predates_it(tmp_path):
    folder = tmp_path / "run"
    evo.evolve(tiny(0.0).replace(run={"generations": 4}), out=folder, progress=False)
    saved = folder / "config.toml"  # as a folder written before the key existed
    text = saved.read_text()
    assert "checkpoint_interval = 0.0\n" in text
    saved.write_text(text.replace("checkpoint_interval = 0.0\n", ""))
    resumed = evo.evolve(tiny(1e6), out=folder, resume=True, progress=False)
    assert resumed.generation == 7
    evo.evolve(tiny(0.0), out=tmp_path / "whole", progress=False)
    assert files(folder) == files(tmp_path / "whole")
