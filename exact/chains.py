"""Absorbing Markov chains with integer transition counts, solved exactly (free functions, chain first).

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
from __future__ import annotations

import heapq
import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from exact.invariants import require
from sim._jit import jit

#: Primes for the modular solves: below ``2**24``, so that centred residues (``|x| < 2**23``) are exact
#: in float32, a sum of 128 products of them (each below ``2**46 - 2**24``) plus a residue is exact in
#: float64 (below ``2**53``), and products of two residues fit int64. (The largest such primes: each
#: lifting step gains log10(p) = 7.22 digits; below ``2**23`` it was 6.92, 4.3% more steps.)
PRIMES = (16777213, 16777199, 16777183, 16777153, 16777141, 16777139, 16777127, 16777121)
#: Columns per panel of the dense LU (see :data:`PRIMES` for why at most 128).
PANEL = 128
#: Rows per block of the dense LU's trailing updates (the temporary product is this many rows).
UPDATE_ROWS = 1024
#: States whose elimination costs at most this many (predecessors x successors) are eliminated
#: sparsely; the rest form the dense core. 3x4 ``step7=off`` (131,536 unknowns): 1024 leaves a core
#: of 20,168, 16384 one of 11,453, 65536 one of 9,651 (7.2 M + 2.7 M sparse factor entries, the
#: sparse part 36 CPU-s in numba), 262144 one of 8,764 (8.3 M + 4.2 M entries).
SPARSE_COST = 65536


@dataclass(frozen=True)
class CountChain:
    """A chain given by integer counts (see the module docstring). ``total[u] = wins[u] + sum of
    count over the edges out of u``; edges out of a state may repeat a destination."""

    src: np.ndarray
    dst: np.ndarray
    count: np.ndarray
    wins: np.ndarray
    total: np.ndarray

    @property
    def states(self) -> int:
        return len(self.total)

    def check(self) -> None:
        """The counts of every state add up to its total (an invariant, not a user check)."""
        sums = np.asarray(self.wins, dtype=np.int64).copy()
        np.add.at(sums, np.asarray(self.src, dtype=np.int64), np.asarray(self.count, dtype=np.int64))
        require(bool(np.all(sums == self.total)), "every outcome of a state wins or moves along an edge")


def fraction_text(x: Fraction) -> str:
    """``"n/d"`` for a Fraction of any size (Python refuses ``str`` of ints over 4,300 digits by default).

    >>> len(fraction_text(Fraction(1, 10**5000)))
    5003
    """
    import sys

    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        return f"{x.numerator}/{x.denominator}"
    finally:
        sys.set_int_max_str_digits(old)


def fraction_from_text(text: str) -> Fraction:
    """The Fraction of an ``"n/d"`` text of any size (the inverse of :func:`fraction_text`).

    >>> fraction_from_text(fraction_text(Fraction(1, 10**5000))) == Fraction(1, 10**5000)
    True
    """
    import sys

    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        return Fraction(str(text))
    finally:
        sys.set_int_max_str_digits(old)


def fraction_digest(x: Fraction, *, significant: int = 6) -> str:
    """A big fraction shortened for tables: ``"n/d"`` itself when it is short, otherwise its value
    as a float, the number of digits of its denominator and the start of the SHA-256 of its full
    ``"n/d"`` text (which tells two answers apart, and checks a full one printed elsewhere).

    >>> fraction_digest(Fraction(118, 377))
    '118/377'
    >>> fraction_digest(Fraction(1, 3**100))
    '1.94033e-48 (48 digits; sha256 02649532560f)'
    """
    import hashlib

    text = fraction_text(x)
    if len(text) <= 24:
        return text
    digest = hashlib.sha256(text.encode()).hexdigest()[:12]
    return f"{float(x):.{significant}g} ({len(text) - text.index('/') - 1} digits; sha256 {digest})"


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


# ---------------------------------------------------------------------------------------------------
# The distribution of the steps to the win


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
    import scipy.sparse as sp

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


# ---------------------------------------------------------------------------------------------------
# Lumping by probabilistic bisimulation


def _mix(x):
    """splitmix64 of a uint64 array (wrapping arithmetic)."""
    x = x.astype(np.uint64)
    with np.errstate(over="ignore"):
        x = (x + np.uint64(0x9E3779B97F4A7C15))
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return x ^ (x >> np.uint64(31))


def _rows_by_block(src, dst_block, count, wins, total, states):
    """Per state: its outcomes aggregated by destination block and reduced by their common gcd (with
    the total and the wins), so that equal probability vectors give equal integer rows.
    Returns ``(ptr, blocks, counts, total_reduced, wins_reduced)``, rows sorted by block."""
    order = np.lexsort((dst_block, src))
    s, b, c = src[order], dst_block[order], count[order]
    if len(s):
        start = np.flatnonzero(np.concatenate([[True], (s[1:] != s[:-1]) | (b[1:] != b[:-1])]))
        s, b, c = s[start], b[start], np.add.reduceat(c, start)
    ptr = np.zeros(states + 1, dtype=np.int64)
    np.add.at(ptr, s + 1, 1)
    ptr = np.cumsum(ptr)
    g = np.gcd(total, wins)
    if len(s):
        nonempty = ptr[1:] > ptr[:-1]
        row_gcd = np.gcd.reduceat(c, ptr[:-1][nonempty])
        g[nonempty] = np.gcd(g[nonempty], row_gcd)
    return ptr, b, c // np.repeat(g, np.diff(ptr)), total // g, wins // g


def lump(chain: CountChain, transient, start: int = 0):
    """The chain lumped by probabilistic bisimulation, every block verified exactly.

    Two transient states are merged when they win with the same probability and move with the same
    probability into every block (signature refinement, hashed); every block is then checked with
    exact integers (each state's outcome counts by block, reduced by their gcd, equal those of the
    block's first state), so a hash collision is caught, never trusted. Returns ``(lumped,
    transient, start, block)``: the lumped :class:`CountChain` (block ``i`` takes the counts of its
    first state; one last block gathers every state that cannot win), its transient mask, the
    start's block, and the block of every state (``-1``: cannot win). Absorption probabilities and
    the distribution of the steps to the win are those of the original chain.
    """
    transient = np.asarray(transient, dtype=bool)
    n = chain.states
    src, dst = np.asarray(chain.src, dtype=np.int64), np.asarray(chain.dst, dtype=np.int64)
    count, wins, total = (np.asarray(x, dtype=np.int64) for x in (chain.count, chain.wins, chain.total))
    block = np.where(transient, 0, -1).astype(np.int64)
    blocks = 1
    while True:
        dead = np.int64(n + 1)  # the block id of "cannot win", beyond every real block
        dst_block = np.where(block[dst] >= 0, block[dst], dead)
        ptr, b, c, t, w = _rows_by_block(src, dst_block, count, wins, total, n)
        entry = _mix(_mix(b.astype(np.uint64)) ^ c.astype(np.uint64))
        with np.errstate(over="ignore"):
            sums = np.zeros(n, dtype=np.uint64)
            np.add.at(sums, np.repeat(np.arange(n), np.diff(ptr)), entry)
            signature = _mix(_mix(_mix(block.astype(np.uint64)) ^ t.astype(np.uint64)) ^ w.astype(np.uint64)) + sums
        signature = np.where(transient, signature, np.uint64(0))
        _, new_block = np.unique(signature[transient], return_inverse=True)
        new = np.full(n, -1, dtype=np.int64)
        new[transient] = new_block.ravel()
        count_new = int(new_block.max()) + 1 if transient.any() else 0
        block = new
        if count_new == blocks:
            break
        blocks = count_new
    # exact verification: every state's reduced row equals its block's first state's
    dst_block = np.where(block[dst] >= 0, block[dst], blocks)
    ptr, b, c, t, w = _rows_by_block(src, dst_block, count, wins, total, n)
    states = np.flatnonzero(transient)
    first = np.full(blocks, -1, dtype=np.int64)
    first[block[states][::-1]] = states[::-1]
    rep = first[block[states]]
    length = np.diff(ptr)
    require(bool(np.all(length[states] == length[rep]) and np.all(t[states] == t[rep])
                 and np.all(w[states] == w[rep])), "a lumped block's states have equal rows")
    lengths = length[states]
    offset = np.arange(int(lengths.sum())) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    mine = np.repeat(ptr[states], lengths) + offset
    theirs = np.repeat(ptr[rep], lengths) + offset
    require(bool(np.all(b[mine] == b[theirs]) and np.all(c[mine] == c[theirs])),
            "a lumped block's states move alike into every block")
    # the lumped chain: block i takes its first state's counts; block ``blocks`` cannot win
    keep = np.isin(src, first)
    lumped_src = np.concatenate([block[src[keep]], [blocks]])
    lumped_dst = np.concatenate([dst_block[keep], [blocks]])
    lumped = CountChain(src=lumped_src, dst=lumped_dst, count=np.concatenate([count[keep], [1]]),
                        wins=np.concatenate([wins[first], [0]]), total=np.concatenate([total[first], [1]]))
    lumped.check()
    mask = np.ones(blocks + 1, dtype=bool)
    mask[blocks] = False
    return lumped, mask, (int(block[start]) if transient[start] else blocks), block


# ---------------------------------------------------------------------------------------------------
# The integer system


@dataclass(frozen=True)
class IntegerSystem:
    """``A`` (CSR, int64) on the transient states renumbered ``0..n-1``, ``wins`` and ``total``
    (``D``), and where the start state went."""

    indptr: np.ndarray
    indices: np.ndarray
    data: np.ndarray
    wins: np.ndarray
    total: np.ndarray
    start: int

    @property
    def size(self) -> int:
        return len(self.total)


def integer_system(chain: CountChain, transient, start: int = 0) -> IntegerSystem:
    """The system ``A = D - C`` on the transient states (see the module docstring)."""
    import scipy.sparse as sp

    transient = np.asarray(transient, dtype=bool)
    states = np.flatnonzero(transient)
    index = np.full(chain.states, -1, dtype=np.int64)
    index[states] = np.arange(len(states))
    src, dst = np.asarray(chain.src, dtype=np.int64), np.asarray(chain.dst, dtype=np.int64)
    keep = transient[src] & transient[dst]
    n = len(states)
    total = np.asarray(chain.total, dtype=np.int64)[states]
    rows = np.concatenate([index[src[keep]], np.arange(n)])
    cols = np.concatenate([index[dst[keep]], np.arange(n)])
    vals = np.concatenate([-np.asarray(chain.count, dtype=np.int64)[keep], total])
    a = sp.csr_matrix((vals, (rows, cols)), shape=(n, n), dtype=np.int64)
    a.sum_duplicates()
    a.eliminate_zeros()
    a.sort_indices()
    return IntegerSystem(indptr=a.indptr.astype(np.int64), indices=a.indices.astype(np.int64),
                         data=a.data.astype(np.int64), wins=np.asarray(chain.wins, dtype=np.int64)[states],
                         total=total, start=int(index[start]))


# ---------------------------------------------------------------------------------------------------
# One factorization modulo a prime


@dataclass
class ModularFactors:
    """``A`` factored modulo ``p``: sparse eliminations (in order), then a dense LU of the core."""

    p: int
    order: np.ndarray  #: eliminated states, in elimination order
    inverse: np.ndarray  #: inverse of each pivot mod p
    l_ptr: np.ndarray
    l_idx: np.ndarray
    l_val: np.ndarray
    u_ptr: np.ndarray
    u_idx: np.ndarray
    u_val: np.ndarray
    core: np.ndarray  #: states of the dense core
    #: the core's LU as centred residues (``|x| <= p/2``, exact in float32 since ``p < 2**24``): unit
    #: lower L below the diagonal, U on and above
    lu: np.ndarray
    perm: np.ndarray  #: row permutation of the core (row i of LU is core row perm[i])
    diagonal_inverse: np.ndarray  #: inverses of U's diagonal mod p


def _sparse_eliminate_reference(system: IntegerSystem, p: int, max_cost: int):
    """Markowitz elimination modulo ``p`` while the cheapest state costs at most ``max_cost``
    (predecessors x successors): the plain reference (Python dicts) of :func:`_markowitz_mod`."""
    n = system.size
    rows: list[dict] = [dict() for _ in range(n)]
    cols: list[set] = [set() for _ in range(n)]
    indptr, indices, data = system.indptr.tolist(), system.indices.tolist(), system.data.tolist()
    for i in range(n):
        row = rows[i]
        for e in range(indptr[i], indptr[i + 1]):
            v = data[e] % p
            if v:
                row[indices[e]] = v
                cols[indices[e]].add(i)
    heap = [((len(cols[u]) - 1) * (len(rows[u]) - 1), u) for u in range(n)]
    heapq.heapify(heap)
    eliminated = [False] * n
    order, inverse, l_ptr, l_idx, l_val, u_ptr, u_idx, u_val = [], [], [0], [], [], [0], [], []
    while heap:
        cost, k = heapq.heappop(heap)
        if eliminated[k]:
            continue
        row_k, col_k = rows[k], cols[k]
        current = (len(col_k) - (k in col_k)) * (len(row_k) - (k in row_k))
        if current > cost:
            heapq.heappush(heap, (current, k))
            continue
        if cost > max_cost:
            break
        pivot = row_k.get(k, 0)
        if not pivot:  # a zero pivot modulo p (rare): leave the state to the dense core
            continue
        eliminated[k] = True
        inv = pow(pivot, -1, p)
        del row_k[k]
        col_k.discard(k)
        for j in row_k:
            cols[j].discard(k)
        for i in col_k:
            row_i = rows[i]
            factor = row_i.pop(k) * inv % p
            l_idx.append(i)
            l_val.append(factor)
            for j, v in row_k.items():
                new = (row_i.get(j, 0) - factor * v) % p
                if new:
                    if j not in row_i:
                        cols[j].add(i)
                    row_i[j] = new
                elif j in row_i:
                    del row_i[j]
                    cols[j].discard(i)
            heapq.heappush(heap, ((len(cols[i]) - (i in cols[i])) * (len(row_i) - (i in row_i)), i))
        order.append(k)
        inverse.append(inv)
        l_ptr.append(len(l_idx))
        u_idx.extend(row_k.keys())
        u_val.extend(row_k.values())
        u_ptr.append(len(u_idx))
        rows[k], cols[k] = {}, set()
    core = [u for u in range(n) if not eliminated[u]]
    return order, inverse, l_ptr, l_idx, l_val, u_ptr, u_idx, u_val, core, rows


@jit
def _inverse_mod(a, p):
    """``a**-1 mod p`` for a prime ``p`` and ``0 < a < p`` (Fermat: ``a**(p - 2)``, square and multiply)."""
    inv = np.int64(1)
    base = np.int64(a)
    e = p - 2
    while e > 0:
        if e & 1:
            inv = inv * base % p
        base = base * base % p
        e >>= 1
    return inv


@jit
def _grown(a, need):
    """``a`` (1-d) with room for at least ``need`` entries (doubled; the old entries copied)."""
    if need <= a.shape[0]:
        return a
    b = np.empty(max(need, 2 * a.shape[0]), dtype=a.dtype)
    b[:a.shape[0]] = a
    return b


@jit
def _heap_push(heap, size, key):
    heap = _grown(heap, size + 1)
    i = size
    while i > 0:
        parent = (i - 1) >> 1
        if heap[parent] <= key:
            break
        heap[i] = heap[parent]
        i = parent
    heap[i] = key
    return heap, size + 1


@jit
def _heap_pop(heap, size):
    """The least key and the new size (``size > 0``)."""
    top = heap[0]
    size -= 1
    last = heap[size]
    i = 0
    while True:
        child = 2 * i + 1
        if child >= size:
            break
        if child + 1 < size and heap[child + 1] < heap[child]:
            child += 1
        if last <= heap[child]:
            break
        heap[i] = heap[child]
        i = child
    if size > 0:
        heap[i] = last
    return top, size


@jit
def _find(rcols, hpool, start, hstart, hbits, i, j):
    """The pool slot of column ``j`` in row ``i`` (its hash table: linear probing), or -1."""
    mask = (1 << hbits[i]) - 1
    h = (j * 2654435761) & mask
    while True:
        e = hpool[hstart[i] + h]
        if e < 0:
            return -1
        if rcols[start[i] + e] == j:
            return start[i] + e
        h = (h + 1) & mask


@jit
def _place(rcols, hpool, start, hstart, hbits, i, j, e):
    """Enter slot ``e`` (relative to the row's start) of column ``j`` in row ``i``'s hash table."""
    mask = (1 << hbits[i]) - 1
    h = (j * 2654435761) & mask
    while hpool[hstart[i] + h] >= 0:
        h = (h + 1) & mask
    hpool[hstart[i] + h] = e


@jit
def _row_room(rows, rcols, rvals, hpool, used, hused, i, need):
    """Row ``i`` rebuilt at the end of the pools with room for ``need`` entries: its cancelled
    (zero) entries dropped, a fresh hash table twice its room. When a pool is full, every row is
    moved (as it is, with its table) into fresh pools twice the live size. ``rows`` holds per row
    its start, slots used, room, nonzeros, table start and table bits. Returns the pools and
    their used sizes."""
    start, length, capacity, hstart, hbits = rows[0], rows[1], rows[2], rows[4], rows[5]
    want = max(need, 2 * rows[3][i] + 4)
    bits = 2
    while (1 << bits) < 2 * want:
        bits += 1
    if used + want > rcols.shape[0] or hused + (1 << bits) > hpool.shape[0]:
        live = 0
        hlive = 0
        for u in range(start.shape[0]):
            live += capacity[u]
            hlive += 1 << hbits[u]
        new_cols = np.empty(2 * (live + want) + 1024, dtype=rcols.dtype)
        new_vals = np.empty(new_cols.shape[0], dtype=rvals.dtype)
        new_hash = np.empty(2 * (hlive + (1 << bits)) + 1024, dtype=hpool.dtype)
        at = 0
        hat = 0
        for u in range(start.shape[0]):
            s, m, c = start[u], length[u], capacity[u]
            new_cols[at:at + m] = rcols[s:s + m]
            new_vals[at:at + m] = rvals[s:s + m]
            start[u] = at
            at += c
            t = 1 << hbits[u]
            new_hash[hat:hat + t] = hpool[hstart[u]:hstart[u] + t]
            hstart[u] = hat
            hat += t
        rcols, rvals, hpool, used, hused = new_cols, new_vals, new_hash, at, hat
    s, m = start[i], length[i]
    kept = 0
    for e in range(s, s + m):
        if rvals[e] != 0:
            rcols[used + kept] = rcols[e]
            rvals[used + kept] = rvals[e]
            kept += 1
    start[i] = used
    length[i] = kept
    capacity[i] = want
    used += want
    hstart[i] = hused
    hbits[i] = bits
    hpool[hused:hused + (1 << bits)] = -1
    hused += 1 << bits
    for e in range(kept):
        _place(rcols, hpool, start, hstart, hbits, i, rcols[start[i] + e], e)
    return rcols, rvals, hpool, used, hused


@jit
def _column_append(cstart, clength, ccapacity, cpool, cused, eliminated, j, i):
    """Append row ``i`` to column ``j``'s list of rows (a superset of the rows holding an entry in
    column ``j``: eliminated rows are dropped when the list is full). Returns ``(cpool, cused)``."""
    if clength[j] == ccapacity[j]:
        s = cstart[j]
        kept = 0
        for e in range(s, s + clength[j]):
            if not eliminated[cpool[e]]:
                cpool[s + kept] = cpool[e]
                kept += 1
        clength[j] = kept
        if kept * 2 > ccapacity[j]:  # still more than half full: move it to the end, twice as large
            want = 2 * ccapacity[j] + 4
            if cused + want > cpool.shape[0]:
                live = 0
                for u in range(cstart.shape[0]):
                    live += clength[u] + 4
                new = np.empty(2 * (live + want) + 1024, dtype=cpool.dtype)
                at = 0
                for u in range(cstart.shape[0]):
                    m = clength[u]
                    new[at:at + m] = cpool[cstart[u]:cstart[u] + m]
                    cstart[u] = at
                    ccapacity[u] = m + 4
                    at += m + 4
                cpool, cused = new, at
            else:
                cpool[cused:cused + kept] = cpool[s:s + kept]
                cstart[j] = cused
                ccapacity[j] = want
                cused += want
    cpool[cstart[j] + clength[j]] = i
    clength[j] += 1
    return cpool, cused


@jit
def _markowitz_mod(indptr, indices, data, p, max_cost):
    """The sparse elimination of :func:`_sparse_eliminate_reference` in numba. Each row is a run of
    (column, residue) slots in a pool with room to grow and a hash table of its columns (so an
    update costs the pivot row's length, not the updated row's); a cancelled entry stays as a zero
    slot until its row is rebuilt. Each column's count of nonzeros is exact, its list of rows lazy
    (an eliminated row, or one whose entry cancelled, is skipped when met)."""
    n = indptr.shape[0] - 1
    rows = np.zeros((6, n), dtype=np.int64)  # start, slots used, room, nonzeros, table start, table bits
    start, length, capacity, count, hstart, hbits = rows[0], rows[1], rows[2], rows[3], rows[4], rows[5]
    ccount = np.zeros(n, dtype=np.int64)
    for i in range(n):
        for e in range(indptr[i], indptr[i + 1]):
            if data[e] % p:
                count[i] += 1
                ccount[indices[e]] += 1
    used = 0
    hused = 0
    for i in range(n):
        start[i] = used
        capacity[i] = count[i] + 2
        used += capacity[i]
        bits = 2
        while (1 << bits) < 2 * capacity[i]:
            bits += 1
        hstart[i] = hused
        hbits[i] = bits
        hused += 1 << bits
    rcols = np.empty(used + 16, dtype=np.int32)  # grown (and compacted) as the fill needs
    rvals = np.empty(rcols.shape[0], dtype=np.int32)
    hpool = np.full(hused + 16, -1, dtype=np.int32)
    for i in range(n):
        for e in range(indptr[i], indptr[i + 1]):
            v = data[e] % p
            if v:
                rcols[start[i] + length[i]] = indices[e]
                rvals[start[i] + length[i]] = v
                _place(rcols, hpool, start, hstart, hbits, i, indices[e], length[i])
                length[i] += 1
    cstart = np.empty(n, dtype=np.int64)
    clength = np.zeros(n, dtype=np.int64)
    ccapacity = np.empty(n, dtype=np.int64)
    cused = 0
    for j in range(n):
        cstart[j] = cused
        ccapacity[j] = ccount[j] + 2
        cused += ccapacity[j]
    cpool = np.empty(cused + 16, dtype=np.int32)
    for i in range(n):
        for e in range(start[i], start[i] + length[i]):
            j = rcols[e]
            cpool[cstart[j] + clength[j]] = i
            clength[j] += 1
    eliminated = np.zeros(n, dtype=np.bool_)
    big = np.int64(n + 1)
    heap = np.empty(n + 16, dtype=np.int64)
    size = 0
    for u in range(n):
        heap, size = _heap_push(heap, size, max(ccount[u] - 1, 0) * max(count[u] - 1, 0) * big + u)
    order = np.empty(n, dtype=np.int64)
    inverse = np.empty(n, dtype=np.int64)
    l_ptr = np.zeros(n + 1, dtype=np.int64)
    u_ptr = np.zeros(n + 1, dtype=np.int64)
    l_idx = np.empty(16 + indptr[n], dtype=np.int64)
    l_val = np.empty(16 + indptr[n], dtype=np.int64)
    u_idx = np.empty(16 + indptr[n], dtype=np.int64)
    u_val = np.empty(16 + indptr[n], dtype=np.int64)
    steps = 0
    nl = 0
    nu = 0
    while size:
        key, size = _heap_pop(heap, size)
        cost, k = key // big, key % big
        if eliminated[k]:
            continue
        at = _find(rcols, hpool, start, hstart, hbits, k, k)
        pivot = np.int64(rvals[at]) if at >= 0 else np.int64(0)
        diagonal = 1 if pivot else 0
        current = (ccount[k] - diagonal) * (count[k] - diagonal)
        if current > cost:
            heap, size = _heap_push(heap, size, current * big + k)
            continue
        if cost > max_cost:
            break
        if pivot == 0:  # a zero pivot modulo p (rare): leave the state to the dense core
            continue
        eliminated[k] = True
        inv = _inverse_mod(pivot, p)
        # the pivot leaves its row (a zero slot); the row's other entries leave their columns' counts
        rvals[at] = 0
        count[k] -= 1
        ccount[k] -= 1
        for e in range(start[k], start[k] + length[k]):
            if rvals[e]:
                ccount[rcols[e]] -= 1
        mk = count[k]
        for c in range(clength[k]):
            i = cpool[cstart[k] + c]
            if eliminated[i]:
                continue
            at = _find(rcols, hpool, start, hstart, hbits, i, k)
            if at < 0 or rvals[at] == 0:  # a stale entry of the list (cancelled, or met twice)
                continue
            factor = np.int64(rvals[at]) * inv % p
            rvals[at] = 0
            count[i] -= 1
            l_idx = _grown(l_idx, nl + 1)
            l_val = _grown(l_val, nl + 1)
            l_idx[nl] = i
            l_val[nl] = factor
            nl += 1
            if length[i] + mk > capacity[i]:
                rcols, rvals, hpool, used, hused = _row_room(rows, rcols, rvals, hpool, used, hused, i,
                                                             count[i] + mk)
            sk = start[k]
            for e in range(sk, sk + length[k]):
                if rvals[e] == 0:
                    continue
                j = rcols[e]
                v = factor * np.int64(rvals[e]) % p
                f = _find(rcols, hpool, start, hstart, hbits, i, j)
                if f >= 0:
                    old = np.int64(rvals[f])
                    new = (old - v) % p
                    rvals[f] = new
                    if old == 0:  # a cancelled slot filled again
                        count[i] += 1
                        ccount[j] += 1
                        cpool, cused = _column_append(cstart, clength, ccapacity, cpool, cused, eliminated, j, i)
                    elif new == 0:
                        count[i] -= 1
                        ccount[j] -= 1
                else:
                    slot = length[i]
                    rcols[start[i] + slot] = j
                    rvals[start[i] + slot] = (p - v) % p
                    _place(rcols, hpool, start, hstart, hbits, i, j, slot)
                    length[i] = slot + 1
                    count[i] += 1
                    ccount[j] += 1
                    cpool, cused = _column_append(cstart, clength, ccapacity, cpool, cused, eliminated, j, i)
            d = _find(rcols, hpool, start, hstart, hbits, i, i)
            diagonal = 1 if d >= 0 and rvals[d] != 0 else 0
            heap, size = _heap_push(heap, size, (ccount[i] - diagonal) * (count[i] - diagonal) * big + i)
        order[steps] = k
        inverse[steps] = inv
        l_ptr[steps + 1] = nl
        u_idx = _grown(u_idx, nu + mk)
        u_val = _grown(u_val, nu + mk)
        for e in range(start[k], start[k] + length[k]):
            if rvals[e]:
                u_idx[nu] = rcols[e]
                u_val[nu] = rvals[e]
                nu += 1
        u_ptr[steps + 1] = nu
        steps += 1
        length[k] = 0
        count[k] = 0
    return (order[:steps].copy(), inverse[:steps].copy(), l_ptr[:steps + 1].copy(), l_idx[:nl].copy(),
            l_val[:nl].copy(), u_ptr[:steps + 1].copy(), u_idx[:nu].copy(), u_val[:nu].copy(), eliminated,
            start, length, rcols, rvals)


@jit
def _core_matrix(core, start, length, rcols, rvals, n):
    """The core's rows as a dense float64 matrix of residues (core states in the given order)."""
    m = core.shape[0]
    place = np.full(n, -1, dtype=np.int64)
    for i in range(m):
        place[core[i]] = i
    dense = np.zeros((m, m), dtype=np.float64)
    for i in range(m):
        u = core[i]
        for e in range(start[u], start[u] + length[u]):
            if rvals[e]:
                dense[i, place[rcols[e]]] = rvals[e]
    return dense


