"""The position-odds engine's window groups, built in Python: the position's cards and their
relabellings, the groups of windows a depth fills (their tables' layout and types, the pairs' maps),
the sets the play needs, and the engine's memory estimate.

The engine and its recursion are in :mod:`exact.one_handed.odds_phase`, the kernels that fill a group
in :mod:`exact.one_handed.odds_phase_kernel`. The constants here set the tables' types
(:data:`NARROW_SET_CARDS`, :data:`SHORT_SET_CARDS`), the symmetry used (:data:`MAX_SYMMETRY`) and how a
group's layers are cut into runs for threads and a progress bar; the tests change them to check that
the counts do not depend on them.
"""
from __future__ import annotations

import math
from functools import lru_cache
from itertools import permutations, product

import numpy as np
from joblib import delayed

from exact.one_handed.odds_phase_kernel import ChildGroup, GroupTables, child_need, fill_layers, mark_final, mark_layer

#: a window's tables are ``uint32`` when its sets have at most this many cards: every entry counts
#: orders of its set, at most ``12! < 2**32`` (half the memory, and half the bytes each split sum reads)
NARROW_SET_CARDS = max(s for s in range(21) if math.factorial(s) < 2**32)
#: a kept ``B`` row over a set of at most this many cards is ``uint16``: ``8! < 2**16`` (the sets of at
#: most 8 cards are 93% of the rows over 12 cards, the kept ``B`` of the windows of three cards to come
#: with 16 left); -1: none
SHORT_SET_CARDS = max(s for s in range(21) if math.factorial(s) < 2**16)
#: a layer of a group's tables with fewer (pair, set) than this is filled in one call, not in threads
PARALLEL_MIN_SETS = 20_000
#: runs of windows a thread, so that threads that finish early take more
RUNS_PER_THREAD = 4
#: with a progress bar, a large layer filled on one thread is filled in this many runs of windows, the
#: bar advanced after each (so that it moves within the minutes a large group can take)
TICK_RUNS = 32
#: the largest group of relabellings of the cards to come whose orbits share the tables of the windows
#: of three cards to come (a larger group is not used: the engine stays exact, only without sharing)
MAX_SYMMETRY = 5040


class PositionCards:
    """The position's cards: ``0 .. m-1`` the cards to come, ``m + j`` row card ``j`` (0-based),
    ``-1`` a sentinel; two-type and four-type matches (suit and rank, swapped for ``reverse=on``)."""

    def __init__(self, row, undealt, reverse):
        labels = list(undealt) + list(row)
        self.m, self.k = len(undealt), len(row)
        self.two = [lab[1] if reverse else lab[0] for lab in labels]
        self.four = [lab[0] if reverse else lab[1] for lab in labels]

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


def automorphisms(cards, fixed=()):
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


def orbit_representatives(items, group):
    """Orbit representatives of ``items`` (tuples of cards; cards ``>= m`` or ``< 0`` are not moved)
    under ``group`` (from :func:`automorphisms`): ``(reps, lookup)`` with ``lookup[item] = (j, g)``,
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


class WindowGroup:
    """Arrays of one group of windows for :func:`fill_layers`."""

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
        self.s1 = s1 = end_slots(max(caps, default=0))
        self.s2s = s1 + self.nm1
        self.r1s = self.s2s + self.nm2
        self.widths = self.r1s + 3
        self.bpos = np.zeros((ng, max(m, 1)), dtype=np.int64)  # universe position of each kept B card
        self.usize = np.zeros(ng, dtype=np.int64)
        # the kept B rows over sets of at most SHORT_SET_CARDS cards apart, uint16 (not the top window's:
        # deal_forward reads that group's B as it is); a group's windows share one universe size
        sizes = {len(u) for u in self.universe}
        self.b_split = int(inner and len(sizes) == 1 and min(sizes) >= 1 and SHORT_SET_CARDS >= 0)
        self.b_idx, self.n_lo, self.n_hi = short_index(min(sizes) - 1) if self.b_split else \
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
        # more than NARROW_SET_CARDS cards: the tables are then uint32 (not the top window's: deal_forward
        # reads that group's tables as they are)
        self.split = inner and ng > 0 and all(split_row(len(u), c) for u, c in zip(self.universe, caps))
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
        (laid out like ``ret``, closed under subsets; :func:`needed_sets`), or every row. ``tick(k, part)``:
        called as each layer ``k`` fills, ``part`` the share of it just filled (a progress bar: the
        layers are then filled one call each, a large one on one thread by :data:`TICK_RUNS` runs of
        windows; a layer filled in threads is ticked once, when it is complete)."""
        child = child_group if child_group is not None else self
        cap = int(self.cap.max()) if len(self.cap) else 0
        self.A = np.zeros(max(self.a_size, 1), dtype=table_dtype(cap - 1 if self.split else cap))
        self.AF = np.zeros(max(self.f_size, 1), dtype=np.uint64)
        # a kept B(a) is over the sets without a: one card fewer (uint32 where A needs uint64 at the top)
        self.B = np.zeros(max(self.b_size, 1), dtype=table_dtype(cap - 1))
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
            fill_layers(*args, 0, cap, 0, npairs, True)
            return
        whole = [(0, npairs)]
        steps = self._runs(TICK_RUNS) if tick is not None else None
        for k in range(cap):
            if self_child:  # the marks of size k (its rows are complete) before the layer reads them
                mark_layer(k, tables)
            if large[k]:
                pool(delayed(fill_layers)(*args, k, k + 1, lo, hi, False) for lo, hi in runs)
                if tick is not None:
                    tick(k, 1.0)
                continue
            # on this thread; with a bar, a large layer a run of whole windows at a time (the same rows, any
            # order), ticked after each
            for lo, hi in steps if steps is not None and big[k] else whole:
                fill_layers(*args, k, k + 1, lo, hi, False)
                if tick is not None:
                    tick(k, (hi - lo) / npairs if npairs else 1.0)
        mark_final(tables, self_child)

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


