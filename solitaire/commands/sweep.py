"""``solitaire sweep``: p_win over a grid of deck shapes."""
from __future__ import annotations

import contextlib

import click

from sim import Variant
from sim.defaults import DEFAULT_MAX_HOURS

from ..options import int_range
from ..options import (SEED, backend_options, emit_json, game_option, json_option, open_store, variant_option,
                       workers_option)


@click.command("sweep")
@game_option()
@click.option("--suits", "suits_text", default="3-7", show_default=True, help="Suits: a range (3-7) or list (3,5).")
@click.option("--ranks", "ranks_text", default="9-15", show_default=True, help="Ranks: a range or list.")
@variant_option
@click.option("--games", type=int_range(min=1), default=1_000_000, show_default=True,
              help="Games per simulated cell (the published sweep used 10000000).")
@click.option("--exact-max-cards", type=int_range(0, 24), default=12, show_default=True,
              help="Cells with at most this many cards are computed exactly, within the exact engine's limit for "
                   "the deck's shape (20 cards with at least 3 suits and 3 ranks, else 24; larger cells are "
                   "simulated). Exact cells of 20 cards are costly: 4x5 takes about 2.5 minutes and 2 GB.")
@click.option("--seed", type=SEED, default=0, show_default=True,
              help="Seed of the sweep (printed with the grid); each simulated cell's seed is derived from it and the deck.")
@workers_option
@click.option("--out", type=click.Path(dir_okay=False), default=None, metavar="FILE",
              help="Results store: each simulated cell is stored there as it finishes (an interrupted sweep "
                   "resumes when run again: finished cells are reused, the cell under way resumes), and so is the sweep.")
@backend_options
@click.option("--progress/--no-progress", default=True, show_default=True,
              help="Progress bar on stderr (cells done) once the sweep runs a few seconds.")
@click.option("--yes", is_flag=True,
              help="Start a sweep estimated to take more than a day (sweeps of 10^9 simulated games or more are "
                   "timed on a sample first and refused beyond that without --yes).")
@json_option
def sweep_command(game, suits_text, ranks_text, variants, games, exact_max_cards, seed, workers, out, backend,
                  scheduler, progress, yes, as_json):
    """Win probability over suits x ranks, exact where the exact engine reaches (or the parity
    theorem decides: S and R both odd never win), simulated with 95% intervals elsewhere.

    The published sweep is `solitaire sweep --suits 3-7 --ranks 9-15 --games 10000000`.

    With --backend dask the simulated cells run on a Dask cluster (--scheduler ADDRESS, or one local
    cluster of --workers processes for the whole sweep); the cells are the same as with local threads.
    """
    from sim.backends import check_backend  # numba: only when a command runs (completion stays quick)
    from sim.store import run_key

    from ..sweep import SweepResult, check_sweep, format_grid, parse_range, sweep, sweep_identity

    variant = Variant.from_options(game, variants)
    suits, ranks = parse_range(suits_text, "--suits"), parse_range(ranks_text, "--ranks")
    notify = lambda message: click.echo(f"solitaire: {message}", err=True)  # noqa: E731
    # everything is checked before anything is computed or created (the run's lock included)
    store = open_store(out)
    check_backend(backend, scheduler)
    check_sweep(suits, ranks, variant=variant, games=games, exact_max_cards=exact_max_cards, workers=workers,
                max_hours=None if yes else DEFAULT_MAX_HOURS, notify=notify)
    identity = sweep_identity(suits, ranks, variant=variant, games=games, seed=seed, exact_max_cards=exact_max_cards)
    # one process at a time runs a sweep: a second one asking for it waits, then is served its record
    with store.run_lock(identity, on_wait=notify) if store is not None else contextlib.nullcontext():
        found = store.find_run(identity) if store is not None else None
        if found is not None:  # a finished sweep is served from the store, not run and appended again
            notify(f"this sweep is already in {store.path} as {found}: shown from there")
            result = SweepResult.from_record(store.load(found))
        else:
            result = sweep(suits, ranks, variant=variant, games=games, seed=seed, exact_max_cards=exact_max_cards,
                           workers=workers, progress=progress, out=store, backend=backend, scheduler=scheduler)
            if store is not None:
                result.provenance["run_key"] = run_key(identity)
                store.save(result)
    if as_json:
        emit_json(result.to_dict(), games=[variant.game])
    else:
        click.echo(format_grid(result))
