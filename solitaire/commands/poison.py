"""``solitaire poison``: Hand Solitaire runs that never end, decided exactly; poison sets."""
from __future__ import annotations

import click

from sim import interrupts

from exact.hand.limits import MAX_GRAPH_CARDS

from ..options import INT
from ..options import (checkpoint_seconds_option, deck_options, emit_json, json_option, make_deck_variant,
                       open_store, resume_option, seed_option, variant_option)
from ..poison import ESTIMATE_FROM_DECKS

#: Random start decks classified when --decks is not given (and --all is not either).
DEFAULT_DECKS = 100_000
#: Keys of the whole-graph result (``--all``) copied into the JSON object. The graph's leftover
#: lists go under ``poison_set_leftovers_exact``: ``poison_set_leftovers`` is the runs' table.
GRAPH_KEYS = ("orders", "winning_orders", "unwinnable_orders", "poison_sets", "p_win", "p_trapped",
              "expected_iterations_given_win", "classes")
#: The runs' keys of the JSON object, null when the random decks were not classified (--all alone).
RUN_KEYS = ("trapped", "poison_set_sizes", "poison_set_leftovers", "unwinnable", "undecided")
#: A whole-graph analysis (--all) says where it is once it has run this long (CPU seconds), then at
#: each phase and at most every :data:`GRAPH_PROGRESS_EVERY` seconds while lifting: the 12-card
#: decks take seconds to about half an hour, small ones stay quiet.
GRAPH_PROGRESS_AFTER = 2.0
GRAPH_PROGRESS_EVERY = 30.0


def graph_progress(notify, *, after: float = GRAPH_PROGRESS_AFTER, every: float = GRAPH_PROGRESS_EVERY):
    """A ``progress`` callable for :func:`exact.hand.whole_deck.analyse_deck` that tells ``notify`` (one
    line) what the analysis has reached: the classes explored, the unknowns after lumping, the dense
    core, the lifting steps and digits so far; nothing before ``after`` CPU seconds."""
    import time

    t0, last = time.process_time(), [None, -float("inf")]

    def report(info: dict) -> None:
        now = time.process_time() - t0
        phase = info.get("phase")
        if now < after or (phase == last[0] == "lifting" and now - last[1] < every):
            return
        if phase == "explored":
            text = f"explored {info['classes']:,} classes"
        elif phase == "lumped":
            text = f"lumped: {info['lumped_unknowns']:,} unknowns"
        elif phase == "sparse part eliminated":
            text = f"sparse part eliminated, dense core of {info['core']:,} to factor"
        elif phase == "factored":
            text = f"factored modulo a prime (dense core {info['core']:,}); lifting"
        elif phase == "lifting":
            text = f"lifting: {info['steps']:,} steps, {info['digits']:,} digits" + (
                ", p_win found" if info.get("p_win_found") else "")
        else:
            return
        last[0], last[1] = phase, now
        notify(f"whole graph: {text} ({now:,.0f} CPU-s)")

    return report


@click.command("poison")
@click.option("--game", type=click.Choice(["hand"]), default="hand", show_default=True,
              help="Poison sets are a Hand Solitaire notion.")
@deck_options
@variant_option(games=("hand",))
@click.option("--decks", type=INT, default=None,
              help=f"Random start decks, one run each [default: {DEFAULT_DECKS:,}; with --all: none, "
                   "unless --decks is given].")
@seed_option
@click.option("--cap", type=INT, default=1000, show_default=True,
              help="Iterations after which a run is decided by exploring what it can reach.")
@click.option("--budget", type=INT, default=200_000, show_default=True,
              help="Deck orders played at most to decide one run (beyond it: undecided).")
@click.option("--all", "whole_deck", is_flag=True,
              help=f"Analyse the whole deck-order graph exactly (small decks, at most {MAX_GRAPH_CARDS} "
                   "cards) instead of random decks; give --decks as well to classify random decks too. With "
                   "--out it checkpoints in the store's journal (the explored graph, then the lifting every "
                   "--checkpoint-seconds): Ctrl-C or SIGTERM keeps it and the same command resumes it (the "
                   "12-card decks take up to about 10 CPU-minutes).")
@click.option("--out", type=click.Path(dir_okay=False), default=None, metavar="FILE",
              help="Results store to save the results to: the run classification and, with --all, the "
                   "whole-graph result (`solitaire report` shows them). Both checkpoint there as they go: a "
                   "stopped one resumes when the same command is run again, a finished one is shown from the "
                   "store.")
