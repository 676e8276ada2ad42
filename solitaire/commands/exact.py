"""``solitaire exact``: the score distribution counted over every deck order."""
from __future__ import annotations

import contextlib

import click

from sim.checks import check_workers
from sim.errors import UsageError
from sim.games import REGISTRY, get_game

from ..options import INT
from ..options import (deck_options, emit_json, game_option, json_option, make_deck_variant, open_store,
                       parse_part, variant_option)


@click.command("exact")
@game_option()
@deck_options
@variant_option
@click.option("--method", type=click.Choice(sorted({m for g in REGISTRY.values() for m in g.exact_methods})),
              default="auto",
              show_default=True,
              help="enumerate: every deck order (small decks); dp: dynamic programming over reduced "
                   "states; phase (One-Handed): counts per (top three cards, set of cards dealt), up to "
                   "20 cards, 4x5 in about 2.5 minutes, not final=once; zeta (One-Handed): the phase recursion on symmetry "
                   "orbits in the zeta domain, one pass per 31-bit prime, as far as memory allows (3x8 and "
                   "8x3, 24 cards, in minutes; 4x6 and 6x4 in about half an hour and 11 GB); auto: on decks "
                   "with at least 3 suits and 3 ranks phase below 18 cards and zeta from 18, else (and for "
                   "final=once) dp, and zeta beyond it; word (One-Handed): the phase recursion at single "
                   "alphabets, one independent job per orbit of alphabets, up to 62 cards as time allows "
                   "(resumable with --checkpoint-dir, split with --shard, priced with --plan).")
@click.option("--workers", type=INT, default=1, show_default=True,
              help="zeta: passes, word: jobs run at once (threads, or Dask worker processes for a local "
                   "cluster).")
@click.option("--backend", type=click.Choice(["local", "dask"]), default="local", show_default=True,
              help="zeta, word: where the passes or jobs run: local threads or a Dask cluster (each a task).")
@click.option("--scheduler", default=None, metavar="ADDRESS",
              help="Dask scheduler address (e.g. tcp://10.0.0.5:8786), with --backend dask; without it "
                   "a local cluster of --workers processes.")
@click.option("--checkpoint-dir", type=click.Path(file_okay=False), default=None, metavar="DIR",
              help="Keep what is done in DIR, and resume there when the same command is run again: dp its "
                   "states after each card, phase its tables after each set size, zeta its finished passes and "
                   "the pass under way after each set size (written at most every 10 s, and on Ctrl-C or "
                   "SIGTERM, which stop at the next step), word its finished jobs (a journal per deck shape and "
                   "shard; a stop is at once). With --out and no --checkpoint-dir, the store's journal folder "
                   "(FILE.journal) keeps them, removed once the result is stored. enumerate (at most 13 cards) "
                   "keeps nothing.")
@click.option("--shard", default=None, metavar="I/N",
              help="word: run only the jobs j with j % N == I into their own journal in --checkpoint-dir and "
                   "stop (a batch job array runs I = 0 .. N-1 on machines that share nothing); then --merge.")
@click.option("--merge", "merge_only", is_flag=True,
              help="word: run no job; join the journals in --checkpoint-dir (copy the shards' files there "
                   "first); exit 1 if a job is missing.")
@click.option("--only", type=click.Choice(["all", "p_win"]), default="all", show_default=True,
              help="word, zeta: p_win keeps only what p_win, win=any and the mean score need (not the whole score "
                   "distribution): about 2-3x less memory and work; printed, not stored.")
@click.option("--plan", "show_plan", is_flag=True,
              help="word: print the jobs, the estimated CPU core-hours and the largest job's memory, and stop.")
@click.option("--out", type=click.Path(dir_okay=False), default=None, metavar="FILE",
              help="Results store (HDF5) to save the result to (`solitaire runs --out FILE` lists it).")
