"""Solving ``A x = r`` modulo a prime with the factors of :mod:`exact.hand.chains.factor`, written
twice for speed: :func:`solve_mod_pair` solves two columns at once (the lifting of ``h`` and ``m``
together), :func:`solve_mod_one` one column (the lifting of ``m`` alone, once ``h`` is exact). The
twins mirror each other line for line and give the same residues column by column (tested).
"""
from __future__ import annotations

import numpy as np

from exact.hand.chains.system import ModularFactors
from sim._jit import jit

#: In the sparse passes of :func:`solve_mod_pair` a residual is reduced only once it falls below
#: ``-LAZY_LIMIT`` (each term is below ``p**2 < 2**48``, so it never passes ``-2**63``).
LAZY_LIMIT = 1 << 62
#: :func:`dense_solve_pair` splits each solved unknown ``y`` (centred, ``|y| <= p/2 < 2**23``) as
#: ``y = 2**12 * high + low`` (``|high| <= 2**11``, ``|low| <= 2**11``), so a product with a centred
#: factor (``|x| < 2**23``) is below ``2**34`` and a whole row of at most ``MAX_DENSE_CORE`` of
#: them sums below ``2**52``: every partial sum is an integer that float64 holds exactly, in
#: whatever order the terms are added (which lets LLVM vectorize the dot products).
SPLIT = 4096.0
#: The backward sparse pass sums at most this many products of residues (each below ``p**2 < 2**48``)
#: before it reduces the sum (so it stays below ``2**62``), without a test on every term.
ROW_CHUNK = 1 << 14
MAX_DENSE_CORE = 1 << 18


# ``reassoc`` (and ``contract``: fused multiply-adds) on these dot products only, which lets LLVM
# vectorize them: exact, since every partial sum in any order is an integer below 2**53 (see SPLIT).
@jit(fastmath={"reassoc", "contract"})
def _dot4(row, high0, low0, high1, low1):
    """``row . high0, row . low0, row . high1, row . low1`` (float32 row, float64 vectors)."""
    a0 = b0 = a1 = b1 = 0.0
    for j in range(row.shape[0]):
        x = np.float64(row[j])
        a0 += x * high0[j]
        b0 += x * low0[j]
        a1 += x * high1[j]
        b1 += x * low1[j]
    return a0, b0, a1, b1


# Four rows at a time: the solved unknowns' halves (4 float64 vectors) are read once for four rows
# of the LU, not once a row (the vectors are 8 times the bytes of a float32 row).
@jit(fastmath={"reassoc", "contract"})
def _dot16(r0, r1, r2, r3, high0, low0, high1, low1):
    """:func:`_dot4` of four rows against the same four vectors, in one pass."""
    a00 = b00 = a01 = b01 = a10 = b10 = a11 = b11 = 0.0
    a20 = b20 = a21 = b21 = a30 = b30 = a31 = b31 = 0.0
    for j in range(high0.shape[0]):
        h0, l0, h1, l1 = high0[j], low0[j], high1[j], low1[j]
        x = np.float64(r0[j])
        a00 += x * h0
        b00 += x * l0
        a01 += x * h1
        b01 += x * l1
        x = np.float64(r1[j])
        a10 += x * h0
        b10 += x * l0
        a11 += x * h1
        b11 += x * l1
        x = np.float64(r2[j])
        a20 += x * h0
        b20 += x * l0
        a21 += x * h1
        b21 += x * l1
        x = np.float64(r3[j])
        a30 += x * h0
        b30 += x * l0
        a31 += x * h1
        b31 += x * l1
    return (a00, b00, a01, b01, a10, b10, a11, b11, a20, b20, a21, b21, a30, b30, a31, b31)


@jit
def _settle(i, forward, a0, b0, a1, b1, y0, y1, high0, low0, high1, low1, diagonal_inverse, p):
    """Unknown ``i`` of the triangular solve from its row's dot products (see :func:`dense_solve_pair`):
    :func:`_settle_one` for each of the two columns."""
    _settle_one(i, forward, a0, b0, y0, high0, low0, diagonal_inverse, p)
    _settle_one(i, forward, a1, b1, y1, high1, low1, diagonal_inverse, p)


