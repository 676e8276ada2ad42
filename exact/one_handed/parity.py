"""Exact facts about One-Handed Solitaire: the parity theorem and the first-four convention.

**Parity theorem.** Every removal takes 2 cards (the two between) or 4 (the last four), so after
``k2`` two-card and ``k4`` four-card removals the score is ``S*R - 2*k2 - 4*k4``: it has the parity
of ``S*R``, and when ``S`` and ``R`` are both odd the score is odd, never 0, so such a deck is never
won (under ``win=end``; ``win=any`` can still count a mid-deal emptying). :func:`parity_theorem`
states this with sympy and checks it symbolically; the DP asserts the 2-or-4 step on every
transition and :func:`check_parity` checks every exact distribution.

**First four reversed.** ``first4=reversed`` plays order ``(c1, c2, c3, c4, c5, ...)`` as
``first4=kept`` plays ``(c4, c3, c2, c1, c5, ...)``; reversing the first four cards is a bijection
of the set of deck orders (it is its own inverse), so both conventions give the same number of
orders for every score and every win count: equal distributions, different games per order.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ParityTheorem:
    """The symbolic statement and the facts sympy verified."""

    score: object  #: sympy expression of the score
    statement: object  #: sympy: Mod(score - S*R, 2) == 0
    odd_odd_score: object  #: the score with S = 2a+1, R = 2b+1
    odd_odd_half: object  #: (score - 1) / 2 for odd S and R: an integer polynomial
    verified: bool


def parity_theorem() -> ParityTheorem:
    """State the parity theorem in sympy and verify it.

    Examples
    --------
    >>> parity_theorem().verified
    True
    """
    import sympy as sp

    S, R, k2, k4, a, b = sp.symbols("S R k2 k4 a b", integer=True, nonnegative=True)
    score = S * R - 2 * k2 - 4 * k4
    statement = sp.Eq(sp.Mod(score - S * R, 2, evaluate=False), 0, evaluate=False)
    odd_odd = sp.expand(score.subs({S: 2 * a + 1, R: 2 * b + 1}))
    half = sp.expand((odd_odd - 1) / 2)
    # (score - 1)/2 is a polynomial in integer symbols with integer coefficients, so score is odd
    integer_poly = half.is_integer is True and all(
        coeff.is_integer for coeff in sp.Poly(half, a, b, k2, k4).coeffs())
    verified = bool(sp.simplify(statement.doit()) == sp.true) and integer_poly and sp.Mod(odd_odd, 2) == 1
    return ParityTheorem(score=score, statement=statement, odd_odd_score=odd_odd, odd_odd_half=half,
                         verified=verified)


def check_parity(score_counts, cards: int) -> bool:
    """True when every score with a positive count has the parity of ``cards`` (= S*R)."""
    return all(count == 0 or (score - cards) % 2 == 0 for score, count in enumerate(score_counts))