@jit
def _reduce(v, pf, pinv):
    """``v mod p`` for an integer-valued float64 ``|v| < 2**53`` (``pinv = 1 / p``): the near
    quotient's floor, then one correction either way (exact: every term is an integer below 2**53)."""
    r = v - pf * np.floor(v * pinv)
    if r < 0.0:
        r += pf
    elif r >= pf:
        r -= pf
    return r


@jit
def _reduce_block(block, p):
    """Every entry of ``block`` (integer-valued float64, below 2**53 in size) reduced modulo ``p``
    in place."""
    pf = np.float64(p)
    pinv = 1.0 / pf
    for i in range(block.shape[0]):
        row = block[i]
        for c in range(row.shape[0]):
            row[c] = _reduce(row[c], pf, pinv)


@jit
def _panel_lu(a, k0, k1, perm, p):
    """Unblocked LU of columns ``k0:k1`` (rows ``k0:``) of ``a`` (float64 residues), row swaps applied
    to whole rows; returns False if a column has no nonzero pivot (singular modulo p). The updates
    are float64 (``|a - f b| < 2**48``, exact) reduced by :func:`_reduce`."""
    n = a.shape[0]
    pf = np.float64(p)
    pinv = 1.0 / pf
    for j in range(k0, k1):
        r = j
        while r < n and a[r, j] == 0.0:
            r += 1
        if r == n:
            return False
        if r != j:
            for c in range(n):
                t = a[j, c]
                a[j, c] = a[r, c]
                a[r, c] = t
            t2 = perm[j]
            perm[j] = perm[r]
            perm[r] = t2
        inv = _inverse_mod(np.int64(a[j, j]) % p, p)
        pivot_row = a[j, j + 1:k1]
        for i in range(j + 1, n):
            aij = np.int64(a[i, j])
            if aij == 0:
                continue
            factor = aij * inv % p
            a[i, j] = factor
            f = np.float64(factor)
            row = a[i, j + 1:k1]
            for c in range(row.shape[0]):
                row[c] = _reduce(row[c] - f * pivot_row[c], pf, pinv)
    return True


