"""Prisoner's Patience best play over many decks: the win-rate estimate and exact small-deck counts.

The search itself (one deck order, its verdict and evidence) is :mod:`exact.prisoners.solver`; this
module drives it: :func:`estimate_best_play` solves random decks (reproducible from a seed) and
brackets the best-play win rate, counting the undecided decks as lost at the low end of the
interval and as won at the high end, and tallies which proof closed each lost deck;
:func:`best_play_distribution` decides every order of a small deck exactly.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from exact.prisoners.distribution import make_result
from exact.prisoners.solver import (
    LOST,
    SOLVER_VERSION,
    UNDECIDED,
    WON,
    Searcher,
    check_line,
    check_time_budget,
    check_variant,
    make_searcher,
    resolve_node_budget,
)
from sim import provenance
from sim.checks import check_decks, check_seed
from sim.deck import Deck
from sim.errors import UsageError
from sim.kernels.prisoners import shuffled_orders
from sim.rng import chunk_states
from sim.stats import bracket_interval
from sim.variant import Variant
from sim.tables import TableMixin
from sim import compiling as work_clock  # clocks that leave out kernel compilation


@dataclass(frozen=True, repr=False)
class BestPlayEstimate(TableMixin):
    """Best-play outcomes of random deck orders, with an interval bracketing the undecided ones."""

    deck: Deck
    variant: Variant
    seed: int
    decks: int
    won: int
    lost: int
    undecided: int
    node_budget: int
    ci95: tuple[float, float]  #: undecided counted as lost (low) and as won (high)
    nodes: int
    seconds: float  #: CPU seconds of the searches (the searching thread's)
    time_budget: float | None = None  #: CPU seconds allowed per deck (None: nodes only)
    lost_by: tuple[tuple[str, int], ...] = ()  #: lost decks per proof (static condition or "exhaustion")
    #: open decks by why their search stopped (:data:`exact.prisoners.limits.STOPS`); None in a run
    #: begun before verdicts said why (its earlier open decks' reasons are unknown)
    open_by: tuple[tuple[str, int], ...] | None = None
    strategy: str = "restarts"
    solver_version: int = SOLVER_VERSION  #: the search that gave the verdicts (records without it: 1)
    provenance: dict = field(default_factory=dict, compare=False)

    kind: ClassVar[str] = "best_play"

    @property
    def decided(self) -> int:
        return self.won + self.lost

    @classmethod
    def from_record(cls, record: dict) -> "BestPlayEstimate":
        """Rebuild an estimate from its stored ``to_dict()`` content (derived keys are recomputed)."""
        return cls(deck=Deck(int(record["suits"]), int(record["ranks"])), variant=Variant.parse(record["variant"]),
                   seed=int(record["seed"]), decks=int(record["decks"]), won=int(record["won"]),
                   lost=int(record["lost"]), undecided=int(record["undecided"]),
                   node_budget=int(record["node_budget"]), ci95=tuple(record["ci95"]), nodes=int(record["nodes"]),
                   seconds=float(record["seconds"]), time_budget=record.get("time_budget"),
                   lost_by=tuple((str(k), int(v)) for k, v in (record.get("lost_by") or {}).items()),
                   open_by=None if record.get("open_by") is None
                   else tuple((str(k), int(v)) for k, v in record["open_by"].items()),
                   strategy=str(record.get("strategy", "dfs")), solver_version=int(record.get("solver_version", 1)),
                   provenance=dict(record.get("provenance", {})))

    def to_dict(self) -> dict:
        return {"game": "prisoners", "suits": self.deck.suits, "ranks": self.deck.ranks,
                "variant": str(self.variant), "seed": self.seed, "decks": self.decks, "won": self.won,
                "lost": self.lost, "undecided": self.undecided, "node_budget": self.node_budget,
                "time_budget": self.time_budget, "ci95": list(self.ci95), "nodes": self.nodes,
                "seconds": self.seconds, "seconds_per_deck": self.seconds / self.decks,
                "lost_by": dict(self.lost_by), "open_by": None if self.open_by is None else dict(self.open_by),
                "strategy": self.strategy, "solver_version": self.solver_version,
                "decks_per_second": self.decks / self.seconds if self.seconds > 0 else None}


def random_orders(deck: Deck, decks: int, seed: int):
    """``decks`` uniformly shuffled orders from the project's streams (chunk 0 of ``seed``)."""
    return shuffled_orders(np.asarray(seed_state(seed)), decks, deck.size)


