"""numba kernels for the whole-deck Hand Solitaire class graph (:mod:`exact.hand.graph`).

A class is its **prefix** (the reversed discards): its members are the prefix followed by any order
of the cards not in it (with ``reshuffle=off`` a class is one order, prefix and leftover sequence).
Classes are stored as ``int64`` keys, digits ``card + 1`` in base ``n + 1``, position 0 least
significant:

* unordered (``reshuffle=on``): the digits of the prefix; key ``0`` is the start class (empty prefix,
  every order);
* ordered (``reshuffle=off``): the digits of the whole order times ``n + 1`` plus the prefix length
  (never 0, since the order holds every card); key ``0`` is again the start class.

In **canonical** mode the prefix (ordered: the whole order) is relabelled by first appearance of suits
and of ranks, so that one key stands for a whole orbit under ``Sym(suits) x Sym(ranks)``, and a
class's members are enumerated one per orbit of its stabiliser (the suits and ranks absent from the
prefix appear in increasing order of first appearance in the rest), each standing for
``(S - a)! (R - b)!`` members (``a`` suits and ``b`` ranks used by the prefix). In **raw** mode keys are
real classes and every member is played once (used to expand one real poison set).

The rules are those of :mod:`sim.kernels.hand` (its ``iteration_kernel``), which the tests compare with the
reference rules :mod:`sim.rules.hand`; the tests compare this module's graph with a brute-force state
graph built from the reference rules.
"""
from __future__ import annotations

import numpy as np

from sim._jit import jit
from sim.kernels.hand import iteration_kernel

#: Largest deck whose keys fit in an int64: ``(n + 1) ** (n + 1) < 2 ** 63`` up to 14 cards.
MAX_KEY_CARDS = 14


@jit(inline="always")
def _encode(seq, m, base):
    key = 0
    for i in range(m - 1, -1, -1):
        key = key * base + seq[i] + 1
    return key


@jit(inline="always")
def _relabel(seq, m, out, suit, rank, ranks, suit_map, rank_map):
    """Write ``seq[:m]`` relabelled by first appearance of suits and ranks into ``out[:m]``."""
    suit_map[:] = -1
    rank_map[:] = -1
    next_suit = 0
    next_rank = 0
    for i in range(m):
        c = seq[i]
        s = suit[c]
        r = rank[c]
        if suit_map[s] < 0:
            suit_map[s] = next_suit
            next_suit += 1
        if rank_map[r] < 0:
            rank_map[r] = next_rank
            next_rank += 1
        out[i] = suit_map[s] * ranks + rank_map[r]


@jit
def class_layout(key, n, ordered, order):
    """Decode ``key`` into ``order``: returns ``(prefix_length, fixed)``, where ``order[:fixed]`` is
    fixed by the class and the members are ``order[:fixed]`` followed by orders of the rest."""
    base = n + 1
    if key == 0:
        return 0, 0
    if ordered:
        prefix_length = key % base
        key //= base
        for i in range(n):
            order[i] = key % base - 1
            key //= base
        return prefix_length, n
    m = 0
    while key > 0:
        order[m] = key % base - 1
        key //= base
        m += 1
    return m, m


@jit
def member_counts(keys, n, suits, ranks, suit, rank, ordered, canonical):
    """Members played per class (one per stabiliser orbit in canonical mode)."""
    factorial = np.ones(n + 1, dtype=np.int64)
    for i in range(1, n + 1):
        factorial[i] = factorial[i - 1] * i
    order = np.empty(n, dtype=np.int64)
    out = np.empty(keys.shape[0], dtype=np.int64)
    for j in range(keys.shape[0]):
        _, fixed = class_layout(keys[j], n, ordered, order)
        if not canonical:
            out[j] = factorial[n - fixed]
            continue
        used_suits = 0
        used_ranks = 0
        for i in range(fixed):
            used_suits = max(used_suits, suit[order[i]] + 1)
            used_ranks = max(used_ranks, rank[order[i]] + 1)
        out[j] = factorial[n - fixed] // (factorial[suits - used_suits] * factorial[ranks - used_ranks])
    return out


