"""Prisoner's Patience best play, the numba search (the twin of :class:`exact.prisoners.solver.Searcher`).

The same search as the Python reference, on arrays:

* a row is two arrays, ``tops`` and ``bottoms`` (ranks), and a length; a move ``i -> j`` sets
  ``tops[j]`` to ``tops[i]`` (physical) or ``bottoms[i]`` (published, reversed) and deletes pile ``i``
  by shifting the piles to its right; an explicit stack of moves undoes it on the way back;
* rows proven lost are kept in the lost-row table of :mod:`exact.prisoners.lost_rows` (a hash
  collision can only miss, never turn a win into a loss). The searcher grows it between two calls
  so that it is never more than half full, up to twice as many slots as the node budget
  (:func:`~exact.prisoners.lost_rows.table_slots`), so it rarely fills; a fuller one is
  emptied when three-quarters full (dropping entries of a table of lost rows loses pruning, never
  correctness);
* most children of an expanded row are rows already proven lost (about 4.5 of its 5.5 legal moves
  on published 52-card decks), so the table is read before a move is made: every child's hash
  follows from the parent's prefix sums (:func:`~exact.prisoners.lost_rows.child_hashes`, which
  also reads each child's slot, so the memory fetches of all the children overlap), and a child is
  compared with a stored row straight from the parent (:func:`~exact.prisoners.lost_rows.find_child`);
  only a child not found is made and entered;
* with the ``COMMUTE`` bit (either rule; the solver's restarts set it after
  :data:`exact.prisoners.solver.COMMUTE_AFTER` nodes, at once under ``moves=physical``) the search
  makes only moves from the last move's target rightwards and the table stores each row with that
  bound, as an end mark after its codes (:func:`insert_row_bounded`; a row stored without one, end
  ``0``, is lost from every bound; the reduction is proved in :mod:`exact.prisoners.solver`);
* the loss conditions (bits of ``proofs``) are the jitted twins of :mod:`exact.prisoners.proofs` in
  :mod:`exact.prisoners.proofs_kernel`; the connectivity cut is the reference's, on bit masks (piles
  holding each rank);
* ``ordering=0`` tries moves in the reference's order (rightmost source first, distance 1 before
  3), so nodes, verdicts and winning lines equal the reference's exactly (a test checks this); the
  other orders of :data:`ORDERINGS` change which line is found first, never a verdict.

Limits of the kernel: at most 62 cards and 62 ranks (masks in an int64); larger decks go to the
Python reference.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from exact.prisoners.limits import MAX_KERNEL_CARDS, MAX_KERNEL_RANKS  # noqa: F401 (the kernel's limits)
from exact.prisoners.lost_rows import (
    child_hashes, find_child, insert_row, insert_row_bounded, lookup_row, lookup_row_bounded, lost_from, row_hash,
    slot_tag)
from exact.status import BestPlayStatus
from exact.prisoners.proofs_kernel import (
    frozen_piles, immovable_piles, linked, stranded_cards, uncoverable_cards, unpaired_tops, used_partners)
from sim._jit import jit
from sim.rules.prisoners import adjacent_ranks

#: Move orders (:func:`_gen_moves`): 0 the reference's (rightmost source first, distance 1 before 3),
#: 1 leftmost source first, 2 random (a seeded stream, for restarts), 3 distance-3 moves before
#: distance-1 moves, 4 the moves whose child row has the most legal moves first.
ORDERINGS = (0, 1, 2, 3, 4)


def supports(cards: int, ranks: int) -> bool:
    """Whether the kernel handles a deck of ``cards`` cards and ``ranks`` ranks."""
    return 1 <= cards <= MAX_KERNEL_CARDS and ranks <= MAX_KERNEL_RANKS


#: Verdict codes returned by the kernel: the codes of :class:`exact.status.BestPlayStatus`.
LOST_CODE, WON_CODE, UNDECIDED_CODE = BestPlayStatus.LOST.code, BestPlayStatus.WON.code, BestPlayStatus.UNDECIDED.code


def neighbour_masks(ranks: int, wrap: bool) -> np.ndarray:
    """``masks[r]``: bit ``s`` set when ranks ``r`` and ``s`` are adjacent (the rules' adjacency)."""
    return np.array([sum(1 << s for s in range(ranks) if adjacent_ranks(r, s, ranks, wrap))
                     for r in range(ranks)], dtype=np.int64)


@jit(inline="always")
def _xorshift(state):
    state ^= (state << np.uint64(13))
    state ^= (state >> np.uint64(7))
    state ^= (state << np.uint64(17))
    return state


@jit(inline="always")
def _mobility(tops, m, neighbours, skip):
    """Legal moves of the row ``tops[:m]`` without pile ``skip`` (the row after a move from ``skip``)."""
    count = 0
    q = 0
    prev1 = -1
    prev2 = -1
    prev3 = -1
    for p in range(m):
        if p == skip:
            continue
        t = tops[p]
        if prev1 >= 0 and (neighbours[t] >> prev1) & 1:
            count += 1
        if prev3 >= 0 and (neighbours[t] >> prev3) & 1:
            count += 1
        prev3 = prev2
        prev2 = prev1
        prev1 = t
        q += 1
    return count


@jit(inline="always")
def _gen_moves(tops, bottoms, m, neighbours, ordering, reverse, out, rng, scores):
    """Legal moves ``source * 4 + distance`` of the row, in the search order; returns ``(count, rng)``.

    ``ordering`` 0: rightmost source first, distance 1 before 3 (the reference's order); 1: leftmost
    source first; 2: the reference's moves in a random order (xorshift stream ``rng``); 3: every
    distance-3 move (rightmost first) before every distance-1 move; 4: the moves whose child row has
    the most legal moves first (ties in the reference's order).
    """
    count = 0
    if ordering == 3:
        for d in (3, 1):
            for k in range(m - 1):
                i = m - 1 - k
                j = i - d
                if j >= 0 and (neighbours[tops[i]] >> tops[j]) & 1:
                    out[count] = i * 4 + d
                    count += 1
        return count, rng
    for k in range(m - 1):
        i = m - 1 - k if ordering != 1 else k + 1
        ti = tops[i]
        for d in (1, 3):
            j = i - d
            if j < 0:
                break
            if (neighbours[ti] >> tops[j]) & 1:
                out[count] = i * 4 + d
                count += 1
    if ordering == 2:
        for a in range(count - 1, 0, -1):
            rng = _xorshift(rng)
            b = np.int64(rng % np.uint64(a + 1))
            out[a], out[b] = out[b], out[a]
    elif ordering == 4:
        for a in range(count):
            i = out[a] // 4
            j = i - out[a] % 4
            old = tops[j]
            tops[j] = bottoms[i] if reverse else tops[i]
            scores[a] = _mobility(tops, m, neighbours, i)
            tops[j] = old
        for a in range(1, count):  # insertion sort, stable, most mobile first
            code = out[a]
            score = scores[a]
            b = a - 1
            while b >= 0 and scores[b] < score:
                out[b + 1] = out[b]
                scores[b + 1] = scores[b]
                b -= 1
            out[b + 1] = code
            scores[b + 1] = score
    return count, rng


#: Bits of ``proofs``: the loss conditions the search applies to every row it expands.
#: ``IMMOVABLE_PROOF`` is not among the default ``ALL_PROOFS``: on 52-card decks it saved 1.6% of
#: the nodes at 3.1 times the CPU seconds (see :func:`exact.prisoners.proofs.immovable_piles`).
CONNECTED_PROOF, UNCOVERABLE_PROOF, FROZEN_PROOF, UNPAIRED_PROOF, IMMOVABLE_PROOF = 1, 2, 4, 8, 16
#: ``STRANDED_PROOF`` (physical: :func:`exact.prisoners.proofs.stranded_cards`) is not among them
#: either: on 200 random 52-card decks it changed no verdict, for 0.5% fewer nodes at 1.11 times the CPU.
STRANDED_PROOF = 32
#: Not a proof but a bit of the same mask: the commuting-move reduction (either rule; see
#: :mod:`exact.prisoners.solver`): after a move onto pile ``j`` only moves from piles ``j`` and right
#: of it, and the lost-row table stores each row with the least such bound it was proven lost from.
#: Its searches expand about as many rows on lost decks at less than half the CPU time a row, but
#: find wins in more rows: the solver's restarts set it after :data:`exact.prisoners.solver.COMMUTE_AFTER`.
COMMUTE = 64
#: ``USED_PROOF`` (physical: :func:`exact.prisoners.proofs.used_partners`) is among ``ALL_PROOFS``;
#: unlike the others it runs on rows of every size, whatever ``proofs >> PROOF_PILES_SHIFT`` (it cuts
#: rows of 25 to 40 piles that the others leave open; see benchmarks/README.md).
USED_PROOF = 128
ALL_PROOFS = CONNECTED_PROOF | UNCOVERABLE_PROOF | FROZEN_PROOF | UNPAIRED_PROOF | USED_PROOF
#: ``proofs >> PROOF_PILES_SHIFT``, when not 0, is the largest row (in piles) on which the search
#: applies its conditions: on longer rows they cost more than they cut (see :mod:`exact.prisoners.solver`).
PROOF_PILES_SHIFT = 16


@jit(inline="always")
def _from_bound(out, count, bound):
    """Keep, in order, the moves ``source * 4 + distance`` of ``out[:count]`` whose source is at least
    ``bound``; returns how many."""
    kept = 0
    for a in range(count):
        if out[a] // 4 >= bound:
            out[kept] = out[a]
            kept += 1
    return kept


#: Indices into the scalar state of a search (:func:`new_state`).
(_M, _DEPTH, _ENTERING, _NODES, _FILLED, _RNG, _VERDICT, _DISCONNECTED, _UNCOVERABLE, _FROZEN,
 _UNPAIRED, _IMMOVABLE) = range(12)
_STRANDED = 12  # rows cut by ``stranded_cards``
_TOUCHED = 13  # the xor of the table words :func:`child_hashes` read (kept so the reads are made)
_GENERATION = 14  # the lost-row table's generation (:func:`next_generation`)
_USED = 15  # rows cut by ``used_partners``
#: Code of a search paused at its node stop (resume it with the same state): not a verdict, so a code
#: no :class:`~exact.status.BestPlayStatus` has.
PAUSED_CODE = max(status.code for status in BestPlayStatus) + 1


class SearchState(NamedTuple):
    """The work arrays of one search (:func:`new_state`), all ``int64``; passed to the kernel as one
    argument (numba takes a NamedTuple of arrays)."""

    scalars: np.ndarray
    moves: np.ndarray
    counts: np.ndarray
    cursor: np.ndarray
    undo: np.ndarray
    holders: np.ndarray
    profile: np.ndarray


def new_state(cards: int, ranks: int) -> SearchState:
    """Work arrays of one search from a row of ``cards`` piles: a :class:`SearchState` ``(scalars,
    moves, counts, cursor, undo, holders, profile)``; :func:`start` readies them for a row. ``profile`` counts, per depth
    (moves made from the dealt row), the rows expanded (``profile[0]``), the rows found in the
    lost-row table (``profile[1]``) and the legal moves generated (``profile[2]``); it is never
    reset by the search (the caller empties it), so it can sum several runs."""
    n = cards
    return SearchState(np.zeros(16, dtype=np.int64), np.empty((n, 4 * n), dtype=np.int64),
                       np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64), np.empty((n, 6), dtype=np.int64),
                       np.empty(3 * max(ranks, 1) + n, dtype=np.int64), np.zeros((3, n), dtype=np.int64))


