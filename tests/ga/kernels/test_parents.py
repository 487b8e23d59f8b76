"""The parents' arrays a compiled breeding call reads (evo.ga.kernels.parents): a generation's parents
that the call before on the thread made are read from the arrays it left them in, the others gathered,
and the children bred are byte for byte those bred from every parent gathered."""

import threading

import numba as nb
import numpy as np
from test_brood_kernels import assert_same_creature

from evo.ga.brood import PAIR, BreedSettings, Brood, breed_many
from evo.ga.creatures import random_creature
from evo.ga.kernels import parents as parents_module
from evo.ga.kernels.brood import compiled_children
from evo.ga.kernels.parents import forget_children, gathered, parents_arrays
from evo.ga.settings import GASection, GenomeSection


def broods_of(pool: list, rng: np.random.Generator, count: int) -> list[Brood]:
    """Pair broods of parents drawn from ``pool``, mated or not, mutated or not, seeded by ``rng``."""
    out = []
    for _ in range(count):
        a, b = (pool[int(k)] for k in rng.integers(len(pool), size=2))
        mate, mutate = bool(rng.random() < 0.5), (bool(rng.random() < 0.9), bool(rng.random() < 0.9))
        out.append(Brood(PAIR, int(rng.integers(2**63)), (a, b), mate, mutate, (1, 2)))
    return out


def generations(remembered: bool, rounds: int = 4) -> list[list]:
    """``rounds`` generations bred in turn, each from the children of the one before and a few creatures
    of generation 0 (elites), every parent gathered unless ``remembered``."""
    genome, ga = GenomeSection(), GASection()
    rng = np.random.default_rng(7)
    first = [random_creature(rng, genome) for _ in range(12)]
    forget_children()
    pool, bred = first, []
    for _ in range(rounds):
        if not remembered:
            forget_children()
        made = breed_many(broods_of(pool, rng, 20), genome, ga)
        children = [child for kids in made for child in kids if child is not None]
        bred.append(children)
        pool = children + first[:2]
    forget_children()
    return bred


def test_children_bred_from_the_arrays_the_call_before_left_are_those_bred_from_gathered_arrays():
    remembered, gathered_each_time = generations(True), generations(False)
    assert [len(g) for g in remembered] == [len(g) for g in gathered_each_time]
    assert all(len(g) > 30 for g in remembered)
    for ours, theirs in zip(remembered, gathered_each_time, strict=True):
        for x, y in zip(ours, theirs, strict=True):
            assert_same_creature(x, y)


def test_the_call_before_s_children_are_read_where_it_left_them_in_the_arrays_it_compiled_for():
    genome, ga = GenomeSection(), GASection()
    rng = np.random.default_rng(3)
    first = [random_creature(rng, genome) for _ in range(8)]
    forget_children()
    made = breed_many(broods_of(first, rng, 10), genome, ga)
    children = [child for kids in made for child in kids if child is not None]
    wanted = [children[5], first[0], children[2], children[5], first[3]]
    arrays, rows = parents_arrays(list(dict.fromkeys(wanted)))
    known = len(parents_module._MADE.record[1][-2]) - 1
    assert known == len(children) and rows.tolist() == [5, known, 2, known + 1]
    plain = gathered(list(dict.fromkeys(wanted)))
    for got, want in zip(arrays, plain, strict=True):  # the same numba types: nothing compiled again
        assert nb.typeof(got) == nb.typeof(want)
    mass_at, link_at = arrays[-2], arrays[-1]
    for creature, row in zip(dict.fromkeys(wanted), rows.tolist(), strict=True):
        i, j, u, v = mass_at[row], mass_at[row + 1], link_at[row], link_at[row + 1]
        assert arrays[0][i:j].tobytes() == creature.positions.tobytes()
        for array, name in zip(arrays[1:6], ("link_a", "link_b", "rest", "alpha", "phi"), strict=True):
            assert array[u:v].tobytes() == getattr(creature, name).tobytes(), name
        assert arrays[6][row].tolist() == [creature.omega, creature.beta]
    only_first = parents_arrays(first[:3])  # none of the call before's: gathered alone
    assert only_first[1].tolist() == [0, 1, 2] and len(only_first[0][0]) == sum(c.n_masses for c in first[:3])
    record = parents_module._MADE.record  # a brood bred alone leaves what the chunk's call kept
    brood = broods_of(first, rng, 1)[0]
    ops = BreedSettings.of(genome, ga).compiled
    assert compiled_children(brood.seed, brood.parents, brood.mate, brood.mutate, ops) is not None
    assert parents_module._MADE.record is record
    seen: list = []  # each thread keeps its own call's children
    worker = threading.Thread(target=lambda: seen.append(getattr(parents_module._MADE, "record", None)))
    worker.start()
    worker.join()
    assert seen == [None]
    forget_children()
