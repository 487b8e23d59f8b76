"""numpy's PCG64 (XSL-RR, not DXSM) in numba on a (6,) uint64 state array ``[state_hi, state_lo, inc_hi,
inc_lo, has_uint32, uinteger]`` (numpy's ``pcg64_state``), with the draws :mod:`evo.ga.kernels.draws` makes,
each exactly the ``numpy.random.Generator`` method of the same name; the algorithms are numpy's as numba's own
``Generator`` support translates them, the ziggurat tables numba's copy of numpy's; and
:func:`brood_generator`, a numpy ``Generator`` set to the state ``default_rng(seed)`` starts in.
"""

from __future__ import annotations

import threading

import numba as nb
import numpy as np
from numba.np.random._constants import fi_double, ki_double, wi_double, ziggurat_nor_inv_r, ziggurat_nor_r

from evo.ga.seeds import _state_words

__all__ = [
    "brood_generator",
    "integers",
    "normal",
    "permutation",
    "random",
    "seeded",
    "state_dict",
    "uniform",
]

_JIT = dict(cache=True, nogil=True)

_MULT_HI = np.uint64(0x2360ED051FC65DA4)  # PCG64's 128-bit LCG multiplier, upper and lower words
_MULT_LO = np.uint64(0x4385DF649FCCF645)
_U32 = np.uint64(0xFFFFFFFF)
_U64 = np.uint64(0xFFFFFFFFFFFFFFFF)
_ZERO, _ONE = np.uint64(0), np.uint64(1)
_S8, _S11, _S32, _S58, _S63 = np.uint64(8), np.uint64(11), np.uint64(32), np.uint64(58), np.uint64(63)
_MANTISSA = np.uint64(0x000FFFFFFFFFFFFF)
_BYTE = np.uint64(0xFF)
_TWO_TO_MINUS_53 = 1.0 / 9007199254740992.0


@nb.njit(**_JIT)
def _mulhi(a: np.uint64, b: np.uint64) -> np.uint64:  # pragma: no cover
    """The upper 64 bits of the 128-bit product of two uint64 (32-bit limbs)."""
    a0, a1 = a & _U32, a >> _S32
    b0, b1 = b & _U32, b >> _S32
    w0 = a0 * b0
    t = a1 * b0 + (w0 >> _S32)
    w1 = (t & _U32) + a0 * b1
    return a1 * b1 + (t >> _S32) + (w1 >> _S32)


@nb.njit(**_JIT)
def _step(hi: np.uint64, lo: np.uint64, inc_hi: np.uint64, inc_lo: np.uint64) -> tuple:  # pragma: no cover
    """``(hi, lo) * multiplier + (inc_hi, inc_lo)`` mod 2**128, as (hi, lo)."""
    new_hi = _mulhi(lo, _MULT_LO) + hi * _MULT_LO + lo * _MULT_HI
    new_lo = lo * _MULT_LO
    out_lo = new_lo + inc_lo
    carry = _ONE if out_lo < new_lo else _ZERO
    return new_hi + inc_hi + carry, out_lo


@nb.njit(**_JIT)
def seeded(seed: int) -> np.ndarray:  # pragma: no cover
    """The state ``np.random.default_rng(seed)`` starts in, for 0 <= seed < 2**63: numpy's
    ``pcg64_srandom_r`` of ``SeedSequence(seed).generate_state(4, np.uint64)``.

    Returns:
        (6,) uint64 state (nothing buffered).
    """
    if seed < 0:
        raise ValueError("pcg.seeded takes 0 <= seed < 2**63")
    w = _state_words(seed).astype(np.uint64)
    init_hi, init_lo = (w[1] << _S32) | w[0], (w[3] << _S32) | w[2]
    raw_hi, raw_lo = (w[5] << _S32) | w[4], (w[7] << _S32) | w[6]
    inc_hi, inc_lo = (raw_hi << _ONE) | (raw_lo >> _S63), (raw_lo << _ONE) | _ONE
    lo = inc_lo + init_lo  # state = step(0) + initial = inc + initial; then one step
    hi = inc_hi + init_hi + (_ONE if lo < inc_lo else _ZERO)
    hi, lo = _step(hi, lo, inc_hi, inc_lo)
    state = np.zeros(6, np.uint64)
    state[0], state[1], state[2], state[3] = hi, lo, inc_hi, inc_lo
    return state


def state_dict(state: np.ndarray) -> dict:
    """A state array as ``PCG64().state`` writes it (for comparisons and for handing it to numpy)."""
    words = [int(w) for w in state]
    return {
        "bit_generator": "PCG64",
        "state": {"state": (words[0] << 64) | words[1], "inc": (words[2] << 64) | words[3]},
        "has_uint32": words[4],
        "uinteger": words[5],
    }


@nb.njit(**_JIT)
def _next_uint64(state: np.ndarray) -> np.uint64:  # pragma: no cover
    """One step, then the XSL-RR output of the new state."""
    hi, lo = _step(state[0], state[1], state[2], state[3])
    state[0], state[1] = hi, lo
    rot = hi >> _S58
    value = hi ^ lo
    return (value >> rot) | (value << ((_ZERO - rot) & _S63))


