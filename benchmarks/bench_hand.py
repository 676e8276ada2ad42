"""Hand Solitaire benchmark (apart from the tests): 52-card games per CPU-second, capped runs
classified per second, and the largest small deck whose whole graph is analysed, with time and memory.

Usage: python benchmarks/bench_hand.py [--games 200000] [--decks 100000] [--max-cards 9]
"""
from __future__ import annotations

import argparse
import json
import resource
import time
import tracemalloc

from exact.hand_graph import analyse_deck
from exact.poison import classify_runs
from sim import Deck, Variant
from sim.kernels.hand import chunk_runner
from sim.rng import chunk_states


def games_per_cpu_second(games: int, variant: Variant) -> dict:
    run = chunk_runner(Deck(4, 13), variant)
    run(chunk_states(0, 0, 1)[0], 100)  # compile / load the cache
    cpu0, wall0 = time.process_time(), time.perf_counter()
    counts = run(chunk_states(1, 0, 1)[0], games)
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    iterations = sum(i * c for i, c in enumerate(counts["iterations_to_win"].tolist())) + 1000 * counts["capped"]
    return {"variant": str(variant), "games": games, "cpu_seconds": cpu, "games_per_cpu_second": games / cpu,
            "iterations_per_cpu_second": iterations / cpu, "wall_seconds": wall}


def runs_classified_per_second(decks: int, variant: Variant) -> dict:
    classify_runs(Deck(4, 13), variant, decks=200, seed=0)  # compile
    t0 = time.perf_counter()
    r = classify_runs(Deck(4, 13), variant, decks=decks, seed=1)
    seconds = time.perf_counter() - t0
    capped = r.trapped + r.win_reachable + r.undecided
    return {"variant": str(variant), "decks": decks, "seconds": seconds, "runs_per_second": decks / seconds,
            "capped_runs": capped, "trapped": r.trapped, "undecided": r.undecided,
            "poison_set_sizes": r.poison_set_sizes}


def whole_graph(deck: Deck, variant: Variant) -> dict:
    tracemalloc.start()
    t0 = time.perf_counter()
    r = analyse_deck(deck, variant)
    seconds = time.perf_counter() - t0
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return {"deck": str(deck), "variant": str(variant), "seconds": seconds, "python_peak_mib": peak / 2**20,
            "max_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, "classes": r.classes,
            "orders_played": r.orders_played, "poison_sets": r.poison_sets, "p_win": str(r.p_win)}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=200_000)
    parser.add_argument("--decks", type=int, default=100_000)
    parser.add_argument("--max-cards", type=int, default=10)  # exact.hand_graph.MAX_GRAPH_CARDS
    args = parser.parse_args(argv)
    out = {"games": [games_per_cpu_second(args.games, Variant.parse(v))
                     for v in ("hand()", "hand(rank_resets=published)", "hand(step7=off)")]}
    print(json.dumps(out["games"]), flush=True)
    out["classify"] = runs_classified_per_second(args.decks, Variant.parse("hand(rank_resets=published)"))
    print(json.dumps(out["classify"]), flush=True)
    out["graph"] = []
    for cards in range(8, args.max_cards + 1):
        for suits in range(2, cards):
            if cards % suits == 0:
                row = whole_graph(Deck(suits, cards // suits), Variant.make("hand"))
                out["graph"].append(row)
                print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
