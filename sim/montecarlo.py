"""Monte Carlo engine: plan chunks, run kernels in parallel, aggregate counts, report intervals.

The chunk plan depends only on the number of games and ``chunk_games``; chunk ``k`` draws from its
own stream (:func:`sim.rng.chunk_states`), so a seed gives the same counts whatever the number of
workers or the backend. Counts are integers and are summed, so the order in which chunks finish
does not matter either.
"""
from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from . import provenance, rng
from .deck import Deck
from .errors import UsageError
from .stats import binomial_interval, mean_and_se
from .variant import Variant

#: Games per chunk (part of the chunk plan, so part of what a seed means).
DEFAULT_CHUNK_GAMES = 1 << 18
#: Largest deck the kernels accept (card codes are 32-bit; rows are allocated per lane).
MAX_SIM_CARDS = 4096

ChunkRunner = Callable[[np.ndarray, int], dict]


#: game name -> "module:factory"; ``factory(deck, variant, **options)`` returns a chunk runner
#: ``run(state, games) -> counts`` where counts holds at least ``score_counts`` (an int array indexed
#: by score) and ``wins`` (an int); any other entries are summed too and reported in ``extra``.
RUNNERS: dict[str, str] = {
    "one-handed": "sim.kernels.one_handed:chunk_runner",
    "hand": "sim.kernels.hand:chunk_runner",
    "prisoners": "sim.kernels.prisoners:chunk_runner",
}


def load_runner(deck: Deck, variant: Variant, options: dict | None = None) -> ChunkRunner:
    """The chunk runner of ``variant.game`` for this deck, variant and game options."""
    import importlib

    module_name, _, factory = RUNNERS[variant.game].partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name != module_name:
            raise
        raise UsageError(f"no simulator for game {variant.game!r} in this version") from None
    return getattr(module, factory)(deck, variant, **(options or {}))


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


@dataclass(frozen=True)
class SimulationResult:
    """Counts and statistics of a Monte Carlo run, with provenance."""

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
        """The ``--json`` object of ``solitaire simulate`` (SPEC section 6)."""
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


def check_games(games) -> int:
    if isinstance(games, bool) or not isinstance(games, (int, np.integer)):
        raise UsageError(f"games must be a positive integer, got {games!r}")
    if games < 1:
        raise UsageError(f"games must be at least 1, got {games}")
    return int(games)


def check_seed(seed) -> int:
    if seed is None:
        return rng.new_seed()
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise UsageError(f"seed must be a non-negative integer, got {seed!r}")
    return int(seed)


def check_workers(workers) -> int:
    if workers is None:
        return os.cpu_count() or 1
    if isinstance(workers, bool) or not isinstance(workers, (int, np.integer)) or workers < 1:
        raise UsageError(f"workers must be a positive integer, got {workers!r}")
    return int(workers)


def run_chunks(runner: ChunkRunner, seed: int, plan: ChunkPlan, chunks, *, workers: int,
               on_done: Callable[[int, dict], None]) -> None:
    """Run the given chunk indices, calling ``on_done(k, counts)`` in the parent as each finishes.

    Kernels release the GIL, so joblib's threading backend runs them in parallel without pickling
    or recompiling in other processes.
    """
    from joblib import Parallel, delayed

    chunks = list(chunks)
    if not chunks:
        return

    def task(k: int):
        state = rng.chunk_states(seed, k, 1)[0]
        return k, runner(state, plan.size(k))

    if workers == 1 or len(chunks) == 1:
        for k in chunks:
            on_done(*task(k))
        return
    parallel = Parallel(n_jobs=workers, prefer="threads", return_as="generator_unordered")
    for k, counts in parallel(delayed(task)(k) for k in chunks):
        on_done(k, counts)


def add_counts(total: dict, counts: dict) -> None:
    """Accumulate a chunk's counts (ints and integer arrays) into ``total``."""
    for key, value in counts.items():
        if key in total:
            total[key] = total[key] + value
        else:
            total[key] = value.copy() if isinstance(value, np.ndarray) else value


def _progress_bar(total: int, progress):
    from tqdm.auto import tqdm

    disable = (not progress) if progress is not None else False
    # ``delay``: nothing is shown for runs shorter than a few seconds.
    return tqdm(total=total, unit="game", unit_scale=True, delay=3, disable=disable, file=sys.stderr,
                leave=False, dynamic_ncols=True)


def simulate(deck: Deck | None = None, variant: Variant | str | None = None, *, games: int = 1_000_000,
             seed: int | None = None, workers: int | None = None,
             chunk_games: int = DEFAULT_CHUNK_GAMES, progress: bool | None = None,
             options: dict | None = None) -> SimulationResult:
    """Play ``games`` uniformly shuffled games and report the counts with 95% intervals.

    Parameters
    ----------
    deck : Deck, default ``Deck(4, 13)``
    variant : Variant or canonical string, default the game's rules as written (One-Handed)
    games : number of games
    seed : non-negative int; ``None`` draws a fresh one, which is reported in the result
    workers : threads (default: all cores); results do not depend on it
    chunk_games : games per chunk; part of the chunk plan, so results depend on it
    progress : show a progress bar on stderr for runs longer than a few seconds (default: yes)
    options : game-specific run options passed to the game's chunk runner (e.g. Hand Solitaire's cap)

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
    games, seed, workers = check_games(games), check_seed(seed), check_workers(workers)
    if isinstance(chunk_games, bool) or not isinstance(chunk_games, (int, np.integer)) or chunk_games < 1:
        raise UsageError(f"chunk_games must be a positive integer, got {chunk_games!r}")
    if deck.size > MAX_SIM_CARDS:
        raise UsageError(f"deck {deck} has {deck.size} cards; the simulator handles at most {MAX_SIM_CARDS}")
    runner = load_runner(deck, variant, options)
    plan = ChunkPlan(games, int(chunk_games))
    started = provenance.now()
    total: dict = {}
    t0 = time.perf_counter()
    with _progress_bar(games, progress) as bar:
        def on_done(k, counts):
            add_counts(total, counts)
            bar.update(plan.size(k))

        run_chunks(runner, seed, plan, range(plan.n_chunks), workers=workers, on_done=on_done)
    seconds = time.perf_counter() - t0
    return summarize(deck, variant, seed, plan, total, seconds, workers,
                     provenance.collect(started=started, finished=provenance.now(), backend="local"))


def summarize(deck, variant, seed, plan: ChunkPlan, total: dict, seconds: float, workers: int,
              prov: dict) -> SimulationResult:
    """Turn summed chunk counts into a :class:`SimulationResult`."""
    counts = [int(c) for c in total["score_counts"]]
    wins = int(total["wins"])
    assert sum(counts) == plan.games, "chunk counts do not add up to the games played"
    ci, method = binomial_interval(wins, plan.games)
    mean, se = mean_and_se(counts)
    extra = {key: (value.tolist() if isinstance(value, np.ndarray) else value)
             for key, value in total.items() if key not in ("score_counts", "wins")}
    prov = dict(prov, seed=seed, games=plan.games, chunk_games=plan.chunk_games, n_chunks=plan.n_chunks)
    return SimulationResult(game=variant.game, deck=deck, variant=variant, seed=seed, games=plan.games,
                            wins=wins, score_counts=tuple(counts), ci95=ci, interval_method=method,
                            mean_score=mean, mean_score_se=se, seconds=seconds, workers=workers,
                            chunk_games=plan.chunk_games, extra=extra, provenance=prov)
