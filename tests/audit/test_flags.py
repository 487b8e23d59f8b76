"""The audit's detectors (issue 31): creatures built to exploit a fitness are flagged with the frame and
the evidence; a blow-up is flagged before the speed limit stops the run; ground penetration is caught."""

from __future__ import annotations

import numpy as np
import pytest
from exploits import catapult, stiff_square, toppling_tower

from evo.audit import audit
from evo.audit.flags import energy_blow_up, ground_penetration, launch, lunge
from evo.fitness import EvaluationSpec, find_plugin
from evo.sim import World, simulate
from evo.sim.simulate import Trajectory

WORLD = World(max_speed=50.0)
SPEC = EvaluationSpec(
    world=WORLD, frames=1500, plugin=find_plugin("distance").ref(), params={"settle_frames": 200}
)


def kinds(report):
    return {flag.kind: flag for flag in report.flags}


def test_a_tower_that_topples_in_the_last_frames_is_flagged_as_an_end_of_window_lunge():
    report = audit(toppling_tower(), SPEC)
    assert report.score > 250  # the distance plugin counts the fall as a walk
    flag = kinds(report)["end-of-window lunge"]
    assert flag.frame >= 1300 and "of the distance" in flag.evidence and "last 130 frames" in flag.evidence
    assert report.robust < report.score  # some perturbed worlds see it fall after the window


def test_a_tower_that_topples_early_is_not_a_lunge():
    report = audit(toppling_tower(tilt=1e-3), SPEC)
    assert report.score > 150 and "end-of-window lunge" not in kinds(report)


def test_a_compressed_spring_that_throws_the_creature_up_is_flagged_as_a_launch():
    flag = kinds(audit(catapult(), SPEC))["launch"]
    assert flag.frame <= 5 and "px above the surface" in flag.evidence
    height = float(flag.evidence.split("lowest mass ")[1].split(" px")[0])
    assert height > 100


def test_an_energy_blow_up_is_flagged_before_the_run_explodes():
    world = World(integrator="explicit-euler", max_speed=50.0)
    creature = stiff_square(0.5)
    trajectory = simulate(creature, world, 1500, 1)
    assert trajectory.exploded
    flag = energy_blow_up(trajectory, creature, world)
    assert flag is not None and flag.frame < trajectory.exploded_frame
    assert f"exploded at frame {trajectory.exploded_frame:g}" in flag.evidence


def test_a_mass_below_the_ground_is_flagged_with_its_frame_and_depth():
    creature = stiff_square(1.0).replace(velocities=np.zeros((4, 2)))
    trajectory = simulate(creature, WORLD, 100, 1)
    positions = trajectory.positions.copy()
    positions[60:, 2, 1] = -12.0  # mass 2 sinks 12 px into the floor from frame 60
    sunk = Trajectory(trajectory.frames, positions, trajectory.velocities, False, None)
    flag = ground_penetration(sunk, creature, WORLD)
    assert flag.frame == 60 and "mass 2 is 12.0 px below" in flag.evidence
    assert ground_penetration(trajectory, creature, WORLD) is None


@pytest.mark.parametrize("detector", [launch, lunge])
def test_a_creature_at_rest_raises_no_flag(detector):
    creature = stiff_square(1.0).replace(velocities=np.zeros((4, 2)))
    trajectory = simulate(creature, WORLD, 1500, 1)
    assert (detector(trajectory, WORLD) if detector is launch else detector(trajectory, 200)) is None
    assert energy_blow_up(trajectory, creature, WORLD) is None
