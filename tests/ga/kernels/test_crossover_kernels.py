"""The compiled crossover and repair (evo.ga.kernels.crossover) make the draws of the Python operators in
the same order and give the same bodies bit for bit, on fresh random parents, mutated ones and bodies that
need every branch of repair; they bail out (ok False) exactly where Python would draw ``rng.choice``."""

from __future__ import annotations

import time

import numpy as np
import pytest

from evo.ga import topology
from evo.ga.body import Body, new_link_genes
from evo.ga.body import new_links_genes as py_new_links_genes
from evo.ga.creatures import random_creature
from evo.ga.crossover import crossover_bodies as py_crossover_bodies
from evo.ga.kernels.crossover import crossover_bodies, genome_limits, new_links_genes, repair
from evo.ga.kernels.links import distinct_links
from evo.ga.mutation import mutate
from evo.ga.settings import GASection, GenomeSection

GENOMES = {
    "default": GenomeSection(),
    "masses 2..30": GenomeSection(masses=(2, 30)),
    "max_links 8": GenomeSection(masses=(3, 9), max_links=8),
    "max_degree 2": GenomeSection(max_degree=2),
    "max_degree 3, rest 30..60": GenomeSection(max_degree=3, rest=(30.0, 60.0), muscle_fraction=0.9),
    "rest 0..25, box 300x40": GenomeSection(rest=(0.0, 25.0), box=(300.0, 40.0), muscle_fraction=0.1),
}
RATES = [(1.0, 1.0), (1.0, 0.5), (0.5, 1.0), (0.5, 0.5)]
SEEDS_PER_RATE = 130  # x 4 rates x 6 genomes = 3120 cases