def start(state, cards: int, seed: int = 0, filled: int = 0, generation: int = 1) -> None:
    """Ready ``state`` for a fresh search from a row of ``cards`` piles (keeps the lost-row table).

    ``filled``: the rows the lost-row table holds already (a restart keeps the table of the runs
    before it). The search empties the table when it is three-quarters full; a count that started
    again from 0 at every restart would let the table fill up completely, and probing a full table
    never ends. ``generation``: the table's current generation (:func:`next_generation`; slots of
    other generations count as empty).
    """
    scalars = state[0]
    scalars[:] = 0
    scalars[_FILLED] = filled
    scalars[_GENERATION] = generation
    scalars[_M] = cards
    scalars[_ENTERING] = 1
    mixed = (seed * 0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019) % (1 << 64) or 1  # xorshift needs a nonzero state
    scalars[_RNG] = mixed - (1 << 64) if mixed >= 1 << 63 else mixed
    scalars[_VERDICT] = PAUSED_CODE


@jit
def _undo_move(tops, bottoms, undo, depth, m):
    i = undo[depth, 0]
    j = undo[depth, 1]
    for k in range(m, i, -1):
        tops[k] = tops[k - 1]
        bottoms[k] = bottoms[k - 1]
    tops[i] = undo[depth, 3]
    bottoms[i] = undo[depth, 4]
    tops[j] = undo[depth, 2]


