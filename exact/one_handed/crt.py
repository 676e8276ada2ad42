"""Exact counts past 2**64 from residues: the primes and the Chinese remainder theorem.

Every count of a deck of ``n`` cards lies in ``[0, n!]`` (24! is about 2**79, 28! about 2**98). A
zeta pass (:func:`exact.one_handed.zeta_kernel.zeta_pass`) computes every count modulo one prime
``p < 2**31``; with primes whose product ``M`` exceeds ``n!`` (:func:`primes_for`) the residues fix
each count, the unique value in ``[0, M)`` (:func:`crt`). The joined counts are then checked
(:func:`join`): they must add up to ``n!`` (a wrong residue in any pass would give a count near
``M``, far from that) and every score must have the parity of ``n`` (:mod:`exact.one_handed.parity`).
"""
from __future__ import annotations

import math

from sim.errors import UsageError

from exact.invariants import require
from exact.one_handed.parity import check_parity

#: the largest primes below 2**31 (products of two residues fit in 64 bits)
PRIME_LIMIT = 2**31


def is_prime(p: int) -> bool:
    """Whether ``p`` is prime (trial division; for the primes below 2**31 only)."""
    if p < 2:
        return False
    d = 2
    while d * d <= p:
        if p % d == 0:
            return False
        d += 1
    return True


def largest_primes(count: int, below: int = PRIME_LIMIT) -> list[int]:
    """The ``count`` largest primes below ``below``, largest first.

    >>> largest_primes(3)
    [2147483647, 2147483629, 2147483587]
    """
    out = []
    p = below - 1
    while len(out) < count:
        if is_prime(p):
            out.append(p)
        p -= 1
    return out


def first_primes_over(bound: int, pool) -> list[int] | None:
    """The shortest run of ``pool``'s first primes whose product exceeds ``bound`` (None when the
    whole pool does not).

    >>> first_primes_over(20, [7, 5, 3]), first_primes_over(200, [7, 5, 3])
    ([7, 5], None)
    """
    out, product = [], 1
    for p in pool:
        if product > bound:
            break
        out.append(p)
        product *= p
    return out if product > bound else None


def primes_for(n: int, primes=None) -> list[int]:
    """The fewest primes (from ``primes``, default the largest below 2**31) whose product exceeds ``n!``."""
    bound = math.factorial(n)
    pool = list(primes) if primes is not None else largest_primes(bound.bit_length() // 30 + 1)
    out = first_primes_over(bound, pool)
    if out is None:
        raise UsageError(f"the primes given multiply to {math.prod(pool)}, not more than {n}! = {bound}: give more "
                         "primes")
    return out


def crt(residues: list[int], primes: list[int]) -> int:
    """The value in ``[0, prod(primes))`` with the given residues (Garner-free, Python ints).

    >>> crt([2, 3, 2], [3, 5, 7])
    23
    """
    m = 1
    for p in primes:
        m *= p
    x = 0
    for r, p in zip(residues, primes):
        mp = m // p
        x += r * mp * pow(mp, -1, p)
    return x % m


def join_core(passes: dict, n: int):
    """(the core mode's five sums ``e0, eo, ee, mo, me``, never-returning orders) from ``{prime: (sums,
    never)}``, checked: the counts add up to ``n!``, only scores of the deck's parity occur, and the
    score sum lies in ``[0, n * n!]``."""
    primes = sorted(passes)
    e0, eo, ee, mo, me = (crt([passes[p][0][u] for p in primes], primes) for u in range(5))
    never = crt([passes[p][1] for p in primes], primes)
    total = math.factorial(n)
    require(e0 + eo + ee == total, "residue counts must add up to (S*R)! (a pass is wrong, or too few primes)")
    require((eo if n & 1 else e0 + ee) == total, "a score with the wrong parity: the parity theorem fails")
    require(0 <= mo + me <= n * total, "the score sum lies in [0, n * n!]")
    require(0 <= never <= total, "never-returning orders lie in [0, n!]")
    return [e0, eo, ee, mo, me], never


def join(passes: dict, n: int):
    """(score counts, never-returning orders) from ``{prime: (ends, never)}``, checked."""
    primes = sorted(passes)
    counts = [crt([passes[p][0][j] for p in primes], primes) for j in range(n + 1)]
    never = crt([passes[p][1] for p in primes], primes)
    require(sum(counts) == math.factorial(n), "residue counts must add up to (S*R)! (a pass is wrong, or too few primes)")
    require(check_parity(counts, n), "a score with the wrong parity: the parity theorem fails")
    require(0 <= never <= math.factorial(n), "never-returning orders lie in [0, n!]")
    return counts, never
