"""Win probability over a grid of deck shapes: exact where the exact engine reaches, simulated elsewhere.

Each cell is one of:

* ``theorem``: S and R both odd with ``win=end``: every removal takes 2 or 4 cards, so the score
  has the parity of S*R and can never be 0 (``p_win`` = 0 exactly, no computation needed);
* ``exact``: computed by the game's exact engine (One-Handed: :func:`exact.exact_distribution`;
  Prisoner's Patience: :func:`exact.prisoners.distribution.exact_distribution`) when the deck has at most
  ``min(exact_max_cards, engine limit for its shape)`` cards (:func:`exact_limit`);
* ``simulated``: a Monte Carlo estimate with its 95% interval; the cell's seed depends only on the
  sweep's seed and the deck, so a cell does not change when the grid around it does.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from fractions import Fraction
from typing import ClassVar

from exact import exact_limit
from sim.fractions_text import fraction_text
from sim import Deck, UsageError, Variant, provenance, rng, simulate
from sim.checks import check_workers, positive_int
from sim.games import get_game
from sim.montecarlo import (DEFAULT_CHUNK_GAMES, ESTIMATE_FROM_GAMES, MAX_CHUNKS, MAX_SIM_CARDS, ChunkPlan,
                            duration_text, estimate_seconds, load_runner, shared_scheduler)
from sim.progress import progress_bar
from sim.tables import TableMixin

from .validate import exact_for


@dataclass(frozen=True)
class SweepCell:
    suits: int
    ranks: int
    source: str  #: "exact", "theorem" or "simulated"
    p_win: float
    ci95: tuple[float, float]
    p_win_exact: Fraction | None = None
    games: int | None = None
    seed: int | None = None

    def to_dict(self) -> dict:
        return {"suits": self.suits, "ranks": self.ranks, "source": self.source, "p_win": self.p_win,
                "ci95": list(self.ci95),
                "p_win_exact": None if self.p_win_exact is None else fraction_text(self.p_win_exact),
                "games": self.games, "seed": self.seed}


@dataclass(frozen=True, repr=False)
class SweepResult(TableMixin):
    kind: ClassVar[str] = "sweep"
    variant: Variant
    cells: tuple[SweepCell, ...]
    seed: int
    games: int
    exact_max_cards: int
    provenance: dict = field(default_factory=dict)

    def cell(self, suits: int, ranks: int) -> SweepCell:
        for c in self.cells:
            if (c.suits, c.ranks) == (suits, ranks):
                return c
        raise KeyError((suits, ranks))

    def to_dict(self) -> dict:
        return {"game": self.variant.game, "variant": str(self.variant), "seed": self.seed,
                "games": self.games, "exact_max_cards": self.exact_max_cards,
                "cells": [c.to_dict() for c in self.cells]}

    @classmethod
    def from_record(cls, record: dict) -> "SweepResult":
        """Rebuild a sweep from its stored ``to_dict()`` content (:meth:`sim.store.ResultsStore.load`)."""
        cells = tuple(SweepCell(c["suits"], c["ranks"], c["source"], c["p_win"], tuple(c["ci95"]),
                                None if c.get("p_win_exact") is None else Fraction(c["p_win_exact"]),
                                c.get("games"), c.get("seed")) for c in record["cells"])
        return cls(Variant.parse(record["variant"]), cells, record["seed"], record["games"],
                   record["exact_max_cards"], dict(record.get("provenance", {})))


def sweep_identity(suits, ranks, *, variant: Variant, games: int, seed: int, exact_max_cards: int) -> dict:
    """What makes two sweeps the same sweep (a finished one is served from the store, not redone)."""
    return {"kind": "sweep", "variant": str(variant), "suits": list(suits), "ranks": list(ranks), "games": games,
            "seed": seed, "exact_max_cards": exact_max_cards, "package_version": provenance.package_version(),
            "engine_version": get_game(variant.game).engine_version}


#: Most cells a sweep may have (each is a deck to compute or simulate).
MAX_CELLS = 10_000


def parse_range(text: str, name: str) -> list[int]:
    """``"3-7"``, ``"3,5,9"`` or ``"4"`` -> a sorted list of positive ints.

    Examples
    --------
    >>> parse_range("3-5,9", "--suits")
    [3, 4, 5, 9]
    >>> parse_range("7-3", "--suits")
    Traceback (most recent call last):
    ...
    sim.errors.UsageError: --suits '7-3': the range 7-3 is reversed: write 3-7
    """
    values: set[int] = set()
    for part in str(text).split(","):
        part = part.strip()
        try:
            low, high = (int(x) for x in part.split("-", 1)) if "-" in part[1:] else (int(part), int(part))
        except ValueError:
            what = "an empty item" if not part else f"{part!r}, which is not a number or a range"
            raise UsageError(f"{name} {text!r} has {what}: use e.g. 3-7 or 3,5,9") from None
        if low > high:
            raise UsageError(f"{name} {text!r}: the range {low}-{high} is reversed: write {high}-{low}")
        if high - low >= MAX_CELLS:
            raise UsageError(f"{name} {text!r}: the range {low}-{high} is too long (a sweep has at most "
                             f"{MAX_CELLS:,} cells)")
        values.update(range(low, high + 1))
    if min(values) < 1:
        raise UsageError(f"{name} {text!r} must name positive integers, e.g. 3-7")
    return sorted(values)


def cell_seed(seed: int, deck: Deck) -> int:
    return rng.derive_seed(seed, deck.suits, deck.ranks)


def parity_forbids_win(deck: Deck, variant: Variant) -> bool:
    """True when a theorem proves ``p_win == 0`` (the game's rules view says: One-Handed's parity
    theorem, win=end with S and R odd)."""
    return variant.rules.never_won(deck)


def is_exact_cell(deck: Deck, variant: Variant, exact_max_cards: int) -> bool:
    """Whether a cell is computed exactly: ``deck.size <= min(exact_max_cards, exact_limit(deck, variant))``."""
    return deck.size <= min(exact_max_cards, exact_limit(deck, variant))


def sweep(suits, ranks, *, variant: Variant | None = None, games: int = 1_000_000, seed: int = 0,
          exact_max_cards: int = 12, workers: int | None = None, progress: bool | None = None,
          exact_source=None, simulate_cell=None, out=None, backend: str = "local",
          scheduler=None, max_hours: float | None = None, notify=None) -> SweepResult:
    """Win probability for every deck ``S x R`` with S in ``suits`` and R in ``ranks``.

    ``simulate_cell(deck, variant, games, seed)`` and ``exact_source(deck, variant)`` can be given
    to reuse stored results (the defaults compute them). Simulated cells are played as
    :func:`sim.simulate` plays them, with ``out`` (a results store: each cell is stored there, an
    unfinished cell resumes and a finished one is reused), ``backend`` and ``scheduler``; with
    ``dask``, one client serves every cell (:func:`sim.montecarlo.shared_scheduler`). The counts do
    not depend on the backend.

    Before the first cell, the simulated cells are checked as :func:`sim.simulate` checks a run (at
    most :data:`~sim.montecarlo.MAX_CHUNKS` chunks each), and a sweep of
    :data:`~sim.montecarlo.ESTIMATE_FROM_GAMES` simulated games or more is timed on a sample of each
    simulated deck: estimated to take more than ``max_hours`` (None: no limit), it is refused; a
    sweep of more than ten minutes says how long it will take (``notify(message)``).
    """
    # Every argument and every cell is checked before the first cell is played.
    variant = variant if variant is not None else Variant.make("one-handed")
    games, seed = check_sweep(suits, ranks, variant=variant, games=games, exact_max_cards=exact_max_cards,
                              workers=workers, max_hours=max_hours, notify=notify), int(seed)
    if simulate_cell is not None and (out is not None or backend != "local" or scheduler is not None):
        raise UsageError("sweep(): out, backend and scheduler apply to the default cell simulation; "
                         "give them to your simulate_cell instead")
    with shared_scheduler(backend, scheduler, workers) as cell_scheduler:
        if simulate_cell is None:
            def simulate_cell(deck, variant, games, seed):
                return simulate(deck, variant, games=games, seed=seed, workers=workers, progress=False,
                                out=out, reuse=out is not None, backend=backend, scheduler=cell_scheduler())
        return _sweep_cells(suits, ranks, variant, games, seed, exact_max_cards, progress, exact_source,
                            simulate_cell)


def check_sweep(suits, ranks, *, variant: Variant, games: int, exact_max_cards: int, workers: int | None = None,
                max_hours: float | None = None, notify=None) -> int:
    """Refuse, before any cell, a sweep that cannot or should not run (see :func:`sweep`); returns
    ``games`` as an int. Without ``max_hours`` and ``notify`` no time is estimated."""
    games = positive_int("games", games)
    if workers is not None:
        check_workers(workers)
    if len(suits) * len(ranks) > MAX_CELLS:
        raise UsageError(f"{len(suits)} suits x {len(ranks)} ranks is {len(suits) * len(ranks):,} cells; a sweep "
                         f"has at most {MAX_CELLS:,}")
    grid = [Deck(s, r) for s in suits for r in ranks]
    too_big = [d for d in grid if d.size > MAX_SIM_CARDS]
    if too_big:
        raise UsageError(f"the grid holds decks of more than {MAX_SIM_CARDS} cards (e.g. {too_big[0]}, "
                         f"{too_big[0].size} cards), more than the simulator handles: narrow --suits or --ranks")
    simulated = [d for d in grid if not parity_forbids_win(d, variant) and not is_exact_cell(d, variant,
                                                                                            exact_max_cards)]
    plan = ChunkPlan(games, DEFAULT_CHUNK_GAMES)
    if not simulated:
        return games
    if plan.n_chunks > MAX_CHUNKS:
        raise UsageError(f"{games:,} games a cell would be {plan.n_chunks:,} chunks of {DEFAULT_CHUNK_GAMES:,}; a "
                         f"run has at most {MAX_CHUNKS:,} chunks ({MAX_CHUNKS * DEFAULT_CHUNK_GAMES:,} games): give "
                         "fewer --games")
    if games * len(simulated) < ESTIMATE_FROM_GAMES or (max_hours is None and notify is None):
        return games
    workers = check_workers(workers)
    seconds = sum(estimate_seconds(load_runner(deck, variant), plan, workers) for deck in simulated)
    text = duration_text(seconds)
    where = f"on {min(workers, os.cpu_count() or 1)} core(s)"
    if max_hours is not None and seconds > max_hours * 3600:
        raise UsageError(f"{len(simulated)} simulated cells of {games:,} games would take about {text} {where} "
                         f"(timed on a sample), more than {max_hours:g} hours: confirm with --yes (with --out the "
                         "sweep resumes), or give fewer --games")
    if notify is not None and seconds >= 600:
        notify(f"{len(simulated)} simulated cells of {games:,} games: about {text} {where} (timed on a sample)")
    return games


def _sweep_cells(suits, ranks, variant, games, seed, exact_max_cards, progress, exact_source,
                 simulate_cell) -> SweepResult:
    started = provenance.now()
    cells = []
    grid = [Deck(s, r) for s in suits for r in ranks]
    for deck in progress_bar(len(grid), progress, iterable=grid, desc="sweep", unit="cell"):
        if parity_forbids_win(deck, variant):
            cells.append(SweepCell(deck.suits, deck.ranks, "theorem", 0.0, (0.0, 0.0), Fraction(0)))
        elif is_exact_cell(deck, variant, exact_max_cards):
            result = (exact_source or exact_for)(deck, variant)
            p = result.p_win
            cells.append(SweepCell(deck.suits, deck.ranks, "exact", float(p), (float(p), float(p)), p))
        else:
            s = cell_seed(seed, deck)
            result = simulate_cell(deck, variant, games, s)
            cells.append(SweepCell(deck.suits, deck.ranks, "simulated", result.p_win, tuple(result.ci95),
                                   games=result.games, seed=s))
    return SweepResult(variant, tuple(cells), seed, games, exact_max_cards,
                       provenance.collect(started=started, finished=provenance.now()))


def format_grid(result: SweepResult) -> str:
    """A text table: rows = suits, columns = ranks; ``=`` exact, ``#`` theorem, else simulated."""
    suits = sorted({c.suits for c in result.cells})
    ranks = sorted({c.ranks for c in result.cells})
    mark = {"exact": "=", "theorem": "#", "simulated": " "}
    lines = [f"p_win (%) of {result.variant}; '=' exact, '#' zero by the parity theorem, others simulated "
             f"({result.games:,} games each, seed {result.seed}, 95% CI half-width in brackets)"]
    lines.append("S\\R  " + "".join(f"{r:>17}" for r in ranks))
    for s in suits:
        row = f"{s:>3}  "
        for r in ranks:
            c = result.cell(s, r)
            if c.source == "simulated":
                half = (c.ci95[1] - c.ci95[0]) / 2 * 100
                row += f"{c.p_win * 100:>9.4f}[{half:.4f}]"[:17].rjust(17)
            else:
                row += f"{c.p_win * 100:>15.6f} {mark[c.source]}"
        lines.append(row)
    return "\n".join(lines)
