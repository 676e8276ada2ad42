"""``solitaire solve``: Prisoner's Patience best play (can some sequence of legal moves win?)."""
from __future__ import annotations

import contextlib

import click

from exact.prisoners.limits import (
    DEFAULT_NODE_BUDGETS,
    HYBRID_PROBE_NODES,
    LAYER_WIDTH_SHARE,
    LAYERS_NODE_BUDGETS,
    MAX_KERNEL_CARDS,
    MAX_LAYER_RANKS,
    STOP_MEMORY,
    STOP_SHOWN,
    STOP_TIME,
    STOP_WIDTH,
    STRATEGIES,
    layer_width_cap,
)
from exact.status import BestPlayStatus
from sim.errors import UsageError

from ..options import FLOAT, INT
from ..options import (
    checkpoint_seconds_option,
    deck_options,
    emit_json,
    json_option,
    make_deck_variant,
    open_store,
    parse_order,
    resume_option,
    seed_option,
    variant_option,
)

#: Memory for the deck orders of ``--decks`` (drawn up front as int64): 1 GiB, 2.5 million 52-card decks.
MAX_ORDER_BYTES = 1 << 30


@click.command("solve")
@click.option("--game", type=click.Choice(["prisoners"]), default="prisoners", show_default=True,
              help="Which game (best play is implemented for Prisoner's Patience).")
@deck_options
@variant_option(games=("prisoners",))
@seed_option
@click.option("--order", default=None, metavar="CARDS",
              help="Explicit deck order, first dealt first, in card notation (\"KS 7H 10D ...\", see "
                   "`solitaire play --help`) or as card numbers (0..S*R-1, card = suit*R + rank).")
@click.option("--decks", type=INT, default=None,
              help="Solve this many random decks (from --seed) and bracket the best-play win rate.")
@click.option("--all", "all_orders", is_flag=True,
              help="Exact best play over every deck order (small decks only).")
@click.option("--node-budget", type=INT, default=None,
              help="Rows expanded per deck before the verdict is 'open' [default: "
                   f"{DEFAULT_NODE_BUDGETS['published']:,} with moves=published, about 1 CPU-second a 52-card deck; "
                   f"{LAYERS_NODE_BUDGETS['physical']:,} with moves=physical (nodes and rows of the layers, "
                   "about 10 CPU-seconds a 52-card deck on average or less, some settled decks taking three "
                   f"times that; a layer of more than 1/{LAYER_WIDTH_SHARE} of the budget's rows leaves the deck "
                   f"open; {DEFAULT_NODE_BUDGETS['physical']:,} with the other strategies); the "
                   "search of a 52-card deck takes at most 4 GiB of memory].")
@click.option("--time-budget", type=FLOAT, default=None, metavar="SECONDS",
              help="CPU seconds of searching per deck before the verdict is 'open' [default: none, the node "
                   "budget only; a time budget makes verdicts depend on the machine's speed].")
@click.option("--strategy", type=click.Choice(sorted(STRATEGIES, key=lambda name: name != "restarts")), default=None,
              help="How the search spends its node budget [default: hybrid with moves=physical (on decks of at "
                   f"most {MAX_LAYER_RANKS} ranks), restarts otherwise]. restarts: depth-first runs in fresh "
                   "random move orders, each longer, sharing the table of lost rows. beam: beam searches for a "
                   "win first (10% then 40% of the budget), then the restarts. nrpa: the restarts with part of "
                   "the budget, then nested rollout policy adaptation for a win with the rest (on 52-card "
                   "moves=published decks it wins some that the restarts leave open). dfs: one depth-first "
                   "run. layers: every reachable row built layer by layer, by pile count, none forgotten (at "
                   f"most {MAX_LAYER_RANKS} ranks; with moves=physical it settles more 52-card decks than the "
                   "restarts, nearly all losses, but finds a win only at its last layer; with moves=published "
                   f"its layers grow too wide). hybrid: the restarts for {HYBRID_PROBE_NODES:,} nodes (a win), then the "
                   "layers. "
                   "Every strategy proves a loss only by exhausting the search or a static condition, and "
                   "every won line is checked by replay; only open verdicts and speed differ. Decks of more "
                   f"than {MAX_KERNEL_CARDS} cards take dfs only.")
