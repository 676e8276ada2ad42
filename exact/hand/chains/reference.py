"""The reference solver: ``P(win)`` and ``E[T 1_win]`` by state elimination in Fractions (plain and
obviously correct; the modular solver of :mod:`exact.hand.chains.driver` is checked against it)."""
from __future__ import annotations

import heapq
from fractions import Fraction

import numpy as np

from exact.hand.chains.chain import CountChain


def _dual_mul(x, y):
    return x[0] * y[0], x[0] * y[1] + x[1] * y[0]


def absorb_fractions(chain: CountChain, transient, start: int = 0):
    """``(h[start], m[start])`` = ``(P(win), E[T 1_win])`` by state elimination in Fractions.

    The reference solver: eliminates the transient states one at a time (the state with the fewest
    predecessor x successor pairs first, which keeps the fill-in small), carrying the dual number
    ``z = 1 + eps`` per step, so that one elimination gives both ``h`` (the value) and ``m`` (the
    ``eps`` part, the derivative of ``E[z^T 1_win]`` at ``z = 1``).
    """
    transient = np.asarray(transient, dtype=bool)
    if not transient[start]:
        return Fraction(0), Fraction(0)
    one = Fraction(1)
    states = np.flatnonzero(transient).tolist()
    total = [int(t) for t in chain.total]
    out: dict = {u: {} for u in states}
    pred: dict = {u: set() for u in states}
    rhs: dict = {u: (Fraction(int(chain.wins[u]), total[u]),) * 2 for u in states}
    for s, d, c in zip(chain.src.tolist(), chain.dst.tolist(), chain.count.tolist()):
        if transient[s] and transient[d]:
            p = Fraction(c, total[s])
            old = out[s].get(d, (0, 0))
            out[s][d] = (old[0] + p, old[1] + p)
            pred[d].add(s)
    heap = [(len(pred[u]) * len(out[u]), u) for u in states if u != start]
    heapq.heapify(heap)
    eliminated = set()
    while heap:
        cost, k = heapq.heappop(heap)
        if k in eliminated:
            continue
        current = (len(pred[k]) - (k in pred[k])) * (len(out[k]) - (k in out[k]))
        if current > cost:
            heapq.heappush(heap, (current, k))
            continue
        eliminated.add(k)
        loop = out[k].pop(k, (0, 0))
        pred[k].discard(k)
        a, b = one - loop[0], -loop[1]
        scale = (one / a, -b / (a * a))  # 1 / (1 - loop) as a dual number
        for i in pred[k]:
            factor = _dual_mul(out[i].pop(k), scale)
            for j, x in out[k].items():
                y = _dual_mul(factor, x)
                old = out[i].get(j)
                out[i][j] = y if old is None else (old[0] + y[0], old[1] + y[1])
                pred[j].add(i)
            w = _dual_mul(factor, rhs[k])
            rhs[i] = (rhs[i][0] + w[0], rhs[i][1] + w[1])
            if i != start:
                heapq.heappush(heap, ((len(pred[i]) - (i in pred[i])) * (len(out[i]) - (i in out[i])), i))
        for j in out[k]:
            pred[j].discard(k)
        del out[k], pred[k]
    loop = out[start].get(start, (0, 0))
    a, b = one - loop[0], -loop[1]
    scale = (one / a, -b / (a * a))
    return _dual_mul(rhs[start], scale)
