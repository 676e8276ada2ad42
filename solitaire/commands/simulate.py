"""``solitaire simulate``: Monte Carlo estimate with intervals."""
from __future__ import annotations

import click

from sim import simulate as run_simulation

from ..options import (deck_options, emit_json, game_option, json_option, make_deck_variant, seed_option,
                       variant_option, workers_option)


@click.command("simulate")
@game_option()
@deck_options
@variant_option
@click.option("--games", type=int, default=1_000_000, show_default=True, help="Games to play.")
@seed_option
@workers_option
@click.option("--progress/--no-progress", default=True, show_default=True,
              help="Progress bar on stderr for runs longer than a few seconds.")
@json_option
def simulate_command(game, suits, ranks, variants, games, seed, workers, progress, as_json):
    """Estimate the win probability by playing uniformly shuffled games.

    Reports wins, p_win with a 95% interval (Wilson; Clopper-Pearson when wins or losses number
    fewer than 10), the whole score distribution, the mean score with its standard error, and speed.
    The same --seed gives the same counts for any --workers.
    """
    deck, variant = make_deck_variant(game, suits, ranks, variants)
    result = run_simulation(deck, variant, games=games, seed=seed, workers=workers, progress=progress)
    if as_json:
        emit_json(result.to_dict())
        return
    low, high = result.ci95
    click.echo(f"{variant}  deck {deck}  seed {result.seed}")
    click.echo(f"games {result.games:,}  wins {result.wins:,}  p_win {result.p_win:.6%}  "
               f"95% CI [{low:.6%}, {high:.6%}] ({result.interval_method})")
    click.echo(f"mean score {result.mean_score:.4f} +- {result.mean_score_se:.4f} (s.e.)  "
               f"{result.seconds:.2f} s  {result.games_per_second:,.0f} games/s")
    nonzero = {s: c for s, c in enumerate(result.score_counts) if c}
    click.echo("score counts: " + ", ".join(f"{s}:{c}" for s, c in nonzero.items()))
