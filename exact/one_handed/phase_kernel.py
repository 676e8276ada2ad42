"""The phase recursion of :mod:`exact.one_handed.phase` with dense subset tables, compiled with numba.

Representation (the recursion and its proof are in :mod:`exact.one_handed.phase`):

* Windows are taken up to relabelling of suits and ranks: a window ``(w1, w2, w3)`` (cards, or -1 for
  a sentinel below the bottom of the row) is replaced by its *representative*, suits and ranks
  renamed in order of first appearance, and the relabelling ``sigma`` is applied to the card sets
  too (a relabelling maps games onto games, so ``phase(W, C) = sigma^-1 phase(sigma W, sigma C)``).
* For each representative ``W`` and each set ``C`` of the cards not in ``W`` (a bit mask over those
  cards, in increasing card order) the table ``A[W][C]`` holds the phase's endings as a vector of
  ``uint64``: ``end(j)`` at index ``j // 2`` (``j`` has the parity of ``|C|``), then the ``S1``
  slots (the cards of ``w1``'s suit), the ``S2`` slots (``w2``'s suit), then ``R1, R2, R3``. State
  ``B(a)`` vectors are kept only for the cards ``a`` of ``w3``'s suit (the only ones a later
  ``S2'`` can hand back); the others are added into ``A`` and dropped.
* Tables are filled by the size of the set: the vector of ``B(a)`` over ``C'`` needs the child's
  table on subsets of ``C'`` (complete) and this window's on strictly smaller sets.
* Counts are exact: every entry counts distinct orders of at most ``n`` cards, so it is at most
  ``n! < 2**64`` for ``n <= 20`` (:data:`MAX_PHASE_CARDS`), the top level's too; they become Python
  ints when read out.

The plain game is computed; ``reverse=on`` is the plain game on the transposed deck (suits and
ranks exchanged), see :func:`exact.one_handed.phase.phase_distribution`.
"""
from __future__ import annotations

import numpy as np

from sim._jit import jit

from exact.invariants import require
from exact.one_handed.phase_plan import PhasePlan, build_arrays
from exact.one_handed.primitives import drop, map_mask, next_same_size, popcount
from exact.one_handed.split_sum import ChildTables, OwnTables, PairMaps, mark_returns, pair_vector, store_pair

#: uint64 counts are exact while n! < 2**64, i.e. up to 20 cards
MAX_PHASE_CARDS = 20


@jit
def _copy_relabelled(T, dst, src, g, g_s1, g_s2, nm1, nm2, width, s1, s2):
    """``T[dst:]`` = the vector at ``T[src:]`` read through group element ``g``: the ``end`` and ``R``
    entries as they are, the ``S1``/``S2`` slot of card ``x`` from the slot of ``tau(x)``."""
    for t in range(s1):
        T[dst + t] = T[src + t]
    for t in range(width - 3, width):
        T[dst + t] = T[src + t]
    for t in range(nm1):
        T[dst + s1 + t] = T[src + s1 + g_s1[g, t]]
    for t in range(nm2):
        T[dst + s2 + t] = T[src + s2 + g_s2[g, t]]


@jit
def _layer(k, A, Bst, ret, canon, arr, layout):
    """Fill every window's ``B(a)`` vectors over sets of size ``k`` (and so ``A`` over size ``k + 1``):
    ``A``, ``Bst`` the flat tables, ``ret`` the hand-back marks, ``canon`` each set's canonical form
    (:func:`_canon_tables`), ``arr`` the plan's :class:`~exact.one_handed.phase_plan.PhaseArrays`,
    ``layout`` the vectors' ``(width, s1, s2, r1)``. Returns the number of (set, subset) pairs visited."""
    usize, a_off, b_off, r_off, p_win, p_apos, p_child = (arr.usize, arr.a_off, arr.b_off, arr.r_off, arr.p_win,
                                                          arr.p_apos, arr.p_child)
    p_match, p_s1, p_b, p_chunks, b_bit = arr.p_match, arr.p_s1, arr.p_b, arr.p_chunks, arr.b_bit
    n_mates1, n_mates2 = arr.n_mates1, arr.n_mates2
    width = layout[0]
    maps = PairMaps(arr.p_term, arr.p_ret, arr.p_inv)
    empty16, empty_idx = np.zeros(1, dtype=np.uint16), np.zeros(1, dtype=np.int32)  # every kept B in Bst
    visited = 0
    vec = np.zeros(width, dtype=np.uint64)
    for p in range(p_win.shape[0]):
        i = p_win[p]
        if i == 0:
            continue
        nb = usize[i] - 1  # bits of the sets C' (a's own bit removed)
        if k > nb:
            continue
        j = p_child[p]
        apos = p_apos[p]
        low = (np.int64(1) << apos) - 1
        abit = np.int64(1) << apos
        half_i = np.int64(1) << (usize[i] - 1)  # rows of a kept B(a) table
        # iterate the sets of size k over nb bits (Gosper), then open a gap at a's bit
        m = (np.int64(1) << k) - 1
        limit = np.int64(1) << nb
        while m < limit:
            cset = (m & low) | ((m & ~low) << 1)
            if canon[r_off[i] + (cset | abit)] != (cset | abit):
                # another set of the orbit is computed; _fill copies it here
                if k == 0:
                    break
                m = next_same_size(m)
                continue
            fc = map_mask(p_chunks, p, cset) if p_match[p] == 0 else 0  # the set in the child's coordinates
            child = ChildTables(A, a_off[j], ret, r_off[j], n_mates1[j], n_mates2[j], layout, A, 0, -1)
            here = OwnTables(A, a_off[i], Bst, b_off[i], half_i, b_bit, i, layout, empty16, empty_idx, 0, 0, 0)
            visited += pair_vector(vec, cset, k & 1, fc, p_match[p], p_s1[p], p, maps, child, here)
            bs = p_b[p]  # m is cset without a's bit
            store_pair(vec, A, a_off[i] + (cset | abit) * width, Bst,
                        b_off[i] + (bs * half_i + m) * width if bs >= 0 else -1, width)
            if k == 0:
                break
            m = next_same_size(m)
    return visited


