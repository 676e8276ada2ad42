"""The lost-row table of the Prisoner's Patience search kernel (:mod:`exact.prisoners.solver_kernel`).

Open addressing over a 64-bit polynomial hash of the reduced row (top ranks, or (top, bottom) ranks
with ``moves=published``); every slot also stores the **whole reduced row**, compared in full on
lookup, so a hash collision can only miss, never turn a win into a loss. A slot's hash and row share
one 64-byte record (:func:`new_table`); the table is emptied for the next deck by a generation byte
in each hash word (:func:`next_generation`). With the ``COMMUTE`` bit a row is stored with the bound
it was proven lost from (:func:`insert_row_bounded`).

The table a search *may* use is sized for its whole node budget (:func:`table_slots`), but it starts
small (:data:`START_SLOTS`) and the searcher makes it :data:`GROWTH` times larger between two
slices of nodes (:func:`grow_table`) before it could pass half full, so that a deck settled in few nodes touches
few pages of memory rather than mapping most of a table of up to 4 GiB that it fills sparsely (see
benchmarks/README.md). Growing moves every row of
the current generation to the larger table and drops the rest (rows of earlier decks, which are
dead anyway); a lookup finds the same rows in either table, so the search expands the same nodes
and reaches the same verdict as with the whole table from the start (tested).
"""
from __future__ import annotations

import numpy as np

from exact.prisoners.limits import MAX_KERNEL_CARDS
from sim._jit import jit

#: The rows' polynomial hash (:func:`row_hash`): an odd base (invertible modulo ``2**64``), its powers
#: and its inverse.
_BASE = 0x9E3779B97F4A7C15
_POWERS = np.array([pow(_BASE, p, 1 << 64) for p in range(MAX_KERNEL_CARDS + 1)], dtype=np.uint64)
_BASE_INVERSE = np.uint64(pow(_BASE, -1, 1 << 64))


#: Memory of one search's lost-row table (hashes and rows) at most: 4 GiB, 67,108,864 slots of a
#: 52-card deck, so that searches of up to 33,554,432 nodes never empty it (see :func:`new_table`).
MAX_TABLE_BYTES = 4 * 2**30


def _key_dtype(cards: int, ranks: int):
    return np.uint8 if ranks * ranks + cards <= 255 else np.uint16  # codes, and the end marks of insert_row_bounded


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


#: The slots a searcher's lost-row table starts with (8 MiB of records for a 52-card deck), and the
#: factor it grows by (:func:`grow_table`) when it could pass half full: with 8 rather than 2, a
#: search that ends with the whole table has moved its rows three times, at most an eighth of its
#: budget the last time, instead of eight times (benchmarks/README.md).
START_SLOTS = 1 << 17
GROWTH = 8


def new_table(cards: int, ranks: int, node_budget: int, max_slots: int | None = None):
    """An empty lost-row table sized for ``node_budget`` expansions (:func:`table_slots`), or of at
    most ``max_slots`` slots: ``(hashes, keys)``, two views of one array of records
    (:func:`record_words`), so that a slot's hash and row share a cache line: a lookup that finds
    its hash finds the row to compare in the same memory fetch (with the hashes and rows in two
    arrays, 1.2 to 1.3 times the CPU time a node on published 52-card decks)."""
    slots = table_slots(cards, ranks, node_budget)
    if max_slots is not None:
        slots = min(slots, max(1 << 10, 1 << (max_slots.bit_length() - 1)))
    return _views(np.zeros((slots, record_words(cards, ranks)), dtype=np.uint64), _key_dtype(cards, ranks), cards)


def _views(records, dtype, cards: int):
    """``(hashes, keys)``: the hash word and the row codes of each record of ``records``."""
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
#: CPU second a deck). A hash carrying its generation (:func:`slot_tag`) picks its slot by its bits above.
GENERATIONS = 255
_GEN_MASK = np.uint64(0xFF)


@jit(inline="always")
def slot_tag(h, generation):
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


