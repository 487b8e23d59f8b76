"""Small vibrations about a static equilibrium (seed 004): M q'' + C q' + K q = 0.

Natural frequencies and mass-normalised mode shapes from ``numpy.linalg.eigh``, damped frequencies for
C = fbar M, and the zero modes split into rigid-body modes and mechanisms. The derivation and the zero
tolerance: docs/analysis.md, "The mechanics".
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from evo.analysis.equilibrium import Equilibrium, solve_equilibrium
from evo.analysis.forces import StaticModel, orthonormal_columns, rigid_motions, stiffness_matrix
from evo.model import Creature
from evo.sim.world import World

__all__ = [
    "Modes",
    "damped_frequencies",
    "lowest_natural_frequency",
    "mass_matrix",
    "modes_at",
    "natural_modes",
    "place_frequency",
]

ZERO_TOLERANCE = 1e-8
_RIGID_OVERLAP = 0.999


def mass_matrix(creature: Creature, mass: np.ndarray | None = None) -> np.ndarray:
    """(2 n_free, 2 n_free) diagonal mass matrix of the free coordinates [x, y of each free mass].

    ``mass`` (n_masses,) defaults to the creature's own ``mass`` array when its model has one, else 1."""
    if mass is None:
        mass = getattr(creature, "mass", None)
    masses = np.ones(creature.n_masses) if mass is None else np.asarray(mass, dtype=np.float64)
    free = ~np.asarray(creature.fixed, dtype=bool)
    return np.diag(np.repeat(masses[free], 2))


def damped_frequencies(frequencies: np.ndarray, damping: float) -> np.ndarray:
    """omega_d = sqrt(omega^2 - fbar^2 / 4) for viscous damping fbar (1/frame); NaN when overdamped."""
    w2 = np.asarray(frequencies, dtype=np.float64) ** 2 - 0.25 * float(damping) ** 2
    return np.where(w2 > 0.0, np.sqrt(np.maximum(w2, 0.0)), np.nan)


@dataclass(frozen=True, eq=False)
class Modes:
    """The vibration modes of a creature about an equilibrium.

    Attributes:
        eigenvalues: (n_dof,) omega^2 ascending (rad^2/frame^2); n_dof = 2 * number of free masses.
        shapes: (n_dof, n_masses, 2) mode shapes, mass-normalised, zero on fixed masses, in the order
            of ``eigenvalues``.
        zero_threshold: |omega^2| at or below this counts as zero (rad^2/frame^2).
        zero_modes, rigid_modes, mechanisms, unstable_modes: counts (rigid + mechanisms = zero).
        damping: the world's damping fbar (1/frame).
        mass_matrix, stiffness_matrix: (n_dof, n_dof) M and K of the free coordinates.
        equilibrium: the equilibrium they are about.
    """

    eigenvalues: np.ndarray
    shapes: np.ndarray
    zero_threshold: float
    zero_modes: int
    rigid_modes: int
    mechanisms: int
    unstable_modes: int
    damping: float
    mass_matrix: np.ndarray
    stiffness_matrix: np.ndarray
    equilibrium: Equilibrium

    @property
    def vibrating(self) -> np.ndarray:
        """Indices (into eigenvalues / shapes) of the non-zero, stable modes, ascending."""
        return np.flatnonzero(self.eigenvalues > self.zero_threshold)

    @property
    def frequencies(self) -> np.ndarray:
        """Non-zero natural frequencies omega, ascending (rad/frame)."""
        return np.sqrt(self.eigenvalues[self.vibrating])

    @property
    def periods(self) -> np.ndarray:
        """2 pi / omega of each non-zero mode (frames)."""
        return 2.0 * np.pi / self.frequencies

    @property
    def damped_frequencies(self) -> np.ndarray:
        """omega_d of each non-zero mode with the world's damping; NaN where overdamped."""
        return damped_frequencies(self.frequencies, self.damping)

    def mechanism_shapes(self) -> np.ndarray:
        """(mechanisms, n_masses, 2) the zero modes with their rigid-body part removed (in the mass
        metric), mass-normalised: how the creature can deform at no cost."""
        model = self.equilibrium.model
        dofs = model.free_dofs
        sqrt_m = np.sqrt(np.diag(self.mass_matrix))
        zero = np.abs(self.eigenvalues) <= self.zero_threshold
        if self.mechanisms == 0:
            return np.zeros((0, model.n_masses, 2))
        z = sqrt_m[:, None] * self.shapes.reshape(self.shapes.shape[0], -1)[zero][:, dofs].T
        rigid = orthonormal_columns(sqrt_m[:, None] * rigid_motions(self.equilibrium.positions, model.free))
        z = z - rigid @ (rigid.T @ z)
        u, _, _ = np.linalg.svd(z, full_matrices=False)
        out = np.zeros((self.mechanisms, model.n_masses * 2))
        out[:, dofs] = (u[:, : self.mechanisms] / sqrt_m[:, None]).T
        return out.reshape(self.mechanisms, model.n_masses, 2)

    @property
    def unstable_rates(self) -> np.ndarray:
        """sqrt(-omega^2) of the unstable modes (1/frame): how fast each grows, ascending."""
        neg = self.eigenvalues[self.eigenvalues < -self.zero_threshold]
        return np.sort(np.sqrt(-neg))


