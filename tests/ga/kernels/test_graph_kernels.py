"""The compiled loops of crossover and repair choose exactly what the Python loops they replace chose
(written out here as the reference), on random graphs and positions, and cut children come out the same,
bit for bit and draw for draw."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from ga_strategies import ga_sections, genome_sections
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evo.ga.kernels.graph import gathered_genes, join_pairs, left_part, span
from evo.ga.topology import connected

PROPERTY = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def reference_join_pairs(left, right, count, per_mass):
    lengths = np.hypot(*(right[None, :, :] - left[:, None, :]).transpose(2, 0, 1))
    used_left, used_right, out = [0] * len(left), [0] * len(right), []
    for flat in np.argsort(lengths, axis=None, kind="stable").tolist():
        if count <= 0:
            break
        i, j = divmod(flat, len(right))
        if used_left[i] < per_mass and used_right[j] < per_mass:
            out.append((i, j, float(lengths.flat[flat])))
            used_left[i] += 1
            used_right[j] += 1
            count -= 1
    return out


def reference_span(n, a, b, order, positions, cap, max_links):
    parent = list(range(n))

    def root(i):
        while parent[i] != i:
            i = parent[i]
        return i

    degree, kept, joins = [0] * n, [False] * len(a), []
    for k in order:
        i, j = a[k], b[k]
        if degree[i] < cap and degree[j] < cap and root(i) != root(j):
            parent[root(i)] = root(j)
            degree[i] += 1
            degree[j] += 1
            kept[k] = True
    while True:
        roots = np.array([root(i) for i in range(n)])
        main = roots == roots[0]
        if main.all():
            break
        spare = np.array(degree) < cap
        i_side, j_side = np.flatnonzero(main & spare), np.flatnonzero(~main & spare)
        lengths = np.hypot(
            *(positions[j_side][None, :, :] - positions[i_side][:, None, :]).transpose(2, 0, 1)
        )
        flat = int(np.argmin(lengths))
        i, j = int(i_side[flat // j_side.size]), int(j_side[flat % j_side.size])
        parent[root(i)] = root(j)
        degree[i] += 1
        degree[j] += 1
        joins.append((i, j, float(lengths.flat[flat])))
    budget = max_links - sum(kept) - len(joins)
    for k in order:
        i, j = a[k], b[k]
        if budget > 0 and not kept[k] and degree[i] < cap and degree[j] < cap:
            degree[i] += 1
            degree[j] += 1
            kept[k] = True
            budget -= 1
    return kept, joins


# coordinates on a coarse grid, so that equal distances (ties) are common
coordinates = st.integers(-6, 6).map(lambda v: 10.0 * v)
points = st.lists(st.tuples(coordinates, coordinates), min_size=1, max_size=9).map(np.array)


@PROPERTY
@given(left=points, right=points, count=st.integers(-1, 12), per_mass=st.integers(1, 3))
def test_join_pairs_picks_the_nearest_pairs_within_the_cap_per_mass(left, right, count, per_mass):
    i, j, lengths = join_pairs(left, right, count, per_mass)
    assert list(zip(i.tolist(), j.tolist(), lengths.tolist(), strict=True)) == reference_join_pairs(
        left, right, count, per_mass
    )


@st.composite
def graphs(draw):
    n = draw(st.integers(1, 12))
    pairs = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=3 * n))
    pairs = list(dict.fromkeys((min(p), max(p)) for p in pairs if p[0] != p[1]))  # no self or duplicate
    order = draw(st.permutations(range(len(pairs))))
    positions = np.array(draw(st.lists(st.tuples(coordinates, coordinates), min_size=n, max_size=n)))
    cap = draw(st.integers(2, 5))
    max_links = draw(st.integers(n - 1, 3 * n))
    return n, [p[0] for p in pairs], [p[1] for p in pairs], list(order), positions, cap, max_links


@PROPERTY
@given(graph=graphs())
def test_span_keeps_and_adds_the_links_the_python_repair_did(graph):
    n, a, b, order, positions, cap, max_links = graph
    kept, join_i, join_j, lengths = span(
        n, np.array(a), np.array(b), np.array(order), positions, cap, max_links
    )
    expected_kept, expected_joins = reference_span(n, a, b, order, positions, cap, max_links)
    assert kept.tolist() == expected_kept
    assert list(zip(join_i.tolist(), join_j.tolist(), lengths.tolist(), strict=True)) == expected_joins
    final_a = [a[k] for k in range(len(a)) if kept[k]] + join_i.tolist()
    final_b = [b[k] for k in range(len(b)) if kept[k]] + join_j.tolist()
    assert connected(n, final_a, final_b)
    assert np.bincount(final_a + final_b, minlength=n).max(initial=0) <= cap
    assert len(final_a) <= max(max_links, n - 1)


# -- the cut child against crossover's Python parts ----------------------------------------------------


def reference_cut_bodies(a, b, rng, genome):
    """0.1.0's _cut_bodies (its _part, _merged, _gap, _crossing and _join written out), with today's
    repair (itself checked above)."""
    from evo.ga.body import LINK_EXTRAS, MASS_EXTRAS, Body, extras_of, new_link_genes
    from evo.ga.crossover import PER_MASS_ACROSS, _split
    from evo.ga.topology import repair

    def part(creature, keep, shift):
        new_index = np.cumsum(keep) - 1
        links = np.flatnonzero(keep[creature.link_a] & keep[creature.link_b])
        return Body(
            creature.positions[keep] + np.array([shift, 0.0]),
            new_index[creature.link_a[links]].tolist(),
            new_index[creature.link_b[links]].tolist(),
            creature.rest[links].tolist(),
            creature.alpha[links].tolist(),
            creature.phi[links].tolist(),
            renumbered=True,
            link_extra={k: v[links].tolist() for k, v in extras_of(creature, LINK_EXTRAS).items()},
            mass_extra={k: v[keep].tolist() for k, v in extras_of(creature, MASS_EXTRAS).items()},
        )

    def merged(left, right, sizes, defaults):
        return {
            name: left.get(name, [defaults[name]] * sizes[0]) + right.get(name, [defaults[name]] * sizes[1])
            for name in sorted(left.keys() | right.keys())
        }

    def gap(left, right, spacing):
        if left.shape[0] == 0 or right.shape[0] == 0:
            return 0.0
        dx = right[None, :, 0] - left[:, None, 0]
        dy = np.abs(right[None, :, 1] - left[:, None, 1])
        return float(max((np.sqrt(np.maximum(spacing * spacing - dy * dy, 0.0)) - dx).max(), 0.0))

    def crossing(creature, left):
        return int(np.count_nonzero(left[creature.link_a] != left[creature.link_b]))

    def join(left, right, count):
        offset = left.n_masses
        body = Body(
            np.vstack([left.positions, right.positions]),
            left.a + [i + offset for i in right.a],
            left.b + [i + offset for i in right.b],
            left.rest + right.rest,
            left.alpha + right.alpha,
            left.phi + right.phi,
            renumbered=True,
            link_extra=merged(left.link_extra, right.link_extra, (left.n_links, right.n_links), LINK_EXTRAS),
            mass_extra=merged(
                left.mass_extra, right.mass_extra, (left.n_masses, right.n_masses), MASS_EXTRAS
            ),
        )
        if left.n_masses and right.n_masses:
            for i, j, length in reference_join_pairs(left.positions, right.positions, count, PER_MASS_ACROSS):
                body.add_link(i, j + offset, new_link_genes(rng, genome, length))
        return body

    fraction = rng.uniform(0.25, 0.75)
    left_a, cut_a = _split(a, fraction)
    left_b, cut_b = _split(b, fraction)
    bodies = []
    for (first, left_first, cut_first), (second, left_second, cut_second) in (
        ((a, left_a, cut_a), (b, left_b, cut_b)),
        ((b, left_b, cut_b), (a, left_a, cut_a)),
    ):
        left = part(first, left_first, 0.0)
        right = part(second, ~left_second, cut_first - cut_second)
        right.positions[:, 0] += gap(left.positions, right.positions, genome.rest[0])
        across = max(1, round(0.5 * (crossing(first, left_first) + crossing(second, left_second))))
        body = join(left, right, across)
        body.omega, body.beta = first.omega, first.beta
        repair(body, rng, genome)
        bodies.append(body)
    return bodies


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    genome=genome_sections(),
    ga=ga_sections(),
    seeds=st.tuples(st.integers(0, 2**32 - 1), st.integers(0, 2**32 - 1)),
    physics=st.booleans(),
)
def test_the_cut_children_are_those_of_the_python_parts_draw_for_draw(genome, ga, seeds, physics):
    from evo.ga.creatures import random_creature
    from evo.ga.crossover import _cut_bodies
    from evo.ga.mutation import mutate

    if physics:
        genome = dataclasses.replace(
            genome, link_stiffness=(0.5, 2.0), link_dashpot=(0.0, 0.3), mass=(0.5, 3.0)
        )
        ga = dataclasses.replace(ga, rate_physics=1.0)
    rng = np.random.default_rng(seeds[0])
    parents = [random_creature(rng, genome) for _ in range(2)]
    if physics:  # only one parent with physics, so that a child merges a column with the defaults
        parents[0] = mutate(parents[0], rng, genome, ga)
    mine_rng, reference_rng = np.random.default_rng(seeds[1]), np.random.default_rng(seeds[1])
    mine = _cut_bodies(*parents, mine_rng, genome)
    reference = reference_cut_bodies(*parents, reference_rng, genome)
    for body, expected in zip(mine, reference, strict=True):
        assert body.positions.tobytes() == expected.positions.tobytes()  # bit for bit, signed zeros too
        for name in (
            "a",
            "b",
            "rest",
            "alpha",
            "phi",
            "omega",
            "beta",
            "renumbered",
            "link_extra",
            "mass_extra",
        ):
            assert getattr(body, name) == getattr(expected, name), name
    assert mine_rng.bit_generator.state == reference_rng.bit_generator.state


@pytest.mark.parametrize("seed", range(10))
def test_gathered_genes_are_the_concatenated_genes_of_the_links_kept(seed):
    rng = np.random.default_rng(seed)
    first, second = rng.normal(size=(3, 12)), rng.normal(size=(3, 7))
    links_first, links_second = np.flatnonzero(rng.random(12) < 0.5), np.flatnonzero(rng.random(7) < 0.5)
    got = gathered_genes(tuple(first), links_first, tuple(second), links_second)
    for row in range(3):
        expected = np.concatenate([first[row][links_first], second[row][links_second]])
        assert got[row].tolist() == expected.tolist()


@pytest.mark.parametrize("seed", range(40))
def test_the_left_part_is_a_stable_sort_of_x_and_the_cut_lies_halfway_across_the_gap(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 12))
    x = rng.integers(-3, 4, size=n).astype(np.float64)  # many ties
    count = int(rng.integers(1, n + 1))
    order = np.argsort(x, kind="stable")
    left, cut = left_part(x, count)
    assert np.flatnonzero(left).tolist() == sorted(order[:count].tolist())
    xs = x[order]
    assert cut == (0.5 * (xs[count - 1] + xs[count]) if count < n else xs[-1])
