"""Spring–dashpot links, per-link stiffness and per-mass masses (issue 5 §1; seed 002 §1.1), in the simulator,
the creature and the model file.

Two masses m₁, m₂ joined by a link of stiffness k = S·k̄ and dashpot D, moving along the line between them,
are one damped oscillator in the stretch x = L − R with the reduced mass μ = m₁m₂/(m₁ + m₂):
μ·x'' + D·x' + k·x = 0, so ω₀ = √(k/μ), ζ = D / (2√(k·μ)), and successive maxima of x shrink by
exp(−2πζ/√(1 − ζ²)) every damped period 2π/(ω₀√(1 − ζ²)).
"""

import json
import math

import numpy as np
import pytest

from evo.errors import EvoInputError
from evo.io.models import creature_from_dict, creature_to_dict
from evo.model import Creature
from evo.sim import World, simulate

K_BAR = 0.4  # 1/frame²


def pair(m1: float, m2: float, stiffness: float, dashpot: float, stretch: float = 5.0, drift: float = 0.0):
    """Two masses on a horizontal line 100 px above the floor, the link stretched by ``stretch`` px and both
    moving at ``drift`` px/frame along it."""
    return Creature(
        positions=[[100.0, 100.0], [140.0 + stretch, 100.0]], velocities=[[drift, 0.0], [drift, 0.0]],
        fixed=[False, False], link_a=[0], link_b=[1], rest=[40.0], alpha=[0.0], phi=[0.0],
        stiffness=[stiffness], dashpot=[dashpot], mass=[m1, m2],
    )  # fmt: skip


def free_world(integrator: str, dt: float) -> World:
    return World(gravity=0.0, damping=0.0, stiffness=K_BAR, integrator=integrator, dt=dt)


