"""The compiled PCG64 state array draws what numpy's Generator draws from the same seed, call for call,
and ends in the same state; evo.ga.kernels.draws gives the same streams from either kind of generator."""

from __future__ import annotations

import time

import numba as nb
import numpy as np
import pytest

from evo.ga.kernels import draws, pcg

RANDOM, NORMAL, INTEGERS, UNIFORM, PERMUTATION = range(5)
CALLS = 200
EDGE_SEEDS = [0, 1, 2, 3, 2**31, 2**32 - 1, 2**32, 2**32 + 1, 2**53, 2**62, 2**63 - 2, 2**63 - 1]


def program(maker: np.random.Generator, calls: int = CALLS, huge: bool = True) -> tuple[np.ndarray, ...]:
    """A random interleaving of the five draws with random arguments: (ops, int_a, int_b, float_a, float_b).

    integers(int_a, int_b): mostly small ranges (1 .. 20) with low >= 0, then ranges up to 2**40 with
    low > 0, 32-bit edge ranges (where numpy switches from buffered 32-bit to 64-bit draws and Lemire
    rejects often), negative lows and ranges above 2**63 (64-bit rejection). uniform(float_a, float_b)
    includes high == low. permutation(int_a) with 0 <= int_a <= 40. huge=False leaves out the ranges over
    2**63 (numba's own Generator.integers computes high - low in int64 and differs from numpy there)."""
    ops = maker.integers(5, size=calls)
    kind = maker.random(calls)
    small_low = maker.integers(0, 6, size=calls)
    small_width = maker.integers(1, 21, size=calls)
    big_low = maker.integers(1, 1000, size=calls)
    big_width = np.exp2(maker.uniform(0.0, 40.0, size=calls)).astype(np.int64) + 1
    edges = np.array([2**31, 2**31 + 1, 3 * 2**30, 2**32 - 1, 2**32, 2**32 + 1, 2**33 + 5])
    edge_width = edges[maker.integers(edges.size, size=calls)]
    negative_low = -maker.integers(1, 2**40, size=calls)
    low = np.select([kind < 0.6, kind < 0.8, kind < 0.9], [small_low, big_low, 7], negative_low)
    width = np.select([kind < 0.6, kind < 0.8, kind < 0.9], [small_width, big_width, edge_width], 0)
    huge = (kind >= 0.97) & huge  # low in [-2**62, 0), high in (2**62, 2**63 - 1]: ranges over 2**63
    width = np.where((kind >= 0.9) & ~huge, maker.integers(1, 2**35, size=calls), width)
    low = np.where(huge, -maker.integers(1, 2**62, size=calls), low)
    high = np.where(huge, maker.integers(2**62, 2**63 - 1, size=calls) + 1, low + width)
    int_a = np.where(ops == PERMUTATION, maker.integers(0, 41, size=calls), low)
    float_a = maker.normal(0.0, 10.0, size=calls)
    float_b = float_a + np.abs(maker.normal(1.0, 5.0, size=calls)) * (maker.random(calls) < 0.95)
    return ops, int_a, high, float_a, float_b


def calls_of(ops, int_a, int_b, float_a, float_b) -> zip:
    return zip(ops.tolist(), int_a.tolist(), int_b.tolist(), float_a.tolist(), float_b.tolist(), strict=True)


def numpy_draws(generator: np.random.Generator, *prog: np.ndarray) -> tuple[list, list, list]:
    """What the Generator's own methods give for a program: (floats, ints, permutations concatenated)."""
    floats, ints, perms = [], [], []
    for op, a, b, fa, fb in calls_of(*prog):
        if op == RANDOM:
            floats.append(generator.random())
        elif op == NORMAL:
            floats.append(generator.standard_normal())
        elif op == INTEGERS:
            ints.append(int(generator.integers(a, b)))
        elif op == UNIFORM:
            floats.append(generator.uniform(fa, fb))
        else:
            perms.extend(generator.permutation(a).tolist())
    return floats, ints, perms