@jit
def _search(tops, bottoms, neighbours, ranks, reverse, ordering, hashes, keys, line, state, node_stop, proofs):
    """Depth-first best-play search from the row ``tops``/``bottoms``, resumable.

    The whole search state lives in the arrays of ``state`` (a :class:`SearchState`: ``scalars``,
    ``moves``, ``counts``, ``cursor``, ``undo``; see :func:`new_state`), so the search stops when it would expand node ``node_stop + 1``
    (verdict ``PAUSED_CODE``, row and stack left as they are) and a later call with the same arrays
    goes on exactly where it stopped. On any other verdict the start row is restored.
    Returns the verdict code; ``scalars`` holds the node count (rows expanded, as the reference
    counts them), the fill of the table and the number of rows cut by the connectivity proof; on a
    win ``line[:cards - 1]`` holds the moves ``(source, target)``.
    """
    scalars, moves, counts, cursor, undo, holders, profile = state
    n = tops.shape[0]
    m = scalars[_M]
    depth = scalars[_DEPTH]
    entering = scalars[_ENTERING] != 0
    nodes = scalars[_NODES]
    filled = scalars[_FILLED]
    rng = np.uint64(scalars[_RNG])
    disconnected = scalars[_DISCONNECTED]
    uncoverable = scalars[_UNCOVERABLE]
    frozen = scalars[_FROZEN]
    unpaired = scalars[_UNPAIRED]
    immovable = scalars[_IMMOVABLE]
    stranded = scalars[_STRANDED]
    used = scalars[_USED]
    work = np.empty(ranks + 6 * n, dtype=np.int64)
    cycle = ranks >= 3 and (neighbours[0] >> (ranks - 1)) & 1 == 1
    commute = (proofs & COMMUTE) != 0
    limit = proofs >> PROOF_PILES_SHIFT  # the conditions run on rows of at most this many piles (0: all)
    every = proofs & ((1 << PROOF_PILES_SHIFT) - 1)
    scores = np.empty(2 * n, dtype=np.int64)
    right = holders[ranks:2 * ranks]
    total = holders[2 * ranks:3 * ranks]
    reach = holders[3 * ranks:]
    half = moves.shape[1] // 2  # moves[d, :half]: the moves of depth d; moves[d, half:]: their children's hashes
    prefix = np.empty(n + 1, dtype=np.uint64)
    touched = np.uint64(scalars[_TOUCHED])
    generation = scalars[_GENERATION]
    verdict = PAUSED_CODE
    while True:
        if entering:
            if m == 1:
                for k in range(depth):
                    line[k, 0] = undo[k, 0]
                    line[k, 1] = undo[k, 1]
                verdict = WON_CODE
                break
            if depth == 0:
                h = slot_tag(row_hash(tops, bottoms, m, ranks, reverse), generation)
            else:  # computed by the parent (child_hashes), beside the move that made this row
                h = np.uint64(moves[depth - 1, half + cursor[depth - 1] - 1])
            undo[depth, 5] = np.int64(h)  # the row's hash, for its insertion when it is proven lost
            if depth > 0:
                known = False  # the parent looked it up before making the move
            elif commute:  # the dealt row: lost from bound 0
                known = lookup_row_bounded(hashes, keys, h, tops, bottoms, m, ranks, reverse, 0)
            else:
                known = lookup_row(hashes, keys, h, tops, bottoms, m, ranks, reverse)
            if known:
                profile[1, depth] += 1
                counts[depth] = 0  # known lost: back out without expanding or re-inserting
                cursor[depth] = -1
            else:
                if nodes >= node_stop:
                    break  # paused before expanding this row; the next call enters it again
                nodes += 1
                profile[0, depth] += 1
                proofs = every if limit == 0 or m <= limit else every & (COMMUTE | USED_PROOF)
                counts[depth] = 0
                if (proofs & CONNECTED_PROOF) and not linked(tops, bottoms, m, neighbours, ranks, reverse, holders):
                    disconnected += 1
                elif ((proofs & UNCOVERABLE_PROOF) and not reverse
                      and uncoverable_cards(tops, m, neighbours, ranks, right, total) >= 2):
                    uncoverable += 1
                elif (proofs & FROZEN_PROOF) and reverse and frozen_piles(tops, bottoms, m, neighbours, ranks, total):
                    frozen += 1
                elif (proofs & UNPAIRED_PROOF) and reverse and unpaired_tops(tops, bottoms, m, ranks, cycle, total):
                    unpaired += 1
                elif (proofs & IMMOVABLE_PROOF) and reverse and immovable_piles(tops, bottoms, m, neighbours, ranks,
                                                                                 reach):
                    immovable += 1
                elif (proofs & STRANDED_PROOF) and not reverse and stranded_cards(tops, m, neighbours, ranks, work):
                    stranded += 1
                elif (proofs & USED_PROOF) and not reverse and used_partners(tops, m, neighbours, ranks, work):
                    used += 1
                else:
                    counts[depth], rng = _gen_moves(tops, bottoms, m, neighbours, ordering, reverse, moves[depth], rng,
                                                    scores)
                    if commute and depth:
                        counts[depth] = _from_bound(moves[depth], counts[depth], undo[depth - 1, 1])
                    profile[2, depth] += counts[depth]
                    touched ^= child_hashes(tops, bottoms, m, ranks, reverse, moves[depth], counts[depth], prefix,
                                             hashes, moves[depth], half, generation)
                cursor[depth] = 0
            entering = False
        if cursor[depth] >= 0 and cursor[depth] < counts[depth]:
            code = moves[depth, cursor[depth]]
            h = np.uint64(moves[depth, half + cursor[depth]])
            cursor[depth] += 1
            i = code // 4
            j = i - code % 4
            new_top = bottoms[i] if reverse else tops[i]
            slot = find_child(hashes, keys, h, tops, bottoms, m, ranks, reverse, commute, i, j, new_top)
            if slot >= 0 and (not commute or lost_from(keys, slot, m - 1, ranks, j)):
                profile[1, depth + 1] += 1  # the child is known lost: not entered
                continue
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
            h = np.uint64(undo[depth, 5])
            if commute:
                filled = insert_row_bounded(hashes, keys, h, tops, bottoms, m, ranks, reverse,
                                         undo[depth - 1, 1] if depth else 0, filled)
            else:
                filled = insert_row(hashes, keys, h, tops, bottoms, m, ranks, reverse, filled)
        if depth == 0:
            verdict = LOST_CODE
            break
        depth -= 1
        _undo_move(tops, bottoms, undo, depth, m)
        m += 1
    scalars[_NODES] = nodes
    scalars[_FILLED] = filled
    scalars[_RNG] = np.int64(rng)
    scalars[_DISCONNECTED] = disconnected
    scalars[_UNCOVERABLE] = uncoverable
    scalars[_FROZEN] = frozen
    scalars[_UNPAIRED] = unpaired
    scalars[_IMMOVABLE] = immovable
    scalars[_STRANDED] = stranded
    scalars[_USED] = used
    scalars[_TOUCHED] = np.int64(touched)
    scalars[_VERDICT] = verdict
    if verdict == PAUSED_CODE:
        scalars[_M] = m
        scalars[_DEPTH] = depth
        scalars[_ENTERING] = 1 if entering else 0
        return verdict
    # restore the start row for the caller (undo whatever is still on the stack)
    while depth > 0:
        depth -= 1
        _undo_move(tops, bottoms, undo, depth, m)
        m += 1
    scalars[_M] = m
    scalars[_DEPTH] = 0
    return verdict


