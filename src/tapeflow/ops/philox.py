"""TensorFlow's random bits: the Philox4x32-10 generator and its conversions to numbers.

TensorFlow's CPU kernels draw every random number from Philox4x32-10 (Salmon et al., 2011), a
counter-based generator: a 64-bit key and a 128-bit counter give four 32-bit words, and the
counter is incremented once per draw. The kernels then turn words into numbers with fixed
recipes (`random_distributions.h`): a float's mantissa from 23 bits, a double's from 52 bits of
two words, normals by Box-Muller on pairs. Output element `i` of a fill comes from group
`i // n` of the stream, where `n` is how many numbers one draw gives (4 floats, 2 doubles):
draw `g` is the generator skipped ahead by `g`. Reproducing those steps bit for bit here, in
vectorized uint32/uint64 NumPy arithmetic, gives TensorFlow's numbers for the same key and
counter.
"""

from __future__ import annotations

from typing import Iterator

import numpy as np

from . import libm

_M0, _M1 = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)
_W0, _W1 = 0x9E3779B9, 0xBB67AE85
_MASK32 = np.uint64(0xFFFFFFFF)
_SHIFT32 = np.uint64(32)


def key_and_counter(seed_lo: int, seed_hi: int) -> tuple:
    """The key and counter of TensorFlow's `PhiloxRandom(seed_lo, seed_hi)`: the low seed is
    the key, the high seed the upper half of the counter."""
    lo, hi = int(seed_lo) & 0xFFFFFFFFFFFFFFFF, int(seed_hi) & 0xFFFFFFFFFFFFFFFF
    key = (lo & 0xFFFFFFFF, lo >> 32)
    counter = (0, 0, hi & 0xFFFFFFFF, hi >> 32)
    return key, counter


def skip(counter: tuple, count: int) -> tuple:
    """`counter` advanced by `count` draws (TensorFlow's `PhiloxRandom::Skip`): one 128-bit
    addition over its four little-endian 32-bit words."""
    value = sum(int(word) << (32 * i) for i, word in enumerate(counter))
    value = (value + int(count)) & ((1 << 128) - 1)
    return tuple((value >> (32 * i)) & 0xFFFFFFFF for i in range(4))


def draws(key: tuple, counter: tuple, n: int) -> np.ndarray:
    """The next `n` outputs of the generator at (`key`, `counter`): an (n, 4) uint32 array,
    row `g` from the counter advanced by `g`."""
    if counter[0] + n <= 1 << 32:   # no carry out of the lowest word: build the words directly
        c0 = np.arange(counter[0], counter[0] + n, dtype=np.uint32)
        # The upper words are constant: broadcast views, not arrays, keep memory traffic low.
        c1, c2, c3 = (np.broadcast_to(np.uint32(counter[i]), (n,)) for i in (1, 2, 3))
        return _rounds(key, c0, c1, c2, c3)
    return draws_at(key, counter, np.arange(n, dtype=np.uint64))


def draw_blocks(key: tuple, counter: tuple, n: int) -> Iterator[tuple]:
    """The next `n` outputs as `draws` gives them, a cache-sized block at a time: pairs of
    (first row, (rows, 4) uint32 words). Turning each block into numbers before the next is
    made keeps the whole pass in cache."""
    for begin in range(0, n, _CHUNK):
        yield begin, draws(key, skip(counter, begin), min(_CHUNK, n - begin))


def draws_at(key: tuple, counter: tuple, offsets: np.ndarray) -> np.ndarray:
    """The outputs at `counter + offsets` (uint64 offsets): an (len(offsets), 4) uint32
    array."""
    offsets = np.asarray(offsets, np.uint64)
    # The 128-bit counters counter + offset, as four uint32 words (carries propagate up).
    low = np.uint64(counter[0] | (counter[1] << 32))
    c01 = low + offsets                          # wraps modulo 2**64: the carry is c01 < low
    carry = (c01 < low).astype(np.uint64)
    c2 = np.uint64(counter[2]) + carry
    c3 = (np.uint64(counter[3]) + (c2 >> _SHIFT32)) & _MASK32
    return _rounds(key, c01 & _MASK32, c01 >> _SHIFT32, c2 & _MASK32, c3)


