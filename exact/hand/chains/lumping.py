"""Lumping by probabilistic bisimulation (signature refinement), every block verified exactly."""
from __future__ import annotations

import numpy as np

from exact.hand.chains.chain import CountChain
from exact.invariants import require


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
