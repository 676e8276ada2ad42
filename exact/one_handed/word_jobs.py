"""The jobs of the word method: alphabets up to renaming suits and ranks, their weights and stabilisers.

An alphabet ``Y`` (a set of cards of the ``S x R`` deck) is a 0/1 matrix, suits by ranks. Renaming
suits and ranks, ``G = Sym(S) x Sym(R)``, permutes its rows and columns. Call the smaller of the two
sides (suits if ``S <= R``) the *short* side, of ``m`` lines, and the other the *long* side, of
``L`` lines. A line of the long side is a subset of the short side: one of ``2^m`` *types*. Up to
permutations of the long side an alphabet is the multiset of its long lines' types: a count vector
``c`` over the ``2^m`` types with ``sum c = L``. A permutation ``pi`` of the short side renames the
types (``t -> pi(t)``, bit ``i`` of ``t`` moved to ``pi(i)``) and so permutes ``c``. So the orbits of
alphabets are the count vectors up to ``Sym(m)``; each is listed once, as the count vector that is
largest (lexicographically) among its ``m!`` images.

**Stabiliser.** ``(pi, rho)`` (``pi`` on the short side, ``rho`` on the long side) fixes ``Y`` exactly
when ``pi`` maps ``c`` onto itself and ``rho`` maps every long line of type ``t`` to a line of type
``pi(t)``: so ``|Stab(Y)| = #{pi : pi c = c} * prod_t c_t!``, and the orbit has ``S! R! / |Stab(Y)|``
alphabets. The job list is checked against Burnside's lemma (:func:`alphabet_orbit_count`) and the
orbit sizes against ``2^(S R)``.

The representative alphabet of a count vector gives the long lines types in increasing type order:
lines ``0 .. c_0 - 1`` type 0, and so on.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

from sim._jit import jit

from exact.invariants import require
from exact.one_handed.orbits import class_size, partitions


def alphabet_orbit_count(suits: int, ranks: int) -> int:
    """The number of orbits of alphabets (subsets of the deck) under renaming suits and ranks, by
    Burnside's lemma: a pair of permutations with cycle lengths ``l_i`` and ``m_j`` fixes
    ``2^(sum gcd(l_i, m_j))`` matrices (one free bit per cycle of the cells).

    >>> alphabet_orbit_count(4, 5), alphabet_orbit_count(4, 6), alphabet_orbit_count(4, 7)
    (1053, 3250, 9343)
    """
    total = 0
    for ps in partitions(suits):
        for pr in partitions(ranks):
            cycles = sum(math.gcd(i, j) for i in ps for j in pr)
            total += class_size(ps) * class_size(pr) * 2 ** cycles
    group = math.factorial(suits) * math.factorial(ranks)
    require(total % group == 0, "Burnside's sum is a multiple of the group order")
    return total // group


def type_permutations(m: int) -> np.ndarray:
    """``out[k, t]``: type ``t`` (a subset of the ``m`` short lines, as bits) under the ``k``-th
    permutation of the short side (``itertools.permutations`` order; row 0 is the identity)."""
    perms = list(itertools.permutations(range(m)))
    out = np.zeros((len(perms), 1 << m), dtype=np.int64)
    for k, p in enumerate(perms):
        for t in range(1 << m):
            out[k, t] = sum(1 << p[i] for i in range(m) if t >> i & 1)
    return out


@jit
def _count_vectors(m, lines, tperm, fill, out, stab):
    """Walk every count vector of ``lines`` lines over ``2^m`` types (decreasing lexicographic order);
    keep those largest among their images under ``tperm``; with ``fill`` write them to ``out`` and
    the number of permutations fixing them to ``stab``. Returns how many were kept."""
    nt = 1 << m
    c = np.zeros(nt, dtype=np.int64)
    img = np.zeros(nt, dtype=np.int64)
    c[0] = lines
    kept = 0
    while True:
        canonical = True
        fixing = 0
        for k in range(tperm.shape[0]):
            for t in range(nt):
                img[tperm[k, t]] = c[t]
            cmp = 0
            for t in range(nt):
                if img[t] != c[t]:
                    cmp = 1 if img[t] > c[t] else -1
                    break
            if cmp > 0:
                canonical = False
                break
            if cmp == 0:
                fixing += 1
        if canonical:
            if fill:
                for t in range(nt):
                    out[kept, t] = c[t]
                stab[kept] = fixing
            kept += 1
        # the next weak composition: move one unit right of the rightmost non-empty part before the last
        i = nt - 2
        while i >= 0 and c[i] == 0:
            i -= 1
        if i < 0:
            break
        v = c[nt - 1]
        c[nt - 1] = 0
        c[i] -= 1
        c[i + 1] = v + 1
    return kept


@dataclass(frozen=True)
class AlphabetJobs:
    """Every job of a deck: one count vector per orbit of alphabets.

    Attributes
    ----------
    suits, ranks : the deck (of the plain game: ``reverse=on`` is planned on the transposed deck)
    short_is_suits : whether the short side (of ``m`` lines) is the suits
    counts : ``(jobs, 2^m)`` int array, the long lines of each type
    fixing : ``(jobs,)`` the short-side permutations fixing each count vector
    """

    suits: int
    ranks: int
    short_is_suits: bool
    counts: np.ndarray
    fixing: np.ndarray

    @property
    def m(self) -> int:
        return self.suits if self.short_is_suits else self.ranks

    def __len__(self) -> int:
        return int(self.counts.shape[0])

    def stabiliser_order(self, job: int) -> int:
        """``|Stab(Y)|`` of job ``job``'s alphabet (a Python int)."""
        order = int(self.fixing[job])
        for c in self.counts[job].tolist():
            order *= math.factorial(int(c))
        return order

    def orbit_size(self, job: int) -> int:
        """The number of alphabets in job ``job``'s orbit (a Python int)."""
        return math.factorial(self.suits) * math.factorial(self.ranks) // self.stabiliser_order(job)

    def size(self, job: int) -> int:
        """``|Y|``: the letters of job ``job``'s alphabet."""
        return sum(int(c) * bin(t).count("1") for t, c in enumerate(self.counts[job].tolist()))

    def sign(self, job: int) -> int:
        """``(-1)^(n - |Y|)``."""
        return -1 if (self.suits * self.ranks - self.size(job)) & 1 else 1

    def long_types(self, job: int) -> list[int]:
        """The type of each long line of the representative alphabet (increasing types)."""
        out = []
        for t, c in enumerate(self.counts[job].tolist()):
            out += [t] * int(c)
        return out

    def alphabet(self, job: int) -> list[int]:
        """The representative alphabet's cards (``suit * ranks + rank``), increasing."""
        cards = []
        for line, t in enumerate(self.long_types(job)):
            for i in range(self.m):
                if t >> i & 1:
                    s, r = (i, line) if self.short_is_suits else (line, i)
                    cards.append(s * self.ranks + r)
        return sorted(cards)

    def label(self, job: int) -> str:
        """A stable name of the job: its count vector, e.g. ``"0:2,3:1"`` (type: lines, non-empty only)."""
        return ",".join(f"{t}:{int(c)}" for t, c in enumerate(self.counts[job].tolist()) if c)


