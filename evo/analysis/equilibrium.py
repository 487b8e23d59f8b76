"""Static equilibrium of a creature (seed 000 ch. 10, eq. 10.2 with gravity, masses and stiffnesses).

:func:`solve_equilibrium` runs a damped, regularised Newton's method on the potential energy with the
analytic stiffness matrix, falling back on dynamic relaxation. The method, its tolerances and why gravity
is left out without a fixed mass: docs/analysis.md, "How the equilibrium is solved".
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from evo.analysis.forces import (
    TINY_LENGTH,
    StaticModel,
    energies,
    forces,
    link_lengths,
    orthonormal_columns,
    rigid_motions,
    static_model,
    stiffness_matrix,
)
from evo.errors import EvoInputError
from evo.model import Creature
from evo.sim.world import World

__all__ = ["Equilibrium", "gravity_applies", "solve_equilibrium"]

NEWTON = "newton"
RELAXATION = "relaxation"
RELAXATION_NEWTON = "relaxation+newton"


@dataclass(frozen=True, eq=False)
class Equilibrium:
    """A static equilibrium (or the best approximation found).

    Attributes:
        positions: (n_masses, 2) equilibrium positions (px); fixed masses where they were.
        residual: largest force on a free mass (unit-mass force, px/frame^2 for unit masses).
        tolerance: the residual below which it counts as converged.
        converged: residual <= tolerance.
        method: ``newton``, ``relaxation`` or ``relaxation+newton``.
        iterations: Newton iterations (both Newton passes together).
        relaxation_steps: pseudo-time steps of dynamic relaxation (0 when not needed).
        elastic_energy, gravity_energy: potential energies at the equilibrium.
        gravity_used: whether gravity was applied.
        phase: the wave angle the muscles were frozen at (rad), or None for their rest lengths.
        lengths, rest_lengths, tensions: (n_links,) at the equilibrium (px, px, unit-mass force).
        notes: sentences for the user (gravity left out, Newton failed, ...).
        model: the :class:`StaticModel` that was solved.
    """

    positions: np.ndarray
    residual: float
    tolerance: float
    converged: bool
    method: str
    iterations: int
    relaxation_steps: int
    elastic_energy: float
    gravity_energy: float
    gravity_used: bool
    phase: float | None
    lengths: np.ndarray
    rest_lengths: np.ndarray
    tensions: np.ndarray
    notes: tuple[str, ...] = ()
    model: StaticModel | None = field(default=None, repr=False)

    @property
    def energy(self) -> float:
        """Total potential energy (elastic + gravitational)."""
        return self.elastic_energy + self.gravity_energy


def gravity_applies(creature: Creature, world: World, gravity: bool | None = None) -> tuple[bool, str | None]:
    """Whether statics applies gravity, and a note explaining a choice the user did not make.

    ``gravity=None`` (auto): on when the world has gravity and the creature has a fixed mass.
    ``gravity=True`` on a creature without fixed masses raises :class:`EvoInputError`.
    """
    has_gravity = world.gravity_direction != "off" and world.gravity > 0.0
    has_fixed = bool(np.any(creature.fixed))
    if gravity is None:
        if has_gravity and not has_fixed:
            return False, (
                "gravity left out: the creature has no fixed mass and statics does not model the floor, "
                "so under gravity it has no equilibrium"
            )
        return has_gravity, None
    if gravity and has_gravity and not has_fixed:
        raise EvoInputError("a creature without fixed masses has no static equilibrium under gravity")
    return bool(gravity and has_gravity), None


def _force_scale(model: StaticModel, positions: np.ndarray) -> float:
    """A typical force: kbar s times a typical length, plus m g."""
    lengths = link_lengths(model, positions)
    typical = max(float(np.mean(np.maximum(lengths, model.rest_length))) if lengths.size else 0.0, 1.0)
    k = float(np.max(model.link_stiffness)) if model.link_stiffness.size else 0.0
    return k * typical + float(np.max(model.mass) * np.hypot(*model.gravity))


def _residual(model: StaticModel, positions: np.ndarray) -> float:
    f = forces(model, positions)
    return float(np.max(np.hypot(f[:, 0], f[:, 1]))) if f.size else 0.0


def _energy(model: StaticModel, positions: np.ndarray) -> float:
    return sum(energies(model, positions))


def _descent_step(k: np.ndarray, f: np.ndarray, mu: float) -> np.ndarray:
    """sum_i (v_i . f) / max(|lambda_i|, mu) v_i over the eigenpairs of k.

    When k + mu I is positive definite, a Cholesky solve of (k + mu I) dq = f gives the same step up to
    the form of the floor and is much cheaper, so that is tried first.
    """
    try:
        chol = np.linalg.cholesky(k + mu * np.eye(k.shape[0]))
    except np.linalg.LinAlgError:
        curvature, vectors = np.linalg.eigh(0.5 * (k + k.T))
        return vectors @ ((vectors.T @ f) / np.maximum(np.abs(curvature), mu))
    return np.linalg.solve(chol.T, np.linalg.solve(chol, f))


def _newton(
    model: StaticModel, positions: np.ndarray, tolerance: float, max_iterations: int
) -> tuple[np.ndarray, int, bool]:
    """Damped, regularised Newton on the energy. Returns (positions, iterations, converged)."""
    dofs = model.free_dofs
    q = positions.copy()
    if dofs.size == 0:
        return q, 0, True
    scale = max(model.stiffness_scale * float(np.max(model.mass)), 1e-300)
    mu_floor = 1e-10 * scale
    mu = mu_floor
    energy = _energy(model, q)
    for iteration in range(max_iterations + 1):
        f = forces(model, q).ravel()[dofs]
        residual = _residual(model, q)
        if residual <= tolerance:
            # one more Newton step costs little and, convergence being quadratic, takes the error
            # from the tolerance down to round-off; keep it only if it helps
            k = stiffness_matrix(model, q)[np.ix_(dofs, dofs)]
            trial = q.copy()
            trial.ravel()[dofs] += _descent_step(k, f, mu_floor)
            if _residual(model, trial) < residual:
                return trial, iteration + 1, True
            return q, iteration, True
        if iteration == max_iterations:
            break
        k = stiffness_matrix(model, q)[np.ix_(dofs, dofs)]
        step = _descent_step(k, f, mu)
        if not np.any(model.gravity):
            # the forces are internal, so exactly free of rigid motions: keep round-off from drifting
            rigid = orthonormal_columns(rigid_motions(q, model.free))
            step -= rigid @ (rigid.T @ step)
        if not np.all(np.isfinite(step)):
            return q, iteration, False
        slope = float(f @ step)  # -dV/da at a = 0, > 0
        alpha, accepted = 1.0, False
        for _ in range(40):
            trial = q.copy()
            trial.ravel()[dofs] += alpha * step
            trial_energy = _energy(model, trial)
            if np.isfinite(trial_energy) and trial_energy <= energy - 1e-4 * alpha * slope:
                accepted = True
                break
            alpha *= 0.5
        if not accepted:
            # no decrease even for tiny steps: round-off level; accept if forces still shrink
            trial = q.copy()
            trial.ravel()[dofs] += step
            if _residual(model, trial) < _residual(model, q):
                q, energy = trial, _energy(model, trial)
                continue
            return q, iteration + 1, False
        q, energy = trial, trial_energy
        if alpha == 1.0:
            mu = max(mu / 10.0, mu_floor)
        elif alpha < 0.25:
            mu = min(mu * 10.0, 1e6 * scale)
    return q, max_iterations, False


def _relax(
    model: StaticModel, positions: np.ndarray, tolerance: float, max_steps: int
) -> tuple[np.ndarray, int, bool]:
    """Dynamic relaxation with kinetic damping. Returns (positions, steps, converged)."""
    q = positions.copy()
    free = model.free
    if not np.any(free):
        return q, 0, True
    mass = model.mass[:, None]
    k_full = stiffness_matrix(model, q, part="elastic") + np.abs(stiffness_matrix(model, q, part="geometric"))
    # Gershgorin bound on omega_max^2 per mass; semi-implicit Euler is stable for dt < 2 / omega_max
    row = np.abs(k_full).sum(axis=1).reshape(-1, 2).max(axis=1) / model.mass
    omega_max = float(np.sqrt(max(np.max(row[free]), 1e-300)))
    dt = 0.5 / omega_max
    v = np.zeros_like(q)
    for step in range(1, max_steps + 1):
        f = forces(model, q)
        v[free] += dt * f[free] / mass[free]
        if float(np.sum(f * v)) < 0.0:  # kinetic-energy peak passed: restart from rest
            v[:] = 0.0
        q[free] += dt * v[free]
        if step % 25 == 0:
            if not np.all(np.isfinite(q)):
                return positions.copy(), step, False
            if _residual(model, q) <= tolerance:
                return q, step, True
    return q, max_steps, False


def solve_equilibrium(
    creature: Creature,
    world: World,
    *,
    phase: float | None = None,
    gravity: bool | None = None,
    link_stiffness: np.ndarray | None = None,
    mass: np.ndarray | None = None,
    start: np.ndarray | None = None,
    tolerance: float | None = None,
    max_iterations: int = 200,
    relaxation_steps: int = 100_000,
) -> Equilibrium:
    """Find the static equilibrium of ``creature`` in ``world``.

    Args:
        phase: wave angle theta (rad) to freeze the muscles at, or None for their rest lengths.
        gravity: True / False, or None for "when the creature has a fixed mass" (docs/analysis.md,
            "Gravity and the floor").
        link_stiffness: (n_links,) stiffness multipliers (default 1).
        mass: (n_masses,) masses (default 1).
        start: (n_masses, 2) starting positions (default: the creature's own positions).
        tolerance: largest force allowed on a free mass at the solution (default 1e-10 of a typical
            link force kbar * max(s) * length + max(m) g).
        max_iterations: Newton iterations per pass.
        relaxation_steps: most pseudo-time steps for the dynamic-relaxation fallback (0: no fallback).
    """
    use_gravity, note = gravity_applies(creature, world, gravity)
    notes = [note] if note else []
    model = static_model(
        creature, world, phase=phase, gravity=use_gravity, link_stiffness=link_stiffness, mass=mass
    )
    q0 = np.array(creature.positions if start is None else start, dtype=np.float64)
    if q0.shape != (creature.n_masses, 2):
        raise ValueError(f"start must have shape ({creature.n_masses}, 2)")
    if tolerance is None:
        tolerance = 1e-10 * max(_force_scale(model, q0), 1e-300)
    q, iterations, ok = _newton(model, q0, tolerance, max_iterations)
    method, steps = NEWTON, 0
    if not ok and relaxation_steps > 0:
        notes.append(f"Newton's method did not converge in {iterations} iterations; used dynamic relaxation")
        q_relaxed, steps, relaxed_ok = _relax(model, q0, tolerance, relaxation_steps)
        q_polished, more, ok = _newton(model, q_relaxed, tolerance, max_iterations)
        iterations += more
        if ok:
            q, method = q_polished, RELAXATION_NEWTON if more else RELAXATION
        else:
            best = min((q, q_relaxed, q_polished), key=lambda p: _residual(model, p))
            q, method, ok = best, RELAXATION, relaxed_ok
    residual = _residual(model, q)
    ok = residual <= tolerance
    if not ok:
        notes.append(f"no equilibrium found: the largest force left on a free mass is {residual:.3g}")
    elastic, grav = energies(model, q)
    lengths = link_lengths(model, q)
    collapsed = np.flatnonzero((lengths <= TINY_LENGTH) & (model.rest_length > 0.0))
    if collapsed.size:
        which = ", ".join(f"{k} ({model.link_a[k]}-{model.link_b[k]})" for k in collapsed[:5])
        notes.append(
            f"link{'s' if collapsed.size > 1 else ''} {which} of zero length: its masses coincide, so its "
            "direction is undefined and it pushes them nowhere; the modes treat it as lying along x "
            "without pre-stress (a compressed link at zero length is an unstable equilibrium)"
        )
    return Equilibrium(
        positions=q,
        residual=residual,
        tolerance=float(tolerance),
        converged=bool(ok),
        method=method,
        iterations=int(iterations),
        relaxation_steps=int(steps),
        elastic_energy=elastic,
        gravity_energy=grav,
        gravity_used=use_gravity,
        phase=None if phase is None else float(phase),
        lengths=lengths,
        rest_lengths=model.rest_length.copy(),
        tensions=model.link_stiffness * (lengths - model.rest_length),
        notes=tuple(notes),
        model=model,
    )
