"""``solitaire exact``: the score distribution counted over every deck order."""
from __future__ import annotations

import click

from sim.errors import UsageError

from ..options import deck_options, emit_json, game_option, json_option, make_deck_variant, variant_option


@click.command("exact")
@game_option()
@deck_options
@variant_option
@click.option("--method", type=click.Choice(["auto", "enumerate", "dp"]), default="auto", show_default=True,
              help="enumerate: every deck order (small decks); dp: dynamic programming over reduced hand "
                   "states; auto: dp.")
@json_option
def exact_command(game, suits, ranks, variants, method, as_json):
    """Count, over all (S*R)! deck orders, how many end with each score (exact integers).

    Prints p_win and the mean score as exact fractions. One-Handed only. Decks beyond a method's
    size limit are refused at once (use `solitaire simulate` for those).
    """
    from exact import exact_distribution

    if game != "one-handed":
        raise UsageError(f"exact counts are implemented for --game one-handed only, not {game}; "
                         "use `solitaire simulate` for an estimate")
    deck, variant = make_deck_variant(game, suits, ranks, variants)
    result = exact_distribution(deck, variant, method=method)
    if as_json:
        emit_json(result.to_dict())
        return
    seconds = result.provenance.get("seconds", 0.0)
    click.echo(f"{variant}  deck {deck}  method {result.method}  {seconds:.2f} s")
    click.echo(f"orders {result.orders:,}  wins {result.wins:,}")
    click.echo(f"p_win = {result.p_win} ~ {float(result.p_win):.6%}")
    click.echo(f"mean score = {result.mean_score} ~ {float(result.mean_score):.6f}")
    nonzero = {s: c for s, c in enumerate(result.score_counts) if c}
    click.echo("score counts: " + ", ".join(f"{s}:{c}" for s, c in nonzero.items()))
