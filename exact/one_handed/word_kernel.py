"""The word recursion of one job, degree by degree, modulo a prime, in numba.

The recursion and its proof are in :mod:`exact.one_handed.word`; the windows, pairs and slots in
:mod:`exact.one_handed.word_plan`. Tables: ``A[half-degree, window, prime, slot]`` and the kept
``B[half-degree, row, prime, slot]`` (``uint32`` residues; degree first, so that one degree's
rows, which every pair reads, lie together). Degree by degree:

* ``A(0)`` is ``end(0)`` in every window;
* for ``d = 0 .. n - 1`` every pair's ``B_W(a)(d)`` is built from its child's ``A(d)`` (complete: it
  was summed at ``d - 1``), and from ``A_W`` and the kept ``B_W`` at lower degrees; it is kept if a
  child may hand it back, and added into ``A_W(d + 1)`` if ``a`` is dealt from ``A_W``.

No pair reads what another pair of the same degree writes (``A(d + 1)`` and ``B(d)`` are written at
slots or half-degrees that degree ``d`` never reads), so the order of the pairs is free.

**Overflow.** Every sum is taken in ``uint64`` and reduced once (every term is nonnegative, so a
partial sum, four products at a time in :func:`_conv` or the children's vectors added up before they
are mapped, is below the whole). For a prime ``p``, an entry of a pair's ``B_W(a)(d)`` sums at most
``(R + 1) * (n / 2 + 1)`` products of two residues (``R`` kept vectors at each even ``e <= d``, one
``R3'`` at each odd one) and at most 3 mapped counts, each below ``p``; an entry of a window's
``A_W(d + 1)`` sums as many products (the gathered hand-backs), the reduced vectors and mapped
counts of at most ``n`` pairs (at most 3 values below ``p`` each) and at most ``n`` ones (the
matches at degree 0). So every sum stays below ``(R + 1) (n / 2 + 1) p^2 + 3 n p + n``, and
:func:`prime_bits` gives the widest primes for which that is below ``2**64``: ``PRIME_BITS`` (26) is
safe for every deck of at most 62 cards (``(R + 1) (n / 2 + 1) <= 2016``), and the residues, stored
as ``uint32``, take at most :data:`MAX_PRIME_BITS` bits. The reductions (:func:`_mod`) take the
quotient from ``float64``, which needs primes above ``2**13``.
"""
from __future__ import annotations

import numpy as np

from sim._jit import jit

from exact.invariants import require
from exact.one_handed.word_plan import Layout, Plan

#: primes below 2**PRIME_BITS are safe for every deck the word method holds (see the module docstring)
PRIME_BITS = 26
#: the widest primes any deck uses (residues are stored as ``uint32``)
MAX_PRIME_BITS = 31
#: the reductions' float quotient (:func:`_mod`) is off by at most one for primes above this
MIN_PRIME = 2**13