@jit
def _canon_tables(usize, r_off, g_off, g_chunks):
    """For every window and set: the smallest image of the set under the window's stabiliser group and
    the group element that gives it (the identity is element 0 of each group)."""
    canon = np.zeros(r_off[-1], dtype=np.int64)
    tau = np.zeros(r_off[-1], dtype=np.int32)
    for i in range(1, usize.shape[0]):
        for mask in range(np.int64(1) << usize[i]):
            best = mask
            bi = g_off[i]
            for g in range(g_off[i] + 1, g_off[i + 1]):
                m2 = map_mask(g_chunks, g, mask)
                if m2 < best:
                    best = m2
                    bi = g
            canon[r_off[i] + mask] = best
            tau[r_off[i] + mask] = bi
    return canon, tau


@jit
def _fill(k, A, Bst, canon, tau, arr, layout):
    """Copy the computed (canonical) vectors to the other sets of their orbits: ``A`` over sets of
    size ``k + 1``, the kept ``B(a)`` over sets of size ``k``. A relabelling ``tau`` fixing the window
    maps the orders of ``C`` onto those of ``tau C`` and an ending ``S(x)`` onto ``S(tau x)``
    (``tau[set]`` the group element that gives the set's canonical form ``canon[set]``; ``arr`` and
    ``layout`` as for :func:`_layer`)."""
    usize, a_off, b_off, r_off, g_s1, g_s2, g_b, b_bit = (arr.usize, arr.a_off, arr.b_off, arr.r_off, arr.g_s1,
                                                          arr.g_s2, arr.g_b, arr.b_bit)
    n_mates1, n_mates2, n_mates3 = arr.n_mates1, arr.n_mates2, arr.n_mates3
    width, s1, s2, _ = layout
    for i in range(1, usize.shape[0]):
        nb = usize[i]
        rows = np.int64(1) << nb
        ro = r_off[i]
        size = k + 1
        if size <= nb:
            m = (np.int64(1) << size) - 1
            while m < rows:
                c0 = canon[ro + m]
                if c0 != m:
                    g = tau[ro + m]
                    _copy_relabelled(A, a_off[i] + m * width, a_off[i] + c0 * width, g, g_s1, g_s2,
                                     n_mates1[i], n_mates2[i], width, s1, s2)
                m = next_same_size(m)
        if k > nb - 1:
            continue
        for b in range(n_mates3[i]):
            abit = np.int64(1) << b_bit[i, b]
            m = (np.int64(1) << k) - 1
            while m < rows:
                if m & abit == 0:
                    cfull = m | abit
                    c0 = canon[ro + cfull]
                    if c0 != cfull:
                        g = tau[ro + cfull]
                        b2 = g_b[g, b]
                        c2 = c0 & ~(np.int64(1) << b_bit[i, b2])
                        half = rows >> 1
                        _copy_relabelled(Bst, b_off[i] + (b * half + drop(m, b_bit[i, b])) * width,
                                         b_off[i] + (b2 * half + drop(c2, b_bit[i, b2])) * width, g, g_s1,
                                         g_s2, n_mates1[i], n_mates2[i], width, s1, s2)
                if k == 0:
                    break
                m = next_same_size(m)


