"""The *word* method: the phase recursion run at single alphabets, one independent job per alphabet orbit.

Read :mod:`exact.one_handed.phase` first: it writes the play above the top three cards ``W`` of the
row as a recursion over the *set* of cards still to come, and :mod:`exact.one_handed.zeta` solves
that recursion in the ranked zeta domain, where every subset convolution becomes a product of
polynomials at every *point* ``X`` of the deck. The zeta method holds, for every window, the tables
of every point of one size: a point's table reads its child windows' tables at the same point, so
the work of one pass cannot be split without an exchange at every size. This method removes that
wall by changing what is counted.

Words instead of orders
-----------------------
Let ``U`` be the deck (``n`` cards) and ``f`` any function of card sequences. A *word* over an
alphabet ``Y`` is a sequence of ``n`` letters of ``Y``, letters allowed to repeat; let ``L`` be any
set of words over ``U`` that holds every order of ``U`` (every permutation), and
``N_f(Y) = sum of f(w)`` over the words ``w`` of ``L`` whose letters all lie in ``Y``. Then

    ``sum of f over the orders of U  =  sum over Y subset U of (-1)^(n - |Y|) N_f(Y)``.

*Proof.* Group the words of ``L`` by their set of letters ``Z``. A word with letters ``Z`` is counted
in ``N_f(Y)`` for every ``Y`` with ``Z subset Y subset U``, with total sign
``sum_{Z subset Y subset U} (-1)^(n - |Y|) = (1 - 1)^(n - |Z|)``, which is 1 if ``Z = U`` and 0
otherwise. A word of length ``n`` whose letters are all ``n`` cards of ``U`` is an order of ``U``,
and every order is in ``L``. (Inclusion-exclusion on "the word uses every card".)

The rules of One-Handed Solitaire compare suits and ranks only, so they play any sequence of
(suit, rank) labels, repeated or not; and the phase recursion of :mod:`exact.one_handed.phase` never
uses that the cards are distinct: every comparison it makes is between a dealt card and a card of
the row, and its case analysis (which card of the window a dealt card removes, what a child window's
endings mean for its parent) holds for labels as it does for cards. Only its bookkeeping by *sets*
of cards to come used distinctness. Run on words, the recursion is indexed by the *number* ``d`` of
letters still to come instead of their set:

* ``A_W(d) = [d = 0] end(0) + sum_{a in Y, a not in W} B_W(a, d - 1)``;
* ``B_W(a, d)`` is ``S1(a)`` or ``R1`` at ``d = 0`` if ``a`` matches ``w1`` (by suit or rank), and
  otherwise, with the child window ``W' = (w2, w3, a)``,
  ``B_W(a, d) = map(A_W'(d)) + sum_{e = 1..d} sum_{a'} A_W'[S2'(a')](e) B_W(a', d - e)
  + A_W'[R3'](e) A_W(d - e)``,

where ``map`` reads the child's other endings for ``W`` (``end(j) -> end(j + 1)``, ``S1'(y) -> S2(y)``,
``R1' -> R2``, ``R2' -> R3``), exactly as in the phase method, the sum over the splits of a *set*
into two disjoint parts having become a convolution over the *lengths* of two consecutive parts.
``A_top(n)`` of the top window (three sentinels) counts the words by their score: ``N(Y)`` is this
recursion at the single point ``Y``; no table of another alphabet is ever read.

**The restricted language.** The sum over ``a`` in ``A_W`` leaves out the letters of ``W`` itself:
``L`` is the set of words in which no dealt letter equals one of the top three cards of the row when
it is dealt. Every card is dealt from some state ``A_W`` with ``W`` the top three cards of the row
(after a hand-back too: ``S2'`` and ``R3'`` return to a state of ``W`` whose top three cards are ``W``
or, for ``B_W(a')``, ``a'`` above them, ``a'`` having been dealt from a child state), so ``L`` is a
property of the word alone, the same for every ``Y``; and it holds every order, in which no card
ever equals another. The restriction keeps the windows' letters mostly distinct and cuts the
states to about the zeta method's number. ``B_W(a')`` is still needed for letters ``a'`` of ``W``
(of ``w3``'s suit): a child's ``S2'`` may hand back a letter that was dealt when ``w3`` had left the
top three.

**win=any** counts the orders whose row is ever empty after a removal. As in the zeta method, the
orders whose row *never* empties are the top phase with its ``R3'`` hand-backs (returns to the empty
row) removed; ``f`` = "never empties" is a function of the word like any other, so the same
alternating sum counts them, and ``wins = n! - never``.

Jobs
----
``N(Y)`` is unchanged when suits and ranks are renamed (``N(gY) = N(Y)`` for ``g`` in
``G = Sym(S) x Sym(R)``: a renaming maps the words over ``Y`` onto those over ``gY`` and keeps every
comparison). So the sum runs over the *orbits* of alphabets, each weighted by its size
``|G| / |Stab(Y)|`` and its sign: one independent job per orbit. An alphabet is an ``S x R`` 0/1
matrix up to permutations of its rows and columns (:mod:`exact.one_handed.word_jobs`); their count
is checked against Burnside's lemma. Within a job the windows are taken up to the stabiliser of
``Y`` (:mod:`exact.one_handed.word_plan`): a relabelling ``tau`` that fixes ``Y`` maps the words
over ``Y`` onto themselves and window ``W``'s counts onto ``tau W``'s, renaming its ``S1``/``S2``
slots (indexed by rank) by ``tau``'s rank permutation and ``B_W(a)`` onto ``B_tau W(tau a)``.

Counts and primes
-----------------
``N(Y)`` counts words, up to ``|Y|^n``; the signed sum is a count of orders in ``[0, n!]``. Every job
is computed modulo word-sized primes, the weighted residues are summed, and the sums are joined by
the Chinese remainder theorem; the joined counts must add up to ``n!`` and have the parity of
``n`` (:mod:`exact.one_handed.parity`), which a wrong residue of any job would break.

**Core mode** (``only="core"``): ``p_win``, ``win=any`` and the mean score need neither the full
score distribution nor ``n + 1`` end slots: ``end(j)`` slots feed only end slots, so they are folded
into five (``end(0)``; the count and the score sum of the odd ``j``; of the even ``j >= 2``), whose
``map`` is linear (``j -> j + 1`` moves counts between the odd and even groups and adds each count to
its score sum). Everything else is the same recursion.

This module holds the plain reference (memoised Python, every alphabet, Python ints, no symmetry)
and the public wrapper :func:`word_distribution`; the per-job plan, the kernel and the job driver
are in :mod:`exact.one_handed.word_plan`, :mod:`exact.one_handed.word_kernel` and
:mod:`exact.one_handed.word_run`.
"""
from __future__ import annotations

