"""The second witness for the exact frontier: Monte Carlo against every stored exact One-Handed result
past 20 cards (the decks only the zeta method and the narrow-deck DP reach).

    .venv/bin/python scripts/frontier_mc.py [--games 100000000] [--min-cards 21] [--seed 16]
                                            [--out results/solitaire.h5] [--table results/frontier_mc.md]

For each stored exact result (every variant stored; ``reverse=on`` on SxR only where the plain game
on RxS, the same counts, is not stored), ``--games`` games are simulated with a seed
derived from ``--seed``, the deck and the variant, and compared with the exact counts by the G-test
of the whole score distribution and the exact binomial test of p_win, all p-values corrected together
with Holm's method at ``--alpha``. The simulations are saved to the store and found there again
(the same seed and games), so a re-run reads them back instead of playing them again. Exits 1 when a
comparison fails. At 24 cards one core plays about 10^8 games in 10-20 seconds.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from exact.result import ExactResult
from sim import Deck, Variant
from sim.montecarlo import simulate
from sim.rng import derive_seed
from sim.store import DEFAULT_PATH, ResultsStore
from solitaire.validate import g_test, holm, p_win_test


def stored_frontier(store: ResultsStore, min_cards: int) -> list[ExactResult]:
    """The stored exact One-Handed results of at least ``min_cards`` cards with at least 2 suits and 2
    ranks (newest per deck and variant)."""
    found = {}
    for _, record in store.find(kind="exact"):
        if (record["game"] == "one-handed" and record["suits"] * record["ranks"] >= min_cards
                and min(record["suits"], record["ranks"]) >= 2):  # one suit or one rank: a single score
            found[(record["suits"], record["ranks"], record["variant"])] = record
    results = [ExactResult.from_record(r) for _, r in sorted(found.items())]
    # reverse=on on SxR is the plain game on RxS (the same counts): tested once, on the transposed deck
    shapes = {(r.deck.suits, r.deck.ranks, r.variant.rules.win_any) for r in results if not r.variant.rules.reverse}
    results = [r for r in results if not r.variant.rules.reverse
               or (r.deck.ranks, r.deck.suits, r.variant.rules.win_any) not in shapes]
    return sorted(results, key=lambda r: (r.deck.size, r.deck.suits, str(r.variant)))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000_000)
    parser.add_argument("--min-cards", type=int, default=21)
    parser.add_argument("--seed", type=int, default=16)
    parser.add_argument("--alpha", type=float, default=0.01)
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--out", default=str(DEFAULT_PATH))
    parser.add_argument("--table", default="results/frontier_mc.md")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games must be at least 1")
    if not Path(args.out).exists():
        parser.error(f"no results store at {args.out}: run scripts/exact_table.py first")
    store = ResultsStore(args.out)
    exact = stored_frontier(store, args.min_cards)
    if not exact:
        parser.error(f"no exact One-Handed result of {args.min_cards} cards or more in {args.out}")
    rows, p_values = [], []
    for result in exact:
        seed = derive_seed(args.seed, result.deck.suits, result.deck.ranks, str(result.variant))
        mc = simulate(result.deck, result.variant, games=args.games, seed=seed, workers=args.workers,
                      out=store, reuse=True, progress=False)
        g, p_g, cells = g_test(mc.score_counts, result.score_counts, result.orders)
        _, p_b = p_win_test(mc.wins, mc.games, result.p_win)
        low, high = mc.ci95
        p_values += [p_g, p_b]
        rows.append([result, mc, g, p_g, cells, p_b, low <= float(result.p_win) <= high])
        print(f"{result.deck} {result.variant}: exact {float(result.p_win):.6%}, simulated {mc.p_win:.6%} "
              f"[{low:.6%}, {high:.6%}], G = {g:.1f} ({cells}) p = {p_g:.3g}, binomial p = {p_b:.3g}", flush=True)
    rejected = holm(p_values, args.alpha)
    lines = ["| deck | variant | method | exact p_win | simulated p_win [95% interval] | games | G-test p | "
             "binomial p | passed |", "|---|---|---|---|---|---|---|---|---|"]
    for i, (result, mc, g, p_g, cells, p_b, covered) in enumerate(rows):
        ok = not (rejected[2 * i] or rejected[2 * i + 1])
        low, high = mc.ci95
        lines.append(f"| {result.deck} | {result.variant} | {result.method} | {float(result.p_win):.6%} | "
                     f"{mc.p_win:.6%} [{low:.6%}, {high:.6%}] | {mc.games:,} | {p_g:.3g} ({cells}) | {p_b:.3g} | "
                     f"{'yes' if ok else '**no**'} |")
    failed = sum(rejected)
    summary = (f"{len(rows)} exact results of {args.min_cards}+ cards against {args.games:,} simulated games each "
               f"(seed {args.seed}); {len(p_values)} p-values, Holm at alpha = {args.alpha}: "
               f"{'all passed' if not failed else f'{failed} rejected'}.")
    Path(args.table).parent.mkdir(parents=True, exist_ok=True)
    Path(args.table).write_text(summary + "\n\n" + "\n".join(lines) + "\n")
    print(summary)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
