"""The integrators (issue 5 §3–4): convergence orders, seed 003's double spring, a stiff creature, the
analytic Jacobian of backward Euler, and the applet's model left bit-for-bit as it was.

Run with ``pytest -s`` to see the measured slopes, energy drifts and times per step.
"""

import hashlib
import math
import time
from pathlib import Path

import numpy as np
import pytest

from evo.io.models import load_model
from evo.model import Creature
from evo.sim import World, simulate
from evo.sim.kernels import implicit as implicit_kernel
from evo.sim.kernels import psm as psm_kernel
from evo.sim.kernels.forces import F_GROUND_K, F_MU, F_SLIP, I_GROUND, I_PENALTY, N_FLOAT_PARAMS, N_INT_PARAMS
from evo.sim.kernels.implicit import residual_jacobian
from evo.sim.simulate import pack

GENOMES = Path(__file__).resolve().parents[2] / "genomes"


def fit_slope(x, y) -> float:
    """Least-squares slope of log(y) against log(x)."""
    return float(np.polyfit(np.log(x), np.log(y), 1)[0])


# -- a smooth problem: every force the integrators know, far above the floor ----------------------------

HIGH = 1000.0  # px: no mass comes near the floor in the time simulated


def smooth_creature() -> Creature:
    """A fixed anchor and three unequal masses: springs of different stiffness, two dashpots, one muscle."""
    return Creature(
        positions=[[0, HIGH], [30, HIGH - 20], [-10, HIGH - 45], [25, HIGH - 60]],
        velocities=[[0, 0], [0.3, 0], [0, -0.2], [0.1, 0.1]],
        fixed=[True, False, False, False],
        link_a=[0, 0, 1, 2, 1], link_b=[1, 2, 2, 3, 3], rest=[40, 40, 35, 40, 45],
        alpha=[0, 0, 0.3, 0, 0], phi=[0, 0, 1.0, 0, 0], omega=0.2, beta=0.5,
        stiffness=[1, 0.5, 2, 1, 1], dashpot=[0, 0.3, 0, 0.1, 0], mass=[1, 1, 2, 1.5],
    )  # fmt: skip


SMOOTH_WORLD = World(gravity=0.5, damping=0.02, stiffness=0.1, max_speed=1e6)
HORIZON = 20  # frames: the error is measured at this time

# integrator (and psm order) -> expected order, steps (frames) in the asymptotic range, slope tolerance
ORDERS = {
    "euler": (1, [1 / 8, 1 / 16, 1 / 32, 1 / 64], 0.15),
    "explicit-euler": (1, [1 / 8, 1 / 16, 1 / 32, 1 / 64], 0.15),
    "backward-euler": (1, [1 / 8, 1 / 16, 1 / 32, 1 / 64], 0.15),
    "finite-difference": (2, [1 / 4, 1 / 8, 1 / 16, 1 / 32], 0.15),
    "midpoint": (2, [1 / 4, 1 / 8, 1 / 16, 1 / 32], 0.15),
    "rk4": (4, [1 / 2, 1 / 4, 1 / 8, 1 / 16], 0.3),
    "psm 2": (2, [1, 1 / 2, 1 / 4, 1 / 8], 0.3),
    "psm 4": (4, [1, 1 / 2, 1 / 4, 1 / 8], 0.3),
    "psm 6": (6, [1, 1 / 2, 1 / 4], 0.5),
    "psm 8": (8, [1, 1 / 2, 1 / 4], 0.5),
}


def _world(name: str, **changes) -> World:
    integrator, _, order = name.partition(" ")
    if order:
        changes["psm_order"] = int(order)
    return SMOOTH_WORLD.updated({"integrator": integrator, **changes})


@pytest.fixture(scope="module")
def reference_positions():
    """The positions at HORIZON by psm order 12 with dt = 1/64, checked against rk4 with dt = 1/512."""
    body = smooth_creature()
    psm = simulate(body, _world("psm 12", dt=1 / 64), HORIZON, record_every=HORIZON).positions[-1]
    rk4 = simulate(body, _world("rk4", dt=1 / 512), HORIZON, record_every=HORIZON).positions[-1]
    assert np.abs(psm - rk4).max() < 1e-10  # two independent kernels agree
    return psm


@pytest.mark.parametrize("name", list(ORDERS))
def test_the_error_at_a_fixed_time_falls_with_the_step_at_the_integrators_order(name, reference_positions):
    order, steps, tolerance = ORDERS[name]
    errors = []
    for dt in steps:
        trajectory = simulate(smooth_creature(), _world(name, dt=dt), HORIZON, record_every=HORIZON)
        errors.append(np.abs(trajectory.positions[-1] - reference_positions).max())
    slope = fit_slope(steps, errors)
    print(
        f"\n{name}: log-log slope {slope:.3f} (expected {order} ± {tolerance}), errors",
        [f"{e:.2e}" for e in errors],
    )
    assert abs(slope - order) <= tolerance