@nb.njit
def compiled_draws(rng, ops, int_a, int_b, float_a, float_b, perm_total):
    """The same program through evo.ga.kernels.draws in compiled code (rng: a state array or a Generator)."""
    floats = np.empty(ops.size)
    ints = np.empty(ops.size, np.int64)
    perms = np.empty(perm_total, np.int64)
    nf = ni = npm = 0
    for k in range(ops.size):
        op = ops[k]
        if op == 0:
            floats[nf] = draws.random(rng)
            nf += 1
        elif op == 1:
            floats[nf] = draws.normal(rng)
            nf += 1
        elif op == 2:
            ints[ni] = draws.integers(rng, int_a[k], int_b[k])
            ni += 1
        elif op == 3:
            floats[nf] = draws.uniform(rng, float_a[k], float_b[k])
            nf += 1
        else:
            p = draws.permutation(rng, int_a[k])
            perms[npm : npm + p.size] = p
            npm += p.size
    return floats[:nf], ints[:ni], perms


def python_pcg_draws(state: np.ndarray, *prog: np.ndarray) -> tuple[list, list, list]:
    """The same program, calling pcg's functions from Python."""
    floats, ints, perms = [], [], []
    for op, a, b, fa, fb in calls_of(*prog):
        if op == RANDOM:
            floats.append(pcg.random(state))
        elif op == NORMAL:
            floats.append(pcg.normal(state))
        elif op == INTEGERS:
            ints.append(pcg.integers(state, a, b))
        elif op == UNIFORM:
            floats.append(pcg.uniform(state, fa, fb))
        else:
            perms.extend(pcg.permutation(state, a).tolist())
    return floats, ints, perms


def test_a_seeded_state_is_the_state_default_rng_starts_in_for_thousands_of_seeds():
    seeds = EDGE_SEEDS + np.random.default_rng(21).integers(2**63, size=3000).tolist()
    seeds += np.random.default_rng(22).integers(2**33, size=1000).tolist()
    for seed in seeds:
        state = pcg.seeded(seed)
        assert state.dtype == np.uint64 and state.shape == (6,)
        assert pcg.state_dict(state) == np.random.default_rng(seed).bit_generator.state, seed


def test_a_seeded_state_made_in_compiled_code_is_the_one_made_from_python():
    @nb.njit
    def first_draws(seed):
        state = pcg.seeded(seed)
        return state, draws.random(state), draws.integers(state, 0, 10)

    for seed in EDGE_SEEDS:
        state, u, i = first_draws(seed)
        numpys = np.random.default_rng(seed)
        assert (u, i) == (numpys.random(), numpys.integers(0, 10))
        assert pcg.state_dict(state) == numpys.bit_generator.state


def test_random_interleavings_of_the_five_draws_equal_the_generators_call_for_call_for_2000_seeds():
    maker = np.random.default_rng(2024)
    seeds = EDGE_SEEDS + maker.integers(2**63, size=2000 - len(EDGE_SEEDS)).tolist()
    compared = 0
    for seed in seeds:
        prog = program(maker)
        numpys = np.random.default_rng(seed)
        expected = numpy_draws(numpys, *prog)
        perm_total = len(expected[2])
        state = draws.generator(seed)
        got = compiled_draws(state, *prog, perm_total)
        assert [g.tolist() for g in got] == list(expected), seed
        assert pcg.state_dict(state) == numpys.bit_generator.state, seed
        compared += CALLS
    assert compared >= 400_000


def test_the_draws_called_with_a_generator_in_compiled_code_give_the_same_streams():
    maker = np.random.default_rng(7)
    for seed in maker.integers(2**63, size=200).tolist():
        prog = program(maker, huge=False)
        expected = numpy_draws(np.random.default_rng(seed), *prog)
        generator = np.random.default_rng(seed)
        got = compiled_draws(generator, *prog, len(expected[2]))
        assert [g.tolist() for g in got] == list(expected)
        state = draws.generator(seed)
        compiled_draws(state, *prog, len(expected[2]))
        assert pcg.state_dict(state) == generator.bit_generator.state


def test_pcg_draws_called_from_python_are_the_generators():
    maker = np.random.default_rng(8)
    for seed in maker.integers(2**63, size=100).tolist():
        prog = program(maker)
        numpys = np.random.default_rng(seed)
        expected = numpy_draws(numpys, *prog)
        state = pcg.seeded(seed)
        assert python_pcg_draws(state, *prog) == expected
        assert pcg.state_dict(state) == numpys.bit_generator.state


@nb.njit
def many(state, count, kind):
    out = np.empty(count)
    for k in range(count):
        out[k] = pcg.random(state) if kind == 0 else pcg.normal(state)
    return out


