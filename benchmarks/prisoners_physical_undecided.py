"""Prisoner's Patience, moves=physical: why random 52-card decks stay undecided.

    python benchmarks/prisoners_physical_undecided.py [--seed 1] [--decks 40] [--node-budget 500000]
        [--time-budget 1] [--more 3] [--table-decks 4]

1. The default search (restarts) on ``--decks`` random decks: for the undecided ones, the fewest
   piles their searches reached, the rows expanded per number of piles, legal moves a row, lost-row
   table hits per expanded row and the share of expanded rows each condition cut.
2. The first ``--more`` undecided decks again with ten times the node budget (no time budget).
3. One depth-first run on each of the first ``--table-decks`` decks: every row its lost-row table
   holds is lost, so on those rows, by number of piles, the share ``stranded_cards`` closes (and
   the share no default search condition closes), and the share of pairs of legal moves that
   commute: disjoint cards, and neither mover strictly between the other move's two cards (a move
   ``x -> y`` shortens the distance of another pair by one exactly when ``x`` lies strictly between
   them, so such moves give the same row in either order and neither enables or disables the other).

One thread; CPU seconds of the searching thread.
"""
from __future__ import annotations

import argparse
import time
from collections import Counter, defaultdict

import numpy as np

from exact.prisoners import proofs
from exact.prisoners.best_play import random_orders
from exact.prisoners.solver import SEARCH_CONDITIONS, KernelSearcher, make_searcher
from sim import Deck, Variant

DECK = Deck(4, 13)


def profile(args) -> list:
    searcher = make_searcher(DECK, Variant.make("prisoners", moves="physical"), strategy="restarts")
    searcher.solve_ranks([r % 13 for r in range(52)], 1000)  # compile
    total = np.zeros((3, DECK.size), dtype=np.int64)
    fewest, undecided, cuts, nodes = [], [], Counter(), 0
    for d, order in enumerate(random_orders(DECK, args.decks, args.seed)):
        seq = [DECK.rank(c) for c in order]
        verdict = searcher.solve_ranks(seq, args.node_budget, args.time_budget)
        if verdict.status != "undecided":
            continue
        expanded, hits, moves = searcher.profile()
        total += np.array([expanded, hits, moves])
        undecided.append((d, seq))
        fewest.append(DECK.size - int(np.nonzero(expanded)[0].max()))
        nodes += verdict.nodes
        cuts.update(dict(verdict.cuts))
    print(f"seed {args.seed}: {len(undecided)} of {args.decks} decks undecided; fewest piles reached: {sorted(fewest)}")
    print("share of expanded rows cut: "
          + ", ".join(f"{k} {cuts[k] / nodes:.1%}" for k in SEARCH_CONDITIONS if cuts[k]))
    print("table hits per expanded row:", round(total[1].sum() / total[0].sum(), 2))
    print(f"{'piles':>5} {'expanded':>10} {'moves/row':>9}")
    for depth in range(0, DECK.size, 3):
        if total[0, depth]:
            print(f"{DECK.size - depth:>5} {total[0, depth]:>10} {total[2, depth] / total[0, depth]:>9.2f}")
    for d, seq in undecided[:args.more]:
        t0 = time.process_time()
        verdict = searcher.solve_ranks(seq, 10 * args.node_budget)
        expanded = searcher.profile()[0]
        print(f"deck {d} at {10 * args.node_budget:,} nodes: {verdict.status}, {time.process_time() - t0:.1f} CPU s, "
              f"fewest piles {DECK.size - int(np.nonzero(expanded)[0].max())}", flush=True)
    return undecided


def lost_rows(searcher, seq, node_budget):
    searcher.solve_ranks(seq, node_budget)
    hashes, keys = searcher._table[0]
    for slot in np.nonzero(hashes)[0]:
        key = keys[slot]
        m = int(np.argmax(key == 0)) if (key == 0).any() else len(key)
        yield tuple(int(c) - 1 for c in key[:m])


def stored_rows(args) -> None:
    searcher = KernelSearcher(DECK.size, DECK.ranks, wrap=True, reverse=False, strategy="dfs")
    neighbours = searcher.neighbour_lists
    adjacent = [[s in neighbours[r] for s in range(DECK.ranks)] for r in range(DECK.ranks)]
    default = ("disconnected", "uncoverable_cards")
    pairs, commuting = Counter(), Counter()
    for d, order in enumerate(random_orders(DECK, args.table_decks, args.seed)):
        by = defaultdict(Counter)
        for row in lost_rows(searcher, [DECK.rank(c) for c in order], args.node_budget):
            band = min(len(row) // 5 * 5, 40)
            by[band]["rows"] += 1
            if proofs.stranded_cards(row, neighbours, False):
                by[band]["stranded"] += 1
                by[band]["only"] += proofs.proof_of_loss(row, neighbours, False, default) is None
            if hash(row) % 25 == 0:  # a sample of the rows for the pairs of moves
                moves = [(i, i - k) for i in range(len(row) - 1, 0, -1) for k in (1, 3)
                         if i - k >= 0 and adjacent[row[i]][row[i - k]]]
                for a in range(len(moves)):
                    for b in range(a + 1, len(moves)):
                        (x, y), (u, v) = moves[a], moves[b]
                        apart = not ({x, y} & {u, v}) and not (v < x < u or y < u < x)
                        pairs[len(row) // 10 * 10] += 1
                        commuting[len(row) // 10 * 10] += apart
        print(f"deck {d}: lost rows stored by piles (rows, closed by stranded_cards, closed by it alone): "
              + ", ".join(f"{b}-{b + 4} {c['rows']} {c['stranded'] / c['rows']:.1%} {c['only'] / c['rows']:.1%}"
                          for b, c in sorted(by.items())))
    print("pairs of legal moves that commute, by piles: " + ", ".join(
        f"{b}-{b + 9} {commuting[b] / pairs[b]:.1%} of {pairs[b]}" for b in sorted(pairs)))
    print(f"all: {sum(commuting.values()) / sum(pairs.values()):.1%} of {sum(pairs.values())}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--decks", type=int, default=40)
    parser.add_argument("--node-budget", type=int, default=500_000)
    parser.add_argument("--time-budget", type=float, default=1.0)
    parser.add_argument("--more", type=int, default=3)
    parser.add_argument("--table-decks", type=int, default=4)
    args = parser.parse_args(argv)
    profile(args)
    stored_rows(args)


if __name__ == "__main__":
    main()