def modes_at(equilibrium: Equilibrium, damping: float = 0.0, zero_tolerance: float = ZERO_TOLERANCE) -> Modes:
    """The vibration modes about a solved equilibrium (its :class:`StaticModel` gives K and M)."""
    model: StaticModel = equilibrium.model
    dofs = model.free_dofs
    positions = equilibrium.positions
    k = stiffness_matrix(model, positions)[np.ix_(dofs, dofs)]
    m_diag = np.repeat(model.mass[model.free], 2)
    inv_sqrt = 1.0 / np.sqrt(m_diag)
    a = inv_sqrt[:, None] * k * inv_sqrt[None, :]
    a = 0.5 * (a + a.T)
    eigenvalues, vectors = np.linalg.eigh(a)
    threshold = zero_tolerance * model.stiffness_scale
    zero = np.abs(eigenvalues) <= threshold
    # rigid modes: the rigid motions (in mass-weighted coordinates) that lie in the zero-mode space
    rigid = orthonormal_columns(np.sqrt(m_diag)[:, None] * rigid_motions(positions, model.free))
    n_rigid = 0
    if rigid.shape[1] and np.any(zero):
        overlap = np.linalg.svd(rigid.T @ vectors[:, zero], compute_uv=False)
        n_rigid = int(np.count_nonzero(overlap > _RIGID_OVERLAP))
    shapes_free = inv_sqrt[:, None] * vectors
    shapes = np.zeros((dofs.size, model.n_masses * 2))
    shapes[:, dofs] = shapes_free.T
    return Modes(
        eigenvalues=eigenvalues,
        shapes=shapes.reshape(dofs.size, model.n_masses, 2),
        zero_threshold=float(threshold),
        zero_modes=int(np.count_nonzero(zero)),
        rigid_modes=n_rigid,
        mechanisms=int(np.count_nonzero(zero)) - n_rigid,
        unstable_modes=int(np.count_nonzero(eigenvalues < -threshold)),
        damping=float(damping),
        mass_matrix=np.diag(m_diag),
        stiffness_matrix=k,
        equilibrium=equilibrium,
    )


def natural_modes(
    creature: Creature,
    world: World,
    *,
    phase: float | None = None,
    gravity: bool | None = None,
    link_stiffness: np.ndarray | None = None,
    mass: np.ndarray | None = None,
    zero_tolerance: float = ZERO_TOLERANCE,
    **solver_options,
) -> Modes:
    """Solve the equilibrium and the modes about it. The arguments are those of
    :func:`solve_equilibrium` (``solver_options``: start, tolerance, max_iterations, relaxation_steps)."""
    eq = solve_equilibrium(
        creature,
        world,
        phase=phase,
        gravity=gravity,
        link_stiffness=link_stiffness,
        mass=mass,
        **solver_options,
    )
    return modes_at(eq, damping=world.damping, zero_tolerance=zero_tolerance)


def lowest_natural_frequency(creature: Creature, world: World, **options) -> float | None:
    """The lowest non-zero natural frequency (rad/frame) about the rest-length equilibrium, or None
    when the creature has none (or no equilibrium was found). ``options`` go to :func:`natural_modes`."""
    modes = natural_modes(creature, world, **options)
    if not modes.equilibrium.converged or modes.frequencies.size == 0:
        return None
    return float(modes.frequencies[0])


def place_frequency(omega: float, frequencies: np.ndarray) -> dict:
    """Where a driving frequency ``omega`` (rad/frame) sits among ascending natural ``frequencies``.

    Returns a dict: ``below`` (how many natural frequencies lie below omega), ``nearest_mode`` (1-based,
    or None without modes), ``nearest_frequency`` and ``ratio_to_nearest`` (omega / that frequency), and
    ``ratio_to_lowest``.
    """
    freqs = np.asarray(frequencies, dtype=np.float64)
    if freqs.size == 0:
        return {
            "below": 0,
            "nearest_mode": None,
            "nearest_frequency": None,
            "ratio_to_nearest": None,
            "ratio_to_lowest": None,
        }
    nearest = int(np.argmin(np.abs(np.log(np.maximum(omega, 1e-300) / freqs)))) if omega > 0 else 0
    return {
        "below": int(np.searchsorted(freqs, omega, side="right")),
        "nearest_mode": nearest + 1,
        "nearest_frequency": float(freqs[nearest]),
        "ratio_to_nearest": float(omega / freqs[nearest]),
        "ratio_to_lowest": float(omega / freqs[0]),
    }
