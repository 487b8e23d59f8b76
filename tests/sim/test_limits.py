"""Size limits: a creature with too many masses or links, or records that would not fit in memory, are
refused before anything is simulated or allocated -- in simulate(), evo simulate, evo replay and runs."""

from __future__ import annotations

from pathlib import Path

import pytest

import evo
from evo.cli import main
from evo.errors import EvoInputError
from evo.sim import Limits, simulate
from evo.sim.limits import check_size

ROOT = Path(__file__).resolve().parents[2]
WALKER = str(ROOT / "genomes" / "walker.json")  # 6 masses, 11 links


@pytest.fixture(scope="module")
def walker():
    return evo.load_model(WALKER)


@pytest.mark.parametrize(
    "limits, message",
    [
        (Limits(max_masses=5), "the creature has 6 masses, more than the 5 a simulation may have"),
        (Limits(max_links=10), "the creature has 11 links, more than the 10 a simulation may have"),
        (
            Limits(max_record_bytes=10_000),
            "3,001 records of 6 masses do not fit in memory: they would take 562.7 KiB and the limit is "
            "9.8 KiB",
        ),
    ],
)
def test_a_simulation_over_a_limit_is_refused_in_one_line_saying_how_big_it_would_be(walker, limits, message):
    with pytest.raises(EvoInputError) as refused:
        simulate(walker, frames=3000, limits=limits)
    assert message in str(refused.value) and "\n" not in str(refused.value)


def test_the_environment_sets_the_caps_of_every_simulation(walker, monkeypatch):
    monkeypatch.setenv("EVO_MAX_MASSES", "4")
    with pytest.raises(EvoInputError, match="more than the 4 a simulation may have.*EVO_MAX_MASSES"):
        simulate(walker, frames=10)
    monkeypatch.setenv("EVO_MAX_MASSES", "lots")
    with pytest.raises(EvoInputError, match="EVO_MAX_MASSES: expected an integer >= 1, got 'lots'"):
        simulate(walker, frames=10)
    monkeypatch.setenv("EVO_MAX_MASSES", "6")
    assert simulate(walker, frames=10).positions.shape == (11, 6, 2)


def test_records_beyond_the_free_memory_are_refused_before_they_are_allocated(walker, monkeypatch):
    monkeypatch.setattr("evo.sim.limits.free_memory", lambda: 2**30)
    with pytest.raises(EvoInputError, match=r"take 1\.8 GiB and the memory free is 1\.0 GiB"):
        check_size(100_000, 10, 600, Limits())
    check_size(100_000, 10, 300, Limits())  # 0.9 GiB fits


@pytest.mark.parametrize(
    "command",
    [["simulate", WALKER, "--frames", "10"], ["replay", WALKER, "--frames", "10", "--svg", "{out}/w.svg"]],
    ids=["simulate", "replay"],
)
def test_the_commands_refuse_a_creature_over_the_cap_in_one_line_with_status_2(
    tmp_path, monkeypatch, capsys, command
):
    monkeypatch.setenv("EVO_MAX_LINKS", "8")
    assert main([arg.format(out=tmp_path) for arg in command]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "11 links, more than the 8" in err
    assert list(tmp_path.iterdir()) == []


def test_a_run_whose_seed_model_is_over_the_cap_is_refused_when_its_config_is_read(tmp_path, monkeypatch):
    monkeypatch.setenv("EVO_MAX_MASSES", "5")
    with pytest.raises(EvoInputError) as refused:
        evo.Config.from_dict({"genome": {"seed_models": [WALKER]}, "pool": {"workers": 1}})
    assert f"[genome] seed_models: {WALKER}: the creature has 6 masses" in str(refused.value)
