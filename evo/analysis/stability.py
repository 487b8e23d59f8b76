"""Will a time step be stable? A cheap bound on a creature's highest natural frequency and each
integrator's stability limit on omega * dt (docs/simulator.md, section "Blow-ups").

No eigendecomposition: the bound costs O(links), whatever the size of the creature.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from evo.analysis.forces import TINY_LENGTH, static_model
from evo.model import Creature
from evo.sim.world import INTEGRATORS, World

__all__ = [
    "GROWTH_TOLERANCE",
    "StepCheck",
    "amplification",
    "check_frequency",
    "check_step",
    "degree_frequency_bound",
    "frequency_bound",
    "stability_limit",
]

# A step that multiplies an oscillation's amplitude by at most 1 + this counts as stable: over the 10^4
# steps of a long run that is 1 %. Only the schemes that gain energy on every undamped oscillation
# (explicit-euler, midpoint, psm of orders other than 4k - 1 and 4k) feel it.
GROWTH_TOLERANCE = 1e-6
_SCAN_MAX = 40.0  # omega * dt beyond which an integrator counts as unconditionally stable
_SCAN_STEP = 0.01
_MOST_SUBSTEPS = 1024  # the smallest dt suggested is dt / 1024


def frequency_bound(creature: Creature, world: World) -> float:
    """An upper bound on the highest natural frequency omega_max (rad/frame) of ``creature`` at its shape.

    The block Gershgorin bound on M^-1/2 K M^-1/2, with K the elastic part of the stiffness matrix at
    the creature's positions (:mod:`evo.analysis.forces`): for each free mass i,

        omega_i^2 = lambda_max(sum over its links of k_l u_l u_l^T) / m_i + sum over its links to free
                    masses j of k_l / sqrt(m_i m_j)   (+ ground_stiffness / m_i under penalty contact)

    with k_l = kbar * S_l and u_l the link's direction; omega_max^2 <= max_i omega_i^2. It is exact for a
    single spring (2 k / m); on random creatures it was 1.12-1.38 times the true omega_max. The geometric
    (pre-stress) part of K is left out: it is below the elastic part unless a link is compressed to
    less than half its rest length. A link of zero length counts with its stiffness in every direction.
    """
    model = static_model(creature, world)
    n = model.n_masses
    free = model.free
    if n == 0 or not free.any():
        return 0.0
    a, b, k, m = model.link_a, model.link_b, model.link_stiffness, model.mass
    d = np.asarray(creature.positions, dtype=np.float64)
    d = d[b] - d[a]
    length = np.hypot(d[:, 0], d[:, 1])
    ok = length > TINY_LENGTH
    u = d / np.where(ok, length, 1.0)[:, None]
    xx = np.where(ok, k * u[:, 0] ** 2, k)
    yy = np.where(ok, k * u[:, 1] ** 2, k)
    xy = np.where(ok, k * u[:, 0] * u[:, 1], 0.0)

    def per_mass(weights_a: np.ndarray, weights_b: np.ndarray) -> np.ndarray:
        return np.bincount(a, weights=weights_a, minlength=n) + np.bincount(b, weights=weights_b, minlength=n)

    sxx, syy, sxy = per_mass(xx, xx) / m, per_mass(yy, yy) / m, per_mass(xy, xy) / m
    coupling = k / np.sqrt(m[a] * m[b])
    off = per_mass(coupling * free[b], coupling * free[a])
    star = 0.5 * (sxx + syy) + np.sqrt((0.5 * (sxx - syy)) ** 2 + sxy**2)
    bound = star + off
    if world.contact == "penalty":
        bound = bound + world.ground_stiffness / m
    return math.sqrt(max(float(np.max(bound[free])), 0.0))


def degree_frequency_bound(
    world: World, max_degree: int, link_stiffness: float = 1.0, mass: float = 1.0
) -> float:
    """omega_max bound (rad/frame) for any creature with at most ``max_degree`` links at a mass, link
    stiffness multipliers at most ``link_stiffness`` and masses at least ``mass``, whatever its shape:
    omega^2 <= 2 * max_degree * kbar * S / m (+ ground_stiffness / m under penalty contact). This is the
    ``[genome] max_degree`` rule."""
    omega2 = 2.0 * max_degree * world.stiffness * link_stiffness / mass
    if world.contact == "penalty":
        omega2 += world.ground_stiffness / mass
    return math.sqrt(omega2)


def _explicit_step(integrator: str, x: float, v: float, acc) -> tuple:
    """One step (dt = 1) of an explicit one-step scheme from (x, v), with the acceleration ``acc(x, v)``."""
    if integrator == "euler":
        v1 = v + acc(x, v)
        return x + v1, v1
    if integrator == "explicit-euler":
        return x + v, v + acc(x, v)
    if integrator == "midpoint":
        xm, vm = x + 0.5 * v, v + 0.5 * acc(x, v)
        return x + vm, v + acc(xm, vm)
    # rk4
    k1 = (v, acc(x, v))
    k2 = (v + 0.5 * k1[1], acc(x + 0.5 * k1[0], v + 0.5 * k1[1]))
    k3 = (v + 0.5 * k2[1], acc(x + 0.5 * k2[0], v + 0.5 * k2[1]))
    k4 = (v + k3[1], acc(x + k3[0], v + k3[1]))
    return (
        x + (k1[0] + 2.0 * k2[0] + 2.0 * k3[0] + k4[0]) / 6.0,
        v + (k1[1] + 2.0 * k2[1] + 2.0 * k3[1] + k4[1]) / 6.0,
    )


def _one_step(integrator: str, y: np.ndarray, c: float, order: int) -> np.ndarray:
    """(len(y), d, d) matrices of one step of ``integrator`` on x'' = -omega^2 x - f x' with dt = 1,
    y = omega*dt and c = f*dt, acting on (x, v) -- and, for finite-difference, on the acceleration it
    carries to the next step (d = 3)."""
    y2 = np.asarray(y, dtype=np.float64) ** 2
    ones, zeros = np.ones_like(y2), np.zeros_like(y2)
    system = np.stack([np.stack([zeros, ones], -1), np.stack([-y2, -c * ones], -1)], -2)
    if integrator == "psm":  # the power series of a linear system is its Taylor polynomial, sum A^j / j!
        out = term = np.broadcast_to(np.eye(2), system.shape)
        for j in range(1, order + 1):
            term = term @ system / j
            out = out + term
        return out
    if integrator == "backward-euler":
        return np.linalg.inv(np.eye(2) - system)

    def acc(x, v):
        return -y2 * x - c * v

    if integrator == "finite-difference":  # the kernel's one-step form, acceleration carried over
        columns = []
        for x, v, a in np.eye(3):
            x1 = x + v + 0.5 * a
            a1 = acc(x1, v + a)
            columns.append(np.stack(np.broadcast_arrays(x1, v + 0.5 * (a + a1), a1), -1))
    else:
        columns = [
            np.stack(np.broadcast_arrays(*_explicit_step(integrator, x, v, acc)), -1) for x, v in np.eye(2)
        ]
    return np.stack(columns, -1)


def amplification(integrator: str, omega_dt, damping_dt: float = 0.0, psm_order: int = 9):
    """Spectral radius of one step of ``integrator`` on a damped oscillator x'' = -omega^2 x - f x', with
    omega*dt = ``omega_dt`` (a number or an array) and f*dt = ``damping_dt``: the factor the
    oscillation's amplitude grows by per step in the long run (above 1: it blows up)."""
    if integrator not in INTEGRATORS:
        raise ValueError(f"unknown integrator {integrator!r}")
    y = np.atleast_1d(np.asarray(omega_dt, dtype=np.float64))
    with np.errstate(over="ignore", invalid="ignore"):
        steps = np.array(_one_step(integrator, y, float(damping_dt), int(psm_order)))
    broken = ~np.isfinite(steps).all(axis=(-2, -1))  # a step that overflows (f*dt of 1e300) grows
    steps[broken] = 0.0
    radius = np.max(np.abs(np.linalg.eigvals(steps)), -1)
    radius[broken] = math.inf
    return float(radius[0]) if np.ndim(omega_dt) == 0 else radius


