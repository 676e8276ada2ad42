"""Hand Solitaire whole-deck graphs (``solitaire poison --all``): time and memory per deck and variant.

Each analysis runs in a fresh process (its peak memory, max resident set, is its own) on one core
(BLAS threads set to 1). Reported per deck and variant: CPU seconds in all and by phase (exploring
the classes, networkx, lumping, factoring, lifting, the second-prime check), peak RSS, classes,
unknowns before and after lumping, the dense core, lifting steps and the digits of the answers'
denominators. ``--reference`` also times the Fraction elimination (``method="fractions"``, the
method before the modular solver) on the same graph and prints the ratio; it is slow beyond 10 cards.
Nothing here asserts a time (SPEC: performance is measured, not asserted).

Usage: python benchmarks/bench_hand_graph.py [--cards 12] [--decks 3x4,2x6] [--variants "hand();hand(step7=off)"]
                                             [--reference] [--timeout 1200]
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time

VARIANTS = ("hand()", "hand(rank_resets=published)", "hand(step7=off)", "hand(reshuffle=off)")
ONE_CORE = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "NUMBA_NUM_THREADS": "1"}


def one(deck_text: str, variant_text: str, method: str) -> dict:
    """One analysis in this process."""
    from exact.hand.whole_deck import analyse_deck
    from sim import Deck, Variant

    suits, ranks = map(int, deck_text.split("x"))
    analyse_deck(Deck(2, 2), Variant.parse(variant_text), method=method)  # compile / load the numba cache
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    cpu0, wall0 = time.process_time(), time.perf_counter()
    r = analyse_deck(Deck(suits, ranks), Variant.parse(variant_text), method=method)
    return {"deck": deck_text, "variant": str(r.variant), "method": method,
            "cpu_seconds": time.process_time() - cpu0, "wall_seconds": time.perf_counter() - wall0,
            "max_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, "rss_before_mib": rss_before,
            "classes": r.classes, "poison_sets": r.poison_sets, "unwinnable_orders": r.unwinnable_orders,
            "p_win": float(r.p_win), "solver": r.solver}


def in_child(deck_text: str, variant_text: str, method: str, timeout: float) -> dict:
    env = dict(os.environ, **ONE_CORE)
    try:
        proc = subprocess.run([sys.executable, __file__, "--one", deck_text, variant_text, method],
                              capture_output=True, text=True, env=env, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"deck": deck_text, "variant": variant_text, "method": method, "timed_out_after_s": timeout}
    if proc.returncode:
        return {"deck": deck_text, "variant": variant_text, "method": method,
                "error": proc.stderr.strip().splitlines()[-1:]}
    return json.loads(proc.stdout)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cards", type=int, default=12)
    parser.add_argument("--decks", help="comma-separated SxR (default: every deck of --cards cards)")
    parser.add_argument("--variants", default=";".join(VARIANTS), help="';'-separated variants")
    parser.add_argument("--reference", action="store_true", help="also time method='fractions' and print ratios")
    parser.add_argument("--timeout", type=float, default=1200, help="seconds per analysis (then reported as such)")
    parser.add_argument("--one", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        print(json.dumps(one(*args.one)))
        return
    decks = args.decks.split(",") if args.decks else [f"{s}x{args.cards // s}" for s in range(1, args.cards + 1)
                                                        if args.cards % s == 0]
    with open("/proc/loadavg") as f:
        print(f"# load average at start: {f.read().split()[0]}", flush=True)
    for deck in decks:
        for variant in args.variants.split(";"):
            row = in_child(deck, variant, "modular", args.timeout)
            if args.reference:
                ref = in_child(deck, variant, "fractions", args.timeout)
                row["fractions_cpu_seconds"] = ref.get("cpu_seconds", ref.get("timed_out_after_s"))
                if "cpu_seconds" in ref and "cpu_seconds" in row:
                    row["speedup_cpu"] = ref["cpu_seconds"] / row["cpu_seconds"]
                    row["same_answer"] = ref["p_win"] == row["p_win"]
            print(json.dumps(row), flush=True)
    with open("/proc/loadavg") as f:
        print(f"# load average at end: {f.read().split()[0]}", flush=True)


if __name__ == "__main__":
    main()
