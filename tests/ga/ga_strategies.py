"""Hypothesis strategies and small builders shared by the GA tests (imported by module name, like the
other test helpers: pytest puts this folder on sys.path)."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from evo.ga.settings import MUTATION_NAMES, GASection, GenomeSection
from evo.model import Creature


@st.composite
def genome_sections(draw) -> GenomeSection:
    """Random but sane [genome] limits."""
    low = draw(st.integers(2, 10))
    high = draw(st.integers(low, 24))
    rest_low = draw(st.floats(0.0, 40.0))
    omega_low = draw(st.floats(0.0, 0.3))
    beta_low = draw(st.floats(0.0, 1.0))
    return GenomeSection(
        masses=(low, high),
        box=(draw(st.floats(5.0, 300.0)), draw(st.floats(5.0, 200.0))),
        link_density=draw(st.floats(0.0, 1.0)),
        muscle_fraction=draw(st.floats(0.0, 1.0)),
        rest=(rest_low, draw(st.floats(rest_low, 200.0))),
        omega=(omega_low, draw(st.floats(omega_low, 0.5))),
        beta=(beta_low, draw(st.floats(beta_low, 1.0))),
        max_links=draw(st.integers(high - 1, 3 * high)),
        max_degree=draw(st.integers(2, 6)),
    )


@st.composite
def ga_sections(draw) -> GASection:
    """Random rates and step sizes."""
    rate = st.floats(0.0, 1.0)
    changes = {f"rate_{name}": draw(rate) for name in MUTATION_NAMES}
    changes.update(
        rate_cut_crossover=draw(rate),
        rate_wave_crossover=draw(rate),
        gene_fraction=draw(rate),
        sigma_rest=draw(st.floats(0.0, 1.0)),
        sigma_alpha=draw(st.floats(0.0, 1.0)),
        sigma_phi=draw(st.floats(0.0, 10.0)),
        sigma_omega=draw(st.floats(0.0, 1.0)),
        sigma_beta=draw(st.floats(0.0, 1.0)),
        sigma_move=draw(st.floats(0.0, 100.0)),
    )
    return GASection(**changes)


def build(positions, links, *, omega=0.1, beta=0.5, fixed=None) -> Creature:
    """A creature from [(x, y)] (px) and [(a, b, rest, alpha, phi)]."""
    links = np.array(links, dtype=np.float64).reshape(-1, 5)
    n = len(positions)
    return Creature(
        positions=positions,
        velocities=np.zeros((n, 2)),
        fixed=np.zeros(n, dtype=bool) if fixed is None else fixed,
        link_a=links[:, 0].astype(int),
        link_b=links[:, 1].astype(int),
        rest=links[:, 2],
        alpha=links[:, 3],
        phi=links[:, 4],
        omega=omega,
        beta=beta,
    )
