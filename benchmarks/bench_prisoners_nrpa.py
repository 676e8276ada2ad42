"""Prisoner's Patience best play: NRPA (``strategy="nrpa"``) against the restarts, same decks, one core.

    python benchmarks/bench_prisoners_nrpa.py compare --seed 1 --decks 200 \
        --runs restarts:1500000 restarts:3000000 nrpa:3000000 nrpa@0.8:3000000 [--moves published]
        [--time-budget S]
    python benchmarks/bench_prisoners_nrpa.py alone --seed 1 --deck-list 0,15,99 --level 2 --cpu 15

``compare``: solve the same random 52-card decks with each ``strategy:node_budget`` in turn (one
process, one thread) and print won / lost / undecided, the decided share, the nodes and the CPU
seconds a deck (the searching thread's), then the decks whose verdict differs between runs.
``nrpa@S`` gives the restarts the share ``S`` of the node budget (default ``NRPA_PLAN``).

``alone``: NRPA by itself (:func:`exact.prisoners.nrpa_kernel._nrpa`, 100 iterations a level, a
fresh seed per search) on the listed decks of a seed, until a win or ``--cpu`` CPU seconds: whether
it wins, the CPU seconds and steps to the win, the fewest piles otherwise. Every win is replayed
with the reference rules.
"""
from __future__ import annotations

import argparse
import json
import time

import numpy as np

from exact.prisoners.best_play import random_orders
from exact.prisoners.solver import check_line, make_searcher
from sim import Deck, Variant

DECK = Deck(4, 13)


def compare(args) -> dict:
    variant = Variant.make("prisoners", moves=args.moves)
    orders = random_orders(DECK, args.decks, args.seed)
    out = {}
    for spec in args.runs:
        strategy, budget = spec.split(":")
        strategy, _, share = strategy.partition("@")
        searcher = make_searcher(DECK, variant, strategy=strategy)
        if share:  # nrpa@0.8: the restarts get 80% of the node budget
            searcher.nrpa_plan["restart_share"] = float(share)
        searcher.solve_ranks([r % 13 for r in range(52)], 1000)  # compile
        verdicts, nodes, seconds = [], 0, 0.0
        for order in orders:
            t0 = time.thread_time()
            v = searcher.solve_ranks([DECK.rank(c) for c in order], int(budget), args.time_budget)
            seconds += time.thread_time() - t0
            if v.status == "won":
                check_line(order.tolist(), DECK, variant, v.line)
            verdicts.append(v.status)
            nodes += v.nodes
        tally = {s: verdicts.count(s) for s in ("won", "lost", "undecided")}
        out[spec] = {**tally, "decided": (tally["won"] + tally["lost"]) / args.decks, "nodes": nodes,
                     "cpu_per_deck": seconds / args.decks, "verdicts": verdicts}
        print(f"{args.moves} seed {args.seed} {spec}: {tally['won']} / {tally['lost']} / {tally['undecided']}, "
              f"decided {out[spec]['decided']:.1%}, {nodes / 1e6:.1f} M nodes, "
              f"{seconds / args.decks:.3f} CPU s a deck", flush=True)
    specs = list(out)
    for d in range(args.decks):
        seen = [out[s]["verdicts"][d] for s in specs]
        if len(set(seen)) > 1:
            print(f"  deck {d}: " + ", ".join(f"{s} {v}" for s, v in zip(specs, seen)))
    return out


def alone(args) -> dict:
    import exact.prisoners.nrpa_kernel as nk
    from exact.prisoners.solver_kernel import neighbour_masks

    variant = Variant.make("prisoners", moves=args.moves)
    adjacency = neighbour_masks(DECK.ranks, variant.rules.wrap)
    reverse = variant.rules.reverse_piles
    decks = [int(d) for d in args.deck_list.split(",")]
    orders = random_orders(DECK, max(decks) + 1, args.seed)
    out = {}
    for d in decks:
        order = orders[d].tolist()
        ranks = np.array([DECK.rank(c) for c in order], dtype=np.int64)
        line = np.zeros((DECK.size - 1, 2), dtype=np.int64)
        policy = np.zeros(DECK.size ** 2)
        nk._nrpa(ranks, adjacency, reverse, 1, 1, 1.0, nk.run_seed(0), 10, policy, line)  # compile
        t0 = time.process_time()
        run, steps, fewest, won = 0, 0, DECK.size, False
        while time.process_time() - t0 < args.cpu:
            code, score, used = nk._nrpa(ranks, adjacency, reverse, args.level, 100, 1.0, nk.run_seed(run), 10**15,
                                         policy, line)
            run, steps, fewest = run + 1, steps + used, min(fewest, int(score))
            if code == nk.NRPA_WON:
                check_line(order, DECK, variant, [tuple(map(int, m)) for m in line])
                won = True
                break
        cpu = time.process_time() - t0
        out[d] = {"won": won, "fewest": fewest, "searches": run, "steps": steps, "cpu": cpu}
        print(f"deck {d}: {'WON (replayed)' if won else 'not won'}, fewest piles {fewest}, {run} level-{args.level} "
              f"searches, {steps / 1e6:.1f} M steps, {cpu:.2f} CPU s", flush=True)
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=["compare", "alone"])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--decks", type=int, default=200)
    parser.add_argument("--moves", choices=["published", "physical"], default="published")
    parser.add_argument("--runs", nargs="+", default=["restarts:1500000", "nrpa:3000000"])
    parser.add_argument("--time-budget", type=float, default=None)
    parser.add_argument("--deck-list", default="0")
    parser.add_argument("--level", type=int, default=2)
    parser.add_argument("--cpu", type=float, default=15.0)
    parser.add_argument("--json", default=None)
    args = parser.parse_args(argv)
    out = compare(args) if args.mode == "compare" else alone(args)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f)


if __name__ == "__main__":
    main()
