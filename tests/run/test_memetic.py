"""``[ga] refine = {every, top, budget}``: the memetic step refines the best of every N-th generation in
place, the same for any number of workers, and a resumed run equals an uninterrupted one (issue 21)."""

from __future__ import annotations

import pytest
from test_evolve import same_files, tiny_config

import evo
from evo.errors import EvoInputError
from evo.run.config import parse_config

REFINE = {"every": 2, "top": 2, "budget": 33}


def test_the_schedule_is_off_by_default_and_checked_key_by_key():
    assert parse_config({"evaluation": {"plugin": "distance"}}).ga.refine is None
    config = parse_config({"evaluation": {"plugin": "distance"}, "ga": {"refine": REFINE}})
    assert dict(config.ga.refine) == REFINE
    with pytest.raises(EvoInputError, match=r"\[ga\] refine.top: expected an integer >= 1, got 0"):
        parse_config({"evaluation": {"plugin": "distance"}, "ga": {"refine": {**REFINE, "top": 0}}})
    with pytest.raises(EvoInputError, match=r"unknown key 'budgt' in \[ga\] refine; did you mean 'budget'"):
        parse_config(
            {"evaluation": {"plugin": "distance"}, "ga": {"refine": {"every": 2, "top": 1, "budgt": 9}}}
        )
    with pytest.raises(EvoInputError, match=r"\[ga\] refine: expected a table \{every = N"):
        parse_config({"evaluation": {"plugin": "distance"}, "ga": {"refine": {"every": 2}}})


def test_the_best_of_every_second_generation_are_replaced_by_their_refined_selves(tmp_path):
    plain = evo.evolve(tiny_config(tmp_path), out=tmp_path / "plain", progress=False)
    result = evo.evolve(
        tiny_config(tmp_path, ga={"refine": REFINE}), out=tmp_path / "memetic", progress=False
    )
    history, base = result.history, plain.history
    assert list(history["evaluations"][[0, 2]]) == list(base["evaluations"][[0, 2]])
    assert history["evaluations"][1] > base["evaluations"][1]  # gen 1 is the 2nd: refined
    refined = [ind for ind in result.evolution.population if "-r" in ind.id]
    assert refined and all(ind.born in (1, 3) and len(ind.parents) == 1 for ind in refined)
    assert result.hall_of_fame[0].fitness[0] >= plain.hall_of_fame[0].fitness[0]
    spec = result.config.evaluation_spec()
    for ind in refined:  # a refined individual scores what the run says
        assert evo.evaluate(ind.creature, spec, ind.seed).fitness == ind.values
    for member in result.hall_of_fame:
        assert evo.evaluate(member.creature, spec, member.seed).fitness == member.fitness


def test_a_memetic_run_is_the_same_resumed_and_with_two_workers(tmp_path):
    config = tiny_config(tmp_path, ga={"refine": REFINE})

    def stop_after_first_refinement(status):
        if status.generation == 1:
            status.stop()

    evo.evolve(config, out=tmp_path / "run", callbacks=[stop_after_first_refinement], progress=False)
    evo.evolve(config, out=tmp_path / "run", resume=True, progress=False)
    evo.evolve(config, out=tmp_path / "whole", progress=False)
    assert same_files(tmp_path / "run", tmp_path / "whole") == []
    two = tiny_config(tmp_path, ga={"refine": REFINE}, pool={"workers": 2})
    evo.evolve(two, out=tmp_path / "two", progress=False)
    assert same_files(tmp_path / "two", tmp_path / "whole", ignore=("run.log", "config.toml")) == []
