"""The packed state key of the One-Handed DP kernel (:mod:`exact.one_handed.dp_kernel`), shared with
the play-out of the last layers (:mod:`exact.one_handed.finish`).

A key is four int64 words: the row's card codes packed ``code_bits`` apiece into words 0-2, and
word 3 = undealt mask | row length << 34 | frozen offset << 41. Counts are exact unsigned integers
in ``LIMBS`` limbs of ``LIMB_BITS`` bits held in int64.
"""
from __future__ import annotations

import numpy as np
from numba import types

from sim._jit import jit

LIMB_BITS = 40
LIMB_MASK = (1 << LIMB_BITS) - 1
LIMBS = 3
ROW_WORDS = 3
MASK_BITS = 34
LEN_SHIFT = 34
OFF_SHIFT = 41
FIELD_MASK = 0x7F
KEY_TYPE = types.UniTuple(types.int64, 4)


def code_bits(suits: int, ranks: int) -> int:
    return int((suits + 1) * (ranks + 1) - 1).bit_length()


def max_row_cards(suits: int, ranks: int) -> int:
    return ROW_WORDS * (63 // code_bits(suits, ranks))


@jit
def _decode(key, rs, rr, us, ur, n_s, n_r, bits, per_word):
    """Unpack a key into row labels and undealt labels; return (length, k, offset)."""
    w3 = key[3]
    length = (w3 >> LEN_SHIFT) & FIELD_MASK
    offset = (w3 >> OFF_SHIFT) & FIELD_MASK
    width = n_r + 1
    cmask = (np.int64(1) << bits) - 1
    for pos in range(length):
        word = pos // per_word
        shift = (pos % per_word) * bits
        w = key[0] if word == 0 else (key[1] if word == 1 else key[2])
        code = (w >> shift) & cmask
        rs[pos] = code // width - 1
        rr[pos] = code % width - 1
    mask = w3 & ((np.int64(1) << MASK_BITS) - 1)
    k = 0
    bit = 0
    while mask != 0:
        if mask & 1:
            us[k] = bit // n_r
            ur[k] = bit % n_r
            k += 1
        mask >>= 1
        bit += 1
    return length, k, offset
