"""The distribution of the steps to the win: ``P(T = k, win)`` exactly for small ``k`` and as floats
for a tail."""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import scipy.sparse as sp

from exact.hand.chains.chain import CountChain


def _transient_edges(chain: CountChain, transient):
    transient = np.asarray(transient, dtype=bool)
    src, dst = np.asarray(chain.src, dtype=np.int64), np.asarray(chain.dst, dtype=np.int64)
    keep = transient[src] & transient[dst]
    order = np.argsort(dst[keep], kind="stable")
    return src[keep][order], dst[keep][order], np.asarray(chain.count, dtype=np.int64)[keep][order]


def steps_to_win(chain: CountChain, transient, start: int = 0, *, steps: int) -> list:
    """``[P(T = 1 and win), ..., P(T = steps and win)]`` from ``start``, exactly (Fractions).

    The mass on the states after ``t`` steps is kept as Python integers over the common denominator
    ``L**t`` (``L`` the lcm of the totals of the transient states), so each step is one sparse
    product in exact integers.
    """
    transient = np.asarray(transient, dtype=bool)
    if not transient[start]:
        return [Fraction(0)] * steps
    src, dst, count = _transient_edges(chain, transient)
    total = np.asarray(chain.total, dtype=np.int64)
    states = np.flatnonzero(transient)
    lcm = math.lcm(*(int(t) for t in total[states]))
    scale = np.array([lcm // int(t) for t in total.tolist()], dtype=object)
    coefficient = count.astype(object) * scale[src]
    win_coefficient = np.asarray(chain.wins, dtype=np.int64).astype(object) * scale
    mass = np.zeros(chain.states, dtype=object)
    mass[start] = 1
    starts = np.flatnonzero(np.concatenate([[True], dst[1:] != dst[:-1]])) if len(dst) else np.zeros(0, dtype=int)
    out = []
    denominator = 1
    for _ in range(steps):
        denominator *= lcm
        out.append(Fraction(int(np.dot(mass[states], win_coefficient[states])), denominator))
        new = np.zeros(chain.states, dtype=object)
        if len(dst):
            new[dst[starts]] = np.add.reduceat(mass[src] * coefficient, starts)
        mass = new
    return out


def steps_to_win_tail(chain: CountChain, transient, start: int = 0, *, first: int, last: int) -> np.ndarray:
    """``P(T = t and win)`` for ``t = first..last`` in float64 (the tail beyond the exact terms)."""
    transient = np.asarray(transient, dtype=bool)
    if not transient[start] or last < first:
        return np.zeros(max(0, last - first + 1))
    src, dst, count = _transient_edges(chain, transient)
    total = np.asarray(chain.total, dtype=np.float64)
    n = chain.states
    step = sp.csr_matrix((count / total[src], (dst, src)), shape=(n, n))
    win = np.where(transient, np.asarray(chain.wins, dtype=np.float64) / total, 0.0)
    mass = np.zeros(n)
    mass[start] = 1.0
    out = []
    for t in range(1, last + 1):
        if t >= first:
            out.append(float(win @ mass))
        mass = step @ mass
    return np.array(out)
