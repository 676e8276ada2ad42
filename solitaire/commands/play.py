"""``solitaire play``: one deck order played step by step, as a person would follow it."""
from __future__ import annotations

import click
import numpy as np

from sim import GAMES
from sim.cards import format_cards
from sim.checks import check_seed, figure_file
from sim.errors import UsageError
from sim.games import get_game
from sim.trace import play

from ..figures import game_sizes
from ..options import INT
from ..options import deck_options, emit_json, json_option, make_deck_variant, parse_order, seed_option, variant_option


@click.command("play")
@click.option("--game", type=click.Choice(list(GAMES)), default="one-handed", show_default=True, help="Which game.")
@deck_options
@variant_option
@click.option("--order", default=None, metavar="CARDS",
              help="The deck order, first dealt first, in card notation (\"KS 7H 10D ...\": ranks A 2 .. 10 J Q K "
                   "or T, suits S H D C or ♠ ♥ ♦ ♣, any case, spaces or commas; r<rank>s<suit> for any deck) or "
                   "as card numbers (suit*R + rank, 0-based).")
@seed_option
@click.option("--choices", default=None, metavar="CARDS;CARDS;...",
              help="Hand Solitaire: the leftover orders to follow after each iteration, separated by ';' "
                   "(e.g. a witness of `solitaire poison`); then shuffles from --seed.")
@click.option("--cap", type=INT, default=100, show_default=True, help="Hand Solitaire: iterations played at most.")
@click.option("--line", default=None, metavar="MOVES",
              help="Prisoner's Patience: deal every card, then make these moves (\"7C>8D 5S>6H\": the top card "
                   "of the moved pile > the top card it goes onto), e.g. a line printed by `solitaire solve`.")
@click.option("--figure", type=click.Path(dir_okay=False), default=None, metavar="FILE.png|svg|pdf",
              help="Draw the row's length (Hand Solitaire: the stack; Prisoner's Patience: the piles) over the game.")
@json_option
def play_command(game, suits, ranks, variants, order, seed, choices, cap, line, figure, as_json):
    """Play one deck order step by step: every card dealt, every removal (the matching pair and what
    it removed), the row after it, and the score.

    The deck is --order, or shuffled from --seed (printed in card notation so it can be replayed).
    Hand Solitaire shows each iteration, its discards and the next deck; the leftovers are shuffled
    from --seed (or follow --choices). Prisoner's Patience plays the published policy with the
    moves of --variant moves=published|physical, or a best-play --line from `solitaire solve`.
    """
    deck, variant = make_deck_variant(game, suits, ranks, variants)
    rules = get_game(game)
    shuffles = "seed" in rules.options("play")  # the game draws shuffles while it is played (Hand Solitaire)
    if order is not None and seed is not None and not shuffles:
        raise UsageError("give --order or --seed, not both (--seed shuffles a deck)")
    rules.check_options({"choices": choices, "line": line})
    if figure is not None:
        figure_file(figure)  # refused before the game is played: no name, not a figure format, no folder
    if order is None:
        seed = check_seed(seed)
        cards = np.random.default_rng(seed).permutation(deck.size).tolist()
    else:
        cards = parse_order(order, deck)
        if shuffles:  # the game's shuffles' seed: fresh if not given, reported so the game can be replayed
            seed = check_seed(seed)
    choice_list = [c for c in choices.split(";") if c.strip()] if choices is not None else None
    given = {"seed": seed, "choices": choice_list, "cap": cap, "line": line}
    trace = play(cards, deck, variant, **{name: given[name] for name in rules.options("play") if name in given})
    if figure is not None:
        game_sizes(trace, figure)
    if as_json:
        record = trace.to_dict()
        if order is None or shuffles:
            record["seed"] = seed
        emit_json(record, games=[variant.game])
        return

    click.echo(f"{variant}  deck {deck}" + (f"  seed {seed}" if seed is not None else ""))
    click.echo(f"order: {format_cards(trace.order, deck)}")
    for text in trace.text():
        click.echo(text)
    if figure is not None:
        click.echo(f"figure: {figure}")
