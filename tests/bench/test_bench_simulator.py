"""``evo bench``: the standard creatures, the numpy reference step, and the command's output.

No timing is asserted here: timings belong to ``python -m evo bench``, not to the tests.
"""

from __future__ import annotations

import argparse
import json

import numpy as np
import pytest

from evo import bench
from evo.bench import simulator
from evo.bench.numpy_reference import simulate_numpy
from evo.cli import main as cli_main
from evo.model import is_connected
from evo.sim import World, simulate

# the numpy step keeps the kernel's order of operations; it agrees to rounding, stated with margin
TRAJECTORY_ATOL = 1e-9  # px and px/frame


def _variants():
    small = simulator.standard_creature(20, 60)
    big = simulator.standard_creature(60, 200)
    # a fixed mass, a reversed wave with its own phase, and initial velocities: the other code paths
    pinned = big.replace(
        fixed=np.arange(60) == 7, wave_reverse=True, wave_phase=1.0, velocities=np.full((60, 2), 0.5)
    )
    return {"20 masses": small, "60 masses": big, "60 masses, one fixed, reversed wave": pinned}


@pytest.mark.parametrize("name", list(_variants()))
def test_the_numpy_reference_step_reproduces_the_kernel_trajectory(name):
    creature = _variants()[name]
    world = simulator.bench_world()
    kernel = simulate(creature, world, 400, record_every=1)
    reference = simulate_numpy(creature, world, 400, record_every=1)
    assert not kernel.exploded and not reference.exploded
    # the run exercises what the benchmark times: moving muscles, gravity and the floor
    assert creature.n_muscles > 0
    assert np.count_nonzero(kernel.positions[:, :, 1] == 0.0) > 100
    assert kernel.positions.shape == reference.positions.shape == (401, creature.n_masses, 2)
    np.testing.assert_allclose(reference.frames, kernel.frames)
    np.testing.assert_allclose(reference.positions, kernel.positions, rtol=0, atol=TRAJECTORY_ATOL)
    np.testing.assert_allclose(reference.velocities, kernel.velocities, rtol=0, atol=TRAJECTORY_ATOL)


def test_the_numpy_reference_step_flags_an_explosion_at_the_same_frame_as_the_kernel():
    creature = simulator.standard_creature(60, 200)
    world = World(stiffness=1.0, max_speed=simulator.MAX_SPEED)  # far beyond Euler's stability limit here
    kernel = simulate(creature, world, 400, record_every=1)
    reference = simulate_numpy(creature, world, 400, record_every=1)
    assert kernel.exploded and reference.exploded
    assert reference.exploded_frame == kernel.exploded_frame
    np.testing.assert_allclose(reference.positions, kernel.positions, rtol=0, atol=TRAJECTORY_ATOL)


@pytest.mark.parametrize(
    "world",
    [World(integrator="rk4"), World(width=500.0), World(height=300.0), World(terrain=(((0, 0), (9, 9)),))],
)
def test_the_numpy_reference_step_refuses_worlds_it_does_not_model(world):
    with pytest.raises(ValueError, match="numpy reference"):
        simulate_numpy(simulator.standard_creature(20, 60), world, 10)