import math
from functools import lru_cache
from itertools import combinations

from sim.deck import Deck
from sim.errors import UsageError
from sim.rules.one_handed import REMOVE_BETWEEN, REMOVE_FOUR, removal
from sim.variant import Variant

from exact.invariants import require
from exact.one_handed.word_run import word_counts

#: a card that matches nothing (below the bottom of the row)
SENTINEL = None


def letter_match(a, b):
    """How letter ``a`` (a ``(suit, rank)`` pair) dealt on the row meets ``b`` three below it in the
    plain game: ``"two"`` (same suit: the two between go), ``"four"`` (same rank: all four go) or
    ``None`` (no match, or ``b`` a sentinel)."""
    if b is SENTINEL:
        return None
    kind = removal(a[0] == b[0], a[1] == b[1], False)
    return {REMOVE_BETWEEN: "two", REMOVE_FOUR: "four"}.get(kind)


class WordReference:
    """The recursion of the module docstring at one alphabet: counts of the restricted words of
    every length, by ending, memoised on ``(window, length)``.

    ``alphabet``: the letters (``(suit, rank)`` pairs). ``returns``: keep the top window's ``R3'``
    hand-backs (``False`` counts the words whose row never empties)."""

    def __init__(self, alphabet, returns: bool = True):
        self.alphabet = tuple(sorted(alphabet))
        self.returns = returns
        self.a = lru_cache(maxsize=None)(self._a)
        self.b = lru_cache(maxsize=None)(self._b)

    def _a(self, window: tuple, d: int) -> dict:
        if d == 0:
            return {("end", 0): 1}
        out: dict = {}
        for a in self.alphabet:
            if a in window:
                continue
            for outcome, count in self.b(window, a, d - 1).items():
                out[outcome] = out.get(outcome, 0) + count
        return out

    def _b(self, window: tuple, a, d: int) -> dict:
        w1, w2, w3 = window
        m = letter_match(a, w1)
        if m is not None:
            if d:
                return {}
            return {("S1", a): 1} if m == "two" else {("R1",): 1}
        child = (w2, w3, a)
        out: dict = {}

        def add(outcome, count):
            out[outcome] = out.get(outcome, 0) + count

        mapping = {"end": lambda o: ("end", o[1] + 1), "S1": lambda o: ("S2", o[1]),
                   "R1": lambda o: ("R2",), "R2": lambda o: ("R3",)}
        for outcome, count in self.a(child, d).items():
            if outcome[0] in mapping:
                add(mapping[outcome[0]](outcome), count)
        top_without_returns = not self.returns and window == (SENTINEL, SENTINEL, SENTINEL)
        for e in range(1, d + 1):
            for outcome, count in self.a(child, e).items():
                if outcome[0] == "S2":
                    for o2, c2 in self.b(window, outcome[1], d - e).items():
                        add(o2, count * c2)
                elif outcome[0] == "R3" and not top_without_returns:
                    for o2, c2 in self.a(window, d - e).items():
                        add(o2, count * c2)
        return out

    def words(self, n: int) -> dict:
        """{score: words of length ``n``} over the alphabet (the top window's ``end(j)`` counts)."""
        top = self.a((SENTINEL, SENTINEL, SENTINEL), n)
        require(all(o[0] == "end" for o in top), "the sentinel phase can only end with the cards")
        return {o[1]: c for o, c in top.items() if c}


