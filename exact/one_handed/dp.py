"""Exact One-Handed score distribution by dynamic programming over reduced hand states.

The method
----------
A *hand state* after ``t`` cards have been dealt and the row settled is the pair (row, undealt set).
All ``t!`` orders of the dealt cards that lead to a state share its future, so the DP runs *forward*,
one dealt card at a time, keeping for each reachable state the number of dealt-prefixes that lead to
it (Python ints). Only two layers are alive at once. After the last card the only state left is the
empty one and its counts, indexed by score, are the answer; they must add up to ``(S*R)!``.

Exact reductions (each maps states with equal futures onto one key; soundness is what is proved):

1. **Every future comparison involves a card still to be dealt.** Claim: after a settle, for every
   position ``j >= 3`` of the row (0-based), ``row[j]`` and ``row[j-3]`` share neither suit nor rank.
   Proof: a card reaches position ``j`` either when dealt or when a remove-two slides the top down to
   ``j``; in both cases positions below ``j`` are untouched from then on, and the check that follows
   compares ``row[j]`` with ``row[j-3]``; a match would have removed ``row[j-2], row[j-1]`` (remove-
   two) or ``row[j]`` itself (remove-four), so a card that stays at ``j`` failed the check. Hence when
   a remove-four later exposes an old top, its check against the card three below it fails again,
   and every comparison that can still *succeed* has as its top ``a`` the card most recently dealt
   (possibly slid down). So two cards already in the row are never compared successfully again.

2. **Dead labels.** A suit (rank) that no undealt card has can never match again (by 1, a match
   needs an undealt card with that suit), so in the row it is replaced by one "dead" label that
   matches nothing, whatever card carried it. Two row cards with the same dead suit were never going
   to be compared successfully, so merging all dead suits into one symbol changes no future.

3. **Frozen bottom.** Call a label *two-type* if a match on it removes the two between (suit in
   the plain game, rank with ``reverse=on``) and *four-type* otherwise. Cut ``c`` is valid when
   positions ``c-3 .. c-1`` hold no live label at all and position ``c-4`` (if any) no live
   four-type label. Then (i) position ``c-1`` is never removed: removing a position ``q`` takes a
   remove-four with ``b`` in ``q-3 .. q`` or a remove-two with ``b`` in ``q-2 .. q-1``, and while
   ``q`` stands the cards below it are the present ones, none of which can match there (labels only
   die); (ii) so nothing below ``c`` is ever removed either (a removal at ``q' < q`` needs the top
   three above ``b <= q'``, i.e. at or below ``q``, which is only possible once ``q`` is gone);
   (iii) no card below ``c`` is ever a matching ``b``: a top at ``b+3 < c`` is impossible by (ii),
   and ``b`` in ``c-3 .. c-1`` is dead. The cards below ``c`` are therefore inert: they are cut off
   the key and counted in a score *offset* (final score = offset + final row length); a top whose
   4th-from-end lies in the cut part compares with "nothing", as it compared with an inert card.
   (With a positive offset the row can never be emptied, which is what ``win=any`` needs.) The
   simplest case is ``c`` = the lowest position with any live label.

4. **Relabelling.** Suits and ranks are relabelled (a permutation of each, which maps games onto
   games) in order of first appearance along the row from the bottom, then the suits and ranks seen
   only among the undealt cards are ordered by their incidence profile (see :func:`canonical_key`).
   The key is the image of the state under one such relabelling, so equal keys imply equivalent
   states (soundness); ties that the profile cannot break cost only speed.

``final=once`` (a single check after the last card) changes only the last layer's transitions. The
reductions stay sound: what a ``final=once`` game does is what the cascading game does, cut short
after the last card's first removal, so the claims above (which say what can never happen in any
continuation) hold for it as well.

``win=any`` is counted without widening the key: each key also carries the number of its prefixes
(at offset 0) whose row was never emptied by a removal; when a transition empties the row, those
prefixes times ``(cards left)!`` orders are wins, and they stop being carried as "never emptied".

Invariant checked on every transition (the parity theorem, :mod:`exact.one_handed.parity`): every removal takes
2 or 4 cards, so the row length changes by ``+1`` minus an even number per dealt card.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

from sim.deck import Deck
from sim.rules.one_handed import REMOVE_BETWEEN, REMOVE_FOUR, removal
from sim.variant import Variant

from exact.invariants import require
from exact.one_handed.dp_kernel import dp_kernel_distribution

DEAD = -1


@dataclass
class DPStats:
    """What the DP visited: states per layer, transitions, largest layer."""

    states: int = 0
    transitions: int = 0
    max_layer_states: int = 0
    layer_states: tuple = ()
    finish_cards: int = 0  # the last layers' cards, played out per state (exact.one_handed.finish)
    finish_orders: int = 0  # the orders played out there


def _settle(row: list, reverse: bool, max_removals: int | None = None) -> tuple[int, int]:
    """Settle ``row`` of (suit, rank) label pairs in place (DEAD never matches), making at most
    ``max_removals`` removals (1 for the last card under ``final=once``).

    ``reverse``: False for the plain game (a suit match removes the two between); True (``reverse=on``): a rank match
    does. Returns (cards removed, removals); each removal takes 2 or 4 cards (asserted by the caller).
    """
    removed = removals = 0
    while len(row) >= 4 and (max_removals is None or removals < max_removals):
        sa, ra = row[-1]
        sb, rb = row[-4]
        kind = removal(sa == sb and sa != DEAD, ra == rb and ra != DEAD, reverse)
        if kind == REMOVE_BETWEEN:
            del row[-3:-1]
            removed += 2
        elif kind == REMOVE_FOUR:
            del row[-4:]
            removed += 4
        else:
            break
        removals += 1
    return removed, removals


def _order_side(pairs, fixed_a: dict, fixed_b: dict, fresh_a, fresh_b):
    """Orders for the fresh labels of side a given side b, breaking ties of a by brute force.

    ``pairs`` are (a, b) label pairs (the undealt cards). Returns a list of candidate complete
    relabellings (map_a, map_b); the caller keeps the one with the smallest key.
    """
    # profile of a fresh a-label: the fixed b-labels it meets, and how many fresh b-labels it meets
    prof_a = {a: ([], 0) for a in fresh_a}
    for a, b in pairs:
        if a in prof_a:
            lst, k = prof_a[a]
            if b in fixed_b:
                lst.append(fixed_b[b])
                prof_a[a] = (lst, k)
            else:
                prof_a[a] = (lst, k + 1)
    sig_a = {a: (tuple(sorted(lst)), k) for a, (lst, k) in prof_a.items()}
    ordered = sorted(fresh_a, key=lambda a: sig_a[a])
    groups = [list(g) for _, g in itertools.groupby(ordered, key=lambda a: sig_a[a])]
    perms_per_group = [itertools.permutations(g) for g in groups]
    n_choices = math.prod(math.factorial(len(g)) for g in groups)
    if n_choices > 24:  # sound either way; brute force only where it is cheap
        perms_per_group = [[tuple(g)] for g in groups]
    candidates = []
    for choice in itertools.product(*perms_per_group):
        map_a = dict(fixed_a)
        for g in choice:
            for a in g:
                map_a[a] = len(map_a)
        # given every a-label, order fresh b-labels by the set of a-labels they meet: complete,
        # since fresh b-labels with equal columns are interchangeable (they are not in the row)
        col = {b: [] for b in fresh_b}
        for a, b in pairs:
            if b in col:
                col[b].append(map_a[a])
        map_b = dict(fixed_b)
        for b in sorted(fresh_b, key=lambda b: sorted(col[b])):
            map_b[b] = len(map_b)
        candidates.append((map_a, map_b))
    return candidates


def frozen_cut(reduced, *, four_is_rank: bool) -> int:
    """Largest ``c`` such that ``reduced[:c]`` is never removed nor matched again (reduction 3):
    positions ``c-3 .. c-1`` hold no live label and position ``c-4`` no live four-label."""
    for c in range(len(reduced), 0, -1):
        if all(reduced[j] == (DEAD, DEAD) for j in range(max(0, c - 3), c)):
            if c < 4 or reduced[c - 4][1 if four_is_rank else 0] == DEAD:
                return c
    return 0


def canonical_key(row, undealt, ranks: int, *, reverse: bool = False):
    """Reduce and relabel a settled state; return ``(key, offset)``.

    Parameters
    ----------
    row : sequence of (suit, rank) label pairs, bottom first (DEAD allowed)
    undealt : sequence of (suit, rank) label pairs, the cards still to deal
    ranks : the deck's number of ranks (the width of the undealt-set bit mask)
    reverse : False for the plain game (a suit match removes two), True for ``reverse=on`` (a rank match does)

    Returns
    -------
    key : (row codes, undealt bit mask) in canonical labels; a row code is
        ``(suit + 1) * (ranks + 1) + rank + 1`` (0 for a dead label), mask bit ``suit * ranks + rank``
    offset : the number of frozen cards cut from the bottom of the row (reduction 3)
    """
    live_s = {s for s, _ in undealt}
    live_r = {r for _, r in undealt}
    reduced = [(s if s in live_s else DEAD, r if r in live_r else DEAD) for s, r in row]
    p = frozen_cut(reduced, four_is_rank=not reverse)
    reduced = reduced[p:]
    smap: dict = {}
    rmap: dict = {}
    for s, r in reduced:
        if s != DEAD and s not in smap:
            smap[s] = len(smap)
        if r != DEAD and r not in rmap:
            rmap[r] = len(rmap)
    fresh_s = [s for s in live_s if s not in smap]
    fresh_r = [r for r in live_r if r not in rmap]
    if len(fresh_s) <= 1 and len(fresh_r) <= 1:
        for s in fresh_s:
            smap[s] = len(smap)
        for r in fresh_r:
            rmap[r] = len(rmap)
        candidates = [(smap, rmap)]
    elif len(fresh_s) <= len(fresh_r):
        candidates = _order_side(undealt, smap, rmap, fresh_s, fresh_r)
    else:
        swapped = [(r, s) for s, r in undealt]
        candidates = [(ms, mr) for mr, ms in _order_side(swapped, rmap, smap, fresh_r, fresh_s)]
    width = ranks + 1
    best = None
    for ms, mr in candidates:
        codes = tuple((ms[s] + 1 if s != DEAD else 0) * width + (mr[r] + 1 if r != DEAD else 0)
                      for s, r in reduced)
        mask = 0
        for s, r in undealt:
            mask |= 1 << (ms[s] * ranks + mr[r])
        key = (codes, mask)
        if best is None or key < best:
            best = key
    return best, p


def _decode(key, ranks: int):
    codes, mask = key
    width = ranks + 1
    row = [(c // width - 1, c % width - 1) for c in codes]
    undealt = []
    bit = 0
    while mask:
        if mask & 1:
            undealt.append(divmod(bit, ranks))
        mask >>= 1
        bit += 1
    return row, undealt


def initial_key(deck: Deck):
    """The key of the empty row with the whole deck undealt."""
    undealt = [(s, r) for s in range(deck.suits) for r in range(deck.ranks)]
    return canonical_key([], undealt, deck.ranks)


def dp_distribution(deck: Deck, variant: Variant, *, progress=None, stats: DPStats | None = None,
                    finish_cards: int | None = None, checkpoint=None):
    """Score counts and wins over all ``(S*R)!`` deck orders, by the forward DP (numba kernel,
    :mod:`exact.one_handed.dp_kernel`; :func:`dp_distribution_reference` is the same DP in plain Python).

    ``first4=reversed`` is played as ``first4=kept`` (see :mod:`exact.one_handed.parity`). ``finish_cards``: the
    number of last cards played out per state instead of built as layers (:mod:`exact.one_handed.finish`);
    ``None`` chooses it, ``0`` builds every layer. ``checkpoint``: see
    :func:`exact.one_handed.dp_kernel.dp_kernel_distribution`.
    """
    return dp_kernel_distribution(deck.suits, deck.ranks, reverse=variant.rules.reverse,
                                  win_any=variant.rules.win_any, final_once=variant.rules.final_once,
                                  progress=progress, stats=stats, finish_cards=finish_cards,
                                  checkpoint=checkpoint)


def dp_distribution_reference(deck: Deck, variant: Variant, *, progress=None,
                              stats: DPStats | None = None):
    """Score counts and wins over all ``(S*R)!`` deck orders, by the forward DP in plain Python.

    ``first4=reversed`` is played as ``first4=kept``: reversing the first four cards of every order is
    a bijection of the set of orders (see :mod:`exact.one_handed.parity`), so the counts are equal; the
    enumeration method plays it literally and the tests compare the two.

    Returns
    -------
    score_counts : list of Python ints, index = score
    wins : int (equals ``score_counts[0]`` unless ``win=any``)
    """
    n = deck.size
    ranks = deck.ranks
    reverse = variant.rules.reverse
    win_any = variant.rules.win_any
    final_once = variant.rules.final_once
    stats = stats if stats is not None else DPStats()
    key0, off0 = initial_key(deck)
    require(off0 == 0, "the initial key has offset 0")
    # value: [never_emptied_at_offset_0, counts by offset...]
    layer = {key0: [1, 1]}
    wins_absorbed = 0
    layer_sizes = [1]
    for t in range(n):
        left_after = n - t - 1
        fact_left = math.factorial(left_after)
        nxt: dict = {}
        for key, value in layer.items():
            row, undealt = _decode(key, ranks)
            never_emptied = value[0]
            counts = value[1:]
            # successors of this key, merged: (key', delta offset, emptied) -> multiplicity
            succ: dict = {}
            for i, card in enumerate(undealt):
                new_row = row + [card]
                before = len(new_row)
                removed, removals = _settle(new_row, reverse, 1 if final_once and t == n - 1 else None)
                # parity invariant: each removal took 2 or 4 cards
                require(removed % 2 == 0 and 2 * removals <= removed <= 4 * removals,
                        "each removal takes 2 or 4 cards")
                require(len(new_row) == before - removed, "the row lost the removed cards")
                emptied = removals > 0 and not new_row
                rest = undealt[:i] + undealt[i + 1:]
                k2, cut = canonical_key(new_row, rest, ranks, reverse=reverse)
                s = (k2, cut, emptied)
                succ[s] = succ.get(s, 0) + 1
                stats.transitions += 1
            for (k2, cut, emptied), mult in succ.items():
                target = nxt.get(k2)
                if target is None:
                    target = nxt[k2] = [0]
                need = 1 + cut + len(counts)
                if len(target) < need:
                    target.extend([0] * (need - len(target)))
                for off, c in enumerate(counts):
                    if c:
                        target[1 + off + cut] += c * mult
                # never-emptied prefixes live only at offset 0 (a positive offset can't empty)
                if never_emptied and cut == 0:
                    if emptied:
                        wins_absorbed += never_emptied * mult * fact_left
                    else:
                        target[0] += never_emptied * mult
        stats.states += len(layer)
        layer = nxt
        layer_sizes.append(len(layer))
        stats.max_layer_states = max(stats.max_layer_states, len(layer))
        if progress is not None:
            progress(t + 1, n, len(layer))
    require(list(layer) == [((), 0)], "after the last card only the empty state can remain")
    stats.states += 1
    stats.layer_states = tuple(layer_sizes)
    value = layer[((), 0)]
    score_counts = value[1:] + [0] * (n + 1 - len(value[1:]))
    score_counts = score_counts[: n + 1]
    wins = wins_absorbed if win_any else score_counts[0]
    return score_counts, wins
