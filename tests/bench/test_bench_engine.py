"""The ``engine`` bench section: issue 29's targets as CPU-time ratios of whole runs, on tiny runs, and the
run folders byte-identical across worker counts, a busy core, batching and dask."""

from __future__ import annotations

import argparse
import json
import math
import os

import pytest

from evo.bench import engine


def test_the_engine_section_reports_every_target_and_finds_the_folders_identical():
    args = argparse.Namespace(repeats=1, population=10, frames=120, generations=2, walkers_generations=6)
    section = engine.engine_section(args)
    fields = json.loads(json.dumps(section.data))["engine"]
    for label in ("walkers", "bench"):
        row = fields[label]
        assert row["identical_folders"] is True, row
        assert row["evaluations"] > 0 and row["kernel_cpu_s"] > 0
        assert row["run_vs_kernel_cpu"] > 0 and row["two_vs_one_cpu_per_evaluation"] > 0
        # two workers by default are the shards backend's (a shipped plugin; identical folders above: 10
        # creatures make kernel calls of single creatures, which its workers leave to the evo run process,
        # so these tiny runs run as threads), two threads of the run's process and the fork pool beside
        assert row["two_workers"] == row["threads_workers"] == row["fork_workers"] == 2
        assert row["fork_vs_one_wall"] > 0 and row["threads_vs_one_wall"] > 0
        assert row["threads_vs_one_cpu_per_evaluation"] > 0
        # distance reads its settle record and its last: 120 frames, settling past them, gives the two ends
        assert row["run_record_every"] == 120 and row["run_vs_kernel_same_records_cpu"] > 0
        # 1 worker on the inprocess backend beside the default (from arrays, but for the bench config's
        # 2 generations, too few: the same path)
        assert row["one_inprocess_workers"] == 1 and row["inprocess_vs_kernel_cpu"] > 0
        assert row["inprocess_vs_one_cpu_per_evaluation"] > 0
        # each phase of the breakdowns is timed around a function of the run (one renamed times nothing):
        # the default 1-worker run's (10 creatures are too few to make from arrays: their kernel calls
        # are single creatures; test_the_breakdown_times_the_generations_made_from_arrays), and the
        # inprocess backend's
        arrays = row["cpu_breakdown"]
        assert arrays["the batched kernel"] > 0 and all(arrays[phase] >= 0 for phase in engine.ARRAY_PHASES)
        parts = row["cpu_breakdown_inprocess"]
        assert all(parts[phase] == 0 for phase in engine.ARRAY_PHASES), parts
        for phase in (
            "the batched kernel",
            engine.SCORING_ON_THREADS,
            "scoring: the chunk's evaluations handed on",
            engine.BRED_IN_PARTS,
            "breeding: the rest (creatures made)",
            "the generation before's status, callbacks",
        ):
            assert parts[phase] > 0, (phase, parts)
        # target 2's ceiling: the kernel calls alone on two lane threads, and Amdahl's law with the rest of
        # one worker's CPU but the files and the work beside the calls serial between them
        assert row["lane_threads_speedup"] > 0 and 0 <= row["two_threads_serial_share"] < 1, row
        on_threads = (
            sum(
                parts[name]
                for name in (
                    "the batched kernel",
                    "lanes: packing, records",
                    engine.SCORING_ON_THREADS,
                    engine.BRED_IN_PARTS,
                )
            )
            / parts["total"]
        )
        files = (
            parts["files: checkpoint, history (thread)"] + parts["files: elites, generation best (thread)"]
        )
        beside = parts[engine.BESIDE_THE_CALLS] / parts["total"]  # of breeding's, tell's and other's time
        breeding = sum(
            parts[name]
            for name in (
                "breeding: the rest (creatures made)",
                "tell (hall of fame, statistics)",
                "the generation before's status, callbacks",
            )
        )
        assert 0 < parts[engine.BESIDE_THE_CALLS] < breeding + parts["other"], parts
        serial = 1 - on_threads - files / parts["total"] - beside  # the files: a thread of their own
        assert math.isclose(row["two_threads_serial_share"], serial), row
        assert math.isclose(
            row["two_threads_amdahl"], 1 / (serial + (on_threads + beside) / row["lane_threads_speedup"])
        )
        # and on this machine: the same calls in two processes, halves of equal measured time; the serial
        # share at which Amdahl's law with that speed-up gives the target's 1.85 x
        speedup = row["process_halves_speedup"]
        assert speedup > 0, row
        # whatever the design: the halves with no barrier, and the rest of one worker's CPU halved
        kernel = (arrays["the batched kernel"] + arrays["lanes: packing, records"]) / arrays["total"]
        assert math.isclose(row["kernel_calls_share"], kernel) and 0 < kernel < 1, row
        unbound = row["process_halves_unbound_speedup"]
        assert unbound > 0 and math.isclose(
            row["two_workers_ceiling_any_design"], 1 / (kernel / unbound + (1 - kernel) / 2)
        ), row
        # and the shards design's own: its cut, claimed from a shared counter by two processes
        assert row["process_claimed_speedup"] > 0, row
        assert math.isclose(
            row["two_vs_claimed_ceiling"], row["two_vs_one_wall"] / row["process_claimed_speedup"]
        )
        needed = row["two_workers_serial_share_needed"]
        if speedup > 1.85:
            assert 0 < needed < 1 and math.isclose(1 / (needed + (1 - needed) / speedup), 1.85), row
        else:
            assert needed == 0, row
    assert fields["walkers"]["default_vs_one_busy_wall"] > 0
    assert fields["walkers"]["two_kernels_vs_one_cpu"] > 0
    walkers = fields["walkers"]
    # the local cluster's scheduler and workers cost CPU beyond the fork pool's in a 1-generation run
    assert walkers["dask_once_cpu_s"] > 0, walkers
    assert walkers["dask_vs_two_wall"] == walkers["two_wall"] / walkers["dask_wall"], walkers
    assert fields["shipping"]["pickling_cpu_s"] > 0 and 0 < fields["shipping"]["share"] < 1
    shipping = fields["shipping"]
    assert shipping["results_as_objects_cpu_s"] > 0 and shipping["results_as_arrays_cpu_s"] > 0
    text = "\n".join(section.lines)
    assert "target 1" in text and "target 2" in text and "target 6" in text and "busy" in text
    assert "2 workers (the default: shards" in text and "2 threads" in text and "2 forked workers" in text
    assert "its start and close alone cost" in text and "recording as the run does" in text
    assert "target 2's ceiling in the threads design" in text and "Amdahl's law gives" in text
    assert "1 worker on the inprocess backend" in text
    assert "whatever the design around them" in text and "and in the shards design" in text


