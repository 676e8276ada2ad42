"""Monte Carlo engine: plan chunks, play them (where: :mod:`sim.backends`), aggregate counts, report
intervals; a run writing to a store checkpoints to the store's journal and resumes from it
(:mod:`sim.store`), and stops cleanly on a signal (:mod:`sim.interrupts`).

The chunk plan depends only on the number of games and ``chunk_games``; chunk ``k`` draws from its
own stream (:func:`sim.rng.chunk_states`), so a seed gives the same counts whatever the number of
workers or the backend. Counts are integers and are summed, so the order in which chunks finish
does not matter either.
"""
from __future__ import annotations

import contextlib
import json
import os
import time
from dataclasses import dataclass, field
from typing import Callable, ClassVar

import numpy as np

from . import interrupts, provenance, rng
from .backends import BACKENDS, check_backend, play_chunk, run_chunks, shared_scheduler  # noqa: F401 (re-exported)
from .checks import check_games, check_seed, check_workers, non_negative_number, positive_int
from .deck import Deck
from .defaults import DEFAULT_CHECKPOINT_SECONDS, DEFAULT_CHUNK_GAMES, DEFAULT_MAX_HOURS  # noqa: F401 (re-exported)
from .errors import UsageError
from .games import REGISTRY, get_game
from .hand_stats import iteration_statistics
from .progress import progress_bar
from .stats import binomial_interval, mean_and_se
from .store import Checkpoint, ResultsStore, StoreWriteError, new_name, run_key
from .variant import Variant
from .tables import TableMixin

#: Largest deck the kernels accept (card codes are 32-bit; rows are allocated per lane).
MAX_SIM_CARDS = 4096
#: Most chunks a run may have: 2^24 chunks of the default size are 4.4 * 10^12 games (days on a
#: laptop); a run's bookkeeping is one flag per chunk, so this bounds it to 16 MB. Larger runs are
#: refused up front (split them by seed, or give a larger ``chunk_games``).
MAX_CHUNKS = 1 << 24
#: Runs of at least this many games are timed on a sample before they start (shorter ones cannot
#: take long enough to matter).
ESTIMATE_FROM_GAMES = 10**9

ChunkRunner = Callable[[np.ndarray, int], dict]


def load_runner(deck: Deck, variant: Variant, options: dict | None = None) -> ChunkRunner:
    """The chunk runner of ``variant.game`` for this deck, variant and game options
    (:meth:`sim.games.Game.load_runner`); the one place :func:`simulate` gets its runner from."""
    return get_game(variant.game).load_runner(deck, variant, options)