_CHUNK = 1 << 13   # counters per pass: the arrays of one pass stay in the CPU's cache


def _rounds(key: tuple, c0: np.ndarray, c1: np.ndarray, c2: np.ndarray,
            c3: np.ndarray) -> np.ndarray:
    """Philox4x32-10 on counters given as four arrays of 32-bit words."""
    n = len(c0)
    out = np.empty((n, 4), np.uint32)
    words = [np.asarray(c, np.uint32) for c in (c0, c1, c2, c3)]
    for begin in range(0, n, _CHUNK):
        chunk = [w[begin:begin + _CHUNK] for w in words]
        _rounds_chunk(key, *chunk, out=out[begin:begin + _CHUNK])
    return out


def _rounds_chunk(key: tuple, c0: np.ndarray, c1: np.ndarray, c2: np.ndarray,
                  c3: np.ndarray, out: np.ndarray) -> None:
    k0, k1 = int(key[0]), int(key[1])
    for round_ in range(10):
        if round_:
            k0, k1 = (k0 + _W0) & 0xFFFFFFFF, (k1 + _W1) & 0xFFFFFFFF
        # 32 x 32 -> 64-bit products; their uint32 halves are views (little-endian: low first).
        product0 = np.multiply(c0, _M0, dtype=np.uint64).view(np.uint32)
        product1 = np.multiply(c2, _M1, dtype=np.uint64).view(np.uint32)
        new0 = product1[1::2] ^ c1
        new0 ^= np.uint32(k0)
        new2 = product0[1::2] ^ c3
        new2 ^= np.uint32(k1)
        c0, c1, c2, c3 = new0, product1[0::2], new2, product0[0::2]
    for column, word in enumerate((c0, c1, c2, c3)):
        out[:, column] = word


# -- words to numbers (TensorFlow's random_distributions.h) -------------------------------------

def uint32_to_float(words: np.ndarray) -> np.ndarray:
    """Floats in [0, 1): 23 mantissa bits under exponent 0, minus one."""
    bits = np.bitwise_and(words, np.uint32(0x7FFFFF), dtype=np.uint32)
    bits |= np.uint32(0x3F800000)
    values = bits.view(np.float32)
    values -= np.float32(1.0)
    return values


def uint32_pair_to_double(high: np.ndarray, low: np.ndarray) -> np.ndarray:
    """Doubles in [0, 1): 20 mantissa bits from the first word, 32 from the second."""
    bits = np.bitwise_and(high, np.uint32(0xFFFFF), dtype=np.uint64)
    bits <<= _SHIFT32
    bits |= low
    bits |= np.uint64(0x3FF0000000000000)
    values = bits.view(np.float64)
    values -= 1.0
    return values


def uint32_to_half(words: np.ndarray) -> np.ndarray:
    """Halves in [0, 1): 10 mantissa bits (of the word's low 16) under exponent 0."""
    bits = np.bitwise_and(words, np.uint32(0x3FF), dtype=np.uint16, casting="unsafe")
    bits |= np.uint16(0x3C00)
    values = bits.view(np.float16)
    values -= np.float16(1.0)
    return values


def box_muller_float(x0: np.ndarray, x1: np.ndarray) -> tuple:
    """Two standard normal float32s per pair of words (TensorFlow's BoxMullerFloat), with
    glibc's `logf`, `sinf` and `cosf`, which TensorFlow's CPU kernels call."""
    u1 = np.maximum(uint32_to_float(x0), np.float32(1.0e-7))
    # `2.0f * M_PI * u` in C++ is a double product (M_PI is a double), rounded to float.
    v1 = (2.0 * np.pi * uint32_to_float(x1).astype(np.float64)).astype(np.float32)
    u2 = np.sqrt(np.float32(-2.0) * libm.logf(u1))
    sin, cos = libm.sincosf(v1)
    sin *= u2
    cos *= u2
    return sin, cos