def short_index(nbits):
    """The rows of a kept ``B`` table over sets of ``nbits`` cards, split by size: ``(idx, n_lo, n_hi)``,
    ``idx[r] = -1 - i`` for a set ``r`` of at most :data:`SHORT_SET_CARDS` cards (row ``i`` of the
    ``uint16`` array, ``n_lo`` such rows a slot), else its row among the ``n_hi`` others."""
    return _short_index_cached(nbits, SHORT_SET_CARDS)


def table_dtype(cap):
    """``uint32`` for tables over sets of at most :data:`NARROW_SET_CARDS` cards, else ``uint64``."""
    return np.uint32 if cap <= NARROW_SET_CARDS else np.uint64


def split_row(usize, cap):
    """Whether a window over a universe of ``usize`` cards, with tables up to sets of ``cap``, keeps the
    row of its whole universe apart (``uint64``) and the rest ``uint32``: that row is its only one
    over more than :data:`NARROW_SET_CARDS` cards (with 16 cards to come, the windows of three cards
    to come: 13 cards, their tables would otherwise be ``uint64`` for the one row)."""
    return usize >= 1 and cap == usize == NARROW_SET_CARDS + 1


def end_slots(cap):
    """``end`` slots of a group whose sets have at most ``cap`` cards: ``end(j)`` sits at ``j // 2`` and
    ``j`` is at most ``cap`` (the cards on top of the window, the pending card of ``B(a)`` counted)."""
    return cap // 2 + 1


def vector_layout(cards):
    m = cards.m
    n_end = m // 2 + 1
    refs = list(range(m + cards.k))
    maxm = max([1] + [len(cards.mates(w, range(m))) for w in refs])
    s1 = n_end
    s2 = s1 + maxm
    r1 = s2 + maxm
    return s1, s2, r1, r1 + 3


def pure_windows(cards):
    """The windows of three cards to come, one per orbit of the relabellings of the cards to come
    (:func:`automorphisms`): ``(representatives, lookup)`` as :func:`orbit_representatives` gives them."""
    return orbit_representatives(list(permutations(range(cards.m), 3)), automorphisms(cards))


def depth_windows(cards, x):
    """The windows ``(x, a, b)`` of a row card ``x`` (or a sentinel) under two cards to come, one per
    orbit of the relabellings of the cards to come that keep ``x``'s matches: ``(representatives,
    lookup)``."""
    m = cards.m
    wins = [(x, a, b) for a in range(m) for b in range(m) if a != b]
    return orbit_representatives(wins, automorphisms(cards, (x,)))


