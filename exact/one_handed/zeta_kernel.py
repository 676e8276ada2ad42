"""The zeta-domain phase recursion (:mod:`exact.one_handed.zeta`) over symmetry orbits, modulo a prime, in numba.

Representation (the recursion and the proof that it computes the counts are in
:mod:`exact.one_handed.zeta`):

* Windows are the phase kernel's representatives (:func:`exact.one_handed.primitives.canonical_window`),
  plus the top window twice: with its ``R3'`` hand-backs (the game) and without them (the orders
  whose row never empties, for ``win=any``).
* Points ``X`` (sets of cards outside the window, as bit masks over the whole deck) are kept one per
  orbit of the window's stabiliser (:mod:`exact.one_handed.orbits`): the canonical mask, sorted, one
  array per window and point size. Any other point is read through the relabelling ``tau`` that
  takes it to its canonical form: ``v(X) = tau^-1 v(tau X)``, which renames the ``S1``/``S2`` slots
  (one per rank) by ``rho`` and the card ``a`` of ``B(a, X)`` by ``tau``.
* A vector is ``(half-degree, slot)``. Every slot has one parity of degree (a test checks it on
  the reference's tables): in ``A`` ``end(j)`` lives at degrees ``= j`` mod 2, ``S1, R1, R3`` at odd degrees,
  ``S2, R2`` at even ones; in ``B`` (one card fewer) the other parity. So slot ``t`` at half-degree
  ``h`` stands for degree ``2h + parity(t)``: half the memory and work of a full polynomial. The top
  reads degree ``n``; ``n // 2 + 1`` half-degrees hold it (a uniform cut: see the reference).
* Points are processed by size ``s``: ``A`` of every window at size ``s`` from ``B`` at ``s - 1``,
  then ``B`` of every window at size ``s`` from ``A`` at ``s`` (its own and its children's) and ``B``
  at ``s - 1``. Only two sizes are held. The top's alternating sum is read as its sizes pass.
* Arithmetic is modulo a prime ``p < 2**31`` (products fit in 64 bits); tables hold ``uint32``.
  :mod:`exact.one_handed.zeta_passes` runs one pass per prime and :mod:`exact.one_handed.crt` joins them.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from sim._jit import jit

from exact.invariants import require
from exact.one_handed.orbits import canonical_point
from exact.one_handed.primitives import popcount
from exact.one_handed.zeta_plan import ZetaPlan

#: ZETA_ENGINE_VERSION goes with every stored pass (a pass of another engine version is not reused)
ZETA_ENGINE_VERSION = 1


class Points(NamedTuple):
    """The canonical points of one size, every window's (``int64``): window ``i``'s are the sorted
    masks ``masks[off[i]:off[i + 1]]``; ``boff[o]`` is where point ``o``'s stored ``B(a, X)`` rows start
    (:func:`_b_offsets`; one entry unused before a size's ``A`` is made)."""

    masks: np.ndarray
    off: np.ndarray
    boff: np.ndarray


@jit
def _b_offsets(masks, off, kmask):
    """Where each point's stored ``B(a, X)`` vectors start: one per card of ``kmask`` outside ``X``."""
    boff = np.zeros(masks.shape[0] + 1, dtype=np.int64)
    for i in range(off.shape[0] - 1):
        for o in range(off[i], off[i + 1]):
            boff[o + 1] = boff[o] + popcount(kmask[i] & ~masks[o])
    return boff


@jit
def _find(masks, lo, hi, value):
    """Index of ``value`` in the sorted ``masks[lo:hi]`` (it is there by construction)."""
    while lo < hi:
        mid = (lo + hi) >> 1
        if masks[mid] < value:
            lo = mid + 1
        else:
            hi = mid
    return lo


@jit
def _bit_index(low):
    k = 0
    while low > 1:
        low >>= 1
        k += 1
    return k


@jit
def _b_row(x, a, i, bp_base, prev, z, sym, pi, rho, work, src):
    """Where window ``i``'s ``B^(a, X - a)`` is among the previous size's stored rows (those of ``Bp``,
    from row ``bp_base``; ``prev`` the previous size's :class:`Points`): the row of its canonical
    relabelling; ``src[t]`` is set to the slot of that row which holds slot ``t`` (the relabelling
    moves the rank-indexed S1 and S2 slots). ``pi``, ``rho``, ``work``: scratch of
    :func:`exact.one_handed.orbits.canonical_point`."""
    prev_masks, prev_off, prev_boff = prev.masks, prev.off, prev.boff
    kmask, R, S1, S2, width, S = z.kmask, z.R, z.S1, z.S2, z.width, z.S
    free_s, free_r, n_free_s, n_free_r = sym.free_s, sym.free_r, sym.n_free_s, sym.n_free_r
    small_suits, perms, perm_off = sym.small_suits, sym.perms, sym.perm_off
    c = canonical_point(x ^ (np.int64(1) << a), i, S, R, free_s, free_r, n_free_s, n_free_r, small_suits, perms, perm_off, pi,
               rho, work)
    o = _find(prev_masks, prev_off[i], prev_off[i + 1], c)
    ta = pi[a // R] * R + rho[a % R]
    for t in range(width):
        src[t] = t
    for r in range(R):
        src[S1 + r] = S1 + rho[r]
        src[S2 + r] = S2 + rho[r]
    return prev_boff[o] - bp_base + popcount(kmask[i] & ~c & ((np.int64(1) << ta) - 1))


@jit
def _step_a(s, p, w_lo, w_hi, bp_base, cur, prev, A, Bp, z, sym):
    """``A^(X) = end(0) + z sum_{a in X} B^(a, X - a)`` modulo ``p`` for the canonical points of size
    ``s`` (``cur``, a :class:`Points`) of the windows ``w_lo <= i < w_hi``, into ``A`` (``uint32
    (points, half, width)``), whose ``B`` of size ``s - 1`` is ``Bp`` (row ``bp_base`` first; its points
    ``prev``). ``z``: the plan's :class:`~exact.one_handed.zeta_plan.ZetaArrays`; ``sym``: its windows'
    :class:`~exact.one_handed.orbits.SymmetryArrays`."""
    masks, off = cur.masks, cur.off
    R, S1, R1, par, half, width, p_match, S = z.R, z.S1, z.R1, z.par, z.half, z.width, z.p_match, z.S
    pi = np.zeros(S, dtype=np.int64)
    rho = np.zeros(R, dtype=np.int64)
    work = np.zeros(4 * max(S, R), dtype=np.int64)
    src = np.zeros(width, dtype=np.int64)
    acc = np.zeros((half, width), dtype=np.uint64)
    pp = np.uint64(p)
    for i in range(w_lo, w_hi):
        for o in range(off[i], off[i + 1]):
            x = masks[o]
            acc[:, :] = 0
            acc[0, 0] = 1  # end(0) at the empty set: its transform is 1 at every point
            rest = x
            while rest:
                low = rest & -rest
                rest ^= low
                a = _bit_index(low)
                if p_match[i, a] == 1:  # B(a, .) is the constant S1(a) (degree 0)
                    acc[0, S1 + a % R] += np.uint64(1)
                    continue
                if p_match[i, a] == 2:
                    acc[0, R1] += np.uint64(1)
                    continue
                la = _b_row(x, a, i, bp_base, prev, z, sym, pi, rho, work, src)
                for h in range(half):
                    for t in range(width):
                        v = np.uint64(Bp[la, h, src[t]])
                        if v == 0:
                            continue
                        hh = h + 1 - par[t]
                        if hh < half:
                            w = acc[hh, t] + v  # both below p
                            acc[hh, t] = w - pp if w >= pp else w
            for h in range(half):
                for t in range(width):
                    A[o, h, t] = np.uint32(acc[h, t])


@jit
def _step_b(s, p, w_lo, w_hi, bp_base, bc_base, cur, prev, A, Bp, Bc, z, sym):
    """``B^(a, X)`` modulo ``p`` for every window's canonical points ``X`` of size ``s`` (``cur``, a
    :class:`Points` with its ``boff``) and every card ``a`` outside the window and ``X``, for the windows
    ``w_lo <= i < w_hi``: their ``B`` of size ``s - 1`` is ``Bp`` (row ``bp_base`` first; points
    ``prev``), of size ``s`` goes to ``Bc`` (row ``bc_base`` first); ``A`` is every window's (a card
    dealt moves the play to another window). ``z``, ``sym`` as for :func:`_step_a`."""
    masks, off, boff = cur.masks, cur.off, cur.boff
    kmask, returns, n, R, S1, S2, R1 = z.kmask, z.returns, z.n, z.R, z.S1, z.S2, z.R1
    par, half, width, S = z.par, z.half, z.width, z.S
    end_src, end_dst = z.end_src, z.end_dst
    p_child, p_match, p_sigma, p_term, p_ret = z.p_child, z.p_match, z.p_sigma, z.p_term, z.p_ret
    free_s, free_r, n_free_s, n_free_r = sym.free_s, sym.free_r, sym.n_free_s, sym.n_free_r
    small_suits, perms, perm_off = sym.small_suits, sym.perms, sym.perm_off
    pi = np.zeros(S, dtype=np.int64)
    rho = np.zeros(R, dtype=np.int64)
    pi3 = np.zeros(S, dtype=np.int64)
    rho3 = np.zeros(R, dtype=np.int64)
    work = np.zeros(4 * max(S, R), dtype=np.int64)
    csrc = np.zeros(width, dtype=np.int64)
    bsrc = np.zeros(width, dtype=np.int64)
    out = np.zeros((half, width), dtype=np.uint64)
    cvec = np.zeros((half, width), dtype=np.uint64)
    # contiguous factors of the products (entries below p < 2**31, so each product is one 32x32 -> 64
    # multiply): A^(X) of this window shifted by each slot's parity, and the relabelled B rows
    ashift = np.zeros((half, width), dtype=np.uint32)
    bvec = np.zeros((n, half, width), dtype=np.uint32)  # by card a', for the point under way
    seen = np.full(n, -1, dtype=np.int64)  # the point whose B^(a', X - a') bvec[a'] holds
    pp = np.uint64(p)
    lim = (np.uint64(2**63) // pp) * pp  # the largest multiple of p up to 2**63
    R2 = R1 + 1
    R3 = R1 + 2
    for i in range(w_lo, w_hi):
        for o in range(off[i], off[i + 1]):
            x = masks[o]
            outside = kmask[i] & ~x  # B(a, .) of a card matching w1 is a constant, not stored
            la = boff[o] - bc_base - 1
            if returns[i] and outside:
                # ashift[h, t] = A[o, h - par[t], t]: the R3' product lands at half-degree hi + h
                for t in range(width):
                    ashift[0, t] = A[o, 0, t] if par[t] == 0 else np.uint32(0)
                for h in range(1, half):
                    for t in range(width):
                        ashift[h, t] = A[o, h - par[t], t]
            while outside:
                low = outside & -outside
                outside ^= low
                a = _bit_index(low)
                la += 1  # where B(a, X) goes
                out[:, :] = 0
                j = p_child[i, a]
                px = np.int64(0)
                rest = x
                while rest:
                    lb = rest & -rest
                    rest ^= lb
                    px |= np.int64(1) << p_sigma[i, a, _bit_index(lb)]
                c = canonical_point(px, j, S, R, free_s, free_r, n_free_s, n_free_r, small_suits, perms, perm_off, pi, rho,
                           work)
                oc = _find(masks, off[j], off[j + 1], c)
                for t in range(width):
                    csrc[t] = t
                for r in range(R):
                    csrc[S1 + r] = S1 + rho[r]
                    csrc[S2 + r] = S2 + rho[r]
                for h in range(half):
                    for t in range(width):
                        cvec[h, t] = np.uint64(A[oc, h, csrc[t]])
                # the child's other endings, read for this window (same half-degree: see the docstring)
                for h in range(half):
                    for u in range(end_src.shape[0]):
                        out[h, end_dst[u]] = (out[h, end_dst[u]] + cvec[h, end_src[u]]) % pp
                    for r in range(R):
                        d = p_term[i, a, r]
                        if d >= 0:
                            out[h, S2 + d] = (out[h, S2 + d] + cvec[h, S1 + r]) % pp
                    out[h, R2] = cvec[h, R1]
                    out[h, R3] = cvec[h, R2]
                if returns[i]:
                    # R3' (odd degrees) times A^(X) of this window
                    for hi in range(half):
                        cr = np.uint64(np.uint32(cvec[hi, R3]))
                        if cr == 0:
                            continue
                        for k in range(half - hi):
                            for t in range(width):
                                # lazy reduction: out stays below lim + p**2 < 2**64
                                w = out[hi + k, t] + cr * np.uint64(ashift[k, t])
                                out[hi + k, t] = w - lim if w >= lim else w
                for r in range(R):
                    a2 = p_ret[i, a, r]
                    if a2 < 0:
                        continue
                    any_nz = False
                    for hi in range(half):
                        if cvec[hi, S2 + r] != 0:
                            any_nz = True
                    if not any_nz:
                        continue
                    b2 = np.int64(1) << a2
                    if x & b2 == 0:
                        continue  # S2'(a') is supported on sets holding a' (see the reference)
                    if p_match[i, a2] != 0:  # B(a', .) is the constant S1(a') or R1 at degree 0
                        tc = S1 + a2 % R if p_match[i, a2] == 1 else R1
                        for hi in range(half):
                            out[hi, tc] = (out[hi, tc] + cvec[hi, S2 + r]) % pp
                        continue
                    if seen[a2] != o:  # B^(a', X - a') relabelled: the same for every card a of this X
                        seen[a2] = o
                        la2 = _b_row(x, a2, i, bp_base, prev, z, sym, pi3, rho3, work, bsrc)
                        for k in range(half):
                            for t in range(width):
                                bvec[a2, k, t] = Bp[la2, k, bsrc[t]]
                    for hi in range(half):
                        cs = np.uint64(np.uint32(cvec[hi, S2 + r]))
                        if cs == 0:
                            continue
                        for k in range(half - hi):
                            for t in range(width):
                                w = out[hi + k, t] + cs * np.uint64(bvec[a2, k, t])
                                out[hi + k, t] = w - lim if w >= lim else w
                for h in range(half):
                    for t in range(width):
                        w = out[h, t]
                        Bc[la, h, t] = np.uint32(w % pp if w >= pp else w)


def zeta_pass(suits: int, ranks: int, prime: int, *, plan: ZetaPlan | None = None, progress=None,
              stats: dict | None = None, checkpoint=None):
    """One pass modulo ``prime``: (the top's ``end`` values mod p, never-returning orders mod p); the
    ``end`` values are the counts by score, or the core mode's five sums (the plan's mode:
    :func:`exact.one_handed.zeta_plan.end_slots`).

    ``checkpoint``: an :class:`exact.checkpoint.StepCheckpoint`; the tables of the last set size and
    the sums so far are saved there after each set size, and a saved state is resumed from the next."""
    require(2 < prime < 2**31, "the zeta kernel needs a prime below 2**31 (products in 64 bits)")
    plan = plan if plan is not None else ZetaPlan(suits, ranks)
    z, sym = plan.arrays(), plan.groups.arrays()
    no_boff = np.zeros(1, dtype=np.int64)  # a size's B offsets are made after its A
    n = plan.n
    half, width = plan.half, plan.width
    ne = plan.S1  # the end slots come first
    ends = [0] * ne
    never = 0
    nw = len(plan.reps)
    prev_masks = np.zeros(0, dtype=np.int64)
    prev_off = np.zeros(nw + 1, dtype=np.int64)
    # B of the previous set size, one array per window: a window's B of size s - 1 is read only by
    # that window's A and B of size s, so it is freed as soon as its B of size s is made
    Bp = [np.zeros((0, half, width), dtype=np.uint32) for _ in range(nw)]
    prev_boff = np.zeros(1, dtype=np.int64)
    points = 0
    peak = 0
    start = 0
    saved = checkpoint.load() if checkpoint is not None else None
    if saved is not None:
        state, arrays = saved
        start, ends, never = int(state["s"]), [int(e) for e in state["ends"]], int(state["never"])
        points, peak = int(state["points"]), int(state["peak"])
        prev_masks, prev_off, prev_boff = arrays["prev_masks"], arrays["prev_off"], arrays["prev_boff"]
        Bp = [arrays[f"B{i}"] for i in range(nw)]
        if progress is not None:
            progress(start, n + 1, points)
    for s, masks, off in plan.layers():
        if s < start:
            continue  # done before the saved state
        A = np.zeros((len(masks), half, width), dtype=np.uint32)
        held = A.nbytes + sum(b.nbytes for b in Bp)
        peak = max(peak, held)
        for i in range(nw):
            _step_a(s, prime, i, i + 1, int(prev_boff[prev_off[i]]), Points(masks, off, no_boff),
                    Points(prev_masks, prev_off, prev_boff), A, Bp[i], z, sym)
        # the top's alternating sum at degree n (half-degree n // 2, end slots of n's parity)
        sign = -1 if (n - s) & 1 else 1
        weights = plan.top_weights(s, masks, off)
        read = [u for u in range(ne) if plan.par[u] == n & 1]
        for i in (0, 1):
            for o in range(int(off[i]), int(off[i + 1])):
                size = weights[i][o - int(off[i])] % prime
                row = A[o, n // 2]
                if i == 0:
                    for u in read:
                        ends[u] = (ends[u] + sign * size * int(row[u])) % prime
                else:
                    never = (never + sign * size * sum(int(row[u]) for u in read if u < plan.counted)) % prime
        boff = _b_offsets(masks, off, plan.kmask)
        Bc = []
        for i in range(nw):
            lo, hi = int(boff[off[i]]), int(boff[off[i + 1]])
            Bc.append(np.zeros((hi - lo if s < n else 0, half, width), dtype=np.uint32))
            peak = max(peak, held + Bc[-1].nbytes)
            if s < n:
                _step_b(s, prime, i, i + 1, int(prev_boff[prev_off[i]]), lo, Points(masks, off, boff),
                        Points(prev_masks, prev_off, prev_boff), A, Bp[i], Bc[i], z, sym)
            held += Bc[i].nbytes - Bp[i].nbytes
            Bp[i] = None  # this window's B of size s - 1 is read no more
        points += len(masks)
        del A  # not read by the next size: freed before that size's table is allocated
        Bp, prev_masks, prev_off, prev_boff = Bc, masks, off, boff
        del Bc
        if progress is not None:
            progress(s + 1, n + 1, points)
        if checkpoint is not None:
            checkpoint.step(s + 1, n + 1, lambda s=s: (
                {"s": s + 1, "ends": ends, "never": never, "points": points, "peak": peak},
                {"prev_masks": prev_masks, "prev_off": prev_off, "prev_boff": prev_boff,
                 **{f"B{i}": b for i, b in enumerate(Bp)}}))
    if stats is not None:
        stats.update(windows=len(plan.reps), orbit_points=points, peak_table_bytes=peak)
    return ends, never