@pytest.mark.parametrize(("masses", "links"), simulator.STANDARD_SIZES)
def test_the_standard_creatures_are_deterministic_with_the_stated_sizes_and_half_muscles(masses, links):
    creature = simulator.standard_creature(masses, links)
    again = simulator.standard_creature(masses, links)
    assert (creature.n_masses, creature.n_links, creature.n_muscles) == (masses, links, links // 2)
    for name in ("positions", "link_a", "link_b", "rest", "alpha", "phi"):
        np.testing.assert_array_equal(getattr(creature, name), getattr(again, name))
    assert creature.structural_errors() == []
    assert is_connected(creature)
    pairs = {
        tuple(sorted(pair)) for pair in zip(creature.link_a.tolist(), creature.link_b.tolist(), strict=True)
    }
    assert len(pairs) == links  # no parallel links
    lengths = np.hypot(*(creature.positions[creature.link_b] - creature.positions[creature.link_a]).T)
    np.testing.assert_allclose(creature.rest, lengths)  # built at rest


@pytest.mark.parametrize(("masses", "links"), simulator.STANDARD_SIZES)
def test_the_standard_creatures_do_not_explode_in_the_bench_world(masses, links):
    trajectory = simulate(
        simulator.standard_creature(masses, links), simulator.bench_world(), simulator.FRAMES, 10
    )
    assert not trajectory.exploded
    assert len(trajectory.frames) == simulator.FRAMES // 10 + 1
    speeds = np.hypot(trajectory.velocities[..., 0], trajectory.velocities[..., 1])
    assert speeds.max() < 20.0  # px/frame, landing included: far from max_speed
    assert speeds[10:].max() < 10.0  # from frame 100 on: a calm creature, not a rattling one


def test_the_mesh_keeps_few_links_per_mass_and_refuses_impossible_link_counts():
    creature = simulator.standard_creature(60, 200)
    degree = np.bincount(np.concatenate([creature.link_a, creature.link_b]), minlength=60)
    assert degree.max() <= 10
    lengths = np.hypot(*(creature.positions[creature.link_b] - creature.positions[creature.link_a]).T)
    assert lengths.max() <= 2 * simulator.GRID_SPACING  # near neighbours only, no slivers along the hull
    with pytest.raises(ValueError, match="links"):
        simulator.mesh_links(np.zeros((4, 2)), 7)


def test_every_registered_bench_section_resolves_to_a_function():
    for name, reference in bench.SECTIONS.items():
        assert callable(bench._load(reference)), name


def test_the_compile_probes_run_in_a_fresh_interpreter():
    # on numba's usual (warm) cache, so that this stays quick; the bench itself uses an empty folder
    assert 0.0 < simulator._probe_first_call(None) < 120.0
    assert 0.0 < simulator._probe_breeding(None) < 120.0


def test_bench_json_prints_only_json_on_stdout_and_the_tables_on_stderr(monkeypatch, capsys):
    monkeypatch.setattr(simulator, "FRAMES", 400)
    monkeypatch.setattr(simulator, "NUMPY_FRAMES", 100)
    # a cold numba compile takes tens of seconds: the probe itself is tested above
    monkeypatch.setattr(simulator, "_probe_first_call", lambda cache_dir: 0.5)
    monkeypatch.setattr(simulator, "_probe_breeding", lambda cache_dir: 0.25)
    # the evolution, batch and dask sections have their own tests; keep this one to the simulator's
    monkeypatch.setattr(bench, "DEFAULT_SECTIONS", ("simulator", "compile"))
    assert cli_main(["bench", "--json", "--repeats", "1"]) == 0
    captured = capsys.readouterr()
    result = json.loads(captured.out)  # the whole of stdout is one JSON object
    assert [(row["masses"], row["links"], row["frames"]) for row in result["kernel"]] == [
        (20, 60, 400),
        (60, 200, 400),
    ]
    assert [(row["masses"], row["links"], row["frames"]) for row in result["numpy"]] == [
        (20, 60, 100),
        (60, 200, 100),
    ]
    for row in result["kernel"] + result["numpy"]:
        assert row["spring_updates_per_s"] > 0
    assert [row["ratio"] > 0 for row in result["ratio_vs_numpy"]] == [True, True]
    assert result["compile_s"] == {"cold": 0.5, "cached": 0.5}
    assert result["breeding_compile_s"] == {"cold": 0.25, "cached": 0.25}
    assert result["world"]["stiffness"] == simulator.BENCH_STIFFNESS
    assert "kernel/numpy" in captured.err  # the readable tables


def test_bench_main_runs_only_the_sections_asked_for(monkeypatch, capsys):
    monkeypatch.setattr(simulator, "_probe_first_call", lambda cache_dir: 1.0)
    monkeypatch.setattr(simulator, "_probe_breeding", lambda cache_dir: 2.0)
    assert bench.main(argparse.Namespace(json=True, repeats=1, sections=["compile"])) == 0
    assert json.loads(capsys.readouterr().out.strip().splitlines()[-1]) == {
        "compile_s": {"cold": 1.0, "cached": 1.0},
        "breeding_compile_s": {"cold": 2.0, "cached": 2.0},
    }


def test_the_evolution_section_times_one_and_two_workers_against_the_bare_kernel():
    from evo.bench import evolution as bench_evolution

    args = argparse.Namespace(repeats=1, population=16, walkers_generations=3, ga_generations=3)
    section = bench_evolution.evolution_section(args)
    assert section.lines and "evaluations/s" in "\n".join(section.lines)
    fields = json.loads(json.dumps(section.data))
    rates = [value for key, value in _flatten(fields) if key.endswith("per_s")]
    assert len(rates) == 8 and all(rate > 0 for rate in rates)
    shares = [value for key, value in _flatten(fields) if key.endswith("batched_share")]
    assert len(shares) == 2 and all(0.0 <= share <= 1.0 for share in shares)
    costs = fields["evolution"]["ga_costs"]  # the GA alone, per child of generations 1 and 2
    assert costs["children"] > 0
    assert costs["variation_ms_per_child"] > 0 and costs["bookkeeping_ms_per_child"] > 0


def _flatten(value, prefix=""):
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _flatten(item, f"{prefix}{key}")
    elif isinstance(value, list):
        for item in value:
            yield from _flatten(item, prefix)
    else:
        yield prefix, value