@resume_option("With --out", "classification or whole-graph analysis")
@checkpoint_seconds_option("With --out")
@click.option("--progress/--no-progress", default=True, show_default=True,
              help="Progress bar on stderr for classifications longer than a few seconds; with --all, a line "
                   "at each phase of an analysis longer than a few seconds.")
@click.option("--yes", is_flag=True,
              help=f"Start a classification estimated to take more than a day (runs of {ESTIMATE_FROM_DECKS:,} "
                   "decks or more are timed on a sample first and refused beyond that without --yes).")
@json_option
def poison_command(game, suits, ranks, variants, decks, seed, cap, budget, whole_deck, out, resume,
                   checkpoint_seconds, progress, yes, as_json):
    """Decide the runs that reach the iteration cap, and count poison sets.

    Every capped run is decided exactly: trapped in a poison set (a closed set of deck orders
    without a win, exhausted: a certificate), a win still reachable (a witness: leftover orders to
    choose), or undecided within --budget. Reports the share of runs that end trapped, with a
    bracket interval (undecided counted both ways), the poison-set sizes in deck orders with the
    leftover counts of the classes that make them, and the start decks from which no win is
    reachable at all (unwinnable: a different, smaller share).

    With --all, the whole graph of every deck order: the poison sets, the unwinnable orders, and
    from a uniformly random order the exact probabilities of a win and of ending trapped, and the
    expected number of iterations of a won run, as fractions (long ones shortened to value, digits
    and hash; in full with --json). The random decks are then not
    classified unless --decks is given (the exact answer makes them redundant, and they are slow);
    the JSON object then has "decks": 0 and null run counts.

    With --out, Ctrl-C or SIGTERM stops the classification between two chunks of decks and saves
    them, and the whole-graph analysis at the end of a lifting step and saves its state (exit status
    130 or 143); the same command resumes either, and with --no-resume starts it again. Without
    --out the whole-graph analysis keeps nothing.
    """
    from sim.fractions_text import fraction_digest
    from exact.hand.poison import classify_runs
    from exact.hand.whole_deck import HandGraphResult, analyse_deck
    from sim.checks import check_budget, check_decks, check_seed, non_negative_number
    from sim.kernels.hand import check_cap

    from ..poison import DEFAULT_MAX_HOURS, check_size, classify_runs_stored

    deck, variant = make_deck_variant(game, suits, ranks, variants)
    if decks is not None:
        check_decks(decks)
    elif not whole_deck:
        decks = DEFAULT_DECKS
    checkpoint_seconds = non_negative_number("checkpoint-seconds", checkpoint_seconds)
    store = open_store(out)  # a bad store is refused before any work
    notify = lambda message: click.echo(f"solitaire: {message}", err=True)  # noqa: E731
    if seed is not None:
        check_seed(seed)
    if decks is not None:
        check_cap(cap)
        check_budget("budget", budget, unit="deck orders per decision")
        check_size(deck, variant, decks=decks, cap=cap, budget=budget, max_hours=None if yes else DEFAULT_MAX_HOURS,
                   notify=notify)
    graph = None
    graph_report = graph_progress(notify) if progress else None
    if whole_deck and store is None:
        with interrupts.keeping(": the whole-graph analysis keeps its work only with --out FILE: nothing of it "
                                "was kept"):
            graph = analyse_deck(deck, variant, progress=graph_report)  # refuses large decks at once
    elif whole_deck:
        identity = {"kind": HandGraphResult.kind, "variant": str(variant), "suits": deck.suits, "ranks": deck.ranks}
        with store.run_lock(identity, on_wait=notify):  # a second process asking for it waits, then is served
            found = store.find(kind=HandGraphResult.kind, suits=deck.suits, ranks=deck.ranks, variant=str(variant))
            if found:  # exact and deterministic: served from the store, not computed and stored again
                _discard_graph_checkpoint(store, identity)  # left by a run killed once it had stored
                notify(f"the whole graph of {deck} {variant} is already in {store.path} as {found[-1][0]}: shown "
                       "from there")
                graph = HandGraphResult.from_record(found[-1][1])
            else:
                if not resume:  # --no-resume: an unfinished analysis starts again from the start
                    _discard_graph_checkpoint(store, identity)
                graph = _whole_graph_kept(store, identity, deck, variant, graph_report, checkpoint_seconds)
    result = None
    if decks is not None and store is not None:
        result = classify_runs_stored(store, deck, variant, decks=decks, seed=seed, cap=cap, budget=budget,
                                      progress=progress, resume=resume, checkpoint_seconds=checkpoint_seconds,
                                      notify=notify)
    elif decks is not None:
        result = classify_runs(deck, variant, decks=decks, seed=seed, cap=cap, budget=budget, progress=progress)
    if result is not None:
        record = result.to_dict()
    else:
        record = {"game": "hand", "suits": deck.suits, "ranks": deck.ranks, "variant": str(variant), "decks": 0,
               **dict.fromkeys(RUN_KEYS)}
    if graph is not None:
        exact = graph.to_dict()
        record.update({key: exact[key] for key in GRAPH_KEYS})
        record["poison_set_leftovers_exact"] = exact["poison_set_leftovers"]
    if as_json:
        emit_json(record, games=[variant.game])
        return
    if result is not None:
        _echo_runs(result, record, variant, deck, cap, budget)
    else:
        click.echo(f"{variant}  deck {deck}  (random decks not classified: give --decks for that)")
    if graph is not None:
        click.echo(f"whole deck: {graph.orders:,} orders, {graph.classes:,} classes (up to relabelling)")
        click.echo(f"  unwinnable orders {graph.unwinnable_orders:,}; poison sets "
                   + (", ".join(f"{n} of {s} orders" for s, n in sorted(graph.poison_sets.items())) or "none"))
        # big fractions shortened (value, digits, hash); --json prints them in full
        e = graph.expected_iterations_given_win
        click.echo(f"  p_win {fraction_digest(graph.p_win)} = {float(graph.p_win):.6f}; "
                   f"p_trapped {fraction_digest(graph.p_trapped)}; "
                   f"E[iterations | win] {'-' if e is None else fraction_digest(e)}"
                   + (f" = {float(e):.4f}" if e else ""))


