"""``solitaire odds``: One-Handed Solitaire, the chance of winning from the cards dealt so far."""
from __future__ import annotations

import click

from sim.errors import UsageError

from ..options import INT
from ..options import deck_options, emit_json, json_option, seed_option, variant_option

#: Most games one position's simulation may have (about 20 minutes of one core at a million games
#: a second; it runs in one piece, so larger ones are refused up front).
MAX_ODDS_GAMES = 10**9


@click.command("odds")
@click.option("--game", type=click.Choice(["one-handed"]), default="one-handed", show_default=True,
              help="Odds from a position are implemented for One-Handed Solitaire.")
@deck_options
@variant_option(games=("one-handed",))
@click.option("--dealt", default=None, metavar="CARDS",
              help="The cards dealt so far, in order, in card notation (\"KS 7H 10D\"; see `solitaire play "
                   "--help`) or as card numbers. Empty: the odds before the first card.")
@click.option("--each", "each_order", default=None, metavar="CARDS",
              help="A full deck order: the odds after every card of it (a table; --figure draws it).")
@click.option("--method", type=click.Choice(["auto", "exact", "simulate"]), default="auto", show_default=True,
              help="auto: exact (fractions) with at most 13 cards to come, or before the first card of a "
                   "deck of up to 16 cards; simulated with a 95% interval beyond. exact: up to 16 cards to come "
                   "(minutes; where the tables fit in memory; --checkpoint-dir keeps the work on Ctrl-C). final=once: "
                   "the search alone, auto exact to 11 cards to come, exact to 13.")
@click.option("--engine", type=click.Choice(["auto", "phase", "search"]), default="auto", show_default=True,
              help="The exact engine from a position: phase (the phase recursion over the sets of cards to come) "
                   "or search (a memoised search over dealt prefixes); auto takes phase from 12 cards to come "
                   "(search for final=once, which phase does not count). Both give the same counts.")
@click.option("--games", type=INT, default=None,
              help="Games per simulated position [default: 1,000,000; with --each 100,000; at most "
                   f"{MAX_ODDS_GAMES:,}, about 20 minutes of one core, since a position's simulation keeps "
                   "nothing if stopped].")
@click.option("--workers", type=INT, default=None,
              help="Threads of the exact phase engine (default: all cores); the same counts whatever the number. "
                   "A simulated position runs on one core.")
@seed_option
@click.option("--figure", type=click.Path(dir_okay=False), default=None, metavar="FILE.png|svg|pdf",
              help="With --each: draw the chance of winning after every card.")
@click.option("--checkpoint-dir", type=click.Path(file_okay=False), default=None, metavar="DIR",
              help="One position counted by the exact phase engine: keep its counts in DIR after each row depth "
                   "(at most every 10 s, and on Ctrl-C or SIGTERM, which stop at the next depth) and resume "
                   "there when the same command is run again; the file is removed once the odds are shown. "
                   "The search engine (final=once, or fewer than 12 cards to come) and simulated odds keep nothing.")
