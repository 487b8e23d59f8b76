"""The seeds fitness plugins get: ``SeedSequence([run_seed, generation, index])``'s first uint64, made
for a whole generation in one compiled call (numpy's SeedSequence hash, word for word); and a
brood's generator, ``default_rng(seed)``'s stream made by a compiled SeedSequence hash."""

from __future__ import annotations

import threading

import numba as nb
import numpy as np

__all__ = ["brood_generator", "plugin_seed", "plugin_seeds"]

_POOL = 4  # numpy's DEFAULT_POOL_SIZE
_INIT_A, _MULT_A = 0x43B0D7E5, 0x931E8875
_INIT_B, _MULT_B = 0x8B51F9DD, 0x58F38DED
_MIX_L, _MIX_R = 0xCA01F9DD, 0x4973F715


def _words(value: int) -> list[int]:
    """An int >= 0 as SeedSequence takes it: 32-bit words, least significant first ([0] for 0)."""
    if value < 0:
        raise ValueError(f"seeds are >= 0, got {value}")
    words = []
    while True:
        words.append(value & 0xFFFFFFFF)
        value >>= 32
        if not value:
            return words


def plugin_seeds(run_seed: int, generation: int, count: int) -> np.ndarray:
    """(count,) uint64: the seed of creatures 0 .. count - 1 of ``generation``, each equal to
    ``SeedSequence([run_seed, generation, index]).generate_state(1, np.uint64)[0]`` (numpy's hash, word for
    word, in one compiled call)."""
    prefix = np.array(_words(run_seed) + _words(generation), dtype=np.int64)
    return _generation_seeds(prefix, int(count))


@nb.njit(cache=True, nogil=True)
def _generation_seeds(prefix: np.ndarray, count: int) -> np.ndarray:  # pragma: no cover
    """:func:`plugin_seeds` of the entropy words ``prefix`` (the run seed's and the generation's), then
    each index as the last word: numpy's ``mix_entropy`` and ``generate_state(1, np.uint64)``, in int64
    arithmetic masked to 32 bits (the low 32 bits of a product or difference do not depend on signs)."""
    mask = 0xFFFFFFFF
    n_entropy = prefix.size + 1
    out = np.empty(count, np.uint64)
    pool = np.zeros(_POOL, np.int64)
    for index in range(count):
        const = _INIT_A
        for i in range(_POOL):
            word = prefix[i] if i < prefix.size else (index if i == prefix.size else 0)
            value = (word ^ const) & mask
            const = (const * _MULT_A) & mask
            value = (value * const) & mask
            pool[i] = value ^ (value >> 16)
        for src in range(_POOL):
            for dst in range(_POOL):
                if src != dst:
                    value = (pool[src] ^ const) & mask
                    const = (const * _MULT_A) & mask
                    value = (value * const) & mask
                    value ^= value >> 16
                    mixed = (_MIX_L * pool[dst] - _MIX_R * value) & mask
                    pool[dst] = mixed ^ (mixed >> 16)
        for src in range(_POOL, n_entropy):
            word = prefix[src] if src < prefix.size else index
            for dst in range(_POOL):
                value = (word ^ const) & mask
                const = (const * _MULT_A) & mask
                value = (value * const) & mask
                value ^= value >> 16
                mixed = (_MIX_L * pool[dst] - _MIX_R * value) & mask
                pool[dst] = mixed ^ (mixed >> 16)
        const = _INIT_B
        words = 0
        for k in range(2):  # two uint32 words make the uint64, least significant first
            value = (pool[k] ^ const) & mask
            const = (const * _MULT_B) & mask
            value = (value * const) & mask
            words |= (value ^ (value >> 16)) << (32 * k)
        out[index] = np.uint64(words)
    return out


def plugin_seed(run_seed: int, generation: int, index: int) -> int:
    """The seed a plugin is called with for creature ``index`` of ``generation``."""
    return int(plugin_seeds(run_seed, generation, index + 1)[index])


@nb.njit(cache=True, nogil=True)
def _state_words(seed: int) -> np.ndarray:  # pragma: no cover
    """``SeedSequence(seed).generate_state(4, np.uint64)`` of 0 <= seed < 2**63 as eight 32-bit words
    (least significant first), in int64 arithmetic masked to 32 bits."""
    mask = 0xFFFFFFFF
    entropy = np.zeros(2, np.int64)
    size = 1 if seed == 0 else 0
    while seed > 0:
        entropy[size] = seed & mask
        size += 1
        seed >>= 32
    pool = np.zeros(_POOL, np.int64)
    const = _INIT_A
    for i in range(_POOL):
        value = ((entropy[i] if i < size else 0) ^ const) & mask
        const = (const * _MULT_A) & mask
        value = (value * const) & mask
        pool[i] = value ^ (value >> 16)
    for src in range(_POOL):
        for dst in range(_POOL):
            if src != dst:
                value = (pool[src] ^ const) & mask
                const = (const * _MULT_A) & mask
                value = (value * const) & mask
                value ^= value >> 16
                mixed = (_MIX_L * pool[dst] - _MIX_R * value) & mask
                pool[dst] = mixed ^ (mixed >> 16)
    out = np.zeros(8, np.int64)
    const = _INIT_B
    for k in range(8):
        value = (pool[k % _POOL] ^ const) & mask
        const = (const * _MULT_B) & mask
        value = (value * const) & mask
        out[k] = value ^ (value >> 16)
    return out


_PCG_MULTIPLIER = 0x2360ED051FC65DA44385DF649FCCF645  # PCG64's 128-bit LCG multiplier
_MASK_128 = (1 << 128) - 1
_THREAD = threading.local()


def brood_generator(seed: int) -> np.random.Generator:
    """A generator giving ``np.random.default_rng(seed)``'s stream, draw for draw, at half its cost.

    For 0 <= seed < 2**63 it is this thread's one PCG64 set to the state ``PCG64(SeedSequence(seed))``
    starts in, so it must not outlive the next call in the thread (its ``seed_seq`` is not ``seed``'s);
    other seeds get ``default_rng(seed)``.

    Args:
        seed: a brood's seed.

    Returns:
        A ``numpy.random.Generator``.
    """
    if not 0 <= seed < 1 << 63:
        return np.random.default_rng(seed)
    w = _state_words(seed).tolist()
    initial = (w[1] << 96) | (w[0] << 64) | (w[3] << 32) | w[2]
    increment = ((((w[5] << 96) | (w[4] << 64) | (w[7] << 32) | w[6]) << 1) | 1) & _MASK_128
    state = ((increment + initial) * _PCG_MULTIPLIER + increment) & _MASK_128  # pcg64_srandom_r
    bit_generator = getattr(_THREAD, "bit_generator", None)
    if bit_generator is None:
        bit_generator = _THREAD.bit_generator = np.random.PCG64(0)
    bit_generator.state = {
        "bit_generator": "PCG64",
        "state": {"state": state, "inc": increment},
        "has_uint32": 0,
        "uinteger": 0,
    }
    return np.random.Generator(bit_generator)
