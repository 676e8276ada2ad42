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

import numpy as np

from sim._jit import jit

from exact.one_handed.primitives import drop, map_mask, next_same_size


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
def _hand_back(vec, C, yb, rest, nmj2, p_ret, p, A, a_base, Bst, b_base, half, b_bits, g, width, c_s2, c_r1,
               b_short):
    """One first part's hand-backs (the child's vector at ``C[yb:]``): its ``R3`` count times our
    ``A`` over ``rest``, its ``S2(y)`` counts times our kept ``B(y)`` over ``rest``. With
    ``b_short = (B16, b_idx, lo_base, n_lo, split)``, ``split != 0``, the kept vectors are in two
    arrays (the position engine's :func:`exact.one_handed.odds_phase._short_index`): ``b_idx[r]`` of
    a set ``r`` (``y``'s bit dropped) is ``-1 - i`` for a set of at most ``SHORT_SET_CARDS`` cards, row
    ``i`` of ``B16[lo_base + slot * n_lo * width:]`` (``uint16``), else its row in ``Bst`` (``half``
    rows a slot)."""
    B16, b_idx, lo_base, n_lo, split = b_short
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
def pair_vector(vec, own, shift, fc, match, s1_slot, p, CA, c_base, c_ret, c_rbase, nmj1, nmj2, p_term, p_ret, p_inv,
                 A, a_base, Bst, b_base, half, b_bits, g, layout, c_layout, CF, c_apart, b_short):
    """The endings of state ``B(a)`` of a window over the set ``own`` (the cards after ``a``, in the
    window's coordinates; ``shift`` its size's parity; ``fc`` the same set in its child's
    ``(w2, w3, a)``), written into ``vec``: the child's ``end(j)`` at ``j // 2`` is our ``end(j + 1)``
    at ``(j + 1) // 2``, one slot further for an odd set.

    Vectors are laid out (``layout = (width, s1, s2, r1)``) as ``end`` slots (``s1`` of them), ``S1``
    slots from ``s1``, ``S2`` slots from ``s2``, then ``R1, R2, R3`` from ``r1``, in ``width`` entries;
    the child's vectors in its own ``c_layout`` (the whole-deck kernel passes one layout for all
    windows; the position engine gives each group ``end`` slots for its own largest set, so a child
    may have fewer than we do, never a nonzero count beyond ours).
    ``match`` is ``a`` against ``w1``: 1 two-type (``S1(a)`` in slot ``s1_slot``), 2 four-type
    (``R1``), 0 none. Otherwise the child's table ``CA[c_base + set * c_width]`` is read through the
    pair's maps: its ``end(j)`` is our ``end(j + 1)``, its ``S1(y)`` our ``S2(y)`` (``p_term``), its
    ``R1, R2`` our ``R2, R3``; its ``R3`` and ``S2(y)`` on a first part hand back to state ``A`` and
    ``B(y)`` (``p_ret``) of this window over the rest (``A[a_base + rest * width]``, the kept
    ``Bst[b_base + (slot * half + rest without y's bit b_bits[g, slot]) * width]``; ``p_ret <= -2``: a
    ``B(y)`` that is not kept because ``y`` matches ``w1`` and the phase ends at once, its one count
    in slot ``-2 - p_ret`` over the empty rest), summed over the
    first parts that hand back (``c_ret[c_rbase + part]``), enumerated in the child's coordinates and
    mapped back by ``p_inv[p]``. With ``c_apart = (c_fbase, c_full)``, ``c_full >= 0``, the child's row
    of its whole universe (mask ``c_full``) is not in ``CA`` but at ``CF[c_fbase:]`` (the position
    engine keeps that one row ``uint64`` beside ``uint32`` tables); it can only be ``fc`` itself, the
    first part visited (arguments are packed in tuples: a call of more than 30 arguments compiles to
    ``*args``, which numba does not inline). Both exact engines
    (whole decks here, positions in :mod:`exact.one_handed.odds_phase`) fill their tables with it.
    The tables may be ``uint32`` where every count fits (each reads as ``uint64``; ``vec`` is
    ``uint64``); ``b_short`` (:func:`_hand_back`) says where the position engine keeps the kept
    ``B`` rows over short sets (``uint16``, apart), ``split = 0`` that every kept row is in ``Bst``
    (the whole-deck kernel). Returns the first parts visited."""
    width, s1, s2, r1 = layout
    c_width, c_s1, c_s2, c_r1 = c_layout
    c_fbase, c_full = c_apart
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
                _hand_back(vec, CF, c_fbase, own ^ map_mask(p_inv, p, sub), nmj2, p_ret, p, A, a_base, Bst, b_base,
                           half, b_bits, g, width, c_s2, c_r1, b_short)
            sub = (sub - 1) & fc
    else:
        _child_head(vec, CA, c_base + fc * c_width, shift, c_s1, s1, nmj1, p_term, p, s2, r1, c_r1)
    while sub:
        visited += 1
        if c_ret[c_rbase + sub] == 0:  # no R3 nor S2 ending: nothing comes back to this window
            sub = (sub - 1) & fc
            continue
        _hand_back(vec, CA, c_base + sub * c_width, own ^ map_mask(p_inv, p, sub), nmj2, p_ret, p, A, a_base, Bst,
                   b_base, half, b_bits, g, width, c_s2, c_r1, b_short)
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
