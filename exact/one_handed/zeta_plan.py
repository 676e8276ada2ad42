"""The zeta method's plan and its memory estimate, built in Python once per deck shape.

:class:`ZetaPlan` holds the windows (the phase method's representatives,
:func:`exact.one_handed.primitives.window_graph`, the top twice), their child maps and vector slots,
their stabilisers (:class:`exact.one_handed.orbits.WindowGroups`) and, per point size, the canonical
points of every window (generated once, then shared by the passes). :func:`zeta_estimate` says
before any work what a pass would need, from the exact orbit counts (Burnside,
:func:`exact.one_handed.orbits.orbit_counts`); :mod:`exact.one_handed.limits` refuses a deck whose
estimate passes the memory limit.
"""
from __future__ import annotations

import functools
import math
from typing import NamedTuple

import numpy as np

from sim._jit import jit
from sim.deck import Deck

from exact.invariants import require
from exact.one_handed.crt import primes_for
from exact.one_handed.orbits import WindowGroups, canonical_point, orbit_counts
from exact.one_handed.primitives import canonical_window, popcount, window_graph

#: points are int64 bit masks over the whole deck: at most this many cards (the method's own limit,
#: :data:`exact.one_handed.limits.MAX_ZETA_CARDS`, is lower)
MAX_MASK_CARDS = 62


class ZetaArrays(NamedTuple):
    """The plan's arrays and sizes as the zeta kernel reads them (:meth:`ZetaPlan.arrays`). ``W``
    windows (slot 0 the top with its hand-backs, slot 1 the top without), ``n`` cards; index arrays
    ``int64``."""

    #: suits, ranks and cards of the deck
    S: int
    R: int
    n: int
    #: where the ``S1``, ``S2`` (one slot per rank) and ``R1, R2, R3`` slots start in a vector of
    #: ``width`` slots (the ``end`` slots first: ``end(0..n)``, or the core mode's five sums);
    #: ``half`` half-degrees a slot
    S1: int
    S2: int
    R1: int
    half: int
    width: int
    #: ``(width,)`` each slot's degree parity (slot ``t`` at half-degree ``h`` is degree ``2h + par[t]``)
    par: np.ndarray
    #: ``(W,)`` each window's cards outside it (mask), those whose ``B(a, .)`` is stored, and whether
    #: its ``R3'`` hand-backs count (0 for the never-returning top)
    umask: np.ndarray
    kmask: np.ndarray
    returns: np.ndarray
    #: ``(W, n)`` for card ``a`` dealt on window ``i``: the child window (-1: none), the match with
    #: ``w1`` (0 none, 1 suit, 2 rank); ``(W, n, n)`` the relabelling onto the child
    p_child: np.ndarray
    p_match: np.ndarray
    p_sigma: np.ndarray
    #: ``(W, n, max(R, 1))`` the child's ``S1'`` rank -> our ``S2`` rank; its ``S2'`` rank -> our card
    #: ``a'`` (``-1``: none)
    p_term: np.ndarray
    p_ret: np.ndarray
    #: the child's ``end`` slots read for the parent: slot ``end_src[u]`` adds into ``end_dst[u]``
    end_src: np.ndarray
    end_dst: np.ndarray


#: the two kinds of tables: every score (``"all"``), or p_win, win=any and the mean (``"core"``)
MODES = ("all", "core")


