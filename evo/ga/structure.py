"""Graph work shared by the genome and the variation operators: an editable body, bridges and cut
vertices, connecting components, and repairing a body to the ``[genome]`` limits.

A :class:`Body` is a mutable working copy of a creature's structure (positions and link genes as Python
lists); operators edit a body and turn it back into a frozen :class:`~evo.model.Creature` with
:func:`finish`, which clips every gene into its range and places the creature on the floor: its lowest
mass at y = 0 and its leftmost mass at x = 0 (px).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from evo.ga.settings import GenomeSection
from evo.model import Creature

__all__ = [
    "Body",
    "TWO_PI",
    "wrap_phase",
    "new_link_genes",
    "cut_structure",
    "repair",
    "place_on_floor",
    "finish",
]

TWO_PI = 2.0 * math.pi
_GENES = ("a", "b", "rest", "alpha", "phi")


def wrap_phase(phi: np.ndarray) -> np.ndarray:
    """Phases (rad) wrapped into [0, 2π); ``np.mod`` alone can return 2π for tiny negative inputs."""
    out = np.mod(np.asarray(phi, dtype=np.float64), TWO_PI)
    out[out >= TWO_PI] = 0.0
    return out


def new_link_genes(
    rng: np.random.Generator, genome: GenomeSection, length: float
) -> tuple[float, float, float]:
    """(rest px, alpha, phi rad) of a new link of current length ``length`` px.

    The rest length is the current length clipped to ``genome.rest`` (so the link starts unstressed when
    it can); with probability ``genome.muscle_fraction`` it is a muscle with alpha uniform in (0, 1].
    """
    muscle, alpha, phi = rng.random(3)
    rest = float(np.clip(length, *genome.rest))
    return (
        rest,
        (1.0 - alpha) if muscle < genome.muscle_fraction else 0.0,
        float(wrap_phase([phi * TWO_PI])[0]),
    )


@dataclass
class Body:
    """An editable creature structure: (n, 2) positions (px) and per-link genes as lists."""

    positions: np.ndarray
    a: list[int]
    b: list[int]
    rest: list[float]
    alpha: list[float]
    phi: list[float]

    @classmethod
    def of(cls, creature: Creature) -> Body:
        return cls(
            positions=np.array(creature.positions, dtype=np.float64),
            a=[int(i) for i in creature.link_a],
            b=[int(i) for i in creature.link_b],
            rest=[float(x) for x in creature.rest],
            alpha=[float(x) for x in creature.alpha],
            phi=[float(x) for x in creature.phi],
        )

    @property
    def n_masses(self) -> int:
        return int(self.positions.shape[0])

    @property
    def n_links(self) -> int:
        return len(self.a)

    def degree(self) -> np.ndarray:
        """(n_masses,) number of links at each mass."""
        return np.bincount(np.array(self.a + self.b, dtype=np.int64), minlength=self.n_masses)

    def length(self, i: int, j: int) -> float:
        """Current distance between masses i and j (px)."""
        return float(np.hypot(*(self.positions[j] - self.positions[i])))

    def linked(self, i: int, j: int) -> bool:
        return any((p == i and q == j) or (p == j and q == i) for p, q in zip(self.a, self.b, strict=True))

    def add_link(self, i: int, j: int, genes: tuple[float, float, float]) -> None:
        self.a.append(int(i))
        self.b.append(int(j))
        for column, value in zip((self.rest, self.alpha, self.phi), genes, strict=True):
            column.append(float(value))

    def keep_links(self, keep: list[int]) -> None:
        """Keep only the links with these indices, in this order."""
        for name in ("a", "b", "rest", "alpha", "phi"):
            column = getattr(self, name)
            setattr(self, name, [column[k] for k in keep])

    def remove_masses(self, gone: list[int]) -> None:
        """Delete masses and every link touching them; the remaining masses keep their order."""
        alive = np.ones(self.n_masses, dtype=bool)
        alive[list(gone)] = False
        new_index = np.cumsum(alive) - 1
        keep = [k for k in range(self.n_links) if alive[self.a[k]] and alive[self.b[k]]]
        self.keep_links(keep)
        self.a = [int(new_index[i]) for i in self.a]
        self.b = [int(new_index[i]) for i in self.b]
        self.positions = self.positions[alive]

    def components(self) -> np.ndarray:
        """(n_masses,) component label of each mass, labels 0, 1, ... in order of first mass."""
        parent = list(range(self.n_masses))

        def root(i: int) -> int:
            while parent[i] != i:
                parent[i] = parent[parent[i]]
                i = parent[i]
            return i

        for i, j in zip(self.a, self.b, strict=True):
            parent[root(i)] = root(j)
        roots = [root(i) for i in range(self.n_masses)]
        labels: dict[int, int] = {}
        return np.array([labels.setdefault(r, len(labels)) for r in roots], dtype=np.int64)


def cut_structure(n: int, a: list[int], b: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """Bridges and cut vertices of a graph (Tarjan, iterative; parallel links are not bridges).

    Returns ``(bridge, cut)``: an (n_links,) bool array, True for a link whose removal disconnects its
    component, and an (n,) bool array, True for a mass whose removal does.
    """
    adjacency: list[list[tuple[int, int]]] = [[] for _ in range(n)]
    for k, (i, j) in enumerate(zip(a, b, strict=True)):
        if i != j:
            adjacency[i].append((j, k))
            adjacency[j].append((i, k))
    order = [-1] * n
    low = [0] * n
    bridge = np.zeros(len(a), dtype=bool)
    cut = np.zeros(n, dtype=bool)
    counter = 0
    for start in range(n):
        if order[start] >= 0:
            continue
        order[start] = low[start] = counter
        counter += 1
        children = 0
        stack = [(start, -1, iter(adjacency[start]))]
        while stack:
            v, via, edges = stack[-1]
            for w, k in edges:
                if k == via:
                    continue
                if order[w] < 0:
                    order[w] = low[w] = counter
                    counter += 1
                    stack.append((w, k, iter(adjacency[w])))
                    break
                low[v] = min(low[v], order[w])
            else:
                stack.pop()
                if stack:
                    u = stack[-1][0]
                    low[u] = min(low[u], low[v])
                    if low[v] > order[u]:
                        bridge[via] = True
                    if u == start:
                        children += 1
                    elif low[v] >= order[u]:
                        cut[u] = True
        cut[start] = children > 1
    return bridge, cut


def _free_one(body: Body, members: np.ndarray) -> None:
    """Remove the longest link on a cycle among ``members`` (all at full degree, so one exists)."""
    bridge, _ = cut_structure(body.n_masses, body.a, body.b)
    inside = [k for k in range(body.n_links) if members[body.a[k]] and not bridge[k]]
    longest = max(inside, key=lambda k: body.length(body.a[k], body.b[k]))
    body.keep_links([k for k in range(body.n_links) if k != longest])


def _connect(body: Body, rng: np.random.Generator, genome: GenomeSection) -> None:
    """Join the components of a forest with new links between the nearest masses with a spare degree.

    Every component of a forest has a mass of degree <= 1 < max_degree, and joining two components
    keeps it a forest, so this always succeeds.
    """
    while True:
        labels = body.components()
        if labels.max(initial=0) == 0:
            return
        spare = body.degree() < genome.max_degree
        i_side = np.flatnonzero((labels == 0) & spare)
        j_side = np.flatnonzero((labels != 0) & spare)
        gaps = body.positions[j_side][None, :, :] - body.positions[i_side][:, None, :]
        flat = int(np.argmin(np.hypot(gaps[..., 0], gaps[..., 1])))
        i, j = int(i_side[flat // j_side.size]), int(j_side[flat % j_side.size])
        body.add_link(i, j, new_link_genes(rng, genome, body.length(i, j)))


def _grow(body: Body, rng: np.random.Generator, genome: GenomeSection) -> None:
    """Add one mass near a random mass with a spare degree, linked to it (used to reach masses[0])."""
    if body.n_links >= genome.max_links or not np.any(body.degree() < genome.max_degree):
        _free_one(body, np.ones(body.n_masses, dtype=bool))
    anchor = int(rng.choice(np.flatnonzero(body.degree() < genome.max_degree)))
    angle, fraction = rng.random(2)
    reach = genome.rest[0] + fraction * (0.5 * (genome.rest[0] + genome.rest[1]) - genome.rest[0])
    offset = reach * np.array([math.cos(angle * TWO_PI), math.sin(angle * TWO_PI)])
    body.positions = np.vstack([body.positions, body.positions[anchor] + offset])
    new = body.n_masses - 1
    body.add_link(anchor, new, new_link_genes(rng, genome, body.length(anchor, new)))


def repair(body: Body, rng: np.random.Generator, genome: GenomeSection) -> None:
    """Bring a body within the limits of ``genome`` in place: mass count, no self or duplicate links,
    degree and link caps, connected.

    Links are kept Kruskal-style: first a spanning forest (in random order, within the degree cap), then
    new links join its components (a forest always has a mass of degree <= 1 to link from), then the
    remaining original links while the caps allow. A body that is already valid comes back unchanged.
    """
    if body.n_masses > genome.masses[1]:
        gone = rng.choice(body.n_masses, size=body.n_masses - genome.masses[1], replace=False)
        body.remove_masses([int(i) for i in gone])
    seen: set[tuple[int, int]] = set()
    unique = []
    for k, (i, j) in enumerate(zip(body.a, body.b, strict=True)):
        pair = (min(i, j), max(i, j))
        if i != j and pair not in seen:
            seen.add(pair)
            unique.append(k)
    body.keep_links(unique)
    in_forest = _spanning_forest(body, rng, genome.max_degree)
    forest = Body(body.positions, *([getattr(body, c)[k] for k in np.flatnonzero(in_forest)] for c in _GENES))
    _connect(forest, rng, genome)
    degree = forest.degree()
    kept = in_forest.copy()
    for k in rng.permutation(body.n_links):
        i, j = body.a[k], body.b[k]
        fits = degree[i] < genome.max_degree and degree[j] < genome.max_degree
        if not kept[k] and fits and forest.n_links + int(kept.sum() - in_forest.sum()) < genome.max_links:
            degree[i] += 1
            degree[j] += 1
            kept[k] = True
    n_forest = int(in_forest.sum())
    joins = [[getattr(forest, c)[k] for k in range(n_forest, forest.n_links)] for c in _GENES]
    body.keep_links([int(k) for k in np.flatnonzero(kept)])
    for i, j, *genes in zip(*joins, strict=True):
        body.add_link(i, j, tuple(genes))
    while body.n_masses < genome.masses[0]:
        _grow(body, rng, genome)


def _spanning_forest(body: Body, rng: np.random.Generator, max_degree: int) -> np.ndarray:
    """(n_links,) bool: a spanning forest taken in random order within the degree cap (Kruskal)."""
    parent = list(range(body.n_masses))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    degree = np.zeros(body.n_masses, dtype=np.int64)
    in_forest = np.zeros(body.n_links, dtype=bool)
    for k in rng.permutation(body.n_links):
        i, j = body.a[k], body.b[k]
        if root(i) != root(j) and degree[i] < max_degree and degree[j] < max_degree:
            parent[root(i)] = root(j)
            degree[i] += 1
            degree[j] += 1
            in_forest[k] = True
    return in_forest


def place_on_floor(positions: np.ndarray) -> np.ndarray:
    """(n, 2) positions shifted so that the lowest mass is at y = 0 and the leftmost at x = 0 (px)."""
    positions = np.asarray(positions, dtype=np.float64)
    if positions.shape[0] == 0:
        return positions.copy()
    return positions - positions.min(axis=0)


def finish(
    body: Body,
    template: Creature,
    genome: GenomeSection,
    *,
    omega: float | None = None,
    beta: float | None = None,
    world: dict | None = None,
    keep_polys: bool = False,
) -> Creature:
    """The creature of ``body``: genes clipped into the ``genome`` ranges (rest, alpha in [0, 1], phi
    wrapped into [0, 2π), omega, beta), at rest (zero velocities, no fixed masses), placed on the floor.

    Wave settings not given are taken from ``template``; so are the name and the world (unless ``world``
    is given). ``meta`` is empty (the generation loop records provenance); polygons, which only serve
    drawing and index masses, are kept only with ``keep_polys``.
    """
    n = body.n_masses
    return Creature(
        positions=place_on_floor(body.positions),
        velocities=np.zeros((n, 2)),
        fixed=np.zeros(n, dtype=bool),
        link_a=np.array(body.a, dtype=np.int64),
        link_b=np.array(body.b, dtype=np.int64),
        rest=np.clip(np.array(body.rest, dtype=np.float64), *genome.rest),
        alpha=np.clip(np.array(body.alpha, dtype=np.float64), 0.0, 1.0),
        phi=wrap_phase(np.array(body.phi, dtype=np.float64)),
        omega=float(np.clip(template.omega if omega is None else omega, *genome.omega)),
        beta=float(np.clip(template.beta if beta is None else beta, *genome.beta)),
        wave_phase=template.wave_phase,
        wave_reverse=template.wave_reverse,
        autoreverse=template.autoreverse,
        name=template.name,
        world=dict(template.world if world is None else world),
        meta={},
        polys=template.polys if keep_polys else (),
    )