def search_row(tops, bottoms, neighbours, ranks, reverse, node_budget, ordering, hashes, keys, line, seed=0,
               proofs=CONNECTED_PROOF):
    """One whole search from the row ``tops``/``bottoms`` within ``node_budget`` nodes (no pausing):
    ``(verdict, nodes, line_length)``, verdict ``LOST_CODE``/``WON_CODE``/``UNDECIDED_CODE``; the row
    is restored. ``hashes``/``keys``: a lost-row table (:func:`new_table`), left holding the lost rows
    found."""
    n = tops.shape[0]
    state = new_state(n, ranks)
    start(state, n, seed, filled=int(np.count_nonzero(hashes)))
    verdict = _search(tops, bottoms, neighbours, ranks, reverse, ordering, hashes, keys, line, state, node_budget,
                      proofs)
    scalars = state[0]
    if verdict == PAUSED_CODE:
        abandon(tops, bottoms, state)
        return UNDECIDED_CODE, int(scalars[_NODES]), 0
    return verdict, int(scalars[_NODES]), n - 1 if verdict == WON_CODE else 0


def abandon(tops, bottoms, state) -> None:
    """Give up a paused search: undo its moves so ``tops``/``bottoms`` hold the start row again."""
    scalars, _, _, _, undo, _, _ = state
    _abandon(tops, bottoms, undo, scalars)


@jit
def _abandon(tops, bottoms, undo, scalars):
    m = scalars[_M]
    depth = scalars[_DEPTH]
    while depth > 0:
        depth -= 1
        _undo_move(tops, bottoms, undo, depth, m)
        m += 1
    scalars[_M] = m
    scalars[_DEPTH] = 0