def seed_state(seed: int):
    return chunk_states(seed, 0, 1)[0]


def estimate_best_play(deck: Deck, variant: Variant | str | None = None, *, decks: int, seed: int,
                       node_budget: int | None = None, time_budget: float | None = None,
                       engine: str = "auto", ordering: int = 0, strategy: str | None = None,
                       progress=None, resume_from: dict | None = None, on_deck=None) -> BestPlayEstimate:
    """Solve ``decks`` random deck orders (reproducible from ``seed``) and bracket the win rate.

    The interval is :func:`sim.stats.bracket_interval`: the low end counts undecided decks as lost,
    the high end as won. Every winning line is checked by replay. ``time_budget`` (CPU seconds per
    deck) makes the verdicts depend on the machine's speed; without it they depend on the seed and
    the node budget only.

    ``resume_from`` is the tally of the decks already solved (as given to ``on_deck``): they are not
    solved again (every deck's verdict depends on that deck alone), so the result is the one an
    uninterrupted run gives (a tally without ``open_by``, from a run begun before verdicts said why
    they stopped, leaves the estimate's ``open_by`` unknown). ``on_deck(tally)`` is called after each
    deck (to checkpoint the tally).
    """
    variant = check_variant(variant)
    decks, seed = check_decks(decks), check_seed(seed)
    time_budget = check_time_budget(time_budget)
    searcher = make_searcher(deck, variant, engine=engine, ordering=ordering, strategy=strategy)
    node_budget = resolve_node_budget(node_budget, variant, searcher.strategy)
    tally = {"decks": 0, WON: 0, LOST: 0, UNDECIDED: 0, "lost_by": {}, "nodes": 0, "seconds": 0.0,
             "started": provenance.now(), **({"open_by": {}} if resume_from is None else {}), **(resume_from or {})}
    if not 0 <= tally["decks"] <= decks:
        raise ValueError(f"resume_from has {tally['decks']} decks solved of {decks}")
    counts = {status: tally[status] for status in (WON, LOST, UNDECIDED)}
    lost_by: dict[str, int] = dict(tally["lost_by"])
    open_by: dict[str, int] | None = dict(tally["open_by"]) if "open_by" in tally else None
    nodes, seconds = tally["nodes"], tally["seconds"]
    orders = random_orders(deck, decks, seed)
    for k in range(tally["decks"], decks):
        order = orders[k]
        if isinstance(searcher, Searcher):
            searcher.lost.clear()  # bounded memory; rows of different decks rarely coincide
        t0 = work_clock.thread_time()
        verdict = searcher.solve_ranks([int(c) % deck.ranks for c in order], node_budget, time_budget)
        seconds += work_clock.thread_time() - t0
        if verdict.status == WON:
            check_line(order.tolist(), deck, variant, verdict.line)
        elif verdict.status == LOST:
            lost_by[verdict.proof] = lost_by.get(verdict.proof, 0) + 1
        elif open_by is not None:
            open_by[verdict.stop] = open_by.get(verdict.stop, 0) + 1
        counts[verdict.status] += 1
        nodes += verdict.nodes
        if progress is not None:
            progress(k + 1, counts)
        if on_deck is not None:
            on_deck({**tally, **counts, "decks": k + 1, "lost_by": dict(lost_by), "nodes": nodes, "seconds": seconds,
                     **({} if open_by is None else {"open_by": dict(open_by)})})
    started = tally["started"]
    return BestPlayEstimate(deck=deck, variant=variant, seed=seed, decks=decks, won=counts[WON],
                            lost=counts[LOST], undecided=counts[UNDECIDED], node_budget=node_budget,
                            ci95=bracket_interval(counts[WON], counts[UNDECIDED], decks), nodes=nodes,
                            seconds=seconds, time_budget=time_budget, lost_by=tuple(sorted(lost_by.items())),
                            open_by=None if open_by is None else tuple(sorted(open_by.items())),
                            strategy=searcher.strategy,
                            provenance=provenance.collect(started=started, finished=provenance.now(), seed=seed,
                                                          engine=type(searcher).__name__))


