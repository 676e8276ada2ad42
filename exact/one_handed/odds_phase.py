"""The odds from a position by the phase decomposition (the second exact engine of
:mod:`exact.one_handed.odds`).

The recursion
-------------
Read :mod:`exact.one_handed.phase` first: the play above the top three cards ``W`` of a row depends
only on ``W`` and on the *set* of cards dealt meanwhile, and the phase of ``W`` ends in one of
``end(j), S1(a), R1, S2(a), R2, R3``. A position is the settled row ``r_1 .. r_k`` and the set ``U``
of the ``m`` cards still to come. Write ``R_i = (r_{i-2}, r_{i-1}, r_i)`` for the window of the row
cut to its first ``i`` cards (a sentinel, which matches nothing, for an index below 1: ``R_0`` is
three sentinels). The row below ``R_i`` is never touched before the phase of ``R_i`` ends, and each
ending leaves a row that is again a prefix of the settled row, perhaps with the card ``a`` that
ended it on top, still to be compared:

* ``end(j)`` (the cards ran out): final score ``i + j``;
* ``S1(a)``: ``r_{i-1}, r_i`` removed, ``a`` sits on ``r_{i-2}``: state ``B(a)`` of ``R_{i-2}``;
* ``S2(a)``: ``r_i`` and the card above it removed, ``a`` sits on ``r_{i-1}``: ``B(a)`` of ``R_{i-1}``;
* ``R1``, ``R2``, ``R3``: the top 3, 2 or 1 row cards removed with the cards above: state ``A``
  (nothing pending) of ``R_{i-3}``, ``R_{i-2}``, ``R_{i-1}``.

So with ``F_i(C)`` the score counts over the orders of ``C`` from state ``A`` of ``R_i`` and
``G_i(a, C)`` those from state ``B(a)``,
``F_i(C) = sum over X subset C of phase(R_i, X)`` read through the list above, with ``F`` or ``G`` of
the lower window on ``C - X`` (``end`` only for ``X = C``), and ``G_i(a, C)`` the same with the
phase started in state ``B(a)``. The answer is ``F_k(U)``; it must add up to ``m!`` (checked).
``win=any``: an ``R`` ending that reaches ``R_0`` has just emptied the row, and every order of the
cards left counts as won.

Engines
-------
:func:`position_phase_reference` is the plain reference: the recursion above in memoised Python
over :class:`exact.one_handed.phase.PhaseReference`, for small positions. :func:`position_phase_counts`
computes the same in numba: the phase tables of every window reachable from the row windows, dense
over the subsets of the window's *universe* (the cards of ``U`` not in it), filled by set size like
:mod:`exact.one_handed.phase_kernel`, whose layout it follows and whose jitted pieces it shares
(:func:`exact.one_handed.split_sum.pair_vector`, the vector of one window and first card over
one set: the split sum over the child's first parts that hand back, in the child's own
coordinates; ``mark_returns``, ``store_pair``); only the driver differs, for windows holding row
cards and any set of cards to come instead of relabelling orbits of a whole deck. Then the
row-level recursion runs *forward*, depth by depth from the top, so that only the depths the play
can reach get tables, and those only for the set sizes that reach them.

Symmetry: a relabelling of suits and ranks that maps the set ``U`` onto itself maps games onto
games (:func:`_automorphisms`: a permutation of the suits and one of the ranks, found from each
rank's set of suits in ``U``; a random 52-card position with 16 cards to come has 2 to 288 of them,
median 24, with 13 median 10). The table of a window ``W`` over a set ``X`` is the table of its
image ``gW`` over ``gX`` read through ``g``, so the windows of three cards to come are filled once
per orbit (:func:`_orbits`), the windows ``(r_i, a, b)`` once per orbit of the relabellings that
keep ``r_i``'s matches with ``U``, and ``(r_{i-1}, r_i, a)`` of those keeping both row cards'; a
pair whose child is not a representative reads the representative's table, the relabelling folded
into the pair's maps (``p_fwd``: a set of cards to come in the child's coordinates; ``p_inv`` and
the slot maps: the child's back in ours), so the split sums cost what they did. A group larger than
:data:`MAX_SYMMETRY` is cut to a subgroup (the engine stays exact). The tests compare the engine
with every table its own (``MAX_SYMMETRY = 0``) on random positions.

Memory: a table over sets of at most :data:`NARROW_SET_CARDS` (12) cards is ``uint32`` (every entry
counts orders of its set: at most ``12! < 2**32``), else ``uint64``; a group's kept ``B(a)`` vectors
are over one card fewer than its ``A``. Where a window's universe has ``NARROW_SET_CARDS + 1`` cards
and its tables reach the whole of it (with 16 cards to come, the windows of three cards to come: 13
cards), that whole set is the one row over more than 12 cards: it is kept apart, one ``uint64`` row
per window (``AF``), and the rest of the table is ``uint32`` (:func:`_split_row`; the split sum
reads that row only as the child's whole set, the first part it visits, so its inner loop is
unchanged). A window's kept ``B(a)`` rows over sets of at most :data:`SHORT_SET_CARDS` (8) cards are
``uint16`` (``8! < 2**16``), in an array apart from its other kept rows (:func:`_short_index`: one
index per set, shared by the group, says which array and which row), in every group but the top
window's (whose ``B`` the forward pass reads as it is): with 16 cards to come these are 93% of the
rows of the windows of three cards to come's kept ``B`` (over 12 cards) and 87% of a depth's ``(r_i,
a, b)`` (13 cards, ``uint64`` beside them); the split sum reads that index only where a child hands
back ``S2(y)``, not on every step. Each group's vectors have ``end`` slots for its own largest set
(``cap // 2 + 1``: 7 for the windows of three cards to come with 16 left, not the 9 of the whole
position) and each window only its own ``S1`` and ``S2`` slots (its ``w1``'s and ``w2``'s mates in
its universe, about half the largest suit's count). A window keeps ``B(y)`` only for the ``y`` of
``w3``'s suit that do not match ``w1`` (the others end the phase at once, ``S1(y)`` or ``R1`` over
the empty set: the split sum adds that count itself, ``p_ret <= -2``), but for the top window
``R_i``, whose ``B`` the forward pass reads by ``r_i``'s mates. The pairs' maps (``p_inv``,
``p_fwd``) are ``int32``. A window's kept ``B(a)`` vectors are read only by its own split sums, so
they are freed once its group is filled (a parent reads its children's ``A`` only); a depth's groups
(the windows ``(r_i, a, b)``, then ``(r_{i-1}, r_i, a)``, then ``R_i``, each the children of the
next) are freed as soon as the next is filled, ``R_i``'s once its states are dealt. The peak is the
windows of three cards to come while they fill, or their ``A`` tables with one depth's groups
(:func:`phase_table_bytes`); with the ``uint16`` rows mostly the latter (74 of 80 random positions
with 16 left, seeds 1-4 of ``benchmarks/bench_odds.py --estimate``).

Needed sets: a depth's groups (``R_i`` and the windows ``(r_{i-1}, r_i, a)`` and ``(r_i, a, b)`` below
it) fill only the rows the play reads (:data:`NEEDED_SETS_ONLY`, :func:`_needed_sets`). The forward
pass knows, before a depth's tables are filled, the sets of cards to come with which the play
reaches ``R_i`` (``live``); ``R_i``'s rows are read over their subsets only, each lower group's over
the sets its parent's pairs read it (:func:`_child_need`, through the same maps as the split sums,
relabellings included), and each family is closed under subsets, so a row that is filled reads only
rows that are. The top depth needs every set, the deeper ones fewer and fewer (on position 0 of seed
2 with 13 left, a fifth to a half of the sets up to the depth's largest below its tenth depth). On
position 0 of seed 1 (``bench_odds.py --before``, one core): 14 cards left 36.8 -> 23.8 CPU s (1.55x),
16 left 535 -> 312 (1.72x); 13 left 1.7x, 12 left 1.3x on position 0 of seed 2. The windows of three
cards to come are filled before any depth is reached, over every set.

Threads: with ``workers > 1`` and at least :data:`THREADS_FROM_CARDS` (13) cards to come, each
group's large layers (at least :data:`PARALLEL_MIN_SETS` pairs of a window and first card with a set)
are filled by runs of whole windows side by side in threads (the kernels release the GIL): a window's
rows are written by its own pairs only, and a layer reads only rows of smaller sets, complete before
it, and the hand-back marks of the layer's size, written between the layers. So the counts are those
of one call, whatever the number of threads (a property test forces every layer into threads). A
group of one window (``R_i``, 7% of the time with 16 left), the small layers and the forward pass
stay on one thread. Measured on 2 cores (``bench_odds.py --workers 2``, position 0 of seed 1), before
the needed sets: 14 cards left 38.7 CPU s on one thread, 24.8 s wall-clock on two (1.56x); 16 left
533 and 302 s (1.76x); with 13 left about 1.1x, and none below (the layer-by-layer calls cost what
the threads gain); with them, 14 left 23.8 and 16.5 s (1.44x), 16 left 312 and 206 s (1.52x). Each
of the two threads runs about a quarter slower than one alone (they share the memory bus and the
last-level cache).

Cost (why this does not reach 16 cards left in seconds): the windows made of three cards still to
come, ``(a, b, c)``, are reachable from every position (deal three cards that match nothing), there
are ``m (m-1) (m-2)`` of them (fewer by the symmetry above), and each table is a subset convolution
over ``m - 3`` cards: about ``m^4 3^(m-4)`` steps, plus about ``m^3 3^(m-3)`` for each depth of the
row that the play reaches with most of the cards still to come (the windows ``(r_i, a, b)``; 11-31
depths are reached, the top few with nearly every set: the split sums' cost lies in the sets of
about two thirds of the cards, so a depth reached with a few cards fewer costs almost as much). The
split sum's step is a few nanoseconds (about 60% of it the hand-back reads, the rest the
enumeration), so neither sparse vectors nor skipping zero entries changes much (measured: no gain).
The play itself leaves no room for a coarser state: from the positions of
``benchmarks/bench_odds_states.py`` the distinct ``(exposed depth, top three cards, cards to come)``
reached grow about 3.5-fold a card (87,556 and 76,299 with 9 left, 294,511 and 259,233 with 10),
about ``5 * 10^8`` with 16 by extrapolation, and the full states ``(row, cards to come)`` about
7-fold (2.4-2.6 million with 10). The symmetry gains what the position has: little where the cards
to come have 2 relabellings, several-fold where they have dozens. Sharing entries under any
relabelling of a window and its set alone (a local isomorphism, not one of all the cards to come)
would not change that: such classes are few only among small sets, and weighted by the split sums'
work the pairs of the windows of three cards to come with 16 left are 8.1 times their classes on a
position whose own relabellings already give 4 (``benchmarks/bench_odds_classes.py``). The engine
overtakes the memoised search of :func:`exact.one_handed.odds.position_counts` (whose cost grows
about ``m``-fold per card) from 12 cards left; see ``benchmarks/bench_odds.py``. Where the time goes
(one 52-card position with 14 left, 39.1 CPU s, 30 row depths reached, 2 relabellings,
``bench_odds.py --profile``): the depths' windows ``(r_i, a, b)`` 53%, ``(r_{i-1}, r_i, a)`` 16%,
``R_i`` 6%, the windows of three cards to come 20%, building the groups' maps in Python 4%, the
forward pass 1%; so it is the row depths, not the windows of three cards to come, that a faster
engine would have to cut first. With the needed sets (above), 16 left on position 0 of seed 1 (373
CPU s under the profile): ``(r_i, a, b)`` 44%, the windows of three cards to come 30%, ``(r_{i-1},
r_i, a)`` 15%, ``R_i`` 8%, the forward pass 2%, the maps 1%; the top depth alone took 112 s, the top
five about 220. A depth's ``(r_i, a, b)`` tables depend on ``r_i`` only through its
matches with ``U``, so a later depth with the same matches (or matches related by a relabelling of
``U``) could reuse a group filled higher up: measured on 7 positions with 13-15 left, that would
save 2-23% of the time, for holding a group (35-53 MB with 14 left, 240-480 MB with 16) across the
depths between; not done (``benchmarks/README.md``).

``final=once`` is not counted (the phase tables say how a phase ends, not which check the last card
made, :mod:`exact.one_handed.phase`); the caller refuses it.
"""
from __future__ import annotations

