"""The loss conditions of :mod:`exact.prisoners.proofs` as numba kernels on the search's arrays: the
jitted twins of that module's reference functions (tests check they agree), applied by the search
of :mod:`exact.prisoners.solver_kernel` to every row it expands (bits of its ``proofs`` mask).
"""
from __future__ import annotations

import numpy as np

from sim._jit import jit


@jit(inline="always")
def linked(tops, bottoms, m, neighbours, ranks, reverse, holders):
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
def uncoverable_cards(tops, m, neighbours, ranks, right, total):
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
def _collect_stranded(tops, m, neighbours, ranks, at, cards, options):
    """The stranded cards of a physical row (no partner to their right), for :func:`stranded_cards` and
    :func:`used_partners`: ``cards[c]`` the position of the ``c``-th from the right and
    ``options[c]`` its landing partners as a bit mask of positions (none when it has fewer than two,
    or sits in the first three piles). Returns ``(count, the index of the first card with no landing
    partner or -1, whether a second one was found)``: two such cards prove the row lost at once."""
    for r in range(ranks):
        at[r] = 0
    for p in range(m):
        at[tops[p]] |= np.int64(1) << p
    count = 0
    hopeless = -1
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
                if hopeless >= 0:
                    return count, hopeless, True
                hopeless = count
            cards[count] = p
            options[count] = mask
            count += 1
        seen |= np.int64(1) << t
    return count, hopeless, False


@jit(inline="always")
def _augment(i, options, owner, landing, previous, queue):
    """Match card ``i`` (``landing[i] == -1``) by a breadth-first augmenting path over the bit masks
    ``options``: ``owner[q]`` the card landing on position ``q`` or -1, ``landing[c]`` where card ``c``
    lands. On a path, every card on it takes the position that reached it, and True is returned; with
    none, nothing changes and False is returned."""
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
        return False
    q = found
    while True:  # flip the path: every card on it takes the position that reached it
        u = previous[q]
        nxt = landing[u]
        owner[q] = u
        landing[u] = q
        if u == i:
            break
        q = nxt
    return True


@jit(inline="always")
def stranded_cards(tops, m, neighbours, ranks, work):
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
    count, _, two_hopeless = _collect_stranded(tops, m, neighbours, ranks, at, cards, options)
    if two_hopeless:
        return True
    if count <= 1:
        return False
    for p in range(m):
        owner[p] = -1
    unmatched = 0
    for i in range(count):
        landing[i] = -1
        if options[i] == 0 or not _augment(i, options, owner, landing, previous, queue):
            unmatched += 1
            if unmatched == 2:
                return True
    return False


@jit(inline="never")
def used_partners(tops, m, neighbours, ranks, work):
    """Whether the stranded cards of a physical row, all but a final one, fail the surplus condition
    (:func:`exact.prisoners.proofs.used_partners`): for each choice of the final card, a maximum
    matching of the other stranded cards (breadth-first augmenting paths on bit masks of positions),
    then the least set of *good* cards (a card is good when one of its landing partners is free or
    held by a good card other than itself), which is every card exactly when each card could be
    matched twice. ``work``: ``ranks + 6 * m`` ints."""
    if m <= 1:
        return False
    at = work[:ranks]
    cards = work[ranks:ranks + m]
    options = work[ranks + m:ranks + 2 * m]
    owner = work[ranks + 2 * m:ranks + 3 * m]  # per position: the index of the card landing there, or -1
    landing = work[ranks + 3 * m:ranks + 4 * m]  # per card index: where it lands, or -1
    previous = work[ranks + 4 * m:ranks + 5 * m]
    queue = work[ranks + 5 * m:ranks + 6 * m]
    count, hopeless, two_hopeless = _collect_stranded(tops, m, neighbours, ranks, at, cards, options)
    if two_hopeless:
        return True  # two cards with no landing partner
    if count <= 1:
        return False
    for final in range(count):
        if hopeless >= 0 and final != hopeless:
            continue
        for p in range(m):
            owner[p] = -1
        matched_all = True
        for i in range(count):
            landing[i] = -1
        for i in range(count):
            if i != final and not _augment(i, options, owner, landing, previous, queue):
                matched_all = False
                break
        if not matched_all:
            continue
        reach = np.int64(0)  # free landing partners, then those held by good cards
        for i in range(count):
            if i != final:
                reach |= options[i]
        for i in range(count):
            if i != final:
                reach &= ~(np.int64(1) << landing[i])
        for i in range(count):
            previous[i] = -1  # reused, indexed by card: -2 once the card is good
        good = 0
        changed = True
        while changed:
            changed = False
            for i in range(count):
                if i != final and previous[i] != -2 and (options[i] & reach) != 0:
                    previous[i] = -2
                    reach |= np.int64(1) << landing[i]
                    good += 1
                    changed = True
        if good == count - 1:
            return False
    return True


@jit(inline="always")
def frozen_piles(tops, bottoms, m, neighbours, ranks, counts):
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
def pairable(counts, ranks, cycle):
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
def unpaired_tops(tops, bottoms, m, ranks, cycle, counts):
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
            ok = pairable(counts, ranks, cycle)
            counts[f] += 1
            if ok:
                return False
    return True


@jit(inline="always")
def immovable_piles(tops, bottoms, m, neighbours, ranks, reach):
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
