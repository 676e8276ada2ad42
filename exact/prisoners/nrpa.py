"""Prisoner's Patience best play: Nested Rollout Policy Adaptation, the plain Python reference.

This is the obviously correct twin of :func:`exact.prisoners.nrpa_kernel._nrpa` (the algorithm, its
move codes, scores and budget are described in :mod:`exact.prisoners.nrpa_kernel`). It plays on real
rows of piles with the reference rules (:func:`sim.rules.prisoners.legal_moves` and
:func:`sim.rules.prisoners.apply_move`), writes Rosin's recursion as it is published, and draws the
same random numbers as the kernel, so both return the same result, steps and line for the same
seed (tested on small decks). It is too slow for 52-card decks; the solver uses the kernel.
"""
from __future__ import annotations

import math

from sim.deck import Deck
from sim.rules.prisoners import apply_move, legal_moves
from sim.variant import Variant

_MASK = (1 << 64) - 1


class SplitMix64:
    """The kernel's random stream (splitmix64), in plain integers."""

    def __init__(self, seed: int):
        self.state = seed & _MASK

    def uniform(self) -> float:
        """The next number in [0, 1)."""
        self.state = (self.state + 0x9E3779B97F4A7C15) & _MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        z ^= z >> 31
        return float(z >> 11) * (1.0 / 9007199254740992.0)


class _Stop(Exception):
    """Raised to end the search: a win was found or the step budget is spent."""


def nrpa_reference(order, deck: Deck, variant: Variant, *, level: int, iterations: int, seed: int,
                   step_stop: int, alpha: float = 1.0, start_policy=None):
    """NRPA from the row that deals ``order``: ``(won, best piles left, steps, best line)``.

    ``best line`` holds the moves ``(source, target)`` of the best game found (the first one with the
    fewest piles); ``won`` when it ends in one pile. The search stops at a win, after ``iterations``
    level-``level - 1`` searches at the top level, or once ``step_stop`` steps are spent.
    """
    n = len(order)
    wrap, reverse = variant.rules.wrap, variant.rules.reverse_piles
    position = {card: p for p, card in enumerate(order)}
    rng = SplitMix64(seed)
    state = {"steps": 0, "best": [], "won": False}

    def code(piles, move) -> int:
        source, target = move
        return position[piles[source][0]] * n + position[piles[target][0]]

    def probabilities(policy, piles, moves):
        codes = [code(piles, move) for move in moves]
        top = max(policy[c] for c in codes)
        weights = [math.exp(policy[c] - top) for c in codes]
        total = 0.0
        for w in weights:
            total += w
        return codes, weights, total

    def playout(policy):
        piles = [[card] for card in order]
        line = []
        while len(piles) > 1:
            moves = legal_moves(piles, deck, wrap)
            if not moves:
                break
            _, weights, total = probabilities(policy, piles, moves)
            u = rng.uniform() * total
            pick, acc = len(moves) - 1, 0.0
            for c, w in enumerate(weights):
                acc += w
                if u < acc:
                    pick = c
                    break
            line.append(moves[pick])
            piles = apply_move(piles, *moves[pick], reverse)
        state["steps"] += len(line)
        return line

    def adapt(policy, line):
        new = list(policy)
        piles = [[card] for card in order]
        for move in line:
            moves = legal_moves(piles, deck, wrap)
            codes, weights, total = probabilities(policy, piles, moves)
            new[code(piles, move)] += alpha
            for c, w in zip(codes, weights):
                new[c] -= alpha * w / total
            piles = apply_move(piles, *move, reverse)
        state["steps"] += len(line)
        return new

    def record(line):
        if len(line) > len(state["best"]):
            state["best"] = list(line)
        if len(line) == n - 1:
            state["won"] = True
            raise _Stop
        if state["steps"] >= step_stop:
            raise _Stop

    def search(lv, policy):
        best = None
        for _ in range(iterations):
            line = playout(policy) if lv == 1 else search(lv - 1, list(policy))
            if best is None or len(line) >= len(best):
                best = line
            record(line)
            policy = adapt(policy, best)
        return best

    if n == 1:
        return True, 1, 0, []
    policy = [0.0] * (n * n) if start_policy is None else [float(w) for w in start_policy]
    try:
        search(level, policy)
    except _Stop:
        pass
    best = state["best"]
    return state["won"], n - len(best), state["steps"], [tuple(m) for m in best]
