"""A layered search for Prisoner's Patience best play (``strategy="layers"``), which never forgets a row.

Dealing first loses nothing (:mod:`exact.prisoners.solver`), and every move removes one pile, so the
rows reachable from a dealt row of ``n`` piles fall into layers by pile count: layer ``k`` holds the
distinct rows of ``n - k`` piles, each one move from some row of layer ``k - 1``. This search builds
the layers one after the other, each with its duplicates removed, and keeps every row of the layer
it is building:

* the deck is **won** when the layer of one pile is reached (a row of one pile is the whole deck in
  one pile); the winning line is read back through the parent of each row (each row of a layer
  keeps the index of a row of the layer before that reaches it, and the move that does);
* it is **lost** when a layer comes out empty: every row reachable from the dealt row was built
  (they are exactly the rows of the layers, by induction on ``k``), and none of them has one pile.
  The proof is the exhaustion of the reachable rows, as the depth-first search's is;
* it is **open** when its row budget or its time budget runs out first, when a layer would hold
  more than its width cap (``max_width`` rows; the solver's is a share of the row budget,
  :data:`exact.prisoners.limits.LAYER_WIDTH_SHARE`), or when the next layer would need more memory
  than :data:`MAX_LAYER_BYTES` (the arrays are counted before they are made, so the search stops
  rather than swap or be killed). Only "open" ever comes early: a won or lost verdict is the same
  whatever the caps.

**Commuting moves** (on by default): each row of a layer also keeps a *bound*, and only moves whose
source is at least the bound are tried from it; a row made by a move onto pile ``j`` gets bound
``j``, and a row made again, by another move, keeps the least of its bounds (the dealt row has bound
0). *Proof that each layer still holds every reachable row.* :mod:`exact.prisoners.solver` proves,
for any line of moves, that rearranging it by swapping consecutive moves with disjoint spans gives a
line to the same row in which no move's source is left of the previous move's target (a canonical
line; its proof never uses that the line wins). Take a row ``T`` of layer ``k`` and a canonical line
to it; by induction on ``i``, its ``i``-th row is in layer ``i`` with a bound at most the target of
the line's ``i``-th move (the least bound is kept, and that move made the row with that bound), so
the line's next move, whose source is at least that target, is tried. Hence the layers, the verdict
and the rows counted are those of the plain search; the reduction only skips moves (what it saves is measured in
benchmarks/README.md).

A row is what the solver's lost-row table stores (:mod:`exact.prisoners.lost_rows`): its piles' top
ranks (``moves=physical``) or ``(bottom, top)`` ranks (``moves=published``), in one byte a pile
(``16 * bottom + top``, so at most 16 ranks); two rows with equal codes have equal futures (the
reduction is proved in :mod:`exact.prisoners.solver`). Duplicates are removed with an open-address
hash set that compares whole rows, so a hash collision never merges two rows; a child's hash follows
from its parent's polynomial sum and prefix sums in a few operations, as in the solver.

Against the depth-first search (``benchmarks/prisoners_layers.py``, physical 52-card decks) it
expands about as many rows on a lost deck (no proofs, but no row twice) at a fraction of the CPU
time a row (no undo, rows read in order), but holds whole layers in memory (:func:`layer_bytes`:
at most about 310 bytes a row of the widest layer of a 52-card deck while the next is built) and finds a win only at its last
layer; the comparison is in benchmarks/README.md.
"""
from __future__ import annotations

import numpy as np

from exact.prisoners.limits import (  # MAX_LAYER_RANKS: ranks a row holds (four bits a rank)
    MAX_LAYER_RANKS,  # noqa: F401
    STOP_MEMORY,
    STOP_NODES,
    STOP_TIME,
    STOP_WIDTH,
)
from exact.prisoners.lost_rows import _BASE_INVERSE, _POWERS, MAX_TABLE_BYTES, _mix
from sim._jit import jit

#: Rows expanded between two looks at the clock.
SLICE = 65_536
#: The most memory a layered search holds (:func:`layer_bytes`) before its verdict is open: as
#: much as the depth-first search's lost-row table may take (:data:`exact.prisoners.lost_rows.MAX_TABLE_BYTES`).
MAX_LAYER_BYTES = MAX_TABLE_BYTES


def _table_size(room: int) -> int:
    """Slots of the hash set of a layer built with room for ``room`` rows (less than half full)."""
    return 1 << int(2 * room).bit_length()


