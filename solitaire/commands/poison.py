"""``solitaire poison``: Hand Solitaire runs that never end, decided exactly; poison sets."""
from __future__ import annotations

import click

from ..options import (deck_options, emit_json, json_option, make_deck_variant,
                       open_store, seed_option, variant_option)


@click.command("poison")
@click.option("--game", type=click.Choice(["hand"]), default="hand", show_default=True,
              help="Poison sets are a Hand Solitaire notion.")
@deck_options
@variant_option
@click.option("--decks", type=int, default=100_000, show_default=True,
              help="Random start decks, one run each.")
@seed_option
@click.option("--cap", type=int, default=1000, show_default=True,
              help="Iterations after which a run is decided by exploring what it can reach.")
@click.option("--budget", type=int, default=200_000, show_default=True,
              help="Deck orders played at most to decide one run (beyond it: undecided).")
@click.option("--all", "whole_deck", is_flag=True,
              help="Also analyse the whole deck-order graph exactly (small decks, at most 9 cards).")
@click.option("--out", type=click.Path(dir_okay=False), default=None, metavar="FILE",
              help="Results store to save the run classification to (`solitaire report` shows it).")
@json_option
def poison_command(game, suits, ranks, variants, decks, seed, cap, budget, whole_deck, out, as_json):
    """Decide the runs that reach the iteration cap, and count poison sets.

    Every capped run is decided exactly: trapped in a poison set (a closed set of deck orders
    without a win, exhausted: a certificate), a win still reachable (a witness: leftover orders to
    choose), or undecided within --budget. Reports the share of runs that end trapped, with a
    bracket interval (undecided counted both ways), the poison-set sizes in deck orders with the
    leftover counts of the classes that make them, and the start decks from which no win is
    reachable at all (unwinnable: a different, smaller share).

    With --all, the whole graph of every deck order: the poison sets, the unwinnable orders, and
    from a uniformly random order the exact probabilities of a win and of ending trapped, and the
    expected number of iterations of a won run, as fractions.
    """
    from exact.hand_graph import analyse_deck
    from exact.poison import classify_runs

    deck, variant = make_deck_variant(game, suits, ranks, variants)
    graph = analyse_deck(deck, variant) if whole_deck else None  # refuses large decks before any work
    store = open_store(out)
    result = classify_runs(deck, variant, decks=decks, seed=seed, cap=cap, budget=budget)
    if store is not None:
        store.save(result)
    out = result.to_dict()
    if graph is not None:
        exact = graph.to_dict()
        out.update({key: exact[key] for key in ("orders", "winning_orders", "unwinnable_orders", "poison_sets",
                                                "poison_set_leftovers", "p_win", "p_trapped",
                                                "expected_iterations_given_win", "classes")})
    if as_json:
        emit_json(out)
        return
    low, high = result.to_dict()["ci95_trapped"]
    click.echo(f"{variant}  deck {deck}  seed {result.seed}  cap {cap}  budget {budget:,}")
    click.echo(f"decks {result.decks:,}: won {result.won:,}, trapped {result.trapped:,} "
               f"({result.trapped / result.decks:.4%}, 95% bracket [{low:.4%}, {high:.4%}]), "
               f"win still reachable {result.win_reachable:,}, undecided {result.undecided:,}")
    for size, runs in sorted(result.poison_set_sizes.items()):
        made = ", ".join(f"{k} x{v}" for k, v in sorted(result.poison_set_leftovers[size].items()))
        click.echo(f"  poison set of {size} deck orders: {runs} runs (leftovers per class: {made})")
    ulow, uhigh = out["ci95_unwinnable"]
    click.echo(f"unwinnable start decks: {result.unwinnable:,} ({result.unwinnable / result.decks:.4%}, "
               f"95% bracket [{ulow:.4%}, {uhigh:.4%}]), undecided {result.unwinnable_undecided:,}")
    if graph is not None:
        click.echo(f"whole deck: {graph.orders:,} orders, {graph.classes:,} classes (up to relabelling)")
        click.echo(f"  unwinnable orders {graph.unwinnable_orders:,}; poison sets "
                   + (", ".join(f"{n} of {s} orders" for s, n in sorted(graph.poison_sets.items())) or "none"))
        click.echo(f"  p_win {exact['p_win']} = {float(graph.p_win):.6f}; p_trapped {exact['p_trapped']}; "
                   f"E[iterations | win] {exact['expected_iterations_given_win']}"
                   + (f" = {float(graph.expected_iterations_given_win):.4f}" if graph.expected_iterations_given_win
                      else ""))