@jit
def dense_solve_pair(lu, y0, y1, diagonal_inverse, p):
    """Solve ``L U y = y`` modulo p for two columns ``y0``, ``y1`` (float64 residues ``0 <= y < p``)
    in place with the core's LU (centred float32, see :class:`~exact.hand.chains.system.ModularFactors`); leaves centred
    residues. Exact: see :data:`SPLIT`; the reductions ``s - p rint(s / p)`` need only *a* near
    quotient, which they get. Rows go four at a time (:func:`_dot16` over the unknowns solved
    before the four, then the few terms within the four), the last ones one at a time."""
    m = lu.shape[0]
    high0, low0 = np.empty(m), np.empty(m)
    high1, low1 = np.empty(m), np.empty(m)
    for forward in (True, False):  # unit lower, then upper
        step = 0
        while step < m:
            if step + 4 <= m:
                # rows i, i +- 1, ...: the unknowns solved before all four are [0, lo) or [hi, m)
                if forward:
                    lo, hi = step, step
                    rows = (step, step + 1, step + 2, step + 3)
                    s = _dot16(lu[rows[0], :lo], lu[rows[1], :lo], lu[rows[2], :lo], lu[rows[3], :lo],
                               high0[:lo], low0[:lo], high1[:lo], low1[:lo])
                else:
                    hi = m - step
                    rows = (hi - 1, hi - 2, hi - 3, hi - 4)
                    s = _dot16(lu[rows[0], hi:], lu[rows[1], hi:], lu[rows[2], hi:], lu[rows[3], hi:],
                               high0[hi:], low0[hi:], high1[hi:], low1[hi:])
                for r in range(4):
                    i = rows[r]
                    a0, b0, a1, b1 = s[4 * r], s[4 * r + 1], s[4 * r + 2], s[4 * r + 3]
                    for q in range(r):  # the unknowns of this block solved before row i
                        j = rows[q]
                        x = np.float64(lu[i, j])
                        a0 += x * high0[j]
                        b0 += x * low0[j]
                        a1 += x * high1[j]
                        b1 += x * low1[j]
                    _settle(i, forward, a0, b0, a1, b1, y0, y1, high0, low0, high1, low1, diagonal_inverse, p)
                step += 4
                continue
            i = step if forward else m - 1 - step
            # the row's slice against the solved unknowns (slices from 0: LLVM does not vectorize
            # numba's ``range(i + 1, m)``)
            if forward:
                a0, b0, a1, b1 = _dot4(lu[i, :i], high0[:i], low0[:i], high1[:i], low1[:i])
            else:
                a0, b0, a1, b1 = _dot4(lu[i, i + 1:], high0[i + 1:], low0[i + 1:], high1[i + 1:], low1[i + 1:])
            _settle(i, forward, a0, b0, a1, b1, y0, y1, high0, low0, high1, low1, diagonal_inverse, p)
            step += 1


@jit
def floor_divmod(v, p, pinv):
    """``(v // p, v % p)`` for an int64 ``|v| < 2**62 + 2**48`` (``pinv = 1 / p``) without an integer
    division (tens of cycles each, and a lifting step does millions): for the primes of
    :data:`~exact.hand.chains.system.PRIMES` the float64 quotient is within one of the true one (its error is below
    ``2**-12``), and the remainder, computed exactly in int64, corrects it; for a small ``p`` (the
    tests) a quotient further off is corrected by an integer division."""
    q = np.int64(np.floor(np.float64(v) * pinv))
    r = v - q * p
    if r < 0:
        r += p
        q -= 1
    elif r >= p:
        r -= p
        q += 1
    if r < 0 or r >= p:
        d = r // p
        q += d
        r -= d * p
    return q, r


