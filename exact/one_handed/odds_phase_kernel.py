"""The position-odds engine's kernels (numba): a group of windows' tables filled layer by layer, the
marks of the first parts that hand back, the sets a parent reads its children over, and the forward
pass that deals the row-level states through a depth's tables.

The engine and its recursion are in :mod:`exact.one_handed.odds_phase`; the groups these kernels fill
(their arrays, built in Python) in :mod:`exact.one_handed.odds_phase_groups`. The split sum itself, one
window and first card over one set, is :func:`exact.one_handed.split_sum.pair_vector`, shared with the
whole-deck phase kernel. Sets are masks over the cards to come (bit ``c`` card ``c``) or over a window's
universe (the cards to come it does not hold, in order).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from sim._jit import jit

from exact.one_handed.primitives import drop, map_mask, next_same_size, popcount
from exact.one_handed.split_sum import (ChildTables, OwnTables, PairMaps, hands_back, mark_returns, pair_vector,
                                         store_pair)

@jit
def _compress(mask, drops, g):
    """``mask`` over the cards to come, read in window ``g``'s universe: the bits of its own cards
    (``drops[g]``, in decreasing order, -1 for none) taken out."""
    for t in range(3):
        d = drops[g, t]
        if d >= 0:
            mask = drop(mask, d)
    return mask


@jit(inline="always")
def _pair_set(p_bits, p, x):
    """The set of pair ``p``'s cards (``p_bits[p]``, cards to come) picked by the bits of ``x``, in the
    cards-to-come coordinates."""
    cset = np.int64(0)
    t = 0
    while x:
        if x & 1:
            cset |= np.int64(1) << p_bits[p, t]
        x >>= 1
        t += 1
    return cset


class GroupTables(NamedTuple):
    """One group of windows for the kernels (:meth:`~exact.one_handed.odds_phase_groups.WindowGroup.tables`): its tables and its pairs' maps.
    ``G`` windows, ``P`` pairs (a window and a first card), ``m`` cards to come, ``M = max(m, 1)``,
    ``K`` chunks of 8 bits; index arrays ``int64`` unless said."""

    #: the ``A`` tables, flat (``uint32`` or ``uint64``): window ``g``'s vector over set ``C`` at
    #: ``A[a_off[g] + C * widths[g]:]``
    A: np.ndarray
    #: the kept ``B(a)`` vectors, flat: slot ``d`` over set ``r`` at ``B[b_off[g] + (d * half + r) * widths[g]:]``
    B: np.ndarray
    #: ``uint8`` hand-back marks, one a set: ``ret[r_off[g] + C]``
    ret: np.ndarray
    #: ``(G,)`` where each window's marks, ``A`` and kept ``B`` start
    r_off: np.ndarray
    a_off: np.ndarray
    b_off: np.ndarray
    #: ``(G, 3)`` the window's own cards among the cards to come (bit positions, decreasing; -1 none)
    drops: np.ndarray
    #: ``(G,)`` the largest set each window's tables reach
    cap: np.ndarray
    #: ``(G,)`` each window's ``S1``, ``S2`` and kept ``B`` slots
    nm1: np.ndarray
    nm2: np.ndarray
    nm3: np.ndarray
    #: ``(G, M)`` the universe bit of each kept ``B`` slot's card
    bpos: np.ndarray
    #: ``(G,)`` cards in each window's universe
    usize: np.ndarray
    #: ``(P,)`` each pair's window and first card (a card to come)
    p_win: np.ndarray
    p_a: np.ndarray
    #: ``(P, M)`` the pair's other cards of the universe (cards to come), ``p_nbits[p]`` of them
    p_bits: np.ndarray
    p_nbits: np.ndarray
    #: ``(P,)`` the child window (in the child group), the match with ``w1`` (0 none, 1 suit, 2
    #: rank), the ``S1`` slot of a suit match, the kept ``B`` slot of the card (-1: not kept)
    p_child: np.ndarray
    p_match: np.ndarray
    p_s1: np.ndarray
    p_b: np.ndarray
    #: ``(P, M)`` slot maps and ``int32 (P, K, 256)`` set maps, as in
    #: :class:`exact.one_handed.split_sum.PairMaps`; ``p_fwd``: a set of cards to come -> the child's universe
    p_term: np.ndarray
    p_ret: np.ndarray
    p_inv: np.ndarray
    p_fwd: np.ndarray
    #: ``end`` slots, common to the group; ``(G,)`` each window's vector width and where its ``S2``
    #: and ``R1`` slots start
    s1: int
    widths: np.ndarray
    s2s: np.ndarray
    r1s: np.ndarray
    #: ``uint64`` rows of the whole universe kept apart: window ``g``'s at ``AF[f_off[g]:]`` where
    #: ``full[g] >= 0`` (that set's mask)
    AF: np.ndarray
    f_off: np.ndarray
    full: np.ndarray
    #: ``uint16`` kept ``B`` rows over short sets (with ``b_split``): ``b_idx`` (``int32``) says which
    #: array and row (:func:`~exact.one_handed.odds_phase_groups.short_index`), ``lo_off`` where each window's start, ``n_lo`` and
    #: ``n_hi`` the rows a slot in each
    B16: np.ndarray
    b_idx: np.ndarray
    lo_off: np.ndarray
    n_lo: int
    n_hi: int
    b_split: int


class ChildGroup(NamedTuple):
    """The finished tables of a group's children, as its split sums read them (the fields of
    :class:`GroupTables` of the same names, :meth:`~exact.one_handed.odds_phase_groups.WindowGroup.child_view`)."""

    A: np.ndarray
    ret: np.ndarray
    r_off: np.ndarray
    a_off: np.ndarray
    nm1: np.ndarray
    nm2: np.ndarray
    s1: int
    widths: np.ndarray
    s2s: np.ndarray
    r1s: np.ndarray
    AF: np.ndarray
    f_off: np.ndarray
    full: np.ndarray


@jit
def fill_layers(grp, child, self_child, vec_width, need, use_need, k_lo, k_hi, p_lo, p_hi, marks):
    """Fill a group of windows' tables (``grp``, a :class:`GroupTables`) by set size: ``A[g][C]`` for
    ``|C| <= cap[g]`` and the kept ``B(a)`` vectors (``a`` of ``w3``'s two-type mates), in ``uint64``
    vectors of ``vec_width``. The children of the pairs are read from ``child`` (a
    :class:`ChildGroup`: complete, or this group's own tables when ``self_child``: the group holds its
    children). The split sum runs over the child's first parts in the child's own coordinates and
    reads only those that hand back (``child.ret``). A pair's child is a window of the child group, perhaps a
    relabelling of it (the windows of three cards to come are shared by orbits, :func:`~exact.one_handed.odds_phase_groups.orbit_representatives`): a
    set of cards to come is read in the child's coordinates through ``p_fwd``, the child's back in
    ours through ``p_inv`` (the relabelling folded into both). Each window's vectors have their own
    layout (``widths``, ``s2s``, ``r1s``: its ``S1`` and ``S2`` slots are its ``w1``'s and ``w2``'s
    mates in its universe), the children's theirs; the ``end`` slots, ``s1`` of them, are common to
    the group (``child.s1`` to the child group). A window whose ``full[g] >= 0`` keeps the row of its
    whole universe (mask ``full[g]``) in ``AF[f_off[g]:]`` (``uint64``) instead of ``A`` (``uint32``),
    its children likewise.

    With ``use_need``, a pair's vector over a set is computed only where ``need`` (laid out like
    ``ret``) marks the set in the window's universe (:func:`~exact.one_handed.odds_phase_groups.needed_sets`; the other rows stay 0 and are
    never read). Only the layers ``k_lo <= k < k_hi`` and the pairs ``p_lo <= p < p_hi`` are filled, and the
    hand-back marks (``ret``) are written only with ``marks``: :meth:`~exact.one_handed.odds_phase_groups.WindowGroup.fill` runs it whole in one
    call, or layer by layer with the pairs of disjoint runs of windows in threads (a window's rows are
    written by its own pairs only; a layer reads only rows of smaller sets, complete before it), the
    marks written between the layers."""
    A, Bst, ret, r_off, a_off, b_off, drops, cap = (grp.A, grp.B, grp.ret, grp.r_off, grp.a_off, grp.b_off, grp.drops,
                                                    grp.cap)
    bpos, usize, p_win, p_a, p_bits, p_nbits = grp.bpos, grp.usize, grp.p_win, grp.p_a, grp.p_bits, grp.p_nbits
    p_child, p_match, p_s1, p_b, p_fwd = grp.p_child, grp.p_match, grp.p_s1, grp.p_b, grp.p_fwd
    s1, widths, s2s, r1s = grp.s1, grp.widths, grp.s2s, grp.r1s
    AF, f_off, full = grp.AF, grp.f_off, grp.full
    B16, b_idx, lo_off, n_lo, n_hi, b_split = grp.B16, grp.b_idx, grp.lo_off, grp.n_lo, grp.n_hi, grp.b_split
    maps = PairMaps(grp.p_term, grp.p_ret, grp.p_inv)
    vec = np.zeros(vec_width, dtype=np.uint64)
    kmax = 0
    for g in range(cap.shape[0]):
        kmax = max(kmax, cap[g])
    for k in range(k_lo, min(k_hi, kmax)):
        if self_child and marks:
            mark_layer(k, grp)
        for p in range(p_lo, p_hi):
            g = p_win[p]
            nb = p_nbits[p]
            if k > nb or k + 1 > cap[g]:
                continue
            if p_match[p] != 0 and k > 0:
                continue  # a matched w1: the phase ended at a, nothing more to count
            j = p_child[p]
            abit = np.int64(1) << p_a[p]
            # rows of a kept B(a) slot: all sets without a's card, or with the short ones apart only the others
            half_g = n_hi if b_split else np.int64(1) << (usize[g] - 1)
            width = widths[g]
            c_view = ChildTables(child.A, child.a_off[j], child.ret, child.r_off[j], child.nm1[j], child.nm2[j],
                                 (child.widths[j], child.s1, child.s2s[j], child.r1s[j]), child.AF, child.f_off[j],
                                 child.full[j])
            here = OwnTables(A, a_off[g], Bst, b_off[g], half_g, bpos, g, (width, s1, s2s[g], r1s[g]), B16, b_idx,
                             lo_off[g], n_lo, b_split)
            cm = (np.int64(1) << k) - 1
            limit = np.int64(1) << nb
            while cm < limit:
                cset = _pair_set(p_bits, p, cm)
                own = _compress(cset, drops, g)
                if use_need and need[r_off[g] + own] == 0:  # no row the play reads is over this set
                    if k == 0:
                        break
                    cm = next_same_size(cm)
                    continue
                fc = map_mask(p_fwd, p, cset) if p_match[p] == 0 else 0
                pair_vector(vec, own, k & 1, fc, p_match[p], p_s1[p], p, maps, c_view, here)
                bs = p_b[p]
                b_dst = -1
                if bs >= 0:
                    r = drop(own, bpos[g, bs])
                    if b_split:
                        r = b_idx[r]
                    if r < 0:  # a set of at most SHORT_SET_CARDS cards: its B row is uint16
                        lo = lo_off[g] + (bs * n_lo - 1 - r) * width
                        for t in range(width):
                            B16[lo + t] = vec[t]
                    else:
                        b_dst = b_off[g] + (bs * half_g + r) * width
                target = _compress(cset | abit, drops, g)
                if target == full[g]:
                    store_pair(vec, AF, f_off[g], Bst, b_dst, width)
                else:
                    store_pair(vec, A, a_off[g] + target * width, Bst, b_dst, width)
                if k == 0:
                    break
                cm = next_same_size(cm)
    if marks and k_hi >= kmax:
        mark_final(grp, self_child)


@jit
def mark_layer(k, grp):
    """The hand-back marks (``grp.ret``) of a group's sets of size ``k`` (``grp`` a :class:`GroupTables`):
    those of its tables (:func:`exact.one_handed.split_sum.mark_returns`) and of the rows kept apart
    (:func:`_mark_full`)."""
    mark_returns(k, grp.A, grp.ret, grp.usize, grp.a_off, grp.r_off, grp.cap, grp.nm2, grp.widths, grp.s2s, grp.r1s, 0)
    _mark_full(k, grp)


@jit
def mark_final(grp, self_child):
    """The hand-back marks not written while the layers filled: every size of a group that is not its
    own child, the largest of one that is (every table is complete now)."""
    kmax = 0
    for g in range(grp.cap.shape[0]):
        kmax = max(kmax, grp.cap[g])
    for k in range(kmax + 1):
        if k == kmax or not self_child:
            mark_layer(k, grp)


@jit
def _mark_full(k, grp):
    """:func:`exact.one_handed.split_sum.mark_returns` for the rows kept in ``grp.AF`` (a window's whole
    universe, ``full[g] >= 0``), of size ``k``."""
    AF, ret, usize, r_off, f_off, full, cap = grp.AF, grp.ret, grp.usize, grp.r_off, grp.f_off, grp.full, grp.cap
    nm2, s2s, r1s = grp.nm2, grp.s2s, grp.r1s
    for g in range(usize.shape[0]):
        if full[g] < 0 or k != usize[g] or k > cap[g]:
            continue
        ret[r_off[g] + full[g]] = hands_back(AF, f_off[g], s2s[g], r1s[g], nm2[g])


@jit
def child_need(need, r_off, drops, p_win, p_bits, p_nbits, p_match, p_child, p_fwd, c_need, c_roff):
    """Mark in ``c_need`` (laid out like the child group's ``ret``) every set over which a parent's
    pair reads its child: for each pair (window ``g``, first card ``a``) and each set ``Y`` of its
    cards that ``need`` marks for ``g``, the child's rows are read at ``Y`` (and its subsets, marked by
    the same rule as the family is closed under subsets) in the child's coordinates (``p_fwd``: the
    relabelling onto its representative folded in). A pair whose first card matches ``w1`` reads no
    child."""
    for p in range(p_win.shape[0]):
        if p_match[p] != 0:
            continue
        g = p_win[p]
        nb = p_nbits[p]
        j = p_child[p]
        for x in range(np.int64(1) << nb):
            cset = _pair_set(p_bits, p, x)
            if need[r_off[g] + _compress(cset, drops, g)]:
                c_need[c_roff[j] + map_mask(p_fwd, p, cset)] = 1


@jit
def deal_forward(i, fA, fB, top, hist, emp, m):
    """Deal the states of depth ``i`` (``fA[i][C]``: prefixes leading to state ``A`` of ``R_i`` with
    ``C`` to come; ``fB[i][t][C]``: to ``B(a)``, ``a`` the ``t``-th mate of ``r_i``) through the
    phase tables of ``R_i`` (window 0 of ``top``, its group's :class:`GroupTables`) into lower depths and
    final scores."""
    A, Bst, a_off, b_off, bpos = top.A, top.B, top.a_off, top.b_off, top.bpos
    usize0, nm1, nm2, nm3 = top.usize[0], top.nm1[0], top.nm2[0], top.nm3[0]
    width, s1, s2, r1 = top.widths[0], top.s1, top.s2s[0], top.r1s[0]
    full = (np.int64(1) << m) - 1
    for state in range(1 + nm3):
        for cset in range(full + 1):
            f = fA[i, cset] if state == 0 else fB[i, state - 1, cset]  # uint64
            if f == 0:
                continue
            n_c = popcount(cset)
            x = cset
            while True:
                # the phase ends at the last card of x (or uses all of cset for end)
                if state == 0:
                    base = a_off[0] + x * width
                else:
                    idx = drop(x, bpos[0, state - 1])
                    base = b_off[0] + ((state - 1) * (np.int64(1) << (usize0 - 1)) + idx) * width
                rest = cset ^ x
                nx = n_c - popcount(rest)
                if rest == 0:
                    # end(j) sits at j // 2; j has the parity of the cards on top of the window
                    par = (nx & 1) if state == 0 else ((nx + 1) & 1)
                    for t in range(s1):
                        v = np.uint64(A[base + t] if state == 0 else Bst[base + t])
                        if v:
                            hist[i + 2 * t + par] += f * v
                for t in range(nm1):
                    v = np.uint64(A[base + s1 + t] if state == 0 else Bst[base + s1 + t])
                    if v:
                        fB[i - 2, t, rest] += f * v
                for t in range(nm2):
                    v = np.uint64(A[base + s2 + t] if state == 0 else Bst[base + s2 + t])
                    if v:
                        fB[i - 1, t, rest] += f * v
                for q in range(3):
                    v = np.uint64(A[base + r1 + q] if state == 0 else Bst[base + r1 + q])
                    if v:
                        target = i - 3 + q
                        fA[target, rest] += f * v
                        if target == 0:
                            emp[popcount(rest)] += f * v
                if x == 0:
                    break
                x = (x - 1) & cset
