"""Sets of cards up to the relabellings that fix a window: canonical forms, orbit sizes.

A window's stabiliser is every permutation ``pi`` of the suits it does not use times every permutation
``rho`` of the ranks it does not use (no cap on its size). A set ``X`` of cards is a bit mask (bit
``s * R + r`` for the card of suit ``s`` and rank ``r``); ``tau = (pi, rho)`` maps it to
``{(pi s, rho r) : (s, r) in X}``.

Canonical form: the permutations of the *smaller* free side (the one with fewer free labels) are all
tried; for each, the lines of the other side (the columns of the free ranks, or the rows of the free
suits) are sorted by their bits and put in that order on the free labels of that side. The result
does not depend on the order of the other side's labels, so the least result over the tried side is
the same for every set of the orbit, and it is a member of the orbit (with the ``tau`` that gives it).
The cost is ``k! * S * R`` for ``k`` free labels on the smaller side, whatever the larger side.

Orbit sizes (needed where the sum runs over every set, at the top) are ``|G| / |Stab(X)|``; the
stabiliser is counted the same way: the tried permutations that leave the set's lines unchanged as a
multiset, times the product of the factorials of the line multiplicities.
"""
from __future__ import annotations

import functools
import itertools
import math
from typing import NamedTuple

import numpy as np

from sim._jit import jit


class SymmetryArrays(NamedTuple):
    """Each window's stabiliser as :func:`canonical_point` reads it (:meth:`WindowGroups.arrays`),
    ``int64``, ``W`` windows."""

    #: ``(W, max(S, 1))``, ``(W, max(R, 1))`` the suits and ranks the window does not use (-1 after them)
    free_s: np.ndarray
    free_r: np.ndarray
    #: ``(W,)`` how many of each, and whether the suits are the side whose permutations are tried
    n_free_s: np.ndarray
    n_free_r: np.ndarray
    small_suits: np.ndarray
    #: the tried side's permutations, one row each; window ``i``'s rows ``perm_off[i]:perm_off[i + 1]``
    perms: np.ndarray
    perm_off: np.ndarray