def test_the_breakdown_times_the_generations_made_from_arrays(tmp_path):
    config = engine.walkers_config(6).replace(run={"population": 40}, evaluation={"frames": 120})
    parts = engine.cpu_breakdown(config, tmp_path / "arrays")
    assert "from arrays in this process" in (tmp_path / "arrays" / "run.log").read_text()
    for phase in (*engine.ARRAY_PHASES, "the batched kernel", "lanes: packing, records"):
        assert parts[phase] > 0, (phase, parts)
    assert parts["breeding: the rest (creatures made)"] > 0  # generation 0, made as inprocess makes it
    inprocess = engine.cpu_breakdown(config, tmp_path / "inprocess", "inprocess")
    assert all(inprocess[phase] == 0 for phase in engine.ARRAY_PHASES), inprocess
    assert inprocess["selection (ask)"] > 0 and inprocess["tell (hall of fame, statistics)"] > 0


def test_generation_children_are_the_creatures_of_each_generation_in_order():
    config = engine.walkers_config(3).replace(run={"population": 6}, evaluation={"frames": 60})
    generations = engine.generation_children(config)
    assert len(generations) == 3 and len(generations[0]) == 6
    assert all(0 < len(children) <= 6 for children in generations[1:])
    again = engine.generation_children(config)
    assert again[2][0].positions.tobytes() == generations[2][0].positions.tobytes()


def test_balanced_halves_cover_every_call_once_costliest_first_to_the_lighter_half():
    costs = [5.0, 1.0, 4.0, 3.0, 3.0, 2.0]
    first, second = engine.balanced_halves(costs)
    assert sorted(first + second) == list(range(len(costs)))  # each call once
    assert first == sorted(first) and second == sorted(second)  # in the order the calls were given
    # 5 first (5, 0); 4 second (5, 4); the first 3 second (5, 7); the other 3 first (8, 7); 2 second
    # (8, 9); 1 first (9, 9)
    assert (first, second) == ([0, 1, 4], [2, 3, 5])
    assert engine.balanced_halves([]) == ([], [])
    assert engine.balanced_halves([1.0]) == ([0], [])  # a tie goes to the first half


def test_a_half_that_fails_in_its_process_is_an_error_not_a_hang(monkeypatch):
    """A kernel call that raises in one of the two processes breaks the barriers and fails the
    measurement with one error; the other process does not wait for it."""
    from evo.bench.evolution import walkers_config
    from evo.sim import batch

    config = walkers_config(3).replace(run={"population": 24}, evaluation={"frames": 60})
    children = engine.generation_children(config)
    real = batch._run_euler
    parent = os.getpid()

    def fails_in_a_child(*args):
        if os.getpid() != parent:
            raise MemoryError("no room")
        return real(*args)

    monkeypatch.setattr(batch, "_run_euler", fails_in_a_child)
    with pytest.raises(RuntimeError, match="half of the kernel calls failed"):
        engine.process_halves_speedup(config, children, 1)
    with pytest.raises(RuntimeError, match="half of the kernel calls failed"):  # (claimed from a counter)
        engine.process_halves_speedup(config, children, 1, claimed=True)
