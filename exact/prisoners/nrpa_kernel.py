"""Prisoner's Patience best play: Nested Rollout Policy Adaptation (NRPA), a win-finder (numba).

What it is for
--------------
The depth-first restarts of :mod:`exact.prisoners.solver` decide most 52-card decks, but some
searches come within 2 to 5 piles of a win and stop there: a random depth-first dive commits to its
first moves and the lost-row table only keeps it from repeating rows, not from staying in the same
region. NRPA (C. D. Rosin, "Nested Rollout Policy Adaptation for Monte Carlo Tree Search", IJCAI
2011) samples whole games (playouts) from a *policy*, a weight per move code, and adapts the policy
towards the best game found, recursively over nested levels. Like the beam search it only ever
finds wins: a line it returns is a sequence of legal moves that ends in one pile (the caller replays
it with the reference rules); when it finds none, nothing is concluded.

The game it plays
-----------------
All cards are dealt first (lossless, see :mod:`exact.prisoners.solver`). A pile is named by the
deck position of its bottom card: a move puts a whole pile onto another and removes the mover, so a
pile's bottom card never changes and piles never change order. A pile's top rank is tracked by name:
moving pile ``a`` onto pile ``b`` sets the top of ``b`` to the bottom rank of ``a`` (``moves=
published``, the pile is reversed) or to the top rank of ``a`` (``moves=physical``). The legal moves
of a row of ``m`` piles are those of :func:`sim.rules.prisoners.legal_moves`: pile at position ``i``
onto position ``i - 1`` or ``i - 3`` when their top ranks are adjacent.

A move's *code* is ``mover * n + target`` (the names of the two piles, ``n`` cards): the same code
means the same two piles in every row where it is legal, so a weight learned in one game carries to
another. A playout from the dealt row picks, while a move is legal, move ``c`` with probability
``exp(w[c]) / sum exp(w[c'])`` over the legal moves ``c'``, and its score is the number of piles
left (lower is better; 1 is a win). Level 0 is one playout; a level-``l`` search runs ``iterations``
level-``l - 1`` searches, each starting from a copy of its current policy, keeps the best game
(ties: the later one) and after each adapts its policy towards that game: for every step of the
game, ``w'[chosen] += alpha`` and ``w'[c] -= alpha * p(c)`` for every legal ``c`` (``p`` under the
policy before the adaptation; Rosin's update, ``alpha = 1``). The search stops at the first win.

Randomness is a splitmix64 stream from the seed (:func:`_next_uniform`), so a run is deterministic
given its seed; :mod:`exact.prisoners.nrpa` holds the plain Python reference, which draws the same
numbers and makes the same choices (tested).

The budget counts *steps*: a move applied in a playout or replayed by an adaptation (each costs a
scan of the row's legal moves, like a node of the depth-first search).
"""
from __future__ import annotations

import numpy as np

from sim._jit import jit

#: Result codes of :func:`_nrpa`.
NRPA_WON, NRPA_FAILED, NRPA_OUT_OF_STEPS = 1, 0, 2

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31, _S11 = np.uint64(30), np.uint64(27), np.uint64(31), np.uint64(11)
_UNIT = 1.0 / 9007199254740992.0  # 2 ** -53