@json_option
def odds_command(game, suits, ranks, variants, dealt, each_order, method, engine, games, workers, seed, figure,
                 checkpoint_dir, as_json):
    """The odds from here: given the cards dealt so far, the probability of winning and the whole
    distribution of the final score over every order of the cards still to come, exact while
    few cards are left, simulated beyond.

    --each ORDER: the odds after every card of one game (how the chance of winning rose and fell).
    """
    from exact.one_handed.odds import odds, odds_each
    from sim import Deck, Variant

    from sim.checks import check_workers

    deck, variant = Deck(suits, ranks), Variant.from_options(game, variants)
    workers = check_workers(workers)
    if games is not None:
        from sim.checks import int_in_range

        int_in_range("--games", games, 1, MAX_ODDS_GAMES, unit="games per simulated position: they run on one "
                     "core and keep nothing if stopped; for a whole deck use `solitaire simulate`")
    if (dealt is None) == (each_order is None) and not (dealt is None and each_order is None):
        raise UsageError("give --dealt or --each, not both")
    if checkpoint_dir is not None and each_order is not None:
        raise UsageError("--checkpoint-dir keeps the count of one position (--dealt); --each counts each in seconds")
    if checkpoint_dir is not None:
        from sim.checks import writable_folder

        writable_folder(checkpoint_dir, option="--checkpoint-dir")
    if figure is not None and each_order is None:
        raise UsageError("--figure draws the odds after every card: give --each ORDER")
    if figure is not None:
        from sim.checks import figure_file

        figure_file(figure)  # refused before the odds are computed: no name, not a figure format, no folder
    if each_order is not None:
        results = odds_each(each_order, deck, variant, method=method, games=100_000 if games is None else games,
                            seed=seed, engine=engine, workers=workers, progress=False)
        rows = [r.to_dict() for r in results]
        if figure is not None:
            from ..figures import odds_curve

            odds_curve(rows, figure, f"{variant}, {deck}: P(win) after each card")
        if as_json:
            emit_json({"suits": deck.suits, "ranks": deck.ranks, "variant": str(variant), "each": rows},
                      games=[variant.game])
            return
        simulated = [r.seed - t for t, r in enumerate(results) if r.method == "simulated"]
        click.echo(f"{variant}  deck {deck}" + (f"  seed {simulated[0]} (a simulated row after t cards: seed "
                                                 f"{simulated[0]} + t; --seed {simulated[0]} with the same --games "
                                                 "repeats them)"
                                                 if simulated else ""))
        click.echo(f"{'dealt':>5}  {'card':>4}  {'p_win':>10}  method")
        for t, r in enumerate(results):
            card = r.to_dict()["dealt"].split()[-1] if t else "-"
            low_high = f"  [{r.ci95[0]:.4%}, {r.ci95[1]:.4%}]" if r.ci95 else ""
            exact = f"  = {r.p_win}" if r.method == "exact" and r.p_win not in (0, 1) else ""
            click.echo(f"{t:5d}  {card:>4}  {float(r.p_win):10.4%}  {r.method}{low_high}{exact}")
        if figure is not None:
            click.echo(f"figure: {figure}")
        return
    from sim import interrupts

    kwargs = dict(method=method, games=1_000_000 if games is None else games, seed=seed, engine=engine,
                  workers=workers)
    if checkpoint_dir is not None and not variant.rules.final_once and engine != "search":
        with interrupts.deferred():  # the phase engine stops at the next row depth, its counts saved
            result = odds(dealt or "", deck, variant, checkpoint_dir=checkpoint_dir, **kwargs)
            interrupts.forget()  # a signal after the last depth: the odds are complete, shown below
    else:
        with interrupts.keeping(": nothing was kept (the exact phase engine keeps its counts with "
                                "--checkpoint-dir DIR)"):
            result = odds(dealt or "", deck, variant, **kwargs)
    if as_json:
        emit_json(result.to_dict(), games=[variant.game])
        return
    record = result.to_dict()
    click.echo(f"{variant}  deck {deck}  dealt {len(result.dealt)}: {record['dealt'] or '(none)'}")
    plural = lambda n, word: f"{n:,} {word}{'' if n == 1 else 's'}"  # noqa: E731
    what = f"{plural(result.remaining, 'card')} to come, " + (
        "the game is over" if result.remaining == 0
        else f"{plural(result.total, 'order')} (exact, engine {result.engine}, {result.seconds:.2f} s)"
        if result.method == "exact" else f"{plural(result.total, 'simulated game')} (seed {result.seed})")
    click.echo(what)
    if result.method == "exact":
        click.echo(f"p_win {result.p_win} = {float(result.p_win):.6%}")
    else:
        click.echo(f"p_win {result.p_win:.4%}  95% CI [{result.ci95[0]:.4%}, {result.ci95[1]:.4%}]")
    click.echo("score distribution: " + ", ".join(f"{s}:{c}" for s, c in enumerate(result.score_counts) if c))