def layer_bytes(width: int, piles: int, room: int, held_rows: int, old_room: int = 0) -> int:
    """Bytes a search holds while it builds the layer after one of ``width`` rows of ``piles`` piles
    with room for ``room`` rows: that layer (codes, sums, bounds), the new layer's arrays (codes,
    sums, bounds, parents, moves), its hash set (4 bytes a slot), the parents and moves of the
    ``held_rows`` rows of the layers built before, and, while the new layer's arrays grow, the
    ``old_room`` rows of those they replace (with their hash set)."""
    new_row = piles - 1 + 8 + 1 + 4 + 2
    return (width * (piles + 9) + room * new_row + 4 * _table_size(room) + 6 * held_rows
            + (old_room * new_row + 4 * _table_size(old_room) if old_room else 0))


def first_room(width: int, before: int, piles: int) -> int:
    """Rows the next layer's arrays are first made for, from the current layer's ``width`` and the
    one ``before`` it: the width grown as it last grew (at least 1, at most 3 times), and a tenth
    more; they grow by half when full (:func:`layered_search`)."""
    ratio = min(3.0, max(1.0, width / max(1, before)))
    return max(1024, int(1.1 * ratio * width) + 2 * piles)


@jit
def _rehash(table, sums, count, mask):
    """``table`` (all slots free) filled with the indices ``0 .. count - 1`` of rows whose
    polynomial sums are ``sums``, each at the slot :func:`_expand` would give it."""
    for e in range(count):
        slot = np.int64(_mix(sums[e]) & mask)
        while table[slot] >= 0:
            slot = (slot + 1) & np.int64(mask)
        table[slot] = e


@jit
def _expand(layer, sums, bounds, start, stop, n, neighbours, reverse, table, mask, out, out_sums, out_bounds,
            parent, move, count):
    """The children of ``layer[start:stop]`` (rows of ``n`` pile codes, ``sums`` their polynomial
    sums, ``bounds`` their bounds) added to ``out`` (rows of ``n - 1``) unless there already, each
    new one with its parent's index, its move (``64 * source + target``) and its bound (the move's
    target; a row reached again keeps the least): ``(row reached, count)``; stops early, before a
    row whose children might not fit in ``out``. Pile ``i`` (at least the row's bound) goes onto
    ``j = i - 1`` or ``i - 3`` when the tops are adjacent, ``j`` taking the code ``i``'s top
    (physical) or ``16 * bottom_j + bottom_i`` (published: the pile reversed)."""
    powers, inverse = _POWERS, _BASE_INVERSE  # the hash's (constants of the compiled function)
    prefix = np.empty(n + 1, np.uint64)
    for r in range(start, stop):
        if count + 2 * n > out.shape[0]:
            return r, count
        row = layer[r]
        total = sums[r]
        low = max(1, np.int64(bounds[r]))
        prefix[0] = 0
        for k in range(n):
            prefix[k + 1] = prefix[k] + np.uint64(row[k] + 1) * powers[k]
        for i in range(n - 1, low - 1, -1):
            mover = row[i]
            for d in (1, 3):
                j = i - d
                if j < 0:
                    break
                if not (neighbours[mover & 15] >> (row[j] & 15)) & 1:
                    continue
                code = ((row[j] >> 4) << 4) | (mover >> 4) if reverse else mover
                h = (prefix[i] + np.uint64(code + 1) * powers[j] - np.uint64(row[j] + 1) * powers[j]
                     + (total - prefix[i + 1]) * inverse)
                slot = np.int64(_mix(h) & mask)
                while True:
                    e = table[slot]
                    if e < 0:
                        m = 0
                        for k in range(n):
                            if k != i:
                                out[count, m] = code if k == j else row[k]
                                m += 1
                        out_sums[count] = h
                        out_bounds[count] = j
                        parent[count] = r
                        move[count] = 64 * i + j
                        table[slot] = count
                        count += 1
                        break
                    if out_sums[e] == h:
                        same = True
                        m = 0
                        for k in range(n):
                            if k != i:
                                if out[e, m] != (code if k == j else row[k]):
                                    same = False
                                    break
                                m += 1
                        if same:
                            if j < out_bounds[e]:
                                out_bounds[e] = j
                            break
                    slot = (slot + 1) & np.int64(mask)
    return stop, count


def _grown(array, rows: int, count: int):
    """A copy of ``array`` with room for ``rows`` rows, its first ``count`` kept."""
    out = np.empty((rows,) + array.shape[1:], dtype=array.dtype)
    out[:count] = array[:count]
    return out