@jit(inline="always")
def _next_uniform(state):
    """The next number in [0, 1) of the splitmix64 stream ``state`` (a uint64 array of one)."""
    z = state[0] + _GOLDEN
    state[0] = z
    z = (z ^ (z >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    z = z ^ (z >> _S31)
    return float(z >> _S11) * _UNIT


@jit(inline="always")
def _legal(ids, m, top, adj, n, mv_i, mv_j, mv_code):
    """The legal moves of the row ``ids[:m]`` (pile names, left to right) in the order of
    :func:`sim.rules.prisoners.legal_moves` (source ascending, distance 1 then 3): their positions
    ``(mv_i, mv_j)`` and codes; returns how many."""
    k = 0
    for i in range(1, m):
        ti = top[ids[i]]
        j = i - 1
        if (adj[ti] >> top[ids[j]]) & 1:
            mv_i[k] = i
            mv_j[k] = j
            mv_code[k] = ids[i] * n + ids[j]
            k += 1
        j = i - 3
        if j >= 0 and (adj[ti] >> top[ids[j]]) & 1:
            mv_i[k] = i
            mv_j[k] = j
            mv_code[k] = ids[i] * n + ids[j]
            k += 1
    return k


@jit(inline="always")
def _apply(ids, m, top, bottom_rank, i, j, reverse):
    """Move the pile at position ``i`` onto the pile at ``j`` (in place); returns the new pile count."""
    mover = ids[i]
    top[ids[j]] = bottom_rank[mover] if reverse else top[mover]
    for p in range(i, m - 1):
        ids[p] = ids[p + 1]
    return m - 1


@jit(inline="always")
def _reset(ids, top, bottom_rank, n):
    for p in range(n):
        ids[p] = p
        top[p] = bottom_rank[p]


@jit(inline="always")
def _softmax_weights(policy, mv_code, k, weights):
    """``weights[c] = exp(policy[code c] - max)`` for the ``k`` legal moves (the max subtracted for
    range); returns their sum (a move's probability is its weight over it)."""
    best = policy[mv_code[0]]
    for c in range(1, k):
        if policy[mv_code[c]] > best:
            best = policy[mv_code[c]]
    total = 0.0
    for c in range(k):
        weights[c] = np.exp(policy[mv_code[c]] - best)
        total += weights[c]
    return total


@jit
def _playout(policy, bottom_rank, adj, reverse, rng, ids, top, mv_i, mv_j, mv_code, weights, seq_i, seq_j):
    """One playout from the dealt row sampled from ``policy``; the moves go to ``seq_i/seq_j``
    (positions). Returns the number of moves made (the piles left are ``n - moves``)."""
    n = bottom_rank.shape[0]
    _reset(ids, top, bottom_rank, n)
    m = n
    steps = 0
    while m > 1:
        k = _legal(ids, m, top, adj, n, mv_i, mv_j, mv_code)
        if k == 0:
            break
        total = _softmax_weights(policy, mv_code, k, weights)
        u = _next_uniform(rng) * total
        pick = k - 1
        acc = 0.0
        for c in range(k):
            acc += weights[c]
            if u < acc:
                pick = c
                break
        seq_i[steps] = mv_i[pick]
        seq_j[steps] = mv_j[pick]
        steps += 1
        m = _apply(ids, m, top, bottom_rank, mv_i[pick], mv_j[pick], reverse)
    return steps


@jit
def _adapt(policy, new_policy, length, seq_i, seq_j, alpha, bottom_rank, adj, reverse, ids, top, mv_i, mv_j,
           mv_code, weights):
    """Rosin's adaptation: ``new_policy`` (a copy of ``policy`` on entry) moves towards the game
    ``seq[:length]``, with probabilities from ``policy``."""
    n = bottom_rank.shape[0]
    _reset(ids, top, bottom_rank, n)
    m = n
    for s in range(length):
        k = _legal(ids, m, top, adj, n, mv_i, mv_j, mv_code)
        total = _softmax_weights(policy, mv_code, k, weights)
        chosen = ids[seq_i[s]] * n + ids[seq_j[s]]
        new_policy[chosen] += alpha
        for c in range(k):
            new_policy[mv_code[c]] -= alpha * weights[c] / total
        m = _apply(ids, m, top, bottom_rank, seq_i[s], seq_j[s], reverse)


@jit
def _nrpa(bottom_rank, adj, reverse, level, iterations, alpha, seed, step_stop, start_policy, line):
    """One NRPA search of ``level`` (>= 1) from the dealt row ``bottom_rank`` (its ranks in deal order);
    ``adj`` is the rules' adjacency as the depth-first kernel has it
    (:func:`exact.prisoners.solver_kernel.neighbour_masks`: bit ``b`` of ``adj[a]`` for ranks ``a, b``).

    Returns ``(code, best score, steps)``: ``NRPA_WON`` with the winning moves in ``line[:n - 1]``
    (positions ``(source, target)``), ``NRPA_FAILED`` when the search ended without a win (``line``
    then holds the best game, ``n - score`` moves), ``NRPA_OUT_OF_STEPS`` when ``step_stop`` steps
    were spent first (best game likewise). ``start_policy`` (``n * n`` weights) is the top level's
    policy on entry (zeros: uniform playouts).
    """
    n = bottom_rank.shape[0]
    if n == 1:
        return NRPA_WON, 1, 0
    rng = np.empty(1, dtype=np.uint64)
    rng[0] = np.uint64(seed)
    ids = np.empty(n, dtype=np.int64)
    top = np.empty(n, dtype=np.int64)
    cap = 2 * n
    mv_i = np.empty(cap, dtype=np.int64)
    mv_j = np.empty(cap, dtype=np.int64)
    mv_code = np.empty(cap, dtype=np.int64)
    weights = np.empty(cap, dtype=np.float64)
    policies = np.empty((level + 1, n * n), dtype=np.float64)
    scratch = np.empty(n * n, dtype=np.float64)
    best_len = np.zeros(level + 1, dtype=np.int64)  # moves of the best game per level (-1: none yet)
    best_i = np.zeros((level + 1, n), dtype=np.int64)
    best_j = np.zeros((level + 1, n), dtype=np.int64)
    its = np.zeros(level + 1, dtype=np.int64)
    seq_i = np.empty(n, dtype=np.int64)
    seq_j = np.empty(n, dtype=np.int64)
    policies[level, :] = start_policy
    best_len[level] = -1
    its[level] = 0
    lv = level
    steps = 0
    overall = -1
    out_of_steps = False
    while True:
        if its[lv] == iterations or out_of_steps:
            if lv == level:
                break
            # level lv is done: its best game is one iteration's result at level lv + 1
            length = best_len[lv]
            for s in range(length):
                seq_i[s] = best_i[lv, s]
                seq_j[s] = best_j[lv, s]
            lv += 1
        elif lv == 1:
            length = _playout(policies[1], bottom_rank, adj, reverse, rng, ids, top, mv_i, mv_j, mv_code, weights,
                              seq_i, seq_j)
            steps += length
        else:
            policies[lv - 1, :] = policies[lv, :]
            lv -= 1
            best_len[lv] = -1
            its[lv] = 0
            continue
        # merge the game seq[:length] into level lv, then adapt its policy (one iteration)
        if length >= best_len[lv]:
            best_len[lv] = length
            for s in range(length):
                best_i[lv, s] = seq_i[s]
                best_j[lv, s] = seq_j[s]
        if length > overall:
            overall = length
            for s in range(length):
                line[s, 0] = seq_i[s]
                line[s, 1] = seq_j[s]
        if overall == n - 1:
            return NRPA_WON, 1, steps
        if steps >= step_stop:
            out_of_steps = True
            continue
        scratch[:] = policies[lv]
        _adapt(scratch, policies[lv], best_len[lv], best_i[lv], best_j[lv], alpha, bottom_rank, adj, reverse, ids,
               top, mv_i, mv_j, mv_code, weights)
        steps += best_len[lv]
        its[lv] += 1
    return (NRPA_OUT_OF_STEPS if out_of_steps else NRPA_FAILED), n - overall, steps


def run_seed(run: int) -> np.uint64:
    """The seed of the ``run``-th NRPA search of a deck (fixed, so verdicts are reproducible)."""
    return np.uint64((0x5DEECE66D + run * 0x9E3779B97F4A7C15) % (1 << 64))