def grow_table(hashes, keys, generation: int, slots: int):
    """A lost-row table of ``slots`` slots (a power of two, larger than the old) holding every row
    of ``generation`` that ``(hashes, keys)`` (from :func:`new_table`) holds, each at the slot linear
    probing gives it there: ``(hashes, keys, rows moved)``. Whole records are copied, in the order
    of the old slots, so the writes run through the new table in two ascending streams (a row's
    new home is its old home or that plus the old size)."""
    records = hashes.base
    if records is None or records.ndim != 2 or slots & (slots - 1) or slots < hashes.shape[0]:
        raise ValueError(f"a lost-row table of new_table grows to a larger power of two, not {slots}")
    grown = np.zeros((slots, records.shape[1]), dtype=np.uint64)
    moved = _move_records(records, grown, np.uint64(generation))
    return (*_views(grown, keys.dtype, keys.shape[1]), int(moved))


@jit
def _move_records(records, grown, generation):
    mask = np.uint64(grown.shape[0] - 1)
    moved = 0
    for old in range(records.shape[0]):
        word = records[old, 0]
        if word == 0 or (word & _GEN_MASK) != generation:
            continue
        slot = _home(word, mask)
        while _live(grown[slot, 0], word):
            slot = (slot + np.uint64(1)) & mask
        grown[slot, :] = records[old, :]
        moved += 1
    return moved


@jit(inline="always")
def row_hash(tops, bottoms, m, ranks, reverse):
    """The row's hash: :func:`_mix` of the polynomial ``sum(code_p * BASE**p) mod 2**64`` over its
    piles' codes (:func:`_row_code`), so that a child's hash follows from its parent's prefix sums in
    a few operations (:func:`child_hashes`)."""
    h = np.uint64(0)
    for p in range(m):
        h += np.uint64(_row_code(tops, bottoms, p, ranks, reverse)) * _POWERS[p]
    return _mix(h)


@jit(inline="always")
def child_hashes(tops, bottoms, m, ranks, reverse, out, count, prefix, hashes, hashes_out, offset, generation):
    """The hash (:func:`row_hash`, tagged with the ``generation``) of the child of each move
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
        h = slot_tag(_mix(raw), generation)
        hashes_out[offset + a] = np.int64(h)
        seen ^= hashes[_home(h, mask)]
    return seen


@jit(inline="always")
def _same_row(keys, slot, tops, bottoms, m, ranks, reverse, bounded):
    """Whether ``keys[slot]`` holds the row: its codes, then the end of the row (unless it fills the
    slot): ``0``, or with ``bounded`` also an end mark of :func:`insert_row_bounded` (above every code):
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
    ``0``, or with ``bounded`` also an end mark of :func:`insert_row_bounded`."""
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
def find_child(hashes, keys, h, tops, bottoms, m, ranks, reverse, bounded, i, j, new_top):
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
def lookup_row(hashes, keys, h, tops, bottoms, m, ranks, reverse):
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
def insert_row(hashes, keys, h, tops, bottoms, m, ranks, reverse, filled):
    """Insert the row; returns the new fill count (the table is emptied when 3/4 full)."""
    slot, filled = _claim(hashes, h, filled)
    n = keys.shape[1]
    for p in range(m):
        keys[slot, p] = _row_code(tops, bottoms, p, ranks, reverse)
    if m < n:
        keys[slot, m] = 0
    return filled + 1


@jit(inline="always")
def lookup_row_bounded(hashes, keys, h, tops, bottoms, m, ranks, reverse, bound):
    """Whether the row is known lost from ``bound`` (stored with a bound of at most it)."""
    slot = _find(hashes, keys, h, tops, bottoms, m, ranks, reverse, True)
    return slot >= 0 and lost_from(keys, slot, m, ranks, bound)


@jit(inline="always")
def lost_from(keys, slot, m, ranks, bound):
    """Whether the row of ``m`` piles stored in ``slot`` is lost from ``bound``: the dealt row (stored
    from bound 0, no end mark), a row stored without a bound (end ``0``: lost from every bound), or
    one stored with a bound of at most ``bound``."""
    if m == keys.shape[1]:
        return True
    mark = np.int64(keys[slot, m])
    return mark == 0 or mark - (ranks * ranks + 1) <= bound


@jit(inline="always")
def insert_row_bounded(hashes, keys, h, tops, bottoms, m, ranks, reverse, bound, filled):
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
