"""A body's links as a graph: bridges and cut vertices, whether it is in one piece, and repairing a body
to the ``[genome]`` limits (mass count, distinct links, degree and link caps, connected).
"""

from __future__ import annotations

import math

import numpy as np

from evo.ga.body import TWO_PI, Body, new_link_genes, new_links_genes
from evo.ga.kernels.graph import span
from evo.ga.kernels.links import bridges_and_cuts, distinct_links
from evo.ga.settings import GenomeSection

__all__ = ["connected", "cut_structure", "repair"]


def cut_structure(n: int, a: list[int], b: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """Bridges and cut vertices of a graph (Tarjan, iterative; parallel links are not bridges).

    Returns ``(bridge, cut)``: an (n_links,) bool array, True for a link whose removal disconnects its
    component, and an (n,) bool array, True for a mass whose removal does
    (:func:`evo.ga.kernels.graph.bridges_and_cuts`).
    """
    return bridges_and_cuts(int(n), np.array(a, dtype=np.int64), np.array(b, dtype=np.int64))


def _free_one(body: Body, members: np.ndarray) -> None:
    """Remove the longest link on a cycle among ``members`` (all at full degree, so one exists)."""
    bridge, _ = cut_structure(body.n_masses, body.a, body.b)
    inside = [k for k in range(body.n_links) if members[body.a[k]] and not bridge[k]]
    longest = max(inside, key=lambda k: body.length(body.a[k], body.b[k]))
    body.keep_links([k for k in range(body.n_links) if k != longest])


class _Forest:
    """Union-find over masses, for growing a spanning forest link by link."""

    def __init__(self, n: int):
        self.parent = list(range(n))

    def root(self, i: int) -> int:
        parent = self.parent
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    def join(self, i: int, j: int) -> bool:
        """Merge the trees of i and j; False if they were already one."""
        ri, rj = self.root(i), self.root(j)
        if ri == rj:
            return False
        self.parent[ri] = rj
        return True


def connected(n: int, a: list[int], b: list[int]) -> bool:
    """True when the links (a[k], b[k]) join all n masses into one piece."""
    forest = _Forest(n)
    pieces = n
    for i, j in zip(a, b, strict=True):
        pieces -= forest.join(i, j)
    return pieces <= 1


def _grow(body: Body, rng: np.random.Generator, genome: GenomeSection) -> None:
    """Add one mass near a random mass with a spare degree, linked to it (used to reach masses[0])."""
    if body.n_links >= genome.max_links or not np.any(body.degree() < genome.max_degree):
        _free_one(body, np.ones(body.n_masses, dtype=bool))
    spare = np.flatnonzero(body.degree() < genome.max_degree)
    anchor = int(spare[rng.integers(spare.size)])
    angle, fraction = rng.random(2)
    reach = genome.rest[0] + fraction * (0.5 * (genome.rest[0] + genome.rest[1]) - genome.rest[0])
    offset = reach * np.array([math.cos(angle * TWO_PI), math.sin(angle * TWO_PI)])
    new = body.add_mass(body.positions[anchor] + offset)
    body.add_link(anchor, new, new_link_genes(rng, genome, body.length(anchor, new)))


def repair(body: Body, rng: np.random.Generator, genome: GenomeSection) -> None:
    """Bring a body within the limits of ``genome`` in place: mass count, no self or duplicate links,
    degree and link caps, connected.

    Masses beyond ``masses[1]`` are removed at random. Links are then kept Kruskal-style, in one random
    order: first those that grow a spanning forest within the degree cap, then new links join the trees
    (:func:`evo.ga.kernels.graph.span`), then the other original links while the degree and link caps
    allow. Kept links stay in their original order, new ones follow. Masses are grown up to
    ``masses[0]`` last. A body that is already valid keeps its structure.
    """
    if body.n_masses > genome.masses[1]:
        gone = rng.choice(body.n_masses, size=body.n_masses - genome.masses[1], replace=False)
        body.remove_masses(gone.tolist())
    a, b = np.array(body.a, dtype=np.int64), np.array(body.b, dtype=np.int64)
    unique = distinct_links(a, b)
    if unique.size < body.n_links:
        body.keep_links(unique.tolist())
        a, b = a[unique], b[unique]
    m = body.n_links
    order = rng.permutation(m)
    kept, join_i, join_j, lengths = span(
        body.n_masses, a, b, order, body.positions, genome.max_degree, genome.max_links
    )
    # the new links' genes are drawn once the structure is chosen, in the order the links were made
    joins = new_links_genes(rng, genome, lengths.tolist())
    if not kept.all():
        body.keep_links(kept.nonzero()[0].tolist())
    body.add_links(join_i.tolist(), join_j.tolist(), joins)
    while body.n_masses < genome.masses[0]:
        _grow(body, rng, genome)