class WindowGroups:
    """The stabiliser of each window, packed into arrays for the kernels.

    ``windows``: tuples of three cards (``-1`` a sentinel). Row ``i`` of ``free_s``/``free_r`` lists
    window ``i``'s free suits/ranks (``-1`` padded); ``small_suits[i]`` says which side is tried
    exhaustively; its permutations are rows ``perm_off[i]:perm_off[i+1]`` of ``perms`` (images of the
    free labels of that side, in the order of ``free_s``/``free_r``)."""

    def __init__(self, suits: int, ranks: int, windows):
        self.suits, self.ranks = suits, ranks
        nw = len(windows)
        self.free_s = np.full((nw, max(suits, 1)), -1, dtype=np.int64)
        self.free_r = np.full((nw, max(ranks, 1)), -1, dtype=np.int64)
        self.n_free_s = np.zeros(nw, dtype=np.int64)
        self.n_free_r = np.zeros(nw, dtype=np.int64)
        self.small_suits = np.zeros(nw, dtype=np.int64)
        self.group_size = []
        rows = []
        offs = [0]
        width = max(suits, ranks, 1)
        for i, w in enumerate(windows):
            used_s = {c // ranks for c in w if c >= 0}
            used_r = {c % ranks for c in w if c >= 0}
            fs = [x for x in range(suits) if x not in used_s]
            fr = [x for x in range(ranks) if x not in used_r]
            self.free_s[i, :len(fs)] = fs
            self.free_r[i, :len(fr)] = fr
            self.n_free_s[i], self.n_free_r[i] = len(fs), len(fr)
            small = fs if len(fs) <= len(fr) else fr
            self.small_suits[i] = 1 if len(fs) <= len(fr) else 0
            for p in itertools.permutations(small):
                row = [-1] * width
                row[:len(p)] = p
                rows.append(row)
            offs.append(len(rows))
            self.group_size.append(math.factorial(len(fs)) * math.factorial(len(fr)))
        self.perms = np.array(rows, dtype=np.int64).reshape(len(rows), width)
        self.perm_off = np.array(offs, dtype=np.int64)

    def arrays(self) -> SymmetryArrays:
        """The stabilisers' arrays for the kernels."""
        return SymmetryArrays(self.free_s, self.free_r, self.n_free_s, self.n_free_r, self.small_suits, self.perms,
                              self.perm_off)

    def canonical(self, i: int, mask: int):
        """(canonical mask, pi, rho) of ``mask`` under window ``i``'s stabiliser."""
        pi = np.zeros(self.suits, dtype=np.int64)
        rho = np.zeros(self.ranks, dtype=np.int64)
        work = np.zeros(4 * max(self.suits, self.ranks), dtype=np.int64)
        c = canonical_point(np.int64(mask), i, self.suits, self.ranks, self.free_s, self.free_r, self.n_free_s, self.n_free_r,
                   self.small_suits, self.perms, self.perm_off, pi, rho, work)
        return int(c), pi.tolist(), rho.tolist()

    def orbit_size(self, i: int, mask: int) -> int:
        """The number of sets in ``mask``'s orbit (a Python int: ``|G|`` passes 2**63 for long decks)."""
        work = np.zeros(4 * max(self.suits, self.ranks), dtype=np.int64)
        hits = _stabiliser_size(np.int64(mask), i, self.suits, self.ranks, self.free_s, self.free_r, self.n_free_s,
                                self.n_free_r, self.small_suits, self.perms, self.perm_off, work)
        suits, ranks = self.suits, self.ranks
        if self.small_suits[i]:
            lines = [sum(1 << s for s in range(suits) if mask >> (s * ranks + r) & 1) for r in self.free_r[i, :self.n_free_r[i]]]
        else:
            lines = [(mask >> (s * ranks)) & ((1 << ranks) - 1) for s in self.free_s[i, :self.n_free_s[i]]]
        stab = int(hits)
        for value in set(lines):
            stab *= math.factorial(lines.count(value))
        return self.group_size[i] // stab


def apply(mask: int, pi, rho, suits: int, ranks: int) -> int:
    """``tau X`` for ``tau = (pi, rho)`` (plain Python, for tests)."""
    out = 0
    for s in range(suits):
        for r in range(ranks):
            if mask >> (s * ranks + r) & 1:
                out |= 1 << (pi[s] * ranks + rho[r])
    return out


@jit
def _lines(mask, S, R, small_suits, pi_or_rho, lines):
    """The other side's lines of ``tau X`` for the tried permutation: columns (one per rank, bit =
    image suit) when suits are tried, else rows (one per suit, bit = image rank)."""
    if small_suits:
        for r in range(R):
            lines[r] = 0
        for s in range(S):
            row = (mask >> (s * R)) & ((np.int64(1) << R) - 1)
            t = pi_or_rho[s]
            r = 0
            while row:
                if row & 1:
                    lines[r] |= np.int64(1) << t
                row >>= 1
                r += 1
    else:
        for s in range(S):
            row = (mask >> (s * R)) & ((np.int64(1) << R) - 1)
            out = np.int64(0)
            r = 0
            while row:
                if row & 1:
                    out |= np.int64(1) << pi_or_rho[r]
                row >>= 1
                r += 1
            lines[s] = out


@jit
def _window_sides(i, S, R, free_s, free_r, n_free_s, n_free_r, small_suits):
    """Window ``i``'s two sides: ``(ss, nl, nsl, nsmall, nbig, small, big)``, where the small side
    (suits when ``ss``) has its free labels permuted by the tried permutations, ``nl`` lines of the
    other side are compared and ``nsl`` labels are tried."""
    ss = small_suits[i]
    nl = S if ss == 0 else R  # number of lines of the other side
    nsl = S if ss else R  # labels of the tried side
    nsmall = n_free_s[i] if ss else n_free_r[i]
    nbig = n_free_r[i] if ss else n_free_s[i]
    small = free_s if ss else free_r
    big = free_r if ss else free_s
    return ss, nl, nsl, nsmall, nbig, small, big


@jit
def _tried_lines(mask, i, q, S, R, ss, nsl, nsmall, small, perms, tried, lines):
    """The lines of ``mask`` under tried permutation ``q`` of window ``i``'s small side (``tried``
    receives that relabelling, identity on the labels the window uses)."""
    for x in range(nsl):
        tried[x] = x
    for k in range(nsmall):
        tried[small[i, k]] = perms[q, k]
    _lines(mask, S, R, ss, tried, lines)


@jit
def canonical_point(mask, i, S, R, free_s, free_r, n_free_s, n_free_r, small_suits, perms, perm_off, pi, rho, work):
    """Canonical form of ``mask`` under window ``i``'s stabiliser; ``pi``, ``rho`` receive the
    relabelling that gives it (identity on the labels the window uses)."""
    ss, nl, nsl, nsmall, nbig, small, big = _window_sides(i, S, R, free_s, free_r, n_free_s,
                                                          n_free_r, small_suits)
    lines = work[0:nl]
    order = work[nl:2 * nl]
    tried = work[2 * nl:2 * nl + max(S, R)]
    best_tried = work[2 * nl + max(S, R):2 * nl + 2 * max(S, R)]
    best = np.int64(-1)
    best_q = perm_off[i]
    for q in range(perm_off[i], perm_off[i + 1]):
        _tried_lines(mask, i, q, S, R, ss, nsl, nsmall, small, perms, tried, lines)
        # sort the free lines by value (insertion sort, stable on label order)
        for k in range(nbig):
            order[k] = big[i, k]
        for k in range(1, nbig):
            x = order[k]
            v = lines[x]
            m = k - 1
            while m >= 0 and lines[order[m]] > v:
                order[m + 1] = order[m]
                m -= 1
            order[m + 1] = x
        out = np.int64(0)
        if ss:
            # columns: line r goes to rank big[k] where order[k] = r; used ranks stay
            for r in range(R):
                rho_r = r
                for k in range(nbig):
                    if order[k] == r:
                        rho_r = big[i, k]
                col = lines[r]
                s = 0
                while col:
                    if col & 1:
                        out |= np.int64(1) << (s * R + rho_r)
                    col >>= 1
                    s += 1
        else:
            for s in range(S):
                pi_s = s
                for k in range(nbig):
                    if order[k] == s:
                        pi_s = big[i, k]
                out |= lines[s] << (pi_s * R)
        if best < 0 or out < best:
            best = out
            best_q = q
            for k in range(nbig):
                best_tried[k] = order[k]
    # rebuild the relabelling of the best
    for s in range(S):
        pi[s] = s
    for r in range(R):
        rho[r] = r
    if ss:
        for k in range(nsmall):
            pi[free_s[i, k]] = perms[best_q, k]
        for k in range(nbig):
            rho[best_tried[k]] = free_r[i, k]
    else:
        for k in range(nsmall):
            rho[free_r[i, k]] = perms[best_q, k]
        for k in range(nbig):
            pi[best_tried[k]] = free_s[i, k]
    return best


@jit
def _stabiliser_size(mask, i, S, R, free_s, free_r, n_free_s, n_free_r, small_suits, perms, perm_off, work):
    """How many of the tried permutations leave ``mask``'s fixed lines as they are and its free lines
    the same multiset (each is completed by ``prod m!`` relabellings of the other side)."""
    ss, nl, nsl, nsmall, nbig, small, big = _window_sides(i, S, R, free_s, free_r, n_free_s,
                                                          n_free_r, small_suits)
    base = work[0:nl]
    lines = work[nl:2 * nl]
    tried = work[2 * nl:2 * nl + max(S, R)]
    for x in range(nsl):
        tried[x] = x
    _lines(mask, S, R, ss, tried, base)
    hits = 0
    for q in range(perm_off[i], perm_off[i + 1]):
        _tried_lines(mask, i, q, S, R, ss, nsl, nsmall, small, perms, tried, lines)
        ok = True
        for x in range(nl):  # the lines the window uses must stay as they are
            free = False
            for k in range(nbig):
                if big[i, k] == x:
                    free = True
            if not free and lines[x] != base[x]:
                ok = False
        if not ok:
            continue
        # free lines equal as multisets: every value as often
        for k in range(nbig):
            v = lines[big[i, k]]
            c1 = 0
            c2 = 0
            for k2 in range(nbig):
                if lines[big[i, k2]] == v:
                    c1 += 1
                if base[big[i, k2]] == v:
                    c2 += 1
            if c1 != c2:
                ok = False
                break
        if ok:
            hits += 1
    return hits


def partitions(n: int, largest: int | None = None):
    """The partitions of ``n`` (parts at most ``largest``), largest parts first: the cycle types of
    the permutations of ``n`` labels."""
    largest = n if largest is None else largest
    if n == 0:
        yield ()
        return
    for k in range(min(n, largest), 0, -1):
        for rest in partitions(n - k, k):
            yield (k,) + rest


def class_size(parts) -> int:
    """How many permutations of ``sum(parts)`` labels have this cycle type."""
    size = math.factorial(sum(parts))
    for k in set(parts):
        m = parts.count(k)
        size //= k ** m * math.factorial(m)
    return size


def orbit_counts(suits: int, ranks: int, window) -> list[int]:
    """Orbits of the sets of each size (index = size) of the cards outside ``window`` under its
    stabiliser, counted exactly by Burnside's lemma: the mean over the group of the sets each element
    fixes. An element with cycle types ``lam`` (free suits) and ``mu`` (free ranks) moves the cells
    (free suit, free rank) in ``gcd(l, m)`` cycles of length ``lcm(l, m)``, a free suit's cells of a
    used rank in cycles of length ``l``, a free rank's of a used suit in cycles of length ``m``, and
    fixes the rest; a set is fixed when it is a union of cycles.

    >>> orbit_counts(2, 2, (-1, -1, -1))  # subsets of a 2x2 grid up to swapping rows and columns
    [1, 1, 3, 1, 1]
    """
    used_s = {c // ranks for c in window if c >= 0}
    used_r = {c % ranks for c in window if c >= 0}
    cards = sum(1 for c in window if c >= 0)
    return list(_orbit_counts(suits - len(used_s), ranks - len(used_r), len(used_s), len(used_r),
                              len(used_s) * len(used_r) - cards, suits * ranks - cards))


@functools.lru_cache(maxsize=256)
def _orbit_counts(a: int, b: int, n_used_s: int, n_used_r: int, fixed_cells: int, n_out: int) -> tuple:
    """:func:`orbit_counts` by the window's shape: ``a`` free suits, ``b`` free ranks, the used ones,
    the cells of used suit and rank outside the window, and the cards outside it."""
    used_s, used_r = range(n_used_s), range(n_used_r)
    total = [0] * (n_out + 1)
    group = math.factorial(a) * math.factorial(b)
    for lam in partitions(a):
        cl = class_size(lam)
        for mu in partitions(b):
            weight = cl * class_size(mu)
            cycles = [1] * fixed_cells
            for l_ in lam:
                for m_ in mu:
                    g = math.gcd(l_, m_)
                    cycles += [l_ * m_ // g] * g
                cycles += [l_] * len(used_r)
            for m_ in mu:
                cycles += [m_] * len(used_s)
            poly = [1] + [0] * n_out
            for length in cycles:
                for k in range(n_out, length - 1, -1):
                    poly[k] += poly[k - length]
            for k in range(n_out + 1):
                total[k] += weight * poly[k]
    return tuple(t // group for t in total)