# -- seed 003: the double spring ----------------------------------------------------------------------------

LIFT = 10.0  # the seed's system moved up, clear of our floor y = 0
SEED_STEP = 1 / 24
SEED_FRAMES = 5000


def double_spring() -> Creature:
    """r = 1, k = 6, m = 0.5, anchor (0, 2), bobs at (0.5, −1.13333) and (0, −2.45) at rest (seed 003)."""
    return Creature(
        positions=[[0, 2 + LIFT], [0.5, -1.13333 + LIFT], [0, -2.45 + LIFT]], velocities=np.zeros((3, 2)),
        fixed=[True, False, False], link_a=[0, 1], link_b=[1, 2], rest=[1.0, 1.0], alpha=[0, 0], phi=[0, 0],
        mass=[1.0, 0.5, 0.5],
    )  # fmt: skip


def double_spring_world(integrator: str, **changes) -> World:
    return World(**{"gravity": 9.81, "damping": 0.0, "stiffness": 6.0, "dt": SEED_STEP, **changes},
                 integrator=integrator)  # fmt: skip


def energy(body: Creature, world: World, positions: np.ndarray, velocities: np.ndarray) -> np.ndarray:
    """(n_records,) kinetic + gravitational + elastic energy of the free masses (for an undamped world)."""
    mass = np.where(body.fixed, 0.0, body.mass)
    kinetic = 0.5 * (mass * (velocities**2).sum(-1)).sum(-1)
    height = (mass * world.gravity * positions[..., 1]).sum(-1)
    d = positions[:, body.link_b] - positions[:, body.link_a]
    stretch = np.hypot(d[..., 0], d[..., 1]) - body.rest
    elastic = 0.5 * (world.stiffness * body.stiffness * stretch**2).sum(-1)
    return kinetic + height + elastic


def test_on_seed_003s_double_spring_psm_order_9_drifts_far_less_energy_than_rk4_and_euler():
    body = double_spring()
    frames = SEED_FRAMES * SEED_STEP
    drift, per_step = {}, {}
    for name, world in (
        ("psm 9", double_spring_world("psm", psm_order=9)),
        ("rk4", double_spring_world("rk4")),
        ("euler", double_spring_world("euler")),
    ):
        trajectory = simulate(body, world, frames, record_every=SEED_STEP)
        assert not trajectory.exploded and trajectory.positions.shape[0] == SEED_FRAMES + 1
        e = energy(body, world, trajectory.positions, trajectory.velocities)
        drift[name] = float(np.abs(e - e[0]).max())
        start = time.perf_counter()
        simulate(body, world, frames, record_every=frames)
        per_step[name] = (time.perf_counter() - start) / SEED_FRAMES
    print("\ndouble spring, h = 1/24, 5000 steps: max |E − E0| and time per step")
    for name in drift:
        print(f"  {name:6s} {drift[name]:.3e}   {per_step[name] * 1e6:.2f} µs/step")
    # measured 3.0e-9, 1.1e-2 and 2.6e-1; the bounds leave an order of magnitude
    assert drift["psm 9"] < 3e-8
    assert drift["rk4"] < 0.1
    assert drift["euler"] < 1.0
    assert drift["psm 9"] < 1e-4 * drift["rk4"] < drift["euler"]


def test_psm_follows_the_double_springs_trajectory_that_rk4_gives_with_a_hundred_times_smaller_steps():
    body = double_spring()
    frames = 240 * SEED_STEP  # 10 time units
    psm = simulate(body, double_spring_world("psm", psm_order=9), frames, record_every=frames)
    fine = simulate(body, double_spring_world("rk4", dt=SEED_STEP / 100), frames, record_every=frames)
    assert np.abs(psm.positions[-1] - fine.positions[-1]).max() < 1e-8


