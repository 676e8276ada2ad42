"""The DP's last layers, finished by playing out every order of the few cards left (numba).

Why
---
The forward DP (:mod:`exact.one_handed.dp_kernel`) keeps one entry per reduced state and layer. Its layers grow
until only three to five cards are left (4x4: 3.0e6 states with 6 cards left, 5.2e7 with 3), so
building the last layers is what costs time and memory. A state with ``k`` cards left has only ``k!``
futures: from the layer with ``k`` cards left, each state's future score distribution is computed by
playing all ``k!`` orders of its undealt cards from its (reduced) row, depth first so that a common
prefix is played once (about ``e * k!`` deals per state), and ``count x distribution`` is added into
the answer. Nothing of the last layers is stored.

Exactness: a DP key at layer ``t`` stands for all its prefixes, which share one future (that is what
the key's soundness, proved in :mod:`exact.one_handed.dp`, says); playing that future order by order with the
same settle rule (dead labels match nothing; the frozen offset is added to the final length) counts
exactly what the remaining ``k`` layers would have counted. ``win=any``: a prefix never emptied so
far is won by every future order in which a removal empties the (uncut, offset 0) row.
``final=once``: the last card of every order gets a single check (the chain stops after one removal).
The tests compare this path with the full DP and with plain enumeration for every split point.
"""
from __future__ import annotations

import numpy as np

from sim._jit import jit

from exact.one_handed.settle import REMOVE_BETWEEN, REMOVE_FOUR, _removal
from exact.one_handed.dp_codec import LIMB_BITS, LIMB_MASK, LIMBS, _decode

#: a per-state histogram entry is at most ``k!``; times a 40-bit limb it must stay below 2**63
MAX_FINISH_CARDS = 10


@jit
def _play_out(row_s, row_r, length, us, ur, k, reverse, track_empty, offset, hist, work, final_once):
    """Play every order of the ``k`` undealt cards ``us/ur`` from the row ``row_s/r[:length]``.

    Adds one to ``hist[offset + final length]`` per order; returns the number of orders in which a
    removal emptied the row (counted only when ``track_empty``).

    One shared row, no copies: after a card ``a`` is dealt and settled, the row is a prefix of the
    row before plus (unless a remove-four took it) ``a`` on top, because a remove-two takes the two
    cards just below ``a`` and a remove-four takes ``a`` and the three below it (and ends the chain:
    the card it exposes failed its check before, :mod:`exact.one_handed.dp` lemma 1). So a deal writes at most
    one cell, which is restored on the way back.
    """
    if k == 0:
        hist[offset + length] += 1
        return 0
    lens = work[0]
    next_card = work[1]
    chosen = work[2]
    wpos = work[3]
    saved_s = work[4]
    saved_r = work[5]
    flags = work[6]  # bit 0: emptied so far on this path; bit 1: this depth wrote a cell
    emptied_orders = 0
    used = np.int64(0)
    lens[0] = length
    next_card[0] = 0
    flags[0] = 0
    d = 0
    while d >= 0:
        c = next_card[d]
        while c < k and (used >> c) & 1:
            c += 1
        if c == k:
            d -= 1
            if d >= 0:
                used &= ~(np.int64(1) << chosen[d])
                if flags[d] & 2:
                    row_s[wpos[d]] = saved_s[d]
                    row_r[wpos[d]] = saved_r[d]
            continue
        next_card[d] = c + 1
        sa = us[c]
        ra = ur[c]
        old_len = lens[d]
        pos = old_len  # where the dealt card sits
        removals = 0
        four = False
        once = final_once and d + 1 == k  # the last card: a single check
        while pos >= 3:
            # a dealt label is live; dead (-1) matches nothing
            kind = _removal(row_s[pos - 3] == sa, row_r[pos - 3] == ra, reverse)
            if kind == REMOVE_BETWEEN:
                pos -= 2
                removals += 1
                if once:
                    break
            elif kind == REMOVE_FOUR:
                pos -= 3
                removals += 1
                four = True
                break
            else:
                break
        new_len = pos if four else pos + 1
        if (old_len + 1 - new_len) % 2 != 0:
            raise AssertionError("a removal took neither 2 nor 4 cards")
        emptied = (flags[d] & 1) == 1 or (track_empty and removals > 0 and new_len == 0)
        if d + 1 == k:
            hist[offset + new_len] += 1
            if emptied:
                emptied_orders += 1
            continue
        chosen[d] = c
        used |= np.int64(1) << c
        flag = 0
        if not four:
            wpos[d] = pos
            saved_s[d] = row_s[pos]
            saved_r[d] = row_r[pos]
            row_s[pos] = sa
            row_r[pos] = ra
            flag = 2
        flags[d] = (flags[d] & 1) | flag
        lens[d + 1] = new_len
        flags[d + 1] = 1 if emptied else 0
        next_card[d + 1] = 0
        d += 1
    return emptied_orders