@click.option("--out", type=click.Path(dir_okay=False), default=None, metavar="FILE",
              help="Results store (HDF5) to save the result to (`solitaire runs --out FILE` lists it). With "
                   "--decks the run checkpoints there as it goes: a stopped one resumes when the same command is "
                   "run again. A result already stored (the same decks, deck order or whole deck, and budgets) is "
                   "shown from the store, not computed and stored again.")
@resume_option("With --decks and --out", "run")
@checkpoint_seconds_option("With --decks and --out")
@click.option("--progress/--no-progress", default=True, show_default=True,
              help="With --decks: progress bar on stderr (decks solved, proved won, proved lost, open) once it runs a few "
                   "seconds.")
@json_option
def solve_command(game, suits, ranks, variants, seed, order, decks, all_orders, node_budget, time_budget, strategy,
                  out, resume, checkpoint_seconds, progress, as_json):
    """Decide best play: whether a deck order can be won (one pile left) by some sequence of legal
    moves: proved won (a winning line, checked by replay), proved lost (named by its proof) or open
    (the budget ran out first).

    A winning line is given in card notation; a loss names its proof (a static condition, or
    'exhaustion', every row searched); an open verdict shows the nodes and seconds spent.

    One deck: --order, or a deck shuffled from --seed. Many: --decks N (random decks from --seed;
    counts of proved won, proved lost and open decks; the 95% interval counts open decks as lost at
    its low end and as won at its high end).
    --all: exact best play over every order of a small deck (score = fewest piles reachable).
    With --decks and --out, Ctrl-C or SIGTERM stops the run between two decks and saves them (exit
    status 130 or 143); the same command resumes it.
    Moves default to moves=physical (a pile moves as a unit); --variant moves=published uses the
    published simulator's card-by-card (reversing) move. Deals interleaved with moves win exactly the
    decks that "deal everything, then move" wins, so the line lists moves after the last deal.
    """
    from exact.prisoners.best_play import (
        best_play_distribution,
        estimate_best_play,
        random_orders,
    )
    from exact.prisoners.solver import (
        SOLVER_VERSION,
        SolveResult,
        check_time_budget,
        make_searcher,
        resolve_node_budget,
        solve,
    )
    from exact.result import ExactResult
    from sim.checks import check_decks, check_seed, non_negative_number

    from ..best_play import estimate_best_play_stored, stored_verdict

    if not any(v.strip().startswith("moves=") for v in variants):
        variants = (*variants, "moves=physical")
    deck, variant = make_deck_variant(game, suits, ranks, variants)
    if sum(x is not None and x is not False for x in (order, decks, all_orders or None)) > 1:
        raise UsageError("give at most one of --order, --decks and --all")
    if seed is not None and (order is not None or all_orders):
        raise UsageError(f"--seed has no effect with {'--order' if order is not None else '--all'} (it shuffles "
                         "the deck of a single solve, or the decks of --decks): leave it out")
    if all_orders and strategy is not None:
        raise UsageError(f"--strategy {strategy} has no effect with --all (exact best play expands every row): "
                         "leave it out")
    if all_orders:
        _check_all_orders(deck)
    else:  # the strategy that runs (a deck beyond the numba engine takes dfs only: refused here, before any work)
        strategy = make_searcher(deck, variant, strategy=strategy).strategy
    if decks is not None:
        check_decks(decks)
        most = MAX_ORDER_BYTES // (8 * deck.size)
        if decks > most:
            raise UsageError(f"--decks {decks:,}: at most {most:,} decks of {deck} at once (their orders are drawn "
                             "up front and held in memory): split the work into runs with different seeds")
    time_budget = check_time_budget(time_budget)
    budget = resolve_node_budget(node_budget, variant, strategy)
    checkpoint_seconds = non_negative_number("checkpoint-seconds", checkpoint_seconds)
    if seed is not None:
        check_seed(seed)
    store = open_store(out)  # a bad store is refused before any work
    notify = lambda message: click.echo(f"solitaire: {message}", err=True)  # noqa: E731
    if all_orders:
        identity = {"kind": "exact", "game": game, "variant": str(variant), "suits": deck.suits, "ranks": deck.ranks,
                    "method": "best-play"}
        with store.run_lock(identity, on_wait=notify) if store is not None else contextlib.nullcontext():
            found = stored_verdict(store, "exact", deck, variant, method="best-play") if store is not None else None
            if found is not None:  # exact and deterministic: served from the store, not computed and stored again
                notify(f"the best play of every order of {deck} {variant} is already in {store.path} as {found[0]}: "
                       "shown from there")
                result, name = ExactResult.from_record(found[1]), found[0]
            else:
                result = best_play_distribution(deck, variant)
                name = _save(store, result)
        if as_json:
            emit_json(result.to_dict(), games=[variant.game], engines={"prisoners solver": SOLVER_VERSION})
            return
        click.echo(f"{variant}  deck {deck}  best play over all {result.orders:,} orders")
        click.echo(f"winnable orders {result.wins:,}  p_win {result.p_win} = {float(result.p_win):.6%}")
        click.echo("fewest piles: " + ", ".join(f"{s}:{c}" for s, c in enumerate(result.score_counts) if c))
        lost_by = result.provenance.get("lost_by") or {}
        if lost_by:
            click.echo("lost orders closed by: " + _proofs_line(lost_by))
        _echo_stored(name, out)
        return
    if decks is not None:
        from sim.progress import progress_bar

        with progress_bar(decks, progress, desc="solve", unit="deck") as bar:
            def on_deck(solved, counts):
                bar.set_postfix({BestPlayStatus.parse(status).shown: n for status, n in counts.items()},
                                refresh=False)
                bar.update(solved - bar.n)

            if store is not None:
                result = estimate_best_play_stored(store, deck, variant, decks=decks, seed=seed, node_budget=budget,
                                                   time_budget=time_budget, strategy=strategy, progress=on_deck,
                                                   resume=resume, checkpoint_seconds=checkpoint_seconds,
                                                   notify=notify)
            else:
                result = estimate_best_play(deck, variant, decks=decks, seed=seed, node_budget=budget,
                                            time_budget=time_budget, strategy=strategy, progress=on_deck)
        name = result.provenance.get("stored_as")
        if as_json:
            emit_json(result.to_dict(), games=[variant.game], engines={"prisoners solver": SOLVER_VERSION})
            return
        low, high = result.ci95
        click.echo(f"{variant}  deck {deck}  seed {result.seed}  node budget {budget:,}"
                   + (f"  time budget {time_budget:g} s" if time_budget is not None else "")
                   + f"  strategy {result.strategy}")
        click.echo(f"decks {result.decks:,}  proved won {result.won:,}  proved lost {result.lost:,}  "
                   f"open {result.undecided:,} (the search stopped before a proof either way)")
        click.echo(f"best-play win rate 95% CI [{low:.4%}, {high:.4%}] (open decks counted lost, then won)")
        if result.lost:
            click.echo("proved lost by: " + _proofs_line(dict(result.lost_by)))
        if result.undecided and result.open_by:  # None for a run begun before verdicts said why
            click.echo("open, stopped by: " + _proofs_line({STOP_SHOWN[k]: n for k, n in result.open_by}))
        click.echo(f"{result.nodes:,} nodes  {result.seconds:.1f} CPU s  "
                   f"{result.seconds / result.decks:.3f} s a deck")
        _echo_stored(name, out)
        return
    if order is not None:
        cards = parse_order(order, deck)
    else:
        seed = check_seed(seed)  # fresh if not given: reported with the order
        cards = random_orders(deck, 1, seed)[0].tolist()
    found = stored_verdict(store, SolveResult.kind, deck, variant, order=[int(c) for c in cards], node_budget=budget,
                           time_budget=time_budget, solver_version=SOLVER_VERSION, strategy=strategy,
                           defaults={"strategy": "restarts"}  # the default when verdicts did not name theirs
                           ) if store is not None else None
    if found is not None:  # the verdict depends on the order and the budgets only: served from the store
        notify(f"this deck order's verdict is already in {store.path} as {found[0]}: shown from there")
        result, name = SolveResult.from_record(found[1]), found[0]
    else:
        result = solve(cards, deck, variant, node_budget=budget, time_budget=time_budget, strategy=strategy)
        name = _save(store, result)
    from sim.cards import format_cards
    from sim.trace import describe_line, line_tokens

    if as_json:
        record = result.to_dict()
        record["order_cards"] = format_cards(result.order, deck)
        if order is None:  # shuffled from --seed (fresh if not given): the seed that replays it
            record["seed"] = seed
        if result.won:  # the line as moves between cards, for `solitaire play --line`
            record["line_cards"] = line_tokens(result.order, deck, variant, result.line)
        emit_json(record, games=[variant.game], engines={"prisoners solver": SOLVER_VERSION})
        return
    click.echo(f"{variant}  deck {deck}" + (f"  seed {seed}" if order is None else "")
               + f"  order {format_cards(result.order, deck)}")
    if result.won:
        click.echo(f"proved won: this line of {len(result.line)} moves after dealing all cards wins ({result.nodes:,} "
                   f"nodes, strategy {result.strategy}, line checked by replay):")
        for number, move in enumerate(describe_line(result.order, deck, variant, result.line), start=1):
            click.echo(f"{number:4d}. {move}")
        variant_args = " ".join(f"--variant {k}={v}" for k, v in variant.params)
        click.echo(f"replay: solitaire play --game prisoners --suits {deck.suits} --ranks {deck.ranks} {variant_args} "
                   f"--order \"{format_cards(result.order, deck)}\" "
                   f"--line \"{line_tokens(result.order, deck, variant, result.line)}\"")
    elif result.status == BestPlayStatus.LOST and result.proof == "exhaustion":
        cuts = ", ".join(f"{n} {c:,}" for n, c in result.cuts)
        click.echo(f"proved lost (proof: exhaustion): no sequence of moves wins, every row searched after "
                   f"{result.nodes:,} nodes, strategy {result.strategy}" + (f"; rows cut by {cuts}" if cuts else ""))
    elif result.status == BestPlayStatus.LOST:
        click.echo(f"proved lost (proof: {result.proof}): the dealt row fails this necessary condition for a win "
                   "(exact.prisoners.proofs)")
    else:
        if result.stop == STOP_TIME:
            why = f"its time budget of {time_budget:g} CPU s was spent"
        elif result.stop == STOP_WIDTH:
            why = (f"a layer of the layered search would have held more than its cap of {layer_width_cap(budget):,} "
                   f"rows (1/{LAYER_WIDTH_SHARE} of the node budget {budget:,})")
        elif result.stop == STOP_MEMORY:
            from exact.prisoners.layers import MAX_LAYER_BYTES

            why = (f"a layer of the layered search would have needed more than its memory cap of "
                   f"{MAX_LAYER_BYTES / 2**30:g} GiB")
        else:
            why = f"its node budget of {budget:,} was spent"
        click.echo(f"open: no proof either way after {result.nodes:,} nodes and {result.seconds:.2f} CPU s "
                   f"(strategy {result.strategy}): {why}; a larger --node-budget or another --strategy may settle it")
    _echo_stored(name, out)


def _check_all_orders(deck) -> None:
    """Refuse --all on a deck too large for exact best play, pointing to --decks."""
    import math

    from exact.prisoners.best_play import MAX_BEST_PLAY_SEQUENCES

    sequences = math.factorial(deck.size) // math.factorial(deck.suits) ** deck.ranks
    if sequences > MAX_BEST_PLAY_SEQUENCES:
        raise UsageError(f"--all: deck {deck} has {sequences:.3g} rank sequences, more than exact best play handles "
                         f"({MAX_BEST_PLAY_SEQUENCES:,}): estimate it from random decks with --decks N instead")


def _proofs_line(lost_by: dict) -> str:
    return ", ".join(f"{name} {count:,}" for name, count in sorted(lost_by.items(), key=lambda kv: -kv[1]))


def _save(store, result) -> str | None:
    """Save to the store given by --out (if any); its name in the store, or None."""
    return store.save(result) if store is not None else None


def _echo_stored(name, out) -> None:
    if name is not None:
        click.echo(f"stored as {name} in {out}")