@jit
def solve_mod_pair(r, p, order, inverse, l_ptr, l_idx, l_val, u_ptr, u_idx, u_val, core, lu, perm, diagonal_inverse):
    """Solve ``A x = r`` modulo p for the two columns of ``r`` (n x 2 int64 residues), in place;
    the solution is left as residues ``0 <= x < p``. Two columns at a time: the lifting solves for
    ``h`` and ``m`` together, and the rows of ``r`` (both columns in one cache line) are the memory
    traffic of the sparse passes. Indices are taken as unsigned (``np.uint64``): numba then adds no
    negative-index wraparound to every access (the sparse passes run 1.4-1.8 times faster)."""
    pinv = 1.0 / np.float64(p)
    one = np.uint64(1)
    for t in range(order.shape[0]):  # forward: the sparse eliminations, reduced lazily
        tt = np.uint64(t)
        k = np.uint64(order[tt])
        x0 = floor_divmod(r[k, 0], p, pinv)[1]  # final: later pivots never update an eliminated state
        x1 = floor_divmod(r[k, 1], p, pinv)[1]
        r[k, 0] = x0
        r[k, 1] = x1
        for e in range(np.uint64(l_ptr[tt]), np.uint64(l_ptr[tt + one])):
            ue = np.uint64(e)
            i = np.uint64(l_idx[ue])
            f = np.int64(l_val[ue])
            v0 = r[i, 0] - f * x0
            v1 = r[i, 1] - f * x1
            if v0 < -LAZY_LIMIT:
                v0 %= p
            if v1 < -LAZY_LIMIT:
                v1 %= p
            r[i, 0] = v0
            r[i, 1] = v1
    m = core.shape[0]
    if m:
        y = np.empty((2, m), dtype=np.float64)
        for i in range(m):
            y[0, i] = np.float64(floor_divmod(r[core[perm[i]], 0], p, pinv)[1])
            y[1, i] = np.float64(floor_divmod(r[core[perm[i]], 1], p, pinv)[1])
        dense_solve_pair(lu, y[0], y[1], diagonal_inverse, p)
        for i in range(m):
            r[core[i], 0] = floor_divmod(np.int64(y[0, i]), p, pinv)[1]
            r[core[i], 1] = floor_divmod(np.int64(y[1, i]), p, pinv)[1]
    for t in range(order.shape[0] - 1, -1, -1):  # backward: sums of ROW_CHUNK terms, then reduced
        tt = np.uint64(t)
        k = np.uint64(order[tt])
        a0 = floor_divmod(r[k, 0], p, pinv)[1]
        a1 = floor_divmod(r[k, 1], p, pinv)[1]
        e1 = np.uint64(u_ptr[tt + one])
        e0 = np.uint64(u_ptr[tt])
        while e0 < e1:
            stop = min(e1, e0 + np.uint64(ROW_CHUNK))
            s0 = np.int64(0)
            s1 = np.int64(0)
            for e in range(e0, stop):
                ue = np.uint64(e)
                j = np.uint64(u_idx[ue])
                f = np.int64(u_val[ue])
                s0 += f * r[j, 0]
                s1 += f * r[j, 1]
            a0 = floor_divmod(a0 - s0, p, pinv)[1]
            a1 = floor_divmod(a1 - s1, p, pinv)[1]
            e0 = stop
        r[k, 0] = floor_divmod(a0 * inverse[tt], p, pinv)[1]
        r[k, 1] = floor_divmod(a1 * inverse[tt], p, pinv)[1]


@jit(fastmath={"reassoc", "contract"})
def _dot2(row, high, low):
    """``row . high, row . low`` (float32 row, float64 vectors): :func:`_dot4` for one column."""
    a = b = 0.0
    for j in range(row.shape[0]):
        x = np.float64(row[j])
        a += x * high[j]
        b += x * low[j]
    return a, b


