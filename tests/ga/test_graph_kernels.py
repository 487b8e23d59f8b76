"""The compiled loops of crossover and repair choose exactly what the Python loops they replace chose
(written out here as the reference), on random graphs and positions."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evo.ga.body import connected
from evo.ga.graph_kernels import join_pairs, span

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
