"""The seeds fitness plugins get: ``SeedSequence([run_seed, generation, index])``'s first uint64, made
for a whole generation at once (numpy's SeedSequence hash, the same words, in vectorised form)."""

from __future__ import annotations

import numpy as np

__all__ = ["plugin_seed", "plugin_seeds"]

_MASK = np.uint64(0xFFFFFFFF)
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


class _Hash:
    """numpy's ``hashmix`` with its running multiplier (all values are 32-bit words in uint64 arrays)."""

    def __init__(self) -> None:
        self.const = _INIT_A

    def __call__(self, value: np.ndarray) -> np.ndarray:
        value = value ^ np.uint64(self.const)
        self.const = (self.const * _MULT_A) & 0xFFFFFFFF
        value = (value * np.uint64(self.const)) & _MASK
        return value ^ (value >> np.uint64(16))


def _mix(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    result = (np.uint64(_MIX_L) * x - np.uint64(_MIX_R) * y) & _MASK
    return result ^ (result >> np.uint64(16))


def plugin_seeds(run_seed: int, generation: int, count: int) -> np.ndarray:
    """(count,) uint64: the seed of creatures 0 .. count - 1 of ``generation``, each equal to
    ``SeedSequence([run_seed, generation, index]).generate_state(1, np.uint64)[0]``."""
    index = np.arange(count, dtype=np.uint64)
    entropy = [np.full(count, w, dtype=np.uint64) for w in _words(run_seed) + _words(generation)] + [index]
    hashmix = _Hash()
    pool = [hashmix(entropy[i] if i < len(entropy) else np.zeros(count, np.uint64)) for i in range(_POOL)]
    for src in range(_POOL):
        for dst in range(_POOL):
            if src != dst:
                pool[dst] = _mix(pool[dst], hashmix(pool[src]))
    for src in range(_POOL, len(entropy)):
        for dst in range(_POOL):
            pool[dst] = _mix(pool[dst], hashmix(entropy[src]))
    const = _INIT_B
    words = []
    for dst in range(2):  # two uint32 words make the uint64
        value = pool[dst % _POOL] ^ np.uint64(const)
        const = (const * _MULT_B) & 0xFFFFFFFF
        value = (value * np.uint64(const)) & _MASK
        words.append(value ^ (value >> np.uint64(16)))
    return words[0] | (words[1] << np.uint64(32))


def plugin_seed(run_seed: int, generation: int, index: int) -> int:
    """The seed a plugin is called with for creature ``index`` of ``generation``."""
    return int(plugin_seeds(run_seed, generation, index + 1)[index])