# Eight rows at a time for one column: the two vectors (16 bytes per unknown) are read once for
# eight float32 rows (32 bytes); with four rows, reading them took as long as the LU's rows, and a
# solve ran at 14 GB/s instead of the 20 GB/s that streaming the LU allows here.
@jit(fastmath={"reassoc", "contract"})
def _dot8x2(r0, r1, r2, r3, r4, r5, r6, r7, high, low):
    """:func:`_dot2` of eight rows against the same two vectors, in one pass."""
    a0 = b0 = a1 = b1 = a2 = b2 = a3 = b3 = 0.0
    a4 = b4 = a5 = b5 = a6 = b6 = a7 = b7 = 0.0
    for j in range(high.shape[0]):
        h, lo = high[j], low[j]
        x = np.float64(r0[j])
        a0 += x * h
        b0 += x * lo
        x = np.float64(r1[j])
        a1 += x * h
        b1 += x * lo
        x = np.float64(r2[j])
        a2 += x * h
        b2 += x * lo
        x = np.float64(r3[j])
        a3 += x * h
        b3 += x * lo
        x = np.float64(r4[j])
        a4 += x * h
        b4 += x * lo
        x = np.float64(r5[j])
        a5 += x * h
        b5 += x * lo
        x = np.float64(r6[j])
        a6 += x * h
        b6 += x * lo
        x = np.float64(r7[j])
        a7 += x * h
        b7 += x * lo
    return a0, b0, a1, b1, a2, b2, a3, b3, a4, b4, a5, b5, a6, b6, a7, b7


@jit(inline="always")
def _settle_one(i, forward, a, b, y, high, low, diagonal_inverse, p):
    """Unknown ``i`` of a one-column triangular solve from its row's dot products ``a`` (against the
    solved unknowns' high halves) and ``b`` (low halves): reduced, divided by the diagonal on the
    way back, and split again (see :data:`SPLIT`)."""
    pf = np.float64(p)
    half = p // 2
    s = y[i] - (a - pf * np.rint(a / pf)) * SPLIT - b
    if forward:
        y[i] = s - pf * np.rint(s / pf)
    else:
        v = np.int64(s - pf * np.rint(s / pf)) % p * diagonal_inverse[i] % p
        y[i] = np.float64(v - p if v > half else v)
    high[i] = np.rint(y[i] / SPLIT)
    low[i] = y[i] - SPLIT * high[i]


@jit
def dense_solve_one(lu, y, diagonal_inverse, p):
    """:func:`dense_solve_pair` for one column ``y`` (the same exact sums), eight rows at a time
    (:func:`_dot8x2`), the last ones one at a time."""
    m = lu.shape[0]
    high, low = np.empty(m), np.empty(m)
    for forward in (True, False):  # unit lower, then upper
        step = 0
        while step < m:
            if step + 8 <= m:
                # rows i, i +- 1, ...: the unknowns solved before all eight are [0, lo) or [hi, m)
                if forward:
                    lo, hi = step, step
                    rows = (step, step + 1, step + 2, step + 3, step + 4, step + 5, step + 6, step + 7)
                    s = _dot8x2(lu[rows[0], :lo], lu[rows[1], :lo], lu[rows[2], :lo], lu[rows[3], :lo],
                                lu[rows[4], :lo], lu[rows[5], :lo], lu[rows[6], :lo], lu[rows[7], :lo],
                                high[:lo], low[:lo])
                else:
                    hi = m - step
                    rows = (hi - 1, hi - 2, hi - 3, hi - 4, hi - 5, hi - 6, hi - 7, hi - 8)
                    s = _dot8x2(lu[rows[0], hi:], lu[rows[1], hi:], lu[rows[2], hi:], lu[rows[3], hi:],
                                lu[rows[4], hi:], lu[rows[5], hi:], lu[rows[6], hi:], lu[rows[7], hi:],
                                high[hi:], low[hi:])
                for r in range(8):
                    i = rows[r]
                    a, b = s[2 * r], s[2 * r + 1]
                    for q in range(r):  # the unknowns of this block solved before row i
                        j = rows[q]
                        x = np.float64(lu[i, j])
                        a += x * high[j]
                        b += x * low[j]
                    _settle_one(i, forward, a, b, y, high, low, diagonal_inverse, p)
                step += 8
                continue
            i = step if forward else m - 1 - step
            if forward:
                a, b = _dot2(lu[i, :i], high[:i], low[:i])
            else:
                a, b = _dot2(lu[i, i + 1:], high[i + 1:], low[i + 1:])
            _settle_one(i, forward, a, b, y, high, low, diagonal_inverse, p)
            step += 1


