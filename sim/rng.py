"""Random streams for the kernels: xoshiro256** seeded per chunk from ``numpy.random.SeedSequence``.

Chunk ``k`` of a run with seed ``s`` draws from ``SeedSequence(s).spawn(k + 1)[k]``'s state, which
depends only on ``s`` and ``k`` (not on how many chunks or workers there are): the same seed gives
the same games whatever the parallelism. Bounded integers use Lemire's multiply-shift with rejection
(exactly uniform, no division on the common path): two per 64-bit output in :func:`shuffle`, four
(16 bits each) in :func:`shuffle_short`, the faster shuffle for decks of at most 2**16 cards.

The kernel-side functions keep the state in four scalars (so that it stays in registers) and return
the updated state with each output.
"""
from __future__ import annotations

import zlib

import numpy as np

from ._jit import jit

_M64 = (1 << 64) - 1
_U32 = np.uint64(0xFFFFFFFF)
_U16 = np.uint64(0xFFFF)
#: Longest array :func:`shuffle_short` accepts (its draws are 16-bit).
SHORT_SHUFFLE_MAX = 1 << 16


def chunk_states(seed: int, first_chunk: int, n_chunks: int) -> np.ndarray:
    """xoshiro256** states (``n_chunks`` x 4 uint64) for chunks ``first_chunk ...``."""
    root = np.random.SeedSequence(seed)
    states = np.empty((n_chunks, 4), dtype=np.uint64)
    for i in range(n_chunks):
        child = np.random.SeedSequence(root.entropy, spawn_key=(first_chunk + i,))
        state = child.generate_state(4, np.uint64)
        if not state.any():  # the all-zero state is the one fixed point of xoshiro
            state[0] = 1
        states[i] = state
    return states


def derive_seed(seed: int, *parts) -> int:
    """A 64-bit seed for one named part of a computation (a sweep cell, a validation case), which
    depends only on ``seed`` and ``parts`` (ints, or strings hashed with CRC-32): the one way every
    driver derives sub-seeds, so a part's numbers never depend on which other parts run, or in what
    order.

    >>> derive_seed(1, 4, 13) == derive_seed(1, 4, 13) != derive_seed(1, 13, 4)
    True
    """
    words = [zlib.crc32(part.encode()) if isinstance(part, str) else int(part) for part in parts]
    return int(np.random.SeedSequence([int(seed), *words]).generate_state(1, np.uint64)[0])


def spawn_seeds(seed: int, n: int) -> list[int]:
    """``n`` independent 64-bit seeds spawned from ``seed`` (repeated runs of the same thing)."""
    return [int(np.random.SeedSequence(int(seed), spawn_key=(j,)).generate_state(1, np.uint64)[0])
            for j in range(n)]


# The seeds' JSON form lives in sim.seeds (no numba); re-exported here.
from .seeds import (  # noqa: E402,F401
    JSON_SAFE_SEED, SEED_BITS, _is_seed_key, _is_seeds_key, new_seed, seeds_from_json, seeds_to_json,
)


# --- kernel side -----------------------------------------------------------------------------

@jit(inline="always")
def _rotl(x, k):
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


@jit(inline="always")
def next64(s0, s1, s2, s3):
    """One xoshiro256** output; returns ``(output, s0, s1, s2, s3)``."""
    result = _rotl(s1 * np.uint64(5), 7) * np.uint64(9)
    t = s1 << np.uint64(17)
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = _rotl(s3, 45)
    return result, s0, s1, s2, s3


@jit
def _lemire_slow(low, bound, bits, s0, s1, s2, s3):
    """Lemire's rejection step for ``bits``-bit draws (``low`` is the draw), taken with probability
    < bound / 2**bits; a redraw takes the top ``bits`` bits of a fresh output."""
    mask = (np.uint64(1) << np.uint64(bits)) - np.uint64(1)
    threshold = (mask + np.uint64(1) - bound) % bound
    m = low * bound
    while (m & mask) < threshold:
        x, s0, s1, s2, s3 = next64(s0, s1, s2, s3)
        m = (x >> np.uint64(64 - bits)) * bound
    return m >> np.uint64(bits), s0, s1, s2, s3


@jit
def _bounded_slow(low32, bound, s0, s1, s2, s3):
    """Lemire's rejection step, taken with probability < bound / 2**32."""
    return _lemire_slow(low32, bound, 32, s0, s1, s2, s3)


