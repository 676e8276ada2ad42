"""Benchmark of the exact odds from a position (One-Handed, ``exact.one_handed.odds``): the two exact
engines side by side, one core.

    .venv/bin/python benchmarks/bench_odds.py [--left 10,11,12,13,14,15,16] [--positions 2] [--seed 1]
        [--budget 120] [--max-gib 2.25] [--search-max-left 16]

For each number ``k`` of cards left it deals the first ``52 - k`` cards of ``--positions`` random
52-card orders (numpy, from ``--seed``) and times, in CPU seconds (``time.process_time``), on the same
positions in the same run:

* ``search`` (the engine before the phase engine): a memoised search over the DP's reduced states
  finished by play-out (:func:`exact.one_handed.odds.position_counts`);
* ``phase``: the phase recursion from the row (:func:`exact.one_handed.odds_phase.position_phase_counts`),
  with its table bytes estimated before it runs (:func:`exact.one_handed.odds_phase.phase_table_bytes`);
  a position whose estimate exceeds ``--max-gib`` is not run ("needs X GiB").

Both give the same counts where both run (checked here too, column ``same``). An engine is skipped for
the next ``k`` once it took more than ``--budget`` CPU seconds (the search grows about ``k``-fold per
card, the phase engine about 3.5-fold); ``--search-max-left`` runs the search only up to that many
cards left (on a busy machine, to time the phase engine alone beyond). Prints a markdown table; ``speed-up`` is search time over
phase time on the same positions.
"""
from __future__ import annotations

import argparse
import math
import os
import time

import numpy as np


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--left", default="10,11,12,13,14,15,16")
    parser.add_argument("--positions", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--budget", type=float, default=120.0)
    parser.add_argument("--max-gib", type=float, default=2.25)
    parser.add_argument("--search-max-left", type=int, default=16)
    args = parser.parse_args(argv)

    from exact.one_handed.odds import position_counts, settled_position
    from exact.one_handed.odds_phase import phase_table_bytes, position_phase_counts
    from sim import Deck, Variant

    deck = Deck(4, 13)
    variant = Variant.make("one-handed")
    labels = lambda cards: [(deck.suit(c), deck.rank(c)) for c in cards]  # noqa: E731
    rng = np.random.default_rng(args.seed)
    orders = [rng.permutation(52).tolist() for _ in range(args.positions)]
    position_counts([], list(range(6)), Deck(2, 3))  # compile outside the timing
    position_phase_counts(labels([0, 1, 2]), labels([3, 4, 5, 6, 7]))
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"machine load average at the start: {load:.1f} on {os.cpu_count()} CPUs")
    print("| cards left | orders | search (CPU s, each position) | phase (CPU s, each position) "
          "| speed-up (search / phase) | phase tables (GiB, estimated) | row depths reached | same counts |")
    print("|---|---|---|---|---|---|---|---|")
    over = {"search": False, "phase": False}
    for k in [int(x) for x in args.left.split(",")]:
        times = {"search": [], "phase": []}
        cells = {"search": [], "phase": []}
        gib, depths, same = [], [], True
        for order in orders:
            row, _ = settled_position(order[:52 - k], deck, variant)
            undealt = order[52 - k:]
            found = {}
            if not over["search"] and k <= args.search_max_left:
                t0 = time.process_time()
                found["search"], _ = position_counts(row, undealt, deck)
                times["search"].append(time.process_time() - t0)
                cells["search"].append(f"{times['search'][-1]:.2f}")
            need = phase_table_bytes(labels(row), labels(undealt)) / 2**30
            gib.append(f"{need:.2f}")
            if not over["phase"] and need <= args.max_gib:
                stats: dict = {}
                t0 = time.process_time()
                hist, _ = position_phase_counts(labels(row), labels(undealt), stats=stats)
                times["phase"].append(time.process_time() - t0)
                cells["phase"].append(f"{times['phase'][-1]:.2f}")
                depths.append(str(stats["depths"]))
                found["phase"] = (hist + [0] * 53)[:53]
            elif not over["phase"]:
                cells["phase"].append(f"needs {need:.1f} GiB")
            if len(found) == 2:
                same = same and found["search"] == found["phase"]
        for name in over:
            if times[name]:
                over[name] = max(times[name]) > args.budget
        if len(times["search"]) == len(times["phase"]) == len(orders):
            speed = ", ".join(f"{s / p:.1f}x" for s, p in zip(times["search"], times["phase"]))
        else:
            speed = "-"
        print(f"| {k} | {math.factorial(k):,} | {', '.join(cells['search']) or 'skipped'} "
              f"| {', '.join(cells['phase']) or 'skipped'} | {speed} | {', '.join(gib)} | {', '.join(depths) or '-'} "
              f"| {same if len(times['search']) and len(times['phase']) else '-'} |", flush=True)


if __name__ == "__main__":
    main()
