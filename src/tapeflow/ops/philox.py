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

import numpy as np

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
    rows = np.arange(n, dtype=np.uint64)
    # The 128-bit counters counter + g, as four uint32 words (carries propagate upward).
    c0 = np.uint64(counter[0]) + rows
    carry = c0 >> _SHIFT32
    c0 &= _MASK32
    c1 = np.uint64(counter[1]) + carry
    carry = c1 >> _SHIFT32
    c1 &= _MASK32
    c2 = np.uint64(counter[2]) + carry
    carry = c2 >> _SHIFT32
    c2 &= _MASK32
    c3 = (np.uint64(counter[3]) + carry) & _MASK32
    k0, k1 = int(key[0]), int(key[1])
    for round_ in range(10):
        if round_:
            k0, k1 = (k0 + _W0) & 0xFFFFFFFF, (k1 + _W1) & 0xFFFFFFFF
        product0 = _M0 * c0           # 32 x 32 -> 64 bits: exact in uint64
        product1 = _M1 * c2
        c0, c1, c2, c3 = ((product1 >> _SHIFT32) ^ c1 ^ np.uint64(k0),
                          product1 & _MASK32,
                          (product0 >> _SHIFT32) ^ c3 ^ np.uint64(k1),
                          product0 & _MASK32)
    return np.stack([c0, c1, c2, c3], axis=1).astype(np.uint32)


# -- words to numbers (TensorFlow's random_distributions.h) -------------------------------------

def uint32_to_float(words: np.ndarray) -> np.ndarray:
    """Floats in [0, 1): 23 mantissa bits under exponent 0, minus one."""
    bits = (words.astype(np.uint32) & np.uint32(0x7FFFFF)) | np.uint32(0x3F800000)
    return bits.view(np.float32) - np.float32(1.0)


def uint32_pair_to_double(high: np.ndarray, low: np.ndarray) -> np.ndarray:
    """Doubles in [0, 1): 20 mantissa bits from the first word, 32 from the second."""
    bits = ((high.astype(np.uint64) & np.uint64(0xFFFFF)) << _SHIFT32) | low.astype(np.uint64)
    return (bits | np.uint64(0x3FF0000000000000)).view(np.float64) - 1.0


def uint32_to_half(words: np.ndarray) -> np.ndarray:
    """Halves in [0, 1): 10 mantissa bits (of the word's low 16) under exponent 0."""
    bits = (words.astype(np.uint16) & np.uint16(0x3FF)) | np.uint16(0x3C00)
    return bits.view(np.float16) - np.float16(1.0)


def uint32_to_bfloat16(words: np.ndarray) -> np.ndarray:
    """bfloat16 in [0, 1): 7 mantissa bits under exponent 0, computed in float32 (as TF)."""
    bits = ((words.astype(np.uint32) & np.uint32(0x7F)) | np.uint32(0x3F80)) << np.uint32(16)
    return bits.view(np.float32) - np.float32(1.0)


def box_muller_float(x0: np.ndarray, x1: np.ndarray) -> tuple:
    """Two standard normal float32s per pair of words (TensorFlow's BoxMullerFloat)."""
    u1 = np.maximum(uint32_to_float(x0), np.float32(1.0e-7))
    # `2.0f * M_PI * u` in C++ is a double product (M_PI is a double), rounded to float.
    v1 = (2.0 * np.pi * uint32_to_float(x1).astype(np.float64)).astype(np.float32)
    # C's logf, sinf, cosf round correctly; float32 rounding of the double results matches
    # them (NumPy's own float32 versions can differ in the last bit).
    u2 = np.sqrt(np.float32(-2.0) * _f32(np.log, u1))
    return _f32(np.sin, v1) * u2, _f32(np.cos, v1) * u2


def _f32(fn: object, x: np.ndarray) -> np.ndarray:
    return fn(x.astype(np.float64)).astype(np.float32)


def box_muller_double(x0: np.ndarray, x1: np.ndarray, x2: np.ndarray,
                      x3: np.ndarray) -> tuple:
    """Two standard normal doubles per four words (TensorFlow's BoxMullerDouble)."""
    u1 = np.maximum(uint32_pair_to_double(x0, x1), 1.0e-7)
    v1 = 2.0 * np.pi * uint32_pair_to_double(x2, x3)
    u2 = np.sqrt(-2.0 * np.log(u1))
    return np.sin(v1) * u2, np.cos(v1) * u2


def uniform(key: tuple, counter: tuple, size: int, dtype: np.dtype) -> np.ndarray:
    """`size` uniform numbers in [0, 1) of a float `dtype`, as TensorFlow's fill from this
    key and counter (4 per draw for 32 and 16 bits, 2 per draw for doubles)."""
    dtype = np.dtype(dtype)
    per_draw = 2 if dtype == np.float64 else 4
    words = draws(key, counter, -(-size // per_draw))
    if dtype == np.float64:
        values = uint32_pair_to_double(words[:, 0::2], words[:, 1::2])
    elif dtype == np.float16:
        values = uint32_to_half(words)
    elif dtype == np.float32:
        values = uint32_to_float(words)
    else:   # bfloat16 and other 16-bit floats: from float32, as TensorFlow rounds them
        values = uint32_to_bfloat16(words).astype(dtype)
    return values.reshape(-1)[:size]


def normal(key: tuple, counter: tuple, size: int, dtype: np.dtype) -> np.ndarray:
    """`size` standard normal numbers of a float `dtype`, as TensorFlow's fill (Box-Muller:
    4 float32s per draw, halves rounded from those, 2 doubles per draw)."""
    dtype = np.dtype(dtype)
    if dtype == np.float64:
        words = draws(key, counter, -(-size // 2))
        first, second = box_muller_double(words[:, 0], words[:, 1], words[:, 2], words[:, 3])
        values = np.stack([first, second], axis=1)
    else:
        words = draws(key, counter, -(-size // 4))
        a0, a1 = box_muller_float(words[:, 0], words[:, 1])
        b0, b1 = box_muller_float(words[:, 2], words[:, 3])
        values = np.stack([a0, a1, b0, b1], axis=1)
        if dtype != np.float32:
            values = values.astype(dtype)
    return values.reshape(-1)[:size]


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


__all__ = ["key_and_counter", "skip", "draws", "uniform", "normal", "uniform_int",
           "full_range_int", "uint32_to_float",
           "uint32_pair_to_double", "uint32_to_half", "box_muller_float", "box_muller_double"]
