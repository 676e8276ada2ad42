"""Which states the play from a 52-card position reaches (One-Handed, the exact odds from a position):
the measurement behind the choice of decomposition in ``exact.one_handed.odds_phase``.

    .venv/bin/python benchmarks/bench_odds_states.py [--left 8,9,10] [--positions 2] [--seed 1]

For each number ``k`` of cards left it deals the first ``52 - k`` cards of ``--positions`` random
52-card orders (numpy, from ``--seed``, the positions of ``benchmarks/bench_odds.py``) and plays every
order of the cards to come, layer by layer (one card dealt per layer), counting, summed over the
layers:

* ``prefixes``: the dealt prefixes (what plain enumeration visits, ``sum k!/(k-t)!``);
* ``states``: distinct ``(row, cards to come)`` pairs, the exact state (the memoised search's key
  before its reductions);
* ``windows``: distinct ``(exposed depth, top three cards, cards to come)``, the exposed depth being
  how many cards of the dealt row are still in place, untouched;
* and the phase engine's tables on the same position (``exact.one_handed.odds_phase``): the windows
  of three cards to come it fills (one per orbit of the relabellings of the cards to come), the size
  of that group, and the row depths it reaches.

Plain Python dictionaries: ``k = 10`` takes 13-23 CPU s a position; the counts grow about 7-fold
(states) and 3.5-fold (windows) per card, so ``k = 11`` takes minutes and passed 2.5 GiB before it
was stopped. The table goes in benchmarks/README.md.
"""
from __future__ import annotations

import argparse
import math
import time

import bench_odds  # the same positions as the engines' benchmark (run from benchmarks/ or the root)


def _position(k: int, seed: int, index: int):
    """The row and the cards to come of ``bench_odds.py``'s position (same seed, same index), as
    (suit, rank) labels."""
    _, row, undealt, labels = bench_odds._position(k, seed, index)
    return labels(row), labels(undealt)


def _deal(row: tuple, card) -> tuple:
    """The settled row after ``card`` is dealt onto ``row`` (the rules as written; the DP's settle on
    ``(suit, rank)`` labels, tested against the reference rules)."""
    from exact.one_handed.dp import _settle

    out = list(row)
    out.append(card)
    _settle(out, False)
    return tuple(out)


def reached(row, undealt) -> dict:
    """Counts of the states the play of every order of ``undealt`` onto ``row`` reaches (see the
    module docstring), summed over the layers."""
    row = tuple(row)
    k = len(undealt)
    layer = {(row, (1 << k) - 1): 1}
    states = windows = 0
    for _ in range(k):
        new: dict = {}
        for (r, left), count in layer.items():
            for i in range(k):
                if left >> i & 1:
                    key = (_deal(r, undealt[i]), left & ~(1 << i))
                    new[key] = new.get(key, 0) + count
        layer = new
        seen = set()
        for r, left in layer:
            depth = 0
            while depth < min(len(r), len(row)) and r[depth] == row[depth]:
                depth += 1
            seen.add((depth, r[-3:], left))
        states += len(layer)
        windows += len(seen)
    assert sum(layer.values()) == math.factorial(k), "every order must end in one state"
    return dict(prefixes=sum(math.perm(k, t) for t in range(1, k + 1)), states=states, windows=windows)


def main(argv=None) -> None:
    from exact.one_handed.odds_phase import position_phase_counts

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--left", default="8,9,10")
    parser.add_argument("--positions", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    print("| cards left | position | row | prefixes | states (row, cards to come) | (depth, top window, cards to come) "
          "| phase: windows of 3 to come (of m(m-1)(m-2)) | relabellings | row depths reached | CPU s |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for k in [int(x) for x in args.left.split(",")]:
        for index in range(args.positions):
            row, undealt = _position(k, args.seed, index)
            t0 = time.process_time()
            got = reached(row, undealt)
            stats: dict = {}
            position_phase_counts(row, undealt, stats=stats)
            print(f"| {k} | {index} | {len(row)} | {got['prefixes']:,} | {got['states']:,} | {got['windows']:,} "
                  f"| {stats['windows']:,} ({k * (k - 1) * (k - 2):,}) | {stats['symmetry']} | {stats['depths']} "
                  f"| {time.process_time() - t0:.1f} |", flush=True)


if __name__ == "__main__":
    main()
