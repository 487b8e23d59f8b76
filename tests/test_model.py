import numpy as np

from evo.model import Creature, is_connected, topology


def square() -> Creature:
    pos = [[0, 0], [10, 0], [10, 10], [0, 10]]
    a, b = [0, 1, 2, 3, 0], [1, 2, 3, 0, 2]
    return Creature(
        positions=pos, velocities=np.zeros((4, 2)), fixed=[False] * 4, link_a=a, link_b=b,
        rest=[10, 10, 10, 10, 14.1], alpha=[0] * 5, phi=[0] * 5,
    )  # fmt: skip


def test_topology_index_lists_each_mass_neighbours_and_the_joining_links():
    topo = topology(square())
    assert topo.degree().tolist() == [3, 2, 3, 2]
    assert sorted(topo.epsilon(0).tolist()) == [1, 2, 3]
    assert sorted(topo.epsilon(1).tolist()) == [0, 2]
    for i in range(4):
        for j, link in zip(topo.epsilon(i), topo.links[topo.indptr[i] : topo.indptr[i + 1]], strict=True):
            c = square()
            assert {int(c.link_a[link]), int(c.link_b[link])} == {i, int(j)}


def test_connectivity_detects_a_detached_mass():
    c = square()
    assert is_connected(c)
    detached = c.replace(positions=np.vstack([c.positions, [[50, 50]]]), velocities=np.zeros((5, 2)),
                         fixed=[False] * 5)  # fmt: skip
    assert not is_connected(detached)


def test_creature_arrays_are_read_only():
    c = square()
    assert not c.positions.flags.writeable
    assert c.structural_errors() == []