def layered_search(ranks_dealt, neighbours, reverse: bool, row_budget: int, clock=None, commute: bool = True,
                   max_bytes: int = MAX_LAYER_BYTES, max_width: int | None = None, on_layer=None):
    """Search the row dealt from ``ranks_dealt`` layer by layer.

    ``neighbours``: :func:`exact.prisoners.solver_kernel.neighbour_masks` of the deck's ranks (at most
    :data:`MAX_LAYER_RANKS`) and wrap; ``reverse``: ``moves=published``; ``row_budget``: the most rows
    expanded (the verdict is open if more would be); ``clock()``: true when the time budget is spent (looked at every
    :data:`SLICE` rows); ``commute``: the commuting-move reduction (the module docstring; off, every
    move of every row is tried); ``max_bytes``: the memory it may hold (:func:`layer_bytes`);
    ``max_width``: the most rows a layer may hold (none: no cap but memory); ``on_layer(width,
    held_bytes, rows)`` after each layer is built: its rows, the most bytes :func:`layer_bytes`
    counted while building it, and the rows expanded so far (``benchmarks/prisoners_layers.py
    --methods profile``).
    Returns ``(status, line, rows, widths, stop)``: ``"won"`` (with the winning line, ``(source,
    target)`` moves after dealing), ``"lost"`` or ``"open"``; the rows expanded; the rows of each
    layer built; for ``"open"``, why the search stopped (:data:`exact.prisoners.limits.STOPS`: the
    row budget, the clock, the width cap or the memory cap), else ``None``.
    """
    codes = [17 * int(r) if reverse else int(r) for r in ranks_dealt]
    n = len(codes)
    layer = np.array([codes], dtype=np.uint8)
    sums = np.array([sum((c + 1) * int(_POWERS[k]) for k, c in enumerate(codes)) % (1 << 64)], dtype=np.uint64)
    bounds = np.zeros(1, dtype=np.uint8)  # the dealt row: every move
    links = []  # per layer built: (parent index, move) of each row
    done, widths = 0, []  # rows expanded in the layers before this one
    while n > 1:
        widths.append(len(layer))
        # arrays never beyond the cap and one row's children (_expand's margin)
        most = None if max_width is None else max_width + 2 * n
        room = first_room(len(layer), widths[-2] if len(widths) > 1 else 1, n)
        if most is not None:
            room = min(room, most)
        held = layer_bytes(len(layer), n, room, done)
        if held > max_bytes:
            return "open", None, done, widths, STOP_MEMORY
        out = np.empty((room, n - 1), dtype=np.uint8)
        out_sums = np.empty(room, dtype=np.uint64)
        out_bounds = np.empty(room, dtype=np.uint8)
        parent = np.empty(room, dtype=np.int32)
        move = np.empty(room, dtype=np.int16)
        size = _table_size(room)
        table = np.full(size, -1, dtype=np.int32)
        reached = count = 0
        while reached < len(layer):
            if done + reached >= row_budget:  # the budget is spent before this row
                return "open", None, done + reached, widths, STOP_NODES
            stop = min(len(layer), reached + SLICE, row_budget - done)
            reached, count = _expand(layer, sums, bounds, reached, stop, n, neighbours, reverse, table,
                                     np.uint64(size - 1), out, out_sums, out_bounds, parent, move, count)
            if clock is not None and clock():
                return "open", None, done + reached, widths, STOP_TIME
            if max_width is not None and count > max_width:  # the layer is wider than the cap
                return "open", None, done + reached, widths, STOP_WIDTH
            if reached < stop:  # the children might not fit: room for half as many rows again
                grown = room + room // 2 if most is None else min(room + room // 2, most)
                held = max(held, layer_bytes(len(layer), n, grown, done, old_room=room))
                if held > max_bytes:
                    return "open", None, done + reached, widths, STOP_MEMORY
                out, out_sums, out_bounds, parent, move = (
                    _grown(a, grown, count) for a in (out, out_sums, out_bounds, parent, move))
                room = grown
                if _table_size(room) > size:
                    size = _table_size(room)
                    table = np.full(size, -1, dtype=np.int32)
                    _rehash(table, out_sums, count, np.uint64(size - 1))
        done += len(layer)
        del table
        if on_layer is not None:
            on_layer(count, held, done)
        links.append((parent[:count].copy(), move[:count].copy()))
        layer, sums, n = out[:count], out_sums[:count], n - 1
        bounds = out_bounds[:count] if commute else np.zeros(count, dtype=np.uint8)
        if count == 0:
            return "lost", None, done, widths, None
    line, index = [], 0
    for parent, move in reversed(links):
        line.append((int(move[index]) // 64, int(move[index]) % 64))
        index = int(parent[index])
    return "won", tuple(reversed(line)), done, widths, None