@click.option("--progress/--no-progress", default=True, show_default=True,
              help="Progress bar on stderr (steps, or the word method's jobs and the CPU they still need) once "
                   "the count runs a few seconds.")
@json_option
def exact_command(game, suits, ranks, variants, method, workers, backend, scheduler, checkpoint_dir, shard,
                  merge_only, only, show_plan, out, progress, as_json):
    """Count, over all (S*R)! deck orders, how many end with each score (exact integers).

    Prints p_win and the mean score as exact fractions. One-Handed (score = cards left, a win is 0)
    and Prisoner's Patience under the published move policy, either way of moving a pile
    (--variant moves=published|physical; score = piles left, a win is 1 pile). Hand Solitaire is
    exact per whole deck with `solitaire poison --all`. Decks beyond a method's size limit are
    refused at once (use `solitaire simulate` for those).
    """
    from exact import engine

    deck, variant = make_deck_variant(game, suits, ranks, variants)
    exact_distribution = engine(game)  # refuses a game without one, before any work
    record = get_game(game)
    if method not in record.exact_methods:
        raise UsageError(f"--method {method} is not a method of the exact {game} engine: choose one of "
                         f"{', '.join(record.exact_methods)}")
    kwargs = {"checkpoint_dir": checkpoint_dir}
    if "zeta" in record.exact_methods:  # its passes: threads, a Dask cluster
        from sim.backends import check_backend

        check_backend(backend, scheduler)
        kwargs.update(workers=check_workers(workers), backend=backend, scheduler=scheduler)
    elif (workers, backend, scheduler) != (1, "local", None):
        raise UsageError(f"--workers, --backend and --scheduler are for the zeta and word methods, "
                         f"which the exact {game} engine does not have")
    word_flags = (shard is not None, merge_only, show_plan)
    if any(word_flags) and method != "word":
        raise UsageError("--shard, --merge and --plan are for --method word")
    if only != "all" and method not in ("word", "zeta"):
        raise UsageError("--only p_win is for --method word or --method zeta")
    if only != "all" and method == "zeta":
        from exact.one_handed.limits import choose_method

        choose_method(deck, method, variant, mode="core")  # final=once, the deck's size and memory, refused first
        if out is not None:
            raise UsageError("--only p_win is printed, not stored (the store keeps whole distributions): "
                             "leave out --out")
        built = (deck.ranks, deck.suits) if variant.rules.reverse else (deck.suits, deck.ranks)
        _run_core(deck, variant, built, False, kwargs, as_json, progress, method="zeta")
        return
    if method == "word":
        from exact.one_handed.limits import choose_method

        choose_method(deck, method, variant)  # final=once and the deck's size, refused before any work
        built = (deck.ranks, deck.suits) if variant.rules.reverse else (deck.suits, deck.ranks)
        mode = "core" if only == "p_win" else "all"
        if show_plan:
            _show_plan(built, mode, checkpoint_dir, as_json)
            return
        if shard is not None:
            _run_shard(built, parse_part(shard, "--shard"), mode, kwargs, as_json, progress)
            return
        if mode == "core":
            if out is not None:
                raise UsageError("--only p_win is printed, not stored (the store keeps whole distributions): "
                                 "leave out --out")
            _run_core(deck, variant, built, merge_only, kwargs, as_json, progress)
            return
        if merge_only:
            if checkpoint_dir is None:
                raise UsageError("--merge joins the journals of --checkpoint-dir: give it")
            kwargs["merge_only"] = True
    store = open_store(out)  # a bad store is refused before any work
    resolved = _resolved_method(game, deck, variant, method)
    if store is None:
        _show(_compute(exact_distribution, deck, variant, method, kwargs, resolved, progress), record, None, out,
              as_json)
        return
    # one process at a time counts a deck: a second one asking for it waits, then is served the record
    identity = {"kind": "exact", "game": game, "variant": str(variant), "suits": deck.suits, "ranks": deck.ranks,
                "method": method}
    from sim import interrupts

    own_folder = None
    with store.run_lock(identity, on_wait=lambda message: click.echo(f"solitaire: {message}", err=True)):
        found = store.find(kind="exact", suits=deck.suits, ranks=deck.ranks, variant=str(variant))
        # any of this engine's methods serves --method auto (not a best-play count: `solve --all` stores
        # those as exact results too, over the same deck and variant)
        found = [(n, r) for n, r in found
                 if r.get("method") == method or (method == "auto" and r.get("method") in record.exact_methods)]
        if found:  # exact counts do not change: served from the store, not computed and stored again
            from exact.result import ExactResult

            name, stored = found[-1]
            click.echo(f"solitaire: {deck} {variant} is already in {store.path} as {name}"
                       + ("" if method == "auto" else f" (method {method})") + ": shown from there", err=True)
            _show(ExactResult.from_record(stored), record, None, out, as_json)
            return
        if kwargs.get("checkpoint_dir") is None and store.journal.is_dir():
            # the store's journal keeps what is done (removed once the result is stored)
            from sim.store import run_key

            own_folder = store.journal / f"{run_key(identity)}.exact"
            kwargs["checkpoint_dir"] = str(own_folder)
        with _stopping(resolved, kwargs):
            result = _compute(exact_distribution, deck, variant, method, kwargs, resolved, progress, stop=False)
            name = store.save(result)
            interrupts.forget()  # a signal after the last step: the result is stored, shown below
        if own_folder is not None:
            import shutil

            shutil.rmtree(own_folder, ignore_errors=True)
    if own_folder is not None:
        with contextlib.suppress(OSError):
            store.journal.rmdir()  # left by the interrupted run; only when empty
    _show(result, record, name, out, as_json)