def prime_bits(n: int, ranks: int) -> int:
    """The widest primes, in bits, whose sums cannot overflow on a deck of ``n`` cards and ``ranks``
    ranks (as built): the largest ``b <= MAX_PRIME_BITS`` with ``(R + 1) (n / 2 + 1) 4^b + 3 n 2^b + n <
    2^64`` (the module docstring's bound for primes below ``2^b``), at least :data:`PRIME_BITS`.

    >>> prime_bits(24, 6), prime_bits(52, 13), prime_bits(62, 31)
    (28, 27, 26)
    """
    terms = (ranks + 1) * (n // 2 + 1)
    for bits in range(MAX_PRIME_BITS, PRIME_BITS, -1):
        if terms * 4**bits + 3 * n * 2**bits + n < 2**64:
            return bits
    return PRIME_BITS


@jit(inline="always")
def _fixed(acc, V, msrc, mdst, m, P):
    """Add a child's endings at one degree, the vector ``V`` (``(prime, slot)``), into ``acc`` by the
    maps that do not depend on the pair: ``end`` by the end map, ``R1'`` as ``R2``, ``R2'`` as ``R3``
    (``msrc``, ``mdst``: the ``m`` slot pairs of the degree's parity)."""
    for u in range(m):
        src = msrc[u]
        dst = mdst[u]
        for q in range(P):
            acc[q, dst] += np.uint64(V[q, src])


@jit(inline="always")
def _renamed(acc, V, lay, rinv, p, P):
    """Add a child's ``S1'(x)`` endings (an odd degree) into ``acc`` as ``S2`` of rank ``rinv[p, x]``."""
    for x in range(lay.s1.shape[0]):
        dst = lay.s2[rinv[p, x]]
        src = lay.s1[x]
        for q in range(P):
            acc[q, dst] += np.uint64(V[q, src])


@jit(inline="always")
def _gather(cb, hb, coef, shift, start, d, P):
    """The nonzero terms of a convolution at degree ``d``: for ``e = start, start + 2, .. <= d``, the
    coefficients ``coef[e >> shift]`` (a ``(degree or half-degree, prime)`` view) into ``cb`` and the
    half-degree ``(d - e) >> 1`` of the vector each multiplies into ``hb``; returns their number."""
    m = 0
    for e in range(start, d + 1, 2):
        nz = False
        for q in range(P):
            c = coef[e >> shift, q]
            cb[m, q] = c
            if c:
                nz = True
        if nz:
            hb[m] = (d - e) >> 1
            m += 1
    return m


@jit(inline="always")
def _conv(acc, cb, hb, m, V, row, lo, hi, P):
    """``acc[q, t] += sum_k cb[k, q] * V[hb[k], row, q, t]`` for ``k < m`` and the slots ``lo .. hi``,
    every prime ``q``: one term of a convolution over the degrees, four vectors a sweep (``acc`` is
    read and written once per four products). The slices run from 0, so that numba's loops need no
    negative-index wraparound and LLVM vectorises them; ``cb`` is ``uint32``, so each product is of two
    zero-extended 32-bit values."""
    for q in range(P):
        a = acc[q, lo:hi]
        w = a.shape[0]
        k = 0
        while k + 4 <= m:
            c0 = np.uint64(cb[k, q])
            c1 = np.uint64(cb[k + 1, q])
            c2 = np.uint64(cb[k + 2, q])
            c3 = np.uint64(cb[k + 3, q])
            v0 = V[hb[k], row, q, lo:hi]
            v1 = V[hb[k + 1], row, q, lo:hi]
            v2 = V[hb[k + 2], row, q, lo:hi]
            v3 = V[hb[k + 3], row, q, lo:hi]
            for t in range(w):
                a[t] += (c0 * np.uint64(v0[t]) + c1 * np.uint64(v1[t])
                         + c2 * np.uint64(v2[t]) + c3 * np.uint64(v3[t]))
            k += 4
        while k < m:
            c0 = np.uint64(cb[k, q])
            v0 = V[hb[k], row, q, lo:hi]
            for t in range(w):
                a[t] += c0 * np.uint64(v0[t])
            k += 1


@jit(inline="always")
def _mod(x, p, pinv):
    """``x % p`` for a ``uint64`` ``x`` and a prime ``2**13 < p < 2**32`` without a division: the
    quotient from ``float64`` is off by at most one (``x``'s and ``1/p``'s rounding move ``x / p`` by
    less than ``3 * 2**11 / p < 1``), so one correction either way gives the remainder."""
    q = np.uint64(np.float64(x) * pinv)
    r = np.int64(x - q * p)
    if r < 0:
        r += np.int64(p)
    elif r >= np.int64(p):
        r -= np.int64(p)
    return np.uint64(r)


@jit
def _solve(plan, lay, n, primes, A, B):
    """Fill ``A`` and ``B`` (axis 2: one residue per prime of ``primes``); return ``(top ends, bad)``,
    ``top`` by end slot and prime, ``bad`` counting hand-backs that found no kept vector (a planning
    bug).

    Per window, the pairs whose ``B`` is not kept are only summed into ``A``: their hand-back
    coefficients (scalars) are summed, by the kept vector they multiply, into the window's series
    ``C[i, e, r]`` (``S2'`` hand-backs to the letter of rank ``r`` after ``e`` letters) and ``C3[i, e]``
    (``R3'``), each term once, when the child's ``A(e)`` is complete; every degree then multiplies
    each kept vector once by that series, instead of once per pair. Their own endings are summed
    likewise: the children's vectors added slot by slot into ``raw``, mapped into ``A`` once per window
    (the end map and ``R1' -> R2``, ``R2' -> R3`` do not depend on the pair; ``S1'`` is renamed per
    pair, since its rank renaming does)."""
    W = lay.width
    even = lay.even
    R = lay.s1.shape[0]
    P = primes.shape[0]
    nw = plan.windows.shape[0]
    pr = np.empty(P, dtype=np.uint64)
    pinv = np.empty(P, dtype=np.float64)
    for q in range(P):
        pr[q] = np.uint64(primes[q])
        pinv[q] = 1.0 / primes[q]
    A[:] = 0
    B[:] = 0
    e0 = lay.ends[0]
    for i in range(nw):
        for q in range(P):
            A[0, i, q, e0] = 1
    acc = np.zeros((P, W), dtype=np.uint64)
    # the maps of a child's endings that do not depend on the pair, by the parity of the degree read
    nmap = lay.end_src.shape[0] + 1
    msrc = np.zeros((2, nmap), dtype=np.int64)
    mdst = np.zeros((2, nmap), dtype=np.int64)
    mlen = np.zeros(2, dtype=np.int64)
    for u in range(lay.end_src.shape[0]):
        par = 1 if lay.end_src[u] >= even else 0
        msrc[par, mlen[par]] = lay.end_src[u]
        mdst[par, mlen[par]] = lay.end_dst[u]
        mlen[par] += 1
    msrc[1, mlen[1]] = lay.r1
    mdst[1, mlen[1]] = lay.r2
    mlen[1] += 1
    msrc[0, mlen[0]] = lay.r2
    mdst[0, mlen[0]] = lay.r3
    mlen[0] += 1
    # the endings of a window's pairs summed into A only, added up before they are mapped
    raw = np.zeros((P, W), dtype=np.uint64)
    acc_a = np.zeros((P, W), dtype=np.uint64)
    # the gathered hand-back coefficients of each window's pairs summed into A, by degree: kept
    # across degrees (a child's A(e) is final once computed), so each is gathered once
    C = np.zeros((nw, n + 1, R, P), dtype=np.uint32)
    C3 = np.zeros((nw, n + 1, P), dtype=np.uint32)
    tmp = np.zeros((R, P), dtype=np.uint64)
    tmp3 = np.zeros(P, dtype=np.uint64)
    cb = np.zeros((n + 2, P), dtype=np.uint32)
    hb = np.zeros(n + 2, dtype=np.int64)
    bad = 0
    for d in range(n):
        h = d >> 1
        h1 = (d + 1) >> 1
        odd = d & 1
        lo, hi = (even, W) if odd == 0 else (0, even)  # slots whose A-parity is that of d + 1
        rlo, rhi = (0, even) if odd == 0 else (even, W)  # slots a child's A(d) holds
        ms = msrc[odd]
        md = mdst[odd]
        ml = mlen[odd]
        for i in range(nw):
            ret = plan.returns[i]
            acc_a[:, lo:hi] = 0
            tmp[:] = 0
            tmp3[:] = 0
            for p in range(plan.p_off[i], plan.p_off[i + 1]):
                mt = plan.p_match[p]
                row = plan.p_store[p]
                if mt != 0:
                    if d != 0:
                        continue  # a match ends the phase at once: nothing at later degrees
                    slot = lay.s1[plan.p_rank[p]] if mt == 1 else lay.r1
                    for q in range(P):
                        if row >= 0:
                            B[0, row, q, slot] = 1
                        if plan.p_deal[p]:
                            acc_a[q, slot] += 1
                    continue
                j = plan.p_child[p]
                if row < 0:  # summed into A only: its own endings, and its hand-backs at degree d
                    for q in range(P):
                        rw = raw[q, rlo:rhi]
                        ch = A[h, j, q, rlo:rhi]
                        for t in range(rw.shape[0]):
                            rw[t] += np.uint64(ch[t])
                    if odd:
                        _renamed(acc_a, A[h, j], lay, plan.p_rinv, p, P)
                        if ret:
                            for q in range(P):
                                tmp3[q] += np.uint64(A[h, j, q, lay.r3])
                    elif d:
                        for x in range(R):
                            sx = lay.s2[x]
                            r = plan.p_rinv[p, x]
                            for q in range(P):
                                tmp[r, q] += np.uint64(A[h, j, q, sx])
                    continue
                acc[:, lo:hi] = 0
                _fixed(acc, A[h, j], ms, md, ml, P)
                if odd:
                    _renamed(acc, A[h, j], lay, plan.p_rinv, p, P)
                for x in range(R):
                    brow = plan.w_brow[i, plan.p_rinv[p, x]]
                    m = _gather(cb, hb, A[:, j, :, lay.s2[x]], 1, 2, d, P)
                    if brow < 0:
                        bad += m
                    else:
                        _conv(acc, cb, hb, m, B, brow, lo, hi, P)
                if ret:
                    m = _gather(cb, hb, A[:, j, :, lay.r3], 1, 1, d, P)
                    _conv(acc, cb, hb, m, A, i, lo, hi, P)
                for q in range(P):
                    pq = pr[q]
                    iq = pinv[q]
                    a = acc[q, lo:hi]
                    out = B[h, row, q, lo:hi]
                    for t in range(a.shape[0]):
                        v = _mod(a[t], pq, iq)
                        a[t] = v
                        out[t] = v
                if plan.p_deal[p]:
                    for q in range(P):
                        for t in range(lo, hi):
                            acc_a[q, t] += acc[q, t]
            for q in range(P):
                for r in range(R):
                    C[i, d, r, q] = tmp[r, q] % pr[q]
                C3[i, d, q] = tmp3[q] % pr[q]
            _fixed(acc_a, raw, ms, md, ml, P)
            raw[:, rlo:rhi] = 0
            # the gathered hand-backs of the pairs summed into A
            for r in range(R):
                brow = plan.w_brow[i, r]
                m = _gather(cb, hb, C[i, :, r, :], 0, 2, d, P)
                if brow < 0:
                    bad += m
                else:
                    _conv(acc_a, cb, hb, m, B, brow, lo, hi, P)
            if ret:
                m = _gather(cb, hb, C3[i], 0, 1, d, P)
                _conv(acc_a, cb, hb, m, A, i, lo, hi, P)
            for q in range(P):
                pq = pr[q]
                iq = pinv[q]
                a = acc_a[q, lo:hi]
                out = A[h1, i, q, lo:hi]
                for t in range(a.shape[0]):
                    out[t] = _mod(np.uint64(out[t]) + _mod(a[t], pq, iq), pq, iq)
    ne = lay.ends.shape[0]
    top = np.zeros((ne, P), dtype=np.int64)
    hn = n >> 1
    for u in range(ne):
        slot = lay.ends[u]
        if (slot >= even) == (n & 1 == 1):  # a slot of another parity holds another degree
            for q in range(P):
                top[u, q] = A[hn, 0, q, slot]
    return top, bad


def table_bytes(plan: Plan, lay: Layout, n: int, primes: int = 1) -> int:
    """Bytes of a job's tables for ``primes`` primes at once: ``A``, the kept ``B`` and the gathered
    coefficient series ``C`` and ``C3`` (``uint32``)."""
    nw = plan.windows.shape[0]
    ranks = lay.s1.shape[0]
    vectors = (nw + max(plan.kept, 1)) * (n // 2 + 1) * lay.width
    series = nw * (n + 1) * (ranks + 1)
    return (vectors + series) * 4 * primes


def solve_job(plan: Plan, lay: Layout, n: int, primes):
    """Residues of one job: ``{prime: (top ends, never)}``, the top window's ``end`` slots at degree
    ``n`` (Python ints in ``[0, prime)``) and the words whose row never empties; every prime in one
    run of the kernel (tables of :func:`table_bytes`)."""
    primes = [int(p) for p in primes]
    bits = prime_bits(n, lay.s1.shape[0])
    require(all(MIN_PRIME < p < 2**bits for p in primes),
            f"the primes of this deck lie between {MIN_PRIME} and 2**{bits}")
    nw = plan.windows.shape[0]
    H = n // 2 + 1
    P = len(primes)
    A = np.zeros((H, nw, P, lay.width), dtype=np.uint32)
    B = np.zeros((H, max(plan.kept, 1), P, lay.width), dtype=np.uint32)
    top, bad = _solve(plan, lay, n, np.array(primes, dtype=np.int64), A, B)
    require(bad == 0, "a hand-back found no kept vector (the plan missed a letter)")
    hn = n >> 1
    out = {}
    for q, prime in enumerate(primes):
        never = 0
        for slot in lay.ends.tolist()[:lay.counted]:
            if (slot >= lay.even) == bool(n & 1):
                never += int(A[hn, 1, q, slot])
        out[prime] = ([int(x) for x in top[:, q]], never % prime)
    return out
