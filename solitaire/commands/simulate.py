"""``solitaire simulate``: Monte Carlo estimate with intervals."""
from __future__ import annotations

import math

import click
from click.core import ParameterSource

from sim.checks import non_negative_number
from sim.games import get_game
from sim.defaults import DEFAULT_CHUNK_GAMES, DEFAULT_MAX_HOURS

from ..options import INT
from ..options import (backend_options, checkpoint_seconds_option, deck_options, emit_json, game_option, json_option,
                       make_deck_variant, seed_option, store_options, store_path, variant_option, workers_option,
                       yes_option)


#: a warm-up (compiling, or loading the compiled kernels) longer than this is reported apart
COMPILE_NOTE_SECONDS = 0.5


@click.command("simulate")
@game_option()
@deck_options
@variant_option
@click.option("--games", type=INT, default=1_000_000, show_default=True, help="Games to play.")
@click.option("--cap", type=INT, default=1000, show_default=True,
              help="Hand Solitaire only: iterations after which a run stops unwon (counted as capped).")
@seed_option
@workers_option
@click.option("--progress/--no-progress", default=True, show_default=True,
              help="Progress bar on stderr for runs longer than a few seconds.")
@store_options
@backend_options
@click.option("--chunk-games", type=INT, default=DEFAULT_CHUNK_GAMES, show_default=True,
              help="Games per chunk: part of the chunk plan, so the counts of a seed depend on it.")
@checkpoint_seconds_option("With a store")
@yes_option
@json_option
def simulate_command(game, suits, ranks, variants, games, cap, seed, workers, progress, out, store, resume, backend,
                     scheduler, chunk_games, checkpoint_seconds, yes, as_json):
    """Estimate the win probability by playing uniformly shuffled games.

    Reports wins, p_win with a 95% interval (Wilson; Clopper-Pearson when wins or losses number
    fewer than 10), the whole score distribution, the mean score with its standard error, and speed.
    The same --seed gives the same counts for any --workers and --backend.

    With a results store (--out FILE, or any run of 10,000,000 games or more, to
    results/runs.h5), finished chunks are checkpointed: a run that was killed resumes when the
    same command is run again, and ends with the counts an uninterrupted run would give; a run
    with --seed that is already stored is shown from the store. Without --seed, the latest
    unfinished run with the same parameters is resumed. --no-resume plays it again. `solitaire runs`
    lists the store. Ctrl-C or SIGTERM stops the run between two chunks and saves them (exit status
    130 or 143); the same command resumes it.
    """
    from sim import simulate as run_simulation  # numba: only when a command runs (completion stays quick)
    from sim.hand_stats import describe_iteration_statistics

    rules = get_game(game)
    given = {"cap": cap if click.get_current_context().get_parameter_source("cap") != ParameterSource.DEFAULT else None}
    rules.check_options(given, kind="run")

    deck, variant = make_deck_variant(game, suits, ranks, variants)
    checkpoint_seconds = non_negative_number("checkpoint-seconds", checkpoint_seconds)
    path = store_path(out, store, games)
    result = run_simulation(deck, variant, games=games, seed=seed, workers=workers, progress=progress,
                            out=path, resume=resume, reuse=resume, backend=backend, scheduler=scheduler,
                            chunk_games=chunk_games, checkpoint_seconds=checkpoint_seconds,
                            options={name: value for name, value in {"cap": cap}.items()
                                     if name in rules.options("run")} or None,
                            max_hours=None if yes else DEFAULT_MAX_HOURS,
                            notify=lambda message: click.echo(f"solitaire: {message}", err=True))
    # Derived statistics (Hand Solitaire's iteration figures, Prisoner's Patience's interval of the
    # other move policy) are part of the result as built and stored: sim.montecarlo.derived_statistics.
    if as_json:
        emit_json(result.to_dict(), games=[variant.game])
        return
    low, high = result.ci95
    click.echo(f"{variant}  deck {deck}  seed {result.seed}")
    click.echo(f"games {result.games:,}  wins {result.wins:,}  p_win {result.p_win:.6%}  "
               f"95% CI [{low:.6%}, {high:.6%}] ({result.interval_method})")
    se = result.mean_score_se
    se_text = f" +- {se:.4f} (s.e.)" if math.isfinite(se) else " (no s.e. from one game)"
    click.echo(f"mean score {result.mean_score:.4f}{se_text}  "
               f"{result.seconds:.2f} s  {result.games_per_second:,.0f} games/s")
    compile_seconds = result.provenance.get("compile_seconds") or 0.0
    if compile_seconds >= COMPILE_NOTE_SECONDS:
        click.echo(f"compiling kernels (first run only): {compile_seconds:.2f} s (not counted in games/s)")
    nonzero = {s: c for s, c in enumerate(result.score_counts) if c}
    click.echo("score counts: " + ", ".join(f"{s}:{c}" for s, c in nonzero.items()))
    if "iteration_stats" in result.extra:  # runs of iterations (Hand Solitaire)
        click.echo(describe_iteration_statistics(result.extra))
    for key, wins in result.extra.items():  # the same decks under another value of a rule (wins_<param>_<value>)
        if key.startswith("wins_") and f"ci95_{key[5:]}" in result.extra:
            param, _, value = key[5:].partition("_")
            if variant.as_dict().get(param) == value:  # this variant's own wins, printed above
                continue
            low, high = result.extra[f"ci95_{key[5:]}"]
            click.echo(f"{param}={value} on the same decks: wins {wins:,}  p_win {wins / result.games:.6%}  "
                       f"95% CI [{low:.6%}, {high:.6%}]")
    if path is not None:
        click.echo(f"stored as {result.provenance['stored_as']} in {path}")
