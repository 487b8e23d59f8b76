"""Small creatures for the statics and vibration tests (seed 000 ch. 10, seed 004)."""

from __future__ import annotations

import numpy as np

from evo.model import Creature


def make_creature(positions, links, rest, *, fixed=None, alpha=None, phi=None, **wave) -> Creature:
    """A creature from (n, 2) positions, [(a, b), ...] links and (n_links,) rest lengths."""
    positions = np.asarray(positions, dtype=np.float64)
    n, m = positions.shape[0], len(links)
    return Creature(
        positions=positions,
        velocities=np.zeros_like(positions),
        fixed=np.zeros(n, dtype=bool) if fixed is None else np.asarray(fixed, dtype=bool),
        link_a=[a for a, _ in links],
        link_b=[b for _, b in links],
        rest=np.asarray(rest, dtype=np.float64),
        alpha=np.zeros(m) if alpha is None else np.asarray(alpha, dtype=np.float64),
        phi=np.zeros(m) if phi is None else np.asarray(phi, dtype=np.float64),
        **wave,
    )


def hexagon(diagonal_rest: float, *, jitter: float = 0.0, seed: int = 0) -> Creature:
    """Seed 000 fig. 10.1: six zip springs round the border, three springs of rest length l across."""
    angles = np.arange(6) * np.pi / 3.0
    rng = np.random.default_rng(seed)
    positions = 0.5 * diagonal_rest * np.stack([np.cos(angles), np.sin(angles)], axis=1)
    positions += rng.normal(0.0, jitter, positions.shape) + 300.0
    links = [(i, (i + 1) % 6) for i in range(6)] + [(0, 3), (1, 4), (2, 5)]
    return make_creature(positions, links, [0.0] * 6 + [diagonal_rest] * 3)


def pandoras_toybox(diagonal_rest: float, width: float, height: float) -> Creature:
    """Seed 000 §10.3: four zip springs as the sides of a rectangle, two springs as its diagonals."""
    positions = np.array([[0.0, 0.0], [width, 0.0], [width, height], [0.0, height]]) + 300.0
    links = [(0, 1), (1, 2), (2, 3), (3, 0), (0, 2), (1, 3)]
    return make_creature(positions, links, [0.0] * 4 + [diagonal_rest] * 2)


def tension_spring(chain_rest, strut_rest: float, *, stretch: float = 1.2) -> Creature:
    """Seed 000 §10.4: N springs in a chain (rests l_1..l_N) held apart by one strut (rest l_0)."""
    chain_rest = np.asarray(chain_rest, dtype=np.float64)
    n = chain_rest.size
    x = np.concatenate([[0.0], np.cumsum(chain_rest + 0.5)]) * stretch + 200.0
    positions = np.stack([x, np.full(n + 1, 300.0)], axis=1)
    links = [(i, i + 1) for i in range(n)] + [(0, n)]
    return make_creature(positions, links, [*chain_rest, strut_rest])


MOTOR_PHASES = np.array([0.0, 2.0 * np.pi / 3.0, 4.0 * np.pi / 3.0])  # links 1-2, 2-3, 1-3


def motor_rest_lengths(length: float, theta: float) -> np.ndarray:
    """Eq. 10.24 (alpha = beta = 1): rest lengths of links 1-2, 2-3, 1-3 at wave angle theta."""
    return length * (1.0 + np.sin(theta + MOTOR_PHASES))


def linear_motor(length: float, x2: float, x3: float) -> Creature:
    """Seed 000 §10.5: three equal muscles on a line, timed at thirds of the wave."""
    positions = np.array([[200.0, 300.0], [200.0 + x2, 300.0], [200.0 + x3, 300.0]])
    links = [(0, 1), (1, 2), (0, 2)]
    return make_creature(
        positions, links, [length] * 3, alpha=np.ones(3), phi=MOTOR_PHASES, beta=1.0, omega=1.0
    )


def random_creature(seed: int, *, n_fixed: int = 0) -> Creature:
    """A connected random truss with muscles, some links slack and some compressed."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 12))
    positions = rng.uniform(100.0, 300.0, (n, 2))
    links = {(int(rng.integers(0, i)), i) for i in range(1, n)}
    while len(links) < 2 * n:
        a, b = sorted(int(v) for v in rng.choice(n, 2, replace=False))
        links.add((a, b))
    links = sorted(links)
    m = len(links)
    lengths = np.linalg.norm(positions[[b for _, b in links]] - positions[[a for a, _ in links]], axis=1)
    fixed = np.zeros(n, dtype=bool)
    fixed[rng.choice(n, n_fixed, replace=False)] = True
    return make_creature(
        positions,
        links,
        lengths * rng.uniform(0.6, 1.4, m),
        fixed=fixed,
        alpha=rng.uniform(0.0, 1.0, m) * (rng.random(m) < 0.5),
        phi=rng.uniform(0.0, 2.0 * np.pi, m),
        beta=0.7,
        omega=0.1,
    )


def wheel(seed: int = 0, *, masses: int = 16, radius: float = 60.0, name: str = "wheel") -> Creature:
    """A turbine-like wheel: ``masses`` masses on a circle (px), every pair linked (120 links for 16,
    15 per mass), every link a muscle of full amplitude (alpha = beta = 1) at a random phase."""
    rng = np.random.default_rng(seed)
    angles = 2.0 * np.pi * np.arange(masses) / masses
    positions = radius * (1.0 + np.stack([np.cos(angles), np.sin(angles)], axis=1))
    links = [(i, j) for i in range(masses) for j in range(i + 1, masses)]
    rest = [float(np.hypot(*(positions[j] - positions[i]))) for i, j in links]
    return make_creature(
        positions, links, rest, alpha=np.ones(len(links)), phi=rng.random(len(links)) * 2.0 * np.pi,
        omega=0.1, beta=1.0, name=name,
    )  # fmt: skip
