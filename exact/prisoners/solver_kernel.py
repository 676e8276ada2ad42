"""Prisoner's Patience best play, the numba search (the twin of :class:`exact.prisoners.solver.Searcher`).

The same search as the Python reference, on arrays:

* a row is two arrays, ``tops`` and ``bottoms`` (ranks), and a length; a move ``i -> j`` sets
  ``tops[j]`` to ``tops[i]`` (physical) or ``bottoms[i]`` (published, reversed) and deletes pile ``i``
  by shifting the piles to its right; an explicit stack of moves undoes it on the way back;
* the transposition table of rows proven lost is open addressing over a 64-bit hash of the reduced
  row (top ranks, or (top, bottom) ranks with ``moves=published``), and every slot also stores the
  **whole reduced row**, compared in full on lookup: a hash collision can only miss, never turn a
  win into a loss. It has twice as many slots as the node budget (:func:`table_slots`, up to
  :data:`MAX_TABLE_BYTES`), so it never fills; a fuller one is emptied when three-quarters full
  (dropping entries of a table of lost rows loses pruning, never correctness);
* most children of an expanded row are rows already proven lost (about 4.5 of its 5.5 legal moves
  on published 52-card decks), so the table is read before a move is made: the row's hash is a
  polynomial in its piles' codes (:func:`_row_hash`), so every child's hash follows from the
  parent's prefix sums in a few operations (:func:`_child_hashes`, which also reads each child's
  slot, so the memory fetches of all the children overlap), and a child is compared with a stored
  row straight from the parent (:func:`_find_child`); only a child not found is made and entered.
  A slot's hash and row share one 64-byte record (:func:`new_table`), so a lookup fetches one
  cache line, and the table is emptied for the next deck by a generation byte in each hash word
  (:func:`next_generation`), not by writing every slot. Together these made the search 1.6 to 1.9
  times as fast on published 52-card decks, with the same nodes and verdicts (see
  ``benchmarks/README.md``);
* with the ``COMMUTE`` bit (either rule; the solver's restarts set it after
  :data:`exact.prisoners.solver.COMMUTE_AFTER` nodes, at once under ``moves=physical``) the search
  makes only moves from the last move's target rightwards and the table stores each row with that
  bound, as an end mark after its codes (:func:`_insert_bounded`; a row stored without one, end
  ``0``, is lost from every bound; the reduction is proved in :mod:`exact.prisoners.solver`);
* the connectivity cut is the reference's, on bit masks (piles holding each rank);
* ``ordering=0`` tries moves in the reference's order (rightmost source first, distance 1 before
  3), so nodes, verdicts and winning lines equal the reference's exactly (a test checks this);
  ``ordering=1`` tries leftmost sources first.

Limits of the kernel: at most 62 cards and 62 ranks (masks in an int64); larger decks go to the
Python reference.
"""
from __future__ import annotations

import numpy as np

from exact.prisoners.limits import MAX_KERNEL_CARDS, MAX_KERNEL_RANKS  # noqa: F401 (the kernel's limits)
from sim._jit import jit

#: Move orders: 0 the reference's (rightmost source first), 1 leftmost source first, 2 random (a
#: seeded stream, for restarts), 3 distance-3 moves before distance-1 moves.
ORDERINGS = (0, 1, 2, 3, 4)


def supports(cards: int, ranks: int) -> bool:
    """Whether the kernel handles a deck of ``cards`` cards and ``ranks`` ranks."""
    return 1 <= cards <= MAX_KERNEL_CARDS and ranks <= MAX_KERNEL_RANKS


#: Verdict codes returned by the kernel.
LOST_CODE, WON_CODE, UNDECIDED_CODE = 0, 1, 2

#: The rows' polynomial hash (:func:`_row_hash`): an odd base (invertible modulo ``2**64``), its powers
#: and its inverse.
_BASE = 0x9E3779B97F4A7C15
_POWERS = np.array([pow(_BASE, p, 1 << 64) for p in range(MAX_KERNEL_CARDS + 1)], dtype=np.uint64)
_BASE_INVERSE = np.uint64(pow(_BASE, -1, 1 << 64))


