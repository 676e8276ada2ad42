"""The phase method's plan: window representatives, their universes, vector slots, stabilisers and
the flat arrays the kernel (:mod:`exact.one_handed.phase_kernel`) reads, built once per deck shape in
plain Python.

Each representative window ``W`` (:func:`exact.one_handed.primitives.window_graph`) has a *universe*,
the cards it does not hold in increasing order; its tables are indexed by the subsets of that universe
(bit ``b`` the ``b``-th card). A *pair* is a window and a first card ``a`` dealt on it; its child is
the representative of ``(w2, w3, a)``, and the pair's maps carry a set between the two windows'
coordinates (:func:`exact.one_handed.primitives.map_mask`). Each window's stabiliser (the
relabellings fixing its cards, at most :data:`MAX_GROUP` of them) lets the kernel compute one set
per orbit and copy the others.
"""
from __future__ import annotations

import itertools
import math
from typing import NamedTuple

import numpy as np

from exact.one_handed.primitives import CHUNK, chunk_table, window_graph

#: largest stabiliser subgroup used to canonicalise a window's card sets
MAX_GROUP = 720


class PhasePlan:
    """Window representatives, their universes, slots and the child maps, built in Python."""

    def __init__(self, suits: int, ranks: int):
        self.suits, self.ranks = suits, ranks
        n = self.n = suits * ranks
        self.mates_max = max(ranks - 1, 0)
        self.n_end = n // 2 + 1
        m = self.mates_max
        self.S1, self.S2 = self.n_end, self.n_end + m
        self.R1 = self.n_end + 2 * m
        self.width = self.R1 + 3
        reps, pairs = window_graph(suits, ranks)  # pairs: (window index, a, child index, sigma)
        self.reps = reps
        self.universe = [[c for c in range(n) if c not in w] for w in reps]
        self.pos = []
        for u in self.universe:
            p = [-1] * n
            for b, c in enumerate(u):
                p[c] = b
            self.pos.append(p)
        suit = lambda c: c // ranks  # noqa: E731
        self.mates = []  # (mates of w1, of w2, of w3) within the universe
        for w, u in zip(reps, self.universe):
            self.mates.append(tuple([c for c in u if w[k] >= 0 and suit(c) == suit(w[k])] for k in range(3)))
        self.pairs = pairs
        self.groups = [self._stabiliser(w) for w in reps]

    def _stabiliser(self, w):
        """Relabellings fixing the window's cards: permutations of the suits and ranks the window does
        not use (of some of them where all would give more than :data:`MAX_GROUP` elements)."""
        suits, ranks = self.suits, self.ranks
        used_s = sorted({c // ranks for c in w if c >= 0})
        used_r = sorted({c % ranks for c in w if c >= 0})
        free_s = [x for x in range(suits) if x not in used_s]
        free_r = [x for x in range(ranks) if x not in used_r]
        # permutations of a subset of the free suits times those of a subset of the free ranks form a
        # subgroup; drop free labels from the larger side until it has at most MAX_GROUP elements
        while math.factorial(len(free_s)) * math.factorial(len(free_r)) > MAX_GROUP:
            if len(free_r) >= len(free_s):
                free_r = free_r[:-1]
            else:
                free_s = free_s[:-1]
        chosen = (free_s, free_r)
        elements = []
        for ps in itertools.permutations(chosen[0]):
            smap = dict(zip(chosen[0], ps))
            for pr in itertools.permutations(chosen[1]):
                rmap = dict(zip(chosen[1], pr))
                elements.append([smap.get(c // ranks, c // ranks) * ranks + rmap.get(c % ranks, c % ranks)
                                 for c in range(self.n)])
        return elements

    def table_bytes(self) -> int:
        """Bytes of the tables the kernel allocates (A, kept B vectors, canonical forms, the top)."""
        rows = [1 << len(u) for u in self.universe[1:]]
        kept = [len(mm[2]) for mm in self.mates[1:]]
        a = sum(rows) * self.width * 8
        b = sum(r // 2 * k for r, k in zip(rows, kept)) * self.width * 8
        canon = sum(rows) * (8 + 4 + 1)
        top = (1 << self.n) * (self.n_end + 1) * 8
        return a + b + canon + top


class PhaseArrays(NamedTuple):
    """The flat arrays the phase kernel reads (:func:`build_arrays`), all ``int64``. ``W`` windows
    (window 0 the all-sentinel top, handled apart), ``P`` pairs (a window and a card dealt on it),
    ``M = max(ranks - 1, 1)`` slots of suit mates, ``K`` chunks of :data:`CHUNK` bits of a set, ``G``
    stabiliser elements of all windows together (at least 1)."""

    #: ``(W,)`` cards in each window's universe: its sets are the masks below ``1 << usize[i]``
    usize: np.ndarray
    #: ``(W + 1,)`` where window ``i``'s ``A`` vectors start in the flat ``A`` (``width`` a set)
    a_off: np.ndarray
    #: ``(W + 1,)`` where its kept ``B(a)`` vectors start (``usize[i] - 1`` bits a set, per kept slot)
    b_off: np.ndarray
    #: ``(W + 1,)`` where its one-entry-a-set arrays start (canonical forms, hand-back marks)
    r_off: np.ndarray
    #: ``(P,)`` each pair's window, its card's bit in that universe, its child window
    p_win: np.ndarray
    p_apos: np.ndarray
    p_child: np.ndarray
    #: ``(P,)`` the card against ``w1``: 0 none, 1 suit (``S1``, slot ``p_s1``), 2 rank (``R1``)
    p_match: np.ndarray
    p_s1: np.ndarray
    #: ``(P,)`` the card's kept ``B`` slot, ``-1`` where it is not of ``w3``'s suit
    p_b: np.ndarray
    #: ``(P, K, 256)`` a set of the window's universe -> the child's (the card dropped), and back
    p_chunks: np.ndarray
    p_inv: np.ndarray
    #: ``(P, M)`` the child's ``S1`` slot -> our ``S2`` slot; the child's ``S2`` slot -> our ``B`` slot
    p_term: np.ndarray
    p_ret: np.ndarray
    #: ``(W + 1,)`` where each window's stabiliser elements start in the ``g_*`` arrays
    g_off: np.ndarray
    #: ``(G, K, 256)`` a set -> its image under the element; ``(G, M)`` slot maps of ``S1``, ``S2``, ``B``
    g_chunks: np.ndarray
    g_s1: np.ndarray
    g_s2: np.ndarray
    g_b: np.ndarray
    #: ``(W, M)`` the universe bit of the card of each kept ``B`` slot (``-1``: none)
    b_bit: np.ndarray
    #: ``(W,)`` each window's suit mates of ``w1``, ``w2``, ``w3`` in its universe (its ``S1``, ``S2``
    #: and kept ``B`` slots)
    n_mates1: np.ndarray
    n_mates2: np.ndarray
    n_mates3: np.ndarray


def build_arrays(plan: PhasePlan) -> PhaseArrays:
    """The flat arrays the kernel reads (window 0, the all-sentinel top, is handled apart)."""
    n, m = plan.n, plan.mates_max
    nw = len(plan.reps)
    usize = np.array([len(u) for u in plan.universe], dtype=np.int64)
    a_off = np.zeros(nw + 1, dtype=np.int64)
    b_off = np.zeros(nw + 1, dtype=np.int64)
    for i in range(nw):
        rows = 1 << int(usize[i])
        a_off[i + 1] = a_off[i] + (rows * plan.width if i > 0 else 0)
        # a kept B(a) is indexed by the sets without a's own card: rows / 2 per kept card
        b_off[i + 1] = b_off[i] + (len(plan.mates[i][2]) * (rows // 2) * plan.width if i > 0 else 0)
    nchunks = (n + CHUNK - 1) // CHUNK
    npairs = len(plan.pairs)
    p_win = np.zeros(npairs, dtype=np.int64)
    p_apos = np.zeros(npairs, dtype=np.int64)
    p_child = np.zeros(npairs, dtype=np.int64)
    p_match = np.zeros(npairs, dtype=np.int64)  # 0 none, 1 suit (two), 2 rank (four)
    p_s1 = np.full(npairs, -1, dtype=np.int64)
    p_b = np.full(npairs, -1, dtype=np.int64)
    p_chunks = np.zeros((npairs, nchunks, 1 << CHUNK), dtype=np.int64)
    p_inv = np.zeros((npairs, nchunks, 1 << CHUNK), dtype=np.int64)  # child's bits -> ours
    p_term = np.full((npairs, max(m, 1)), -1, dtype=np.int64)  # child's S1 slot -> our S2 slot
    p_ret = np.full((npairs, max(m, 1)), -1, dtype=np.int64)  # child's S2 slot -> our B slot
    ranks = plan.ranks
    for p, (i, a, j, sigma) in enumerate(plan.pairs):
        w = plan.reps[i]
        u = plan.universe[i]
        inv = [0] * n
        for c, img in enumerate(sigma):
            inv[img] = c
        p_win[p], p_apos[p], p_child[p] = i, plan.pos[i][a], j
        if w[0] >= 0:
            if a // ranks == w[0] // ranks:
                p_match[p] = 1
                p_s1[p] = plan.mates[i][0].index(a)
            elif a % ranks == w[0] % ranks:
                p_match[p] = 2
        if a in plan.mates[i][2]:
            p_b[p] = plan.mates[i][2].index(a)
        table = chunk_table(u, lambda c, a=a, j=j, sigma=sigma: None if c == a else plan.pos[j][sigma[c]])
        p_chunks[p, :table.shape[0]] = table
        back_of = lambda c, i=i, inv=inv: plan.pos[i][inv[c]] if plan.pos[i][inv[c]] >= 0 else None  # noqa: E731
        table = chunk_table(plan.universe[j], back_of)
        p_inv[p, :table.shape[0]] = table
        for k, y in enumerate(plan.mates[j][0]):
            if inv[y] in plan.mates[i][1]:
                p_term[p, k] = plan.mates[i][1].index(inv[y])
        for k, y in enumerate(plan.mates[j][1]):
            if inv[y] in plan.mates[i][2]:
                p_ret[p, k] = plan.mates[i][2].index(inv[y])
    g_off = np.zeros(nw + 1, dtype=np.int64)
    for i in range(nw):
        g_off[i + 1] = g_off[i] + (len(plan.groups[i]) if i > 0 else 0)
    ng = int(g_off[-1])
    g_chunks = np.zeros((max(ng, 1), nchunks, 1 << CHUNK), dtype=np.int64)
    g_s1 = np.zeros((max(ng, 1), max(m, 1)), dtype=np.int64)  # slot t -> slot of tau(card t)
    g_s2 = np.zeros((max(ng, 1), max(m, 1)), dtype=np.int64)
    g_b = np.zeros((max(ng, 1), max(m, 1)), dtype=np.int64)
    b_bit = np.full((nw, max(m, 1)), -1, dtype=np.int64)  # bit of the card of each B slot
    for i in range(1, nw):
        u = plan.universe[i]
        for t, c in enumerate(plan.mates[i][2]):
            b_bit[i, t] = plan.pos[i][c]
        for g, tau in enumerate(plan.groups[i]):
            gi = int(g_off[i]) + g
            table = chunk_table(u, lambda c, i=i, tau=tau: plan.pos[i][tau[c]])
            g_chunks[gi, :table.shape[0]] = table
            for arr_, k in ((g_s1, 0), (g_s2, 1), (g_b, 2)):
                mates = plan.mates[i][k]
                for t, c in enumerate(mates):
                    arr_[gi, t] = mates.index(tau[c])
    r_off = np.zeros(nw + 1, dtype=np.int64)
    for i in range(nw):
        r_off[i + 1] = r_off[i] + (1 << int(usize[i]) if i > 0 else 0)
    n_mates = [np.array([len(mm[k]) for mm in plan.mates], dtype=np.int64) for k in range(3)]
    return PhaseArrays(usize=usize, a_off=a_off, b_off=b_off, r_off=r_off, p_win=p_win, p_apos=p_apos,
                       p_child=p_child, p_match=p_match, p_s1=p_s1, p_b=p_b, p_chunks=p_chunks, p_inv=p_inv,
                       p_term=p_term, p_ret=p_ret, g_off=g_off, g_chunks=g_chunks, g_s1=g_s1, g_s2=g_s2, g_b=g_b,
                       b_bit=b_bit, n_mates1=n_mates[0], n_mates2=n_mates[1], n_mates3=n_mates[2])
