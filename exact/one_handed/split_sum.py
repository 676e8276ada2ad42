"""The split sum of the phase recursion, jitted: the one step both dense phase engines repeat.

For a window ``W = (w1, w2, w3)`` and a first card ``a`` dealt on it, state ``B(a)`` of ``W`` over a
set ``C'`` of cards is the child window ``(w2, w3, a)``'s phase over a first part of ``C'``, read for
``W``, followed by whatever that ending hands back to ``W`` over the rest (:mod:`exact.one_handed.phase`
derives it). :func:`pair_vector` computes that vector for one (window, first card, set), reading the
child's finished table and this window's tables over smaller sets; :func:`store_pair` adds it into
``A`` and keeps it where a later ``S2`` hands back to it; :func:`mark_returns` (with
:func:`hands_back`) marks the child sets whose vector hands anything back, the only first parts the
split sum visits.

Two engines fill their tables with these: the whole-deck phase kernel
(:mod:`exact.one_handed.phase_kernel`) and the position-odds engine
(:mod:`exact.one_handed.odds_phase_kernel`). Vectors are laid out as in
:mod:`exact.one_handed.phase_kernel`: ``end`` slots, then ``S1`` slots, ``S2`` slots, then ``R1, R2,
R3``; a layout is the tuple ``(width, s1, s2, r1)`` of the vector's length and where each part starts.
Tables may be ``uint32`` (or ``uint16`` for the position engine's short kept rows) where every count
fits; every read is widened to ``uint64``.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from sim._jit import jit

from exact.one_handed.primitives import drop, map_mask, next_same_size


class PairMaps(NamedTuple):
    """The maps of a group's pairs (a window and a first card ``a`` dealt on it), one row per pair ``p``;
    ``mates`` is the most suit mates a window has in its universe (at least 1)."""

    #: ``int64 (pairs, mates)``: the child's ``S1`` slot ``t`` -> our ``S2`` slot (``-1``: none)
    term: np.ndarray
    #: ``int64 (pairs, mates)``: the child's ``S2(y)`` slot ``t`` -> our kept ``B(y)`` slot; ``-1``:
    #: none (``y`` is ``w1``'s suit mate); ``<= -2``: ``B(y)`` is not kept because ``y`` matches ``w1``
    #: and the phase ends at once, its one count in slot ``-2 - term`` over the empty rest
    ret: np.ndarray
    #: ``(pairs, chunks, 256)`` (``int64`` or ``int32``): a set of the child's universe -> ours, by
    #: :func:`exact.one_handed.primitives.map_mask`
    inv: np.ndarray


class ChildTables(NamedTuple):
    """The finished tables of a pair's child window, as the split sum reads them."""

    #: the child group's ``A`` tables, flat: the vector of set ``C`` at ``A[base + C * layout[0]:]``
    A: np.ndarray
    base: int
    #: the child group's hand-back marks (``uint8``): nonzero at ``ret[rbase + C]`` where the child's
    #: vector over ``C`` has an ``R3`` or ``S2`` ending (:func:`mark_returns`)
    ret: np.ndarray
    rbase: int
    #: the child's ``S1`` and ``S2`` slot counts
    nm1: int
    nm2: int
    #: the child's vector layout ``(width, s1, s2, r1)``
    layout: tuple
    #: where the child's row of its whole universe is kept apart (``uint64``, the position engine),
    #: at ``AF[f_base:]``; ``full`` that set's mask, ``-1`` when every row is in ``A``
    AF: np.ndarray
    f_base: int
    full: int


class OwnTables(NamedTuple):
    """The tables of the window being filled (window ``g`` of its group), read over smaller sets."""

    #: ``A`` flat: the vector over set ``C`` at ``A[a_base + C * layout[0]:]``
    A: np.ndarray
    a_base: int
    #: the kept ``B(y)`` vectors: slot ``d`` over set ``r`` (``y``'s bit dropped) at
    #: ``B[b_base + (d * half + r) * layout[0]:]``
    B: np.ndarray
    b_base: int
    half: int
    #: ``int64 (windows, mates)``: the universe bit of each kept ``B`` slot's card
    b_bits: np.ndarray
    g: int
    #: this window's vector layout ``(width, s1, s2, r1)``
    layout: tuple
    #: kept rows over short sets apart (the position engine, ``split != 0``): ``b_idx[r]`` (``int32``,
    #: over the sets ``r``) is ``-1 - i`` for a set of at most ``SHORT_SET_CARDS`` cards, row ``i`` of
    #: ``B16[lo_base + slot * n_lo * width:]`` (``uint16``), else its row in ``B`` (``half`` rows a slot)
    B16: np.ndarray
    b_idx: np.ndarray
    lo_base: int
    n_lo: int
    split: int


