"""Benchmark of the exact odds from a position (One-Handed, ``exact.one_handed.odds``), one core.

    .venv/bin/python benchmarks/bench_odds.py [--left 8,9,10,11,12] [--positions 3] [--seed 1]
        [--budget 120]

For each number ``k`` of cards left it deals the first ``52 - k`` cards of ``--positions`` random
52-card orders (numpy, from ``--seed``) and times, in CPU seconds (``time.process_time``):

* ``search``: the engine, a memoised search over the DP's reduced states finished by play-out
  (:func:`exact.one_handed.odds.position_counts`), with the number of reduced states it searched
  beside the number of dealt prefixes they stand for (how much the reductions merge);
* ``play-out``: playing every one of the ``k!`` orders (numba, :mod:`exact.one_handed.finish`), the
  brute force it is measured against (only while ``k <= MAX_FINISH_CARDS``).

Both give the same counts (checked here too). A ``k`` is skipped once a method took more than
``--budget`` seconds on the previous ``k`` (each card left costs about ``k`` times more). Prints a
markdown table.
"""
from __future__ import annotations

import argparse
import math
import time

import numpy as np


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--left", default="8,9,10,11,12")
    parser.add_argument("--positions", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--budget", type=float, default=120.0)
    args = parser.parse_args(argv)

    from exact.one_handed.finish import MAX_FINISH_CARDS, play_out_distribution
    from exact.one_handed.odds import position_counts, settled_position
    from sim import Deck, Variant

    deck = Deck(4, 13)
    variant = Variant.make("one-handed")
    labels = lambda cards: [(deck.suit(c), deck.rank(c)) for c in cards]
    rng = np.random.default_rng(args.seed)
    orders = [rng.permutation(52).tolist() for _ in range(args.positions)]
    position_counts([], list(range(6)), Deck(2, 3))  # compile outside the timing
    play_out_distribution([], labels(range(3)), two_suit=True)
    print("| cards left | orders | search (CPU s, each position) | states searched / prefixes they stand for "
          "| play-out of all orders (CPU s) | same counts |")
    print("|---|---|---|---|---|---|")
    over = {"search": False, "play-out": False}
    for k in [int(x) for x in args.left.split(",")]:
        times = {"search": [], "play-out": []}
        merged = []
        same = True
        for order in orders:
            row, _ = settled_position(order[:52 - k], deck, variant)
            undealt = order[52 - k:]
            counts = None
            if not over["search"]:
                t0 = time.process_time()
                stats: dict = {}
                counts, _ = position_counts(row, undealt, deck, stats=stats)
                times["search"].append(time.process_time() - t0)
                merged.append(f"{stats['states']:,}/{stats['prefixes']:,}")
            if not over["play-out"] and k <= MAX_FINISH_CARDS:
                t0 = time.process_time()
                hist, _ = play_out_distribution(labels(row), labels(undealt), two_suit=True)
                times["play-out"].append(time.process_time() - t0)
                if counts is not None:
                    same = same and counts[:len(hist)] == hist
        cells = []
        for name in ("search", "play-out"):
            if times[name]:
                cells.append(", ".join(f"{t:.2f}" for t in times[name]))
                over[name] = max(times[name]) > args.budget
            else:
                cells.append("skipped")
        print(f"| {k} | {math.factorial(k):,} | {cells[0]} | {', '.join(merged) or '-'} | {cells[1]} | {same} |",
              flush=True)


if __name__ == "__main__":
    main()