def _graph_folder(store, identity):
    """The folder of the whole-graph analysis's checkpoint in the store's journal."""
    from sim.store import run_key

    return store.journal / f"{run_key(identity)}.graph"


def _discard_graph_checkpoint(store, identity) -> None:
    import shutil

    shutil.rmtree(_graph_folder(store, identity), ignore_errors=True)


def _whole_graph_kept(store, identity, deck, variant, graph_report, checkpoint_seconds):
    """The whole-graph analysis checkpointed in the store's journal (its own folder, removed once
    the result is stored), then stored."""
    from exact.hand.whole_deck import analyse_deck

    folder = _graph_folder(store, identity) if store.journal.is_dir() else None
    with interrupts.keeping(": the whole-graph analysis was still exploring its graph: nothing of it was kept"):
        graph = analyse_deck(deck, variant, progress=graph_report,  # refuses large decks at once
                             checkpoint_dir=None if folder is None else str(folder),
                             checkpoint_seconds=checkpoint_seconds, discard=False)
    kept = f": the whole-graph analysis is kept in {folder}; run the same command to store it" if folder else ""
    with interrupts.keeping(kept):
        store.save(graph)
        interrupts.forget()  # a signal after the last step: the result is stored, shown below
    if folder is not None:
        _discard_graph_checkpoint(store, identity)
    return graph


def _echo_runs(result, record: dict, variant, deck, cap: int, budget: int) -> None:
    low, high = record["ci95_trapped"]
    click.echo(f"{variant}  deck {deck}  seed {result.seed}  cap {cap}  budget {budget:,}")
    click.echo(f"decks {result.decks:,}: won {result.won:,}, trapped {result.trapped:,} "
               f"({result.trapped / result.decks:.4%}, 95% bracket [{low:.4%}, {high:.4%}]), "
               f"win still reachable {result.win_reachable:,}, undecided {result.undecided:,}")
    for size, runs in sorted(result.poison_set_sizes.items()):
        made = ", ".join(f"{k} x{v}" for k, v in sorted(result.poison_set_leftovers[size].items()))
        click.echo(f"  poison set of {size} deck orders: {runs} runs (leftovers per class: {made})")
    ulow, uhigh = record["ci95_unwinnable"]
    click.echo(f"unwinnable start decks: {result.unwinnable:,} ({result.unwinnable / result.decks:.4%}, "
               f"95% bracket [{ulow:.4%}, {uhigh:.4%}]), undecided {result.unwinnable_undecided:,}")
