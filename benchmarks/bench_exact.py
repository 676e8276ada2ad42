"""Benchmark of the exact engines: states visited, seconds, peak memory, per deck (one core).

    .venv/bin/python benchmarks/bench_exact.py [--method dp|enumerate|phase|zeta[,...]] [--decks 3x4,3x5,4x4]
        [--timeout 900] [--finish-cards K]

Each deck runs in its own process (so peak memory, ru_maxrss, is that deck's alone; it includes the
interpreter and numba, about 200 MB) and under a time limit. Prints a markdown table. For the DP,
"states" counts the states built (layers 0 .. n-k) and "played out" the orders of the last ``k``
cards played per state (:mod:`exact.one_handed.finish`); ``--finish-cards 0`` builds every layer (the old path),
the default lets the DP choose ``k``. For the phase method (:mod:`exact.one_handed.phase`), "states built" is
the number of (set, subset) pairs visited and "largest layer" the bytes of its tables.

The phase method on the 20-card target decks: ``--method phase --decks 4x5,5x4,3x6,6x3,4x4``.

The zeta method (:mod:`exact.one_handed.zeta`): "states built" is the number of window-set orbit
points, "largest layer" the peak bytes of one pass's tables, and the method column names the passes.
Several methods (``--method phase,zeta``) run deck by deck in turn, so the ratio column (CPU seconds
of the first method over each) compares them under the same load. Times are CPU seconds of the child
(``time.process_time``: one core, other processes on a shared machine do not count), and wall seconds.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys

CHILD = r"""
import json, resource, sys, time
from exact import exact_distribution
from exact.one_handed.limits import zeta_estimate
from exact.one_handed.dp import DPStats, dp_distribution
from sim import Deck, Variant
s, r, method, finish = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
finish = None if finish == "auto" else int(finish)
exact_distribution(Deck(2, 2), method=method)  # compile outside the timing
stats = DPStats()
extra = {}
t0 = time.perf_counter()
c0 = time.process_time()
if method == "dp":
    score_counts, wins = dp_distribution(Deck(s, r), Variant.make("one-handed"), stats=stats,
                                         finish_cards=finish)
    p_win = f"{wins}/{sum(score_counts)}"
elif method == "phase":
    from exact.one_handed.phase import phase_distribution
    pstats = {}
    score_counts, wins = phase_distribution(Deck(s, r), Variant.make("one-handed"), stats=pstats)
    p_win = f"{wins}/{sum(score_counts)}"
    stats.states, stats.max_layer_states = pstats["subset_pairs"], pstats["table_bytes"]
elif method == "zeta":
    from exact.one_handed.zeta_passes import zeta_counts
    from exact.one_handed.zeta_kernel import zeta_pass
    zstats, pstats = {}, {}
    score_counts, never = zeta_counts(s, r, stats=zstats)
    p_win = f"{score_counts[0]}/{sum(score_counts)}"
    est = zeta_estimate(Deck(s, r))
    stats.states, stats.max_layer_states = est["orbits"], est["peak_bytes"]
    extra = {"passes": zstats["passes"]}
else:
    res = exact_distribution(Deck(s, r), method=method)
    p_win = f"{res.wins}/{res.orders}"
seconds = time.perf_counter() - t0
cpu = time.process_time() - c0
print(json.dumps({"seconds": seconds, "cpu": cpu, **extra, "states": stats.states or None, "max_layer_states": stats.max_layer_states or None,
                  "finish_cards": stats.finish_cards, "finish_orders": stats.finish_orders,
                  "p_win": p_win, "maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--method", default="dp", help="dp, enumerate, phase or zeta, or several joined by commas")
    parser.add_argument("--decks", default="3x4,4x3,2x7,2x8,8x2,3x5,5x3")
    parser.add_argument("--timeout", type=int, default=900)
    parser.add_argument("--finish-cards", default="auto", help="dp: cards played out per state (0: none)")
    args = parser.parse_args(argv)
    methods = args.method.split(",")
    for method in methods:
        if method not in ("dp", "enumerate", "phase", "zeta"):
            parser.error(f"unknown method {method!r}")
    print("| deck | cards | method | states built | largest layer | played out (k, orders) | CPU s | wall s "
          "| ratio | peak RSS (MB) | wins / orders |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for spec in args.decks.split(","):
        s, r = spec.split("x")
        first = None
        for method in methods:
            try:
                out = subprocess.run([sys.executable, "-c", CHILD, s, r, method, args.finish_cards],
                                     capture_output=True, text=True, timeout=args.timeout)
            except subprocess.TimeoutExpired:
                print(f"| {spec} | {int(s) * int(r)} | {method} | | | | | > {args.timeout} (stopped) | | | |")
                continue
            if out.returncode != 0:
                print(f"| {spec} | {int(s) * int(r)} | {method} | failed: {out.stderr.strip().splitlines()[-1]} |")
                continue
            m = json.loads(out.stdout.strip().splitlines()[-1])
            first = m["cpu"] if first is None else first
            played = f"{m['finish_cards']}, {m['finish_orders']:.3g}" if m["finish_cards"] else ""
            name = f"{method} ({m['passes']} passes)" if "passes" in m else method
            print(f"| {spec} | {int(s) * int(r)} | {name} | {m['states'] or ''} | {m['max_layer_states'] or ''} "
                  f"| {played} | {m['cpu']:.1f} | {m['seconds']:.1f} | {first / m['cpu']:.2f} | {m['maxrss_mb']:.0f} "
                  f"| {m['p_win']} |", flush=True)


if __name__ == "__main__":
    main()