def needed_sets(groups, live_a, live_b, m):
    """The sets over which each of a depth's groups (``groups[level]``: 1 ``R_i``, 2 ``(r_{i-1}, r_i,
    a)``, 3 ``(r_i, a, b)``, a group ``None`` where it has no window) has rows that the play reads, as
    arrays laid out like the group's ``ret``: ``R_i``'s every set under a live one (the sets of cards to
    come with which the play reaches state ``A`` or ``B(a)`` of ``R_i``, ``live_a`` and ``live_b``: the
    forward pass reads its rows over their subsets, and a row over a set is made of rows over smaller
    ones); each lower group's the sets its parent's pairs read it over (:func:`child_need`). Every
    family is closed under subsets."""
    live = np.zeros(1 << m, dtype=bool)
    live[live_a] = True
    live[live_b] = True
    needs = {1: down_closure(live, m).astype(np.uint8)}  # R_i's universe is every card to come, in order
    for parent, level in ((1, 2), (2, 3)):
        pg, cg = groups.get(parent), groups.get(level)
        if pg is None or cg is None:
            break
        needs[level] = np.zeros(max(cg.r_size, 1), dtype=np.uint8)
        child_need(needs[parent], pg.r_off, pg.drops, pg.p_win, pg.p_bits, pg.p_nbits, pg.p_match, pg.p_child,
                    pg.p_fwd, needs[level], cg.r_off)
    return needs


def down_closure(live, m):
    """The sets under some set of ``live`` (a boolean array over the ``2**m`` sets of cards to come)."""
    closed = live.copy()
    idx = np.arange(1 << m)
    for b in range(m):
        low = idx[(idx >> b) & 1 == 0]
        closed[low] |= closed[low | (1 << b)]
    return closed


def phase_table_bytes(row, undealt, *, reverse: bool = False) -> int:
    """Bytes the engine holds at its peak for this position, computed before it allocates them: the
    windows of three cards to come while they fill (their ``A`` and kept ``B`` tables and the pairs'
    maps), then their ``A`` tables (their ``B`` vectors are freed: a parent reads its children's ``A``
    only) with the largest moment of one row depth (every depth's tables sized for the largest sets,
    a bound: a group's ``end`` slots and its tables' type follow its largest set), and the forward
    arrays."""
    cards = PositionCards(row, undealt, reverse)
    m, k = cards.m, cards.k
    _, s2, r1, width = vector_layout(cards)
    maxm = s2 - (m // 2 + 1)
    forward = ((k + 1) * (1 + maxm) + 1) * (1 << m) * 8  # fA, fB and the popcounts
    if m < 3:
        return forward

    item = {cap: np.dtype(table_dtype(cap)).itemsize for cap in range(m - 4, m + 1)}

    def table(u, w, split=True):
        """A window's A table over a universe of u cards, sets of up to u (and its return marks)."""
        if split and split_row(u, u):  # uint32, the row of the whole universe apart
            return (1 << u) * (w * np.dtype(np.uint32).itemsize + 1) + w * 8
        return (1 << u) * (w * item[u] + 1)

    def kept_rows(nbits, size):
        """Bytes of one kept ``B`` slot's rows (a vector entry each) over sets of ``nbits`` cards, those
        of at most SHORT_SET_CARDS cards uint16 (an inner group's, :func:`short_index`)."""
        if nbits < 0:  # no window of the kind has a card to keep
            return 0
        if SHORT_SET_CARDS < 0:
            return (1 << nbits) * size
        _, n_lo, n_hi = short_index(nbits)
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
    s1 = end_slots(m - 3)
    for a, b, c in pure_windows(cards)[0]:
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
            for _, a, b in depth_windows(cards, x3)[0]:
                w = end_slots(m - 2) + 3 + nmates(x3, (a, b)) + mates[a] - same[a][b]
                l3_a += table(m - 2, w) + (m - 2) * chunks
                l3_b += kept(x3, b, (a,)) * kept_rows(m - 3, item[m - 3]) * w
            l3[live] = (l3_a, l3_b)
        l3_a, l3_b = l3[live]
        l2_a = l2_b = 0
        for _, _, a in orbit_representatives([(x2, x3, a) for a in range(m)], automorphisms(cards, (x2, x3)))[0]:
            w = end_slots(m - 1) + 3 + nmates(x2, (a,)) + nmates(x3, (a,))
            l2_a += table(m - 1, w) + (m - 1) * chunks
            l2_b += kept(x2, a) * kept_rows(m - 2, item[m - 2]) * w
        w = end_slots(m) + 3 + nmates(x1) + nmates(x2)
        l1 = table(m, w, split=False) + nmates(x3) * (1 << (m - 1)) * w * item[m - 1] + m * chunks
        depth = max(depth, l3_a + l3_b, l3_a + l2_a + l2_b, l2_a + l1)
    return max(pure_a + pure_b, pure_a + depth) + forward