def test_psm_splits_its_step_where_a_link_nearly_collapses_instead_of_diverging():
    # two masses fly past each other 0.3 px apart: 1/L has a complex pole close to the real time axis there
    body = Creature(
        positions=[[0.0, 500.3], [20.0, 500.0]], velocities=[[5.0, 0.0], [-5.0, 0.0]], fixed=[False, False],
        link_a=[0], link_b=[1], rest=[10.0], alpha=[0.0], phi=[0.0],
    )  # fmt: skip
    world = World(gravity=0.0, damping=0.0, stiffness=0.01)
    fine = simulate(body, world.updated({"integrator": "rk4", "dt": 1 / 1000}), 6, record_every=1)
    psm = simulate(body, world.updated({"integrator": "psm", "dt": 1.0}), 6, record_every=1)
    assert np.hypot(*(fine.positions[2, 1] - fine.positions[2, 0])) < 0.5
    assert np.abs(psm.positions - fine.positions).max() < 1e-4  # measured 1e-5 px


def _count_psm_step_sizes(monkeypatch) -> list[float]:
    """Run psm from its Python source (its series kernels stay compiled) and collect the step size of every
    series it tries: a step split in halves shows as tries of dt/2, dt/4, ..."""
    tried: list[float] = []
    coefficients = psm_kernel._coefficients

    def counting(*args):
        tried.append(args[4])  # the step (frames) the series is made for
        return coefficients(*args)

    monkeypatch.setattr(psm_kernel, "run_psm", psm_kernel.run_psm.py_func)
    monkeypatch.setattr(psm_kernel, "_coefficients", counting)
    return tried


def test_psm_never_splits_the_smooth_motion_of_the_double_spring(monkeypatch):
    tried = _count_psm_step_sizes(monkeypatch)
    simulate(double_spring(), double_spring_world("psm"), 200 * SEED_STEP, record_every=SEED_STEP)
    assert len(tried) == 200 and set(tried) == {SEED_STEP}


def test_psm_splits_steps_of_the_walker_under_penalty_contact_and_would_blow_up_without(monkeypatch):
    body = load_model(GENOMES / "walker.json")
    world = World().updated({"integrator": "psm", "dt": 0.5, "contact": "penalty"})
    compiled = simulate(body, world, 3000, record_every=10)
    assert not compiled.exploded
    tried = _count_psm_step_sizes(monkeypatch)
    same = simulate(body, world, 3000, record_every=10)
    np.testing.assert_array_equal(same.positions, compiled.positions)  # the Python source is the kernel
    halves = {0.5 / 2**k for k in range(9)}  # down to 1/256 of dt
    assert set(tried) <= halves and min(tried) < 0.5, "some steps under contact are split"
    monkeypatch.setattr(psm_kernel, "MAX_TAIL_RATIO", math.inf)  # never split
    assert simulate(body, world, 3000, record_every=10).exploded


# -- a stiff creature -------------------------------------------------------------------------------------


def stiff_chain() -> Creature:
    """An anchor, a soft link and a link 1000 times stiffer, stretched: ω ≈ 28 rad/frame in the stiff link."""
    return Creature(
        positions=[[0, 500], [0, 460], [0, 445]], velocities=np.zeros((3, 2)), fixed=[True, False, False],
        link_a=[0, 1], link_b=[1, 2], rest=[40, 10], alpha=[0, 0], phi=[0, 0], stiffness=[1, 1000],
    )  # fmt: skip


STIFF_WORLD = World(gravity=0.5, damping=0.02, stiffness=0.4, dt=0.5, max_speed=1000.0)


@pytest.mark.parametrize(
    "integrator", ["euler", "explicit-euler", "finite-difference", "midpoint", "rk4", "psm"]
)
def test_explicit_methods_explode_on_a_stiff_link_at_half_a_frame(integrator):
    trajectory = simulate(stiff_chain(), STIFF_WORLD.updated({"integrator": integrator}), 200)
    assert trajectory.exploded


def test_backward_euler_stays_stable_on_the_stiff_link_at_the_same_step_and_settles():
    body = stiff_chain()
    world = STIFF_WORLD.updated({"integrator": "backward-euler"})
    trajectory = simulate(body, world, 2000, record_every=10)
    assert not trajectory.exploded
    speeds = np.hypot(*trajectory.velocities.transpose(2, 0, 1))
    assert speeds.max() < 5.0  # px/frame: nothing like an explosion
    assert speeds[-1].max() < 1e-6  # at rest after 2000 frames
    # at rest the stiff link carries the lower mass's weight: k·S·(L − R) = m·g
    stiff_length = np.hypot(*(trajectory.positions[-1, 2] - trajectory.positions[-1, 1]))
    assert stiff_length - 10.0 == pytest.approx(0.5 / (0.4 * 1000), rel=1e-6)


