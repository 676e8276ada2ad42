"""The phase recursion solved in the *ranked zeta* domain (fast subset convolution): the fourth exact method.

Read :mod:`exact.one_handed.phase` first: it proves that the play above the top three cards ``W`` of
the row depends only on ``W`` and on the *set* of cards dealt meanwhile, and writes the recursion

* ``A_W(C) = [C = {}] end(0) + sum_{a in C} B_W(a, C - a)``;
* ``B_W(a, C')`` = ``S1(a)`` or ``R1`` at ``C' = {}`` if ``a`` matches ``w1``; otherwise, with the child
  window ``W' = (w2, w3, a)``,
  ``B_W(a, C') = map(A_W'(C')) + sum_{C1 + C2 = C'} A_W'[S2'(a')](C1) B_W(a', C2) + A_W'[R3'](C1) A_W(C2)``,
  where ``map`` reads the child's other endings for ``W`` (``end(j) -> end(j + 1)``, ``S1' -> S2``,
  ``R1' -> R2``, ``R2' -> R3``) and the sums run over the splits of ``C'`` into two disjoint parts.

The phase method evaluates the split sums directly: ``sum_C 2^|C|`` work per table, ``3^|U|`` in all
for a universe ``U``. Here they become products.

Ranked zeta transform
---------------------
For a function ``f`` on the subsets of ``U`` (vector valued: every ending is a coordinate) let
``f^(X) = sum_{D subset X} f(D) z^|D|``, a polynomial in ``z`` at every *point* ``X subset U``.
The subset convolution ``h(S) = sum_{D + E = S} f(D) g(E)`` (disjoint ``D, E``) is recovered from the
pointwise product ``p(X) = f^(X) g^(X)`` (Bjorklund, Husfeldt, Kaski, Koivisto, "Fourier meets Mobius:
fast subset convolution", STOC 2007):
``h(S) = sum_{X subset S} (-1)^{|S - X|} [z^|S|] p(X)``.
Indeed ``[z^k] p(X) = sum g_i(D) ... `` over pairs ``D, E subset X`` with ``|D| + |E| = k``, and the
alternating sum keeps the pairs with ``D u E = S``; with ``|D| + |E| = |S|`` they are disjoint.

A *representation* of ``f`` is any family of polynomials ``p(X) = sum_{D subset X} sum_k g_k(D) z^k``
whose *diagonal* is ``f``: ``g_|D|(D) = f(D)``, and whose other terms (the junk that products leave
behind, pairs that overlap) lie *above* it: ``g_k(D) = 0 for k < |D|``. Then Mobius inversion at
rank ``|S|`` returns ``f(S)``. Every operation of the recursion keeps a representation valid:

* **product**: ``p q`` has ``g''_k(F) = sum_{D u E = F, i + j = k} g_i(D) g'_j(E)``; since ``i >= |D|``
  and ``j >= |E|``, ``k >= |D| + |E| >= |F|``, with equality only for ``i = |D|``, ``j = |E|`` and
  ``D, E`` disjoint: the diagonal is the subset convolution and the junk stays above it;
* **linear maps** on the coordinates (``map``, sums over ``a``) act on ``g`` coefficient-wise;
* **restriction** to the subsets of ``V subset U`` (the child window's table read on sets without
  ``w1``, the parent's on sets without ``a``): ``p`` read at the points ``X subset V`` only, ``g``
  restricted;
* **extension by zero** of a function on the subsets of ``V`` (``B(a', .)`` has no set holding
  ``a'``): ``p_ext(X) = p(X n V)``, ``g`` extended by zero;
* **relabelling** by a permutation ``tau`` of the cards (suits and ranks): ``p(tau^-1 X)``, ``g`` relabelled;
* the first card: ``sum_{a in C} B(a, C - a)`` is the convolution of ``B(a, .)`` (extended by zero
  at ``a``) with the indicator of ``{a}``, whose representation ``z [a in X]`` is diagonal.

So the recursion can be run on representations, point by point:

* ``A^_W(X) = end(0) + z sum_{a in X} B^_W(a, X - a)``;
* ``B^_W(a, X) = map(A^_W'(X)) + sum_{a'} A^_W'[S2'(a')](X) B^_W(a', X - a') + A^_W'[R3'](X) A^_W(X)``.

**Truncation must be uniform.** The polynomials are cut at one degree ``T`` for every point of every
window (``T = n``, the top universe's size, which the top's Mobius inversion reads). Coefficient
``k`` of a product needs coefficients ``<= k`` of its factors, so a uniform cut loses nothing below
``T``. Cutting each point at its own size ``|X|`` (where the diagonal ends) would not be a
representation at all: the kept part of degree ``k`` as a function of ``X`` is ``p_k(X) [|X| >= k]``,
whose Mobius transform has terms ``g_k(D)`` with ``|D| > k``, *below* the diagonal, which the next
product carries into the diagonal.

**The order of evaluation.** ``A^(X)`` needs ``B^`` at the points ``X - a`` (one card fewer);
``B^(a, X)`` needs the child's ``A^`` at the same point, this window's ``A^(X)`` and ``B^`` at
``X - a'`` for the cards ``a'`` of ``w3``'s suit *in* ``X``: the coordinate ``S2'(a')`` of every
representation the recursion builds is supported on sets holding ``a'`` (it starts as
``z [a' in X]`` times a constant and products and the maps keep that), so it vanishes at points
without ``a'`` (the reference below checks it). Points are therefore processed by size, two sizes
held at a time, every window at once, and every degree of a point at once.

**Counts.** ``A_top(U)``, the whole deck under the three sentinels, is one alternating sum over the
top's points of coefficient ``n``. ``win=any`` counts the orders whose row ever empties: the top's
``R3'`` hand-backs are returns to an empty row, so ``n!`` minus the orders of a second top phase
with the hand-back removed (never returning) are the wins.

This module is the plain reference (memoised Python over frozensets, every point, Python ints);
:mod:`exact.one_handed.zeta_kernel` runs the same recursion in numba over symmetry orbits
(:mod:`exact.one_handed.orbits`), modulo word-sized primes joined by the Chinese remainder theorem
(:mod:`exact.one_handed.crt`, the passes run by :mod:`exact.one_handed.zeta_passes`);
:func:`zeta_distribution` is the method's entry.
"""
from __future__ import annotations