import math
from functools import lru_cache, partial
from itertools import permutations, product
from typing import NamedTuple

import numpy as np
from joblib import Parallel, delayed

from sim._jit import jit
from sim.progress import progress_bar

from exact.invariants import require
from exact.one_handed.phase import SENTINEL, PhaseReference, _subsets
from exact.one_handed.primitives import drop, map_mask, next_same_size, popcount
from exact.one_handed.split_sum import (ChildTables, OwnTables, PairMaps, hands_back, mark_returns, pair_vector,
                                         store_pair)

#: counts are uint64: exact while m! < 2**64
MAX_PHASE_ODDS_CARDS = 20
#: bytes of tables above which the numba engine refuses (the caller falls back or says so)
MAX_TABLE_BYTES = 2 * 2**30
#: a window's tables are ``uint32`` when its sets have at most this many cards: every entry counts
#: orders of its set, at most ``12! < 2**32`` (half the memory, and half the bytes each split sum reads)
NARROW_SET_CARDS = max(s for s in range(21) if math.factorial(s) < 2**32)
#: a kept ``B`` row over a set of at most this many cards is ``uint16``: ``8! < 2**16`` (the sets of at
#: most 8 cards are 93% of the rows over 12 cards, the kept ``B`` of the windows of three cards to come
#: with 16 left); -1: none
SHORT_SET_CARDS = max(s for s in range(21) if math.factorial(s) < 2**16)
#: threads are used from this many cards to come (below, the layer-by-layer calls cost what they gain)
THREADS_FROM_CARDS = 13
#: a layer of a group's tables with fewer (pair, set) than this is filled in one call, not in threads
PARALLEL_MIN_SETS = 20_000
#: runs of windows a thread, so that threads that finish early take more
RUNS_PER_THREAD = 4
#: with a progress bar, a large layer filled on one thread is filled in this many runs of windows, the
#: bar advanced after each (so that it moves within the minutes a large group can take)
TICK_RUNS = 32
#: the bar advances within the groups from this many cards to come (below, a run takes seconds and the
#: groups are filled in one call each)
TICK_FROM_CARDS = 13
#: a depth's groups fill only the rows over the sets the play reaches them with (False: every set up to
#: the largest; the same counts, a test)
NEEDED_SETS_ONLY = True
#: the largest group of relabellings of the cards to come whose orbits share the tables of the windows
#: of three cards to come (a larger group is not used: the engine stays exact, only without sharing)
MAX_SYMMETRY = 5040