@jit(inline="always")
def _child_head(vec, C, cb, shift, c_s1, s1, nmj1, p_term, p, s2, r1, c_r1):
    """The child's own endings over the whole set (its vector at ``C[cb:]``) read into ours: its
    ``end(j)`` (slot ``t``) our ``end(j + 1)`` (slot ``t + shift``), its ``S1(y)`` our ``S2(y)``, its
    ``R1, R2`` our ``R2, R3``."""
    for t in range(min(c_s1, s1 - shift)):
        vec[t + shift] += np.uint64(C[cb + t])
    for t in range(nmj1):
        d = p_term[p, t]
        if d >= 0:
            vec[s2 + d] += np.uint64(C[cb + c_s1 + t])
    vec[r1 + 1] += np.uint64(C[cb + c_r1])
    vec[r1 + 2] += np.uint64(C[cb + c_r1 + 1])


@jit(inline="always")
def _hand_back(vec, C, yb, rest, nmj2, p_ret, p, here, c_s2, c_r1):
    """One first part's hand-backs (the child's vector at ``C[yb:]``): its ``R3`` count times our
    ``A`` over ``rest``, its ``S2(y)`` counts times our kept ``B(y)`` over ``rest`` (``here``, an
    :class:`OwnTables`; with ``here.split``, the kept rows over short sets are read from ``B16``)."""
    A, a_base, Bst, b_base, half, b_bits, g = here.A, here.a_base, here.B, here.b_base, here.half, here.b_bits, here.g
    width = here.layout[0]
    B16, b_idx, lo_base, n_lo, split = here.B16, here.b_idx, here.lo_base, here.n_lo, here.split
    c = np.uint64(C[yb + c_r1 + 2])
    if c:
        src = a_base + rest * width
        for t in range(width):
            vec[t] += c * np.uint64(A[src + t])
    for t in range(nmj2):
        c = np.uint64(C[yb + c_s2 + t])
        d = p_ret[p, t]
        if c and d >= 0:  # d == -1: w1's suit mate, never in a set of this window
            r = drop(rest, b_bits[g, d])
            if split:
                r = b_idx[r]
                if r < 0:
                    src = lo_base + (d * n_lo - 1 - r) * width
                    for u in range(width):
                        vec[u] += c * np.uint64(B16[src + u])
                    continue
            src = b_base + (d * half + r) * width
            for u in range(width):
                vec[u] += c * np.uint64(Bst[src + u])
        elif c and d <= -2 and rest == 0:  # a B(y) not kept: it ends at once, in slot -2 - d
            vec[-2 - d] += c