import math
import os
from functools import lru_cache

from sim.deck import Deck
from sim.errors import UsageError
from sim.variant import Variant

from exact.invariants import require
from exact.one_handed.limits import PHASE_FINAL_ONCE
from exact.one_handed.phase import SENTINEL, _match, _subsets
from exact.one_handed.zeta_passes import zeta_counts


def _mul(f: list, g: list, top: int) -> list:
    """The product of two coefficient lists, cut at degree ``top``."""
    out = [0] * (top + 1)
    for i, fi in enumerate(f):
        if fi:
            for j in range(top + 1 - i):
                out[i + j] += fi * g[j]
    return out


def _acc(target: dict, key, poly: list):
    cur = target.get(key)
    if cur is None:
        target[key] = list(poly)
    else:
        for d, c in enumerate(poly):
            cur[d] += c


class ZetaReference:
    """The recursion of the module docstring on representations, memoised on ``(window, point)``.

    ``top`` is the uniform truncation degree. ``checks`` counts the support checks made (the
    ``S2'(a')`` coordinate vanishing at points without ``a'``)."""

    def __init__(self, top: int, reverse: bool = False):
        self.top, self.reverse = top, reverse
        self.a_hat = lru_cache(maxsize=None)(self._a_hat)
        self.b_hat = lru_cache(maxsize=None)(self._b_hat)
        self.checks = 0
        self.recorded = []  # ((window, point, returns), A^) of every A^ built, for the tests

    def _a_hat(self, window: tuple, point: frozenset, returns: bool = True) -> dict:
        """``A^_W(X)``: {outcome: coefficients}. ``returns=False`` drops the ``R3'`` hand-back."""
        out = {("end", 0): [1] + [0] * self.top}
        self.recorded.append(((window, point, returns), out))
        for a in point:
            for outcome, poly in self.b_hat(window, a, point - {a}, returns).items():
                _acc(out, outcome, [0] + poly[:-1])  # times z
        return out

    def _b_hat(self, window: tuple, a, point: frozenset, returns: bool = True) -> dict:
        w1, w2, w3 = window
        m = _match(a, w1, self.reverse)
        one = [1] + [0] * self.top
        if m is not None:
            return {("S1", a): one} if m == "two" else {("R1",): one}
        out: dict = {}
        for outcome, poly in self.a_hat((w2, w3, a), point).items():
            kind = outcome[0]
            if not any(poly):
                continue
            if kind == "end":
                _acc(out, ("end", outcome[1] + 1), poly)
            elif kind == "S1":
                _acc(out, ("S2", outcome[1]), poly)
            elif kind == "R1":
                _acc(out, ("R2",), poly)
            elif kind == "R2":
                _acc(out, ("R3",), poly)
            elif kind == "S2":
                a2 = outcome[1]
                self.checks += 1
                require(a2 in point, "the S2' coordinate is supported on sets holding its card")
                for o2, p2 in self.b_hat(window, a2, point - {a2}, returns).items():
                    _acc(out, o2, _mul(poly, p2, self.top))
            elif kind == "R3" and returns:
                for o2, p2 in self.a_hat(window, point, returns).items():
                    _acc(out, o2, _mul(poly, p2, self.top))
        return out

    def mobius(self, window: tuple, universe: frozenset, returns: bool = True) -> dict:
        """``A_W(U)`` from the representation: the alternating sum of coefficient ``|U|``."""
        k = len(universe)
        out: dict = {}
        for x in _subsets(universe):
            sign = -1 if (k - len(x)) & 1 else 1
            for outcome, poly in self.a_hat(window, x, returns).items():
                out[outcome] = out.get(outcome, 0) + sign * poly[k]
        return {o: c for o, c in out.items() if c}


