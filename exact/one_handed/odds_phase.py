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
:mod:`exact.one_handed.phase_kernel`, whose layout it follows and whose split sum it shares
(:func:`exact.one_handed.split_sum.pair_vector`, the vector of one window and first card over one
set: the split sum over the child's first parts that hand back, in the child's own coordinates);
only the driver differs, for windows holding row cards and any set of cards to come instead of
relabelling orbits of a whole deck. Then the row-level recursion runs *forward*, depth by depth
from the top, so that only the depths the play can reach get tables, and those only for the set
sizes that reach them.

The engine is three modules: this one (the reference, the public engine and its driver, depth by
depth), :mod:`exact.one_handed.odds_phase_groups` (the position's cards and relabellings, the groups
of windows and their arrays, the sets the play needs, the memory estimate) and
:mod:`exact.one_handed.odds_phase_kernel` (the jitted fill, marks and forward pass).

Symmetry: a relabelling of suits and ranks that maps the set ``U`` onto itself maps games onto
games (:func:`~exact.one_handed.odds_phase_groups.automorphisms`: a permutation of the suits and one
of the ranks, found from each rank's set of suits in ``U``). The table of a window ``W`` over a set
``X`` is the table of its image ``gW`` over ``gX`` read through ``g``, so the windows of three cards
to come are filled once per orbit (:func:`~exact.one_handed.odds_phase_groups.orbit_representatives`),
the windows ``(r_i, a, b)`` once per orbit of the relabellings that keep ``r_i``'s matches with ``U``,
and ``(r_{i-1}, r_i, a)`` of those keeping both row cards'; a pair whose child is not a
representative reads the representative's table, the relabelling folded into the pair's maps
(``p_fwd``: a set of cards to come in the child's coordinates; ``p_inv`` and the slot maps: the
child's back in ours), so the split sums cost what they did. A group larger than
:data:`~exact.one_handed.odds_phase_groups.MAX_SYMMETRY` is cut to a subgroup (the engine stays
exact). The tests compare the engine with every table its own (``MAX_SYMMETRY = 0``) on random
positions.

Memory: a table over sets of at most ``NARROW_SET_CARDS`` (12) cards is ``uint32`` (every entry
counts orders of its set: at most ``12! < 2**32``), else ``uint64``; a group's kept ``B(a)`` vectors
are over one card fewer than its ``A``. Where a window's universe has ``NARROW_SET_CARDS + 1`` cards
and its tables reach the whole of it (with 16 cards to come, the windows of three cards to come: 13
cards), that whole set is the one row over more than 12 cards: it is kept apart, one ``uint64`` row
per window (``AF``), and the rest of the table is ``uint32`` (``split_row``; the split sum reads that
row only as the child's whole set, the first part it visits, so its inner loop is unchanged). A
window's kept ``B(a)`` rows over sets of at most ``SHORT_SET_CARDS`` (8) cards are ``uint16`` (``8! <
2**16``), in an array apart from its other kept rows (``short_index``: one index per set, shared by
the group, says which array and which row), in every group but the top window's (whose ``B`` the
forward pass reads as it is); the split sum reads that index only where a child hands back
``S2(y)``, not on every step. Each group's vectors have ``end`` slots for its own largest set (``cap
// 2 + 1``) and each window only its own ``S1`` and ``S2`` slots (its ``w1``'s and ``w2``'s mates in
its universe). A window keeps ``B(y)`` only for the ``y`` of ``w3``'s suit that do not match ``w1``
(the others end the phase at once, ``S1(y)`` or ``R1`` over the empty set: the split sum adds that
count itself, ``p_ret <= -2``), but for the top window ``R_i``, whose ``B`` the forward pass reads by
``r_i``'s mates. The pairs' maps (``p_inv``, ``p_fwd``) are ``int32``. A window's kept ``B(a)``
vectors are read only by its own split sums, so they are freed once its group is filled (a parent
reads its children's ``A`` only); a depth's groups (the windows ``(r_i, a, b)``, then ``(r_{i-1},
r_i, a)``, then ``R_i``, each the children of the next) are freed as soon as the next is filled,
``R_i``'s once its states are dealt. The peak is the windows of three cards to come while they fill,
or their ``A`` tables with one depth's groups
(:func:`~exact.one_handed.odds_phase_groups.phase_table_bytes` estimates it before any allocation).

Needed sets: a depth's groups (``R_i`` and the windows ``(r_{i-1}, r_i, a)`` and ``(r_i, a, b)`` below
it) fill only the rows the play reads (:data:`NEEDED_SETS_ONLY`,
:func:`~exact.one_handed.odds_phase_groups.needed_sets`). The forward pass knows, before a depth's
tables are filled, the sets of cards to come with which the play reaches ``R_i`` (``live``);
``R_i``'s rows are read over their subsets only, each lower group's over the sets its parent's pairs
read it (:func:`~exact.one_handed.odds_phase_kernel.child_need`, through the same maps as the split
sums, relabellings included), and each family is closed under subsets, so a row that is filled reads
only rows that are. The top depth needs every set, the deeper ones fewer and fewer. The windows of
three cards to come are filled before any depth is reached, over every set.