@dataclass(frozen=True)
class ChunkPlan:
    """Games split into chunks of ``chunk_games`` (the last one shorter)."""

    games: int
    chunk_games: int = DEFAULT_CHUNK_GAMES

    @property
    def n_chunks(self) -> int:
        return -(-self.games // self.chunk_games)

    def size(self, k: int) -> int:
        return min(self.chunk_games, self.games - k * self.chunk_games)


@dataclass(frozen=True, repr=False)
class SimulationResult(TableMixin):
    """Counts and statistics of a Monte Carlo run, with provenance."""

    kind: ClassVar[str] = "simulation"

    game: str
    deck: Deck
    variant: Variant
    seed: int
    games: int
    wins: int
    score_counts: tuple[int, ...]
    ci95: tuple[float, float]
    interval_method: str
    mean_score: float
    mean_score_se: float
    seconds: float
    workers: int
    chunk_games: int
    extra: dict = field(default_factory=dict)  #: game-specific counts (e.g. Hand Solitaire's iterations)
    provenance: dict = field(default_factory=dict)

    @property
    def p_win(self) -> float:
        return self.wins / self.games

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds > 0 else float("inf")

    def to_dict(self) -> dict:
        """The ``--json`` object of ``solitaire simulate`` (its keys are tested in tests/test_cli_json.py)."""
        out = {
            "game": self.game, "suits": self.deck.suits, "ranks": self.deck.ranks,
            "variant": str(self.variant), "seed": self.seed, "games": self.games, "wins": self.wins,
            "p_win": self.p_win, "ci95": list(self.ci95), "interval_method": self.interval_method,
            "score_counts": list(self.score_counts), "mean_score": self.mean_score,
            "mean_score_se": self.mean_score_se, "seconds": self.seconds,
            "games_per_second": self.games_per_second, "workers": self.workers,
            "chunk_games": self.chunk_games,
        }
        out.update(self.extra)
        return out

    @classmethod
    def from_record(cls, record: dict) -> "SimulationResult":
        """Rebuild a result from its ``to_dict()`` content (e.g. :meth:`sim.store.ResultsStore.load`)."""
        derived = {"kind", "p_win", "games_per_second", "provenance", "saved"}
        known = {f for f in cls.__dataclass_fields__ if f not in ("deck", "extra", "provenance")}
        extra = {k: v for k, v in record.items() if k not in known | derived | {"suits", "ranks"}}
        extra = derived_statistics(extra, record["games"],
                                   dict(record.get("provenance", {})).get("options") or {})
        return cls(game=record["game"], deck=Deck(record["suits"], record["ranks"]),
                   variant=Variant.parse(record["variant"]), seed=record["seed"], games=record["games"],
                   wins=record["wins"], score_counts=tuple(record["score_counts"]),
                   ci95=tuple(record["ci95"]), interval_method=record["interval_method"],
                   mean_score=record["mean_score"], mean_score_se=record["mean_score_se"],
                   seconds=record["seconds"], workers=record["workers"], chunk_games=record["chunk_games"],
                   extra=extra, provenance=dict(record.get("provenance", {})))


def derived_statistics(extra: dict, games: int, options: dict) -> dict:
    """``extra`` (a run's game-specific counts) with the statistics derived from them, computed once
    when the result is built, so that the store, ``--json`` and the report read one record:

    * every count ``wins_<name>`` (e.g. Prisoner's Patience's ``wins_moves_physical``, the same decks
      played under the other move policy) gets ``ci95_<name>``, its 95% interval as for ``ci95``;
    * ``iterations_to_win`` (runs of iterations: Hand Solitaire) gets ``cap`` and ``iteration_stats``
      (:func:`sim.hand_stats.iteration_statistics`).

    Keys already present are kept (a stored record is not recomputed).
    """
    out = dict(extra)
    for key, wins in extra.items():
        if key.startswith("wins_") and f"ci95_{key[5:]}" not in out:
            out[f"ci95_{key[5:]}"] = list(binomial_interval(int(wins), games)[0])
    if "iterations_to_win" in extra and "iteration_stats" not in out:
        if "cap" in options:
            out["cap"] = int(options["cap"])
        out["iteration_stats"] = iteration_statistics(extra["iterations_to_win"], games, int(extra.get("capped", 0)))
    return out




def add_counts(total: dict, counts: dict) -> None:
    """Accumulate a chunk's counts (ints and integer arrays) into ``total``."""
    for key, value in counts.items():
        if key in total:
            total[key] = total[key] + value
        else:
            total[key] = value.copy() if isinstance(value, np.ndarray) else value


def _progress_bar(total: int, progress, initial: int = 0):
    return progress_bar(total, progress, unit="game", unit_scale=True, initial=initial)


def run_identity(deck: Deck, variant: Variant, *, seed, games: int, chunk_games: int, options: dict) -> dict:
    """What makes two runs the same run, for resumption and reuse: every input the counts depend on,
    including the game's engine version (:attr:`sim.games.Game.engine_version`)."""
    return {"game": variant.game, "variant": str(variant), "suits": deck.suits, "ranks": deck.ranks,
            "seed": seed, "games": games, "chunk_games": chunk_games, "options": options,
            "package_version": provenance.package_version(),
            "engine_version": get_game(variant.game).engine_version}


def stored_engine_version(record: dict) -> int | None:
    """The engine version a stored simulation was played with, or None where it cannot be told.

    Records do not carry it as a field: it is part of the run's identity, whose hash is the
    record's ``provenance["run_key"]``, so the identity is rebuilt from the record and hashed with
    each version up to the game's current one until it matches."""
    prov = record.get("provenance", {})
    key = prov.get("run_key")
    if record.get("kind", "simulation") != "simulation" or key is None or record.get("game") not in REGISTRY:
        return None
    identity = {"game": record["game"], "variant": record["variant"], "suits": record["suits"],
                "ranks": record["ranks"], "seed": record["seed"], "games": record["games"],
                "chunk_games": prov.get("chunk_games", record.get("chunk_games")),
                "options": prov.get("options", {}), "package_version": prov.get("package_version")}
    for version in range(get_game(record["game"]).engine_version, 0, -1):
        if run_key({**identity, "engine_version": version}) == key:
            return version
    return None


def simulate(deck: Deck | None = None, variant: Variant | str | None = None, *, games: int = 1_000_000,
             seed: int | None = None, workers: int | None = None,
             chunk_games: int = DEFAULT_CHUNK_GAMES, progress: bool | None = None,
             options: dict | None = None, out=None, resume: bool = True, reuse: bool = False,
             backend: str = "local", scheduler=None,
             checkpoint_seconds: float = DEFAULT_CHECKPOINT_SECONDS,
             notify: Callable[[str], None] | None = None,
             max_hours: float | None = None) -> SimulationResult:
    """Play ``games`` uniformly shuffled games and report the counts with 95% intervals.

    Parameters
    ----------
    deck : Deck, default ``Deck(4, 13)``
    variant : Variant or canonical string, default the game's rules as written (One-Handed)
    games : number of games
    seed : non-negative int; ``None`` draws a fresh one (or, with ``out`` and ``resume``, takes the
        seed of an unfinished run with the same parameters), which is reported in the result
    workers : threads (default: all cores), or Dask worker processes for a local Dask cluster;
        results do not depend on it
    chunk_games : games per chunk; part of the chunk plan, so results depend on it
    progress : show a progress bar on stderr for runs longer than a few seconds (default: yes)
    options : game-specific run options passed to the game's chunk runner (e.g. Hand Solitaire's cap)
    out : path of a results store (:class:`sim.store.ResultsStore`) or a store; when given, the run
        checkpoints its finished chunks there and stores its result at the end
    resume : with ``out``: continue the unfinished run with the same identity (game, variant, deck,
        seed, games, chunk_games, options, package and engine versions) instead of starting again; ``False``
        discards that run's checkpoint
    reuse : with ``out``: if the store already holds a finished run with this identity (seed given),
        return it instead of playing again (how a sweep skips finished cells)
    backend : ``"local"`` (joblib threads) or ``"dask"``; results do not depend on it
    scheduler : Dask scheduler address (``tcp://host:8786``) or ``distributed.Client``; ``None``
        with ``backend="dask"`` starts a local cluster
    checkpoint_seconds : with ``out``: least time between two checkpoints
    notify : called with one-line messages (e.g. that a run resumes); default: silent
    max_hours : refuse a run estimated (from a timed sample, for runs of at least
        :data:`ESTIMATE_FROM_GAMES` games) to take longer than this; ``None``: no limit. Runs of more
        than :data:`MAX_CHUNKS` chunks are refused whatever it is.

    A run writing to a store holds that run's lock (a second process asking for the same run waits,
    then finds it stored), checkpoints at most every ``checkpoint_seconds`` and when it stops: on
    any exception, and on SIGINT or SIGTERM under :func:`sim.interrupts.handling_signals` (the CLI),
    which stop it between two chunks with :class:`sim.interrupts.Interrupted` saying what was saved.

    Examples
    --------
    >>> r = simulate(Deck(4, 5), games=20_000, seed=1)
    >>> r.games, 0.06 < r.p_win < 0.09
    (20000, True)
    """
    deck = deck if deck is not None else Deck()
    if variant is None:
        variant = Variant.make("one-handed")
    elif isinstance(variant, str):
        variant = Variant.parse(variant)
    games, workers = check_games(games), check_workers(workers)
    seed = None if seed is None else check_seed(seed)
    chunk_games = positive_int("chunk_games", chunk_games)
    if deck.size > MAX_SIM_CARDS:
        raise UsageError(f"deck {deck} has {deck.size} cards; the simulator handles at most {MAX_SIM_CARDS}")
    check_backend(backend, scheduler)
    checkpoint_seconds = non_negative_number("checkpoint_seconds", checkpoint_seconds)
    plan = ChunkPlan(games, chunk_games)
    if plan.n_chunks > MAX_CHUNKS:
        raise UsageError(f"{games:,} games would be {plan.n_chunks:,} chunks of {chunk_games:,}; a run has at most "
                         f"{MAX_CHUNKS:,} chunks ({MAX_CHUNKS * chunk_games:,} games): split it into runs with "
                         "different seeds, or give larger chunks")
    options = dict(options or {})
    try:
        options_json = json.dumps(options, sort_keys=True)
    except TypeError:
        raise UsageError(f"game options must be plain values (numbers, strings), got {options!r}") from None
    runner = load_runner(deck, variant, options)  # validates the options here, before any work

    store = None
    if out is not None:
        store = out if isinstance(out, ResultsStore) else ResultsStore(out)
        store.check_writable()  # a damaged store or an unwritable place is refused before any work
    if games >= ESTIMATE_FROM_GAMES:
        _check_duration(runner, plan, workers, max_hours, notify)
    if store is None:
        return _play(runner, deck, variant, check_seed(seed), plan, workers=workers, progress=progress,
                     options=options, backend=backend, scheduler=scheduler, options_json=options_json)

    identity = run_identity(deck, variant, seed=None, games=games, chunk_games=plan.chunk_games, options=options)
    if seed is None and resume:
        seed = store.latest_checkpoint_seed(identity)
    seed = check_seed(seed)
    identity["seed"] = seed
    with store.run_lock(identity, on_wait=notify):
        if reuse:
            found = store.find_run(identity)
            if found is not None:
                if notify:
                    notify(f"this run (seed {seed}) is already in {store.path} as {found}: shown from there")
                return SimulationResult.from_record(store.load(found))
        checkpoint = None
        if resume:
            checkpoint = store.load_checkpoint(identity)
        elif store.discard_checkpoint(identity) and notify:
            notify(f"discarded the unfinished run with seed {seed} (--no-resume)")
        return _play(runner, deck, variant, seed, plan, workers=workers, progress=progress, options=options,
                     backend=backend, scheduler=scheduler, options_json=options_json, store=store,
                     identity=identity, checkpoint=checkpoint, checkpoint_seconds=checkpoint_seconds,
                     notify=notify)


def estimate_seconds(runner: ChunkRunner, plan: ChunkPlan, workers: int) -> float:
    """Wall time of the run, estimated from a timed sample of games (a throwaway stream, not the
    run's own), assuming ``min(workers, cores)`` cores busy."""
    sample = min(plan.chunk_games, 1 << 15)
    state = rng.chunk_states(0, 0, 1)[0]
    runner(state.copy(), min(sample, 64))  # compile first
    t0 = time.perf_counter()
    runner(state.copy(), sample)
    per_game = (time.perf_counter() - t0) / sample
    return per_game * plan.games / max(1, min(workers, os.cpu_count() or 1))


def duration_text(seconds: float) -> str:
    """An estimated duration as a person reads it: minutes below an hour, hours (one decimal) from there.

    >>> duration_text(70), duration_text(300), duration_text(5400)
    ('1 minute', '5 minutes', '1.5 hours')
    """
    if seconds >= 3600:
        return f"{seconds / 3600:,.1f} hours"
    minutes = round(seconds / 60)
    return "1 minute" if minutes == 1 else f"{minutes:,} minutes"


def _check_duration(runner, plan: ChunkPlan, workers: int, max_hours, notify) -> None:
    """Refuse a run estimated to take longer than ``max_hours`` (None: no limit), and say how long
    a long one will take."""
    seconds = estimate_seconds(runner, plan, workers)
    if max_hours is not None and seconds > max_hours * 3600:
        raise UsageError(f"{plan.games:,} games would take about {duration_text(seconds)} on {workers} worker(s) "
                         f"(timed on a sample), more than {max_hours:g} hours: confirm with --yes (with a store the "
                         "run checkpoints and resumes), or play fewer games")
    if notify and seconds >= 600:
        notify(f"{plan.games:,} games: about {duration_text(seconds)} on {workers} worker(s) (timed on a sample)")


def _pending(done: np.ndarray, block: int = 1 << 16):
    """Indices of the chunks not done yet, in order, without a list of them all."""
    for start in range(0, len(done), block):
        for k in np.flatnonzero(~done[start:start + block]):
            yield start + int(k)


def _play(runner, deck, variant, seed, plan: ChunkPlan, *, workers, progress, options, backend, scheduler,
          options_json, store=None, identity=None, checkpoint=None, checkpoint_seconds=None,
          notify=None) -> SimulationResult:
    """Play the run's chunks (those not in ``checkpoint``), checkpointing to ``store``; its result."""
    started = provenance.now()
    session = {"started": started, "backend": backend, "workers": workers,
               "git_commit": provenance.git_commit(), "package_version": provenance.package_version()}
    if checkpoint is not None and checkpoint.n_chunks == plan.n_chunks:
        done, total = checkpoint.done.copy(), dict(checkpoint.counts)
        seconds_before, first_started, sessions = checkpoint.seconds, checkpoint.started, checkpoint.sessions
        if notify:
            notify(f"resuming the unfinished run with seed {seed}: {checkpoint.chunks_done} of "
                   f"{plan.n_chunks} chunks already counted")
    else:
        done, total = np.zeros(plan.n_chunks, dtype=bool), {}
        seconds_before, first_started, sessions = 0.0, started, []
    games_done = _games_in(plan, done)

    compile_seconds = warm_up(runner, plan) if backend == "local" else 0.0
    t0 = time.perf_counter()
    state = {"unsaved": 0, "last_write": time.monotonic(), "saved": int(done.sum())}

    def write_checkpoint():
        store.write_checkpoint(Checkpoint(
            identity=identity, n_chunks=plan.n_chunks, done=done, counts=total,
            seconds=seconds_before + time.perf_counter() - t0, started=first_started,
            sessions=sessions + [dict(session, stopped=provenance.now())]))
        state["unsaved"] = 0
        state["last_write"] = time.monotonic()
        state["saved"] = int(done.sum())

    spec = (deck.suits, deck.ranks, str(variant), options_json)
    try:
        with _progress_bar(plan.games, progress, initial=games_done) as bar, interrupts.deferred():
            def on_done(k, counts):
                if done[k]:  # cannot happen: a chunk is submitted once; guard the no-double-count rule
                    raise RuntimeError(f"chunk {k} finished twice")
                add_counts(total, counts)
                done[k] = True
                bar.update(plan.size(k))
                state["unsaved"] += 1
                if store is not None and time.monotonic() - state["last_write"] >= checkpoint_seconds:
                    write_checkpoint()
                interrupts.check()  # a signal stops the run here, between two chunks

            where = run_chunks(runner, seed, plan, _pending(done), workers=workers, on_done=on_done,
                               backend=backend, scheduler=scheduler, spec=spec)
    except BaseException as exc:
        # Interrupted (a signal, Ctrl-C, a worker lost...): keep what was counted, then stop.
        if store is not None and state["unsaved"] and not isinstance(exc, StoreWriteError):
            with contextlib.suppress(Exception):
                write_checkpoint()
        if isinstance(exc, interrupts.Interrupted) and store is not None:
            exc.saved = (f"{state['saved']} of {plan.n_chunks} chunks saved to {store.path}; "
                         "run the same command to resume")
        raise
    seconds = seconds_before + time.perf_counter() - t0
    sessions = sessions + [dict(session, stopped=provenance.now())]
    prov = provenance.collect(started=first_started, finished=provenance.now(), backend=backend,
                              method="monte-carlo", options=options, compile_seconds=compile_seconds, **where)
    if len(sessions) > 1:
        prov["sessions"] = sessions
    if store is None:
        return summarize(deck, variant, seed, plan, total, seconds, workers, prov)

    name = new_name(SimulationResult.kind, variant.game, deck.suits, deck.ranks)
    prov.update(run_key=run_key(identity), store_path=str(store.path), stored_as=name)
    result = summarize(deck, variant, seed, plan, total, seconds, workers, prov)
    store.commit(result, identity, name=name)
    return result


#: games of the warm-up call (:func:`warm_up`)
WARM_UP_GAMES = 64


def warm_up(runner: ChunkRunner, plan: ChunkPlan) -> float:
    """Seconds spent calling ``runner`` once on a few games of a throwaway stream (not the run's own,
    so the counts do not change): numba compiles the kernels on their first call (or loads them from
    its cache), and that time is then not counted in the run's ``seconds`` and games per second."""
    t0 = time.perf_counter()
    runner(rng.chunk_states(0, 0, 1)[0].copy(), min(WARM_UP_GAMES, plan.chunk_games))
    return time.perf_counter() - t0


def _games_in(plan: ChunkPlan, done: np.ndarray) -> int:
    n_done = int(done.sum())
    if n_done and done[-1]:
        return (n_done - 1) * plan.chunk_games + plan.size(plan.n_chunks - 1)
    return n_done * plan.chunk_games


def summarize(deck, variant, seed, plan: ChunkPlan, total: dict, seconds: float, workers: int,
              prov: dict) -> SimulationResult:
    """Turn summed chunk counts into a :class:`SimulationResult`."""
    counts = [int(c) for c in total["score_counts"]]
    wins = int(total["wins"])
    assert sum(counts) == plan.games, "chunk counts do not add up to the games played"
    ci, method = binomial_interval(wins, plan.games)
    mean, se = mean_and_se(counts)
    extra = {key: (value.tolist() if isinstance(value, np.ndarray) else int(value))
             for key, value in total.items() if key not in ("score_counts", "wins")}
    extra = derived_statistics(extra, plan.games, prov.get("options") or {})
    prov = dict(prov, seed=seed, games=plan.games, chunk_games=plan.chunk_games, n_chunks=plan.n_chunks)
    return SimulationResult(game=variant.game, deck=deck, variant=variant, seed=seed, games=plan.games,
                            wins=wins, score_counts=tuple(counts), ci95=ci, interval_method=method,
                            mean_score=mean, mean_score_se=se, seconds=seconds, workers=workers,
                            chunk_games=plan.chunk_games, extra=extra, provenance=prov)