def deck_letters(suits: int, ranks: int) -> list:
    """The deck's cards as ``(suit, rank)`` letters, in card order (card ``s * ranks + r``)."""
    return [(s, r) for s in range(suits) for r in range(ranks)]


def word_counts_reference(suits: int, ranks: int):
    """Score counts and never-emptying orders of the plain game on ``suits x ranks`` (Python ints) by
    the alternating sum over *every* alphabet, without symmetry: the plain reference (tiny decks)."""
    letters = deck_letters(suits, ranks)
    n = len(letters)
    counts = [0] * (n + 1)
    never = 0
    for k in range(n + 1):
        sign = -1 if (n - k) & 1 else 1
        for alphabet in combinations(letters, k):
            for score, c in WordReference(alphabet).words(n).items():
                counts[score] += sign * c
            never += sign * sum(WordReference(alphabet, returns=False).words(n).values())
    return counts, never


def word_distribution_reference(deck: Deck, variant: Variant):
    """Score counts and wins over all ``(S*R)!`` orders by the word recursion in plain Python.

    ``reverse=on`` is the plain game on the transposed deck, ``first4=reversed`` has the distribution
    of ``first4=kept`` (:mod:`exact.one_handed.parity`); ``final=once`` is refused as by the phase
    method (its tables do not say where the last card's cascade started). Returns
    ``(score_counts, wins)``.

    >>> word_distribution_reference(Deck(2, 3), Variant.coerce(None, "one-handed"))
    ([96, 0, 360, 0, 168, 0, 96], 96)
    """
    _refuse_final_once(variant)
    suits, ranks = (deck.ranks, deck.suits) if variant.rules.reverse else (deck.suits, deck.ranks)
    counts, never = word_counts_reference(suits, ranks)
    n = deck.size
    require(sum(counts) == math.factorial(n), "word counts must add up to (S*R)!")
    wins = math.factorial(n) - never if variant.rules.win_any else counts[0]
    return counts, wins


#: why the word method refuses ``final=once``, and what to use instead
WORD_FINAL_ONCE = (
    "the word method cannot count final=once: like the phase method it counts how the phase of the top three "
    "cards ends, which does not keep the row the last card meets, and final=once stops the last card's cascade "
    "after its first removal; use --method dp or --method enumerate (or auto, which picks dp)")


def _refuse_final_once(variant: Variant) -> None:
    if variant.rules.final_once:
        raise UsageError(WORD_FINAL_ONCE)


def word_distribution(deck: Deck, variant: Variant, *, workers: int = 1, backend: str = "local", scheduler=None,
                      checkpoint_dir=None, merge_only: bool = False, progress=None, stats: dict | None = None):
    """Score counts and wins over all ``(S*R)!`` orders (Python ints), by the word kernel: one job per
    orbit of alphabets, every prime in each job, joined by the Chinese remainder theorem
    (:mod:`exact.one_handed.word_run`).

    ``reverse=on`` is the plain game on the transposed deck; ``first4=reversed`` has the distribution
    of ``first4=kept``; ``win=any`` counts every order but those whose row never empties. With
    ``checkpoint_dir`` the finished jobs are kept there (one journal per built shape, shared by the
    variants of that shape) and a run given it again resumes.

    >>> word_distribution(Deck(2, 3), Variant.coerce(None, "one-handed"))
    ([96, 0, 360, 0, 168, 0, 96], 96)
    """
    _refuse_final_once(variant)
    suits, ranks = (deck.ranks, deck.suits) if variant.rules.reverse else (deck.suits, deck.ranks)
    result = word_counts(suits, ranks, workers=workers, backend=backend, scheduler=scheduler,
                         checkpoint_dir=checkpoint_dir, merge_only=merge_only, progress=progress)
    counts, never = result.ends, result.never
    n = deck.size
    require(sum(counts) == math.factorial(n), "word counts must add up to (S*R)!")
    wins = math.factorial(n) - never if variant.rules.win_any else counts[0]
    require(counts[0] <= wins, "every score-0 order empties its row")
    if stats is not None:
        stats.update(result.stats)
    return counts, wins

