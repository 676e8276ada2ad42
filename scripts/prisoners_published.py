"""Reproduce the published Prisoner's Patience figure: 661 wins in 16,000,000 games (0.00413%).

Plays ``--games`` uniformly shuffled 52-card decks with the published policy (``moves=published``,
``wrap=on``); the same decks are also played with piles that keep their order (``moves=physical``),
so both rates come from one run on identical decks. Reports each rate with its 95% interval
(Clopper-Pearson when wins number fewer than 10, else Wilson), whether the published rate lies in
ours, and a two-sided exact test of "same rate" against the published count (conditional binomial).

    python scripts/prisoners_published.py --games 16000000 --seed 20240413 --workers 16
"""
from __future__ import annotations

import argparse
import json

from scipy import stats

from sim import Deck, Variant, simulate
from sim.stats import binomial_interval

PUBLISHED_WINS, PUBLISHED_GAMES = 661, 16_000_000


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=PUBLISHED_GAMES)
    parser.add_argument("--seed", type=int, default=20240413)
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--wrap", choices=("on", "off"), default="on")
    args = parser.parse_args(argv)
    result = simulate(Deck(4, 13), Variant.make("prisoners", moves="published", wrap=args.wrap),
                      games=args.games, seed=args.seed, workers=args.workers, progress=False)
    physical_wins = result.extra["wins_moves_physical"]
    (low, high), method = result.ci95, result.interval_method
    (plow, phigh), pmethod = binomial_interval(physical_wins, result.games)
    # Given the total wins of both runs, our share is Binomial(total, n_ours / (n_ours + n_published)).
    total = result.wins + PUBLISHED_WINS
    same_rate = stats.binomtest(result.wins, total, result.games / (result.games + PUBLISHED_GAMES)).pvalue
    report = {
        "seed": result.seed, "games": result.games, "variant": str(result.variant),
        "wins": result.wins, "p_win": result.p_win, "ci95": [low, high], "interval_method": method,
        "published_p_win": PUBLISHED_WINS / PUBLISHED_GAMES,
        "published_in_ci95": low <= PUBLISHED_WINS / PUBLISHED_GAMES <= high,
        "same_rate_p_value": same_rate,
        "physical_wins": physical_wins, "physical_p_win": physical_wins / result.games,
        "physical_ci95": [plow, phigh], "physical_interval_method": pmethod,
        "mean_piles_left": result.mean_score, "seconds": result.seconds, "workers": result.workers,
        "git_commit": result.provenance.get("git_commit"),
    }
    print(json.dumps(report, indent=1))
    return report


if __name__ == "__main__":
    main()