# ---------------------------------------------------------------- the plain reference

def position_phase_reference(row, undealt, *, two_suit: bool = True):
    """Score counts (by final row length) and emptied orders over every order of ``undealt`` dealt
    onto the settled ``row``: the recursion of the module docstring in plain Python.

    ``row`` and ``undealt`` are cards as ``(suit, rank)`` labels. Returns ``(counts, emptied)``:
    ``counts`` a dict ``{score: orders}``, ``emptied`` the orders in which a removal empties the row.
    Small positions only (it enumerates subsets of subsets)."""
    ref = PhaseReference(two_suit=two_suit)
    row = list(row)

    def window(i):
        return tuple(row[j - 1] if j >= 1 else SENTINEL for j in (i - 2, i - 1, i))

    def run(i, table, cards):
        hist: dict = {}
        emptied = 0
        for first in _subsets(cards):
            rest = cards - first
            for outcome, count in table(first).items():
                kind = outcome[0]
                if kind == "end":
                    if not rest:
                        hist[i + outcome[1]] = hist.get(i + outcome[1], 0) + count
                    continue
                if kind in ("S1", "S2"):
                    (h, e), now_empty = G(i - (2 if kind == "S1" else 1), outcome[1], rest), False
                else:
                    target = i - {"R1": 3, "R2": 2, "R3": 1}[kind]
                    (h, e), now_empty = F(target, rest), target == 0
                for s, c in h.items():
                    hist[s] = hist.get(s, 0) + count * c
                emptied += count * (math.factorial(len(rest)) if now_empty else e)
        return hist, emptied

    @lru_cache(maxsize=None)
    def F(i, cards):
        return run(i, lambda x: ref.phase(window(i), x), cards)

    @lru_cache(maxsize=None)
    def G(i, a, cards):
        return run(i, lambda x: ref.state_b(window(i), a, x), cards)

    cards = frozenset(undealt)
    hist, emptied = F(len(row), cards)
    if not row:  # the top phase's own returns empty the row (they are inside its table)
        emptied = sum(ref.first_return(x) * math.factorial(len(cards) - len(x)) for x in _subsets(cards) if x)
    require(sum(hist.values()) == math.factorial(len(undealt)), "phase odds must add up to m!")
    return hist, emptied


# ---------------------------------------------------------------- the numba engine

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
    """One group of windows for the kernels (:meth:`_Group.tables`): its tables and its pairs' maps.
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
    #: array and row (:func:`_short_index`), ``lo_off`` where each window's start, ``n_lo`` and
    #: ``n_hi`` the rows a slot in each
    B16: np.ndarray
    b_idx: np.ndarray
    lo_off: np.ndarray
    n_lo: int
    n_hi: int
    b_split: int


class ChildGroup(NamedTuple):
    """The finished tables of a group's children, as its split sums read them (the fields of
    :class:`GroupTables` of the same names, :meth:`_Group.child_view`)."""

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
def _layers(grp, child, self_child, vec_width, need, use_need, k_lo, k_hi, p_lo, p_hi, marks):
    """Fill a group of windows' tables (``grp``, a :class:`GroupTables`) by set size: ``A[g][C]`` for
    ``|C| <= cap[g]`` and the kept ``B(a)`` vectors (``a`` of ``w3``'s two-type mates), in ``uint64``
    vectors of ``vec_width``. The children of the pairs are read from ``child`` (a
    :class:`ChildGroup`: complete, or this group's own tables when ``self_child``: the group holds its
    children). The split sum runs over the child's first parts in the child's own coordinates and
    reads only those that hand back (``child.ret``). A pair's child is a window of the child group, perhaps a
    relabelling of it (the windows of three cards to come are shared by orbits, :func:`_orbits`): a
    set of cards to come is read in the child's coordinates through ``p_fwd``, the child's back in
    ours through ``p_inv`` (the relabelling folded into both). Each window's vectors have their own
    layout (``widths``, ``s2s``, ``r1s``: its ``S1`` and ``S2`` slots are its ``w1``'s and ``w2``'s
    mates in its universe), the children's theirs; the ``end`` slots, ``s1`` of them, are common to
    the group (``child.s1`` to the child group). A window whose ``full[g] >= 0`` keeps the row of its
    whole universe (mask ``full[g]``) in ``AF[f_off[g]:]`` (``uint64``) instead of ``A`` (``uint32``),
    its children likewise.

    With ``use_need``, a pair's vector over a set is computed only where ``need`` (laid out like
    ``ret``) marks the set in the window's universe (:func:`_needed_sets`; the other rows stay 0 and are
    never read). Only the layers ``k_lo <= k < k_hi`` and the pairs ``p_lo <= p < p_hi`` are filled, and the
    hand-back marks (``ret``) are written only with ``marks``: :meth:`_Group.fill` runs it whole in one
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
            _marks(k, grp)
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
        _final_marks(grp, self_child)


@jit
def _marks(k, grp):
    """The hand-back marks (``grp.ret``) of a group's sets of size ``k`` (``grp`` a :class:`GroupTables`):
    those of its tables (:func:`exact.one_handed.split_sum.mark_returns`) and of the rows kept apart
    (:func:`_mark_full`)."""
    mark_returns(k, grp.A, grp.ret, grp.usize, grp.a_off, grp.r_off, grp.cap, grp.nm2, grp.widths, grp.s2s, grp.r1s, 0)
    _mark_full(k, grp)


@jit
def _final_marks(grp, self_child):
    """The hand-back marks not written while the layers filled: every size of a group that is not its
    own child, the largest of one that is (every table is complete now)."""
    kmax = 0
    for g in range(grp.cap.shape[0]):
        kmax = max(kmax, grp.cap[g])
    for k in range(kmax + 1):
        if k == kmax or not self_child:
            _marks(k, grp)


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
def _child_need(need, r_off, drops, p_win, p_bits, p_nbits, p_match, p_child, p_fwd, c_need, c_roff):
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


def _needed_sets(groups, live_a, live_b, m):
    """The sets over which each of a depth's groups (``groups[level]``: 1 ``R_i``, 2 ``(r_{i-1}, r_i,
    a)``, 3 ``(r_i, a, b)``, a group ``None`` where it has no window) has rows that the play reads, as
    arrays laid out like the group's ``ret``: ``R_i``'s every set under a live one (the sets of cards to
    come with which the play reaches state ``A`` or ``B(a)`` of ``R_i``, ``live_a`` and ``live_b``: the
    forward pass reads its rows over their subsets, and a row over a set is made of rows over smaller
    ones); each lower group's the sets its parent's pairs read it over (:func:`_child_need`). Every
    family is closed under subsets."""
    live = np.zeros(1 << m, dtype=bool)
    live[live_a] = True
    live[live_b] = True
    needs = {1: _down_closure(live, m).astype(np.uint8)}  # R_i's universe is every card to come, in order
    for parent, level in ((1, 2), (2, 3)):
        pg, cg = groups.get(parent), groups.get(level)
        if pg is None or cg is None:
            break
        needs[level] = np.zeros(max(cg.r_size, 1), dtype=np.uint8)
        _child_need(needs[parent], pg.r_off, pg.drops, pg.p_win, pg.p_bits, pg.p_nbits, pg.p_match, pg.p_child,
                    pg.p_fwd, needs[level], cg.r_off)
    return needs