def end_slots(n: int, mode: str = "all"):
    """The ``end`` slots of a vector: ``(parities, sources, destinations, counted)``.

    ``"all"``: ``end(j)``, ``j = 0 .. n`` (the orders ending with ``j`` cards), a child's ``end(j)``
    read as the parent's ``end(j + 1)`` (one more card, dealt on the way in, lies under the row's
    end). ``"core"``: five sums that the same shift maps onto themselves, enough for p_win,
    win=any and the mean score: ``e0 = end(0)``, ``eo`` = the sum of ``end(j)`` over odd ``j``, ``ee``
    over even ``j >= 2``, ``mo`` the sum of ``j * end(j)`` over odd ``j``, ``me`` over even ``j``. Under
    ``j -> j + 1`` ``e0`` goes into ``eo``, ``eo`` into ``ee``, ``ee`` into ``eo``, and ``j * end(j)`` into
    ``(j + 1) * end(j + 1)``: the child's ``mo`` and ``eo`` into ``me``, its ``me``, ``ee`` and ``e0``
    into ``mo`` (``e0`` adds nothing to a sum of ``j``, but ``1 * end(1)`` is ``end(0)``'s image). Every
    map flips the parity of the degree, as the shift does. ``counted``: the leading slots that count
    orders (their sum at the top is ``n!``); the others are score sums.

    >>> end_slots(3)[0], end_slots(3)[1], end_slots(3)[2], end_slots(3)[3]
    ([0, 1, 0, 1], [0, 1, 2], [1, 2, 3], 4)
    """
    require(mode in MODES, f"mode is one of {MODES}")
    if mode == "all":
        return [j & 1 for j in range(n + 1)], list(range(n)), list(range(1, n + 1)), n + 1
    e0, eo, ee, mo, me = range(5)
    pairs = [(e0, eo), (e0, mo), (eo, ee), (eo, me), (mo, me), (ee, eo), (ee, mo), (me, mo)]
    return [0, 1, 0, 1, 0], [a for a, _ in pairs], [b for _, b in pairs], 3


