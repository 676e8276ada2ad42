"""Absorbing Markov chains with integer transition counts, solved exactly (free functions, chain first).

One module a job: :mod:`~exact.hand.chains.chain` (the chain type), :mod:`~exact.hand.chains.reference`
(the Fraction solver), :mod:`~exact.hand.chains.steps` (steps to the win), :mod:`~exact.hand.chains.lumping`,
:mod:`~exact.hand.chains.system` (the integer system and its primes), :mod:`~exact.hand.chains.sparse_lu` and
:mod:`~exact.hand.chains.dense_lu` (one factorization modulo a prime, put together by
:mod:`~exact.hand.chains.factor`), :mod:`~exact.hand.chains.modular_solve` (the twin solves modulo a
prime), :mod:`~exact.hand.chains.dixon` (p-adic lifting, rational reconstruction) and
:mod:`~exact.hand.chains.driver` (:func:`absorb_modular`, :func:`solve_vector`). This package exports
the functions a caller needs.

A :class:`CountChain` is a finite chain given by **counts**: from state ``u``, ``total[u]`` equally
likely outcomes, ``wins[u]`` of them absorbed in the win and ``count[e]`` of them moving along edge
``e`` (``src[e] -> dst[e]``). Every count is a Python-sized ``int64``; probabilities are
``count / total``. The functions here answer, for the states that can still reach the win (the
*transient* states, given as a mask; every other state is absorbed as "trapped"):

* ``h = P(win)`` and ``m = E[T 1_win]`` (``T`` = steps until absorption, the winning step counted),
  from the integer system (``D = diag(total)``, ``C`` the counts between transient states)::

      A h = wins,   A m = D h,   A = D - C,

  which is nonsingular (``A`` is a diagonally dominant M-matrix on states that all reach the win);
* :func:`absorb_fractions`: the reference, state elimination in :class:`fractions.Fraction` (dual
  numbers carry ``m``); plain and obviously correct, slow when the answers have thousands of digits;
* :func:`absorb_modular`: the fast path. ``A`` is factored **once modulo a prime** ``p`` (sparse
  Markowitz elimination of the low-degree states, then a dense LU of the remaining core, its
  trailing updates done exactly in float64 BLAS on centred residues), and the rationals are
  recovered by **p-adic (Dixon) lifting** with **rational reconstruction**: each lifting step solves
  modulo ``p`` with the same factors and divides the integer residual by ``p``, so the residual stays
  small and only the start state's ``p``-adic digits are kept (once the ``h`` residual is zero, as
  when ``P(win) = 1`` from every state, ``m`` is lifted alone: one column). An answer is accepted only when its
  reconstruction is stable over many more digits *and* it satisfies the system modulo a second prime
  with a fresh factorization; ``prove=True`` also checks ``A h = wins`` and ``A m = D h`` over the
  integers for the whole solution vector;
* :func:`lump`: fewer unknowns by probabilistic bisimulation (signature refinement), every block
  verified exactly (all its states move with the same probabilities into every block and into the
  win), so a hash collision can never make an answer wrong: the lumped chain has the same
  distribution of ``T`` and of the outcome from every state.

Examples
--------
A two-state chain: from state 0, 1 of 2 outcomes wins, 1 moves to state 1; from state 1, 1 of 3
wins, 1 returns to 0, 1 stays.

>>> import numpy as np
>>> chain = CountChain(src=np.array([0, 1, 1]), dst=np.array([1, 0, 1]), count=np.array([1, 1, 1]),
...                    wins=np.array([1, 1]), total=np.array([2, 3]))
>>> transient = np.array([True, True])
>>> absorb_fractions(chain, transient) == absorb_modular(chain, transient)
True
>>> absorb_modular(chain, transient)
(Fraction(1, 1), Fraction(7, 3))
"""
from exact.hand.chains.chain import CountChain
from exact.hand.chains.driver import absorb_modular, solve_vector
from exact.hand.chains.dixon import rational_reconstruction
from exact.hand.chains.factor import factor_modular
from exact.hand.chains.lumping import lump
from exact.hand.chains.modular_solve import solve_modular
from exact.hand.chains.reference import absorb_fractions
from exact.hand.chains.steps import steps_to_win, steps_to_win_tail
from exact.hand.chains.system import PRIMES, IntegerSystem, ModularFactors, integer_system

__all__ = ["PRIMES", "CountChain", "IntegerSystem", "ModularFactors", "absorb_fractions", "absorb_modular",
           "factor_modular", "integer_system", "lump", "rational_reconstruction", "solve_modular", "solve_vector",
           "steps_to_win", "steps_to_win_tail"]
