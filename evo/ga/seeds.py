"""The seeds fitness plugins get: ``SeedSequence([run_seed, generation, index])``'s first uint64, made
for a whole generation in one compiled call (numpy's SeedSequence hash, word for word); and the hash's
words for a brood's seed, from which :mod:`evo.ga.kernels.pcg` makes the state ``default_rng(seed)``
starts in."""

from __future__ import annotations

import numba as nb
import numpy as np

__all__ = ["plugin_seed", "plugin_seeds"]

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
    each index as the last word: :func:`_mixed_pool` and ``generate_state(1, np.uint64)``."""
    entropy = np.empty(prefix.size + 1, np.int64)
    entropy[: prefix.size] = prefix
    pool = np.zeros(_POOL, np.int64)
    words = np.zeros(2, np.int64)  # two uint32 words make the uint64, least significant first
    out = np.empty(count, np.uint64)
    for index in range(count):
        entropy[prefix.size] = index
        _mixed_pool(entropy, entropy.size, pool)
        _generated_words(pool, words)
        out[index] = np.uint64(words[0] | (words[1] << 32))
    return out


@nb.njit(cache=True, nogil=True)
def _mixed_pool(entropy: np.ndarray, size: int, pool: np.ndarray) -> None:  # pragma: no cover
    """numpy's ``SeedSequence.mix_entropy`` of the 32-bit words ``entropy[:size]`` into ``pool`` (its
    :data:`_POOL` words), step for step."""
    const = _INIT_A
    for i in range(_POOL):
        pool[i], const = _hashmix(entropy[i] if i < size else 0, const)
    for src in range(_POOL):  # every pool word into every other
        for dst in range(_POOL):
            if src != dst:
                hashed, const = _hashmix(pool[src], const)
                pool[dst] = _mix(pool[dst], hashed)
    for src in range(_POOL, size):  # the entropy past the pool into every pool word
        for dst in range(_POOL):
            hashed, const = _hashmix(entropy[src], const)
            pool[dst] = _mix(pool[dst], hashed)


@nb.njit(cache=True, nogil=True)
def _hashmix(value: int, const: int) -> tuple[int, int]:  # pragma: no cover
    """numpy's ``hashmix`` of a 32-bit word, and its running multiplier moved on, in int64 arithmetic
    masked to 32 bits (the low 32 bits of a product or a difference do not depend on signs)."""
    value = (value ^ const) & 0xFFFFFFFF
    const = (const * _MULT_A) & 0xFFFFFFFF
    value = (value * const) & 0xFFFFFFFF
    return value ^ (value >> 16), const


@nb.njit(cache=True, nogil=True)
def _mix(x: int, y: int) -> int:  # pragma: no cover
    """numpy's ``mix`` of two 32-bit words."""
    result = (_MIX_L * x - _MIX_R * y) & 0xFFFFFFFF
    return result ^ (result >> 16)


@nb.njit(cache=True, nogil=True)
def _generated_words(pool: np.ndarray, out: np.ndarray) -> None:  # pragma: no cover
    """numpy's ``SeedSequence.generate_state`` of ``out.size`` 32-bit words from the mixed ``pool``."""
    mask = 0xFFFFFFFF
    const = _INIT_B
    for k in range(out.size):
        value = (pool[k % _POOL] ^ const) & mask
        const = (const * _MULT_B) & mask
        value = (value * const) & mask
        out[k] = value ^ (value >> 16)


def plugin_seed(run_seed: int, generation: int, index: int) -> int:
    """The seed a plugin is called with for creature ``index`` of ``generation``."""
    return int(plugin_seeds(run_seed, generation, index + 1)[index])


@nb.njit(cache=True, nogil=True)
def _state_words(seed: int) -> np.ndarray:  # pragma: no cover
    """``SeedSequence(seed).generate_state(4, np.uint64)`` of 0 <= seed < 2**63 as eight 32-bit words
    (least significant first)."""
    entropy = np.zeros(2, np.int64)
    size = 1 if seed == 0 else 0
    while seed > 0:
        entropy[size] = seed & 0xFFFFFFFF
        size += 1
        seed >>= 32
    pool = np.zeros(_POOL, np.int64)
    _mixed_pool(entropy, size, pool)
    out = np.zeros(8, np.int64)
    _generated_words(pool, out)
    return out