class Recording:
    """A generator that notes whether ``choice`` was drawn (repair removing masses at random)."""

    def __init__(self, rng: np.random.Generator):
        self.rng = rng
        self.chose = False

    def choice(self, *args, **kwargs):
        self.chose = True
        return self.rng.choice(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(self.rng, name)


def as_tuple(body: Body) -> tuple:
    """A Python body as the compiled one's tuple."""
    return (
        np.ascontiguousarray(body.positions, dtype=np.float64),
        np.array(body.a, dtype=np.int64),
        np.array(body.b, dtype=np.int64),
        np.array(body.rest, dtype=np.float64),
        np.array(body.alpha, dtype=np.float64),
        np.array(body.phi, dtype=np.float64),
        float(body.omega),
        float(body.beta),
        bool(body.renumbered),
    )


def parent_body(creature) -> tuple:
    """A parent creature as a body tuple (writable copies of its arrays)."""
    return as_tuple(Body.of(creature))


def assert_same_body(expected: tuple, got: tuple) -> None:
    """Every field equal bit for bit (arrays by dtype, shape and bytes; floats by their bytes)."""
    assert len(got) == 9
    for k in range(6):
        assert got[k].dtype == expected[k].dtype, k
        assert got[k].shape == expected[k].shape, k
        assert got[k].tobytes() == expected[k].tobytes(), k
    assert got[0].flags.c_contiguous
    for k in (6, 7):
        assert np.float64(got[k]).tobytes() == np.float64(expected[k]).tobytes(), k
    assert bool(got[8]) is expected[8]


def parents(genome: GenomeSection, count: int = 40) -> list:
    """Fresh random creatures and creatures mutated a few times (as a run's would be)."""
    out = [random_creature(np.random.default_rng(1000 + s), genome) for s in range(count)]
    ga = GASection()
    for s in range(count // 2):
        rng = np.random.default_rng(5000 + s)
        creature = out[s]
        for _ in range(1 + s % 5):
            creature = mutate(creature, rng, genome, ga)
        out.append(creature)
    return out


def test_new_links_genes_are_the_python_ones_draw_for_draw():
    cases = 0
    for seed in range(300):
        rng = np.random.default_rng(seed)
        genome = GenomeSection(
            rest=(float(rng.uniform(0, 30)), float(rng.uniform(30, 100))),
            muscle_fraction=float(rng.choice([0.0, 0.5, 1.0, rng.random()])),
        )
        k = int(rng.integers(0, 6))
        lengths = rng.uniform(-10.0, 150.0, k)
        if k and seed % 7 == 0:
            lengths[0] = np.nan
        rng_py, rng_c = np.random.default_rng(seed), np.random.default_rng(seed)
        expected = py_new_links_genes(rng_py, genome, lengths.tolist())
        rest, alpha, phi = new_links_genes(rng_c, genome_limits(genome), lengths)
        got = list(zip(rest.tolist(), alpha.tolist(), phi.tolist(), strict=True))
        assert np.array(got).reshape(-1, 3).tobytes() == np.array(expected).reshape(-1, 3).tobytes()
        assert rng_py.random() == rng_c.random()
        if k == 1:  # one link: new_link_genes
            rng_py = np.random.default_rng(seed)
            assert (
                np.array(new_link_genes(rng_py, genome, lengths[0])).tobytes() == np.array(got[0]).tobytes()
            )
        cases += 1
    assert cases == 300


def test_genome_limits_hold_the_genome_in_order():
    genome = GenomeSection(masses=(3, 9), rest=(5.0, 50.0), muscle_fraction=0.25, max_degree=3, max_links=8)
    assert genome_limits(genome).tolist()[:7] == [5.0, 50.0, 0.25, 3.0, 8.0, 3.0, 9.0]
    assert genome_limits(genome).tolist()[7:] == [*genome.omega, *genome.beta]


REPAIR_GENOMES = [  # (genome, whether growing must free a link: _free_one)
    (GenomeSection(), False),
    (GenomeSection(masses=(5, 6), max_links=5, max_degree=3), True),  # grown bodies hit the link cap
    (GenomeSection(masses=(4, 9), max_links=8, max_degree=2), True),  # triangles at full degree
    (GenomeSection(masses=(2, 30), rest=(20.0, 40.0)), False),
]


def random_body(rng: np.random.Generator, genome: GenomeSection) -> Body:
    """A body that may break every limit: too many or too few masses, self and duplicate links, too many
    links, masses over the degree cap, several pieces."""
    n = int(rng.integers(1, genome.masses[1] + 3))
    m = int(rng.integers(0, 3 * n + 1))
    if rng.random() < 0.2 and n >= 3:  # a complete graph: every mass at a high degree
        pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
        a, b = [p[0] for p in pairs], [p[1] for p in pairs]
        m = len(a)
    else:
        a, b = rng.integers(0, n, m).tolist(), rng.integers(0, n, m).tolist()
    return Body(
        rng.uniform(0.0, 150.0, (n, 2)),
        a,
        b,
        rng.uniform(0.0, 150.0, m).tolist(),
        rng.random(m).tolist(),
        (rng.random(m) * 7.0).tolist(),
        float(rng.random()),
        float(rng.random()),
        bool(rng.random() < 0.5),
    )


@pytest.mark.parametrize(("genome", "frees"), REPAIR_GENOMES, ids=range(len(REPAIR_GENOMES)))
def test_repair_is_the_python_repair_draw_for_draw_through_every_branch(genome, frees, monkeypatch):
    freed = []
    free_one = topology._free_one
    monkeypatch.setattr(
        topology, "_free_one", lambda body, members: (freed.append(1), free_one(body, members))
    )
    lim = genome_limits(genome)
    seen = dict.fromkeys(
        ["duplicate or self", "over max_links", "over max_degree", "pieces", "grown", "bail"], 0
    )
    for seed in range(600):
        body = random_body(np.random.default_rng(seed), genome)
        given = as_tuple(body)
        n, a, b = body.n_masses, given[1], given[2]
        unique = distinct_links(a, b)
        seen["duplicate or self"] += unique.size < a.size
        seen["over max_links"] += unique.size > genome.max_links
        seen["over max_degree"] += bool(n and np.bincount(np.r_[a, b], minlength=n).max() > genome.max_degree)
        seen["pieces"] += not topology.connected(n, body.a, body.b)
        seen["grown"] += n < genome.masses[0]
        rng_py, rng_c = Recording(np.random.default_rng(seed)), np.random.default_rng(seed)
        topology.repair(body, rng_py, genome)
        got, ok = repair(given, rng_c, lim)
        assert ok is not rng_py.chose
        if not ok:
            seen["bail"] += 1
            assert rng_c.random() == np.random.default_rng(seed).random()  # no draw made
            continue
        assert_same_body(as_tuple(body), got)
        assert rng_py.random() == rng_c.random()
        for k in range(6):  # the input body is left as it was
            assert (
                given[k].tobytes() == as_tuple(random_body(np.random.default_rng(seed), genome))[k].tobytes()
            )
    print(genome.masses, genome.max_links, genome.max_degree, seen, "_free_one", len(freed))
    assert all(seen.values()), seen
    assert bool(freed) is frees


def test_repair_keeps_a_valid_body_as_it_is():
    genome = GenomeSection()
    creature = random_creature(np.random.default_rng(3), genome)
    got, ok = repair(parent_body(creature), np.random.default_rng(4), genome_limits(genome))
    assert ok
    assert_same_body(parent_body(creature), got)


def compare_crossovers(genome: GenomeSection, pool: list, seeds: int) -> tuple[int, int, float, float]:
    """Python's and the compiled crossover_bodies of pairs from ``pool``, ``seeds`` seeds for each of
    :data:`RATES`, compared field by field: (cases, cases bailed out, Python s, compiled s)."""
    lim = genome_limits(genome)
    bodies = [parent_body(creature) for creature in pool]
    crossover_bodies(np.random.default_rng(0), bodies[0], bodies[1], lim, 1.0, 1.0)  # compiled or loaded
    cases = bailed = 0
    time_py = time_c = 0.0
    for rate_cut, rate_wave in RATES:
        ga = GASection(rate_cut_crossover=rate_cut, rate_wave_crossover=rate_wave)
        for seed in range(seeds):
            pick = np.random.default_rng([seed, 7])
            i, j = (int(k) for k in pick.integers(0, len(pool), 2))
            rng_py, rng_c = Recording(np.random.default_rng(seed)), np.random.default_rng(seed)
            start = time.perf_counter()
            expected = py_crossover_bodies(pool[i], pool[j], rng_py, genome, ga)
            middle = time.perf_counter()
            body0, body1, ok = crossover_bodies(rng_c, bodies[i], bodies[j], lim, rate_cut, rate_wave)
            time_c += time.perf_counter() - middle
            time_py += middle - start
            cases += 1
            assert ok is not rng_py.chose
            if not ok:
                bailed += 1
                continue
            assert_same_body(as_tuple(expected[0]), body0)
            assert_same_body(as_tuple(expected[1]), body1)
            assert rng_py.random() == rng_c.random()
    for creature, body in zip(pool, bodies, strict=True):  # the parents are left as they were
        assert_same_body(parent_body(creature), body)
    return cases, bailed, time_py, time_c


@pytest.mark.parametrize("name", list(GENOMES))
def test_crossover_bodies_are_the_python_ones_draw_for_draw(name):
    genome = GENOMES[name]
    cases, bailed, time_py, time_c = compare_crossovers(genome, parents(genome), SEEDS_PER_RATE)
    print(
        f"{name}: {cases} cases, {bailed} bailed out (Python drew choice); per call "
        f"Python {1e3 * time_py / cases:.4f} ms, compiled {1e3 * time_c / cases:.4f} ms"
    )
    assert cases == len(RATES) * SEEDS_PER_RATE
    assert bailed == 0  # children of parents within masses[1] never have more masses than that


def test_crossover_bodies_bail_out_exactly_where_python_removes_masses_at_random():
    genome = GenomeSection(masses=(2, 12))
    pool = parents(GenomeSection(masses=(8, 16)))  # parents beyond masses[1]: children too, often
    cases, bailed, _, _ = compare_crossovers(genome, pool, 100)
    print(f"parents of 8..16 masses, limit 12: {cases} cases, {bailed} bailed out (Python drew choice)")
    assert 0 < bailed < cases


def test_crossover_bodies_take_read_only_parents():
    genome = GenomeSection()
    a, b = (random_creature(np.random.default_rng(s), genome) for s in (1, 2))
    frozen = [
        (c.positions, c.link_a, c.link_b, c.rest, c.alpha, c.phi, float(c.omega), float(c.beta), False)
        for c in (a, b)
    ]
    assert not frozen[0][0].flags.writeable
    ga = GASection(rate_cut_crossover=0.5, rate_wave_crossover=0.5)
    for seed in range(20):
        rng_py, rng_c = np.random.default_rng(seed), np.random.default_rng(seed)
        expected = py_crossover_bodies(a, b, rng_py, genome, ga)
        body0, body1, ok = crossover_bodies(rng_c, *frozen, genome_limits(genome), 0.5, 0.5)
        assert ok
        assert_same_body(as_tuple(expected[0]), body0)
        assert_same_body(as_tuple(expected[1]), body1)
        assert body0[0].flags.writeable and body1[1].flags.writeable
        assert rng_py.random() == rng_c.random()