@jit
def _add_scaled(dst, i, src, j, base_src, factor):
    """``dst[i] += src[j, base_src:base_src+LIMBS] * factor`` in limbs (factor < 2**22)."""
    c = np.int64(0)
    for q in range(LIMBS):
        x = dst[i, q] + src[j, base_src + q] * factor + c
        dst[i, q] = x & LIMB_MASK
        c = x >> LIMB_BITS
    if c != 0:
        raise OverflowError("exact count beyond 120 bits")


@jit
def _finish_layer(keys, vals, m, n_s, n_r, bits, per_word, reverse, win_any, final_once):
    """Finish every state of a layer by playing out its futures.

    Returns (score limbs ``[n + 1, LIMBS]``, ``win=any`` win limbs ``[1, LIMBS]``, orders played).
    """
    n = n_s * n_r
    score_limbs = np.zeros((n + 1, LIMBS), dtype=np.int64)
    win_limbs = np.zeros((1, LIMBS), dtype=np.int64)
    rs = np.empty(n + 1, dtype=np.int64)
    rr = np.empty(n + 1, dtype=np.int64)
    us = np.empty(n, dtype=np.int64)
    ur = np.empty(n, dtype=np.int64)
    work = np.empty((7, n + 1), dtype=np.int64)
    hist = np.zeros(n + 1, dtype=np.int64)
    played = np.int64(0)
    for i in range(m):
        key = (keys[i, 0], keys[i, 1], keys[i, 2], keys[i, 3])
        length, k, offset = _decode(key, rs, rr, us, ur, n_s, n_r, bits, per_word)
        for s in range(n + 1):
            hist[s] = 0
        track = win_any and offset == 0
        emptied_orders = _play_out(rs, rr, length, us, ur, k, reverse, track, offset, hist, work, final_once)
        for s in range(n + 1):
            if hist[s] != 0:
                _add_scaled(score_limbs, s, vals, i, 0, hist[s])
                played += hist[s]
        if track and emptied_orders != 0:
            _add_scaled(win_limbs, 0, vals, i, LIMBS, emptied_orders)
    return score_limbs, win_limbs, played


def play_out_distribution(row, undealt, *, reverse: bool, track_empty: bool = False, offset: int = 0,
                          final_once: bool = False):
    """Public wrapper of the play-out: final scores over every order of ``undealt`` dealt onto ``row``.

    Parameters
    ----------
    row : sequence of (suit, rank) label pairs, bottom first, settled (-1 = a dead label)
    undealt : sequence of distinct live (suit, rank) label pairs, the cards still to deal
    reverse : False for the plain game (a suit match removes two), True for ``reverse=on`` (a rank match does)
    track_empty : count the orders in which a removal empties the row (``win=any``)
    offset : added to every final length (the frozen cards cut from the bottom)
    final_once : the last card gets a single check (``final=once``)

    Returns
    -------
    score_counts : list of ints, index = score, summing to ``len(undealt)!``
    emptied_orders : orders in which a removal emptied the row (0 unless ``track_empty``)
    """
    k = len(undealt)
    if k > MAX_FINISH_CARDS:
        raise ValueError(f"at most {MAX_FINISH_CARDS} undealt cards")
    size = offset + len(row) + k + 1
    row_s = np.zeros(size, dtype=np.int64)
    row_r = np.zeros(size, dtype=np.int64)
    for j, (s, r) in enumerate(row):
        row_s[j], row_r[j] = s, r
    us = np.array([s for s, _ in undealt] + [0], dtype=np.int64)
    ur = np.array([r for _, r in undealt] + [0], dtype=np.int64)
    hist = np.zeros(size, dtype=np.int64)
    work = np.empty((7, size), dtype=np.int64)
    emptied = _play_out(row_s, row_r, len(row), us, ur, k, reverse, track_empty, offset, hist, work, final_once)
    return hist.tolist(), int(emptied)