@jit
def _unit_lower_solve_rows(a, k0, k1, p):
    """``a[k0:k1, k1:] = L11^{-1} a[k0:k1, k1:]`` modulo p (L11 unit lower, stored in ``a``)."""
    n = a.shape[0]
    pf = np.float64(p)
    pinv = 1.0 / pf
    for i in range(k0 + 1, k1):
        row = a[i, k1:n]
        for j in range(k0, i):
            f = a[i, j]
            if f == 0.0:
                continue
            other = a[j, k1:n]
            for c in range(row.shape[0]):
                row[c] = _reduce(row[c] - f * other[c], pf, pinv)


def _dense_lu(a: np.ndarray, p: int):
    """LU modulo ``p`` of the float64 residue matrix ``a`` in place: panels in numba, the trailing
    updates in float64 BLAS on centred residues (exact: see :data:`PRIMES`)."""
    n = a.shape[0]
    perm = np.arange(n, dtype=np.int64)
    half = p // 2
    for k0 in range(0, n, PANEL):
        k1 = min(k0 + PANEL, n)
        if not _panel_lu(a, k0, k1, perm, p):
            return None
        if k1 < n:
            _unit_lower_solve_rows(a, k0, k1, p)
            left = a[k1:, k0:k1].copy()
            left[left > half] -= p
            top = a[k0:k1, k1:].copy()
            top[top > half] -= p
            for r0 in range(k1, n, UPDATE_ROWS):  # in row blocks: no temporary as large as the core
                r1 = min(r0 + UPDATE_ROWS, n)
                block = a[r0:r1, k1:]
                block -= left[r0 - k1:r1 - k1] @ top
                _reduce_block(block, p)
    return perm


