"""Prisoner's Patience best play: which lost rows the static proofs of loss miss, and why.

    python benchmarks/prisoners_missed_losses.py [--suits 2] [--ranks 10] [--decks 15] [--seed 3]
        [--moves physical|published] [--wrap on|off] [--json FILE]

On ``--decks`` random orders of a small deck, every row reachable from the dealt row is searched
exhaustively, cards kept by identity (not only rank), and every row is classified: winnable or
lost, and for a lost row whether a static condition of ``exact/prisoners/proofs.py`` closes it.
The lost rows no condition closes are then split by what the exhaustive search knows about them:

* ``moves=physical``: how many of the row's cards are never covered in any continuation. A row with
  two or more such cards is lost for a per-card reason (a single pile has a single top card), so a
  sharper proof that a given card can never be covered could close it; rows with one or none are
  lost for reasons no per-card argument sees.
* ``moves=published``: whether some pile other than the first never moves in any continuation (in a
  win every pile but the first moves once), so a sharper proof that a pile can never move could
  close it.

Exact and slow (pure Python, the whole reachable space): meant for decks of up to about 20 cards.
"""
from __future__ import annotations

import argparse
import json
import sys
from collections import Counter

from exact.prisoners import proofs
from exact.prisoners.best_play import random_orders
from sim import Deck
from sim.rules.prisoners import DISTANCES, adjacent_ranks


def classify(deck: Deck, order, reverse: bool, wrap: bool, tally: Counter) -> None:
    """Search every row reachable from ``order`` and add each row's class to ``tally``."""
    rank = [deck.rank(c) for c in range(deck.size)]
    neighbours = [[s for s in range(deck.ranks) if adjacent_ranks(r, s, deck.ranks, wrap)]
                  for r in range(deck.ranks)]

    def top(pile):
        return pile[1] if reverse else pile

    def children(row):
        for i in range(len(row) - 1, 0, -1):
            for d in DISTANCES:
                j = i - d
                if j >= 0 and adjacent_ranks(rank[top(row[i])], rank[top(row[j])], deck.ranks, wrap):
                    merged = (row[j][0], row[i][0]) if reverse else row[i]
                    yield row[i], row[j], row[:j] + (merged,) + row[j + 1:i] + row[i + 1:]

    memo: dict = {}  # row -> (winnable, cards covered or piles moved in some continuation)

    def search(row):
        if row not in memo:
            won, touched = len(row) == 1, set()
            for mover, target, child in children(row):
                touched.add(mover[0] if reverse else top(target))
                child_won, child_touched = search(child)
                won = won or child_won
                touched |= child_touched
            memo[row] = (won, frozenset(touched))
        return memo[row]

    search(tuple((c, c) for c in order) if reverse else tuple(order))
    for row, (won, touched) in memo.items():
        if won:  # a check of the search: a winning line covers every card but one, moves every pile but the first
            never = [p[0] for p in row[1:] if p[0] not in touched] if reverse else [c for c in row if c not in touched]
            assert len(never) <= (0 if reverse else 1), (row, never)
            tally["winnable"] += 1
            continue
        ranks = tuple((rank[b], rank[t]) for b, t in row) if reverse else tuple(rank[c] for c in row)
        if proofs.proof_of_loss(ranks, neighbours, reverse) is not None:
            tally["lost, closed by a static condition"] += 1
        elif reverse:
            never = sum(1 for pile in row[1:] if pile[0] not in touched)
            tally["lost, not closed, a pile never moves" if never else "lost, not closed, every pile can move"] += 1
        else:
            never = sum(1 for c in row if c not in touched)
            label = ("no card", "1 card", "2 cards or more")[min(never, 2)]
            tally[f"lost, not closed, {label} never covered"] += 1


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suits", type=int, default=2)
    parser.add_argument("--ranks", type=int, default=10)
    parser.add_argument("--decks", type=int, default=15)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--moves", choices=["physical", "published"], default="physical")
    parser.add_argument("--wrap", choices=["on", "off"], default="on")
    parser.add_argument("--json", metavar="FILE", default=None)
    args = parser.parse_args(argv)
    deck = Deck(args.suits, args.ranks)
    sys.setrecursionlimit(max(10_000, 50 * deck.size))
    tally: Counter = Counter()
    for order in random_orders(deck, args.decks, args.seed):
        classify(deck, list(order), args.moves == "published", args.wrap == "on", tally)
    lost = sum(n for name, n in tally.items() if name.startswith("lost"))
    print(f"{args.suits}x{args.ranks}, moves={args.moves}, wrap={args.wrap}, {args.decks} decks (seed {args.seed}): "
          f"{sum(tally.values())} rows, {lost} lost")
    for name, n in sorted(tally.items()):
        share = f"{n / lost:7.1%} of lost" if name.startswith("lost") else ""
        print(f"  {name:<48} {n:>9}  {share}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"args": vars(args), "rows": dict(tally)}, f, indent=1)


if __name__ == "__main__":
    main()