def neighbour_masks(ranks: int, wrap: bool) -> np.ndarray:
    """``masks[r]``: bit ``s`` set when ranks ``r`` and ``s`` are adjacent (the rules' adjacency)."""
    from sim.rules.prisoners import adjacent_ranks

    return np.array([sum(1 << s for s in range(ranks) if adjacent_ranks(r, s, ranks, wrap))
                     for r in range(ranks)], dtype=np.int64)


#: Memory of one search's lost-row table (hashes and rows) at most: 4 GiB, 67,108,864 slots of a
#: 52-card deck, so that searches of up to 33,554,432 nodes never empty it (see :func:`new_table`).
MAX_TABLE_BYTES = 4 * 2**30


def _key_dtype(cards: int, ranks: int):
    return np.uint8 if ranks * ranks + cards <= 255 else np.uint16  # codes, and the end marks of _insert_bounded


def record_words(cards: int, ranks: int) -> int:
    """The 64-bit words of one slot of the lost-row table: the hash, then the row's codes (one byte or
    two each) and its end mark; 8 words (one 64-byte cache line) for a 52-card deck."""
    return -(-(8 + cards * np.dtype(_key_dtype(cards, ranks)).itemsize) // 8)


def table_slots(cards: int, ranks: int, node_budget: int, max_bytes: int = MAX_TABLE_BYTES) -> int:
    """The slots of a lost-row table for ``node_budget`` expansions: the least power of two (at least
    1,024) of twice the budget, so that it is never three-quarters full (a search inserts at most one
    row a node), or the most that fit in ``max_bytes``. A full table is emptied, and the search
    then forgets every lost row it held (sound, but on a long search it redoes their subtrees
    again and again: with the 2,097,152 slots that were the limit before, published 52-card decks
    left undecided at 10,000,000 nodes are lost at 3.2 to 6.5 million with a table that holds them)."""
    per_slot = 8 * record_words(cards, ranks)
    slots = 1 << 10
    while slots < 2 * node_budget and 2 * slots * per_slot <= max_bytes:
        slots <<= 1
    return slots


def new_table(cards: int, ranks: int, node_budget: int, max_slots: int | None = None):
    """An empty lost-row table sized for ``node_budget`` expansions (:func:`table_slots`), or of at
    most ``max_slots`` slots: ``(hashes, keys)``, two views of one array of records
    (:func:`record_words`), so that a slot's hash and row share a cache line: a lookup that finds
    its hash finds the row to compare in the same memory fetch (with the hashes and rows in two
    arrays, 1.2 to 1.3 times the CPU time a node on published 52-card decks)."""
    slots = table_slots(cards, ranks, node_budget)
    if max_slots is not None:
        slots = min(slots, max(1 << 10, 1 << (max_slots.bit_length() - 1)))
    dtype = _key_dtype(cards, ranks)
    records = np.zeros((slots, record_words(cards, ranks)), dtype=np.uint64)
    first = 8 // np.dtype(dtype).itemsize
    return records[:, 0], records.view(dtype)[:, first:first + cards]


@jit(inline="always")
def _code(top, bottom, ranks, reverse):
    """The code of a pile in the lost-row table: its top (physical), or top and bottom (published)."""
    if reverse:
        return top * ranks + bottom + 1
    return top + 1


@jit(inline="always")
def _row_code(tops, bottoms, p, ranks, reverse):
    return _code(tops[p], bottoms[p], ranks, reverse)


@jit(inline="always")
def _mix(h):
    """The finaliser of a row's hash (splitmix64's): every bit of the polynomial sum reaches the bits
    that pick the slot; never 0."""
    h ^= h >> np.uint64(30)
    h *= np.uint64(0xBF58476D1CE4E5B9)
    h ^= h >> np.uint64(27)
    h *= np.uint64(0x94D049BB133111EB)
    h ^= h >> np.uint64(31)
    if h == np.uint64(0):
        h = np.uint64(1)
    return h


#: The low byte of a word of the lost-row table's hash column is the table's generation: a slot is in
#: use only when its byte is the current generation (:func:`_live`), so a new search empties the table
#: by moving to the next generation (:func:`next_generation`) instead of writing every slot (a 52-card
#: table for 10,000,000 nodes has 33,554,432 slots, 2 GiB: writing them all cost about a tenth of a
#: CPU second a deck). A hash carrying its generation (:func:`_tag`) picks its slot by its bits above.
GENERATIONS = 255
_GEN_MASK = np.uint64(0xFF)


@jit(inline="always")
def _tag(h, generation):
    """The hash ``h`` with the generation in its low byte: what the table stores and compares."""
    return (h & ~_GEN_MASK) | np.uint64(generation)


@jit(inline="always")
def _home(tag, mask):
    """The first slot probed for a tagged hash."""
    return (tag >> np.uint64(8)) & mask


@jit(inline="always")
def _live(word, tag):
    """Whether a slot whose hash word is ``word`` is in use in the generation of ``tag``."""
    return (word & _GEN_MASK) == (tag & _GEN_MASK)


def next_generation(hashes, generation: int) -> int:
    """Empty the lost-row table for a new search: the generation after ``generation`` (writing zeros
    to every slot only when the generations wrap around, once in :data:`GENERATIONS` searches)."""
    if generation >= GENERATIONS:
        hashes[:] = 0
        return 1
    return generation + 1


@jit(inline="always")
def _row_hash(tops, bottoms, m, ranks, reverse):
    """The row's hash: :func:`_mix` of the polynomial ``sum(code_p * BASE**p) mod 2**64`` over its
    piles' codes (:func:`_row_code`), so that a child's hash follows from its parent's prefix sums in
    a few operations (:func:`_child_hashes`)."""
    h = np.uint64(0)
    for p in range(m):
        h += np.uint64(_row_code(tops, bottoms, p, ranks, reverse)) * _POWERS[p]
    return _mix(h)


@jit(inline="always")
def _child_hashes(tops, bottoms, m, ranks, reverse, out, count, prefix, hashes, hashes_out, offset, generation):
    """The hash (:func:`_row_hash`, tagged with the ``generation``) of the child of each move
    ``out[:count]`` (``source * 4 + distance``), written to ``hashes_out[offset + a]``, without
    making the moves: with ``prefix[k]`` the polynomial sum of the first ``k`` piles, deleting pile
    ``i`` divides the sum of the piles right of it by ``BASE`` (odd, so invertible modulo ``2**64``)
    and the move changes one code left of it. Each child's slot of the lost-row table ``hashes`` is
    read here, all of them one after the other, so that the memory fetches overlap instead of
    waiting one by one when each child is entered. Returns the xor of the words read (kept by the
    caller, so the reads are not dropped)."""
    total = np.uint64(0)
    for p in range(m):
        prefix[p] = total
        total += np.uint64(_row_code(tops, bottoms, p, ranks, reverse)) * _POWERS[p]
    prefix[m] = total
    mask = np.uint64(hashes.shape[0] - 1)
    seen = np.uint64(0)
    for a in range(count):
        i = out[a] // 4
        j = i - out[a] % 4
        old = np.uint64(_row_code(tops, bottoms, j, ranks, reverse))
        new = np.uint64(_code(bottoms[i] if reverse else tops[i], bottoms[j], ranks, reverse))
        raw = prefix[i] + (new - old) * _POWERS[j] + (total - prefix[i + 1]) * _BASE_INVERSE
        h = _tag(_mix(raw), generation)
        hashes_out[offset + a] = np.int64(h)
        seen ^= hashes[_home(h, mask)]
    return seen


@jit(inline="always")
def _same_row(keys, slot, tops, bottoms, m, ranks, reverse, bounded):
    """Whether ``keys[slot]`` holds the row: its codes, then the end of the row (unless it fills the
    slot): ``0``, or with ``bounded`` also an end mark of :func:`_insert_bounded` (above every code):
    a row stored by a search without the bound (end ``0``) is lost from every bound, so a bounded
    search reads it as lost from bound 0 (the reverse is not true: an unbounded search never takes a
    bounded row)."""
    n = keys.shape[1]
    for p in range(m):
        if keys[slot, p] != _row_code(tops, bottoms, p, ranks, reverse):
            return False
    return m == n or _row_ends(keys, slot, m, ranks, bounded)


@jit(inline="always")
def _row_ends(keys, slot, m, ranks, bounded):
    """Whether the row stored in ``keys[slot]`` ends after ``m`` piles (a row shorter than the deck):
    ``0``, or with ``bounded`` also an end mark of :func:`_insert_bounded`."""
    return keys[slot, m] == 0 or (bounded and keys[slot, m] >= ranks * ranks + 1)


@jit(inline="always")
def _find(hashes, keys, h, tops, bottoms, m, ranks, reverse, bounded):
    """The slot of the row in the lost-row table (linear probing), or -1."""
    mask = np.uint64(hashes.shape[0] - 1)
    slot = _home(h, mask)
    while _live(hashes[slot], h):
        if hashes[slot] == h and _same_row(keys, slot, tops, bottoms, m, ranks, reverse, bounded):
            return np.int64(slot)
        slot = (slot + np.uint64(1)) & mask
    return np.int64(-1)


@jit(inline="always")
def _same_child(keys, slot, tops, bottoms, m, ranks, reverse, i, j, new_top):
    """Whether ``keys[slot]`` starts with the codes of the row after the move ``i -> j`` (pile ``j``'s
    top becomes ``new_top``, pile ``i`` goes), read from the row before it."""
    for p in range(j):
        if keys[slot, p] != _row_code(tops, bottoms, p, ranks, reverse):
            return False
    if keys[slot, j] != _code(new_top, bottoms[j], ranks, reverse):
        return False
    for p in range(j + 1, i):
        if keys[slot, p] != _row_code(tops, bottoms, p, ranks, reverse):
            return False
    for p in range(i, m - 1):
        if keys[slot, p] != _row_code(tops, bottoms, p + 1, ranks, reverse):
            return False
    return True


@jit(inline="always")
def _find_child(hashes, keys, h, tops, bottoms, m, ranks, reverse, bounded, i, j, new_top):
    """:func:`_find` for the child of the move ``i -> j`` (``m - 1`` piles, fewer than the deck's)
    without making the move."""
    mask = np.uint64(hashes.shape[0] - 1)
    slot = _home(h, mask)
    while _live(hashes[slot], h):
        if (hashes[slot] == h and _same_child(keys, slot, tops, bottoms, m, ranks, reverse, i, j, new_top)
                and _row_ends(keys, slot, m - 1, ranks, bounded)):
            return np.int64(slot)
        slot = (slot + np.uint64(1)) & mask
    return np.int64(-1)


@jit(inline="always")
def _lookup(hashes, keys, h, tops, bottoms, m, ranks, reverse):
    return _find(hashes, keys, h, tops, bottoms, m, ranks, reverse, False) >= 0


@jit(inline="always")
def _claim(hashes, h, filled):
    """The free slot of the lost-row table where a row of hash ``h`` goes (linear probing), its hash
    written there: ``(slot, filled)``, the table emptied first when it would pass 3/4 full."""
    slots = hashes.shape[0]
    if 4 * (filled + 1) > 3 * slots:
        hashes[:] = 0
        filled = 0
    mask = np.uint64(slots - 1)
    slot = _home(h, mask)
    while _live(hashes[slot], h):
        slot = (slot + np.uint64(1)) & mask
    hashes[slot] = h
    return slot, filled


@jit(inline="always")
def _insert(hashes, keys, h, tops, bottoms, m, ranks, reverse, filled):
    """Insert the row; returns the new fill count (the table is emptied when 3/4 full)."""
    slot, filled = _claim(hashes, h, filled)
    n = keys.shape[1]
    for p in range(m):
        keys[slot, p] = _row_code(tops, bottoms, p, ranks, reverse)
    if m < n:
        keys[slot, m] = 0
    return filled + 1


@jit(inline="always")
def _lookup_bounded(hashes, keys, h, tops, bottoms, m, ranks, reverse, bound):
    """Whether the row is known lost from ``bound`` (stored with a bound of at most it)."""
    slot = _find(hashes, keys, h, tops, bottoms, m, ranks, reverse, True)
    return slot >= 0 and _lost_from(keys, slot, m, ranks, bound)


@jit(inline="always")
def _lost_from(keys, slot, m, ranks, bound):
    """Whether the row of ``m`` piles stored in ``slot`` is lost from ``bound``: the dealt row (stored
    from bound 0, no end mark), a row stored without a bound (end ``0``: lost from every bound), or
    one stored with a bound of at most ``bound``."""
    if m == keys.shape[1]:
        return True
    mark = np.int64(keys[slot, m])
    return mark == 0 or mark - (ranks * ranks + 1) <= bound


@jit(inline="always")
def _insert_bounded(hashes, keys, h, tops, bottoms, m, ranks, reverse, bound, filled):
    """Store the row as lost from ``bound`` (the commuting-move reduction, see
    :mod:`exact.prisoners.solver`): the slot holds the row's codes, then the end mark
    ``ranks * ranks + 1 + bound`` (above every code) where the row is shorter than the deck; a row
    stored already keeps the lesser bound. Returns the new fill count (emptied when 3/4 full)."""
    end = ranks * ranks + 1
    slot = _find(hashes, keys, h, tops, bottoms, m, ranks, reverse, True)
    if slot >= 0:
        if m < keys.shape[1] and keys[slot, m] > end + bound:
            keys[slot, m] = end + bound
        return filled
    free, filled = _claim(hashes, h, filled)
    for p in range(m):
        keys[free, p] = _row_code(tops, bottoms, p, ranks, reverse)
    if m < keys.shape[1]:
        keys[free, m] = end + bound
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


@jit(inline="always")
def _uncoverable_cards(tops, m, neighbours, ranks, right, total):
    """Cards of a physical row that can never be covered: no adjacent rank to their right, and at most
    one anywhere or a position below 3 (:func:`exact.prisoners.proofs.uncoverable_cards`). Returns
    how many (0, 1, or 2 for two or more)."""
    for r in range(ranks):
        right[r] = 0
        total[r] = 0
    for p in range(m):
        total[tops[p]] += 1
    found = 0
    for k in range(m):
        p = m - 1 - k
        t = tops[p]
        on_right = 0
        in_all = 0
        nb = neighbours[t]
        for r in range(ranks):
            if (nb >> r) & 1:
                on_right += right[r]
                in_all += total[r]
        if on_right == 0 and (in_all <= 1 or p <= 2):
            found += 1
            if found == 2:
                return 2
        right[t] += 1
    return found


@jit(inline="always")
def _stranded_cards(tops, m, neighbours, ranks, work):
    """Whether the stranded cards of a physical row cannot, all but one, be given distinct partners to
    land on (:func:`exact.prisoners.proofs.stranded_cards`): a maximum bipartite matching by
    breadth-first augmenting paths on bit masks of positions. ``work``: ``ranks + 6 * m`` ints."""
    if m <= 1:
        return False
    at = work[:ranks]  # at[r]: the positions holding rank r, a bit mask
    cards = work[ranks:ranks + m]  # the stranded cards, by position
    options = work[ranks + m:ranks + 2 * m]  # per stranded card: its landing partners, a bit mask
    owner = work[ranks + 2 * m:ranks + 3 * m]  # per position: the stranded card landing there, or -1
    landing = work[ranks + 3 * m:ranks + 4 * m]  # per stranded card: where it lands, or -1
    previous = work[ranks + 4 * m:ranks + 5 * m]  # per position: the card that reached it in the search
    queue = work[ranks + 5 * m:ranks + 6 * m]
    for r in range(ranks):
        at[r] = 0
    for p in range(m):
        at[tops[p]] |= np.int64(1) << p
    count = 0
    hopeless = 0
    seen = np.int64(0)  # ranks to the right
    for k in range(m):
        p = m - 1 - k
        t = tops[p]
        nb = neighbours[t]
        if (nb & seen) == 0:
            mask = np.int64(0)
            if p >= 3:
                for r in range(ranks):
                    if (nb >> r) & 1:
                        mask |= at[r]
                if (mask & (mask - 1)) == 0:  # fewer than two partners
                    mask = np.int64(0)
            if mask == 0:
                hopeless += 1
                if hopeless == 2:
                    return True
            cards[count] = p
            options[count] = mask
            count += 1
        seen |= np.int64(1) << t
    if count <= 1:
        return False
    for p in range(m):
        owner[p] = -1
    unmatched = 0
    for i in range(count):
        landing[i] = -1
        if options[i] == 0:
            unmatched += 1
            if unmatched == 2:
                return True
            continue
        visited = np.int64(0)
        queue[0] = i
        head = 0
        tail = 1
        found = -1
        while head < tail and found < 0:
            u = queue[head]
            head += 1
            free = options[u] & ~visited
            q = 0
            while free != 0:
                if (free >> q) & 1:
                    free ^= np.int64(1) << q
                    visited |= np.int64(1) << q
                    previous[q] = u
                    if owner[q] < 0:
                        found = q
                        break
                    queue[tail] = owner[q]
                    tail += 1
                q += 1
        if found < 0:
            unmatched += 1
            if unmatched == 2:
                return True
            continue
        q = found
        while True:  # flip the path: every card on it takes the position that reached it
            u = previous[q]
            nxt = landing[u]
            owner[q] = u
            landing[u] = q
            if u == i:
                break
            q = nxt
    return False


@jit(inline="always")
def _frozen_piles(tops, bottoms, m, neighbours, ranks, counts):
    """A published row's frozen top or two frozen bottoms (:func:`exact.prisoners.proofs.frozen_piles`);
    ``counts[r]``: piles showing rank ``r`` (the first pile shows its top only)."""
    if m <= 1:
        return False
    for r in range(ranks):
        counts[r] = 0
    for p in range(m):
        counts[tops[p]] += 1
        if p > 0 and bottoms[p] != tops[p]:
            counts[bottoms[p]] += 1
    frozen_bottoms = 0
    for p in range(m):
        t = tops[p]
        b = bottoms[p]
        shown = np.int64(1) << t
        if p > 0:
            shown |= np.int64(1) << b
        elsewhere = 0
        nb = neighbours[t]
        for r in range(ranks):
            if (nb >> r) & 1:
                elsewhere += counts[r] - ((shown >> r) & 1)
        if elsewhere == 0:
            return True
        if p > 0:
            elsewhere = 0
            nb = neighbours[b]
            for r in range(ranks):
                if (nb >> r) & 1:
                    elsewhere += counts[r] - ((shown >> r) & 1)
            if elsewhere == 0:
                frozen_bottoms += 1
                if frozen_bottoms == 2:
                    return True
    return False


@jit(inline="always")
def _pairable(counts, ranks, cycle):
    """Whether ``counts[r]`` items of each rank split into pairs of adjacent ranks (a path of ranks,
    or a cycle): :func:`exact.prisoners.proofs.pairable` in closed form. ``x_r`` pairs join ranks
    ``r`` and ``r + 1`` (``x_{R-1}``: ranks ``R-1`` and ``0`` on the cycle, else 0); going up from
    rank 0, ``x_r = c_r + (-1)^(r+1) k`` with ``k = x_{R-1}`` and ``c_r = counts[r] - c_{r-1}``, so
    every ``x_r >= 0`` bounds ``k`` from below (odd ``r``) or above (even ``r``), and closing the
    cycle fixes ``k = c_{R-1} / 2`` (odd ``R``) or requires ``c_{R-1} = 0`` (even ``R``)."""
    c = 0
    lo = 0
    hi = 1 << 40
    for r in range(ranks):
        c = counts[r] - c
        if r % 2 == 1:
            if -c > lo:
                lo = -c
        elif c < hi:
            hi = c
    if not cycle:
        return c == 0 and lo == 0 and hi >= 0  # k = 0: no pairs across the missing closing edge
    if ranks % 2 == 1:
        if c < 0 or c % 2 == 1:
            return False
        return lo <= c // 2 <= hi
    return c == 0 and lo <= hi


@jit(inline="always")
def _unpaired_tops(tops, bottoms, m, ranks, cycle, counts):
    """A published row whose tops to come cannot pair up into moves
    (:func:`exact.prisoners.proofs.unpaired_tops`); ``counts``: work space of ``ranks`` ints."""
    if m <= 1:
        return False
    for r in range(ranks):
        counts[r] = 0
    for p in range(m):
        counts[tops[p]] += 1
        if p > 0:
            counts[bottoms[p]] += 1
    last = np.int64(0)  # the final top is the bottom of the last pile moved: a pile other than the first
    for p in range(1, m):
        last |= np.int64(1) << bottoms[p]
    for f in range(ranks):
        if counts[f] > 0 and (last >> f) & 1:
            counts[f] -= 1
            ok = _pairable(counts, ranks, cycle)
            counts[f] += 1
            if ok:
                return False
    return True


@jit(inline="always")
def _immovable_piles(tops, bottoms, m, neighbours, ranks, reach):
    """Whether some pile of a published row other than the first can never move, by the least
    fixpoint of :func:`exact.prisoners.proofs.immovable_piles` on bit masks (``reach[k]``: the ranks
    pile ``k`` may ever show as its top; ``moved``: the piles that may ever move).

    The rule is applied in any order until nothing changes (a monotone rule reaches the same least
    fixpoint whatever the order), and the answer is ``False`` as soon as every pile but the first
    is in ``moved`` (which only grows). A first sweep looks, for each mover ``i``, for one target
    only (most rows stop there); the full sweeps then try every target. For each mover the targets
    ``k`` are scanned leftwards and the scan stops once three piles not in ``moved`` lie between (no
    target further left can qualify: that count only grows)."""
    if m <= 1:
        return False
    for p in range(m):
        reach[p] = np.int64(1) << tops[p]
    everyone = ((np.int64(1) << m) - 1) ^ np.int64(1)
    moved = np.int64(0)
    first = True
    changed = True
    while changed:
        changed = False
        for i in range(1, m):
            if first and (moved >> i) & 1:
                continue
            near = np.int64(0)
            mine = reach[i]
            for r in range(ranks):
                if (mine >> r) & 1:
                    near |= neighbours[r]
            shown = np.int64(1) << bottoms[i]
            stuck = 0
            for k in range(i - 1, -1, -1):
                if (stuck == 0 or (stuck <= 2 and i - k - 1 >= 2)) and (near & reach[k]) != 0:
                    if (reach[k] & shown) == 0:
                        reach[k] |= shown
                        changed = True
                    if (moved >> i) & 1 == 0:
                        moved |= np.int64(1) << i
                        changed = True
                        if moved == everyone:
                            return False
                    if first:
                        break
                if (moved >> k) & 1 == 0:
                    stuck += 1
                    if stuck > 2:
                        break
        if first:
            first = False
            changed = True
    return True


def is_cycle(neighbours) -> bool:
    """Whether the ranks of ``neighbours`` (:func:`neighbour_masks`) form a cycle (wrap, 3 ranks or more)."""
    ranks = len(neighbours)
    return bool(ranks >= 3 and (int(neighbours[0]) >> (ranks - 1)) & 1)


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
ALL_PROOFS = CONNECTED_PROOF | UNCOVERABLE_PROOF | FROZEN_PROOF | UNPAIRED_PROOF
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
_TOUCHED = 13  # the xor of the table words :func:`_child_hashes` read (kept so the reads are made)
_GENERATION = 14  # the lost-row table's generation (:func:`next_generation`)
#: Verdict code of a search paused at its node stop (resume it with the same state).
PAUSED_CODE = 3


def new_state(cards: int, ranks: int):
    """Work arrays of one search from a row of ``cards`` piles: ``(scalars, moves, counts, cursor,
    undo, holders, profile)``; :func:`start` readies them for a row. ``profile`` counts, per depth
    (moves made from the dealt row), the rows expanded (``profile[0]``), the rows found in the
    lost-row table (``profile[1]``) and the legal moves generated (``profile[2]``); it is never
    reset by the search (the caller empties it), so it can sum several runs."""
    n = cards
    return (np.zeros(15, dtype=np.int64), np.empty((n, 4 * n), dtype=np.int64), np.zeros(n, dtype=np.int64),
            np.zeros(n, dtype=np.int64), np.empty((n, 6), dtype=np.int64),
            np.empty(3 * max(ranks, 1) + n, dtype=np.int64),
            np.zeros((3, n), dtype=np.int64))


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
def _search(tops, bottoms, neighbours, ranks, reverse, ordering, hashes, keys, line, scalars, moves, counts,
            cursor, undo, holders, profile, node_stop, proofs):
    """Depth-first best-play search from the row ``tops``/``bottoms``, resumable.

    The whole search state lives in the arrays (``scalars``, ``moves``, ``counts``, ``cursor``,
    ``undo``; see :func:`new_state`), so the search stops when it would expand node ``node_stop + 1``
    (verdict ``PAUSED_CODE``, row and stack left as they are) and a later call with the same arrays
    goes on exactly where it stopped. On any other verdict the start row is restored.
    Returns the verdict code; ``scalars`` holds the node count (rows expanded, as the reference
    counts them), the fill of the table and the number of rows cut by the connectivity proof; on a
    win ``line[:cards - 1]`` holds the moves ``(source, target)``.
    """
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
                h = _tag(_row_hash(tops, bottoms, m, ranks, reverse), generation)
            else:  # computed by the parent (_child_hashes), beside the move that made this row
                h = np.uint64(moves[depth - 1, half + cursor[depth - 1] - 1])
            undo[depth, 5] = np.int64(h)  # the row's hash, for its insertion when it is proven lost
            if depth > 0:
                known = False  # the parent looked it up before making the move
            elif commute:  # the dealt row: lost from bound 0
                known = _lookup_bounded(hashes, keys, h, tops, bottoms, m, ranks, reverse, 0)
            else:
                known = _lookup(hashes, keys, h, tops, bottoms, m, ranks, reverse)
            if known:
                profile[1, depth] += 1
                counts[depth] = 0  # known lost: back out without expanding or re-inserting
                cursor[depth] = -1
            else:
                if nodes >= node_stop:
                    break  # paused before expanding this row; the next call enters it again
                nodes += 1
                profile[0, depth] += 1
                proofs = every if limit == 0 or m <= limit else every & COMMUTE
                counts[depth] = 0
                if (proofs & CONNECTED_PROOF) and not _linked(tops, bottoms, m, neighbours, ranks, reverse, holders):
                    disconnected += 1
                elif ((proofs & UNCOVERABLE_PROOF) and not reverse
                      and _uncoverable_cards(tops, m, neighbours, ranks, right, total) >= 2):
                    uncoverable += 1
                elif (proofs & FROZEN_PROOF) and reverse and _frozen_piles(tops, bottoms, m, neighbours, ranks, total):
                    frozen += 1
                elif (proofs & UNPAIRED_PROOF) and reverse and _unpaired_tops(tops, bottoms, m, ranks, cycle, total):
                    unpaired += 1
                elif (proofs & IMMOVABLE_PROOF) and reverse and _immovable_piles(tops, bottoms, m, neighbours, ranks,
                                                                                 reach):
                    immovable += 1
                elif (proofs & STRANDED_PROOF) and not reverse and _stranded_cards(tops, m, neighbours, ranks, work):
                    stranded += 1
                else:
                    counts[depth], rng = _gen_moves(tops, bottoms, m, neighbours, ordering, reverse, moves[depth], rng,
                                                    scores)
                    if commute and depth:
                        counts[depth] = _from_bound(moves[depth], counts[depth], undo[depth - 1, 1])
                    profile[2, depth] += counts[depth]
                    touched ^= _child_hashes(tops, bottoms, m, ranks, reverse, moves[depth], counts[depth], prefix,
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
            slot = _find_child(hashes, keys, h, tops, bottoms, m, ranks, reverse, commute, i, j, new_top)
            if slot >= 0 and (not commute or _lost_from(keys, slot, m - 1, ranks, j)):
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
                filled = _insert_bounded(hashes, keys, h, tops, bottoms, m, ranks, reverse,
                                         undo[depth - 1, 1] if depth else 0, filled)
            else:
                filled = _insert(hashes, keys, h, tops, bottoms, m, ranks, reverse, filled)
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
    verdict = _search(tops, bottoms, neighbours, ranks, reverse, ordering, hashes, keys, line, *state, node_budget,
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