def refined_maxima(signal: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(positions in samples, values) of the local maxima, each refined by the parabola through 3 samples."""
    k = np.nonzero((signal[1:-1] > signal[:-2]) & (signal[1:-1] >= signal[2:]))[0] + 1
    left, mid, right = signal[k - 1], signal[k], signal[k + 1]
    shift = 0.5 * (left - right) / (left - 2.0 * mid + right)
    return k + shift, mid - 0.25 * (left - right) * shift


# backward Euler adds a numerical damping ≈ ω₀·h/2 to ζ (here 4e-4, 0.2 % of ζ): its tolerance is wider
@pytest.mark.parametrize(
    ("integrator", "dt", "tolerance"),
    [("rk4", 0.05, 1e-3), ("psm", 0.05, 1e-3), ("backward-euler", 0.001, 5e-3)],
)
@pytest.mark.parametrize(("m1", "m2", "stiffness", "dashpot"), [(1.0, 3.0, 1.0, 0.2), (2.0, 0.5, 2.5, 0.5)])
def test_two_masses_joined_by_a_spring_dashpot_decay_with_the_analytic_damping_ratio(
    m1, m2, stiffness, dashpot, integrator, dt, tolerance
):
    reduced = m1 * m2 / (m1 + m2)
    k = stiffness * K_BAR
    omega0 = math.sqrt(k / reduced)
    zeta = dashpot / (2.0 * math.sqrt(k * reduced))
    period = 2.0 * math.pi / (omega0 * math.sqrt(1.0 - zeta**2))
    sample = 0.05  # frames between records
    frames = math.ceil(2.5 * period / sample) * sample
    trajectory = simulate(
        pair(m1, m2, stiffness, dashpot), free_world(integrator, dt), frames, record_every=sample
    )
    d = trajectory.positions[:, 1] - trajectory.positions[:, 0]
    assert np.abs(d[:, 1]).max() == 0.0  # the motion stays on the line
    where, peaks = refined_maxima(np.hypot(d[:, 0], d[:, 1]) - 40.0)
    assert peaks.size >= 2
    decrement = math.log(peaks[0] / peaks[1])
    measured_zeta = decrement / math.sqrt(4.0 * math.pi**2 + decrement**2)
    measured_period = (where[1] - where[0]) * sample
    print(f"\n{integrator}: ζ {measured_zeta:.6f} ({zeta:.6f}), period {measured_period:.4f} ({period:.4f})")
    # the parabola through three samples 0.05 frame apart reads a peak to ~(ω₀·0.05)² ζ ≈ 3e-4 relative
    assert measured_zeta == pytest.approx(zeta, rel=tolerance)
    assert measured_period == pytest.approx(period, rel=tolerance)


def test_a_dashpot_damps_only_the_relative_motion_and_keeps_the_momentum():
    body = pair(1.0, 3.0, 1.0, 0.5, stretch=5.0, drift=0.7)
    trajectory = simulate(body, free_world("rk4", 0.1), 400, record_every=1)
    momentum = (trajectory.velocities[:, :, 0] * body.mass).sum(axis=1)
    np.testing.assert_allclose(momentum, 4 * 0.7, rtol=1e-12)
    stretch = np.hypot(*(trajectory.positions[-1, 1] - trajectory.positions[-1, 0])) - 40.0
    assert abs(stretch) < 1e-6  # the oscillation died, the drift did not


def test_a_heavier_mass_falls_as_fast_and_stretches_its_spring_in_proportion():
    # gravity is an acceleration: a hanging mass M stretches k·(L − R) = M·g
    for mass in (0.5, 1.0, 4.0):
        body = Creature(
            positions=[[0.0, 300.0], [0.0, 260.0]], velocities=np.zeros((2, 2)), fixed=[True, False],
            link_a=[0], link_b=[1], rest=[40.0], alpha=[0.0], phi=[0.0], dashpot=[2.0], mass=[1.0, mass],
        )  # fmt: skip
        world = World(gravity=0.5, damping=0.0, stiffness=K_BAR, integrator="backward-euler")
        final = simulate(body, world, 3000, record_every=3000).positions[-1]
        assert 300.0 - final[1, 1] - 40.0 == pytest.approx(mass * 0.5 / K_BAR, rel=1e-6)


# -- the creature and the model file ------------------------------------------------------------------------


def square(**extra) -> Creature:
    return Creature(
        positions=[[0, 0], [10, 0], [10, 10], [0, 10]], velocities=np.zeros((4, 2)), fixed=[False] * 4,
        link_a=[0, 1, 2, 3], link_b=[1, 2, 3, 0], rest=[10] * 4, alpha=[0] * 4, phi=[0] * 4, **extra,
    )  # fmt: skip


def test_the_new_fields_default_to_the_applets_model_and_are_not_written_then():
    body = square()
    assert body.stiffness.tolist() == [1.0] * 4 and body.dashpot.tolist() == [0.0] * 4
    assert body.mass.tolist() == [1.0] * 4 and body.has_default_physics
    doc = creature_to_dict(body)
    assert all(set(link) <= {"a", "b", "rest", "alpha", "phi"} for link in doc["links"])
    assert all("mass" not in m for m in doc["masses"])


def test_stiffness_dashpot_and_mass_round_trip_through_the_model_file():
    body = square(stiffness=[1, 2.5, 1, 0.5], dashpot=[0, 0.3, 0, 0], mass=[1, 1, 4, 1])
    doc = json.loads(json.dumps(creature_to_dict(body)))
    assert doc["links"][1]["stiffness"] == 2.5 and doc["links"][1]["dashpot"] == 0.3
    assert "stiffness" not in doc["links"][0] and "dashpot" not in doc["links"][2]
    assert doc["masses"][2]["mass"] == 4.0 and "mass" not in doc["masses"][0]
    again = creature_from_dict(doc)
    for name in ("stiffness", "dashpot", "mass"):
        np.testing.assert_array_equal(getattr(again, name), getattr(body, name))


@pytest.mark.parametrize(
    ("where", "key", "value", "field"),
    [
        ("links", "stiffness", 0, "links[1].stiffness"),
        ("links", "stiffness", -2.0, "links[1].stiffness"),
        ("links", "dashpot", -0.1, "links[1].dashpot"),
        ("links", "dashpot", "x", "links[1].dashpot"),
        ("masses", "mass", 0.0, "masses[1].mass"),
        ("masses", "mass", True, "masses[1].mass"),
    ],
)
def test_a_bad_stiffness_dashpot_or_mass_in_a_file_names_the_field(where, key, value, field):
    doc = creature_to_dict(square())
    doc[where][1][key] = value
    with pytest.raises(EvoInputError, match=field.replace("[", r"\[").replace("]", r"\]")):
        creature_from_dict(doc, source="bad.json")


def test_replace_keeps_link_and_mass_values_with_their_links_and_masses():
    body = square(stiffness=[1, 2, 3, 4], dashpot=[0, 0.5, 0, 0], mass=[1, 2, 3, 4])
    # drop link 0 and add two diagonals: the others keep their values, the new ones get the defaults
    rewired = body.replace(link_a=[1, 2, 3, 0, 1], link_b=[2, 3, 0, 2, 3], rest=[10, 10, 10, 14, 14],
                           alpha=[0] * 5, phi=[0] * 5)  # fmt: skip
    assert rewired.stiffness.tolist() == [2, 3, 4, 1, 1] and rewired.dashpot.tolist() == [0.5, 0, 0, 0, 0]
    # a fifth mass appended keeps the four masses, the new one weighs 1
    more = body.replace(positions=np.vstack([body.positions, [[5, 20]]]), velocities=np.zeros((5, 2)),
                        fixed=[False] * 5)  # fmt: skip
    assert more.mass.tolist() == [1, 2, 3, 4, 1]
    # moving the masses keeps their weights
    assert body.replace(positions=body.positions + 1.0).mass.tolist() == [1, 2, 3, 4]
    assert square(mass=[1, 1, 0, 1]).structural_errors() == [("masses[2].mass", "a mass > 0, got 0.0")]


@pytest.mark.parametrize("integrator", ["euler", "rk4", "backward-euler", "psm", "finite-difference"])
def test_a_fixed_mass_given_a_velocity_in_its_file_still_never_moves_for_its_dashpots(integrator):
    # fixed masses never move, so a dashpot to one damps the free mass's own velocity only, whatever
    # velocity the file gives the fixed mass; and the trajectory records it at rest
    def anchored(vx: float) -> Creature:
        return Creature(
            positions=[[100.0, 100.0], [145.0, 100.0]], velocities=[[vx, 0.0], [0.0, 0.0]],
            fixed=[True, False], link_a=[0], link_b=[1], rest=[40.0], alpha=[0.0], phi=[0.0],
            dashpot=[0.3],
        )  # fmt: skip

    world = World(gravity=0.0, integrator=integrator, dt=0.25)
    still, moving = simulate(anchored(0.0), world, 50), simulate(anchored(3.0), world, 50)
    np.testing.assert_array_equal(moving.positions, still.positions)
    assert np.all(moving.velocities[:, 0] == 0.0)