@jit
def solve_mod_one(r, p, order, inverse, l_ptr, l_idx, l_val, u_ptr, u_idx, u_val, core, lu, perm,
                   diagonal_inverse):
    """:func:`solve_mod_pair` for one column ``r`` (an int64 vector of residues), in place: what the
    lifting does once the ``h`` system is solved exactly (its residual zero), half the memory
    traffic and the products of the sparse passes."""
    pinv = 1.0 / np.float64(p)
    one = np.uint64(1)
    for t in range(order.shape[0]):  # forward: the sparse eliminations, reduced lazily
        tt = np.uint64(t)
        k = np.uint64(order[tt])
        x = floor_divmod(r[k], p, pinv)[1]
        r[k] = x
        for e in range(np.uint64(l_ptr[tt]), np.uint64(l_ptr[tt + one])):
            ue = np.uint64(e)
            i = np.uint64(l_idx[ue])
            v = r[i] - np.int64(l_val[ue]) * x
            if v < -LAZY_LIMIT:
                v %= p
            r[i] = v
    m = core.shape[0]
    if m:
        y = np.empty(m, dtype=np.float64)
        for i in range(m):
            y[i] = np.float64(floor_divmod(r[core[perm[i]]], p, pinv)[1])
        dense_solve_one(lu, y, diagonal_inverse, p)
        for i in range(m):
            r[core[i]] = floor_divmod(np.int64(y[i]), p, pinv)[1]
    for t in range(order.shape[0] - 1, -1, -1):  # backward: sums of ROW_CHUNK terms, then reduced
        tt = np.uint64(t)
        k = np.uint64(order[tt])
        a = floor_divmod(r[k], p, pinv)[1]
        e1 = np.uint64(u_ptr[tt + one])
        e0 = np.uint64(u_ptr[tt])
        while e0 < e1:
            stop = min(e1, e0 + np.uint64(ROW_CHUNK))
            acc = np.int64(0)
            for e in range(e0, stop):
                ue = np.uint64(e)
                acc += np.int64(u_val[ue]) * r[np.uint64(u_idx[ue])]
            a = floor_divmod(a - acc, p, pinv)[1]
            e0 = stop
        r[k] = floor_divmod(a * inverse[tt], p, pinv)[1]


def solve_modular(factors: ModularFactors, rhs: np.ndarray) -> np.ndarray:
    """``A^{-1} rhs`` modulo ``factors.p`` (``rhs``: integer vector or n x c matrix)."""
    r = np.asarray(rhs, dtype=np.int64)
    vector = r.ndim == 1
    r = np.mod(r.reshape(len(r), -1), factors.p).astype(np.int64)
    f = factors
    out = np.empty_like(r)
    for c in range(0, r.shape[1], 2):  # two columns at a time (a zero column for an odd count)
        pair = np.zeros((len(r), 2), dtype=np.int64)
        pair[:, :min(2, r.shape[1] - c)] = r[:, c:c + 2]
        solve_mod_pair(pair, f.p, f.order, f.inverse, f.l_ptr, f.l_idx, f.l_val, f.u_ptr, f.u_idx, f.u_val, f.core,
                   f.lu, f.perm, f.diagonal_inverse)
        out[:, c:c + 2] = pair[:, :min(2, r.shape[1] - c)]
    return out[:, 0] if vector else out