def _centred(a: np.ndarray, p: int) -> np.ndarray:
    """Residues ``0 <= a < p`` as centred residues ``-p/2 <= a <= p/2`` (a copy)."""
    return np.where(a > p // 2, a - p, a)


def factor_modular(system: IntegerSystem, p: int, *, max_cost: int | None = None,
                   progress=None, reference: bool = False) -> ModularFactors | None:
    """Factor ``A`` modulo ``p``; ``None`` if ``A`` is singular modulo ``p`` (then try another prime).
    ``progress`` (a callable), if given, hears the core's size before the dense LU (``8 core**2``
    bytes: what limits the size of a system)."""
    require(system.size < 2**31, "state numbers fit the int32 of the sparse factors")
    max_cost = SPARSE_COST if max_cost is None else max_cost
    if reference:
        order, inverse, l_ptr, l_idx, l_val, u_ptr, u_idx, u_val, core, rows = _sparse_eliminate_reference(
            system, p, max_cost)
    else:
        (order, inverse, l_ptr, l_idx, l_val, u_ptr, u_idx, u_val, eliminated, start, length, rcols,
         rvals) = _markowitz_mod(system.indptr, system.indices, system.data, p, max_cost)
        core = np.flatnonzero(~eliminated)
    if progress is not None:  # the core's nonzeros are counted only for whoever listens
        if reference:
            core_entries = sum(len(rows[u]) for u in core)
        else:
            core_entries = sum(int(np.count_nonzero(rvals[start[u]:start[u] + length[u]])) for u in core)
        progress({"phase": "sparse part eliminated", "system_size": system.size, "core": len(core),
                  "eliminated": len(order), "l_entries": len(l_idx), "core_entries": core_entries})
    require(len(core) <= MAX_DENSE_CORE, "the dense core is small enough for exact float64 sums")
    m = len(core)
    if reference:
        position = {u: i for i, u in enumerate(core)}
        dense = np.zeros((m, m), dtype=np.float64)
        for i, u in enumerate(core):
            for j, v in rows[u].items():
                dense[i, position[j]] = v
            rows[u] = None  # the dicts of the core go as the dense matrix fills
        del rows
    else:
        dense = _core_matrix(np.asarray(core, dtype=np.int64), start, length, rcols, rvals, system.size)
        del start, length, rcols, rvals
    perm = _dense_lu(dense, p) if m else np.zeros(0, dtype=np.int64)
    if perm is None:
        return None
    diagonal = np.diagonal(dense).tolist()
    lu = np.empty((m, m), dtype=np.float32)
    for r0 in range(0, m, UPDATE_ROWS):  # centred float32, a block of rows at a time
        lu[r0:r0 + UPDATE_ROWS] = _centred(dense[r0:r0 + UPDATE_ROWS], p)
    del dense
    as_array = lambda x: np.asarray(x, dtype=np.int64)  # noqa: E731
    # the sparse factors' indices and residues (below 2**24) as int32: half the bytes a lifting step reads
    as_int32 = lambda x: np.asarray(x, dtype=np.int32)  # noqa: E731
    return ModularFactors(p=p, order=as_array(order), inverse=as_array(inverse), l_ptr=as_array(l_ptr),
                          l_idx=as_int32(l_idx), l_val=as_int32(l_val), u_ptr=as_array(u_ptr),
                          u_idx=as_int32(u_idx), u_val=as_int32(u_val), core=as_array(core),
                          lu=lu, perm=perm, diagonal_inverse=as_array([pow(int(d), -1, p) for d in diagonal]))


#: In the sparse passes of :func:`_solve_mod` a residual is reduced only once it falls below
#: ``-LAZY_LIMIT`` (each term is below ``p**2 < 2**48``, so it never passes ``-2**63``).
LAZY_LIMIT = 1 << 62
#: :func:`_dense_solve_pair` splits each solved unknown ``y`` (centred, ``|y| <= p/2 < 2**23``) as
#: ``y = 2**12 * high + low`` (``|high| <= 2**11``, ``|low| <= 2**11``), so a product with a centred
#: factor (``|x| < 2**23``) is below ``2**34`` and a whole row of at most ``MAX_DENSE_CORE`` of
#: them sums below ``2**52``: every partial sum is an integer that float64 holds exactly, in
#: whatever order the terms are added (which lets LLVM vectorize the dot products).
SPLIT = 4096.0
#: The backward sparse pass sums at most this many products of residues (each below ``p**2 < 2**48``)
#: before it reduces the sum (so it stays below ``2**62``), without a test on every term.
ROW_CHUNK = 1 << 14
MAX_DENSE_CORE = 1 << 18


# ``reassoc`` (and ``contract``: fused multiply-adds) on these dot products only, which lets LLVM
# vectorize them: exact, since every partial sum in any order is an integer below 2**53 (see SPLIT).
@jit(fastmath={"reassoc", "contract"})
def _dot4(row, high0, low0, high1, low1):
    """``row . high0, row . low0, row . high1, row . low1`` (float32 row, float64 vectors)."""
    a0 = b0 = a1 = b1 = 0.0
    for j in range(row.shape[0]):
        x = np.float64(row[j])
        a0 += x * high0[j]
        b0 += x * low0[j]
        a1 += x * high1[j]
        b1 += x * low1[j]
    return a0, b0, a1, b1


# Four rows at a time: the solved unknowns' halves (4 float64 vectors) are read once for four rows
# of the LU, not once a row (the vectors are 8 times the bytes of a float32 row).
@jit(fastmath={"reassoc", "contract"})
def _dot16(r0, r1, r2, r3, high0, low0, high1, low1):
    """:func:`_dot4` of four rows against the same four vectors, in one pass."""
    a00 = b00 = a01 = b01 = a10 = b10 = a11 = b11 = 0.0
    a20 = b20 = a21 = b21 = a30 = b30 = a31 = b31 = 0.0
    for j in range(high0.shape[0]):
        h0, l0, h1, l1 = high0[j], low0[j], high1[j], low1[j]
        x = np.float64(r0[j])
        a00 += x * h0
        b00 += x * l0
        a01 += x * h1
        b01 += x * l1
        x = np.float64(r1[j])
        a10 += x * h0
        b10 += x * l0
        a11 += x * h1
        b11 += x * l1
        x = np.float64(r2[j])
        a20 += x * h0
        b20 += x * l0
        a21 += x * h1
        b21 += x * l1
        x = np.float64(r3[j])
        a30 += x * h0
        b30 += x * l0
        a31 += x * h1
        b31 += x * l1
    return (a00, b00, a01, b01, a10, b10, a11, b11, a20, b20, a21, b21, a30, b30, a31, b31)


@jit
def _settle(i, forward, a0, b0, a1, b1, y0, y1, high0, low0, high1, low1, diagonal_inverse, p):
    """Unknown ``i`` of the triangular solve from its row's dot products (see :func:`_dense_solve_pair`):
    :func:`_settle_one` for each of the two columns."""
    _settle_one(i, forward, a0, b0, y0, high0, low0, diagonal_inverse, p)
    _settle_one(i, forward, a1, b1, y1, high1, low1, diagonal_inverse, p)


@jit
def _dense_solve_pair(lu, y0, y1, diagonal_inverse, p):
    """Solve ``L U y = y`` modulo p for two columns ``y0``, ``y1`` (float64 residues ``0 <= y < p``)
    in place with the core's LU (centred float32, see :class:`ModularFactors`); leaves centred
    residues. Exact: see :data:`SPLIT`; the reductions ``s - p rint(s / p)`` need only *a* near
    quotient, which they get. Rows go four at a time (:func:`_dot16` over the unknowns solved
    before the four, then the few terms within the four), the last ones one at a time."""
    m = lu.shape[0]
    high0, low0 = np.empty(m), np.empty(m)
    high1, low1 = np.empty(m), np.empty(m)
    for forward in (True, False):  # unit lower, then upper
        step = 0
        while step < m:
            if step + 4 <= m:
                # rows i, i +- 1, ...: the unknowns solved before all four are [0, lo) or [hi, m)
                if forward:
                    lo, hi = step, step
                    rows = (step, step + 1, step + 2, step + 3)
                    s = _dot16(lu[rows[0], :lo], lu[rows[1], :lo], lu[rows[2], :lo], lu[rows[3], :lo],
                               high0[:lo], low0[:lo], high1[:lo], low1[:lo])
                else:
                    hi = m - step
                    rows = (hi - 1, hi - 2, hi - 3, hi - 4)
                    s = _dot16(lu[rows[0], hi:], lu[rows[1], hi:], lu[rows[2], hi:], lu[rows[3], hi:],
                               high0[hi:], low0[hi:], high1[hi:], low1[hi:])
                for r in range(4):
                    i = rows[r]
                    a0, b0, a1, b1 = s[4 * r], s[4 * r + 1], s[4 * r + 2], s[4 * r + 3]
                    for q in range(r):  # the unknowns of this block solved before row i
                        j = rows[q]
                        x = np.float64(lu[i, j])
                        a0 += x * high0[j]
                        b0 += x * low0[j]
                        a1 += x * high1[j]
                        b1 += x * low1[j]
                    _settle(i, forward, a0, b0, a1, b1, y0, y1, high0, low0, high1, low1, diagonal_inverse, p)
                step += 4
                continue
            i = step if forward else m - 1 - step
            # the row's slice against the solved unknowns (slices from 0: LLVM does not vectorize
            # numba's ``range(i + 1, m)``)
            if forward:
                a0, b0, a1, b1 = _dot4(lu[i, :i], high0[:i], low0[:i], high1[:i], low1[:i])
            else:
                a0, b0, a1, b1 = _dot4(lu[i, i + 1:], high0[i + 1:], low0[i + 1:], high1[i + 1:], low1[i + 1:])
            _settle(i, forward, a0, b0, a1, b1, y0, y1, high0, low0, high1, low1, diagonal_inverse, p)
            step += 1


@jit
def _floor_divmod(v, p, pinv):
    """``(v // p, v % p)`` for an int64 ``|v| < 2**62 + 2**48`` (``pinv = 1 / p``) without an integer
    division (tens of cycles each, and a lifting step does millions): for the primes of
    :data:`PRIMES` the float64 quotient is within one of the true one (its error is below
    ``2**-12``), and the remainder, computed exactly in int64, corrects it; for a small ``p`` (the
    tests) a quotient further off is corrected by an integer division."""
    q = np.int64(np.floor(np.float64(v) * pinv))
    r = v - q * p
    if r < 0:
        r += p
        q -= 1
    elif r >= p:
        r -= p
        q += 1
    if r < 0 or r >= p:
        d = r // p
        q += d
        r -= d * p
    return q, r


@jit
def _solve_mod(r, p, order, inverse, l_ptr, l_idx, l_val, u_ptr, u_idx, u_val, core, lu, perm, diagonal_inverse):
    """Solve ``A x = r`` modulo p for the two columns of ``r`` (n x 2 int64 residues), in place;
    the solution is left as residues ``0 <= x < p``. Two columns at a time: the lifting solves for
    ``h`` and ``m`` together, and the rows of ``r`` (both columns in one cache line) are the memory
    traffic of the sparse passes. Indices are taken as unsigned (``np.uint64``): numba then adds no
    negative-index wraparound to every access (the sparse passes run 1.4-1.8 times faster)."""
    pinv = 1.0 / np.float64(p)
    one = np.uint64(1)
    for t in range(order.shape[0]):  # forward: the sparse eliminations, reduced lazily
        tt = np.uint64(t)
        k = np.uint64(order[tt])
        x0 = _floor_divmod(r[k, 0], p, pinv)[1]  # final: later pivots never update an eliminated state
        x1 = _floor_divmod(r[k, 1], p, pinv)[1]
        r[k, 0] = x0
        r[k, 1] = x1
        for e in range(np.uint64(l_ptr[tt]), np.uint64(l_ptr[tt + one])):
            ue = np.uint64(e)
            i = np.uint64(l_idx[ue])
            f = np.int64(l_val[ue])
            v0 = r[i, 0] - f * x0
            v1 = r[i, 1] - f * x1
            if v0 < -LAZY_LIMIT:
                v0 %= p
            if v1 < -LAZY_LIMIT:
                v1 %= p
            r[i, 0] = v0
            r[i, 1] = v1
    m = core.shape[0]
    if m:
        y = np.empty((2, m), dtype=np.float64)
        for i in range(m):
            y[0, i] = np.float64(_floor_divmod(r[core[perm[i]], 0], p, pinv)[1])
            y[1, i] = np.float64(_floor_divmod(r[core[perm[i]], 1], p, pinv)[1])
        _dense_solve_pair(lu, y[0], y[1], diagonal_inverse, p)
        for i in range(m):
            r[core[i], 0] = _floor_divmod(np.int64(y[0, i]), p, pinv)[1]
            r[core[i], 1] = _floor_divmod(np.int64(y[1, i]), p, pinv)[1]
    for t in range(order.shape[0] - 1, -1, -1):  # backward: sums of ROW_CHUNK terms, then reduced
        tt = np.uint64(t)
        k = np.uint64(order[tt])
        a0 = _floor_divmod(r[k, 0], p, pinv)[1]
        a1 = _floor_divmod(r[k, 1], p, pinv)[1]
        e1 = np.uint64(u_ptr[tt + one])
        e0 = np.uint64(u_ptr[tt])
        while e0 < e1:
            stop = min(e1, e0 + np.uint64(ROW_CHUNK))
            s0 = np.int64(0)
            s1 = np.int64(0)
            for e in range(e0, stop):
                ue = np.uint64(e)
                j = np.uint64(u_idx[ue])
                f = np.int64(u_val[ue])
                s0 += f * r[j, 0]
                s1 += f * r[j, 1]
            a0 = _floor_divmod(a0 - s0, p, pinv)[1]
            a1 = _floor_divmod(a1 - s1, p, pinv)[1]
            e0 = stop
        r[k, 0] = _floor_divmod(a0 * inverse[tt], p, pinv)[1]
        r[k, 1] = _floor_divmod(a1 * inverse[tt], p, pinv)[1]


@jit(fastmath={"reassoc", "contract"})
def _dot2(row, high, low):
    """``row . high, row . low`` (float32 row, float64 vectors): :func:`_dot4` for one column."""
    a = b = 0.0
    for j in range(row.shape[0]):
        x = np.float64(row[j])
        a += x * high[j]
        b += x * low[j]
    return a, b


# Eight rows at a time for one column: the two vectors (16 bytes per unknown) are read once for
# eight float32 rows (32 bytes); with four rows, reading them took as long as the LU's rows, and a
# solve ran at 14 GB/s instead of the 20 GB/s that streaming the LU allows here.
@jit(fastmath={"reassoc", "contract"})
def _dot8x2(r0, r1, r2, r3, r4, r5, r6, r7, high, low):
    """:func:`_dot2` of eight rows against the same two vectors, in one pass."""
    a0 = b0 = a1 = b1 = a2 = b2 = a3 = b3 = 0.0
    a4 = b4 = a5 = b5 = a6 = b6 = a7 = b7 = 0.0
    for j in range(high.shape[0]):
        h, lo = high[j], low[j]
        x = np.float64(r0[j])
        a0 += x * h
        b0 += x * lo
        x = np.float64(r1[j])
        a1 += x * h
        b1 += x * lo
        x = np.float64(r2[j])
        a2 += x * h
        b2 += x * lo
        x = np.float64(r3[j])
        a3 += x * h
        b3 += x * lo
        x = np.float64(r4[j])
        a4 += x * h
        b4 += x * lo
        x = np.float64(r5[j])
        a5 += x * h
        b5 += x * lo
        x = np.float64(r6[j])
        a6 += x * h
        b6 += x * lo
        x = np.float64(r7[j])
        a7 += x * h
        b7 += x * lo
    return a0, b0, a1, b1, a2, b2, a3, b3, a4, b4, a5, b5, a6, b6, a7, b7


@jit(inline="always")
def _settle_one(i, forward, a, b, y, high, low, diagonal_inverse, p):
    """Unknown ``i`` of a one-column triangular solve from its row's dot products ``a`` (against the
    solved unknowns' high halves) and ``b`` (low halves): reduced, divided by the diagonal on the
    way back, and split again (see :data:`SPLIT`)."""
    pf = np.float64(p)
    half = p // 2
    s = y[i] - (a - pf * np.rint(a / pf)) * SPLIT - b
    if forward:
        y[i] = s - pf * np.rint(s / pf)
    else:
        v = np.int64(s - pf * np.rint(s / pf)) % p * diagonal_inverse[i] % p
        y[i] = np.float64(v - p if v > half else v)
    high[i] = np.rint(y[i] / SPLIT)
    low[i] = y[i] - SPLIT * high[i]


@jit
def _dense_solve_one(lu, y, diagonal_inverse, p):
    """:func:`_dense_solve_pair` for one column ``y`` (the same exact sums), eight rows at a time
    (:func:`_dot8x2`), the last ones one at a time."""
    m = lu.shape[0]
    high, low = np.empty(m), np.empty(m)
    for forward in (True, False):  # unit lower, then upper
        step = 0
        while step < m:
            if step + 8 <= m:
                # rows i, i +- 1, ...: the unknowns solved before all eight are [0, lo) or [hi, m)
                if forward:
                    lo, hi = step, step
                    rows = (step, step + 1, step + 2, step + 3, step + 4, step + 5, step + 6, step + 7)
                    s = _dot8x2(lu[rows[0], :lo], lu[rows[1], :lo], lu[rows[2], :lo], lu[rows[3], :lo],
                                lu[rows[4], :lo], lu[rows[5], :lo], lu[rows[6], :lo], lu[rows[7], :lo],
                                high[:lo], low[:lo])
                else:
                    hi = m - step
                    rows = (hi - 1, hi - 2, hi - 3, hi - 4, hi - 5, hi - 6, hi - 7, hi - 8)
                    s = _dot8x2(lu[rows[0], hi:], lu[rows[1], hi:], lu[rows[2], hi:], lu[rows[3], hi:],
                                lu[rows[4], hi:], lu[rows[5], hi:], lu[rows[6], hi:], lu[rows[7], hi:],
                                high[hi:], low[hi:])
                for r in range(8):
                    i = rows[r]
                    a, b = s[2 * r], s[2 * r + 1]
                    for q in range(r):  # the unknowns of this block solved before row i
                        j = rows[q]
                        x = np.float64(lu[i, j])
                        a += x * high[j]
                        b += x * low[j]
                    _settle_one(i, forward, a, b, y, high, low, diagonal_inverse, p)
                step += 8
                continue
            i = step if forward else m - 1 - step
            if forward:
                a, b = _dot2(lu[i, :i], high[:i], low[:i])
            else:
                a, b = _dot2(lu[i, i + 1:], high[i + 1:], low[i + 1:])
            _settle_one(i, forward, a, b, y, high, low, diagonal_inverse, p)
            step += 1


@jit
def _solve_mod_one(r, p, order, inverse, l_ptr, l_idx, l_val, u_ptr, u_idx, u_val, core, lu, perm,
                   diagonal_inverse):
    """:func:`_solve_mod` for one column ``r`` (an int64 vector of residues), in place: what the
    lifting does once the ``h`` system is solved exactly (its residual zero), half the memory
    traffic and the products of the sparse passes."""
    pinv = 1.0 / np.float64(p)
    one = np.uint64(1)
    for t in range(order.shape[0]):  # forward: the sparse eliminations, reduced lazily
        tt = np.uint64(t)
        k = np.uint64(order[tt])
        x = _floor_divmod(r[k], p, pinv)[1]
        r[k] = x
        for e in range(np.uint64(l_ptr[tt]), np.uint64(l_ptr[tt + one])):
            ue = np.uint64(e)
            i = np.uint64(l_idx[ue])
            v = r[i] - np.int64(l_val[ue]) * x
            if v < -LAZY_LIMIT:
                v %= p
            r[i] = v
    m = core.shape[0]
    if m:
        y = np.empty(m, dtype=np.float64)
        for i in range(m):
            y[i] = np.float64(_floor_divmod(r[core[perm[i]]], p, pinv)[1])
        _dense_solve_one(lu, y, diagonal_inverse, p)
        for i in range(m):
            r[core[i]] = _floor_divmod(np.int64(y[i]), p, pinv)[1]
    for t in range(order.shape[0] - 1, -1, -1):  # backward: sums of ROW_CHUNK terms, then reduced
        tt = np.uint64(t)
        k = np.uint64(order[tt])
        a = _floor_divmod(r[k], p, pinv)[1]
        e1 = np.uint64(u_ptr[tt + one])
        e0 = np.uint64(u_ptr[tt])
        while e0 < e1:
            stop = min(e1, e0 + np.uint64(ROW_CHUNK))
            acc = np.int64(0)
            for e in range(e0, stop):
                ue = np.uint64(e)
                acc += np.int64(u_val[ue]) * r[np.uint64(u_idx[ue])]
            a = _floor_divmod(a - acc, p, pinv)[1]
            e0 = stop
        r[k] = _floor_divmod(a * inverse[tt], p, pinv)[1]


def solve_modular(factors: ModularFactors, rhs: np.ndarray) -> np.ndarray:
    """``A^{-1} rhs`` modulo ``factors.p`` (``rhs``: integer vector or n x c matrix)."""
    r = np.asarray(rhs, dtype=np.int64)
    vector = r.ndim == 1
    r = np.mod(r.reshape(len(r), -1), factors.p).astype(np.int64)
    f = factors
    out = np.empty_like(r)
    for c in range(0, r.shape[1], 2):  # two columns at a time (a zero column for an odd count)
        pair = np.zeros((len(r), 2), dtype=np.int64)
        pair[:, :min(2, r.shape[1] - c)] = r[:, c:c + 2]
        _solve_mod(pair, f.p, f.order, f.inverse, f.l_ptr, f.l_idx, f.l_val, f.u_ptr, f.u_idx, f.u_val, f.core,
                   f.lu, f.perm, f.diagonal_inverse)
        out[:, c:c + 2] = pair[:, :min(2, r.shape[1] - c)]
    return out[:, 0] if vector else out


@jit
def _lift_pair(indptr, indices, data, total, r_h, r_m, x, p, rhs):
    """One Dixon step of both systems in one pass over ``A``, in place: the ``m`` step of the last
    digit ``x_m = x[:, 1]`` and the ``h`` step of the new digit ``x_h = x[:, 0]`` (each row's update
    reads only ``x``, both digits of a state in one cache line), then the next right-hand sides:
    ``r_m = (r_m - A x_m) / p``, ``r_h = (r_h - A x_h) / p``, ``r_m += D x_h``,
    ``rhs = (r_h, r_m) mod p``. False if a residual is not divisible by p (a bug)."""
    ok = True
    pinv = 1.0 / np.float64(p)
    for i in range(r_h.shape[0]):
        ui = np.uint64(i)
        acc_h = 0
        acc_m = 0
        for e in range(np.uint64(indptr[ui]), np.uint64(indptr[ui + np.uint64(1)])):
            ue = np.uint64(e)
            a = np.int64(data[ue])
            j = np.uint64(indices[ue])
            acc_h += a * x[j, 0]
            acc_m += a * x[j, 1]
        v_m = r_m[ui] - acc_m
        v_h = r_h[ui] - acc_h
        q_h, rest_h = _floor_divmod(v_h, p, pinv)
        q_m, rest_m = _floor_divmod(v_m, p, pinv)
        if rest_h != 0 or rest_m != 0:
            ok = False
        r_h[ui] = q_h
        r_m[ui] = q_m + total[ui] * x[ui, 0]
        rhs[ui, 0] = _floor_divmod(r_h[ui], p, pinv)[1]
        rhs[ui, 1] = _floor_divmod(r_m[ui], p, pinv)[1]
    return ok


@jit
def _lift_one(indptr, indices, data, r, x, p, rhs):
    """One Dixon step of one system in one pass over ``A``, in place: ``r = (r - A x) / p``,
    ``rhs = r mod p``. False if a residual is not divisible by p (a bug)."""
    ok = True
    pinv = 1.0 / np.float64(p)
    for i in range(r.shape[0]):
        ui = np.uint64(i)
        acc = 0
        for e in range(np.uint64(indptr[ui]), np.uint64(indptr[ui + np.uint64(1)])):
            ue = np.uint64(e)
            acc += np.int64(data[ue]) * x[np.uint64(indices[ue])]
        q, rest = _floor_divmod(r[ui] - acc, p, pinv)
        if rest != 0:
            ok = False
        r[ui] = q
        rhs[ui] = _floor_divmod(q, p, pinv)[1]
    return ok


def _in_elimination_order(system: IntegerSystem, factors: ModularFactors):
    """The system and its factors with the states renumbered in elimination order (the core last,
    in its order): the same solutions, permuted. A lifting step's sparse passes then touch nearby
    rows (3x4 ``step7=off``: a solve 84 -> 70 ms)."""
    import scipy.sparse as sp

    n = system.size
    old = np.concatenate([factors.order, factors.core]).astype(np.int64)  # old state of each new number
    new = np.empty(n, dtype=np.int64)
    new[old] = np.arange(n)
    a = sp.csr_matrix((system.data, system.indices, system.indptr), shape=(n, n))[old][:, old].tocsr()
    a.sort_indices()
    renumbered = IntegerSystem(indptr=a.indptr.astype(np.int64), indices=a.indices.astype(np.int64),
                               data=a.data.astype(np.int64), wins=system.wins[old], total=system.total[old],
                               start=int(new[system.start]))
    f = factors
    eliminated = len(f.order)
    return renumbered, ModularFactors(
        p=f.p, order=np.arange(eliminated, dtype=np.int64), inverse=f.inverse, l_ptr=f.l_ptr,
        l_idx=new[f.l_idx].astype(np.int32), l_val=f.l_val, u_ptr=f.u_ptr, u_idx=new[f.u_idx].astype(np.int32),
        u_val=f.u_val, core=np.arange(eliminated, n, dtype=np.int64), lu=f.lu, perm=f.perm,
        diagonal_inverse=f.diagonal_inverse)


def _lehmer_batch(r0: int, r1: int):
    """The cofactor matrix ``(A, B, C, D)`` of the first Euclid steps on ``(r0, r1)`` (``r0 > r1 > 0``)
    whose quotients the leading 62 bits decide (Knuth's Algorithm L: a step is taken only when the
    quotients of both bracketing pairs agree, so every one is the true quotient), or None when
    not even one step is decided that way. Then ``(A r0 + B r1, C r0 + D r1)`` are the remainders
    a few steps on."""
    shift = max(r0.bit_length() - 62, 0)
    a, b = r0 >> shift, r1 >> shift
    A, B, C, D = 1, 0, 0, 1
    while b + C != 0 and b + D != 0:
        q = (a + A) // (b + C)
        if q != (a + B) // (b + D):
            break
        A, C = C, A - q * C
        B, D = D, B - q * D
        a, b = b, a - q * b
    return None if B == 0 else (A, B, C, D)


def rational_reconstruction(u: int, modulus: int, denominator_bound: int | None = None, *, reference: bool = False):
    """The fraction ``a/b`` with ``a = b u (mod modulus)``, ``0 < b <= D`` and ``|a| <= N``, where
    ``2 N D < modulus``, or None. By default ``N = D = sqrt(modulus / 2)``; a small
    ``denominator_bound`` ``D`` (a denominator known up to a small factor) leaves ``N`` the rest,
    so that about half the digits suffice. The answer is unique when it exists.

    The extended Euclid steps are taken in batches decided by the leading 62 bits
    (:func:`_lehmer_batch`: one pass over the big numbers for some 18 steps; 3x4 ``step7=off``'s
    85,000-digit moduli about 5 times faster), a batch kept only when its last remainder is still
    above ``N`` (the remainders decrease, so none before it was at most ``N``), the last steps one
    at a time; ``reference=True`` takes every step one at a time (the plain algorithm)."""
    if denominator_bound is None:
        bound = den_bound = math.isqrt(modulus // 2)
    else:
        den_bound = denominator_bound
        bound = (modulus - 1) // (2 * den_bound)
    r0, r1 = modulus, u % modulus
    t0, t1 = 0, 1
    while r1 > bound:
        batch = None if reference or r1.bit_length() < 256 else _lehmer_batch(r0, r1)
        if batch is not None:
            A, B, C, D = batch
            n0, n1 = A * r0 + B * r1, C * r0 + D * r1
            if n1 > bound:
                r0, r1 = n0, n1
                t0, t1 = A * t0 + B * t1, C * t0 + D * t1
                continue
        q = r0 // r1
        r0, r1 = r1, r0 - q * r1
        t0, t1 = t1, t0 - q * t1
    if t1 == 0 or abs(t1) > den_bound or math.gcd(r1, t1) != 1:
        return None
    return Fraction(r1, t1)


#: With P(win) = a/d known, E[T 1_win] d**2 is reconstructed with a denominator of at most this
#: (its denominator divides det(A)**2, nearly always d**2 already): half the digits of a balanced
#: reconstruction. A balanced one is tried too, so a larger denominator is found all the same.
KNOWN_DENOMINATOR_SLACK = 1 << 64


class _Digits:
    """The p-adic expansion of one unknown, as a Python int, with a candidate fraction."""

    def __init__(self, p: int):
        self.p, self.value, self.power, self.steps = p, 0, 1, 0
        self.pending: list = []
        self.candidate: Fraction | None = None
        self.found_at = 0

    def push(self, digit: int) -> None:
        self.pending.append(int(digit))

    def flush(self) -> None:
        if not self.pending:
            return
        chunk = 0
        for d in reversed(self.pending):
            chunk = chunk * self.p + d
        self.value += chunk * self.power
        self.power *= self.p ** len(self.pending)
        self.steps += len(self.pending)
        self.pending = []

    def agrees(self, fraction: Fraction) -> bool:
        return (fraction.denominator * self.value - fraction.numerator) % self.power == 0


def absorb_modular(chain: CountChain, transient, start: int = 0, *, prove: bool = False,
                   margin_digits: int = 200, stats: dict | None = None, progress=None):
    """``(h[start], m[start])`` = ``(P(win), E[T 1_win])`` exactly, by one modular factorization and
    p-adic lifting (see the module docstring). ``stats`` (a dict), if given, receives the unknowns,
    the core size, the lifting steps and the digits of the answers; ``progress`` (a callable), if
    given, is called with a dict of what is known so far after the factorization and at every
    reconstruction attempt (what a run cut short by a time limit got to).

    Agrees exactly with :func:`absorb_fractions` (tested on every Hand Solitaire deck up to 10 cards).
    """
    import time

    transient = np.asarray(transient, dtype=bool)
    if not transient[start]:
        return Fraction(0), Fraction(0)
    t0 = time.process_time()
    system = integer_system(chain, transient, start)
    primes = iter(PRIMES)
    factors = None
    while factors is None:
        p = next(primes, None)
        require(p is not None, "the system is singular modulo every prime tried")
        factors = factor_modular(system, p, progress=progress)
    t_factor = time.process_time() - t0
    if progress is not None:
        progress({"phase": "factored", "system_size": system.size, "core": len(factors.core),
                  "eliminated": len(factors.order), "l_entries": len(factors.l_idx), "factor_cpu_seconds": t_factor})
    system, factors = _in_elimination_order(system, factors)
    p, n, s = factors.p, system.size, system.start
    f = factors
    solve = lambda r: _solve_mod(r, p, f.order, f.inverse, f.l_ptr, f.l_idx, f.l_val, f.u_ptr, f.u_idx,  # noqa: E731
                                 f.u_val, f.core, f.lu, f.perm, f.diagonal_inverse)
    solve_one = lambda r: _solve_mod_one(r, p, f.order, f.inverse, f.l_ptr, f.l_idx, f.l_val, f.u_ptr,  # noqa: E731
                                         f.u_idx, f.u_val, f.core, f.lu, f.perm, f.diagonal_inverse)
    # The m system lags one step behind: its right-hand side D h needs the h digit of the same step,
    # so one solve with two columns gives the next h digit and the current m digit together.
    r_h = system.wins.copy()
    r_m = np.zeros(n, dtype=np.int64)
    x = np.zeros((n, 2), dtype=np.int64)  # the digits (x_h, x_m) of a step
    x[:, 0] = solve_modular(factors, r_h)
    # A's indices and counts as int32 when they fit (half the bytes a step streams; the products are
    # taken in int64 all the same)
    small = len(system.data) == 0 or int(np.abs(system.data).max()) < 2**31
    indices = system.indices.astype(np.int32) if small else system.indices
    data = system.data.astype(np.int32) if small else system.data
    rhs = np.empty((n, 2), dtype=np.int64)
    digits_h, digits_m = _Digits(p), _Digits(p)
    margin_steps = max(4, math.ceil(margin_digits / math.log10(p)))
    steps, next_check, t_reconstruct = 0, 16, 0.0
    accepted_h = accepted_m = None
    # x_m = 0 before the first step: r_m is unchanged by it, so every step is one fused pass
    x_m = r_one = None
    while accepted_h is None or accepted_m is None:
        if x_m is None:
            require(_lift_pair(system.indptr, indices, data, system.total, r_h, r_m, x, p, rhs),
                    "a Dixon residual is divisible by p")
            solve(rhs)
            digits_h.push(x[s, 0])
            digits_m.push(rhs[s, 1])
            x[:] = rhs
            if not r_h.any():
                # h is solved exactly (an integer vector, e.g. P(win) = 1 everywhere): every later h
                # digit is 0 and adds nothing to m's right-hand side, so m is lifted alone, one column
                x_m, r_one = np.ascontiguousarray(x[:, 1]), np.empty(n, dtype=np.int64)
                del x, rhs
                if stats is not None:
                    stats["one_column_from_step"] = steps + 1
        else:
            require(_lift_one(system.indptr, indices, data, r_m, x_m, p, r_one), "a Dixon residual is divisible by p")
            solve_one(r_one)
            digits_h.push(0)
            digits_m.push(r_one[s])
            x_m, r_one = r_one, x_m
        steps += 1
        if steps >= next_check:
            next_check = steps + max(16, steps // 32)
            for digits, which in ((digits_h, "h"), (digits_m, "m")):
                if (accepted_h if which == "h" else accepted_m) is not None:
                    continue
                digits.flush()
                if digits.candidate is not None and digits.agrees(digits.candidate):
                    if digits.steps - digits.found_at >= margin_steps:
                        if which == "h":
                            accepted_h = digits.candidate
                        else:
                            accepted_m = digits.candidate
                    continue
                t_start = time.process_time()
                digits.candidate = rational_reconstruction(digits.value, digits.power)
                if digits.candidate is None and which == "m" and accepted_h is not None:
                    # m's denominator divides det(A)**2: try p_win's denominator squared, times a little
                    square = accepted_h.denominator ** 2
                    scaled = rational_reconstruction(digits.value * square % digits.power, digits.power,
                                                     KNOWN_DENOMINATOR_SLACK)
                    digits.candidate = None if scaled is None else scaled / square
                digits.found_at = digits.steps
                t_reconstruct += time.process_time() - t_start
            if progress is not None:
                progress({"phase": "lifting", "steps": steps, "digits": int(steps * math.log10(p)),
                          "p_win_found": accepted_h is not None, "lift_cpu_seconds": time.process_time() - t0 - t_factor})
            # a candidate is accepted as soon as the margin has passed, not at the next regular check
            pending = [d.found_at + margin_steps for d, accepted in ((digits_h, accepted_h), (digits_m, accepted_m))
                       if accepted is None and d.candidate is not None]
            if pending:
                next_check = min(next_check, max(steps + 1, min(pending)))
    t_lift = time.process_time() - t0 - t_factor
    core, eliminated = len(factors.core), len(factors.order)
    del factors, f, solve, solve_one  # the first factorization is done with: the second one needs the memory
    # a second prime, a fresh factorization: the answers must satisfy the system modulo q too
    for q in PRIMES:
        if q == p or accepted_h.denominator % q == 0 or accepted_m.denominator % q == 0:
            continue
        second = factor_modular(system, q)
        if second is None:
            continue
        h_q = solve_modular(second, system.wins)
        m_q = solve_modular(second, system.total * h_q % q)
        require(h_q[s] == accepted_h.numerator * pow(accepted_h.denominator, -1, q) % q,
                "P(win) checked modulo a second prime")
        require(m_q[s] == accepted_m.numerator * pow(accepted_m.denominator, -1, q) % q,
                "E[T 1_win] checked modulo a second prime")
        break
    else:
        require(False, "no second prime to check the answer with")
    if prove:
        _prove(chain, transient, start, accepted_h, accepted_m)
    if stats is not None:
        stats.update(system_size=n, core=core, eliminated=eliminated, prime=p, steps=steps,
                     digits_p_win=len(fraction_text(accepted_h).split("/")[1]),
                     digits_m=len(fraction_text(accepted_m).split("/")[1]), factor_cpu_seconds=t_factor,
                     lift_cpu_seconds=t_lift, reconstruct_cpu_seconds=t_reconstruct,
                     check_cpu_seconds=time.process_time() - t0 - t_factor - t_lift)
    return accepted_h, accepted_m


def _prove(chain, transient, start, h_start, m_start):
    """Check ``A h = wins`` and ``A m = D h`` over the integers for the whole solution vectors (found
    by :func:`solve_vector`); their start entries must be the accepted answers."""
    h, m = solve_vector(chain, transient)
    index = int(np.flatnonzero(np.flatnonzero(transient) == start)[0])
    require(h[index] == h_start and m[index] == m_start, "the proof is of the answer given")


def _lift_vector(system: IntegerSystem, factors: ModularFactors, rhs: list) -> list:
    """The exact solution of ``A x = rhs`` (Python ints), every entry lifted p-adically; returned
    only once ``A x = rhs`` holds over the integers (the check that makes it a proof)."""
    p, n = factors.p, system.size
    indptr, indices, data = system.indptr.tolist(), system.indices.tolist(), system.data.tolist()

    def times_a(x):
        return [sum(data[e] * x[indices[e]] for e in range(indptr[i], indptr[i + 1])) for i in range(n)]

    r = list(rhs)
    value, power, steps = [0] * n, 1, 0
    while True:
        steps += 1
        xs = solve_modular(factors, np.array([v % p for v in r], dtype=np.int64)).tolist()
        value = [v + d * power for v, d in zip(value, xs)]
        power *= p
        r = [(a - b) // p for a, b in zip(r, times_a(xs))]
        if steps % 8:
            continue
        denominator, numerators, bound = 1, [], math.isqrt(power // 2)
        for v in value:
            scaled = v * denominator % power
            scaled = scaled - power if scaled > power // 2 else scaled
            if abs(scaled) > bound:  # not small yet: this entry needs more denominator
                f = rational_reconstruction(v * denominator, power)
                if f is None:
                    break
                denominator *= f.denominator
                scaled = v * denominator % power
                scaled = scaled - power if scaled > power // 2 else scaled
                numerators = [x * f.denominator for x in numerators]
            numerators.append(scaled)
        else:
            if times_a(numerators) == [denominator * b for b in rhs]:
                return [Fraction(x, denominator) for x in numerators]


def solve_vector(chain: CountChain, transient):
    """The whole vectors ``h`` and ``m`` (lists of Fractions, transient states in increasing order),
    each checked over the integers: ``A h = wins`` and ``A m = D h``. Slow (every entry is lifted);
    used by ``prove=True``."""
    transient = np.asarray(transient, dtype=bool)
    system = integer_system(chain, transient, int(np.flatnonzero(transient)[0]))
    factors = None
    for p in PRIMES:
        factors = factor_modular(system, p)
        if factors is not None:
            break
    require(factors is not None, "the system is singular modulo every prime tried")
    h = _lift_vector(system, factors, [int(w) for w in system.wins])
    den = math.lcm(*(f.denominator for f in h))
    total = [int(t) for t in system.total]
    m_scaled = _lift_vector(system, factors, [t * (x * den).numerator for t, x in zip(total, h)])
    return h, [x / den for x in m_scaled]
