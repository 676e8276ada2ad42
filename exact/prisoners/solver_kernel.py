"""Prisoner's Patience best play, the numba search (the twin of :class:`exact.prisoners.solver.Searcher`).

The same search as the Python reference, on arrays:

* a row is two arrays, ``tops`` and ``bottoms`` (ranks), and a length; a move ``i -> j`` sets
  ``tops[j]`` to ``tops[i]`` (physical) or ``bottoms[i]`` (published, reversed) and deletes pile ``i``
  by shifting the piles to its right; an explicit stack of moves undoes it on the way back;
* the transposition table of rows proven lost is open addressing over a 64-bit hash of the reduced
  row (top ranks, or (top, bottom) ranks with ``moves=published``), and every slot also stores the
  **whole reduced row**, compared in full on lookup: a hash collision can only miss, never turn a
  win into a loss. When the table is three-quarters full it is emptied (dropping entries of a
  table of lost rows loses pruning, never correctness);
* the connectivity cut is the reference's, on bit masks (piles holding each rank);
* ``ordering=0`` tries moves in the reference's order (rightmost source first, distance 1 before
  3), so nodes, verdicts and winning lines equal the reference's exactly (a test checks this);
  ``ordering=1`` tries leftmost sources first.

Limits of the kernel: at most 62 cards and 62 ranks (masks in an int64); larger decks go to the
Python reference.
"""
from __future__ import annotations

import numpy as np

from sim._jit import jit

#: Largest deck (cards) and rank count the kernel handles (one int64 bit per pile and per rank).
MAX_KERNEL_CARDS = 62
MAX_KERNEL_RANKS = 62

#: Move orders: 0 the reference's (rightmost source first), 1 leftmost source first.
ORDERINGS = (0, 1)


def supports(cards: int, ranks: int) -> bool:
    """Whether the kernel handles a deck of ``cards`` cards and ``ranks`` ranks."""
    return 1 <= cards <= MAX_KERNEL_CARDS and ranks <= MAX_KERNEL_RANKS


#: Verdict codes returned by the kernel.
LOST_CODE, WON_CODE, UNDECIDED_CODE = 0, 1, 2

_FNV_OFFSET = np.uint64(0xCBF29CE484222325)
_FNV_PRIME = np.uint64(0x100000001B3)


def neighbour_masks(ranks: int, wrap: bool) -> np.ndarray:
    """``masks[r]``: bit ``s`` set when ranks ``r`` and ``s`` are adjacent (the rules' adjacency)."""
    from sim.rules.prisoners import adjacent_ranks

    return np.array([sum(1 << s for s in range(ranks) if adjacent_ranks(r, s, ranks, wrap))
                     for r in range(ranks)], dtype=np.int64)


def new_table(cards: int, ranks: int, node_budget: int, max_slots: int = 1 << 21):
    """An empty lost-row table sized for ``node_budget`` expansions: ``(hashes, keys)``."""
    slots = 1 << 10
    while slots < 2 * node_budget and slots < max_slots:
        slots <<= 1
    dtype = np.uint8 if ranks * ranks + 1 <= 255 else np.uint16
    return np.zeros(slots, dtype=np.uint64), np.zeros((slots, cards), dtype=dtype)


@jit(inline="always")
def _row_code(tops, bottoms, p, ranks, reverse):
    if reverse:
        return tops[p] * ranks + bottoms[p] + 1
    return tops[p] + 1


@jit(inline="always")
def _row_hash(tops, bottoms, m, ranks, reverse):
    h = _FNV_OFFSET
    for p in range(m):
        h = (h ^ np.uint64(_row_code(tops, bottoms, p, ranks, reverse))) * _FNV_PRIME
    h ^= h >> np.uint64(29)
    h *= np.uint64(0xBF58476D1CE4E5B9)
    h ^= h >> np.uint64(32)
    if h == np.uint64(0):
        h = np.uint64(1)  # 0 marks an empty slot
    return h


@jit(inline="always")
def _same_row(keys, slot, tops, bottoms, m, ranks, reverse):
    n = keys.shape[1]
    for p in range(m):
        if keys[slot, p] != _row_code(tops, bottoms, p, ranks, reverse):
            return False
    return m == n or keys[slot, m] == 0


@jit(inline="always")
def _lookup(hashes, keys, h, tops, bottoms, m, ranks, reverse):
    mask = np.uint64(hashes.shape[0] - 1)
    slot = h & mask
    while hashes[slot] != np.uint64(0):
        if hashes[slot] == h and _same_row(keys, slot, tops, bottoms, m, ranks, reverse):
            return True
        slot = (slot + np.uint64(1)) & mask
    return False


@jit(inline="always")
def _insert(hashes, keys, h, tops, bottoms, m, ranks, reverse, filled):
    """Insert the row; returns the new fill count (the table is emptied when 3/4 full)."""
    slots = hashes.shape[0]
    if 4 * (filled + 1) > 3 * slots:
        hashes[:] = 0
        filled = 0
    mask = np.uint64(slots - 1)
    slot = h & mask
    while hashes[slot] != np.uint64(0):
        slot = (slot + np.uint64(1)) & mask
    hashes[slot] = h
    n = keys.shape[1]
    for p in range(m):
        keys[slot, p] = _row_code(tops, bottoms, p, ranks, reverse)
    if m < n:
        keys[slot, m] = 0
    return filled + 1