# -- backward Euler's Jacobian ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "ground",
    [{"type": "flat"}, {"type": "hills", "amplitude": 4.0, "wavelength": 60.0},
     [[-50.0, 3.0], [20.0, -2.0], [25.0, 8.0], [200.0, 8.0]]],
)  # fmt: skip
def test_backward_eulers_analytic_jacobian_matches_finite_differences(ground):
    rng = np.random.default_rng(5)
    body = smooth_creature()
    positions = body.positions + [0.0, -HIGH] + rng.normal(0.0, 2.0, (4, 2))  # some masses under the ground
    velocities = rng.normal(0.0, 0.3, (4, 2))
    world = SMOOTH_WORLD.updated({"contact": "penalty", "ground": ground, "ground_stiffness": 2.0,
                                  "ground_friction": 0.7, "ground_slip_speed": 0.2})  # fmt: skip
    p = pack(body)
    link_data = p.link_data.copy()
    link_data[:, 4] *= world.stiffness
    kind, params, points = world.ground.kernel_arrays()
    fp = np.zeros(N_FLOAT_PARAMS)
    fp[0], fp[1], fp[2] = 0.0, -world.gravity, world.damping
    fp[F_GROUND_K], fp[F_MU], fp[F_SLIP] = (
        world.ground_stiffness,
        world.ground_friction,
        world.ground_slip_speed,
    )
    ip = np.zeros(N_INT_PARAMS, dtype=np.int64)
    ip[I_PENALTY], ip[I_GROUND] = 1, kind
    h, theta, n = 0.7, 0.4, body.n_masses

    def residual(v):
        x = np.where(p.free[:, None] == 1, positions + h * v, positions)
        acc, jac = np.empty((n, 2)), np.empty((2 * n, 2 * n))
        residual_jacobian(x, v, theta, p.free, p.inv_mass, p.link_a, p.link_b, link_data, params, points,
                          fp, ip, h, acc, jac)  # fmt: skip
        r = np.where(p.free[:, None] == 1, v - velocities - h * acc, 0.0)
        return r.reshape(-1), jac

    _, analytic = residual(velocities)
    numeric = np.eye(2 * n)
    eps = 1e-6
    for col in range(2, 2 * n):  # mass 0 is fixed
        dv = np.zeros(2 * n)
        dv[col] = eps
        plus, _ = residual(velocities + dv.reshape(n, 2))
        minus, _ = residual(velocities - dv.reshape(n, 2))
        numeric[2:, col] = (plus - minus)[2:] / (2 * eps)
    # central differences with eps = 1e-6 on entries of order 1..200: agreement to 1e-6
    np.testing.assert_allclose(analytic, numeric, rtol=0, atol=1e-6)


def _newton_updates(monkeypatch) -> list[np.ndarray]:
    """Run backward Euler from its Python source (its kernels stay compiled) and collect the update
    delta of every Newton iteration, (2n,) px/frame."""
    updates: list[np.ndarray] = []
    solve = implicit_kernel.solve_in_place

    def recording(a, b):
        ok = solve(a, b)
        updates.append(b.copy())
        return ok

    monkeypatch.setattr(implicit_kernel, "run_backward_euler", implicit_kernel.run_backward_euler.py_func)
    monkeypatch.setattr(implicit_kernel, "solve_in_place", recording)
    return updates


@pytest.mark.parametrize("tolerance", [1e-3, 1e-8, 1e-12])
def test_newton_stops_at_the_first_update_within_the_tolerance_of_the_largest_speed(monkeypatch, tolerance):
    body = stiff_chain().replace(velocities=[[0.0, 0.0], [3.0, -1.0], [-2.0, 4.0]])  # high above the floor
    world = STIFF_WORLD.updated(
        {"integrator": "backward-euler", "newton_tolerance": tolerance, "newton_iterations": 100}
    )
    updates = _newton_updates(monkeypatch)
    one = simulate(body, world, world.dt, record_every=world.dt)  # a single step
    velocity = np.asarray(body.velocities, dtype=float).reshape(-1).copy()
    stops = []
    for delta in updates:
        velocity[2:] += delta[2:]  # mass 0 is fixed
        stops.append(np.abs(delta[2:]).max() <= tolerance * (1.0 + np.abs(velocity[2:]).max()))
    assert stops[-1] and not any(stops[:-1]), stops  # the first iterate within the rule is the last
    assert len(updates) > 1
    np.testing.assert_array_equal(one.velocities[-1].reshape(-1)[2:], velocity[2:])  # and it is kept


