"""Prisoner's Patience best play: a beam search that finds winning lines fast (numba).

The depth-first search of :mod:`exact.prisoners.solver_kernel` decides a deck (won or lost) but,
on 52 cards, spends its budget deep in the first subtrees it enters. A win is a line of exactly
``n - 1`` moves (every move removes one pile), so the rows ``k`` moves from the dealt row all have
``n - k`` piles and can be compared: the beam search keeps, at every depth, the ``width`` most
promising distinct rows, expands all their legal moves and keeps the ``width`` best children. It
never proves a loss (it drops rows), so it only runs before the exhaustive search: a line it finds
is a win (checked by replay like every other line); when it finds none, nothing is concluded.

What "promising" means (the score, lower is better), from the proof ``uncoverable_cards``
(:mod:`exact.prisoners.proofs`): a top card with no partner (adjacent rank) to its right is never
covered unless it first moves over a partner, and a win leaves one top card, so rows with few such
cards are closer to a win. With ``moves=physical`` the score is graded: 4 for each top card with no
partner to its right, 2 for one with a single partner there, 1 for one with two. With
``moves=published`` a pile counts 2 when none of the ranks it shows (top, and bottom, which becomes
a top when the pile moves) has a partner among the ranks shown to its right. (On 40 random decks
of each kind, these two choices found the most wins among the variants tried.)

Children that fail ``disconnected`` or (physical) ``uncoverable_cards`` are dropped (they are lost),
equal rows (same 64-bit hash of the reduced row) are kept once, and ties are broken by a hash mixed
with ``seed``, so beams with other seeds explore other rows. Everything is deterministic given the
seed.
"""
from __future__ import annotations

import numpy as np

from sim._jit import jit

from exact.prisoners.lost_rows import row_hash
from exact.prisoners.proofs_kernel import linked, uncoverable_cards

#: Verdict codes of :func:`_beam`.
BEAM_WON, BEAM_FAILED = 1, 0


def seed_mix(seed: int) -> np.uint64:
    """The tie-breaking constant of a beam with this seed."""
    return np.uint64((seed * 0x9E3779B97F4A7C15 + 0x2545F4914F6CDD1D) % (1 << 64))


@jit(inline="always")
def _score(tops, bottoms, m, neighbours, reverse, ranks, right, graded):
    """The row's score (lower is better, see the module docstring): 2 for each pile with no shown
    rank adjacent to a rank shown to its right; with ``graded``, 4 for such a pile, 2 for a pile
    with one partner to its right and 1 for a pile with two."""
    for r in range(ranks):
        right[r] = 0
    score = 0
    for k in range(m):
        p = m - 1 - k
        near = neighbours[tops[p]]
        if reverse:
            near |= neighbours[bottoms[p]]
        partners = 0
        for r in range(ranks):
            if (near >> r) & 1:
                partners += right[r]
        if not graded:
            score += 2 if partners == 0 else 0
        else:
            score += 4 if partners == 0 else (2 if partners == 1 else (1 if partners == 2 else 0))
        right[tops[p]] += 1
        if reverse and bottoms[p] != tops[p]:
            right[bottoms[p]] += 1
    return score


@jit(inline="always")
def _child(tops, bottoms, m, i, j, reverse, out_tops, out_bottoms):
    """The row after moving pile ``i`` onto pile ``j``, written into ``out_*`` (``m - 1`` piles)."""
    q = 0
    for p in range(m):
        if p == i:
            continue
        out_tops[q] = tops[p]
        out_bottoms[q] = bottoms[p]
        q += 1
    out_tops[j] = bottoms[i] if reverse else tops[i]