def _down_closure(live, m):
    """The sets under some set of ``live`` (a boolean array over the ``2**m`` sets of cards to come)."""
    closed = live.copy()
    idx = np.arange(1 << m)
    for b in range(m):
        low = idx[(idx >> b) & 1 == 0]
        closed[low] |= closed[low | (1 << b)]
    return closed


@jit
def _forward(i, fA, fB, top, hist, emp, m):
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


class _Cards:
    """The position's cards: ``0 .. m-1`` the cards to come, ``m + j`` row card ``j`` (0-based),
    ``-1`` a sentinel; two-type and four-type matches (suit and rank, swapped for ``reverse=on``)."""

    def __init__(self, row, undealt, two_suit):
        labels = list(undealt) + list(row)
        self.m, self.k = len(undealt), len(row)
        self.two = [lab[0] if two_suit else lab[1] for lab in labels]
        self.four = [lab[1] if two_suit else lab[0] for lab in labels]

    def row_card(self, i):  # 1-based row position, sentinel below 1
        return self.m + i - 1 if i >= 1 else -1

    def match(self, w, a):
        if w < 0:
            return 0
        if self.two[w] == self.two[a]:
            return 1
        return 2 if self.four[w] == self.four[a] else 0

    def mates(self, w, universe):
        return [] if w < 0 else [u for u in universe if self.two[u] == self.two[w]]


def _automorphisms(cards, fixed=()):
    """The relabellings of the cards to come that map their set onto itself: each a tuple ``g`` over
    ``0 .. m-1`` (``g[c]`` the image of card ``c``), induced by a permutation of the two-type labels and
    one of the four-type labels (suits and ranks) under which the cards to come are the same set. Each
    keeps the matches of the ``fixed`` cards (row cards, labels not permuted): ``u`` matches such a
    card the way ``g[u]`` does. A relabelling maps games onto games, so a window's table is its image's
    read through ``g``. A group of more than :data:`MAX_SYMMETRY` elements is cut to the subgroup
    that keeps the labels of the side with fewer (the suits of a standard deck), and that, if still
    larger, to the identity."""
    m = cards.m
    identity = [tuple(range(m))]
    if m == 0:
        return identity
    labels = [(cards.two[c], cards.four[c]) for c in range(m)]
    # enumerate the side with fewer labels; the other side's permutation then maps each label onto one
    # with the image profile (the labels of the first side it occurs with)
    small = 0 if len({x[0] for x in labels}) <= len({x[1] for x in labels}) else 1
    big = 1 - small
    kept = [{(cards.two, cards.four)[side][f] for f in fixed if f >= 0} for side in (0, 1)]
    small_labels = sorted({x[small] for x in labels})
    profile: dict = {}
    for x in labels:
        profile.setdefault(x[big], set()).add(x[small])
    classes: dict = {}
    for b, prof in profile.items():
        # a kept big label is a class of its own: it maps onto itself
        classes.setdefault((frozenset(prof), b if b in kept[big] else None), []).append(b)
    options = []
    # more labels than that on the smaller side (decks of many suits and many ranks): keep them all
    perms = permutations(small_labels) if math.factorial(len(small_labels)) <= MAX_SYMMETRY else [small_labels]
    for perm in perms:
        pi = dict(zip(small_labels, perm))
        if any(pi[x] != x for x in small_labels if x in kept[small]):
            continue
        parts = []
        for (prof, own), members in classes.items():
            image = classes.get((frozenset(pi[x] for x in prof), own))
            if image is None or len(image) != len(members):
                break
            parts.append((members, image))
        else:
            options.append((pi, parts))
    size = lambda: sum(math.prod(math.factorial(len(members)) for members, _ in parts)  # noqa: E731
                       for _, parts in options)
    if size() > MAX_SYMMETRY:  # the subgroup that keeps the small side's labels, if it is small enough
        options = [(pi, parts) for pi, parts in options if all(pi[x] == x for x in pi)]
        if size() > MAX_SYMMETRY:
            return identity
    index = {x: c for c, x in enumerate(labels)}
    group = []
    for pi, parts in options:
        for images in product(*[list(permutations(image)) for _, image in parts]):
            rho = {b: t for (members, _), image in zip(parts, images) for b, t in zip(members, image)}
            g = []
            for x in labels:
                y = [0, 0]
                y[small], y[big] = pi[x[small]], rho[x[big]]
                g.append(index[tuple(y)])
            group.append(tuple(g))
    group.sort(key=lambda g: g != identity[0])  # the identity first
    return group


def _orbits(items, group):
    """Orbit representatives of ``items`` (tuples of cards; cards ``>= m`` or ``< 0`` are not moved)
    under ``group`` (from :func:`_automorphisms`): ``(reps, lookup)`` with ``lookup[item] = (j, g)``,
    ``reps[j]`` the image of ``item`` under ``g`` (the first item of each orbit, in ``items``' order, is
    its representative)."""
    m = len(group[0])
    image = lambda g, w: tuple(g[c] if 0 <= c < m else c for c in w)  # noqa: E731
    reps: list = []
    lookup: dict = {}
    for w in items:
        if w in lookup:
            continue
        j = len(reps)
        reps.append(w)
        lookup[w] = (j, group[0])
        for g in group:
            v = image(g, w)
            if v not in lookup:
                # g maps w onto v: the inverse maps v onto the representative w
                inverse = [0] * m
                for c, d in enumerate(g):
                    inverse[d] = c
                lookup[v] = (j, tuple(inverse))
    return reps, lookup


