"""Benchmark of the exact engines: states visited, seconds, peak memory, per deck (one core).

    .venv/bin/python benchmarks/bench_exact.py [--method dp|enumerate|phase] [--decks 3x4,3x5,4x4]
        [--timeout 900] [--finish-cards K]

Each deck runs in its own process (so peak memory, ru_maxrss, is that deck's alone; it includes the
interpreter and numba, about 200 MB) and under a time limit. Prints a markdown table. For the DP,
"states" counts the states built (layers 0 .. n-k) and "played out" the orders of the last ``k``
cards played per state (:mod:`exact.one_handed.finish`); ``--finish-cards 0`` builds every layer (the old path),
the default lets the DP choose ``k``. For the phase method (:mod:`exact.one_handed.phase`), "states built" is
the number of (set, subset) pairs visited and "largest layer" the bytes of its tables.

The phase method on the 20-card target decks: ``--method phase --decks 4x5,5x4,3x6,6x3,4x4``.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys

CHILD = r"""
import json, resource, sys, time
from exact import exact_distribution
from exact.one_handed.dp import DPStats, dp_distribution
from sim import Deck, Variant
s, r, method, finish = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
finish = None if finish == "auto" else int(finish)
exact_distribution(Deck(2, 2), method=method)  # compile outside the timing
stats = DPStats()
t0 = time.perf_counter()
if method == "dp":
    score_counts, wins = dp_distribution(Deck(s, r), Variant.make("one-handed"), stats=stats,
                                         finish_cards=finish)
    p_win = f"{wins}/{sum(score_counts)}"
elif method == "phase":
    from exact.one_handed.phase_kernel import phase_distribution
    pstats = {}
    score_counts, wins = phase_distribution(Deck(s, r), Variant.make("one-handed"), stats=pstats)
    p_win = f"{wins}/{sum(score_counts)}"
    stats.states, stats.max_layer_states = pstats["subset_pairs"], pstats["table_bytes"]
else:
    res = exact_distribution(Deck(s, r), method=method)
    p_win = f"{res.wins}/{res.orders}"
seconds = time.perf_counter() - t0
print(json.dumps({"seconds": seconds, "states": stats.states or None, "max_layer_states": stats.max_layer_states or None,
                  "finish_cards": stats.finish_cards, "finish_orders": stats.finish_orders,
                  "p_win": p_win, "maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--method", default="dp", choices=["dp", "enumerate", "phase"])
    parser.add_argument("--decks", default="3x4,4x3,2x7,2x8,8x2,3x5,5x3")
    parser.add_argument("--timeout", type=int, default=900)
    parser.add_argument("--finish-cards", default="auto", help="dp: cards played out per state (0: none)")
    args = parser.parse_args(argv)
    print("| deck | cards | method | states built | largest layer | played out (k, orders) | seconds "
          "| peak RSS (MB) | wins / orders |")
    print("|---|---|---|---|---|---|---|---|---|")
    for spec in args.decks.split(","):
        s, r = spec.split("x")
        try:
            out = subprocess.run([sys.executable, "-c", CHILD, s, r, args.method, args.finish_cards],
                                 capture_output=True,
                                 text=True, timeout=args.timeout)
        except subprocess.TimeoutExpired:
            print(f"| {spec} | {int(s) * int(r)} | {args.method} | | | | > {args.timeout} (stopped) | | |")
            continue
        if out.returncode != 0:
            print(f"| {spec} | {int(s) * int(r)} | {args.method} | failed: {out.stderr.strip().splitlines()[-1]} |")
            continue
        m = json.loads(out.stdout.strip().splitlines()[-1])
        played = f"{m['finish_cards']}, {m['finish_orders']:.3g}" if m["finish_cards"] else ""
        print(f"| {spec} | {int(s) * int(r)} | {args.method} | {m['states'] or ''} | {m['max_layer_states'] or ''} "
              f"| {played} | {m['seconds']:.2f} | {m['maxrss_mb']:.0f} | {m['p_win']} |", flush=True)


if __name__ == "__main__":
    main()