#: the methods that save their state between two steps and stop at the next step on a signal (zeta
#: when it runs one pass at a time here); the others (word; zeta on several workers) write each
#: finished job or pass as it ends and stop at once
_STEPPED = ("phase", "dp", "zeta")


def _resolved_method(game, deck, variant, method):
    """The method ``auto`` stands for (what a signal will keep depends on it): One-Handed's choice
    among its engines (the game with the zeta method), else the DP."""
    if "zeta" in get_game(game).exact_methods:
        from exact.one_handed.limits import choose_method

        return choose_method(deck, method, variant)
    return "dp" if method == "auto" else method


@contextlib.contextmanager
def _stopping(method, kwargs):
    """How SIGINT and SIGTERM stop the count (:mod:`sim.interrupts`): at the next step, its state
    saved, for the stepped methods with a checkpoint folder; else at once, saying what is kept."""
    from sim import interrupts

    folder = kwargs.get("checkpoint_dir")
    if kwargs.get("workers", 1) > 1 or kwargs.get("backend", "local") != "local":
        method = f"{method} on several workers"

    if folder is None:
        with interrupts.keeping(": nothing was kept (--out FILE or --checkpoint-dir DIR keep the work done, and "
                                "the same command run again resumes)"):
            yield
    elif method in _STEPPED:
        with interrupts.deferred():
            yield
    else:
        unit = "jobs" if method.startswith("word") else "passes"
        with interrupts.keeping(f": the finished {unit} are kept in {folder}; run the same command to resume"):
            yield


def _compute(exact_distribution, deck, variant, method, kwargs, resolved, show_progress: bool, stop=True):
    """The exact result, with a progress bar on stderr once it runs a few seconds unless
    ``show_progress`` is False (``stop``: within :func:`_stopping`, else the caller holds it)."""
    from sim import interrupts
    from sim.progress import progress_bar

    with _stopping(resolved, kwargs) if stop else contextlib.nullcontext():
        if method == "word":  # jobs done of the jobs to run, and the CPU they are estimated to need
            with _job_progress("exact", show_progress) as progress:
                result = exact_distribution(deck, variant, method=method, progress=progress, **kwargs)
        else:
            with progress_bar(None, show_progress, desc="exact", unit="step") as bar:
                def progress(done, total, work):
                    bar.total = total
                    bar.set_postfix_str(f"{work:.3g}", refresh=False)
                    bar.update(done - bar.n)

                result = exact_distribution(deck, variant, method=method, progress=progress, **kwargs)
        interrupts.forget()  # a signal after the last step: the result is complete, shown below
        return result