def zeta_distribution_reference(deck: Deck, variant: Variant):
    """Score counts and wins over all ``(S*R)!`` orders by the zeta-domain recursion in plain Python.

    ``first4=reversed`` is counted as ``first4=kept`` (equal distributions, :mod:`exact.one_handed.parity`).
    Returns ``(score_counts, wins)`` as Python ints."""
    n = deck.size
    ref = ZetaReference(n, reverse=variant.rules.reverse)
    cards = frozenset((s, r) for s in range(deck.suits) for r in range(deck.ranks))
    top = (SENTINEL, SENTINEL, SENTINEL)
    ends = ref.mobius(top, cards)
    require(all(o[0] == "end" for o in ends), "the sentinel phase can only end with the cards")
    score_counts = [0] * (n + 1)
    for (_, j), count in ends.items():
        score_counts[j] += count
    require(sum(score_counts) == math.factorial(n), "zeta counts must add up to (S*R)!")
    if variant.rules.win_any:
        never = sum(ref.mobius(top, cards, returns=False).values())
        wins = math.factorial(n) - never
    else:
        wins = score_counts[0]
    return score_counts, wins


def zeta_checkpoint(checkpoint_dir, suits: int, ranks: int, mode: str = "all"):
    """The pass checkpoint file of the plain game on ``suits x ranks`` in ``checkpoint_dir`` (made if
    missing; ``None`` without a folder): ``zeta-passes-SxR.json``, or ``zeta-passes-SxR-core.json``."""
    if checkpoint_dir is None:
        return None
    os.makedirs(checkpoint_dir, exist_ok=True)
    return os.path.join(checkpoint_dir, f"zeta-passes-{suits}x{ranks}" + ("" if mode == "all" else f"-{mode}") + ".json")


def zeta_distribution(deck, variant, *, primes=None, workers: int = 1, backend: str = "local", scheduler=None,
                      checkpoint_dir=None, progress=None, stats: dict | None = None,
                      checkpoint_seconds: float | None = None):
    """Score counts and wins over all ``(S*R)!`` orders (Python ints), by the zeta kernel: one pass
    per prime, joined by the Chinese remainder theorem (:func:`exact.one_handed.zeta_passes.zeta_counts`).

    ``reverse=on`` is the plain game on the transposed deck; ``first4=reversed`` has the same
    distribution as ``first4=kept`` (:mod:`exact.one_handed.parity`); ``win=any`` counts the orders
    whose row ever empties: all but the never-returning ones. With ``checkpoint_dir``, the finished
    passes of each built shape are kept there (``zeta-passes-SxR.json``): the four variants of a deck
    share two shapes, and an interrupted run resumes."""
    if variant.rules.final_once:
        raise UsageError(PHASE_FINAL_ONCE.replace("the phase method", "the zeta method (the phase recursion)"))
    suits, ranks = (deck.suits, deck.ranks) if not variant.rules.reverse else (deck.ranks, deck.suits)
    checkpoint = zeta_checkpoint(checkpoint_dir, suits, ranks)
    counts, never = zeta_counts(suits, ranks, primes=primes, workers=workers, backend=backend, scheduler=scheduler,
                                checkpoint=checkpoint, progress=progress, stats=stats,
                                checkpoint_seconds=checkpoint_seconds)
    n = deck.size
    require(sum(counts) == math.factorial(n), "zeta counts must add up to (S*R)!")
    wins = math.factorial(n) - never if variant.rules.win_any else counts[0]
    require(counts[0] <= wins, "every score-0 order empties its row")
    return counts, wins