@jit
def expand_classes(keys, table, first_new_id, n, suits, ranks, suit, rank, step7, rank_resets, ordered,
                   canonical, capacity):
    """Play every member of each class in ``keys``; successor classes get ids from ``table``.

    ``table`` (a numba typed dict key -> id) is extended with the successors met for the first time;
    their ids count up from ``first_new_id`` and their keys are returned in ``new_keys``.
    ``capacity`` bounds the members of the batch. Returns ``(edge_src, edge_dst, edge_count, wins,
    weight, new_keys)``: per class (index into ``keys``) the distinct successor ids with the number of
    members going there, and the winning members, both in stabiliser-orbit units (multiply by
    ``weight`` for deck orders).
    """
    base = n + 1
    order = np.empty(n, dtype=np.int64)
    relabelled = np.empty(n, dtype=np.int64)
    seq = np.empty(n, dtype=np.int64)
    buf = np.empty(4 * n + 16, dtype=np.int64)
    disc = np.empty(n, dtype=np.int64)
    suit_map = np.empty(suits, dtype=np.int64)
    rank_map = np.empty(ranks, dtype=np.int64)
    factorial = np.ones(n + 1, dtype=np.int64)
    for i in range(1, n + 1):
        factorial[i] = factorial[i - 1] * i
    classes = keys.shape[0]
    edge_src = np.empty(capacity, dtype=np.int64)
    edge_dst = np.empty(capacity, dtype=np.int64)
    edge_count = np.empty(capacity, dtype=np.int64)
    wins = np.zeros(classes, dtype=np.int64)
    weight = np.ones(classes, dtype=np.int64)
    new_keys = np.empty(capacity, dtype=np.int64)
    n_new = 0
    n_edges = 0
    successors = np.empty(capacity, dtype=np.int64)
    # depth-first enumeration state, per position
    candidate = np.empty(n + 1, dtype=np.int64)
    max_suit = np.empty(n + 1, dtype=np.int64)
    max_rank = np.empty(n + 1, dtype=np.int64)
    used = np.zeros(n, dtype=np.bool_)
    for j in range(classes):
        _, fixed = class_layout(keys[j], n, ordered, order)
        used[:] = False
        top_suit = -1
        top_rank = -1
        for i in range(fixed):
            used[order[i]] = True
            top_suit = max(top_suit, suit[order[i]])
            top_rank = max(top_rank, rank[order[i]])
        if not canonical:
            top_suit = suits - 1
            top_rank = ranks - 1
        weight[j] = factorial[suits - 1 - top_suit] * factorial[ranks - 1 - top_rank]
        m = 0  # successors of this class's members (non-winning)
        depth = fixed
        candidate[depth] = 0
        max_suit[depth] = top_suit
        max_rank[depth] = top_rank
        while depth >= fixed:
            if depth == n:
                base_, top_, nd = iteration_kernel(order, n, buf, disc, suit, rank, step7, rank_resets)
                k = top_ - base_
                if k == 0:
                    wins[j] += 1
                else:
                    for i in range(nd):
                        seq[i] = disc[nd - 1 - i]
                    if ordered:
                        for i in range(k):
                            seq[nd + i] = buf[top_ - 1 - i]
                        if canonical:
                            _relabel(seq, n, relabelled, suit, rank, ranks, suit_map, rank_map)
                            key = _encode(relabelled, n, base) * base + nd
                        else:
                            key = _encode(seq, n, base) * base + nd
                    elif canonical:
                        _relabel(seq, nd, relabelled, suit, rank, ranks, suit_map, rank_map)
                        key = _encode(relabelled, nd, base)
                    else:
                        key = _encode(seq, nd, base)
                    sid = table.get(key, -1)
                    if sid < 0:
                        sid = first_new_id + n_new
                        table[key] = sid
                        new_keys[n_new] = key
                        n_new += 1
                    successors[m] = sid
                    m += 1
                depth -= 1
                if depth >= fixed:
                    used[order[depth]] = False
                continue
            # next candidate card for position ``depth``
            c = candidate[depth]
            while c < n and (used[c] or suit[c] > max_suit[depth] + 1 or rank[c] > max_rank[depth] + 1):
                c += 1
            if c == n:
                depth -= 1
                if depth >= fixed:
                    used[order[depth]] = False
                continue
            candidate[depth] = c + 1
            order[depth] = c
            used[c] = True
            max_suit[depth + 1] = max(max_suit[depth], suit[c])
            max_rank[depth + 1] = max(max_rank[depth], rank[c])
            depth += 1
            candidate[depth] = 0
        # distinct successors with multiplicities
        s = np.sort(successors[:m])
        i = 0
        while i < m:
            e = i
            while e < m and s[e] == s[i]:
                e += 1
            edge_src[n_edges] = j
            edge_dst[n_edges] = s[i]
            edge_count[n_edges] = e - i
            n_edges += 1
            i = e
    return edge_src[:n_edges], edge_dst[:n_edges], edge_count[:n_edges], wins, weight, new_keys[:n_new]
