"""Which small deck shapes have Hand Solitaire poison sets, and how many: the whole deck-order graph
of every S x R deck up to a number of cards, for each variant, printed as a markdown table.

Usage: python scripts/hand_poison_survey.py [MAX_CARDS] [--json]
"""
from __future__ import annotations

import json
import sys
import time

from exact.hand_graph import analyse_deck
from sim import Deck, Variant

VARIANTS = ["hand()", "hand(rank_resets=published)", "hand(step7=off)", "hand(reshuffle=off)"]


def survey(max_cards: int):
    for cards in range(4, max_cards + 1):
        for suits in range(1, cards + 1):
            if cards % suits:
                continue
            deck = Deck(suits, cards // suits)
            for text in VARIANTS:
                t0 = time.perf_counter()
                result = analyse_deck(deck, Variant.parse(text))
                yield dict(result.to_dict(), seconds=time.perf_counter() - t0)


def main(argv):
    max_cards = int(argv[0]) if argv and not argv[0].startswith("-") else 8
    rows = []
    if "--json" not in argv:
        print("| deck | variant | poison sets {size: count} | orders in poison sets | unwinnable orders | "
              "p_win | p_trapped | E[iterations given win] | classes | s |")
        print("|---|---|---|---|---|---|---|---|---|---|")
    for row in survey(max_cards):
        rows.append(row)
        if "--json" in argv:
            continue
        in_sets = sum(int(size) * count for size, count in row["poison_sets"].items())
        p_win = row["p_win"]
        num, den = map(int, p_win.split("/"))
        e = row["expected_iterations_given_win"]
        e_text = "-" if e is None else f"{int(e.split('/')[0]) / int(e.split('/')[1]):.4f}"
        print(f"| {row['suits']}x{row['ranks']} | {row['variant']} | {row['poison_sets'] or '-'} | {in_sets} | "
              f"{row['unwinnable_orders']} | {p_win if len(p_win) < 24 else '%.6f' % (num / den)} | "
              f"{row['p_trapped'] if len(row['p_trapped']) < 24 else '%.6f' % (1 - num / den)} | {e_text} | "
              f"{row['classes']} | {row['seconds']:.1f} |", flush=True)
    if "--json" in argv:
        print(json.dumps(rows))


if __name__ == "__main__":
    main(sys.argv[1:])