@jit(inline="always")
def bounded_pair(bound_hi, bound_lo, s0, s1, s2, s3):
    """Two independent uniform integers in ``[0, bound_hi)`` and ``[0, bound_lo)`` from one output."""
    x, s0, s1, s2, s3 = next64(s0, s1, s2, s3)
    m1 = (x >> np.uint64(32)) * bound_hi
    m2 = (x & _U32) * bound_lo
    if (m1 & _U32) < bound_hi:
        r1, s0, s1, s2, s3 = _bounded_slow(x >> np.uint64(32), bound_hi, s0, s1, s2, s3)
    else:
        r1 = m1 >> np.uint64(32)
    if (m2 & _U32) < bound_lo:
        r2, s0, s1, s2, s3 = _bounded_slow(x & _U32, bound_lo, s0, s1, s2, s3)
    else:
        r2 = m2 >> np.uint64(32)
    return r1, r2, s0, s1, s2, s3


@jit(inline="always")
def shuffle(a, s0, s1, s2, s3):
    """Fisher-Yates shuffle of ``a`` in place (uniform over all orders); returns the new state."""
    i = a.shape[0] - 1
    while i >= 2:
        j1, j2, s0, s1, s2, s3 = bounded_pair(np.uint64(i + 1), np.uint64(i), s0, s1, s2, s3)
        t = a[i]
        a[i] = a[j1]
        a[j1] = t
        t = a[i - 1]
        a[i - 1] = a[j2]
        a[j2] = t
        i -= 2
    if i == 1:
        j1, j2, s0, s1, s2, s3 = bounded_pair(np.uint64(2), np.uint64(1), s0, s1, s2, s3)
        t = a[1]
        a[1] = a[j1]
        a[j1] = t
    return s0, s1, s2, s3


@jit(inline="always")
def bounded16(bits16, bound, s0, s1, s2, s3):
    """A uniform integer in ``[0, bound)`` (``1 <= bound <= 2**16``) from 16 random bits
    ``bits16``, drawing more from the stream only in the rare rejection case."""
    m = bits16 * bound
    if (m & _U16) < bound:
        return _lemire_slow(bits16, bound, 16, s0, s1, s2, s3)
    return m >> np.uint64(16), s0, s1, s2, s3


@jit(inline="always")
def _swap_bounded16(a, i, bits16, s0, s1, s2, s3):
    j, s0, s1, s2, s3 = bounded16(bits16, np.uint64(i + 1), s0, s1, s2, s3)
    t = a[i]
    a[i] = a[j]
    a[j] = t
    return s0, s1, s2, s3


@jit(inline="always")
def shuffle_short(a, s0, s1, s2, s3):
    """Fisher-Yates shuffle of ``a`` (at most :data:`SHORT_SHUFFLE_MAX` items) in place, uniform
    over all orders, with four 16-bit draws per 64-bit output; returns the new state."""
    x = np.uint64(0)
    used = 4
    for i in range(a.shape[0] - 1, 0, -1):
        if used == 4:
            x, s0, s1, s2, s3 = next64(s0, s1, s2, s3)
            used = 0
        s0, s1, s2, s3 = _swap_bounded16(a, i, (x >> np.uint64(16 * used)) & _U16, s0, s1, s2, s3)
        used += 1
    return s0, s1, s2, s3


@jit(inline="always")
def shuffle_short4(a0, a1, a2, a3, s0, s1, s2, s3):
    """Shuffle four arrays of the same length (at most :data:`SHORT_SHUFFLE_MAX`) in place, each
    uniformly and independently (Fisher-Yates); returns the new state.

    Step ``i`` of the four shuffles shares one 64-bit output, a 16-bit draw each, and the four
    swaps are independent, so the CPU overlaps them.
    """
    for i in range(a0.shape[0] - 1, 0, -1):
        x, s0, s1, s2, s3 = next64(s0, s1, s2, s3)
        s0, s1, s2, s3 = _swap_bounded16(a0, i, x & _U16, s0, s1, s2, s3)
        s0, s1, s2, s3 = _swap_bounded16(a1, i, (x >> np.uint64(16)) & _U16, s0, s1, s2, s3)
        s0, s1, s2, s3 = _swap_bounded16(a2, i, (x >> np.uint64(32)) & _U16, s0, s1, s2, s3)
        s0, s1, s2, s3 = _swap_bounded16(a3, i, x >> np.uint64(48), s0, s1, s2, s3)
    return s0, s1, s2, s3


@jit
def _stream(state, n):
    """``n`` raw outputs of a stream (for tests against the reference below)."""
    s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    out = np.empty(n, dtype=np.uint64)
    for k in range(n):
        out[k], s0, s1, s2, s3 = next64(s0, s1, s2, s3)
    return out


def reference_stream(state, n) -> list[int]:
    """Plain-Python xoshiro256** (Blackman & Vigna), the reference for :func:`_stream`."""
    s = [int(v) for v in state]

    def rotl(x, k):
        return ((x << k) | (x >> (64 - k))) & _M64

    out = []
    for _ in range(n):
        out.append(rotl((s[1] * 5) & _M64, 7) * 9 & _M64)
        t = (s[1] << 17) & _M64
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = rotl(s[3], 45)
    return out