@functools.lru_cache(maxsize=1024)
def stability_limit(integrator: str, damping_dt: float = 0.0, psm_order: int = 9) -> float:
    """The largest omega*dt (rad) at which one step of ``integrator`` does not amplify an oscillation
    damped by the world's f (``damping_dt`` = f*dt) by more than 1 + :data:`GROWTH_TOLERANCE`; ``inf``
    for an unconditionally stable one (backward-euler).

    Undamped: 2 for euler and finite-difference, 2*sqrt(2) for rk4, sqrt(3) and 2*sqrt(2) for psm of
    orders 3 and 4; explicit-euler and midpoint grow at any omega*dt, so their limit is where f balances
    their growth (explicit-euler: sqrt(f*dt)). Found by a scan in steps of 0.01, then bisection.
    """
    scan = np.arange(1, round(_SCAN_MAX / _SCAN_STEP) + 1) * _SCAN_STEP
    grows = np.flatnonzero(amplification(integrator, scan, damping_dt, psm_order) > 1.0 + GROWTH_TOLERANCE)
    if grows.size == 0:
        return math.inf
    high = float(scan[grows[0]])
    low = float(scan[grows[0] - 1]) if grows[0] > 0 else 0.0
    for _ in range(50):
        mid = 0.5 * (low + high)
        if amplification(integrator, mid, damping_dt, psm_order) > 1.0 + GROWTH_TOLERANCE:
            high = mid
        else:
            low = mid
    return low