def _method_engines(method: str) -> dict:
    """The engine versions of an exact method that has its own (its stored passes or job journals are
    kept by it), for ``--json``."""
    if method == "zeta":
        from exact.one_handed.zeta_kernel import ZETA_ENGINE_VERSION

        return {"exact zeta": ZETA_ENGINE_VERSION}
    if method == "word":
        from exact.one_handed.word_run import WORD_ENGINE_VERSION

        return {"exact word": WORD_ENGINE_VERSION}
    return {}


def _show(result, record, name, out, as_json) -> None:
    if as_json:
        emit_json(result.to_dict(), games=[result.variant.game], engines=_method_engines(result.method))
        return
    seconds = result.provenance.get("seconds", 0.0)
    click.echo(f"{result.variant}  deck {result.deck}  method {result.method}  {seconds:.2f} s")
    click.echo(f"orders {result.orders:,}  wins {result.wins:,}")
    click.echo(f"p_win = {result.p_win} ~ {float(result.p_win):.6%}")
    unit = f"score ({record.score_unit})"
    click.echo(f"mean {unit} = {result.mean_score} ~ {float(result.mean_score):.6f}")
    nonzero = {s: c for s, c in enumerate(result.score_counts) if c}
    click.echo(f"{unit} counts: " + ", ".join(f"{s}:{c}" for s, c in nonzero.items()))
    if name is not None:
        click.echo(f"stored as {name} in {out}")


def _show_plan(built, mode, checkpoint_dir, as_json) -> None:
    from exact.one_handed.word_run import plan_summary

    plan = plan_summary(*built, mode=mode, checkpoint_dir=checkpoint_dir)
    if as_json:
        emit_json(plan, games=["one-handed"], engines=_method_engines("word"))
        return
    hours = plan["cpu_seconds"] / 3600
    what = "the whole distribution" if mode == "all" else "p_win, win=any and the mean"
    click.echo(f"deck {plan['deck']} (as built), word method, {what}: {plan['jobs']:,} jobs, "
               f"{plan['primes']} primes each")
    click.echo(f"estimated CPU: {hours:.3g} core-hours (interval {plan['cpu_seconds_low'] / 3600:.3g} - "
               f"{plan['cpu_seconds_high'] / 3600:.3g}; {plan['jobs_planned']:,} jobs planned, "
               + (f"seconds per work unit from {plan['calibrated_on_jobs']:,} measured jobs"
                  + (" of an earlier, slower kernel: an overestimate)" if plan["calibrated_on_older_kernel"] else ")")
                  if plan["calibrated_on_jobs"] else "no job of this deck measured)"))
    if plan["jobs_done"]:
        click.echo(f"done: {plan['jobs_done']:,} of {plan['jobs']:,} jobs ({_core_hours(plan['cpu_seconds_done'])} "
                   f"measured); about {_core_hours(plan['cpu_seconds_left'])} left")
    if not plan["calibrated_on_jobs"]:
        click.echo(f"priced at {plan['seconds_per_work']:.2g} CPU s per unit of work, the middle of the rates measured "
                   f"on other decks ({plan['seconds_per_work_low']:.2g} to {plan['seconds_per_work_high']:.2g}, which "
                   "the interval spans); --checkpoint-dir with measured jobs of this deck prices it closer")
    click.echo(f"largest job: {plan['largest_job']}, tables {plan['largest_job_table_bytes'] / 2**30:.3g} GiB "
               "(a worker needs about this, plus 0.5 GiB a process: --workers N runs N jobs at once in one process)")