@nb.njit
def many_from_generator(generator, count, kind):
    out = np.empty(count)
    for k in range(count):
        out[k] = generator.random() if kind == 0 else generator.standard_normal()
    return out


@pytest.mark.parametrize("kind", ["random", "normal"])
def test_a_million_draws_equal_numpys_and_their_time_is_printed(kind):
    code = 0 if kind == "random" else 1
    count = 10**6
    state, numpys = pcg.seeded(99), np.random.default_rng(99)
    many(pcg.seeded(1), 10, code), many_from_generator(np.random.default_rng(1), 10, code)  # compile
    start = time.perf_counter()
    ours = many(state, count, code)
    ours_s = time.perf_counter() - start
    start = time.perf_counter()
    theirs = numpys.random(count) if kind == "random" else numpys.standard_normal(count)
    numpy_s = time.perf_counter() - start
    start = time.perf_counter()
    many_from_generator(np.random.default_rng(99), count, code)
    numba_generator_s = time.perf_counter() - start
    assert np.array_equal(ours, theirs)
    assert pcg.state_dict(state) == numpys.bit_generator.state
    print(
        f"\n1e6 {kind}(): pcg in numba {ours_s * 1e3:.1f} ms, numpy vectorised {numpy_s * 1e3:.1f} ms, "
        f"numba's Generator {numba_generator_s * 1e3:.1f} ms"
    )


def test_integers_keep_numpys_buffered_32_bit_half_between_calls():
    state, numpys = pcg.seeded(5), np.random.default_rng(5)
    got = [pcg.integers(state, 0, 3), pcg.random(state), pcg.integers(state, 0, 3), pcg.integers(state, 0, 3)]
    assert got == [numpys.integers(0, 3), numpys.random(), numpys.integers(0, 3), numpys.integers(0, 3)]
    assert pcg.state_dict(state) == numpys.bit_generator.state
    assert state[4] == 1  # one 32-bit half buffered, as in numpy's state


def test_empty_ranges_and_seeds_out_of_range_are_refused_as_numpy_refuses_them():
    with pytest.raises(ValueError):
        pcg.integers(pcg.seeded(0), 3, 3)
    with pytest.raises(ValueError):
        pcg.uniform(pcg.seeded(0), 1.0, 0.5)
    with pytest.raises(OverflowError):
        pcg.uniform(pcg.seeded(0), -1e308, 1e308)
    for seed in (-1, 2**63, 2**64):
        with pytest.raises(ValueError):
            draws.generator(seed)


def test_a_range_of_one_integer_draws_nothing():
    state = pcg.seeded(3)
    before = state.copy()
    assert pcg.integers(state, 41, 42) == 41
    assert np.array_equal(state, before)


def test_the_draws_called_from_python_with_a_state_array_are_the_generators():
    state, numpys = draws.generator(17), np.random.default_rng(17)
    got = [
        draws.random(state),
        draws.normal(state),
        draws.integers(state, 2, 9),
        draws.uniform(state, 1.0, 4.0),
    ]
    assert got == [numpys.random(), numpys.standard_normal(), numpys.integers(2, 9), numpys.uniform(1.0, 4.0)]
    assert draws.permutation(state, 12).tolist() == numpys.permutation(12).tolist()
    assert pcg.state_dict(state) == numpys.bit_generator.state


@pytest.mark.parametrize("seed", [0, 1, 2**32 - 1, 2**32, 2**63 - 1, 12345678901234567, 2**63, 2**70])
def test_a_brood_generator_draws_what_default_rng_of_its_seed_draws(seed):
    ours, numpys = pcg.brood_generator(seed), np.random.default_rng(seed)
    assert ours.bit_generator.state == numpys.bit_generator.state
    assert ours.random(5).tolist() == numpys.random(5).tolist()
    assert ours.integers(1000, size=9).tolist() == numpys.integers(1000, size=9).tolist()
    assert ours.standard_normal(4).tolist() == numpys.standard_normal(4).tolist()
    assert ours.bit_generator.state == numpys.bit_generator.state


def test_brood_generators_of_many_seeds_start_where_default_rng_starts():
    for seed in np.random.default_rng(5).integers(2**63, size=3000).tolist():
        expected = np.random.default_rng(seed).bit_generator.state
        assert pcg.brood_generator(seed).bit_generator.state == expected