@nb.njit(**_JIT)
def _next_uint32(state: np.ndarray) -> np.uint64:  # pragma: no cover
    """numpy's ``pcg64_next32``: the buffered upper half of the last 64-bit draw, else a new draw's lower
    half (as a uint64 below 2**32)."""
    if state[4] != _ZERO:
        state[4] = _ZERO
        return state[5]
    value = _next_uint64(state)
    state[4], state[5] = _ONE, value >> _S32
    return value & _U32


@nb.njit(**_JIT)
def random(state: np.ndarray) -> float:  # pragma: no cover
    """``Generator.random()``: uniform in [0, 1)."""
    return float(_next_uint64(state) >> _S11) * _TWO_TO_MINUS_53


@nb.njit(**_JIT)
def normal(state: np.ndarray) -> float:  # pragma: no cover
    """``Generator.standard_normal()``: numpy's 256-layer ziggurat."""
    while True:
        r = _next_uint64(state)
        idx = np.int64(r & _BYTE)
        r >>= _S8
        rabs = (r >> _ONE) & _MANTISSA
        x = float(rabs) * wi_double[idx]
        if r & _ONE:
            x = -x
        if rabs < ki_double[idx]:
            return x
        if idx == 0:
            while True:
                xx = -ziggurat_nor_inv_r * np.log1p(-random(state))
                yy = -np.log1p(-random(state))
                if yy + yy > xx * xx:
                    return -(ziggurat_nor_r + xx) if (rabs >> _S8) & _ONE else ziggurat_nor_r + xx
        elif (fi_double[idx - 1] - fi_double[idx]) * random(state) + fi_double[idx] < np.exp(-0.5 * x * x):
            return x


@nb.njit(**_JIT)
def _lemire32(state: np.ndarray, rng: np.uint64) -> np.uint64:  # pragma: no cover
    """numpy's ``buffered_bounded_lemire_uint32``: uniform in [0, rng] for rng < 2**32 - 1."""
    rng_excl = rng + _ONE
    m = _next_uint32(state) * rng_excl
    leftover = m & _U32
    if leftover < rng_excl:
        threshold = (_U32 - rng) % rng_excl
        while leftover < threshold:
            m = _next_uint32(state) * rng_excl
            leftover = m & _U32
    return m >> _S32


@nb.njit(**_JIT)
def _lemire64(state: np.ndarray, rng: np.uint64) -> np.uint64:  # pragma: no cover
    """numpy's ``bounded_lemire_uint64``: uniform in [0, rng] for rng < 2**64 - 1."""
    rng_excl = rng + _ONE
    x = _next_uint64(state)
    leftover = x * rng_excl
    if leftover < rng_excl:
        threshold = (_U64 - rng) % rng_excl
        while leftover < threshold:
            x = _next_uint64(state)
            leftover = x * rng_excl
    return _mulhi(x, rng_excl)


@nb.njit(**_JIT)
def integers(state: np.ndarray, low: int, high: int) -> int:  # pragma: no cover
    """``Generator.integers(low, high)``: an int64 in [low, high) (numpy's ``random_bounded_uint64_fill``
    of one value: ranges below 2**32 draw buffered 32-bit halves)."""
    if low >= high:
        raise ValueError("low >= high")
    rng = np.uint64(high) - np.uint64(low) - _ONE
    if rng == _ZERO:
        value = _ZERO
    elif rng < _U32:
        value = _lemire32(state, rng)
    elif rng == _U32:
        value = _next_uint32(state)
    else:  # int64 bounds keep rng below 2**64 - 1, where numpy would take a plain 64-bit draw
        value = _lemire64(state, rng)
    return np.int64(np.uint64(low) + value)


@nb.njit(**_JIT)
def uniform(state: np.ndarray, low: float, high: float) -> float:  # pragma: no cover
    """``Generator.uniform(low, high)``: ``low + (high - low) * random()``; like numpy it refuses
    high < low (ValueError) and a range that is not finite (OverflowError)."""
    width = high - low
    if not np.isfinite(width):
        raise OverflowError("Range exceeds valid bounds")
    if width < 0.0:
        raise ValueError("high - low < 0")
    return low + width * random(state)


@nb.njit(**_JIT)
def _interval(state: np.ndarray, max_value: np.uint64) -> np.uint64:  # pragma: no cover
    """numpy's ``random_interval``: uniform in [0, max_value] by masked rejection."""
    if max_value == _ZERO:
        return _ZERO
    mask = max_value
    for shift in (1, 2, 4, 8, 16, 32):
        mask |= mask >> np.uint64(shift)
    if max_value <= _U32:
        value = _next_uint32(state) & mask
        while value > max_value:
            value = _next_uint32(state) & mask
    else:
        value = _next_uint64(state) & mask
        while value > max_value:
            value = _next_uint64(state) & mask
    return value


@nb.njit(**_JIT)
def permutation(state: np.ndarray, n: int) -> np.ndarray:  # pragma: no cover
    """``Generator.permutation(n)``: ``arange(n)`` shuffled by numpy's Fisher-Yates (int64 array)."""
    out = np.arange(max(n, 0))
    for i in range(out.size - 1, 0, -1):
        j = np.int64(_interval(state, np.uint64(i)))
        out[i], out[j] = out[j], out[i]
    return out


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
    bit_generator = getattr(_THREAD, "bit_generator", None)
    if bit_generator is None:
        bit_generator = _THREAD.bit_generator = np.random.PCG64(0)
    bit_generator.state = state_dict(seeded(seed))  # numpy's pcg64_srandom_r of the seed's words
    return np.random.Generator(bit_generator)