def _core_hours(seconds: float) -> str:
    """``"3.2 core-hours"``, or minutes below one core-hour."""
    if seconds >= 3600:
        return f"{seconds / 3600:.3g} core-hours"
    return f"{max(seconds / 60, 0.1):.2g} core-minutes"


@contextlib.contextmanager
def _job_progress(desc: str, show_progress: bool):
    """The word method's progress callback, drawing jobs done of the jobs to run on stderr."""
    from sim.progress import progress_bar

    # no rate-based time left: jobs run largest first, so the rate of jobs says nothing of the rest
    with progress_bar(None, show_progress, desc=desc, unit="job",
                      bar_format="{desc}: {percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt} jobs [{elapsed}{postfix}]") as bar:
        def progress(done, total, cpu_left):
            bar.total = total
            if cpu_left is not None:
                bar.set_postfix_str(f"about {_core_hours(cpu_left)} of CPU left", refresh=False)
            bar.update(done - bar.n)

        yield progress


def _run_core(deck, variant, built, merge_only, kwargs, as_json, show_progress: bool, method: str = "word") -> None:
    """``--only p_win``: the core mode's p_win, mean score and never-emptying orders, printed."""
    from fractions import Fraction
    import math

    from sim.fractions_text import fraction_text

    if method == "word":
        from exact.one_handed.word_run import word_counts

        with _stopping("word", kwargs), _job_progress("exact", show_progress) as progress:
            res = word_counts(*built, mode="core", merge_only=merge_only, progress=progress, **kwargs)
        orders, never, (e0, _, _, mo, me) = res.orders, res.never, res.ends
    else:
        from exact.one_handed.zeta import zeta_checkpoint
        from exact.one_handed.zeta_passes import zeta_counts
        from sim.progress import progress_bar

        extra = dict(kwargs)
        extra["checkpoint"] = zeta_checkpoint(extra.pop("checkpoint_dir", None), *built, mode="core")
        with _stopping("zeta", kwargs), progress_bar(None, show_progress, desc="exact", unit="step") as bar:
            def progress(done, total, _work):
                bar.total = total
                bar.update(done - bar.n)

            (e0, _, _, mo, me), never = zeta_counts(*built, mode="core", progress=progress, **extra)
        orders = math.factorial(deck.size)
    wins = orders - never if variant.rules.win_any else e0
    p_win, mean = Fraction(wins, orders), Fraction(mo + me, orders)
    if as_json:
        emit_json({"game": variant.game, "suits": deck.suits, "ranks": deck.ranks, "variant": str(variant),
                   "method": method, "only": "p_win", "orders": orders, "wins": wins, "p_win": fraction_text(p_win),
                   "mean_score": fraction_text(mean)}, games=[variant.game], engines=_method_engines(method))
        return
    click.echo(f"{variant}  deck {deck}  method {method} (p_win only)")
    click.echo(f"orders {orders:,}  wins {wins:,}")
    click.echo(f"p_win = {p_win} ~ {float(p_win):.6%}")
    click.echo(f"mean score (cards left) = {mean} ~ {float(mean):.6f}")


def _run_shard(built, shard, mode, kwargs, as_json, show_progress: bool) -> None:
    from exact.one_handed.word_run import journal_name, word_counts

    with _stopping("word", kwargs), _job_progress(f"shard {shard[0]}/{shard[1]}", show_progress) as progress:  # word_counts refuses a shard without a folder
        word_counts(*built, mode=mode, shard=shard, progress=progress, **kwargs)
    path = f"{kwargs['checkpoint_dir']}/{journal_name(*built, mode, shard)}"
    if as_json:
        emit_json({"shard": f"{shard[0]}/{shard[1]}", "journal": path}, games=["one-handed"],
                  engines=_method_engines("word"))
    else:
        click.echo(f"shard {shard[0]}/{shard[1]} done: its jobs are in {path}; join every shard with --merge")

