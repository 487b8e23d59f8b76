"""The studio's one background-job type: claimed atomically, stopped through the stopper its work gave,
its progress and result kept for the page."""

from __future__ import annotations

import threading

import pytest

from evo.studio.jobs import Busy, Job


def test_of_many_simultaneous_claims_exactly_one_wins():
    job, wins, barrier = Job("a refinement"), [], threading.Barrier(8)

    def press() -> None:
        barrier.wait()
        try:
            job.claim()
            wins.append(1)
        except Busy as exc:
            assert str(exc) == "a refinement is running: stop it first"

    threads = [threading.Thread(target=press) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert wins == [1] and job.busy


def test_stop_calls_the_works_stopper_even_one_given_after_the_stop():
    job, stopped = Job("an evolution"), []
    job.claim()
    job.stop()
    assert job.snapshot().stopping and stopped == []
    job.on_stop(lambda: stopped.append(1))
    assert stopped == [1]
    job.end("done", "stopped at a checkpoint\nsecond line")
    assert job.snapshot().state == "done" and job.snapshot().message == "stopped at a checkpoint"
    job.stop()
    assert stopped == [1]


def test_a_new_claim_forgets_the_last_runs_progress_and_result():
    job = Job("a refinement")
    job.claim()
    job.report({"evaluations": 8}, latest={"name": "best"})
    job.end("done", "done", result={"fitness": 1.0})
    state = job.snapshot()
    assert (state.progress, state.latest, state.result) == (
        ({"evaluations": 8},),
        {"name": "best"},
        {"fitness": 1.0},
    )
    job.claim()
    assert job.snapshot().progress == () and job.snapshot().latest is None and not job.snapshot().stopping
    with pytest.raises(Busy):
        job.claim()
