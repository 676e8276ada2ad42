"""Hand Solitaire benchmark (apart from the tests), on one core:

* 52-card games (runs up to the iteration cap) per CPU-second, per variant;
* ``classify_runs`` on random 52-card decks, timed in two parts: playing every run (all decks per
  second of the whole call, under that name) and deciding the runs that reach the cap (capped runs
  classified per second of *exploration* time, which is what a capped run costs);
* the whole deck-order graph (``solitaire poison --all``) of each deck of ``--max-cards`` cards
  (default :data:`exact.hand.limits.MAX_GRAPH_CARDS`) for each variant, each in a fresh process so that
  its peak memory (max resident set) is its own; the largest (slowest) one is printed last.

Usage: python benchmarks/bench_hand.py [--games 200000] [--decks 100000] [--max-cards N]
                                       [--graph-variants hand(),hand(step7=off)]
                                       [--graph DECK VARIANT]   (one graph, in this process: internal)
"""
from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time

from exact.hand.limits import MAX_GRAPH_CARDS
from sim import Deck, Variant

GRAPH_VARIANTS = ("hand()", "hand(rank_resets=published)", "hand(step7=off)", "hand(reshuffle=off)")


def games_per_cpu_second(games: int, variant: Variant) -> dict:
    from sim.kernels.hand import chunk_runner
    from sim.rng import chunk_states

    run = chunk_runner(Deck(4, 13), variant)
    run(chunk_states(0, 0, 1)[0], 100)  # compile / load the cache
    cpu0, wall0 = time.process_time(), time.perf_counter()
    counts = run(chunk_states(1, 0, 1)[0], games)
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    iterations = sum(i * c for i, c in enumerate(counts["iterations_to_win"].tolist())) + 1000 * counts["capped"]
    return {"variant": str(variant), "games": games, "cpu_seconds": cpu, "games_per_cpu_second": games / cpu,
            "iterations_per_cpu_second": iterations / cpu, "wall_seconds": wall}


def classification_rates(decks: int, variant: Variant) -> dict:
    from exact.hand.poison import classify_runs

    classify_runs(Deck(4, 13), variant, decks=200, seed=0)  # compile
    t0 = time.perf_counter()
    r = classify_runs(Deck(4, 13), variant, decks=decks, seed=1)
    seconds = time.perf_counter() - t0
    capped = r.trapped + r.win_reachable + r.undecided
    play, decide = r.provenance["play_seconds"], r.provenance["decide_seconds"]
    return {"variant": str(variant), "decks": decks, "seconds": seconds,
            "all_decks_per_second": decks / seconds,  # play every run + decide the capped ones
            "play_seconds": play, "exploration_seconds": decide, "capped_runs": capped,
            "capped_runs_classified_per_exploration_second": capped / decide if decide > 0 else None,
            "trapped": r.trapped, "win_reachable": r.win_reachable, "undecided": r.undecided,
            "poison_set_sizes": r.poison_set_sizes}


def whole_graph(deck: Deck, variant: Variant) -> dict:
    """One graph in this process (a fresh one: see :func:`whole_graph_in_child`)."""
    from exact.hand.graph import analyse_deck

    analyse_deck(Deck(2, 2), variant)  # compile the kernels / load the cache
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    t0 = time.perf_counter()
    r = analyse_deck(deck, variant)
    seconds = time.perf_counter() - t0
    return {"deck": str(deck), "variant": str(variant), "seconds": seconds,
            "max_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            "rss_before_mib": rss_before, "classes": r.classes, "orders_played": r.orders_played,
            "poison_sets": r.poison_sets, "p_win": float(r.p_win)}  # the exact fraction can run to 1,000 digits


def whole_graph_in_child(deck: Deck, variant: str) -> dict:
    proc = subprocess.run([sys.executable, __file__, "--graph", str(deck), variant], capture_output=True,
                          text=True, check=True)
    return json.loads(proc.stdout)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200_000)
    parser.add_argument("--decks", type=int, default=100_000)
    parser.add_argument("--max-cards", type=int, default=MAX_GRAPH_CARDS)
    parser.add_argument("--graph-variants", default=",".join(GRAPH_VARIANTS).replace("),", ");"),
                        help="';'-separated variants for the whole graphs")
    parser.add_argument("--graph", nargs=2, metavar=("DECK", "VARIANT"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.graph:
        suits, ranks = map(int, args.graph[0].split("x"))
        print(json.dumps(whole_graph(Deck(suits, ranks), Variant.parse(args.graph[1]))))
        return
    out = {"games": []}
    for v in ("hand()", "hand(rank_resets=published)", "hand(step7=off)"):
        out["games"].append(games_per_cpu_second(args.games, Variant.parse(v)))
        print(json.dumps(out["games"][-1]), flush=True)
    out["classify"] = classification_rates(args.decks, Variant.parse("hand(rank_resets=published)"))
    print(json.dumps(out["classify"]), flush=True)
    out["graph"] = []
    cards = args.max_cards
    for suits in range(1, cards + 1):
        if cards % suits:
            continue
        for text in args.graph_variants.split(";"):
            row = whole_graph_in_child(Deck(suits, cards // suits), text)
            out["graph"].append(row)
            print(json.dumps(row), flush=True)
    if out["graph"]:
        worst = max(out["graph"], key=lambda row: row["seconds"])
        print(f"largest whole graph ({cards} cards): {worst['deck']} {worst['variant']}: {worst['seconds']:.1f} s, "
              f"peak RSS {worst['max_rss_mib']:.0f} MiB ({worst['rss_before_mib']:.0f} MiB before the analysis), "
              f"{worst['classes']:,} classes; largest peak RSS of any: "
              f"{max(row['max_rss_mib'] for row in out['graph']):.0f} MiB", flush=True)


if __name__ == "__main__":
    main()