@dataclass(frozen=True)
class StepCheck:
    """Whether ``dt`` is small enough for a creature (or any creature of a genome) with ``integrator``.

    Attributes:
        omega_max: the bound on the highest natural frequency (rad/frame).
        integrator, dt: the world's.
        limit: the integrator's stability limit on omega_max * dt in this world (inf: none).
        smaller_dt: the largest dt / 2^j (j >= 1, at most dt / 1024: a run length that is a whole number
            of steps stays one, and the value prints exactly) at which the step is stable; None when it
            already is, or when none is.
        rk4_stable: whether rk4 at this dt would be stable.
    """

    omega_max: float
    integrator: str
    dt: float
    limit: float
    smaller_dt: float | None
    rk4_stable: bool

    @property
    def omega_dt(self) -> float:
        return self.omega_max * self.dt

    @property
    def stable(self) -> bool:
        return self.omega_dt <= self.limit


def check_frequency(omega_max: float, world: World) -> StepCheck:
    """:class:`StepCheck` of a step of ``world.dt`` with ``world.integrator`` for a highest frequency
    ``omega_max`` (rad/frame), with the world's damping."""
    dt, f = world.dt, world.damping

    def limit(integrator: str, step: float) -> float:
        return stability_limit(integrator, f * step, world.psm_order)

    here = limit(world.integrator, dt)
    smaller = None
    if omega_max * dt > here:
        k = 2
        while k <= _MOST_SUBSTEPS and smaller is None:
            if omega_max * dt / k <= limit(world.integrator, dt / k):
                smaller = dt / k
            k *= 2
    return StepCheck(
        omega_max=omega_max,
        integrator=world.integrator,
        dt=dt,
        limit=here,
        smaller_dt=smaller,
        rk4_stable=omega_max * dt <= limit("rk4", dt),
    )


def check_step(creature: Creature, world: World) -> StepCheck:
    """:class:`StepCheck` of ``creature`` in ``world`` with the bound of :func:`frequency_bound`."""
    return check_frequency(frequency_bound(creature, world), world)