def test_newton_stops_after_newton_iterations_and_keeps_the_last_iterate(monkeypatch):
    body = stiff_chain().replace(velocities=[[0.0, 0.0], [3.0, -1.0], [-2.0, 4.0]])
    world = STIFF_WORLD.updated(
        {"integrator": "backward-euler", "newton_tolerance": 1e-300, "newton_iterations": 2}
    )
    updates = _newton_updates(monkeypatch)
    one = simulate(body, world, world.dt, record_every=world.dt)
    assert len(updates) == 2  # the tolerance is never met: the count stops it
    velocity = np.asarray(body.velocities, dtype=float).reshape(-1).copy()
    for delta in updates:
        velocity[2:] += delta[2:]
    np.testing.assert_array_equal(one.velocities[-1].reshape(-1)[2:], velocity[2:])


# -- the applet's model is untouched ------------------------------------------------------------------------

# A regression guard, not a physics check (the physics is checked above: energy, momentum, convergence
# orders, the analytic Jacobian): the walker's trajectory, bit for bit, as the applet's model gave it before
# issue 5 added per-mass masses and per-link stiffness. Pinned with numba 0.68.1, llvmlite 0.50.0, numpy
# 2.4.6 on x86_64 (Python 3.11). When it breaks: if those versions or the machine differ, a compiler may move
# the last bits -- check that the physics tests of tests/sim pass and that the distance below agrees to
# about 1e-6 px, then re-pin both values from ``python -m evo simulate genomes/walker.json --json``; if they
# do not differ, a change to the kernels altered the applet's model, which it must not.
PINNED_WITH = {"numba": "0.68.1", "llvmlite": "0.50.0", "numpy": "2.4.6", "machine": "x86_64"}
WALKER_SHA256 = "b445ab3b82071b974b4ca2a9227c0fefdbb3b2a3a5ab8de9994bf75eb81b37a1"
WALKER_DISTANCE = 3933.843013284562  # px


def _versions_here() -> dict[str, str]:
    import platform

    import llvmlite
    import numba

    return {"numba": numba.__version__, "llvmlite": llvmlite.__version__, "numpy": np.__version__,
            "machine": platform.machine()}  # fmt: skip


def test_the_walker_file_without_the_new_fields_gives_the_same_trajectory_bit_for_bit():
    body = load_model(GENOMES / "walker.json")
    assert body.has_default_physics
    trajectory = simulate(body, World().updated(body.world), 3000, record_every=1)
    data = (
        np.ascontiguousarray(trajectory.positions).tobytes()
        + np.ascontiguousarray(trajectory.velocities).tobytes()
    )
    distance = trajectory.centroids[-1, 0] - trajectory.centroids[0, 0]
    here = _versions_here()
    hint = (
        f"pinned with {PINNED_WITH}, running with {here}; see the comment above WALKER_SHA256 for what to do"
    )
    assert distance == pytest.approx(WALKER_DISTANCE, abs=1e-6), hint  # the physics, whatever the compiler
    assert hashlib.sha256(data).hexdigest() == WALKER_SHA256, hint
    assert distance == WALKER_DISTANCE, hint


def test_the_general_euler_kernel_agrees_with_the_fast_path_when_masses_and_stiffnesses_scale_together():
    body = load_model(GENOMES / "walker.json")
    world = World().updated(body.world)
    fast = simulate(body, world, 3000, record_every=1)
    # doubling every mass and every link's stiffness leaves the accelerations as they were, exactly
    general = simulate(body.replace(mass=np.full(body.n_masses, 2.0), stiffness=np.full(body.n_links, 2.0)),
                       world, 3000, record_every=1)  # fmt: skip
    np.testing.assert_allclose(general.positions, fast.positions, rtol=0, atol=1e-7)  # measured 2.5e-9 px


def test_every_integrator_but_forward_euler_runs_the_walker_from_its_file_at_a_small_step():
    body = load_model(GENOMES / "walker.json")
    for integrator in ("finite-difference", "midpoint", "rk4", "backward-euler", "psm"):
        world = World().updated({**body.world, "integrator": integrator, "dt": 0.25})
        trajectory = simulate(body, world, 200, record_every=1)
        assert not trajectory.exploded, integrator
        assert np.all(trajectory.positions[..., 1] >= 0.0)
        assert math.isfinite(trajectory.centroids[-1, 0])


def test_forward_euler_blows_up_on_the_walker_and_the_default_speed_bound_flags_it():
    # forward Euler gains energy on every oscillation (|1 + i omega h| > 1); the world's damping takes
    # away less than the walker's stiffest links give (omega^2 h > f): the speed reached 8e9 px/frame
    body = load_model(GENOMES / "walker.json")
    world = World().updated({**body.world, "integrator": "explicit-euler", "dt": 0.25})
    trajectory = simulate(body, world, 200, record_every=1)
    assert trajectory.exploded and 0 < trajectory.exploded_frame < 200
