"""The compiled finish of a body gives, bit for bit, what the numpy expressions it replaced give: the
positions placed on the floor, rest and alpha clipped, phi wrapped into [0, 2π)."""

import math

import numpy as np
import pytest

from evo.ga.kernels.genes import finished_genes

TWO_PI = 2.0 * math.pi


def by_numpy(positions, rest, alpha, phi, rest_range):
    placed = positions - positions.min(axis=0) if positions.shape[0] else positions.copy()
    phi = np.mod(phi, TWO_PI)
    phi[phi >= TWO_PI] = 0.0
    return (
        placed,
        np.minimum(np.maximum(rest, rest_range[0]), rest_range[1]),
        np.minimum(np.maximum(alpha, 0.0), 1.0),
        phi,
    )


def same_bits(x, y):
    return x.shape == y.shape and np.array_equal(x.view(np.int64), y.view(np.int64))


@pytest.mark.parametrize("seed", range(40))
def test_finished_genes_are_bit_for_bit_those_of_the_numpy_expressions(seed):
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(0, 12)), int(rng.integers(0, 30))
    positions = rng.normal(0.0, 80.0, (n, 2))
    rest = rng.normal(60.0, 60.0, m)
    alpha = rng.normal(0.5, 0.7, m)
    phi = rng.normal(0.0, 10.0, m)
    if m:  # phases just below zero and at the edges, where np.mod rounds up to 2π or gives -0.0
        phi[rng.integers(m, size=3)] = [-1e-17, -0.0, TWO_PI]
        rest[rng.integers(m)] = np.nan
    placed, genes = finished_genes(positions, np.array([rest, alpha, phi]).reshape(3, -1), (20.0, 120.0))
    got = (placed, *genes)
    expected = by_numpy(positions, rest, alpha, phi, (20.0, 120.0))
    for g, e in zip(got, expected, strict=True):
        assert same_bits(g, e)
    assert all((0.0 <= p < TWO_PI) for p in got[3])


def test_a_nan_position_makes_its_whole_axis_nan_as_np_min_does():
    positions = np.array([[1.0, 2.0], [np.nan, 5.0], [-3.0, 1.0]])
    placed = finished_genes(positions, np.zeros((3, 0)), (1.0, 2.0))[0]
    assert np.isnan(placed[:, 0]).all()
    assert placed[:, 1].tolist() == [1.0, 4.0, 0.0]


def distance_by_numpy(a, b):
    """evo.ga.creatures.distance as it was written in numpy, the reference for the compiled terms."""
    from evo.ga.creatures import _relative, _signature

    sa, sb = _signature(a), _signature(b)
    terms = [
        _relative(a.n_masses, b.n_masses),
        _relative(a.n_links, b.n_links),
        _relative(sa.muscles, sb.muscles),
        _relative(a.omega, b.omega),
        abs(a.beta - b.beta),
    ]
    qa, qb = sa.rest, sb.rest
    scale = np.maximum(np.abs(qa), np.abs(qb))
    terms.append(float(np.mean(np.divide(np.abs(qa - qb), scale, out=np.zeros_like(scale), where=scale > 0))))
    if sa.links == sb.links and a.n_links:
        both = a.is_muscle & b.is_muscle
        turn = np.abs(a.phi - b.phi) % TWO_PI
        circular = np.minimum(turn, TWO_PI - turn) / np.pi
        terms.append(float(np.mean(0.5 * np.abs(a.alpha - b.alpha) + 0.5 * np.where(both, circular, 0.0))))
    else:
        terms.append(float(np.mean(np.abs(sa.alpha - sb.alpha))))
    return float(sum(terms) / len(terms))


@pytest.mark.parametrize("seed", range(12))
def test_the_distance_between_creatures_is_bit_for_bit_that_of_the_numpy_expressions(seed):
    from evo.ga.creatures import distance, random_creature
    from evo.ga.mutation import MUTATIONS
    from evo.ga.settings import GASection, GenomeSection

    rng = np.random.default_rng(seed)
    genome = GenomeSection(masses=(3, 40), max_links=200, max_degree=12)
    parents = [random_creature(rng, genome) for _ in range(6)]
    # mutants that keep the links (same-link terms) and ones that change them
    kids = [
        MUTATIONS[name](p, rng, genome, GASection()) for p in parents for name in ("phi", "alpha", "add_link")
    ]
    everyone = parents + kids
    for a in everyone:
        for b in everyone:
            assert distance(a, b) == distance_by_numpy(a, b)


def test_block_sums_are_np_add_reduce_of_arrays_of_every_length_up_to_a_block():
    from evo.ga.kernels.genes import BLOCK, _block_sum

    rng = np.random.default_rng(9)
    for n in range(1, BLOCK + 1):
        for _ in range(20):
            values = rng.random(n) * 10.0 ** rng.integers(-6, 7, size=n)
            assert _block_sum(values, n) == float(np.add.reduce(values))