@jit
def _beam(start_tops, neighbours, ranks, reverse, width, mix, line, node_stop, graded):
    """One beam search from the dealt row ``start_tops``; returns ``(verdict, rows expanded)``.

    ``mix`` (:func:`seed_mix`) breaks ties between rows of equal score. On ``BEAM_WON`` ``line[:n - 1]`` holds the moves ``(source, target)``. Stops (``BEAM_FAILED``)
    when a depth has no live child or ``node_stop`` rows have been expanded.
    """
    n = start_tops.shape[0]
    if n == 1:
        return BEAM_WON, 0
    cur_t = np.empty((width, n), dtype=np.int64)
    cur_b = np.empty((width, n), dtype=np.int64)
    nxt_t = np.empty((width, n), dtype=np.int64)
    nxt_b = np.empty((width, n), dtype=np.int64)
    parents = np.empty((n, width), dtype=np.int64)
    codes = np.empty((n, width), dtype=np.int64)
    holders = np.empty(3 * max(ranks, 1), dtype=np.int64)
    right = holders[ranks:2 * ranks]
    total = holders[2 * ranks:3 * ranks]
    child_t = np.empty(n, dtype=np.int64)
    child_b = np.empty(n, dtype=np.int64)
    cap = width * 2 * n
    cand_key = np.empty(cap, dtype=np.uint64)
    cand_hash = np.empty(cap, dtype=np.uint64)
    cand_parent = np.empty(cap, dtype=np.int64)
    cand_code = np.empty(cap, dtype=np.int64)
    for p in range(n):
        cur_t[0, p] = start_tops[p]
        cur_b[0, p] = start_tops[p]
    count = 1
    nodes = 0
    for depth in range(n - 1):
        m = n - depth
        c = 0
        for w in range(count):
            if nodes >= node_stop:
                return BEAM_FAILED, nodes
            nodes += 1
            tops = cur_t[w]
            bottoms = cur_b[w]
            for i in range(m - 1, 0, -1):
                for d in (1, 3):
                    j = i - d
                    if j < 0:
                        break
                    if (neighbours[tops[i]] >> tops[j]) & 1:
                        _child(tops, bottoms, m, i, j, reverse, child_t, child_b)
                        if m - 1 == 1:  # won: walk the parents back to the dealt row
                            line[depth, 0] = i
                            line[depth, 1] = j
                            k = w
                            for e in range(depth - 1, -1, -1):
                                code = codes[e, k]
                                line[e, 0] = code // 4
                                line[e, 1] = code // 4 - code % 4
                                k = parents[e, k]
                            return BEAM_WON, nodes
                        h = row_hash(child_t, child_b, m - 1, ranks, reverse)
                        s = _score(child_t, child_b, m - 1, neighbours, reverse, ranks, total, graded)
                        mixed = (h ^ mix) * np.uint64(0xD6E8FEB86659FD93)
                        mixed ^= mixed >> np.uint64(32)
                        cand_key[c] = (np.uint64(s) << np.uint64(56)) | (mixed >> np.uint64(8))
                        cand_hash[c] = h
                        cand_parent[c] = w
                        cand_code[c] = i * 4 + d
                        c += 1
        if c == 0:
            return BEAM_FAILED, nodes
        order = np.argsort(cand_key[:c])
        kept = 0
        last = np.uint64(0)
        for a in range(c):
            x = order[a]
            if a > 0 and cand_hash[x] == last and cand_key[x] == cand_key[order[a - 1]]:
                continue  # the same row reached twice
            last = cand_hash[x]
            w = cand_parent[x]
            i = cand_code[x] // 4
            j = i - cand_code[x] % 4
            _child(cur_t[w], cur_b[w], m, i, j, reverse, child_t, child_b)
            if not linked(child_t, child_b, m - 1, neighbours, ranks, reverse, holders):
                continue
            if not reverse and uncoverable_cards(child_t, m - 1, neighbours, ranks, right, total) >= 2:
                continue
            for p in range(m - 1):
                nxt_t[kept, p] = child_t[p]
                nxt_b[kept, p] = child_b[p]
            parents[depth, kept] = w
            codes[depth, kept] = cand_code[x]
            kept += 1
            if kept == width:
                break
        if kept == 0:
            return BEAM_FAILED, nodes
        cur_t, nxt_t = nxt_t, cur_t
        cur_b, nxt_b = nxt_b, cur_b
        count = kept
    return BEAM_FAILED, nodes