@jit(inline="always")
def _linked(tops, bottoms, m, neighbours, ranks, reverse, holders):
    """The reference's connectivity condition (``Searcher.linked``) on bit masks."""
    if m <= 1:
        return True
    for r in range(ranks):
        holders[r] = 0
    for p in range(m):
        holders[tops[p]] |= np.int64(1) << p
        if reverse:
            holders[bottoms[p]] |= np.int64(1) << p
    everyone = (np.int64(1) << m) - 1
    reached = np.int64(1)
    shown = np.int64(1) << tops[0]
    if reverse:
        shown |= np.int64(1) << bottoms[0]
    while True:
        near = np.int64(0)
        for r in range(ranks):
            if (shown >> r) & 1:
                near |= neighbours[r]
        fresh = np.int64(0)
        for r in range(ranks):
            if (near >> r) & 1:
                fresh |= holders[r]
        fresh &= ~reached
        if fresh == 0:
            return reached == everyone
        reached |= fresh
        for p in range(m):
            if (fresh >> p) & 1:
                shown |= np.int64(1) << tops[p]
                if reverse:
                    shown |= np.int64(1) << bottoms[p]


@jit(inline="always")
def _gen_moves(tops, m, neighbours, ordering, out):
    """Legal moves ``source * 4 + distance`` of the row, in the search order; returns their count."""
    count = 0
    for k in range(m - 1):
        i = m - 1 - k if ordering == 0 else k + 1
        ti = tops[i]
        for d in (1, 3):
            j = i - d
            if j < 0:
                break
            if (neighbours[ti] >> tops[j]) & 1:
                out[count] = i * 4 + d
                count += 1
    return count


@jit
def search_row(tops, bottoms, neighbours, ranks, reverse, node_budget, ordering, hashes, keys, line):
    """Depth-first best-play search from the row ``tops``/``bottoms`` (modified, restored on return).

    Returns ``(verdict, nodes, line_length)``: verdict ``LOST_CODE``/``WON_CODE``/``UNDECIDED_CODE``;
    nodes as the reference counts them (rows expanded; on ``undecided`` the budget); on a win the
    moves ``(source, target)`` are in ``line[:line_length]``. ``hashes``/``keys``: an empty table
    (:func:`new_table`), left holding the lost rows found.
    """
    n = tops.shape[0]
    m = n
    moves = np.empty((n, 2 * n), dtype=np.int64)
    counts = np.zeros(n, dtype=np.int64)
    cursor = np.zeros(n, dtype=np.int64)
    undo = np.empty((n, 5), dtype=np.int64)  # source, target, old top of target, source top, bottom
    holders = np.empty(ranks, dtype=np.int64)
    nodes = 0
    filled = 0
    depth = 0
    entering = True
    while True:
        if entering:
            entering = False
            if m == 1:
                for k in range(depth):
                    line[k, 0] = undo[k, 0]
                    line[k, 1] = undo[k, 1]
                verdict = WON_CODE
                break
            h = _row_hash(tops, bottoms, m, ranks, reverse)
            if _lookup(hashes, keys, h, tops, bottoms, m, ranks, reverse):
                counts[depth] = 0  # known lost: back out without expanding or re-inserting
                cursor[depth] = -1
            else:
                nodes += 1
                if nodes > node_budget:
                    nodes -= 1
                    verdict = UNDECIDED_CODE
                    break
                if _linked(tops, bottoms, m, neighbours, ranks, reverse, holders):
                    counts[depth] = _gen_moves(tops, m, neighbours, ordering, moves[depth])
                else:
                    counts[depth] = 0
                cursor[depth] = 0
        if cursor[depth] >= 0 and cursor[depth] < counts[depth]:
            code = moves[depth, cursor[depth]]
            cursor[depth] += 1
            i = code // 4
            j = i - code % 4
            undo[depth, 0] = i
            undo[depth, 1] = j
            undo[depth, 2] = tops[j]
            undo[depth, 3] = tops[i]
            undo[depth, 4] = bottoms[i]
            tops[j] = bottoms[i] if reverse else tops[i]
            for k in range(i, m - 1):
                tops[k] = tops[k + 1]
                bottoms[k] = bottoms[k + 1]
            m -= 1
            depth += 1
            entering = True
            continue
        # every child failed (or the row was already known lost): this row is lost
        if cursor[depth] >= 0:
            filled = _insert(hashes, keys, _row_hash(tops, bottoms, m, ranks, reverse), tops, bottoms, m,
                             ranks, reverse, filled)
        if depth == 0:
            verdict = LOST_CODE
            break
        depth -= 1
        i = undo[depth, 0]
        j = undo[depth, 1]
        for k in range(m, i, -1):
            tops[k] = tops[k - 1]
            bottoms[k] = bottoms[k - 1]
        tops[i] = undo[depth, 3]
        bottoms[i] = undo[depth, 4]
        tops[j] = undo[depth, 2]
        m += 1
    # restore the start row for the caller (undo whatever is still on the stack)
    while depth > 0:
        depth -= 1
        i = undo[depth, 0]
        j = undo[depth, 1]
        for k in range(m, i, -1):
            tops[k] = tops[k - 1]
            bottoms[k] = bottoms[k - 1]
        tops[i] = undo[depth, 3]
        bottoms[i] = undo[depth, 4]
        tops[j] = undo[depth, 2]
        m += 1
    return verdict, nodes, n - 1 if verdict == WON_CODE else 0
