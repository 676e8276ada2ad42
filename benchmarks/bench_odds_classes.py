"""How far relabelling can shrink the phase engine's tables (One-Handed, the exact odds from a
position): the measurement behind "Cost" in ``exact.one_handed.odds_phase``.

    .venv/bin/python benchmarks/bench_odds_classes.py [--left 12,14] [--positions 1] [--seed 1]
        [--family ccc|rab] [--depths N]

A phase table entry, window ``W`` over a set ``X`` of cards to come, depends on the cards only through
their matches (equal suits, equal ranks) within ``W`` and ``X``: a relabelling of suits and of ranks
that maps ``W`` onto ``W'`` card by card and ``X`` onto ``X'`` maps the entry of ``(W, X)`` onto that
of ``(W', X')``. The engine shares entries only under the relabellings of the *whole* set of cards to
come ``U`` (its automorphisms, usually a handful); this counts the classes of the pairs under *any*
relabelling of ``W u X`` alone (a local isomorphism), which bounds what any sharing of entries by
relabelling could save. For the ``--positions`` positions of ``benchmarks/bench_odds.py`` (the same
seed and index) and each number ``k`` of cards left it enumerates every pair of one family of windows:

* ``ccc``: the windows ``(a, b, c)`` of three cards to come, every ``X`` in ``U - {a, b, c}``;
* ``rab``: the windows ``(r_i, a, b)`` of a row card and two cards to come, every ``X`` in
  ``U - {a, b}``, for the top ``--depths`` row cards (all by default);

and prints, by the size of ``X``, the pairs, their classes and the ratio, then the ratio weighted by
the split sum's work of an entry (``|X| 2^(|X|-1)``: where the engine's time goes) and the number of
relabellings of ``U`` the engine shares tables under (its own ``automorphisms``). A class is found
by a canonical form: for each of the 24 suit permutations, the column of each rank (which suits hold
a card of ``X``, ``w1``, ``w2`` or ``w3``) coded as a number, the codes sorted (ranks may be
permuted freely), the least sequence over the suit permutations.

Cost: ``ccc`` with 16 left is 27.5 million pairs (about a minute and 0.8 GiB). The table goes in
benchmarks/README.md.
"""
from __future__ import annotations

import argparse
import itertools
import time

import numpy as np
from numba import njit

import bench_odds  # the same positions as the engines' benchmark (run from benchmarks/ or the root)

#: the 24 permutations of the four suits
SUIT_PERMS = np.array(list(itertools.permutations(range(4))), dtype=np.int64)
#: ranks of a standard deck: a canonical form has one code per rank present
RANKS = 13


@njit(cache=True)
def _canonical(suits, ranks, labels, n, perms, out):
    """The canonical form of cards ``0 .. n-1`` (``labels``: 1 for a card of ``X``, 2-4 for the
    window's roles) into ``out``: the least, over the suit permutations, of the rank columns' codes
    sorted in decreasing order (zero-padded)."""
    best = np.full(RANKS, 1 << 30, np.int64)
    col = np.zeros(RANKS, np.int64)
    cur = np.zeros(RANKS, np.int64)
    for p in range(perms.shape[0]):
        col[:] = 0
        for i in range(n):
            col[ranks[i]] += labels[i] * 5 ** perms[p, suits[i]]
        cur[:] = -np.sort(-col)
        for r in range(RANKS):
            if cur[r] != best[r]:
                if cur[r] < best[r]:
                    best[:] = cur
                break
    out[:] = best


@njit(cache=True)
def _window_pairs(w_suits, w_ranks, u_suits, u_ranks, perms, sizes, keys, start):
    """The canonical form of the window (roles 2, 3, 4 in order) with every subset of the universe
    ``u``, written from row ``start`` on; returns the next free row."""
    nw, nu = w_suits.shape[0], u_suits.shape[0]
    suits = np.zeros(nw + nu, np.int64)
    ranks = np.zeros(nw + nu, np.int64)
    labels = np.zeros(nw + nu, np.int64)
    out = np.zeros(RANKS, np.int64)
    for i in range(nw):
        suits[i], ranks[i], labels[i] = w_suits[i], w_ranks[i], 2 + i
    for mask in range(1 << nu):
        n = nw
        for j in range(nu):
            if mask >> j & 1:
                suits[n], ranks[n], labels[n] = u_suits[j], u_ranks[j], 1
                n += 1
        _canonical(suits, ranks, labels, n, perms, out)
        sizes[start + mask] = n - nw
        for r in range(RANKS):
            keys[start + mask, r] = out[r]
    return start + (1 << nu)


def _relabellings(row, undealt) -> int:
    """The relabellings of the cards to come the engine shares tables under (its own
    :func:`exact.one_handed.odds_phase_groups.automorphisms`, suits the two-type labels)."""
    from exact.one_handed.odds_phase_groups import PositionCards, automorphisms

    return len(automorphisms(PositionCards(row, undealt, False)))


def count(k: int, seed: int, index: int, family: str, depths: int | None) -> list[str]:
    _, row, undealt, labels = bench_odds._position(k, seed, index)
    cards, row_cards = labels(undealt), labels(row)
    if family == "ccc":
        windows = [(w, [c for c in cards if c not in w]) for w in itertools.permutations(cards, 3)]
    else:
        tops = row_cards[::-1][:depths]
        windows = [((r, a, b), [c for c in cards if c not in (a, b)])
                   for r in tops for a, b in itertools.permutations(cards, 2)]
    nu = len(windows[0][1])
    pairs = len(windows) << nu
    keys = np.zeros((pairs, RANKS), np.uint16)
    sizes = np.zeros(pairs, np.int8)
    start, t0 = 0, time.process_time()
    for window, universe in windows:
        start = _window_pairs(np.array([s for s, _ in window]), np.array([r for _, r in window]),
                              np.array([s for s, _ in universe]), np.array([r for _, r in universe]),
                              SUIT_PERMS, sizes, keys, start)
    lines = [f"{k} left, seed {seed} position {index}, `{family}`: row of {len(row)}, {len(windows):,} windows, "
             f"{pairs:,} pairs, relabellings of U: {_relabellings(row_cards, cards)} ({time.process_time() - t0:.0f} CPU s)",
             "", "| size of X | pairs | classes | pairs / classes |", "|---:|---:|---:|---:|"]
    work_pairs = work_classes = all_classes = 0
    for size in range(nu + 1):
        chosen = keys[sizes == size]
        classes = len(np.unique(chosen, axis=0))
        work = size * 2 ** max(size - 1, 0)
        work_pairs += len(chosen) * work
        work_classes += classes * work
        all_classes += classes
        lines.append(f"| {size} | {len(chosen):,} | {classes:,} | {len(chosen) / classes:.1f} |")
    lines += ["", f"all sizes: {pairs / all_classes:.1f} times fewer classes than pairs; weighted by the "
              f"split sum's work: {work_pairs / work_classes:.1f}", ""]
    return lines


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--left", default="12,14", help="cards left, comma-separated (default 12,14)")
    parser.add_argument("--positions", type=int, default=1, help="positions per number of cards left")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--family", choices=("ccc", "rab"), default="ccc")
    parser.add_argument("--depths", type=int, default=None, help="rab: the top N row cards only")
    args = parser.parse_args(argv)
    for k in (int(x) for x in args.left.split(",")):
        for index in range(args.positions):
            print("\n".join(count(k, args.seed, index, args.family, args.depths)), flush=True)


if __name__ == "__main__":
    main()
