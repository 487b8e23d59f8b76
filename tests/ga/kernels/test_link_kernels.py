"""The compiled graph loops of bodies and mutations: distinct links, bridges and cut vertices, and the
pairs a new link may join, checked against their definitions and the numpy expressions they replace."""

import numpy as np
import pytest

from evo.ga.kernels.links import bridges_and_cuts, distinct_links, free_pairs


@pytest.mark.parametrize("seed", range(30))
def test_distinct_links_keep_the_first_of_each_pair_of_masses_and_drop_self_links(seed):
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(1, 9)), int(rng.integers(0, 40))
    a, b = rng.integers(n, size=m), rng.integers(n, size=m)
    seen, expected = set(), []
    for k, (i, j) in enumerate(zip(a.tolist(), b.tolist(), strict=True)):
        if i != j and (min(i, j), max(i, j)) not in seen:
            seen.add((min(i, j), max(i, j)))
            expected.append(k)
    assert distinct_links(a, b).tolist() == expected


def pieces(n, links, without_mass=None):
    """The number of connected pieces of masses 0 .. n - 1 (but ``without_mass``) joined by ``links``."""
    parent = list(range(n))

    def root(i):
        while parent[i] != i:
            i = parent[i]
        return i

    for i, j in links:
        if without_mass not in (i, j):
            parent[root(i)] = root(j)
    return len({root(i) for i in range(n) if i != without_mass})


@pytest.mark.parametrize("seed", range(60))
def test_bridges_and_cut_vertices_are_the_links_and_masses_whose_removal_splits_the_graph(seed):
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(1, 10)), int(rng.integers(0, 16))
    a, b = rng.integers(n, size=m), rng.integers(n, size=m)  # self links, parallel links, pieces
    links = list(zip(a.tolist(), b.tolist(), strict=True))
    bridge, cut = bridges_and_cuts(n, a, b)
    whole = pieces(n, links)
    assert bridge.tolist() == [pieces(n, links[:k] + links[k + 1 :]) > whole for k in range(m)]
    assert cut.tolist() == [pieces(n, links, without_mass=v) > whole for v in range(n)]


@pytest.mark.parametrize("seed", range(40))
def test_free_pairs_are_those_the_numpy_expressions_find_with_the_same_running_weights(seed):
    rng = np.random.default_rng(seed)
    n, m, max_degree = int(rng.integers(1, 10)), int(rng.integers(0, 14)), int(rng.integers(1, 5))
    positions = rng.normal(0.0, 50.0, (n, 2))
    a, b = rng.integers(n, size=m), rng.integers(n, size=m)
    spare = np.bincount(np.concatenate([a, b]), minlength=n) < max_degree
    free = np.triu(spare[:, None] & spare[None, :], k=1)
    free[np.concatenate([a, b]), np.concatenate([b, a])] = False
    i_side, j_side = np.nonzero(free)
    gaps = np.hypot(*(positions[j_side] - positions[i_side]).T)
    got = free_pairs(positions, a, b, max_degree, 12.5)
    assert got[0].tolist() == i_side.tolist() and got[1].tolist() == j_side.tolist()
    assert got[2].tolist() == np.cumsum(1.0 / (gaps + 12.5 + 1.0)).tolist()