def alphabet_jobs(suits: int, ranks: int) -> AlphabetJobs:
    """Every orbit of alphabets of ``suits x ranks``, checked against Burnside's lemma and ``2^(S R)``.

    >>> jobs = alphabet_jobs(2, 2)
    >>> len(jobs), [jobs.alphabet(j) for j in range(len(jobs))]
    (7, [[], [1], [1, 3], [0, 1], [0, 3], [0, 1, 3], [0, 1, 2, 3]])
    """
    require(suits >= 1 and ranks >= 1, "a deck has at least one suit and one rank")
    short_is_suits = suits <= ranks
    m, lines = (suits, ranks) if short_is_suits else (ranks, suits)
    tperm = type_permutations(m)
    empty = np.zeros((1, 1 << m), dtype=np.int64)
    total = _count_vectors(m, lines, tperm, False, empty, np.zeros(1, dtype=np.int64))
    require(total == alphabet_orbit_count(suits, ranks), "the job list must match Burnside's count of orbits")
    counts = np.zeros((total, 1 << m), dtype=np.int64)
    fixing = np.zeros(total, dtype=np.int64)
    _count_vectors(m, lines, tperm, True, counts, fixing)
    jobs = AlphabetJobs(suits, ranks, short_is_suits, counts.astype(np.int16), fixing)
    require(sum(jobs.orbit_size(j) for j in range(total)) == 2 ** (suits * ranks),
            "the orbits of alphabets must cover every subset of the deck once")
    return jobs