class _Group:
    """Arrays of one group of windows for :func:`_layers`."""

    def __init__(self, cards, windows, caps, child_group=None, lookup=None, inner=True):
        m = cards.m
        self.windows = windows
        #: window -> (its representative's index, the relabelling onto it or None for the identity)
        self.lookup = lookup if lookup is not None else {w: (g, None) for g, w in enumerate(windows)}
        child = child_group if child_group is not None else self
        ng = len(windows)
        self.universe = [[u for u in range(m) if u not in w] for w in windows]
        self.mates = [tuple(cards.mates(w[t], u) for t in range(3)) for w, u in zip(windows, self.universe)]
        # the kept B(y) (y of w3's suit: a later S2(y) hands back to it) but for a y matching w1, whose
        # B(y) ends at once (S1(y) or R1, over the empty set only: the split sum adds that itself); the
        # top window's group keeps them all (the forward pass reads them by r_i's mates)
        self.kept = [[y for y in x[2] if not inner or cards.match(w[0], y) == 0]
                     for w, x in zip(windows, self.mates)]
        self.not_kept = sum(len(x[2]) - len(y) for x, y in zip(self.mates, self.kept))
        self.drops = np.full((ng, 3), -1, dtype=np.int64)
        self.cap = np.array(caps, dtype=np.int64)
        self.nm1 = np.array([len(x[0]) for x in self.mates], dtype=np.int64)
        self.nm2 = np.array([len(x[1]) for x in self.mates], dtype=np.int64)
        self.nm3 = np.array([len(x[2]) for x in self.mates], dtype=np.int64)
        # each window's layout: end slots (common to the group: end(j) at j // 2, j at most the largest
        # set, cap; a B(a) vector's j counts a, over a set of at most cap - 1), its S1 slots, its S2 slots,
        # then R1, R2, R3
        self.s1 = s1 = _end_slots(max(caps, default=0))
        self.s2s = s1 + self.nm1
        self.r1s = self.s2s + self.nm2
        self.widths = self.r1s + 3
        self.bpos = np.zeros((ng, max(m, 1)), dtype=np.int64)  # universe position of each kept B card
        self.usize = np.zeros(ng, dtype=np.int64)
        # the kept B rows over sets of at most SHORT_SET_CARDS cards apart, uint16 (not the top window's:
        # _forward reads that group's B as it is); a group's windows share one universe size
        sizes = {len(u) for u in self.universe}
        self.b_split = int(inner and len(sizes) == 1 and min(sizes) >= 1 and SHORT_SET_CARDS >= 0)
        self.b_idx, self.n_lo, self.n_hi = _short_index(min(sizes) - 1) if self.b_split else \
            (np.zeros(1, dtype=np.int32), 0, 0)
        a_off = [0]
        b_off = [0]
        lo_off = [0]
        for g, (w, u) in enumerate(zip(windows, self.universe)):
            own = sorted((c for c in w if 0 <= c < m), reverse=True)
            self.drops[g, :len(own)] = own
            rows = 1 << len(u)
            width = int(self.widths[g])
            a_off.append(a_off[-1] + rows * width)
            b_off.append(b_off[-1] + len(self.kept[g]) * (self.n_hi if self.b_split else rows // 2) * width)
            lo_off.append(lo_off[-1] + len(self.kept[g]) * self.n_lo * width)
            self.usize[g] = len(u)
            for t, c in enumerate(self.kept[g]):
                self.bpos[g, t] = u.index(c)
        r_off = np.cumsum([0] + [1 << len(u) for u in self.universe])
        self.r_off = np.array(r_off[:-1], dtype=np.int64)
        self.r_size = int(r_off[-1])
        self.a_off = np.array(a_off[:-1], dtype=np.int64)
        self.b_off = np.array(b_off[:-1], dtype=np.int64)
        self.a_size, self.b_size = a_off[-1], b_off[-1]
        self.lo_off = np.array(lo_off[:-1] or [0], dtype=np.int64)
        self.lo_size = lo_off[-1]
        # the row of the whole universe of each window kept apart (uint64) where it is the only row over
        # more than NARROW_SET_CARDS cards: the tables are then uint32 (not the top window's: _forward
        # reads that group's tables as they are)
        self.split = inner and ng > 0 and all(_split_row(len(u), c) for u, c in zip(self.universe, caps))
        self.full = np.array([(1 << len(u)) - 1 if self.split else -1 for u in self.universe] or [-1],
                             dtype=np.int64)
        self.f_off = np.array(np.cumsum([0] + [int(x) for x in self.widths])[:max(ng, 1)], dtype=np.int64)
        self.f_size = int(self.widths.sum()) if self.split else 0
        pairs = [(g, a) for g, u in enumerate(self.universe) for a in u]
        npairs = len(pairs)
        self.p_win = np.array([g for g, _ in pairs], dtype=np.int64)
        self.p_a = np.array([a for _, a in pairs], dtype=np.int64)
        mm = max(m, 1)
        # p_inv[p]: the child's universe bits -> ours, by 8-bit chunks (a set of the child's universe
        # that the split sum reads never holds the card the child has and we lack: our w1)
        nch = max((m + 7) // 8, 1)
        chunk_bits = ((np.arange(256)[:, None] >> np.arange(8)[None, :]) & 1).astype(np.int64)  # (256, 8)
        own_pos = [{c: b for b, c in enumerate(u)} for u in self.universe]
        slot = [tuple({c: t for t, c in enumerate(x)} for x in mates) for mates in self.mates]
        kept = [{c: t for t, c in enumerate(x)} for x in self.kept]
        p_bits, p_nbits, p_child, p_match, p_s1, p_b, p_term, p_ret, targets, forwards = ([] for _ in range(10))
        for g, a in pairs:
            w, u = windows[g], self.universe[g]
            bits = [c for c in u if c != a]
            p_nbits.append(len(bits))
            p_bits.append(bits + [0] * (mm - len(bits)))
            match = cards.match(w[0], a)
            p_match.append(match)
            p_s1.append(slot[g][0][a] if match == 1 else -1)
            p_b.append(kept[g].get(a, -1))
            term = [-1] * mm
            ret = [-1] * mm
            target = [0] * (nch * 8)
            forward = [0] * (nch * 8)
            j = 0
            if not match:
                # the child (w2, w3, a) is the relabelling sigma^-1 of the child group's window j
                j, sigma = child.lookup[(w[1], w[2], a)]
                back = list(range(m))
                if sigma is not None:
                    for c, d in enumerate(sigma):
                        back[d] = c
                pos = own_pos[g]
                c_pos = {c: b for b, c in enumerate(child.universe[j])}
                for c in bits:  # our cards to come, read in the child's coordinates
                    forward[c] = 1 << c_pos[c if sigma is None else sigma[c]]
                for b, c in enumerate(child.universe[j]):
                    if back[c] in pos:
                        target[b] = 1 << pos[back[c]]
                for t, y in enumerate(child.mates[j][0]):  # child's S1(y) is our S2(y)
                    term[t] = slot[g][1].get(back[y], -1)
                for t, y in enumerate(child.mates[j][1]):  # child's S2(y) hands back B(y)
                    z = back[y]
                    if z in kept[g]:
                        ret[t] = kept[g][z]
                    elif z in slot[g][2]:  # B(z) not kept: it ends at once, S1(z) or R1, -2 - its slot
                        ret[t] = -2 - (self.s1 + slot[g][0][z] if cards.match(w[0], z) == 1 else int(self.r1s[g]))
            p_child.append(j)
            p_term.append(term)
            p_ret.append(ret)
            targets.append(target)
            forwards.append(forward)
        as_array = lambda x, shape: np.array(x, dtype=np.int64).reshape(shape)  # noqa: E731
        self.p_bits = as_array(p_bits, (npairs, mm))
        self.p_nbits = as_array(p_nbits, (npairs,))
        self.p_child = as_array(p_child, (npairs,))
        self.p_match = as_array(p_match, (npairs,))
        self.p_s1 = as_array(p_s1, (npairs,))
        self.p_b = as_array(p_b, (npairs,))
        self.p_term = as_array(p_term, (npairs, mm))
        self.p_ret = as_array(p_ret, (npairs, mm))
        # int32: a mask over at most MAX_PHASE_ODDS_CARDS bits (half the bytes of the pairs' maps, which
        # are about a sixth of the memory of the windows of three cards to come with 16 left)
        chunked = lambda bits: np.ascontiguousarray(  # noqa: E731
            np.matmul(as_array(bits, (npairs, nch, 8)).astype(np.int32), chunk_bits.T.astype(np.int32))
            .reshape(npairs, nch, 256)) \
            if npairs else np.zeros((1, nch, 256), dtype=np.int32)
        self.p_inv = chunked(targets)
        self.p_fwd = chunked(forwards)  # the cards to come -> the child's universe

    def fill(self, width, child_group=None, pool=None, need=None, tick=None):
        """Fill the group's tables (its children's, ``child_group``, complete; ``None``: the group holds
        its own children). ``pool``: a ``joblib.Parallel`` of threads that fills each large layer's
        runs of windows side by side (the same counts). ``need``: only the rows over the sets it marks
        (laid out like ``ret``, closed under subsets; :func:`_needed_sets`), or every row. ``tick(k, part)``:
        called as each layer ``k`` fills, ``part`` the share of it just filled (a progress bar: the
        layers are then filled one call each, a large one on one thread by :data:`TICK_RUNS` runs of
        windows; a layer filled in threads is ticked once, when it is complete)."""
        child = child_group if child_group is not None else self
        cap = int(self.cap.max()) if len(self.cap) else 0
        self.A = np.zeros(max(self.a_size, 1), dtype=_table_dtype(cap - 1 if self.split else cap))
        self.AF = np.zeros(max(self.f_size, 1), dtype=np.uint64)
        # a kept B(a) is over the sets without a: one card fewer (uint32 where A needs uint64 at the top)
        self.B = np.zeros(max(self.b_size, 1), dtype=_table_dtype(cap - 1))
        self.B16 = np.zeros(max(self.lo_size, 1), dtype=np.uint16)
        for g in range(len(self.windows)):
            self.A[self.a_off[g]] = 1  # A[W][{}] = end(0)
        self.ret = np.zeros(max(self.r_size, 1), dtype=np.uint8)
        self_child = child_group is None
        tables = self.tables()
        args = (tables, child.child_view(), self_child, width, need if need is not None else np.zeros(1, dtype=np.uint8),
                need is not None)
        npairs = len(self.p_win)
        runs = self._runs(RUNS_PER_THREAD * pool.n_jobs if pool is not None else 1)
        big = [sets >= PARALLEL_MIN_SETS for sets in self.layer_sets()]
        large = [b and len(runs) > 1 for b in big]  # filled in threads
        if not any(large) and tick is None:
            _layers(*args, 0, cap, 0, npairs, True)
            return
        whole = [(0, npairs)]
        steps = self._runs(TICK_RUNS) if tick is not None else None
        for k in range(cap):
            if self_child:  # the marks of size k (its rows are complete) before the layer reads them
                _marks(k, tables)
            if large[k]:
                pool(delayed(_layers)(*args, k, k + 1, lo, hi, False) for lo, hi in runs)
                if tick is not None:
                    tick(k, 1.0)
                continue
            # on this thread; with a bar, a large layer a run of whole windows at a time (the same rows, any
            # order), ticked after each
            for lo, hi in steps if steps is not None and big[k] else whole:
                _layers(*args, k, k + 1, lo, hi, False)
                if tick is not None:
                    tick(k, (hi - lo) / npairs if npairs else 1.0)
        _final_marks(tables, self_child)

    def tables(self) -> GroupTables:
        """The group's arrays for the kernels (its tables allocated: while or after it fills)."""
        return GroupTables(self.A, self.B, self.ret, self.r_off, self.a_off, self.b_off, self.drops, self.cap,
                           self.nm1, self.nm2, self.nm3, self.bpos, self.usize, self.p_win, self.p_a, self.p_bits,
                           self.p_nbits, self.p_child, self.p_match, self.p_s1, self.p_b, self.p_term, self.p_ret,
                           self.p_inv, self.p_fwd, self.s1, self.widths, self.s2s, self.r1s, self.AF, self.f_off,
                           self.full, self.B16, self.b_idx, self.lo_off, self.n_lo, self.n_hi, self.b_split)

    def child_view(self) -> ChildGroup:
        """The group's finished tables as its parents' split sums read them."""
        return ChildGroup(self.A, self.ret, self.r_off, self.a_off, self.nm1, self.nm2, self.s1, self.widths, self.s2s,
                          self.r1s, self.AF, self.f_off, self.full)

    def _runs(self, pieces):
        """The pairs cut into about ``pieces`` runs of whole windows (a window's rows are written by its
        own pairs only): ``[(first pair, end)]``."""
        ng = len(self.windows)
        if pieces < 2 or ng < 2:
            return [(0, len(self.p_win))]
        starts = np.searchsorted(self.p_win, np.arange(ng + 1))
        pieces = min(ng, pieces)
        cuts = sorted({int(starts[round(t * ng / pieces)]) for t in range(pieces + 1)})
        return list(zip(cuts[:-1], cuts[1:]))

    def layer_sets(self):
        """How many (pair, set) each layer (set size ``k``, up to the group's largest) fills (a layer
        below :data:`PARALLEL_MIN_SETS` runs in one call)."""
        cap = int(self.cap.max()) if len(self.cap) else 0
        sets = []
        for k in range(cap):
            alive = (self.p_nbits >= k) & (self.cap[self.p_win] >= k + 1) & ((self.p_match == 0) | (k == 0))
            sets.append(sum(math.comb(int(nb), k) for nb in self.p_nbits[alive]))
        return sets

    def layer_work(self):
        """The split sums' work of each layer, estimated: a set of ``k`` cards costs about ``2**k`` (the
        parts of the child's set); for a progress bar."""
        return [sets * 2.0 ** k for k, sets in enumerate(self.layer_sets())]

    def free_b(self):
        """Drop the kept ``B`` vectors (a parent's split sums read its children's ``A`` only)."""
        self.B = self.B16 = None

    def nbytes(self):
        return sum(int(x.nbytes) for x in (self.A, self.B, self.B16, self.AF) if x is not None)


@lru_cache(maxsize=None)
def _short_index_cached(nbits, short):
    pop = np.zeros(1 << nbits, dtype=np.int64)
    for b in range(nbits):
        pop += (np.arange(1 << nbits) >> b) & 1
    lo = pop <= short
    idx = np.zeros(1 << nbits, dtype=np.int32)
    idx[lo] = -1 - np.arange(int(lo.sum()), dtype=np.int32)
    idx[~lo] = np.arange(int((~lo).sum()), dtype=np.int32)
    idx.setflags(write=False)
    return idx, int(lo.sum()), int((~lo).sum())


def _short_index(nbits):
    """The rows of a kept ``B`` table over sets of ``nbits`` cards, split by size: ``(idx, n_lo, n_hi)``,
    ``idx[r] = -1 - i`` for a set ``r`` of at most :data:`SHORT_SET_CARDS` cards (row ``i`` of the
    ``uint16`` array, ``n_lo`` such rows a slot), else its row among the ``n_hi`` others."""
    return _short_index_cached(nbits, SHORT_SET_CARDS)


def _table_dtype(cap):
    """``uint32`` for tables over sets of at most :data:`NARROW_SET_CARDS` cards, else ``uint64``."""
    return np.uint32 if cap <= NARROW_SET_CARDS else np.uint64


def _split_row(usize, cap):
    """Whether a window over a universe of ``usize`` cards, with tables up to sets of ``cap``, keeps the
    row of its whole universe apart (``uint64``) and the rest ``uint32``: that row is its only one
    over more than :data:`NARROW_SET_CARDS` cards (with 16 cards to come, the windows of three cards
    to come: 13 cards, their tables would otherwise be ``uint64`` for the one row)."""
    return usize >= 1 and cap == usize == NARROW_SET_CARDS + 1


def _end_slots(cap):
    """``end`` slots of a group whose sets have at most ``cap`` cards: ``end(j)`` sits at ``j // 2`` and
    ``j`` is at most ``cap`` (the cards on top of the window, the pending card of ``B(a)`` counted)."""
    return cap // 2 + 1


def _layout(cards):
    m = cards.m
    n_end = m // 2 + 1
    refs = list(range(m + cards.k))
    maxm = max([1] + [len(cards.mates(w, range(m))) for w in refs])
    s1 = n_end
    s2 = s1 + maxm
    r1 = s2 + maxm
    return s1, s2, r1, r1 + 3


def _pure_windows(cards):
    """The windows of three cards to come, one per orbit of the relabellings of the cards to come
    (:func:`_automorphisms`): ``(representatives, lookup)`` as :func:`_orbits` gives them."""
    return _orbits(list(permutations(range(cards.m), 3)), _automorphisms(cards))


def _depth_windows(cards, x):
    """The windows ``(x, a, b)`` of a row card ``x`` (or a sentinel) under two cards to come, one per
    orbit of the relabellings of the cards to come that keep ``x``'s matches: ``(representatives,
    lookup)``."""
    m = cards.m
    wins = [(x, a, b) for a in range(m) for b in range(m) if a != b]
    return _orbits(wins, _automorphisms(cards, (x,)))


def phase_table_bytes(row, undealt, *, two_suit: bool = True) -> int:
    """Bytes the engine holds at its peak for this position, computed before it allocates them: the
    windows of three cards to come while they fill (their ``A`` and kept ``B`` tables and the pairs'
    maps), then their ``A`` tables (their ``B`` vectors are freed: a parent reads its children's ``A``
    only) with the largest moment of one row depth (every depth's tables sized for the largest sets,
    a bound: a group's ``end`` slots and its tables' type follow its largest set), and the forward
    arrays."""
    cards = _Cards(row, undealt, two_suit)
    m, k = cards.m, cards.k
    _, s2, r1, width = _layout(cards)
    maxm = s2 - (m // 2 + 1)
    forward = ((k + 1) * (1 + maxm) + 1) * (1 << m) * 8  # fA, fB and the popcounts
    if m < 3:
        return forward

    item = {cap: np.dtype(_table_dtype(cap)).itemsize for cap in range(m - 4, m + 1)}

    def table(u, w, split=True):
        """A window's A table over a universe of u cards, sets of up to u (and its return marks)."""
        if split and _split_row(u, u):  # uint32, the row of the whole universe apart
            return (1 << u) * (w * np.dtype(np.uint32).itemsize + 1) + w * 8
        return (1 << u) * (w * item[u] + 1)

    def kept_rows(nbits, size):
        """Bytes of one kept ``B`` slot's rows (a vector entry each) over sets of ``nbits`` cards, those
        of at most SHORT_SET_CARDS cards uint16 (an inner group's, :func:`_short_index`)."""
        if nbits < 0:  # no window of the kind has a card to keep
            return 0
        if SHORT_SET_CARDS < 0:
            return (1 << nbits) * size
        _, n_lo, n_hi = _short_index(nbits)
        return n_lo * 2 + n_hi * size

    mates = [len(cards.mates(c, range(m))) - 1 for c in range(m)]  # two-mates in U, itself excluded
    same = [[c != d and cards.two[c] == cards.two[d] for d in range(m)] for c in range(m)]
    chunks = 2 * ((m + 7) // 8) * 256 * 4 + (3 * m + 8) * 8  # bytes of one pair's maps (p_inv, p_fwd, p_bits, ...)
    # kept B(y) of (w1, w2, w3): y of w3's suit in the universe, not matching w1
    kept = lambda w1, w3, out=(): sum(  # noqa: E731
        same[w3][y] and y not in out and cards.match(w1, y) == 0 for y in range(m))
    # the windows (a, b, c), each vector s1 + (a's mates) + (b's mates) + 3 entries in the universe;
    # kept B(y) for y of c's suit, over the sets without y (half the rows)
    pure_a = pure_b = 0
    s1 = _end_slots(m - 3)
    for a, b, c in _pure_windows(cards)[0]:
        w = s1 + 3 + mates[a] - same[a][b] - same[a][c] + mates[b] - same[b][a] - same[b][c]
        pure_a += table(m - 3, w) + (m - 3) * chunks
        pure_b += kept(a, c, (a, b)) * kept_rows(m - 4, item[m - 4]) * w
    # the largest moment of one row depth the play may reach (every depth of the row, and the sentinels
    # below it): (r_i, a, b) filling, then (r_{i-1}, r_i, a) filling with it, then R_i with the latter;
    # each group one window per orbit, every table sized for the largest sets (a bound on its type)
    nmates = lambda x, out=(): 0 if x < 0 else sum(  # noqa: E731
        cards.two[u] == cards.two[x] for u in range(m) if u not in out)
    l3 = {}
    depth = 0
    for i in range(k, -1, -1):
        x1, x2, x3 = (cards.row_card(j) for j in (i - 2, i - 1, i))
        live = (cards.two[x3] if x3 >= 0 and cards.two[x3] in cards.two[:m] else None,
                cards.four[x3] if x3 >= 0 and cards.four[x3] in cards.four[:m] else None)
        if live not in l3:  # the same matches with the cards to come: the same windows
            l3_a = l3_b = 0
            for _, a, b in _depth_windows(cards, x3)[0]:
                w = _end_slots(m - 2) + 3 + nmates(x3, (a, b)) + mates[a] - same[a][b]
                l3_a += table(m - 2, w) + (m - 2) * chunks
                l3_b += kept(x3, b, (a,)) * kept_rows(m - 3, item[m - 3]) * w
            l3[live] = (l3_a, l3_b)
        l3_a, l3_b = l3[live]
        l2_a = l2_b = 0
        for _, _, a in _orbits([(x2, x3, a) for a in range(m)], _automorphisms(cards, (x2, x3)))[0]:
            w = _end_slots(m - 1) + 3 + nmates(x2, (a,)) + nmates(x3, (a,))
            l2_a += table(m - 1, w) + (m - 1) * chunks
            l2_b += kept(x2, a) * kept_rows(m - 2, item[m - 2]) * w
        w = _end_slots(m) + 3 + nmates(x1) + nmates(x2)
        l1 = table(m, w, split=False) + nmates(x3) * (1 << (m - 1)) * w * item[m - 1] + m * chunks
        depth = max(depth, l3_a + l3_b, l3_a + l2_a + l2_b, l2_a + l1)
    return max(pure_a + pure_b, pure_a + depth) + forward


def position_phase_counts(row, undealt, *, two_suit: bool = True, stats: dict | None = None, workers: int = 1,
                          progress=None):
    """The numba engine: same answer as :func:`position_phase_reference`, as
    ``(counts list by final row length, emptied orders)``; Python ints.

    ``workers``: threads that fill the large layers of a group's tables side by side (the same
    counts whatever the number). ``progress``: a bar on stderr once it has run a few seconds (``None``
    or ``True``): one unit for the windows of three cards to come and one a row depth (the depths below
    the deepest the play reaches are passed at once), advanced within them as the layers fill from
    :data:`TICK_FROM_CARDS` cards to come (:func:`_ticks`)."""
    if workers > 1 and len(undealt) >= THREADS_FROM_CARDS:
        with Parallel(n_jobs=workers, backend="threading") as pool:
            return _position_phase_counts(row, undealt, two_suit, stats, pool, progress)
    return _position_phase_counts(row, undealt, two_suit, stats, None, progress)


def _position_phase_counts(row, undealt, two_suit, stats, pool, progress):
    m = len(undealt)
    require(m <= MAX_PHASE_ODDS_CARDS, f"the phase odds count in uint64: at most {MAX_PHASE_ODDS_CARDS} cards left")
    cards = _Cards(row, undealt, two_suit)
    with progress_bar(cards.k + 2, progress, desc=f"exact odds, {m} cards to come", unit="depth",
                      bar_format="{desc}: {percentage:3.0f}%|{bar}| [{elapsed}<{remaining}{postfix}]") as bar:
        return _phase_counts(cards, stats, pool, bar)


def _ticks(bar, groups, stage_end, m):
    """Tick functions (:meth:`_Group.fill`'s ``tick``) that bring ``bar`` to ``stage_end`` units over
    the layers of ``groups`` (``None`` for a group not filled), each layer by its share of their
    estimated work (:meth:`_Group.layer_work`); ``None`` each where the bar is off or ``m`` (the cards to
    come) is below :data:`TICK_FROM_CARDS` (a run of seconds: the groups are filled in one call each)."""
    if bar.disable or m < TICK_FROM_CARDS:
        return [None] * len(groups)
    works = [g.layer_work() if g is not None else [] for g in groups]
    total = sum(sum(w) for w in works) or 1.0

    def tick(w, k, part):  # never past the stage's end (rounding)
        bar.update(min(w[k] * part / total, stage_end - bar.n))

    return [partial(tick, w) for w in works]


def _phase_counts(cards, stats, pool, bar):
    """:func:`position_phase_counts` of ``cards`` (a :class:`_Cards`), advancing ``bar`` by one for the
    windows of three cards to come and one a row depth (within them, by the layers' estimated work,
    :func:`_ticks`)."""
    m = cards.m
    k = cards.k
    s1, s2, r1, width = _layout(cards)
    pure = None
    split_groups = 0  # groups whose row of the whole universe is kept apart (uint64 beside uint32)
    not_kept = 0  # B(y) vectors not kept (y matches w1: the phase ends at once)
    if m >= 3:
        reps, lookup = _pure_windows(cards)
        pure = _Group(cards, reps, [m - 3] * len(reps), lookup=lookup)
        bar.set_postfix_str("the windows of three cards to come", refresh=False)
        [tick] = _ticks(bar, [pure], 1, m)
        pure.fill(width, pool=pool, tick=tick)
        split_groups += pure.split
        not_kept += pure.not_kept
        pure_bytes = pure.nbytes()
        pure.free_b()  # a parent's split sums read its children's A only (a window's B only while it fills)
    bar.update(1 - bar.n)
    maxm = s2 - s1
    fA = np.zeros((k + 1, 1 << m), dtype=np.uint64)
    fB = np.zeros((k + 1, maxm, 1 << m), dtype=np.uint64)
    fA[k, (1 << m) - 1] = 1
    hist = np.zeros(k + m + 1, dtype=np.uint64)
    emp = np.zeros(m + 1, dtype=np.uint64)
    depths = 0
    set_size = np.array([bin(c).count("1") for c in range(1 << m)], dtype=np.int64)
    for i in range(k, -1, -1):
        live_a = np.nonzero(fA[i])[0]
        live_b = np.nonzero(fB[i].any(axis=0))[0]
        if len(live_a) == 0 and len(live_b) == 0:
            bar.update(k + 2 - i - bar.n)  # not reached
            continue
        depths += 1
        # set sizes the tables of R_i must cover: A over C, B(a) over C (a's own card not in C)
        cap = max([int(set_size[live_a].max()) if len(live_a) else 0] +
                  [int(set_size[live_b].max()) + 1 if len(live_b) else 0])
        x1, x2, x3 = (cards.row_card(j) for j in (i - 2, i - 1, i))
        child = pure
        second = None
        # (x3, a, b), then (x2, x3, a), then R_i: each group's children are in the group before
        groups = {}
        for level, size in ((3, 2), (2, 1), (1, 0)):
            lookup = None
            if level == 3:
                # one window per orbit of the relabellings that keep r_i's matches
                wins, lookup = _depth_windows(cards, x3)
            elif level == 2:
                wins, lookup = _orbits([(x2, x3, a) for a in range(m)], _automorphisms(cards, (x2, x3)))
            else:
                wins = [(x1, x2, x3)]
            caps = [max(cap - size, 0)] * len(wins)
            grp = _Group(cards, wins, caps, child_group=child, lookup=lookup, inner=level > 1) if wins else None
            groups[level] = grp
            child = grp if grp is not None else child
        needs = _needed_sets(groups, live_a, live_b, m) if NEEDED_SETS_ONLY else {}
        bar.set_postfix_str(f"row depth {i}", refresh=False)
        ticks = dict(zip((3, 2, 1), _ticks(bar, [groups[3], groups[2], groups[1]], k + 2 - i, m)))
        if i == 0 and k == 0 and 2 in needs:
            # the empty row's R3 sums below read every row of the windows (sentinel, sentinel, a): the
            # play reaches R_0 with every card to come, so all of their sets are needed
            require(bool(needs[2].all()), "an empty row's first windows must be filled over every set")
        child = pure
        for level in (3, 2, 1):
            grp = groups.pop(level)
            if grp is not None:
                grp.fill(width, child_group=child, pool=pool, need=needs.pop(level, None), tick=ticks[level])
                split_groups += grp.split
                not_kept += grp.not_kept
                if level > 1:
                    grp.free_b()  # the forward pass reads R_i's B only
                child = grp  # the group before is released (but for the pure windows, every depth's)
            if level == 2:
                second = grp
        top = grp
        if i == 0 and k == 0 and second is not None:
            # an empty row at the start: the orders first emptying it at the last card of Y are the
            # R3 hand-backs of the windows (sentinel, sentinel, a) (phase.PhaseReference.first_return)
            g2 = second
            orbit = [0] * len(g2.windows)  # a representative stands for its orbit (a relabelling keeps set sizes)
            for j, _ in g2.lookup.values():
                orbit[j] += 1
            for g in range(len(g2.windows)):
                rows = 1 << int(g2.usize[g])
                w = int(g2.widths[g])
                r3 = g2.A[int(g2.a_off[g]):int(g2.a_off[g]) + rows * w].reshape(rows, w)[:, int(g2.r1s[g]) + 2]
                r3 = r3.astype(np.uint64)
                if g2.full[g] >= 0:  # the row of the whole universe is kept apart
                    r3[g2.full[g]] = g2.AF[int(g2.f_off[g]) + int(g2.r1s[g]) + 2]
                for x in np.nonzero(r3)[0]:
                    emp[m - 1 - int(set_size[x])] += np.uint64(r3[x]) * np.uint64(orbit[g])
        second = child = grp = None
        _forward(i, fA, fB, top.tables(), hist, emp, m)
        top = None
        bar.update(k + 2 - i - bar.n)
    counts = [int(c) for c in hist.tolist()]
    require(sum(counts) == math.factorial(m), "phase odds must add up to m!")
    emptied = sum(int(e) * math.factorial(s) for s, e in enumerate(emp.tolist()))
    if stats is not None:
        stats.update(depths=depths, windows=0 if pure is None else len(pure.windows), split_groups=split_groups,
                     not_kept=not_kept, table_bytes=0 if pure is None else pure_bytes,
                     symmetry=len(_automorphisms(cards)))
    return counts, emptied
