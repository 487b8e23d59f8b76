import dataclasses

import numpy as np

from evo.model import DEFAULT_POLYGON_COLOR, Creature, Polygon, closed_curve, is_color, is_connected, topology


def square() -> Creature:
    pos = [[0, 0], [10, 0], [10, 10], [0, 10]]
    a, b = [0, 1, 2, 3, 0], [1, 2, 3, 0, 2]
    return Creature(
        positions=pos,
        velocities=np.zeros((4, 2)),
        fixed=[False] * 4,
        link_a=a,
        link_b=b,
        rest=[10, 10, 10, 10, 14.1],
        alpha=[0] * 5,
        phi=[0] * 5,
    )


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
    detached = c.replace(
        positions=np.vstack([c.positions, [[50, 50]]]), velocities=np.zeros((5, 2)), fixed=[False] * 5
    )
    assert not is_connected(detached)


def test_creature_arrays_are_read_only():
    c = square()
    assert not c.positions.flags.writeable
    assert c.structural_errors() == []


def test_the_closed_curve_passes_through_every_corner_with_one_tangent_at_each():
    corners = np.array([[0.0, 0.0], [40.0, 5.0], [55.0, 40.0], [10.0, 60.0], [-20.0, 25.0]])
    segments = closed_curve(corners)
    assert segments.shape == (5, 3, 2)
    np.testing.assert_array_equal(segments[:, 2], np.roll(corners, -1, axis=0))  # segment i ends at i + 1
    for i in range(5):
        leaving = 3 * (segments[i, 0] - corners[i])  # derivative of segment i at its start
        arriving = 3 * (corners[i] - segments[i - 1, 1])  # derivative of segment i - 1 at its end
        np.testing.assert_allclose(leaving, arriving, rtol=0, atol=1e-12)
        # Catmull-Rom: the tangent at a corner is half the chord between its neighbours
        np.testing.assert_allclose(leaving, (corners[(i + 1) % 5] - corners[i - 1]) / 2, rtol=0, atol=1e-12)


def test_a_plain_sequence_of_mass_indices_is_a_polygon_without_colour_or_curve():
    c = square().replace(polys=[(0, 1, 2), Polygon([2, 3, 0], "#770000", True)])
    assert c.polys == (Polygon((0, 1, 2), None, False), Polygon((2, 3, 0), "#770000", True))
    assert c.polys[0].fill == DEFAULT_POLYGON_COLOR
    assert c.structural_errors() == []


def test_a_polygon_with_a_mass_out_of_range_or_a_bad_colour_is_a_structural_error():
    c = square().replace(polys=[(0, 1, 7), Polygon([0, 1, 2], "blue")])
    assert c.structural_errors() == [
        ("polys[0]", "mass indices in 0..3, got [0, 1, 7]"),
        ("polys[1].color", "a colour #rrggbb or #rgb, got 'blue'"),
    ]
    assert [is_color(text) for text in ("#fff", "#A0b1C2", "#ff", "fff", "#ggg", 7)] == [
        True,
        True,
        False,
        False,
        False,
        False,
    ]


def _same_creature(x, y):
    """Every field equal (arrays byte for byte, dtype and shape), the copy's arrays read-only."""
    assert type(x) is type(y) and x.has_default_physics == y.has_default_physics
    for field in dataclasses.fields(Creature):
        u, v = getattr(x, field.name), getattr(y, field.name)
        if isinstance(u, np.ndarray):
            assert (u.dtype, u.shape, u.tobytes()) == (v.dtype, v.shape, v.tobytes()), field.name
            assert not v.flags.writeable, field.name
        else:
            assert u == v, field.name


def test_a_pickled_creature_comes_back_bit_for_bit_read_only_and_compact():
    import copy
    import pickle

    rng = np.random.default_rng(4)
    n, m = 5, 7
    plain = dict(
        positions=rng.normal(size=(n, 2)),
        velocities=rng.normal(size=(n, 2)),
        fixed=[True, False, False, True, False],
        link_a=[0, 1, 2, 3, 4, 0, 1],
        link_b=[1, 2, 3, 4, 0, 2, 3],
        rest=rng.random(m) * 50,
        alpha=[0.0, -0.0, 0.5, 1, 0, 0, 0.25],
        phi=[np.nan, 0, 1, 2, 3, 4, 5],
        omega=0.1,
        beta=0.5,
        wave_phase=1.5,
        wave_reverse=True,
        autoreverse=True,
        name="x",
        world={"gravity": 0.3},
        meta={"k": [1, 2]},
        polys=[[0, 1, 2]],
    )
    physics = dict(stiffness=rng.random(m) + 0.5, dashpot=rng.random(m), mass=rng.random(n) + 0.5)
    for creature in (
        Creature(**plain),
        Creature(**plain, **physics),
        Creature(
            **{
                **plain,
                "positions": np.zeros((0, 2)),
                "velocities": np.zeros((0, 2)),
                "fixed": [],
                "link_a": [],
                "link_b": [],
                "rest": [],
                "alpha": [],
                "phi": [],
            }
        ),
    ):
        for protocol in (2, 4, 5):
            back = pickle.loads(pickle.dumps(creature, protocol=protocol))
            assert type(back) is Creature
            _same_creature(creature, back)
        _same_creature(creature, copy.deepcopy(creature))
    assert len(pickle.dumps(Creature(**plain))) < 1000


class Marked(Creature):
    """A user's subclass: pickled the default way, as before."""


def test_a_subclass_of_creature_pickles_as_before():
    import pickle

    creature = Marked(
        positions=[[0, 0], [1, 0]],
        velocities=np.zeros((2, 2)),
        fixed=[False, False],
        link_a=[0],
        link_b=[1],
        rest=[1.0],
        alpha=[0.0],
        phi=[0.0],
    )
    back = pickle.loads(pickle.dumps(creature))
    assert type(back) is Marked
    assert back.positions.tolist() == [[0.0, 0.0], [1.0, 0.0]] and back.link_b.tolist() == [1]