class ZetaPlan:
    """Windows, their stabilisers, child maps and slots, built in Python (``mode``: see :func:`end_slots`)."""

    def __init__(self, suits: int, ranks: int, mode: str = "all"):
        require(1 <= suits * ranks <= MAX_MASK_CARDS, f"the zeta kernel holds sets in int64: at most {MAX_MASK_CARDS} cards")
        self.suits, self.ranks = suits, ranks
        n = self.n = suits * ranks
        windows, edges = window_graph(suits, ranks)
        top = windows[0]
        # slot 1 holds the top window a second time; every other window sits one place further on
        reps = [top] + windows
        children = {(windows[i], a): (j + 1, sigma) for i, a, j, sigma in edges}
        self.reps = reps
        nw = len(reps)
        self.returns = np.ones(nw, dtype=np.int64)
        self.returns[1] = 0
        # slots: the end slots, S1 by rank, S2 by rank, R1, R2, R3
        self.mode = mode
        end_par, end_src, end_dst, self.counted = end_slots(n, mode)
        ne = len(end_par)
        self.end_src = np.array(end_src, dtype=np.int64)
        self.end_dst = np.array(end_dst, dtype=np.int64)
        self.S1 = ne
        self.S2 = ne + ranks
        self.R1 = ne + 2 * ranks
        self.width = self.R1 + 3
        self.half = n // 2 + 1
        par = np.zeros(self.width, dtype=np.int64)
        par[:ne] = end_par
        par[self.S1:self.S2] = 1
        par[self.R1] = 1
        par[self.R1 + 2] = 1
        self.par = par
        self.umask = np.array([sum(1 << c for c in range(n) if c not in w) for w in reps], dtype=np.int64)
        self.p_child = np.full((nw, n), -1, dtype=np.int64)
        self.p_match = np.zeros((nw, n), dtype=np.int64)  # 0 none, 1 suit of w1 (two), 2 rank of w1 (four)
        self.p_sigma = np.zeros((nw, n, n), dtype=np.int64)
        self.p_term = np.full((nw, n, max(ranks, 1)), -1, dtype=np.int64)  # child's S1' rank -> our S2 rank
        self.p_ret = np.full((nw, n, max(ranks, 1)), -1, dtype=np.int64)  # child's S2' rank -> our card a'
        for i, w in enumerate(reps):
            for a in range(n):
                if a in w:
                    continue
                if w[0] >= 0 and a // ranks == w[0] // ranks:
                    self.p_match[i, a] = 1
                    continue
                if w[0] >= 0 and a % ranks == w[0] % ranks:
                    self.p_match[i, a] = 2
                    continue
                j, sigma = children[(w, a)]
                inv = [0] * n
                for c, img in enumerate(sigma):
                    inv[img] = c
                self.p_child[i, a] = j
                self.p_sigma[i, a] = sigma
                cw = reps[j]
                for r in range(ranks):
                    if cw[0] >= 0:  # child's S1'(r): card (suit of its w1, r) -> ours, of w2's suit
                        ours = inv[(cw[0] // ranks) * ranks + r]
                        if ours not in w and ours != a:
                            self.p_term[i, a, r] = ours % ranks
                    if cw[1] >= 0:  # child's S2'(r): card of its w2's suit (our w3's) -> ours
                        ours = inv[(cw[1] // ranks) * ranks + r]
                        if ours not in w and ours != a:
                            self.p_ret[i, a, r] = ours
        # the cards whose B(a, .) is stored: the others match w1 and their B is a constant
        self.kmask = np.array([int(u) & ~sum(1 << a for a in range(n) if self.p_match[i, a])
                               for i, u in enumerate(self.umask)], dtype=np.int64)
        self.groups = WindowGroups(suits, ranks, reps)

    def arrays(self) -> ZetaArrays:
        """The plan's arrays for the kernel."""
        return ZetaArrays(self.suits, self.ranks, self.n, self.S1, self.S2, self.R1, self.half, self.width, self.par,
                          self.umask, self.kmask, self.returns, self.p_child, self.p_match, self.p_sigma, self.p_term,
                          self.p_ret, self.end_src, self.end_dst)

    def layers(self):
        """Yield, for each point size ``s``, (sorted canonical masks of every window, offsets); generated
        on the first call, then kept (a few bytes per orbit) for the other passes."""
        if getattr(self, "_layers", None) is None:
            self._layers = list(self._generate())
        yield from self._layers

    def top_weights(self, s: int, masks, off) -> list:
        """Orbit sizes of the top windows' points of size ``s`` (Python ints), kept for the other passes."""
        cache = self.__dict__.setdefault("_weights", {})
        if s not in cache:
            cache[s] = [[self.groups.orbit_size(i, int(masks[o])) for o in range(int(off[i]), int(off[i + 1]))]
                        for i in (0, 1)]
        return cache[s]

    def _generate(self):
        g = self.groups
        nw = len(self.reps)
        masks = np.zeros(nw, dtype=np.int64)
        off = np.arange(nw + 1, dtype=np.int64)
        for s in range(self.n + 1):
            yield s, masks, off
            if s == self.n:
                return
            cand, cand_off = _grow(masks, off, self.umask, self.suits, self.ranks, g.free_s, g.free_r, g.n_free_s,
                                   g.n_free_r, g.small_suits, g.perms, g.perm_off)
            parts = [np.unique(cand[cand_off[i]:cand_off[i + 1]]) for i in range(nw)]
            off = np.zeros(nw + 1, dtype=np.int64)
            off[1:] = np.cumsum([len(p) for p in parts])
            masks = np.concatenate(parts) if off[-1] else np.zeros(0, dtype=np.int64)


@jit
def _grow(masks, off, umask, S, R, free_s, free_r, n_free_s, n_free_r, small_suits, perms, perm_off):
    """Canonical forms of every point one card larger (with repeats): each orbit of size ``s + 1``
    holds ``X + c`` for a canonical ``X`` of size ``s`` (take away any card, relabel)."""
    nw = off.shape[0] - 1
    total = 0
    for i in range(nw):
        for o in range(off[i], off[i + 1]):
            total += popcount(umask[i] & ~masks[o])
    cand = np.zeros(total, dtype=np.int64)
    cand_off = np.zeros(nw + 1, dtype=np.int64)
    pi = np.zeros(S, dtype=np.int64)
    rho = np.zeros(R, dtype=np.int64)
    work = np.zeros(4 * max(S, R), dtype=np.int64)
    k = 0
    for i in range(nw):
        for o in range(off[i], off[i + 1]):
            free = umask[i] & ~masks[o]
            while free:
                low = free & -free
                cand[k] = canonical_point(masks[o] | low, i, S, R, free_s, free_r, n_free_s, n_free_r, small_suits, perms,
                                 perm_off, pi, rho, work)
                k += 1
                free ^= low
        cand_off[i + 1] = k
    return cand, cand_off


#: the orbit counts give each window's B rows on average over its points (cards outside a point,
#: spread evenly): the tables a pass makes were 6-10% more (2x6 1.10, 3x4 1.09, 3x5 1.07, 3x6 1.06), so the
#: estimate adds 12%
ZETA_PEAK_MARGIN = 1.12


#: measured seconds per unit of zeta_estimate()["work"] (one core): 4x6's three passes took 528 CPU s
#: (work 5.10e10 a pass)
ZETA_SECONDS_PER_WORK = 528.0 / (3 * 5.10e10)


def zeta_estimate(deck: Deck, mode: str = "all") -> dict:
    """What the zeta method needs for ``deck`` (a copy of :func:`_zeta_estimate`'s cached answer);
    ``mode="core"``: the tables of the core mode (:func:`end_slots`), narrower vectors."""
    return dict(_zeta_estimate(deck.suits, deck.ranks, mode))


@functools.lru_cache(maxsize=64)
def _zeta_estimate(suits: int, ranks: int, mode: str = "all") -> dict:
    """What the zeta method needs for ``suits x ranks`` (the plain game on it), from the exact orbit counts:
    ``passes`` (31-bit primes whose product passes n!), ``peak_bytes`` (the largest two adjacent set
    sizes' tables of one pass), ``orbits`` (window-set orbits), ``pairs`` ((orbit, card) pairs of
    the B tables), ``work`` (pairs times the cost of one truncated product) and ``seconds`` (one core,
    all passes, from the measured rate)."""
    n = suits * ranks
    top = (-1, -1, -1)
    reps, seen, queue = [top, top], {top}, [top]
    while queue:
        w = queue.pop()
        for a in range(n):
            if a not in w:
                child, _ = canonical_window((w[1], w[2], a), suits, ranks)
                if child not in seen:
                    seen.add(child)
                    reps.append(child)
                    queue.append(child)
    counts = [orbit_counts(suits, ranks, w) for w in reps]
    per_size = [sum(c[s] for c in counts if s < len(c)) for s in range(n + 1)]
    # B(a, X) is stored for the cards a outside X that do not match w1 (k of the u outside the window)
    kept = [len(c) - 1 - (0 if w[0] < 0 else suits + ranks - 2) for w, c in zip(reps, counts)]
    window_b = [[c[s] * k * (len(c) - 1 - s) / (len(c) - 1) if s < len(c) - 1 else 0.0 for s in range(n + 1)]
                for c, k in zip(counts, kept)]
    b_rows = [sum(b[s] for b in window_b) for s in range(n + 1)]
    half, width = n // 2 + 1, len(end_slots(n, mode)[0]) + 2 * ranks + 3
    vec = half * width * 4
    # held while size s is made: its A, and each window's B of size s - 1 until that window's B of
    # size s is made (zeta_pass frees them window by window)
    peak = 0.0
    for s in range(n + 1):
        before = [b[s - 1] if s else 0.0 for b in window_b]
        held = per_size[s] + sum(before)
        peak = max(peak, held)
        for b, old in zip(window_b, before):
            peak = max(peak, held + b[s])
            held += b[s] - old
    peak *= vec * ZETA_PEAK_MARGIN
    pairs = sum(b_rows)
    work = pairs * half * half / 2 * width
    passes = len(primes_for(n))
    return dict(passes=passes, peak_bytes=int(peak), orbits=sum(per_size), pairs=int(pairs), work=work,
                seconds=work * ZETA_SECONDS_PER_WORK * passes, windows=len(reps) - 1,
                orders_bits=math.factorial(n).bit_length())