Threads: with ``workers > 1`` and at least :data:`THREADS_FROM_CARDS` (13) cards to come, each
group's large layers (at least ``PARALLEL_MIN_SETS`` pairs of a window and first card with a set)
are filled by runs of whole windows side by side in threads (the kernels release the GIL): a window's
rows are written by its own pairs only, and a layer reads only rows of smaller sets, complete before
it, and the hand-back marks of the layer's size, written between the layers. So the counts are those
of one call, whatever the number of threads (a property test forces every layer into threads). A
group of one window (``R_i``), the small layers and the forward pass stay on one thread.

Cost: the windows made of three cards still to come, ``(a, b, c)``, are reachable from every
position (deal three cards that match nothing), there are ``m (m-1) (m-2)`` of them (fewer by the
symmetry above), and each table is a subset convolution over ``m - 3`` cards: about ``m^4 3^(m-4)``
steps, plus about ``m^3 3^(m-3)`` for each depth of the row that the play reaches with most of the
cards still to come (the windows ``(r_i, a, b)``; the split sums' cost lies in the sets of about two
thirds of the cards, so a depth reached with a few cards fewer costs almost as much). The engine
overtakes the memoised search of :func:`exact.one_handed.odds.position_counts` (whose cost grows
about ``m``-fold per card) from about 12 cards left. What was measured (speed-ups, thread scaling,
where the time goes, why coarser states or local symmetry would not help, reuse of a depth's groups)
is recorded in ``benchmarks/README.md`` ("position-odds phase engine").

``final=once`` is not counted (the phase tables say how a phase ends, not which check the last card
made, :mod:`exact.one_handed.phase`); the caller refuses it.
"""
from __future__ import annotations

import math
from functools import lru_cache, partial

import numpy as np
from joblib import Parallel

from sim.progress import progress_bar

from exact.invariants import require
from exact.one_handed.phase import SENTINEL, PhaseReference, _subsets
from exact.one_handed.odds_phase_groups import (WindowGroup, PositionCards, automorphisms, depth_windows, needed_sets,
                                                orbit_representatives, phase_table_bytes, pure_windows, vector_layout)
from exact.one_handed.odds_phase_kernel import deal_forward

__all__ = ["MAX_PHASE_ODDS_CARDS", "phase_table_bytes", "position_phase_counts", "position_phase_reference"]

#: counts are uint64: exact while m! < 2**64
MAX_PHASE_ODDS_CARDS = 20
#: threads are used from this many cards to come (below, the layer-by-layer calls cost what they gain)
THREADS_FROM_CARDS = 13
#: the bar advances within the groups from this many cards to come (below, a run takes seconds and the
#: groups are filled in one call each)
TICK_FROM_CARDS = 13
#: a depth's groups fill only the rows over the sets the play reaches them with (False: every set up to
#: the largest; the same counts, a test)
NEEDED_SETS_ONLY = True


# ---------------------------------------------------------------- the plain reference

def position_phase_reference(row, undealt, *, reverse: bool = False):
    """Score counts (by final row length) and emptied orders over every order of ``undealt`` dealt
    onto the settled ``row``: the recursion of the module docstring in plain Python.

    ``row`` and ``undealt`` are cards as ``(suit, rank)`` labels. Returns ``(counts, emptied)``:
    ``counts`` a dict ``{score: orders}``, ``emptied`` the orders in which a removal empties the row.
    Small positions only (it enumerates subsets of subsets)."""
    ref = PhaseReference(reverse=reverse)
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


def position_phase_counts(row, undealt, *, reverse: bool = False, stats: dict | None = None, workers: int = 1,
                          progress=None, checkpoint=None):
    """The numba engine: same answer as :func:`position_phase_reference`, as
    ``(counts list by final row length, emptied orders)``; Python ints.

    ``workers``: threads that fill the large layers of a group's tables side by side (the same
    counts whatever the number). ``progress``: a bar on stderr once it has run a few seconds (``None``
    or ``True``): one unit for the windows of three cards to come and one a row depth (the depths below
    the deepest the play reaches are passed at once), advanced within them as the layers fill from
    :data:`TICK_FROM_CARDS` cards to come (:func:`_ticks`). ``checkpoint``: an
    :class:`exact.checkpoint.StepCheckpoint` of this position; the forward counts are saved there
    after each row depth (its :meth:`~exact.checkpoint.StepCheckpoint.step`) and a saved state is
    resumed, with the same counts as a run never stopped (see :func:`_phase_counts`)."""
    if workers > 1 and len(undealt) >= THREADS_FROM_CARDS:
        with Parallel(n_jobs=workers, backend="threading") as pool:
            return _position_phase_counts(row, undealt, reverse, stats, pool, progress, checkpoint)
    return _position_phase_counts(row, undealt, reverse, stats, None, progress, checkpoint)


def _position_phase_counts(row, undealt, reverse, stats, pool, progress, checkpoint=None):
    m = len(undealt)
    require(m <= MAX_PHASE_ODDS_CARDS, f"the phase odds count in uint64: at most {MAX_PHASE_ODDS_CARDS} cards left")
    cards = PositionCards(row, undealt, reverse)
    with progress_bar(cards.k + 2, progress, desc=f"exact odds, {m} cards to come", unit="depth",
                      bar_format="{desc}: {percentage:3.0f}%|{bar}| [{elapsed}<{remaining}{postfix}]") as bar:
        return _phase_counts(cards, stats, pool, bar, checkpoint)


def _ticks(bar, groups, stage_end, m):
    """Tick functions (:meth:`WindowGroup.fill`'s ``tick``) that bring ``bar`` to ``stage_end`` units over
    the layers of ``groups`` (``None`` for a group not filled), each layer by its share of their
    estimated work (:meth:`WindowGroup.layer_work`); ``None`` each where the bar is off or ``m`` (the cards to
    come) is below :data:`TICK_FROM_CARDS` (a run of seconds: the groups are filled in one call each)."""
    if bar.disable or m < TICK_FROM_CARDS:
        return [None] * len(groups)
    works = [g.layer_work() if g is not None else [] for g in groups]
    total = sum(sum(w) for w in works) or 1.0

    def tick(w, k, part):  # never past the stage's end (rounding)
        bar.update(min(w[k] * part / total, stage_end - bar.n))

    return [partial(tick, w) for w in works]


def _phase_counts(cards, stats, pool, bar, checkpoint=None):
    """:func:`position_phase_counts` of ``cards`` (a :class:`PositionCards`), advancing ``bar`` by one for the
    windows of three cards to come and one a row depth (within them, by the layers' estimated work,
    :func:`_ticks`).

    Resuming: the depths are dealt from the deepest, ``i = k`` down to 0, and dealing depth ``i``
    (:func:`deal_forward`) reads the forward counts of row ``i`` and adds only to rows below it, to
    ``hist`` and to ``emp``. So after depth ``i`` the state is ``fA[:i]``, ``fB[:i]``, ``hist``,
    ``emp`` and the statistics; the tables of each depth are built afresh from the cards, and the
    windows of three cards to come (every depth reads them) are built again before a resumed run
    goes on at depth ``i - 1``: every step after the saved one sees the arrays an unstopped run
    sees, so the counts are the same."""
    m = cards.m
    k = cards.k
    s1, s2, r1, width = vector_layout(cards)
    pure = None
    split_groups = 0  # groups whose row of the whole universe is kept apart (uint64 beside uint32)
    not_kept = 0  # B(y) vectors not kept (y matches w1: the phase ends at once)
    if m >= 3:
        reps, lookup = pure_windows(cards)
        pure = WindowGroup(cards, reps, [m - 3] * len(reps), lookup=lookup)
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
    start = k
    saved = checkpoint.load() if checkpoint is not None else None
    if saved is not None:
        state, arrays = saved
        start = int(state["next"])
        require(arrays["fA"].shape == fA[:start + 1].shape and arrays["fB"].shape == fB[:start + 1].shape
                and arrays["hist"].shape == hist.shape and arrays["emp"].shape == emp.shape,
                "an odds checkpoint's counts have this position's shapes")
        fA[:start + 1], fB[:start + 1], hist[:], emp[:] = arrays["fA"], arrays["fB"], arrays["hist"], arrays["emp"]
        depths, split_groups, not_kept = int(state["depths"]), int(state["split_groups"]), int(state["not_kept"])
        bar.update(k + 1 - start - bar.n)
    for i in range(start, -1, -1):
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
                wins, lookup = depth_windows(cards, x3)
            elif level == 2:
                wins, lookup = orbit_representatives([(x2, x3, a) for a in range(m)], automorphisms(cards, (x2, x3)))
            else:
                wins = [(x1, x2, x3)]
            caps = [max(cap - size, 0)] * len(wins)
            grp = WindowGroup(cards, wins, caps, child_group=child, lookup=lookup, inner=level > 1) if wins else None
            groups[level] = grp
            child = grp if grp is not None else child
        needs = needed_sets(groups, live_a, live_b, m) if NEEDED_SETS_ONLY else {}
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
        deal_forward(i, fA, fB, top.tables(), hist, emp, m)
        top = None
        bar.update(k + 2 - i - bar.n)
        if checkpoint is not None and i > 0:
            checkpoint.step(k + 1 - i, k + 1, lambda i=i: (
                {"next": i - 1, "depths": depths, "split_groups": split_groups, "not_kept": not_kept},
                {"fA": fA[:i], "fB": fB[:i], "hist": hist, "emp": emp}))
    counts = [int(c) for c in hist.tolist()]
    require(sum(counts) == math.factorial(m), "phase odds must add up to m!")
    emptied = sum(int(e) * math.factorial(s) for s, e in enumerate(emp.tolist()))
    if stats is not None:
        stats.update(depths=depths, windows=0 if pure is None else len(pure.windows), split_groups=split_groups,
                     not_kept=not_kept, table_bytes=0 if pure is None else pure_bytes,
                     symmetry=len(automorphisms(cards)))
    return counts, emptied
