"""Best play of one deck from a fresh searcher: the lost-row table grown as it fills, against the
whole table from the start (the searcher before the table grew), side by side in the same run.

    python benchmarks/bench_prisoners_table.py [--decks 10] [--seed 2026] [--rules published physical]
        [--node-budget N] [--json FILE]

Each deck of ``--decks`` random 52-card orders (the stored estimates' decks for seed 2026) is solved
twice at the rule's default node budget, each time by a new searcher, as ``solitaire solve --order``
does for a player's deal: once with the table starting at
:data:`exact.prisoners.lost_rows.START_SLOTS` slots and growing, once with every slot the budget
allows from the start (``start_slots`` set to :func:`exact.prisoners.lost_rows.table_slots`), in
alternating order. Both must reach the same verdict in the same nodes (checked); the figures are
the calling thread's CPU seconds for the whole call, table included, after the kernels are
compiled, and the peak resident memory is not separated (one process runs both).
"""
from __future__ import annotations

import argparse
import json
import time

from exact.prisoners import lost_rows
from exact.prisoners.best_play import random_orders
from exact.prisoners.limits import default_node_budget
from exact.prisoners.solver import check_variant, make_searcher
from sim import Deck


def solve_once(deck, variant, ranks, budget, whole: bool):
    searcher = make_searcher(deck, variant, strategy="restarts")  # the lost-row table is the restarts'
    if whole:
        searcher.start_slots = lost_rows.table_slots(deck.size, deck.ranks, budget)
    start = time.thread_time()
    verdict = searcher.solve_ranks(ranks, budget)
    return verdict, time.thread_time() - start


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decks", type=int, default=10)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--rules", nargs="+", choices=["published", "physical"], default=["published", "physical"])
    parser.add_argument("--node-budget", type=int, default=None, help="default: the rule's default budget")
    parser.add_argument("--json", metavar="FILE", default=None)
    args = parser.parse_args(argv)
    deck = Deck(4, 13)
    orders = random_orders(deck, max(args.decks, 1000), args.seed)
    out = {}
    for rule in args.rules:
        variant = check_variant(f"prisoners(moves={rule})")
        budget = args.node_budget or default_node_budget(variant)
        solve_once(deck, variant, [deck.rank(c) for c in orders[0][:8]], 1000, False)  # compile
        rows = []
        for index in range(args.decks):
            ranks = [deck.rank(c) for c in orders[index]]
            first = index % 2 == 0
            runs = {}
            for whole in (first, not first):
                runs[whole] = solve_once(deck, variant, ranks, budget, whole)
            (grown, t_grown), (full, t_full) = runs[False], runs[True]
            assert (grown.status, grown.nodes) == (full.status, full.nodes), index
            rows.append({"deck": index, "status": str(grown.status), "nodes": grown.nodes,
                         "grown_s": round(t_grown, 3), "whole_s": round(t_full, 3)})
            print(f"{rule:9} deck {index:4}  {grown.status!s:9} {grown.nodes:>11,} nodes  "
                  f"grown {t_grown:7.2f} s  whole {t_full:7.2f} s  ratio {t_full / max(t_grown, 1e-9):6.2f}",
                  flush=True)
        total_g, total_w = sum(r["grown_s"] for r in rows), sum(r["whole_s"] for r in rows)
        print(f"{rule}: {len(rows)} decks at {budget:,} nodes: {total_g / len(rows):.2f} CPU s a deck grown, "
              f"{total_w / len(rows):.2f} whole (ratio {total_w / max(total_g, 1e-9):.2f})", flush=True)
        out[rule] = {"node_budget": budget, "decks": rows}
    if args.json:
        with open(args.json, "w") as handle:
            json.dump(out, handle, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