def solve_decks(deck: Deck, variant: Variant | str | None, *, decks: int, seed: int, indices,
                node_budget: int | None = None, strategy: str | None = None, extra_proofs: int = 0) -> list[dict]:
    """The verdicts on the decks ``indices`` of the ``decks`` random orders of ``seed`` (the decks of
    :func:`estimate_best_play`), one record a deck: ``deck`` (its index), ``status``, ``proof``,
    ``nodes`` and ``seconds`` (CPU). Each deck is searched with the lost-row table emptied first, so
    its verdict and nodes depend on that deck and the budget alone, not on the decks solved before it
    in the same process: the decks may be split among any number of workers (no time budget here,
    which would make them depend on the machine). ``extra_proofs``: kernel bits added to the numba
    searcher's conditions (:data:`exact.prisoners.solver_kernel.USED_PROOF`, for benchmarks)."""
    variant = check_variant(variant)
    searcher = make_searcher(deck, variant, strategy=strategy)
    node_budget = resolve_node_budget(node_budget, variant, searcher.strategy)
    if extra_proofs:
        searcher.proofs |= extra_proofs
    orders = random_orders(deck, check_decks(decks), check_seed(seed))
    out = []
    for index in indices:
        if isinstance(searcher, Searcher):
            searcher.lost.clear()
        order = orders[int(index)]
        verdict = searcher.solve_ranks([int(c) % deck.ranks for c in order], node_budget)
        if verdict.status == WON:
            check_line(order.tolist(), deck, variant, verdict.line)
        out.append({"deck": int(index), "status": str(verdict.status), "proof": verdict.proof,
                    "nodes": verdict.nodes, "seconds": round(verdict.seconds, 4)})
    return out


# --- exact best play on small decks --------------------------------------------------------------

#: Largest number of distinct rank sequences ``n! / (S!)^R`` the exact best-play count will visit.
MAX_BEST_PLAY_SEQUENCES = 400_000


def rank_sequences(suits: int, ranks: int):
    """Every distinct sequence of ranks of an S x R deck (each rank ``suits`` times), in order."""
    remaining = [suits] * ranks
    n = suits * ranks
    seq: list[int] = []

    def rec():
        if len(seq) == n:
            yield tuple(seq)
            return
        for r in range(ranks):
            if remaining[r]:
                remaining[r] -= 1
                seq.append(r)
                yield from rec()
                seq.pop()
                remaining[r] += 1

    yield from rec()


def best_play_distribution(deck: Deck, variant: Variant | str | None = None):
    """Exact best play over all ``(S*R)!`` orders: ``score_counts[k]`` = orders whose fewest
    reachable piles is ``k`` (so ``wins`` = orders that can be won).

    Every distinct rank sequence stands for ``(S!)^R`` card orders. The fewest piles of a row is found
    by exhaustive search with memo (no budget, no pruning: small decks only). The provenance's
    ``lost_by`` says, for the orders that cannot be won, how many a static condition of
    :mod:`exact.prisoners.proofs` closes on the dealt row, and how many only the search does
    (``exhaustion``).
    """
    variant = check_variant(variant)
    n, s = deck.size, deck.suits
    sequences = math.factorial(n) // math.factorial(s) ** deck.ranks
    if sequences > MAX_BEST_PLAY_SEQUENCES:
        raise UsageError(f"deck {deck} has {sequences:,} rank sequences; exact best play handles at most "
                         f"{MAX_BEST_PLAY_SEQUENCES:,}: use estimate_best_play for larger decks")
    searcher = Searcher(deck.ranks, wrap=variant.rules.wrap, reverse=variant.rules.reverse_piles)
    fewest: dict = {}

    def fewest_piles(row) -> int:
        if len(row) == 1:
            return 1
        best = fewest.get(row)
        if best is None:
            best = len(row)
            for _, child in searcher.children(row):
                best = min(best, fewest_piles(child))
                if best == 1:
                    break
            fewest[row] = best
        return best

    weight = math.factorial(s) ** deck.ranks
    counts = [0] * (n + 1)
    lost_by: dict[str, int] = {}
    for seq in rank_sequences(s, deck.ranks):
        piles = fewest_piles(searcher.start_row(seq))
        counts[piles] += weight
        name = searcher.root_proof(seq)
        if piles == 1 and name is not None:  # a live soundness check of the static proofs
            raise RuntimeError(f"internal error: {name} fires on the winnable rank sequence {seq}")
        if piles > 1:
            lost_by[name or "exhaustion"] = lost_by.get(name or "exhaustion", 0) + weight
    return make_result(deck, variant, "best-play", counts,
                       {"rank_sequences": sequences, "rows": len(fewest), "lost_by": lost_by})