@jit(inline="always")
def pair_vector(vec, own, shift, fc, match, s1_slot, p, maps, child, here):
    """The endings of state ``B(a)`` of a window over the set ``own`` (the cards after ``a``, in the
    window's coordinates; ``shift`` its size's parity; ``fc`` the same set in its child's
    ``(w2, w3, a)``), written into ``vec`` (``uint64``, at least ``here.layout[0]`` long): the child's
    ``end(j)`` at ``j // 2`` is our ``end(j + 1)`` at ``(j + 1) // 2``, one slot further for an odd set.
    Returns the first parts visited.

    ``p`` is the pair (window ``here.g`` and first card ``a``), ``maps`` the group's
    :class:`PairMaps`, ``child`` the pair's child's :class:`ChildTables`, ``here`` this window's
    :class:`OwnTables`. Vectors are laid out (``layout = (width, s1, s2, r1)``) as ``end`` slots
    (``s1`` of them), ``S1`` slots from ``s1``, ``S2`` slots from ``s2``, then ``R1, R2, R3`` from
    ``r1``, in ``width`` entries; the child's vectors in its own layout (the whole-deck kernel has one
    layout for all windows; the position engine gives each group ``end`` slots for its own largest
    set, so a child may have fewer than we do, never a nonzero count beyond ours).

    ``match`` is ``a`` against ``w1``: 1 two-type (``S1(a)`` in slot ``s1_slot``), 2 four-type
    (``R1``), 0 none. Otherwise the child's vectors are read through the pair's maps: its ``end(j)`` is
    our ``end(j + 1)``, its ``S1(y)`` our ``S2(y)`` (``maps.term``), its ``R1, R2`` our ``R2, R3``; its
    ``R3`` and ``S2(y)`` on a first part hand back to state ``A`` and ``B(y)`` (``maps.ret``) of this
    window over the rest, summed over the first parts that hand back (``child.ret``), enumerated in
    the child's coordinates and mapped back by ``maps.inv``. The child's row of its whole universe,
    where it is kept apart (``child.full >= 0``), can only be ``fc`` itself, the first part visited.
    The tables may be ``uint32`` (or ``uint16``) where every count fits; each reads as ``uint64``."""
    p_term, p_ret, p_inv = maps.term, maps.ret, maps.inv
    CA, c_base, c_ret, c_rbase, nmj1, nmj2 = child.A, child.base, child.ret, child.rbase, child.nm1, child.nm2
    CF, c_fbase, c_full = child.AF, child.f_base, child.full
    width, s1, s2, r1 = here.layout
    c_width, c_s1, c_s2, c_r1 = child.layout
    for t in range(width):
        vec[t] = 0
    if match == 1:
        if own == 0:
            vec[s1 + s1_slot] = 1
        return 0
    if match == 2:
        if own == 0:
            vec[r1] = 1
        return 0
    visited = 0
    sub = fc  # the child's first part, enumerated in its own coordinates
    if fc == c_full:
        _child_head(vec, CF, c_fbase, shift, c_s1, s1, nmj1, p_term, p, s2, r1, c_r1)
        if sub:
            visited += 1
            if c_ret[c_rbase + sub] != 0:
                _hand_back(vec, CF, c_fbase, own ^ map_mask(p_inv, p, sub), nmj2, p_ret, p, here, c_s2, c_r1)
            sub = (sub - 1) & fc
    else:
        _child_head(vec, CA, c_base + fc * c_width, shift, c_s1, s1, nmj1, p_term, p, s2, r1, c_r1)
    while sub:
        visited += 1
        if c_ret[c_rbase + sub] == 0:  # no R3 nor S2 ending: nothing comes back to this window
            sub = (sub - 1) & fc
            continue
        _hand_back(vec, CA, c_base + sub * c_width, own ^ map_mask(p_inv, p, sub), nmj2, p_ret, p, here, c_s2, c_r1)
        sub = (sub - 1) & fc
    return visited


@jit(inline="always")
def store_pair(vec, A, a_dst, Bst, b_dst, width):
    """Add a ``B(a)`` vector into ``A`` of the set with ``a`` (``A[a_dst:]``) and keep it at ``Bst[b_dst:]``
    (``b_dst < 0``: ``a`` is not kept, no later ``S2`` hands back to it). ``uint32`` tables are
    stored into only where every count of their sets fits (the caller's bound)."""
    for t in range(width):
        A[a_dst + t] += vec[t]
    if b_dst >= 0:
        for t in range(width):
            Bst[b_dst + t] = vec[t]

@jit(inline="always")
def hands_back(A, base, s2, r1, nm2):
    """1 where the vector at ``A[base:]`` has an ``R3`` or ``S2`` ending (a first part a parent's split
    sum reads, :func:`mark_returns`), else 0."""
    if A[base + r1 + 2] != 0:
        return 1
    for t in range(nm2):
        if A[base + s2 + t] != 0:
            return 1
    return 0


@jit
def mark_returns(k, A, ret, usize, a_off, r_off, cap, nm2, widths, s2s, r1s, first):
    """``ret[W][C] = 1`` where ``A[W][C]`` has an ``R3`` or ``S2`` ending, for the sets of size ``k``
    of the windows ``first ..`` (those whose tables reach size ``k``: ``k <= cap``; each window's
    vectors laid out by ``widths``, ``s2s``, ``r1s``). Only these
    first parts are read by a parent's split sum (:func:`pair_vector`)."""
    for i in range(first, usize.shape[0]):
        nb = usize[i]
        if k > nb or k > cap[i]:
            continue
        m = (np.int64(1) << k) - 1
        limit = np.int64(1) << nb
        while m < limit:
            ret[r_off[i] + m] = hands_back(A, a_off[i] + m * widths[i], s2s[i], r1s[i], nm2[i])
            if k == 0:
                break
            m = next_same_size(m)
