"""Prisoner's Patience best play: can some sequence of legal moves end with a single pile?

This module decides one deck order (the search); :mod:`exact.prisoners.best_play` runs it over many
random decks (the estimate of the best-play win rate) and over every order of a small deck.

What the player controls
------------------------
Cards are dealt one at a time, each as a new pile at the right end of the row. Between deals (and
after the last one) the player may make any legal moves, or none: a legal move puts pile ``i`` onto
pile ``i - 1`` or ``i - 3`` when their top cards' ranks differ by one (``wrap=on``: ace and king, ranks
``0`` and ``R-1``, also count). With ``moves=physical`` the pile moves as a unit and keeps its order;
with ``moves=published`` it moves card by card and is reversed (its bottom card becomes the top), the
mechanics of the published simulator. The deck order is won when one pile is left after the last deal.
Rules: :func:`sim.rules.prisoners.legal_moves` and :func:`sim.rules.prisoners.apply_move`.

**Dealing first loses nothing** (so the solver deals every card, then searches moves only). A deal
appends a pile on the right; a move only involves piles to the left of its source and is decided by
their top cards and positions counted from the left, none of which a later deal changes. So a move
made before a deal is legal after it, with the same effect, and any play can be rearranged, deal by
deal, into "deal everything, then make the same moves in the same order", ending in the same row.
Conversely "deal everything first" is itself a way to play. ``tests/test_prisoners_solver.py`` checks
this lemma by brute force over interleaved plays on small decks.

The search
----------
Depth-first search over rows, with a transposition table of rows already proven lost (room for
twice the node budget, up to 4 GiB, so a search never has to forget one; it starts small and grows
as it fills, :func:`exact.prisoners.lost_rows.grow_table`: until :data:`SOLVER_VERSION` 2 it
held at most about 1.5 million and was emptied when full, and the searches past that redid the
subtrees of the rows they had proved lost; published 52-card decks undecided at 40 million nodes then
are lost within 3 to 7 million now, see ``benchmarks/README.md``). A row is
reduced to what decides its future (each step is exact, i.e. it maps rows with equal futures onto
one key):

* **ranks only**: moves compare ranks, never suits (suit symmetry);
* **top and bottom only**: moving ``i`` onto ``j`` sets the top of ``j`` to the top of ``i``
  (physical) or to the bottom of ``i`` (published, reversed); the bottom of ``j`` is unchanged; the
  cards in between never come back. So a pile is its top rank (physical) or ``(bottom, top)`` ranks.

**Commuting moves** (``Searcher(commute=True)``, and the kernel's ``COMMUTE`` bit, under both rules;
the restarts turn it on after :data:`COMMUTE_AFTER` nodes, at once for ``moves=physical``): after a move
onto pile ``j``, the search only tries
moves whose source is ``j`` or right of it. *Proof that no win is lost.* Name each pile by its
bottom card (bottoms never change, and piles never change order), and a move by the piles it joins,
mover ``I`` onto target ``J``; it *spans* the piles from ``J`` to ``I``. Two moves whose spans are
disjoint commute: if ``A`` then ``B`` is legal, so is ``B`` then ``A``, ending in the same row,
because each changes only the top of its own target and deletes its own mover, and deleting a pile
outside a span leaves the distance between its two ends unchanged (the piles between them are the
same). Order moves by their target's name, then their mover's; of two moves with disjoint spans the
left one comes first. Take a winning line from a row and, among the lines obtained from it by
swapping two consecutive moves with disjoint spans (all of them winning lines), the one first in
lexicographic order: it never has a move ``A`` followed at once by a move ``B`` whose span lies
wholly left of ``A``'s, as swapping them would give a line first in that order. ``B`` lies wholly
left of ``A`` exactly when ``B``'s source is left of ``A``'s target ``j`` (which keeps its position
after ``A``). So every winnable row has a winning line that the reduced search tries. The same
argument holds for the moves of ``moves=physical`` (only the new top differs). With the reduction,
the search from a row decides whether
a row is won *from bound* ``b`` (first move from a source ``>= b``): the lost-row table stores each
row with the least bound it was searched from and lost, and a row is known lost when found with a
bound at most its own (fewer first moves allowed). At bound 0 (the dealt row) that is the row's
true verdict. A row stored lost by a search without the reduction is lost from every bound, so the
table of a search that turns the reduction on midway stays sound (never the other way round).
*When it pays*: on the lost decks it expands about 10% more rows than the plain search (whose
lost-row table already catches the rows reached in other orders, but at the price of a lookup
each), yet each row has fewer moves to look up, so it runs more than twice as many rows a CPU
second (published 52-card decks lost at 3 to 5 million nodes: 1.75 against 0.71 million). Its
restarts, though, need about twice the rows to find a win (a random dive meets far fewer winning
lines when only one order of each set of commuting moves is allowed). Most wins are found within
the first million or two of nodes and most decks still undecided after that are lost, so the
restarts of ``moves=published`` run without it for :data:`COMMUTE_AFTER` nodes, then with it; those
of ``moves=physical``, whose decided decks are nearly all lost, with it from the start (see
benchmarks/README.md).

**Proofs of loss** (:mod:`exact.prisoners.proofs`, each proved there): the dealt row is checked
against every static condition first (a lost verdict then names it); during the search every
expanded row that fails ``disconnected``, ``uncoverable_cards`` (physical), ``frozen_piles``,
``unpaired_tops`` (published) or ``used_partners`` (physical) is cut (counted per condition in ``cuts``); ``immovable_piles``
(published) and ``stranded_cards`` (physical) are tried on the dealt row only (in the search they cost
more than they cut). The restarts (both rules) check the conditions only on rows of at
most :data:`PROOF_PILES` (24) piles, but for ``used_partners``, checked on every row (it cuts physical
rows of 25 to 40 piles that the others leave open, and lost decks close in fewer nodes: see
benchmarks/README.md) (the kernel's ``proofs >> PROOF_PILES_SHIFT``; the reference's
``Searcher(proof_piles=...)``, which the kernel equals with the same limit): on 52-card decks they
cut almost no longer row (20 decks of seed 1, 1,500,000 nodes: the lost decks expand 3.5% more rows
without them there) yet cost about 30% of a node's time (424,000 against 620,000 rows a CPU second),
so the same verdicts come about 1.5 times sooner (``moves=physical``, 200 decks each of seeds 1 and 2,
500,000 nodes: the same verdicts, 0.04-0.06% more rows, 0.670 -> 0.461 and 0.711 -> 0.501 CPU s a
deck). Skipping a condition never makes a verdict wrong
(it only lets the search expand a lost row it could have cut); ``strategy="dfs"`` checks every row.
The table of lost rows
holds only rows whose every child was searched or cut, so it is sound across restarts of the search
with other move orders.

Two engines run this search: :class:`Searcher` (Python, the reference) and :class:`KernelSearcher`
(numba, :mod:`exact.prisoners.solver_kernel`; 30-40 times faster, the default for decks of up to 62
cards). With ``strategy="dfs"`` and the reference's move order the numba engine expands the same
nodes, cuts the same rows and returns the same winning line (tested); its lost-row table stores each
row in full next to its hash, so a collision can never make a winnable row look lost. Its default
``strategy="restarts"`` runs the depth-first search several times, each in a fresh random move order
(a seeded stream, so verdicts are reproducible) with a node allowance growing from run to run
(:data:`RESTART_SCHEDULE`: shorter runs for ``moves=published``), keeping the table of lost rows
between runs, until one run ends (won or lost) or the budget is spent; on 52 cards it finds more
wins within a budget than one long run, whose early choices are never revisited.
``strategy="beam"`` first runs beam searches (:mod:`exact.prisoners.beam_kernel`: at each depth the
most promising distinct rows, scored by the piles with no partner to their right) with 10% and then
40% of the node budget, then the restarts with what is left; a beam only ever finds wins. It finds
wins of mid-size decks much faster (4x11, physical: 13 of 40 random decks won in 0.05 CPU s a deck,
where the restarts need 0.4 s for 12), but on 52 cards it found no win that the restarts miss and
costs more time per node, so it is not the default.
``strategy="nrpa"`` runs the restarts with a share of the node budget (:data:`NRPA_PLAN`) and, when
they leave the deck undecided, Nested Rollout Policy Adaptation searches
(:mod:`exact.prisoners.nrpa_kernel`, Rosin 2011; plain reference :mod:`exact.prisoners.nrpa`) with the
rest, each from a fixed seed of its own, a fixed number of NRPA steps (moves played or replayed)
counting as one node. NRPA samples whole games from weights over the moves ``(mover, target)``, piles
named by their bottom cards, and adapts the weights toward the best game found, over nested levels;
like a beam it only ever finds wins (its line is replayed like every other), so a deck the restarts
leave undecided stays undecided when it finds none. On 52-card ``moves=published`` decks it wins
some decks the restarts leave undecided at twice the budget (200 decks each of seeds 1 and 2: 3 of
the 55 left undecided at 3,000,000 nodes, each in under 0.7 CPU s), but at equal CPU it is only
ahead at large budgets (3,000,000 nodes: 277 against 275 won, 1 deck more decided per seed; at
1,500,000 and 500,000 nodes as many or fewer decided: the share it takes from the restarts costs
decks they close late), so it is not the default (see benchmarks/README.md).
``strategy="layers"`` (:mod:`exact.prisoners.layers`, at most 16 ranks) builds the reachable rows
layer by layer, by pile count, each layer without duplicates, a row of a layer counting as a node:
no proofs and no table of lost rows, and none of the rows of a layer is forgotten; only one order
of each set of commuting moves is tried (proved in that module). On physical 52-card decks, nearly
all lost, it proves losses in far less CPU time than the restarts, which find the rare wins sooner
(a layered search finds a win only at its last layer); under ``moves=published`` its layers grow
too wide at once. A layer wider than a share of the node budget
(:data:`~exact.prisoners.limits.LAYER_WIDTH_SHARE`) leaves the deck open at once: the decks whose
layers grow that wide are nearly never settled within the budget. ``strategy="hybrid"``, the
default under ``moves=physical`` where the layers run
(:func:`exact.prisoners.limits.default_strategy`), spends :data:`~exact.prisoners.limits.HYBRID_PROBE_NODES`
nodes on the restarts (without the commuting-move reduction) for a win, then the rest of its
budget on the layers (see benchmarks/README.md).

:meth:`KernelSearcher.profile` says where the last search spent its nodes, per depth (rows
expanded, rows found in the lost-row table, legal moves generated); ``benchmarks/bench_prisoners.py
--profile`` sums it over the undecided decks.

Evidence
--------
The verdict (:class:`SolveResult`) carries its evidence: ``won`` with a winning line (moves
``(source, target)`` by position in the current row, to be made after all cards are dealt), which
:func:`solve` replays with the reference rules before returning; ``lost`` with ``proof`` naming the
static condition that closed the dealt row, or ``"exhaustion"`` (every row searched or cut, the cuts
counted in ``cuts``); ``undecided`` when the search stopped first, with the nodes and seconds spent
and why it stopped (``stop``, :data:`exact.prisoners.limits.STOPS`): the node budget or the time
budget (CPU seconds of the searching thread, optional) ran out, or a layer of the layered search
passed its width or memory cap.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import ClassVar

import numpy as np

import exact.prisoners.beam_kernel as beam
import exact.prisoners.nrpa_kernel as nk
import exact.prisoners.solver_kernel as kernel
from exact.invariants import require
from exact.prisoners import layers, lost_rows, proofs
from exact.prisoners.limits import (
    HYBRID_PROBE_NODES,
    MAX_KERNEL_CARDS,
    STOP_NODES,
    STOP_TIME,
    STRATEGIES,
    default_node_budget,
    default_strategy,
    layer_width_cap,
)
from exact.status import BestPlayStatus
from sim import provenance
from sim.checks import check_budget, positive_number
from sim.deck import Deck
from sim.errors import UsageError
from sim.rules.prisoners import DISTANCES, adjacent_ranks, apply_move, legal_moves
from sim.variant import Variant
from sim.tables import TableMixin
from sim import compiling as work_clock  # clocks that leave out kernel compilation

#: The statuses of a verdict (:class:`exact.status.BestPlayStatus`; each is its stored text).
WON, LOST, UNDECIDED = BestPlayStatus.WON, BestPlayStatus.LOST, BestPlayStatus.UNDECIDED

#: Version of the search's verdicts, part of what identifies a stored verdict or best-play run
#: (:mod:`solitaire.best_play`), so that one stored by a weaker search is not served as the answer of
#: this one. Bump it whenever the verdicts for the same deck and budgets can change (a stronger search
#: or proof), never for changes that keep every verdict. Records without it are version 1; 2: the
#: lost-row table is sized for the whole node budget (it held at most 2,097,152 rows, which long
#: searches overflowed, emptying it and forgetting the rows they had proved lost); 3: the restarts of
#: ``moves=published`` turn on the commuting-move reduction after :data:`COMMUTE_AFTER` nodes; 4: the
#: ``moves=physical`` search also cuts every row that fails ``used_partners`` (a proof of loss); 5: the
#: layered search (``strategy="layers"``, the default under ``moves=physical``) stops at a memory cap
#: (:data:`exact.prisoners.layers.MAX_LAYER_BYTES`), its verdict then open; 6: the layered search
#: also stops (open) at a layer wider than a share of its budget
#: (:data:`exact.prisoners.limits.LAYER_WIDTH_SHARE`).
SOLVER_VERSION = 6

#: The conditions applied to every expanded row (``isolated_pile`` is contained in ``disconnected``).
SEARCH_CONDITIONS = ("disconnected", "uncoverable_cards", "frozen_piles", "unpaired_tops", "used_partners")
#: Of those, the ones checked on rows of every size, whatever the pile limit of the restarts.
EVERY_ROW_CONDITIONS = ("used_partners",)


@dataclass(frozen=True)
class Verdict:
    """What a searcher found for one row: the status and its evidence."""

    status: BestPlayStatus  #: WON, LOST or UNDECIDED
    line: tuple[tuple[int, int], ...] | None  #: winning moves (source, target), after dealing all
    nodes: int  #: rows expanded (over all runs of a restarting search)
    proof: str | None  #: for "lost": a static condition of :mod:`exact.prisoners.proofs`, or "exhaustion"
    cuts: tuple[tuple[str, int], ...] = ()  #: rows cut during the search, per condition
    seconds: float = field(default=0.0, compare=False)  #: CPU seconds of the search
    #: for "undecided": why the search stopped (:data:`exact.prisoners.limits.STOPS`), else None
    stop: str | None = None


@dataclass(frozen=True, repr=False)
class SolveResult(TableMixin):
    """The best-play verdict on one deck order, with its evidence (see the module docstring)."""

    deck: Deck
    variant: Variant
    order: tuple[int, ...]
    status: BestPlayStatus  #: WON, LOST or UNDECIDED (stored as "won", "lost", "undecided")
    line: tuple[tuple[int, int], ...] | None  #: winning moves (source, target), after dealing all
    nodes: int  #: rows expanded
    node_budget: int
    proof: str | None = None  #: why "lost": a static condition's name, or "exhaustion"
    cuts: tuple[tuple[str, int], ...] = ()  #: rows cut during the search, per condition
    seconds: float = 0.0  #: CPU seconds spent searching
    time_budget: float | None = None  #: CPU seconds allowed (None: nodes only)
    solver_version: int = SOLVER_VERSION  #: the search that gave it (:data:`SOLVER_VERSION`)
    #: the strategy that ran (:data:`STRATEGIES`; None in a record stored before strategies were recorded)
    strategy: str | None = None
    #: for "undecided": why the search stopped (:data:`exact.prisoners.limits.STOPS`: the node budget,
    #: the time budget, a layer past its width or memory cap); None when settled, and in a record
    #: stored before stops were recorded
    stop: str | None = None
    provenance: dict = field(default_factory=dict, compare=False)

    kind: ClassVar[str] = "solve"

    def __post_init__(self):
        object.__setattr__(self, "status", BestPlayStatus.parse(self.status))

    @property
    def won(self) -> bool:
        return self.status == WON

    @classmethod
    def from_record(cls, record: dict) -> "SolveResult":
        """Rebuild a verdict from its stored ``to_dict()`` content."""
        line = record.get("line")
        return cls(deck=Deck(int(record["suits"]), int(record["ranks"])), variant=Variant.parse(record["variant"]),
                   order=tuple(int(c) for c in record["order"]), status=BestPlayStatus.parse(record["status"]),
                   line=None if line is None else tuple((int(s), int(t)) for s, t in line),
                   nodes=int(record["nodes"]), node_budget=int(record["node_budget"]), proof=record.get("proof"),
                   cuts=tuple((str(k), int(v)) for k, v in (record.get("cuts") or {}).items()),
                   seconds=float(record.get("seconds", 0.0)), time_budget=record.get("time_budget"),
                   solver_version=int(record.get("solver_version", 1)), strategy=record.get("strategy"),
                   stop=record.get("stop"), provenance=dict(record.get("provenance", {})))

    def to_dict(self) -> dict:
        return {"game": "prisoners", "suits": self.deck.suits, "ranks": self.deck.ranks,
                "variant": str(self.variant), "order": list(self.order), "status": self.status.value,
                "line": [list(m) for m in self.line] if self.line is not None else None,
                "proof": self.proof, "cuts": dict(self.cuts), "nodes": self.nodes,
                "node_budget": self.node_budget, "seconds": self.seconds, "time_budget": self.time_budget,
                "solver_version": self.solver_version, "strategy": self.strategy, "stop": self.stop}


def check_variant(variant) -> Variant:
    """A prisoners Variant from ``variant`` (default ``moves=physical``)."""
    if variant is None:
        return Variant.make("prisoners", moves="physical")
    return Variant.coerce(variant, "prisoners")


def check_strategy(strategy) -> str:
    """A search strategy of :data:`STRATEGIES`, or a one-line :class:`UsageError`."""
    if strategy not in STRATEGIES:
        raise UsageError(f"strategy must be one of {', '.join(STRATEGIES)}, got {strategy!r}")
    return strategy


def check_time_budget(time_budget) -> float | None:
    """``None`` (no time limit) or a positive number of CPU seconds."""
    if time_budget is None:
        return None
    return positive_number("time budget", time_budget, unit="CPU seconds per deck")


def _neighbour_lists(ranks: int, wrap: bool):
    return [[s for s in range(ranks) if adjacent_ranks(r, s, ranks, wrap)] for r in range(ranks)]


def _cuts(counter: dict) -> tuple[tuple[str, int], ...]:
    return tuple((name, counter[name]) for name in SEARCH_CONDITIONS if counter.get(name))


class Searcher:
    """Depth-first best-play search on abstract rows, for one deck shape and variant (the reference).

    ``lost`` (the transposition table of rows proven lost) may be kept across searches: a row's
    verdict does not depend on the deck order it came from.
    """

    #: its one strategy (:data:`STRATEGIES`): one depth-first run in the reference's move order
    strategy = "dfs"

    def __init__(self, ranks: int, *, wrap: bool, reverse: bool, commute: bool = False, proof_piles: int = 0):
        self.ranks, self.reverse = ranks, reverse
        #: the conditions are checked on rows of at most this many piles only (0: on every row)
        self.proof_piles = int(proof_piles)
        self.adjacent = [[adjacent_ranks(a, b, ranks, wrap) for b in range(ranks)] for a in range(ranks)]
        self.neighbours = _neighbour_lists(ranks, wrap)
        #: the commuting-move reduction (see the module docstring; off by default)
        self.commute = bool(commute)
        #: rows proven lost; with ``commute`` a dict: row -> the least bound it was proven lost from
        self.lost: set | dict = {} if self.commute else set()

    def _known_lost(self, row, bound: int) -> bool:
        if self.commute:
            return self.lost.get(row, bound + 1) <= bound
        return row in self.lost

    def _mark_lost(self, row, bound: int) -> None:
        if self.commute:
            self.lost[row] = min(bound, self.lost.get(row, bound))
        else:
            self.lost.add(row)

    def start_row(self, rank_sequence) -> tuple:
        """The row after dealing ``rank_sequence``: piles are ranks (physical) or (bottom, top)."""
        return tuple((r, r) for r in rank_sequence) if self.reverse else tuple(rank_sequence)

    def _top(self, pile):
        return pile[1] if self.reverse else pile

    def _merge(self, source, target):
        """The pile left when ``source`` goes onto ``target``."""
        return (target[0], source[0]) if self.reverse else source

    def children(self, row):
        """``((source, target), child_row)`` for every legal move, rightmost source first."""
        top = self._top
        for i in range(len(row) - 1, 0, -1):
            ti = top(row[i])
            for d in DISTANCES:
                j = i - d
                if j < 0:
                    break
                if self.adjacent[ti][top(row[j])]:
                    yield (i, j), row[:j] + (self._merge(row[i], row[j]),) + row[j + 1:i] + row[i + 1:]

    def linked(self, row) -> bool:
        """Whether the row passes the ``disconnected`` condition (:mod:`exact.prisoners.proofs`)."""
        return not proofs.disconnected(row, self.neighbours, self.reverse)

    def root_proof(self, rank_sequence) -> str | None:
        """The static condition that proves the dealt row lost, or ``None``."""
        return proofs.proof_of_loss(self.start_row(rank_sequence), self.neighbours, self.reverse)

    def solve_ranks(self, rank_sequence, node_budget: int, time_budget: float | None = None) -> Verdict:
        """The verdict on the row dealt from ``rank_sequence`` (static proofs first, then the search)."""
        name = self.root_proof(rank_sequence)
        if name is not None:
            return Verdict(LOST, None, 0, name)
        return self.solve_row(self.start_row(rank_sequence), node_budget, time_budget)

    def solve_row(self, row, node_budget: int, time_budget: float | None = None) -> Verdict:
        """The verdict of the depth-first search from ``row`` (every expanded row checked against
        :data:`SEARCH_CONDITIONS`)."""
        nodes = 0
        line: list = []
        cuts: dict[str, int] = {}
        t0 = work_clock.thread_time()

        class OutOfBudget(Exception):
            pass

        def dfs(r, bound) -> bool:
            nonlocal nodes
            if len(r) == 1:
                return True
            if self._known_lost(r, bound):
                return False
            if nodes >= node_budget or (time_budget is not None and work_clock.thread_time() - t0 >= time_budget):
                raise OutOfBudget
            nodes += 1
            name = proofs.proof_of_loss(r, self.neighbours, self.reverse,
                                        SEARCH_CONDITIONS if not self.proof_piles or len(r) <= self.proof_piles
                                        else EVERY_ROW_CONDITIONS)
            if name is not None:
                cuts[name] = cuts.get(name, 0) + 1
            else:
                for move, child in self.children(r):
                    if move[0] < bound:
                        continue  # commutes with the last move, and comes first in the canonical order
                    if dfs(child, move[1] if self.commute else 0):
                        line.append(move)
                        return True
            self._mark_lost(r, bound)
            return False

        try:
            won = dfs(row, 0)
        except OutOfBudget:
            return Verdict(UNDECIDED, None, nodes, None, _cuts(cuts), work_clock.thread_time() - t0,
                           _open_stop(nodes, node_budget, time_budget))
        seconds = work_clock.thread_time() - t0
        if won:
            return Verdict(WON, tuple(reversed(line)), nodes, None, _cuts(cuts), seconds)
        return Verdict(LOST, None, nodes, proofs.EXHAUSTION, _cuts(cuts), seconds)


#: ``strategy="nrpa"`` (:mod:`exact.prisoners.nrpa_kernel`): the restarts get ``restart_share`` of the
#: node budget; when they leave the deck undecided, NRPA searches of ``level`` with ``iterations`` a
#: level (Rosin's ``alpha``), each from a fresh seed, spend the rest, ``step_cost`` NRPA steps
#: counting as one node (a step, a move played or replayed, costs about that fraction of a
#: depth-first node's CPU time; see benchmarks/README.md).
#: A share of 0.8 decided more decks than 0.5 at 3,000,000 nodes (seed 2: 140 against 138 won of 200).
NRPA_PLAN = {"restart_share": 0.8, "level": 2, "iterations": 100, "alpha": 1.0, "step_cost": 8}
#: The beams of ``strategy="beam"``: each is allowed this share of the node budget (its width is
#: that share over the number of cards, the rows a beam expands per width unit).
BEAM_SHARES = (0.1, 0.4)
#: Schedule of a restarting search per rule: ``(nodes of the first run, growth of the allowance from
#: one run to the next)``. With ``moves=published`` many short runs (1,000 nodes, each run a fifth
#: more) find more wins than fewer long ones (5,000 nodes, half more: on 200 random 52-card decks,
#: seed 1, 1,500,000 nodes, 135 won instead of 131 with the same 41 lost, in 13% fewer nodes; see
#: benchmarks/README.md); with ``moves=physical``, whose decided decks are nearly all proofs of loss,
#: the short runs decided no more (the same 30 lost, 1 win fewer), so it keeps the long ones.
RESTART_SCHEDULE = {"published": (1_000, 1.2), "physical": (5_000, 1.5)}
#: The restarts (and beams), under both rules, check the conditions of :data:`SEARCH_CONDITIONS` only
#: on rows of at most this many piles: on 52-card decks they cut almost nothing on longer rows and cost
#: about 30% of a node there (see the module docstring). ``strategy="dfs"`` checks every row.
PROOF_PILES = 24
#: The restarts (of every strategy but ``"dfs"``) turn on the commuting-move reduction once this many
#: nodes are spent, per rule (the kernel's ``COMMUTE`` bit; sound, see the module docstring, and the
#: rows proven lost before stay lost from every bound). With it a node costs less than half the CPU
#: time (fewer moves to look up) and the lost decks need about as many; without it the published
#: restarts find wins in fewer nodes, and most published decks still undecided after a million are
#: lost. ``moves=physical``, whose decided decks are nearly all lost, has it from the start (40
#: decks of seed 1 at 5,000,000 nodes: 2 won / 11 lost at 2.15 CPU s a deck against 1 / 11 at 3.57;
#: see benchmarks/README.md). ``None``: never.
COMMUTE_AFTER = {"published": 1_000_000, "physical": 0}


def _open_stop(nodes: int, node_budget: int, time_budget: float | None) -> str:
    """Why a depth-first search that settled nothing stopped: its node budget if it spent it (or has
    no time budget, the only other way it stops), else its time budget."""
    return STOP_NODES if nodes >= node_budget or time_budget is None else STOP_TIME


def _cpu_clock(time_budget: float | None):
    """``(t0, clock)``: the searching thread's CPU clock now, and ``clock()``, true once
    ``time_budget`` CPU seconds have passed since (never with ``None``)."""
    t0 = work_clock.thread_time()

    def clock() -> bool:
        return time_budget is not None and work_clock.thread_time() - t0 >= time_budget

    return t0, clock


#: Nodes the kernel expands between two looks at the clock.
_CLOCK_SLICE = 16_384


class KernelSearcher:
    """The numba twin of :class:`Searcher` (:mod:`exact.prisoners.solver_kernel`), same verdicts.

    ``strategy="dfs"``: one depth-first run; ``ordering=0`` tries moves in the reference's order (so
    nodes, cuts and lines equal the reference's), other orderings are listed in
    :data:`exact.prisoners.solver_kernel.ORDERINGS`. ``strategy="restarts"`` and ``"beam"`` (see the
    module docstring) ignore ``ordering``. The lost-row table is emptied for every deck.
    """

    def __init__(self, cards: int, ranks: int, *, wrap: bool, reverse: bool, ordering: int = 0,
                 strategy: str = "restarts"):
        if not kernel.supports(cards, ranks):
            raise UsageError(f"the numba solver handles at most {kernel.MAX_KERNEL_CARDS} cards and "
                             f"{kernel.MAX_KERNEL_RANKS} ranks: use engine='python'")
        if ordering not in kernel.ORDERINGS:
            raise UsageError(f"ordering must be one of {sorted(kernel.ORDERINGS)}, got {ordering!r}")
        check_strategy(strategy)
        if strategy in ("layers", "hybrid") and ranks > layers.MAX_LAYER_RANKS:
            raise UsageError(f"strategy {strategy} holds decks of at most {layers.MAX_LAYER_RANKS} ranks, got "
                             f"{ranks}: use another strategy")
        self.kernel, self.cards, self.ranks, self.reverse = kernel, cards, ranks, reverse
        self.ordering, self.strategy = ordering, strategy
        self.neighbours = kernel.neighbour_masks(ranks, wrap)
        self.neighbour_lists = _neighbour_lists(ranks, wrap)
        self._table = None  # ((hashes, keys), node budget, most slots): see _room_for
        #: the slots a deck's lost-row table starts with (:data:`exact.prisoners.lost_rows.START_SLOTS`)
        self.start_slots = lost_rows.START_SLOTS
        self._generation = 0  # of the lost-row table (exact.prisoners.lost_rows.next_generation)
        #: nodes after which the restarts turn on the commuting-move reduction (:data:`COMMUTE_AFTER`;
        #: ``None``: never, 0: from the start)
        self.commute_after = (None if strategy in ("dfs", "hybrid")
                              else COMMUTE_AFTER["published" if reverse else "physical"])
        #: ``strategy="nrpa"``'s plan (a copy of :data:`NRPA_PLAN`, to vary in benchmarks)
        self.nrpa_plan = dict(NRPA_PLAN)
        self._state = kernel.new_state(cards, ranks)
        #: the kernel's conditions and options (bits of :data:`exact.prisoners.solver_kernel.ALL_PROOFS`;
        #: ``| COMMUTE`` turns on the commuting-move reduction of ``moves=published``; the bits from
        #: ``PROOF_PILES_SHIFT`` up: the largest row, in piles, the conditions are checked on, 0 for all)
        self.proofs = kernel.ALL_PROOFS
        if strategy != "dfs":
            self.proofs |= PROOF_PILES << kernel.PROOF_PILES_SHIFT

    def profile(self):
        """Where the last :meth:`solve_ranks` spent its search, per depth (moves made from the dealt
        row): ``(expanded, table_hits, moves)`` arrays (see :func:`exact.prisoners.solver_kernel.new_state`)."""
        expanded, hits, moves = self._state[6]
        return expanded.copy(), hits.copy(), moves.copy()

    def root_proof(self, rank_sequence) -> str | None:
        """The static condition that proves the dealt row lost, or ``None``."""
        row = tuple((r, r) for r in rank_sequence) if self.reverse else tuple(rank_sequence)
        return proofs.proof_of_loss(row, self.neighbour_lists, self.reverse)

    def _run(self, tops, bottoms, line, ordering, seed, node_stop, clock, proofs):
        """One depth-first run within ``node_stop`` nodes: ``(status, nodes, cut counts)``;
        ``clock()`` says whether the time budget is spent (looked at every :data:`_CLOCK_SLICE` nodes)."""
        k = self.kernel
        self.kernel.start(self._state, len(tops), seed, filled=int(self._state[0][k._FILLED]),
                          generation=self._generation)
        scalars = self._state[0]
        while True:
            stop = min(node_stop, int(scalars[k._NODES]) + _CLOCK_SLICE)
            hashes, keys = self._room_for(stop - int(scalars[k._NODES]))
            verdict = k._search(tops, bottoms, self.neighbours, self.ranks, self.reverse, ordering, hashes, keys,
                                line, self._state, stop, proofs)
            if verdict != k.PAUSED_CODE:
                break
            if stop >= node_stop or clock():
                k.abandon(tops, bottoms, self._state)
                verdict = k.UNDECIDED_CODE
                break
        return BestPlayStatus.from_code(verdict), int(scalars[k._NODES]), (int(scalars[k._DISCONNECTED]), int(scalars[k._UNCOVERABLE]),
                                                 int(scalars[k._FROZEN]), int(scalars[k._UNPAIRED]),
                                                 int(scalars[k._USED]))

    def _room_for(self, nodes: int):
        """The lost-row table, grown first (:func:`exact.prisoners.lost_rows.grow_table`, by
        :data:`~exact.prisoners.lost_rows.GROWTH`, up to the slots the node budget allows) if the next
        ``nodes`` nodes, each storing at most one row, could leave it more than half full:
        ``(hashes, keys)``."""
        (hashes, keys), budget, cap = self._table
        filled = int(self._state[0][self.kernel._FILLED])
        slots = hashes.shape[0]
        while 2 * (filled + nodes) > slots and slots < cap:
            slots = min(cap, slots * lost_rows.GROWTH)
        if slots > hashes.shape[0]:
            hashes, keys, moved = lost_rows.grow_table(hashes, keys, self._generation, slots)
            require(moved == filled, f"the lost-row table held {moved} rows of this search, {filled} counted")
            self._table = ((hashes, keys), budget, cap)
        return hashes, keys

    def _nrpa(self, tops, line, node_allowance: int, clock):
        """NRPA searches (:data:`NRPA_PLAN`) from the dealt row ``tops`` within ``node_allowance``
        nodes of ``step_cost`` steps each, a fresh seed per search (the clock is looked at between
        searches): ``(won, nodes charged)``; a win's moves are in ``line``."""
        plan = self.nrpa_plan
        steps_left = node_allowance * plan["step_cost"]
        steps, run, won = 0, 0, False
        start_policy = np.zeros(len(tops) * len(tops), dtype=np.float64)
        while steps_left > 0:
            code, _, used = nk._nrpa(tops, self.neighbours, self.reverse, plan["level"], plan["iterations"],
                                     plan["alpha"], nk.run_seed(run), steps_left, start_policy, line)
            steps += used
            steps_left -= used
            run += 1
            if code == nk.NRPA_WON:
                won = True
                break
            if clock():
                break
        return won, -(-steps // plan["step_cost"])

    def _layers(self, rank_sequence, node_budget: int, time_budget: float | None,
                whole_budget: int | None = None) -> Verdict:
        """``strategy="layers"``: :func:`exact.prisoners.layers.layered_search`, a row of a layer
        counting as a node; a loss is the exhaustion of every reachable row. A layer may hold at most
        :func:`~exact.prisoners.limits.layer_width_cap` rows of ``whole_budget`` (the search's whole
        node budget, by default ``node_budget``)."""
        t0, clock = _cpu_clock(time_budget)
        width = layer_width_cap(node_budget if whole_budget is None else whole_budget)
        status, line, rows, _, stop = layers.layered_search(rank_sequence, self.neighbours, self.reverse,
                                                            node_budget, clock, max_width=width)
        seconds = work_clock.thread_time() - t0
        if status == "won":
            return Verdict(WON, line, rows, None, (), seconds)
        if status == "lost":
            return Verdict(LOST, None, rows, proofs.EXHAUSTION, (), seconds)
        return Verdict(UNDECIDED, None, rows, None, (), seconds, stop)

    def _hybrid(self, rank_sequence, node_budget: int, time_budget: float | None) -> Verdict:
        """``strategy="hybrid"``: the restarts for :data:`HYBRID_PROBE_NODES` nodes (without the
        commuting-move reduction, which slows finding a win), then the layered search with the rest of
        both budgets; the probe's nodes and rows cut count with the layers' rows."""
        first = self._search(rank_sequence, min(node_budget, HYBRID_PROBE_NODES), time_budget, "restarts")
        left_time = None if time_budget is None else time_budget - first.seconds
        if first.status != UNDECIDED or first.nodes >= node_budget:
            return first
        if left_time is not None and left_time <= 0:
            return replace(first, stop=STOP_TIME)
        rest = self._layers(rank_sequence, node_budget - first.nodes, left_time, whole_budget=node_budget)
        return Verdict(rest.status, rest.line, first.nodes + rest.nodes, rest.proof, first.cuts,
                       first.seconds + rest.seconds, rest.stop)

    def solve_ranks(self, rank_sequence, node_budget: int, time_budget: float | None = None) -> Verdict:
        """The verdict on the row dealt from ``rank_sequence`` (static proofs first, then the search)."""
        name = self.root_proof(rank_sequence)
        if name is not None:
            return Verdict(LOST, None, 0, name)
        if self.strategy == "layers":
            return self._layers(rank_sequence, node_budget, time_budget)
        if self.strategy == "hybrid":
            return self._hybrid(rank_sequence, node_budget, time_budget)
        return self._search(rank_sequence, node_budget, time_budget, self.strategy)

    def _search(self, rank_sequence, node_budget: int, time_budget: float | None, strategy: str) -> Verdict:
        """The depth-first ``strategy`` (any but "layers" and "hybrid") on the row dealt from
        ``rank_sequence``."""
        k = self.kernel
        if self._table is None or self._table[1] != node_budget:
            cap = lost_rows.table_slots(self.cards, self.ranks, node_budget)
            self._table = (lost_rows.new_table(self.cards, self.ranks, node_budget,
                                               max_slots=min(cap, self.start_slots)), node_budget, cap)
        self._generation = lost_rows.next_generation(self._table[0][0], self._generation)  # the table is empty
        self._state[0][k._FILLED] = 0  # the table is empty: restarts carry its fill from here on
        self._state[6][:] = 0  # the profile of this deck's search (see :func:`profile`)
        tops = np.array(list(rank_sequence), dtype=np.int64)
        bottoms = tops.copy()
        line = np.zeros((max(len(tops) - 1, 1), 2), dtype=np.int64)
        t0, clock = _cpu_clock(time_budget)
        nodes, cut = 0, [0] * len(SEARCH_CONDITIONS)
        verdict = UNDECIDED
        if strategy == "beam" and len(tops) > 1:
            for run, share in enumerate(BEAM_SHARES):
                width = max(1, int(share * node_budget) // len(tops))
                code, used = beam._beam(tops, self.neighbours, self.ranks, self.reverse, width, beam.seed_mix(run),
                                        line, min(node_budget - nodes, int(share * node_budget)), not self.reverse)
                nodes += used
                if code == beam.BEAM_WON:
                    moves = tuple((int(a), int(b)) for a, b in line[:len(tops) - 1])
                    return Verdict(WON, moves, nodes, None, (), work_clock.thread_time() - t0)
                if nodes >= node_budget or clock():
                    return Verdict(UNDECIDED, None, nodes, None, (), work_clock.thread_time() - t0,
                                   _open_stop(nodes, node_budget, time_budget))
        left = node_budget - nodes
        if strategy == "nrpa":
            left = max(1, int(self.nrpa_plan["restart_share"] * node_budget))
        if strategy == "dfs":
            runs = [(self.ordering, 0, left)]
        else:
            first, growth = RESTART_SCHEDULE["published" if self.reverse else "physical"]
            runs, allowance, run = [], float(first), 0
            while sum(r[2] for r in runs) < left:
                runs.append((2, run, min(int(allowance), left - sum(r[2] for r in runs))))
                allowance *= growth
                run += 1
        for ordering, seed, allowance in runs:
            commute = self.commute_after is not None and nodes >= self.commute_after
            verdict, used, run_cuts = self._run(tops, bottoms, line, ordering, seed, allowance, clock,
                                                self.proofs | k.COMMUTE if commute else self.proofs)
            nodes += used
            cut = [a + b for a, b in zip(cut, run_cuts)]
            if verdict != UNDECIDED or clock():
                break
        if strategy == "nrpa" and verdict == UNDECIDED and not clock() and nodes < node_budget:
            won, used = self._nrpa(tops, line, node_budget - nodes, clock)
            nodes += used
            if won:
                verdict = WON
        seconds = work_clock.thread_time() - t0
        cuts = _cuts(dict(zip(SEARCH_CONDITIONS, cut)))
        if verdict == WON:
            moves = tuple((int(a), int(b)) for a, b in line[:len(tops) - 1])
            return Verdict(WON, moves, nodes, None, cuts, seconds)
        if verdict == LOST:
            return Verdict(LOST, None, nodes, proofs.EXHAUSTION, cuts, seconds)
        return Verdict(UNDECIDED, None, nodes, None, cuts, seconds, _open_stop(nodes, node_budget, time_budget))


#: Search engines: "numba" (:class:`KernelSearcher`), "python" (:class:`Searcher`, the reference),
#: "auto" (numba when the deck fits the kernel).
ENGINES = ("auto", "numba", "python")


def make_searcher(deck: Deck, variant: Variant, *, engine: str = "auto", ordering: int = 0,
                  strategy: str | None = None):
    """The searcher for ``deck`` and ``variant`` on ``engine`` (see :data:`ENGINES`); ``ordering`` and
    ``strategy`` (default :func:`exact.prisoners.limits.default_strategy`: "hybrid" for
    ``moves=physical`` on decks of at most 16 ranks, else "restarts") are the numba engine's: the
    python engine runs one depth-first search in the reference's order."""
    if engine not in ENGINES:
        raise UsageError(f"engine must be one of {', '.join(ENGINES)}, got {engine!r}")
    wrap, reverse = variant.rules.wrap, variant.rules.reverse_piles
    if engine == "numba" or (engine == "auto" and kernel.supports(deck.size, deck.ranks)):
        return KernelSearcher(deck.size, deck.ranks, wrap=wrap, reverse=reverse, ordering=ordering,
                              strategy=strategy or default_strategy(deck.size, deck.ranks, variant))
    if strategy is not None:
        check_strategy(strategy)
    if ordering != 0 or strategy not in (None, "dfs"):
        engine_name = "the python engine" if engine == "python" else \
            f"deck {deck} is beyond the numba engine's {MAX_KERNEL_CARDS} cards: the python engine"
        wrong = f"ordering 0 only, got {ordering!r}" if ordering != 0 else f"strategy dfs only, got {strategy!r}"
        raise UsageError(f"{engine_name} runs one depth-first search in the reference's move order ({wrong})")
    return Searcher(deck.ranks, wrap=wrap, reverse=reverse)


def check_node_budget(node_budget) -> int:
    """The node budget as a positive int, or a one-line :class:`UsageError`."""
    return check_budget("node budget", node_budget, unit="nodes expanded per deck")


def resolve_node_budget(node_budget, variant: Variant, strategy: str) -> int:
    """``node_budget`` checked, or when None the default of ``variant``'s rule for the ``strategy``
    that runs (:func:`exact.prisoners.limits.default_node_budget`)."""
    return check_node_budget(default_node_budget(variant, strategy) if node_budget is None else node_budget)


def solve(order, deck: Deck, variant: Variant | str | None = None, *,
          node_budget: int | None = None, time_budget: float | None = None, engine: str = "auto",
          ordering: int = 0, strategy: str | None = None) -> SolveResult:
    """Decide whether ``order`` can be won by best play; a won verdict's line is checked by replay.

    Parameters
    ----------
    order : sequence of cards (a permutation of ``deck.cards()``), position 0 dealt first
    deck : Deck
    variant : prisoners Variant or string (default ``moves=physical``, ``wrap=on``); ``moves`` says
        how a pile moves (physical: as a unit; published: card by card, reversed)
    node_budget : rows expanded before giving up (outcome ``undecided``, shown as *open*; default
        :func:`exact.prisoners.limits.default_node_budget` of the variant's rule and the strategy)
    time_budget : CPU seconds of searching before giving up (default: no limit; nodes only)
    engine : "auto" (numba when the deck fits), "numba" or "python" (the reference search)
    ordering : move order of a depth-first run of the numba engine (0: the reference's)
    strategy : "restarts" (the numba engine's default for ``moves=published``), "beam" (beam searches
        for a win first, then the restarts), "nrpa" (the restarts with a share of the budget, then NRPA
        searches for a win), "layers" (the reachable rows layer by layer, :mod:`exact.prisoners.layers`),
        "hybrid" (the restarts for a win, then the layers; the default for ``moves=physical`` on decks
        of at most 16 ranks) or "dfs" (one run in ``ordering``; the python engine's only strategy)

    Examples
    --------
    >>> solve([0, 2, 1], Deck(1, 3), "prisoners(moves=physical,wrap=off)", strategy="dfs").line
    ((2, 1), (1, 0))
    >>> r = solve([1, 0, 2], Deck(1, 3), "prisoners(moves=physical,wrap=off)")
    >>> r.status, r.proof
    (<BestPlayStatus.LOST: 'lost'>, 'uncoverable_cards')
    """
    variant = check_variant(variant)
    order = deck.check_order(order)
    time_budget = check_time_budget(time_budget)
    searcher = make_searcher(deck, variant, engine=engine, ordering=ordering, strategy=strategy)
    node_budget = resolve_node_budget(node_budget, variant, searcher.strategy)
    verdict = searcher.solve_ranks([deck.rank(c) for c in order], node_budget, time_budget)
    if verdict.status == WON:
        check_line(order, deck, variant, verdict.line)
    return SolveResult(deck=deck, variant=variant, order=order, status=verdict.status, line=verdict.line,
                       nodes=verdict.nodes, node_budget=node_budget, proof=verdict.proof, cuts=verdict.cuts,
                       seconds=verdict.seconds, time_budget=time_budget,
                       strategy=searcher.strategy, stop=verdict.stop, provenance=provenance.collect())


def replay(order, deck: Deck, variant: Variant | str | None, line) -> list[list[int]]:
    """Deal every card of ``order``, then make the moves of ``line`` with the reference rules.

    Raises ``ValueError`` on an illegal move; returns the final row of piles (cards, bottom to top).
    """
    variant = check_variant(variant)
    wrap, reverse = variant.rules.wrap, variant.rules.reverse_piles
    piles = [[card] for card in order]
    for source, target in line:
        if (source, target) not in legal_moves(piles, deck, wrap):
            raise ValueError(f"illegal move {source}->{target} in row {piles}")
        piles = apply_move(piles, source, target, reverse)
    return piles


def check_line(order, deck: Deck, variant: Variant, line) -> None:
    """Replay a winning line with the reference rules; an internal error unless it ends in one pile."""
    if len(replay(order, deck, variant, line)) != 1:
        raise RuntimeError(f"internal error: the solver's winning line does not win {list(order)}")