def box_muller_double(x0: np.ndarray, x1: np.ndarray, x2: np.ndarray,
                      x3: np.ndarray) -> tuple:
    """Two standard normal doubles per four words (TensorFlow's BoxMullerDouble), with the C
    library's log (NumPy's float64 log is its own on AVX-512 CPUs; its sin and cos call the
    C library's)."""
    u1 = np.maximum(uint32_pair_to_double(x0, x1), 1.0e-7)
    v1 = 2.0 * np.pi * uint32_pair_to_double(x2, x3)
    u2 = np.sqrt(-2.0 * libm.log(u1))
    return np.sin(v1) * u2, np.cos(v1) * u2


def uniform(key: tuple, counter: tuple, size: int, dtype: np.dtype) -> np.ndarray:
    """`size` uniform numbers in [0, 1) of a float `dtype`, as TensorFlow's fill from this
    key and counter (4 per draw for 32 and 16 bits, 2 per draw for doubles)."""
    dtype = np.dtype(dtype)
    per_draw = 2 if dtype == np.float64 else 4
    values = np.empty((-(-size // per_draw), per_draw), dtype)
    for begin, words in draw_blocks(key, counter, len(values)):
        out = values[begin:begin + len(words)]
        if dtype == np.float64:
            out[...] = uint32_pair_to_double(words[:, 0::2], words[:, 1::2])
        elif dtype == np.float16:
            out[...] = uint32_to_half(words)
        else:
            out[...] = uint32_to_float(words)
    return values.reshape(-1)[:size]


def normal(key: tuple, counter: tuple, size: int, dtype: np.dtype) -> np.ndarray:
    """`size` standard normal numbers of a float `dtype`, as TensorFlow's fill (Box-Muller:
    4 float32s per draw, halves rounded from those, 2 doubles per draw)."""
    dtype = np.dtype(dtype)
    wide = dtype == np.float64
    rows = -(-size // (2 if wide else 4))
    values = np.empty((rows, 2 if wide else 4), np.float64 if wide else np.float32)
    for begin, w in draw_blocks(key, counter, rows):
        out = values[begin:begin + len(w)]
        if wide:
            out[:, 0], out[:, 1] = box_muller_double(w[:, 0], w[:, 1], w[:, 2], w[:, 3])
        else:   # both pairs of words at once: (x0, x1) -> outputs 0, 1 and (x2, x3) -> 2, 3
            out[:, 0::2], out[:, 1::2] = box_muller_float(w[:, 0::2], w[:, 1::2])
    values = values.reshape(-1)[:size]
    return values if dtype in (np.float32, np.float64) else values.astype(dtype)


# A distribution that takes a variable number of words per output group (truncated normal)
# gets a sub-stream of 256 words per output for each group (TensorFlow's
# kReservedSamplesPerOutput), so groups never overlap.
RESERVED_WORDS_PER_OUTPUT = 256


def truncated_normal(key: tuple, counter: tuple, size: int, dtype: np.dtype) -> np.ndarray:
    """`size` standard normals within two standard deviations, as TensorFlow's fill: group
    `g` of outputs (4 floats or halves, 2 doubles) reads words from its own sub-stream, turns
    them into normals by Box-Muller (a pair of words per two floats, four per two doubles)
    and keeps those of magnitude under 2, in order. Groups are independent, so they are
    filled a cache-sized block at a time."""
    dtype = np.dtype(dtype)
    wide = dtype == np.float64
    group = 2 if wide else 4
    groups = -(-size // group)
    out = np.empty((groups, group), np.float64 if wide else np.float32)
    for first in range(0, groups, _GROUPS_PER_BLOCK):
        block = np.arange(first, min(first + _GROUPS_PER_BLOCK, groups))
        out[block] = _truncated_normal_groups(key, counter, block, group, wide)
    return out.reshape(-1)[:size].astype(dtype)


_GROUPS_PER_BLOCK = 1 << 16


def _truncated_normal_groups(key: tuple, counter: tuple, groups: np.ndarray, group: int,
                             wide: bool) -> np.ndarray:
    """The outputs of the given groups: each group's sub-stream read a round at a time until
    it has `group` normals under 2 in magnitude."""
    starts = groups.astype(np.uint64) * np.uint64(group * RESERVED_WORDS_PER_OUTPUT // 4)
    out = np.empty((len(groups), group), np.float64 if wide else np.float32)
    filled = np.zeros(len(groups), np.int64)
    pending = np.arange(len(groups))
    used = 0                                     # draws of each sub-stream read so far
    while pending.size:
        per_round = 2                            # 4 or 8 candidates: nearly always enough
        words = np.concatenate(
            [draws_at(key, counter, starts[pending] + np.uint64(used + d))
             for d in range(per_round)], axis=1)          # (pending, 8) words, in order
        if wide:
            first, second = box_muller_double(words[:, 0::4], words[:, 1::4],
                                              words[:, 2::4], words[:, 3::4])
        else:
            first, second = box_muller_float(words[:, 0::2], words[:, 1::2])
        candidates = np.stack([first, second], axis=2).reshape(len(pending), -1)
        kept = np.abs(candidates) < 2.0
        order = np.argsort(~kept, axis=1, kind="stable")[:, :group]   # kept ones, in order
        take = np.minimum(group - filled[pending], kept.sum(axis=1))
        rows, slots = np.nonzero(np.arange(group)[None, :] < take[:, None])
        out[pending[rows], filled[pending][rows] + slots] = \
            np.take_along_axis(candidates, order, axis=1)[rows, slots]
        filled[pending] += take
        pending = pending[filled[pending] < group]
        used += per_round
    return out


def _words64(words: np.ndarray) -> np.ndarray:
    """One uint64 per pair of words, the first word low (TensorFlow's 64-bit samples)."""
    return words[:, 0::2].astype(np.uint64) | (words[:, 1::2].astype(np.uint64) << _SHIFT32)


def uniform_int(key: tuple, counter: tuple, size: int, lo: int, hi: int,
                dtype: np.dtype) -> np.ndarray:
    """`size` integers in [lo, hi) of `dtype` (int32: a word each; int64: a pair each), as
    TensorFlow: `lo + bits % (hi - lo)` in unsigned arithmetic."""
    dtype = np.dtype(dtype)
    wide = dtype.itemsize == 8
    words = draws(key, counter, -(-size // (2 if wide else 4)))
    bits = _words64(words).reshape(-1) if wide else words.reshape(-1).astype(np.uint64)
    span = (hi - lo) & ((1 << (64 if wide else 32)) - 1)
    values = (bits % np.uint64(span)).astype(np.uint64) + np.uint64(lo & 0xFFFFFFFFFFFFFFFF)
    return values.astype(dtype)[:size]


def full_range_int(key: tuple, counter: tuple, size: int, dtype: np.dtype) -> np.ndarray:
    """`size` integers over all of `dtype`'s range: the words themselves (64-bit types take
    a pair each)."""
    dtype = np.dtype(dtype)
    words = draws(key, counter, -(-size // (2 if dtype.itemsize == 8 else 4)))
    bits = _words64(words) if dtype.itemsize == 8 else words
    unsigned = np.uint64 if dtype.itemsize == 8 else np.uint32
    return np.ascontiguousarray(bits.reshape(-1), unsigned).view(dtype)[:size]


__all__ = ["key_and_counter", "skip", "draws", "draws_at", "uniform", "normal",
           "truncated_normal", "uniform_int",
           "full_range_int", "uint32_to_float",
           "uint32_pair_to_double", "uint32_to_half", "box_muller_float", "box_muller_double"]
