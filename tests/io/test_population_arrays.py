"""evo.io.checkpoint.arrays: pack_individuals gives, array for array, what its first (plainer) form gave."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from evo.ga.individual import Individual
from evo.io.checkpoint.arrays import _LINK_FIELDS, _MASS_FIELDS, _WAVE_FIELDS, pack_individuals
from evo.io.models import creature_to_dict
from evo.model import Creature, Polygon


# -- the reference: pack_individuals as it was written first ------------------------------------------
def _padded(rows, counts, dtype, tail):
    width = int(counts.max(initial=0))
    out = np.zeros((len(rows), width, *tail), dtype=dtype)
    if rows and width:
        out[np.arange(width) < counts[:, None]] = np.concatenate(rows).reshape(-1, *tail)
    return out


def _extras(ind):
    creature = ind.creature
    if not (creature.world or creature.meta or creature.polys):
        return ""
    extras = {"world": dict(creature.world), "meta": dict(creature.meta)}
    if creature.polys:
        extras["polys"] = creature_to_dict(creature)["polys"]
    return json.dumps(extras, separators=(",", ":"), allow_nan=False)


def reference_pack(prefix, individuals, objectives):
    creatures = [ind.creature for ind in individuals]
    n_masses = np.array([c.positions.shape[0] for c in creatures], dtype=np.int64)
    n_links = np.array([c.link_a.shape[0] for c in creatures], dtype=np.int64)
    out = {"n_masses": n_masses, "n_links": n_links}
    for name, (dtype, tail) in _MASS_FIELDS.items():
        out[name] = _padded([getattr(c, name) for c in creatures], n_masses, dtype, tail)
    for name, dtype in _LINK_FIELDS.items():
        out[name] = _padded([getattr(c, name) for c in creatures], n_links, dtype, ())
    for name, dtype in _WAVE_FIELDS.items():
        out[name] = np.array([getattr(c, name) for c in creatures], dtype=dtype)
    fitness = np.full((len(individuals), objectives), np.nan)
    for row, ind in enumerate(individuals):
        if ind.values is not None:
            fitness[row] = ind.values
    out.update(
        name=np.array([json.dumps(c.name) for c in creatures], dtype=str),
        extras=np.array([_extras(ind) for ind in individuals], dtype=str),
        id=np.array([ind.id for ind in individuals], dtype=str),
        parents=np.array([json.dumps(list(ind.parents)) for ind in individuals], dtype=str),
        born=np.array([ind.born for ind in individuals], dtype=np.int64),
        seed=np.array([ind.seed or 0 for ind in individuals], dtype=np.uint64),
        has_seed=np.array([ind.seed is not None for ind in individuals], dtype=np.bool_),
        exploded=np.array([ind.exploded for ind in individuals], dtype=np.bool_),
        evaluated=np.array([ind.values is not None for ind in individuals], dtype=np.bool_),
        fitness=fitness,
    )
    for key in ("name", "extras", "id", "parents"):
        out[key] = out[key].astype(np.str_) if out[key].size else np.zeros(0, dtype="<U1")
    return {f"{prefix}.{key}": value for key, value in out.items()}


# -- individuals of every kind --------------------------------------------------------------------------
def _creature(rng, k, **extra):
    n = int(rng.integers(2, 9))
    links = int(rng.integers(0, 12))
    return Creature(
        positions=rng.normal(size=(n, 2)) * 50,
        velocities=rng.normal(size=(n, 2)) * (k % 2),
        fixed=rng.random(n) < 0.2,
        link_a=rng.integers(0, n, size=links),
        link_b=rng.integers(0, n, size=links),
        rest=rng.random(links) * 40,
        alpha=rng.random(links),
        phi=rng.normal(size=links),
        omega=float(rng.normal()),
        beta=float(rng.random()),
        wave_phase=float(rng.normal()) * (k % 3 == 0),
        wave_reverse=bool(k % 4 == 1),
        autoreverse=bool(k % 5 == 2),
        stiffness=1 + rng.random(links),
        dashpot=rng.random(links) * (k % 2),
        mass=1 + rng.random(n) * (k % 3),
        **extra,
    )


NAMES = ["creature", 'a "quoted" \\ name', "c\x00", "é\U0001f600 tab\t", ""]
PARENTS = [(), ("g0-1",), ("g3-5", "g3-9"), ('q"uote', "\u00e9\U0001f600", "\\"), ("",)]


def _individuals(seed, n, objectives):
    rng = np.random.default_rng(seed)
    weights = (1.0, -1.0, 1.0)[:objectives]
    out = []
    for k in range(n):
        extra = {"name": NAMES[k % len(NAMES)]}
        if k % 7 == 3:
            extra.update(world={"gravity": 0.3}, meta={"note": "x", "nested": {"a": [1, 2]}})
        if k % 11 == 5:
            extra["polys"] = (Polygon((0, 1), color="#abc", curvy=True), Polygon((1, 0)))
        ind = Individual(_creature(rng, k, **extra), weights, id=f"g{k // 10}-{k}", born=k // 10)
        ind.parents = PARENTS[k % len(PARENTS)]
        if k % 6 != 4:  # some are never evaluated
            values = tuple(float(v) for v in rng.normal(size=objectives) * 100)
            if k % 9 == 2:
                values = (-math.inf, *values[1:])
            seed_value = None if k % 8 == 1 else int(rng.integers(0, 2**63)) * 2 + 1
            ind.set_fitness(values, exploded=k % 9 == 2, seed=seed_value)
        out.append(ind)
    return out


def assert_same_arrays(got, want):
    assert list(got) == list(want)
    for key in want:
        assert got[key].dtype == want[key].dtype, key
        assert got[key].shape == want[key].shape, key
        assert got[key].tobytes() == want[key].tobytes(), key


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("objectives", [1, 2])
def test_pack_individuals_gives_the_reference_arrays_byte_for_byte(seed, objectives):
    individuals = _individuals(seed, 30 + 7 * seed, objectives)
    assert_same_arrays(
        pack_individuals("population", individuals, objectives),
        reference_pack("population", individuals, objectives),
    )
    evaluated = [ind for ind in individuals if ind.values is not None]  # the all-evaluated fast path
    assert_same_arrays(
        pack_individuals("hall_of_fame", tuple(evaluated), objectives),
        reference_pack("hall_of_fame", tuple(evaluated), objectives),
    )


def test_pack_individuals_of_empty_and_single_groups():
    assert_same_arrays(pack_individuals("elites", [], 2), reference_pack("elites", [], 2))
    one = _individuals(1, 1, 1)
    assert_same_arrays(pack_individuals("elites", one, 1), reference_pack("elites", one, 1))


def test_values_of_another_length_are_stored_as_before():
    individuals = _individuals(2, 5, 1)
    individuals[0].values = (1.5,)  # broadcast over two objectives, as numpy did
    assert_same_arrays(
        pack_individuals("population", individuals, 2), reference_pack("population", individuals, 2)
    )


def test_parents_and_names_that_are_not_strings_are_written_as_json_dumps_wrote_them():
    individuals = _individuals(3, 4, 1)
    individuals[1].parents = (3, None)
    assert_same_arrays(
        pack_individuals("population", individuals, 1), reference_pack("population", individuals, 1)
    )
