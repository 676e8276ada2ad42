"""Prisoner's Patience speed: games per CPU-second of each policy, and best-play decks per second.

    python benchmarks/bench_prisoners.py [--games 2000000] [--decks 20] [--node-budget N]
                                         [--engine numba|python] [--ordering 0|1]

One thread. The kernel figure times ``_simulate_chunk`` (shuffle + play, one policy, unpaired) after
compilation; the solver figure runs ``estimate_best_play`` on random 52-card decks and reports the
won / lost / undecided shares at the budget.
"""
from __future__ import annotations

import argparse
import json
import time

from exact.prisoners.solver import DEFAULT_NODE_BUDGET, estimate_best_play
from sim import Deck, Variant
from sim.kernels.prisoners import _simulate_chunk, adjacency_table
from sim.rng import chunk_states


def kernel_rate(deck: Deck, moves: str, games: int) -> float:
    adj = adjacency_table(deck, True)
    state = chunk_states(1, 0, 1)[0]
    args = (deck.rank_array(), adj, deck.ranks, moves == "published", False)
    _simulate_chunk(state, 1000, *args)  # compile
    t0 = time.process_time()
    _simulate_chunk(state, games, *args)
    return games / (time.process_time() - t0)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2_000_000)
    parser.add_argument("--decks", type=int, default=20)
    parser.add_argument("--node-budget", type=int, default=DEFAULT_NODE_BUDGET)
    parser.add_argument("--engine", choices=["numba", "python"], default="numba")
    parser.add_argument("--ordering", type=int, default=0)
    args = parser.parse_args(argv)
    deck = Deck(4, 13)
    report = {}
    for moves in ("published", "physical"):
        t0 = time.process_time()
        est = estimate_best_play(deck, Variant.make("prisoners", moves=moves), decks=args.decks, seed=7,
                                 node_budget=args.node_budget, engine=args.engine, ordering=args.ordering)
        cpu = time.process_time() - t0
        report[moves] = {
            "games_per_cpu_second": round(kernel_rate(deck, moves, args.games)),
            "best_play": {"engine": args.engine, "ordering": args.ordering, "decks": est.decks, "won": est.won, "lost": est.lost, "undecided": est.undecided,
                          "undecided_share": est.undecided / est.decks, "node_budget": est.node_budget,
                          "decks_per_cpu_second": est.decks / cpu, "nodes_per_cpu_second": est.nodes / cpu},
        }
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