@jit
def _top(n, A, arr, width, r3, n_end):
    """The all-sentinel top phase over every set ``C`` of the deck: returns (end counts of the whole
    deck as uint64 by j // 2, first-return counts summed by set size).

    ``E(X)`` (orders of ``X`` whose row first empties at the last card) is the child's ``R3`` summed
    over the first card; ``top(C) = T(C) + sum over nonempty X in C of E(X) top(C - X)``, where
    ``T`` is the first card staying for good (the child's ``end``, shifted by one)."""
    a_off, p_win, p_apos, p_child, p_chunks = arr.a_off, arr.p_win, arr.p_apos, arr.p_child, arr.p_chunks
    full = (np.int64(1) << n) - 1
    E = np.zeros(np.int64(1) << n, dtype=np.uint64)
    first = np.zeros(n + 1, dtype=np.uint64)
    top = np.zeros((np.int64(1) << n) * n_end, dtype=np.uint64)
    # pairs of window 0 are (0, a) for every card a, with the card's own bit at position a
    for p in range(p_win.shape[0]):
        if p_win[p] != 0:
            continue
        a = p_apos[p]
        j = p_child[p]
        abit = np.int64(1) << a
        for cset in range(np.int64(1) << n):
            if cset & abit:
                continue
            yb = a_off[j] + map_mask(p_chunks, p, cset) * width
            E[cset | abit] += A[yb + r3]
            shift = popcount(cset) & 1
            dst = (cset | abit) * n_end
            for t in range(n_end - shift):
                top[dst + t + shift] += A[yb + t]
    for x in range(np.int64(1) << n):
        if E[x]:
            first[popcount(x)] += E[x]
    top[0] = 1  # the empty set: end(0)
    for cset in range(1, np.int64(1) << n):
        if (n - popcount(cset)) & 1:
            continue  # never needed: every excursion X has an even number of cards
        dst = cset * n_end
        sub = cset
        while sub:
            e = E[sub]
            if e:
                src = (cset ^ sub) * n_end
                for t in range(n_end):
                    top[dst + t] += e * top[src + t]
            sub = (sub - 1) & cset
    out = np.zeros(n_end, dtype=np.uint64)
    for t in range(n_end):
        out[t] = top[full * n_end + t]
    return out, first


def phase_counts(suits: int, ranks: int, *, progress=None, stats: dict | None = None, checkpoint=None):
    """Score counts (Python ints, index = score) and first-return counts by set size of the plain
    game on ``suits x ranks`` by the dense phase recursion.

    ``checkpoint``: an :class:`exact.checkpoint.StepCheckpoint`; the tables are saved there between
    two set sizes (its :meth:`~exact.checkpoint.StepCheckpoint.step`), and a saved state is resumed
    from the next set size."""
    n = suits * ranks
    require(1 <= n <= MAX_PHASE_CARDS, f"the phase kernel counts in uint64: at most {MAX_PHASE_CARDS} cards")
    plan = PhasePlan(suits, ranks)
    arr = build_arrays(plan)
    A = np.zeros(int(arr.a_off[-1]), dtype=np.uint64)
    Bst = np.zeros(max(int(arr.b_off[-1]), 1), dtype=np.uint64)
    width = plan.width
    layout = (width, plan.S1, plan.S2, plan.R1)
    for i in range(1, len(plan.reps)):
        A[int(arr.a_off[i]) + 0] = 1  # A[W][{}] = end(0)
    ret = np.zeros(int(arr.r_off[-1]), dtype=np.uint8)
    canon, tau = _canon_tables(arr.usize, arr.r_off, arr.g_off, arr.g_chunks)
    nw = len(plan.reps)  # one layout for every window here
    widths, s2s, r1s = (np.full(nw, x, dtype=np.int64) for x in (width, plan.S2, plan.R1))
    visited = 0
    max_k = int(arr.usize[1:].max()) if len(plan.reps) > 1 else 0
    start = 0
    saved = checkpoint.load() if checkpoint is not None else None
    if saved is not None:
        state, arrays = saved
        require(arrays["A"].shape == A.shape and arrays["Bst"].shape == Bst.shape and arrays["ret"].shape == ret.shape,
                "a phase checkpoint's tables have the plan's shapes")
        A, Bst, ret = arrays["A"], arrays["Bst"], arrays["ret"]
        start, visited = int(state["k"]), int(state["visited"])
        if progress is not None:
            progress(start, max_k, visited)
    for k in range(start, max_k):
        # sets of size k are complete in every table: mark where a phase hands back to its parent
        mark_returns(k, A, ret, arr.usize, arr.a_off, arr.r_off, arr.usize, arr.n_mates2, widths, s2s, r1s, 1)
        visited += _layer(k, A, Bst, ret, canon, arr, layout)
        _fill(k, A, Bst, canon, tau, arr, layout)
        if progress is not None:
            progress(k + 1, max_k, visited)
        if checkpoint is not None:
            checkpoint.step(k + 1, max_k, lambda k=k: ({"k": k + 1, "visited": visited},
                                                      {"A": A, "Bst": Bst, "ret": ret}))
    # the top window's pairs: card a's bit is a itself (its universe is the whole deck)
    ends, first = _top(n, A, arr, width, plan.R1 + 2, plan.n_end)
    counts = [0] * (n + 1)
    for t, c in enumerate(ends.tolist()):
        j = 2 * t + (n & 1)
        if j <= n:
            counts[j] = int(c)
        else:
            require(c == 0, "no score above n")
    if stats is not None:
        stats.update(windows=len(plan.reps), pairs=len(plan.pairs), subset_pairs=visited,
                     table_bytes=int(A.nbytes + Bst.nbytes))
    return counts, [int(f) for f in first.tolist()]
