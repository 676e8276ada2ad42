"""Hand Solitaire runs that reach the iteration cap, decided exactly: trapped, or a win still reachable.

A run that reaches the cap is at some deck order ``s``. Everything reachable from ``s`` is a union of
*classes* (see :mod:`exact.hand.graph`): the first iteration of ``s`` fixes the discards and the
leftover set, and the next state is any order of those leftovers behind the reversed discards. So
the reachable set is explored class by class, playing every member of each class:

* a winning member is found: a **witness** (the leftover orders to choose from ``s``, replayable
  with :func:`sim.rules.hand.replay`): the run is not trapped;
* the classes are exhausted with no win: a **certificate** (that closed set of classes): the run is
  **trapped**. Its poison set is the attracting component it ends in (networkx
  ``attracting_components`` on the class graph of the closure), of a size counted in deck orders;
* the exploration needs more member plays than the budget: **undecided**.

The same exploration from a run's *start* deck decides whether the start deck is **unwinnable** (no
win reachable at all), a different question: a winnable deck can still end trapped. A start deck
whose run was won is winnable (the run is its witness); for the others, seeded random restarts look
for a witness before the exhaustive search is tried.

Intervals are Solvitaire-style (:func:`sim.stats.bracket_interval`): undecided runs count as not
trapped for the low bound and as trapped for the high bound.
"""
from __future__ import annotations

import math
import random
from collections import Counter, deque
from dataclasses import dataclass, field
from typing import ClassVar

import networkx as nx
import numpy as np

from exact.hand.graph import START, members, successor_keys
from exact.invariants import require
from exact.status import PoisonStatus
from sim.checks import check_budget, check_decks, check_seed
from sim import interrupts, provenance, rng
from sim.deck import Deck
from sim.kernels.hand import DEFAULT_CAP, check_cap, run_decks
from sim.progress import progress_bar
from sim.rules.hand import play_iteration, play_run, replay
from sim.stats import bracket_interval
from sim.variant import Variant
from sim.tables import TableMixin
from sim import compiling as work_clock  # clocks that leave out kernel compilation

#: Default budget: member deck orders played to decide one run (or one start deck).
DEFAULT_BUDGET = 200_000
#: Runs per random stream (part of what a seed means, like the Monte Carlo chunk plan).
CHUNK_DECKS = 1 << 14
#: Random restarts from a start deck that ended trapped, looking for a witness of a win.
RESTARTS = 20
#: Iterations per restart (won runs of 52 cards rarely take more: the median is about 25).
RESTART_CAP = 200


@dataclass(frozen=True)
class Decision:
    """The outcome of exploring everything reachable from one deck order."""

    status: PoisonStatus  #: WIN_REACHABLE, TRAPPED or UNDECIDED
    witness: tuple | None = None  #: leftover orders to choose, from the order explored, to a win
    classes: dict | None = None  #: the closure (class -> successor classes) when trapped
    played: int = 0  #: member orders played


def _class_of(order, deck: Deck, variant: Variant, ordered: bool):
    """``None`` if ``order`` wins its iteration, else the class of its successors."""
    (raw,) = successor_keys([order], deck, variant, ordered)
    if raw is not None and not ordered and not raw[0]:
        return START
    return raw


def explore(order, deck: Deck, variant: Variant, *, budget: int = DEFAULT_BUDGET) -> Decision:
    """Everything reachable from ``order``: a witness of a win, a closed set without one, or undecided."""
    ordered = not variant.rules.reshuffle
    order = tuple(int(c) for c in order)
    first = _class_of(order, deck, variant, ordered)
    if first is None:
        return Decision(PoisonStatus.WIN_REACHABLE, witness=(), played=1)
    parent = {first: None}  # class -> (parent class, member chosen in the parent)
    successors: dict = {}
    queue = deque([first])
    played = 1
    while queue:
        key = queue.popleft()
        size = 1 if ordered else math.factorial(deck.size if key == START else len(key[1]))
        if played + size > budget:
            return Decision(PoisonStatus.UNDECIDED, played=played)
        orders = members(key, ordered, deck)
        played += len(orders)
        successors[key] = set()
        for member, raw in zip(orders, successor_keys(orders, deck, variant, ordered)):
            if raw is None:
                return Decision(PoisonStatus.WIN_REACHABLE, witness=_witness(parent, key, member, deck), played=played)
            if not ordered and not raw[0]:
                raw = START
            successors[key].add(raw)
            if raw not in parent:
                parent[raw] = (key, member)
                queue.append(raw)
    return Decision(PoisonStatus.TRAPPED, classes=successors, played=played)


def _witness(parent, key, member, deck: Deck) -> tuple:
    """The leftover orders chosen on the path that ends with ``member`` of class ``key``."""
    chosen = []
    while key is not None:
        prefix_length = 0 if key == START else len(key[0])
        chosen.append(tuple(member[prefix_length:]))
        if parent[key] is None:
            break
        key, member = parent[key]
    return tuple(reversed(chosen))


def _poison_set(decision: Decision, order, deck: Deck, variant: Variant, random_state: random.Random):
    """The poison set a trapped run ends in: ``(size in deck orders, leftover counts of its classes)``.

    The run is followed (random members, as the game would choose) until its class lies in an
    attracting component of the closure.
    """
    ordered = not variant.rules.reshuffle
    graph = nx.DiGraph()
    for key, successors in decision.classes.items():
        graph.add_node(key)
        graph.add_edges_from((key, s) for s in successors)
    component_of = {}
    for component in nx.attracting_components(graph):
        for key in component:
            component_of[key] = frozenset(component)
    key = _class_of(tuple(order), deck, variant, ordered)
    while key not in component_of:
        member = random_state.choice(members(key, ordered, deck))
        key = _class_of(member, deck, variant, ordered)
    component = component_of[key]
    states = set()
    for k in component:
        states.update(members(k, ordered, deck))
    leftovers = sorted(deck.size if k == START else len(k[1]) for k in component)
    return len(states), ",".join(map(str, leftovers))


@dataclass(frozen=True, repr=False)
class PoisonResult(TableMixin):
    """Runs from random start decks, each capped run decided exactly where the budget allows."""

    deck: Deck
    variant: Variant
    seed: int
    decks: int
    cap: int
    budget: int
    won: int  #: runs won within the cap
    trapped: int  #: runs that ended in a poison set (certificate found)
    win_reachable: int  #: capped runs from whose final order a win is still reachable (witness found)
    undecided: int  #: capped runs not decided within the budget
    poison_set_sizes: dict  #: {size in deck orders: runs trapped in a set of that size}
    poison_set_leftovers: dict  #: {size: {"k1,k2,...": runs}} leftover counts of the set's classes
    unwinnable: int  #: start decks from which no win is reachable (certificate)
    unwinnable_undecided: int  #: start decks of trapped or undecided runs not decided either way
    seconds: float
    witnesses: list = field(default_factory=list)  #: a few (start order, choices) witnesses, replayable
    provenance: dict = field(default_factory=dict)
    kind: ClassVar[str] = "poison"

    @classmethod
    def from_record(cls, record: dict) -> "PoisonResult":
        """Rebuild from the stored ``to_dict()`` content (the witnesses are not stored)."""
        return cls(deck=Deck(int(record["suits"]), int(record["ranks"])), variant=Variant.parse(record["variant"]),
                   **{key: int(record[key]) for key in ("seed", "decks", "cap", "budget", "won", "trapped",
                                                        "win_reachable", "undecided", "unwinnable",
                                                        "unwinnable_undecided")},
                   poison_set_sizes={int(k): int(v) for k, v in record["poison_set_sizes"].items()},
                   poison_set_leftovers={int(k): dict(v) for k, v in record["poison_set_leftovers"].items()},
                   seconds=float(record["seconds"]), provenance=dict(record.get("provenance", {})))

    def to_dict(self) -> dict:
        trapped_low, trapped_high = bracket_interval(self.trapped, self.undecided, self.decks)
        unw_low, unw_high = bracket_interval(self.unwinnable, self.unwinnable_undecided, self.decks)
        return {
            "game": "hand", "suits": self.deck.suits, "ranks": self.deck.ranks, "variant": str(self.variant),
            "seed": self.seed, "decks": self.decks, "cap": self.cap, "budget": self.budget, "won": self.won,
            "trapped": self.trapped, "p_trapped_runs": self.trapped / self.decks, "ci95_trapped": [trapped_low, trapped_high],
            "win_reachable": self.win_reachable, "undecided": self.undecided,
            "poison_set_sizes": {str(k): v for k, v in sorted(self.poison_set_sizes.items())},
            "poison_set_leftovers": {str(k): dict(v) for k, v in sorted(self.poison_set_leftovers.items())},
            "unwinnable": self.unwinnable, "p_unwinnable": self.unwinnable / self.decks,
            "ci95_unwinnable": [unw_low, unw_high], "unwinnable_undecided": self.unwinnable_undecided,
            "seconds": self.seconds,
        }


def _start_deck_unwinnable(start, deck: Deck, variant: Variant, *, cap: int, budget: int,
                           random_state: random.Random):
    """``(True | False | None, witness)``: no win reachable from ``start`` / a win is / undecided."""
    for _ in range(RESTARTS):
        run = play_run(start, deck, variant, cap=min(cap, RESTART_CAP), shuffle=random_state.shuffle)
        if run.won:
            return False, run.choices
        if not variant.rules.reshuffle:
            break  # a deterministic run: restarts repeat it
    decision = explore(start, deck, variant, budget=budget)
    if decision.status == PoisonStatus.WIN_REACHABLE:
        return False, decision.witness
    if decision.status == PoisonStatus.TRAPPED:
        return True, None
    return None, None


def _as_tuples(value):
    """Nested lists (a witness as read back from JSON) as nested tuples."""
    return tuple(_as_tuples(v) for v in value) if isinstance(value, (list, tuple)) else value


def empty_tally() -> dict:
    """The counts of no runs: what :func:`classify_chunk` returns and :func:`add_tally` sums. A tally
    is plain JSON (ints, floats, string-keyed dicts, lists), so an unfinished classification can be
    saved as it is (``solitaire poison --out``) and resumed."""
    return {"chunks": 0, "won": 0, "trapped": 0, "win_reachable": 0, "undecided": 0, "unwinnable": 0,
            "unwinnable_undecided": 0, "poison_set_sizes": {}, "poison_set_leftovers": {}, "witnesses": [],
            "play_seconds": 0.0, "decide_seconds": 0.0, "seconds": 0.0}


def add_tally(total: dict, part: dict) -> dict:
    """``total`` and ``part`` summed (a new dict; the first five witnesses are kept)."""
    out = dict(total)
    for key in ("chunks", "won", "trapped", "win_reachable", "undecided", "unwinnable", "unwinnable_undecided",
                "play_seconds", "decide_seconds", "seconds"):
        out[key] = total[key] + part[key]
    sizes = dict(total["poison_set_sizes"])
    leftovers = {size: dict(made) for size, made in total["poison_set_leftovers"].items()}
    for size, runs in part["poison_set_sizes"].items():
        sizes[size] = sizes.get(size, 0) + runs
    for size, made in part["poison_set_leftovers"].items():
        into = leftovers.setdefault(size, {})
        for key, runs in made.items():
            into[key] = into.get(key, 0) + runs
    out["poison_set_sizes"], out["poison_set_leftovers"] = sizes, leftovers
    out["witnesses"] = (list(total["witnesses"]) + list(part["witnesses"]))[:5]
    return out


def classify_chunk(deck: Deck, variant: Variant, *, seed: int, chunk: int, decks: int, cap: int,
                   budget: int) -> dict:
    """Play and decide the runs of chunk ``chunk`` (its own random stream; ``decks`` runs, at most
    :data:`CHUNK_DECKS`): their tally (see :func:`empty_tally`). Arguments are not checked here:
    :func:`classify_runs` does that. Between two capped runs a signal handled by
    :mod:`sim.interrupts` stops it (the chunk's work is then dropped, never counted in part)."""
    tally = empty_tally()
    tally["chunks"] = 1
    sizes, leftovers, witnesses = tally["poison_set_sizes"], tally["poison_set_leftovers"], tally["witnesses"]
    state = rng.chunk_states(seed, chunk, 1)[0]
    t_play = work_clock.perf_counter()
    starts, finals, _, cards_left = run_decks(state, decks, deck, variant, cap=cap)
    t_decide = work_clock.perf_counter()
    tally["play_seconds"] = t_decide - t_play
    tally["won"] = int((cards_left == 0).sum())
    for g in np.flatnonzero(cards_left):
        interrupts.check()
        # a seeded stream per capped run, so that its decision does not depend on the others
        random_state = random.Random(f"{seed}:{chunk}:{g}")
        final = tuple(int(c) for c in finals[g])
        start = tuple(int(c) for c in starts[g])
        decision = explore(final, deck, variant, budget=budget)
        if decision.status == PoisonStatus.WIN_REACHABLE:
            tally["win_reachable"] += 1
            if len(witnesses) < 5:
                require(play_iteration(replay(final, decision.witness, deck, variant), deck, variant).won,
                        "a witness replays to a win")
                witnesses.append((final, decision.witness))
            continue
        if decision.status == PoisonStatus.UNDECIDED:
            tally["undecided"] += 1
        else:
            tally["trapped"] += 1
            size, made_of = _poison_set(decision, final, deck, variant, random_state)
            sizes[str(size)] = sizes.get(str(size), 0) + 1
            made = leftovers.setdefault(str(size), {})
            made[made_of] = made.get(made_of, 0) + 1
        verdict, witness = _start_deck_unwinnable(start, deck, variant, cap=cap, budget=budget,
                                                  random_state=random_state)
        if verdict is None:
            tally["unwinnable_undecided"] += 1
        elif verdict:
            tally["unwinnable"] += 1
        elif len(witnesses) < 5:
            witnesses.append((start, witness))
    tally["decide_seconds"] = work_clock.perf_counter() - t_decide
    tally["seconds"] = work_clock.perf_counter() - t_play
    return tally


def classify_runs(deck: Deck | None = None, variant: Variant | str | None = None, *, decks: int = 100_000,
                  seed: int | None = None, cap: int = DEFAULT_CAP, budget: int = DEFAULT_BUDGET,
                  progress=None, resume_from: dict | None = None, on_chunk=None) -> PoisonResult:
    """Play ``decks`` runs from uniformly shuffled decks and decide every run that reaches ``cap``.

    Parameters
    ----------
    deck : default ``Deck(4, 13)``
    variant : Hand Solitaire variant (default: the rules as written)
    decks : number of random start decks, one run each
    seed : non-negative int (``None``: fresh, reported); run ``i`` uses stream ``i // CHUNK_DECKS``
    cap : iterations after which a run is decided by exploration instead of play
    budget : member deck orders played at most to decide one run (and again for its start deck)
    progress : a progress bar on stderr for classifications longer than a few seconds (default: yes;
        ``False``: none)
    resume_from : the tally of the chunks already done (as given to ``on_chunk``): they are not played
        again, and the result is the one an uninterrupted classification gives
    on_chunk : called with the tally of every chunk done so far after each chunk (to checkpoint it)

    Examples
    --------
    >>> r = classify_runs(Deck(2, 3), decks=200, seed=1, cap=50, progress=False)
    >>> r.won + r.trapped + r.win_reachable + r.undecided == 200
    True
    """
    deck = deck if deck is not None else Deck()
    variant = Variant.coerce(variant, "hand")
    decks, seed, cap = check_decks(decks), check_seed(seed), check_cap(cap)
    budget = check_budget("budget", budget, unit="deck orders per decision")
    n_chunks = -(-decks // CHUNK_DECKS)
    tally = dict(resume_from) if resume_from is not None else empty_tally()
    if not 0 <= tally["chunks"] <= n_chunks:
        raise ValueError(f"resume_from has {tally['chunks']} chunks done of {n_chunks}")
    started = provenance.now()
    first = tally["chunks"]
    with progress_bar(decks, progress, desc="poison", unit="deck", initial=min(decks, first * CHUNK_DECKS)) as bar:
        for chunk in range(first, n_chunks):
            games = min(CHUNK_DECKS, decks - chunk * CHUNK_DECKS)
            tally = add_tally(tally, classify_chunk(deck, variant, seed=seed, chunk=chunk, decks=games, cap=cap,
                                                    budget=budget))
            bar.update(games)
            if on_chunk is not None:
                on_chunk(tally)
    return tally_result(deck, variant, tally, seed=seed, decks=decks, cap=cap, budget=budget,
                        seconds=tally["seconds"], started=started)


def tally_result(deck: Deck, variant: Variant, tally: dict, *, seed: int, decks: int, cap: int, budget: int,
                 seconds: float, started: str) -> PoisonResult:
    """The :class:`PoisonResult` of a finished tally (every chunk done); ``seconds``: the time spent
    on its chunks, over every session."""
    sizes = {int(k): v for k, v in tally["poison_set_sizes"].items()}
    leftovers = {int(k): Counter(v) for k, v in tally["poison_set_leftovers"].items()}
    return PoisonResult(deck=deck, variant=variant, seed=seed, decks=decks, cap=cap, budget=budget, won=tally["won"],
                        trapped=tally["trapped"], win_reachable=tally["win_reachable"], undecided=tally["undecided"],
                        poison_set_sizes=sizes, poison_set_leftovers=leftovers, unwinnable=tally["unwinnable"],
                        unwinnable_undecided=tally["unwinnable_undecided"], seconds=seconds,
                        witnesses=[_as_tuples(w) for w in tally["witnesses"]],
                        provenance=provenance.collect(started=started, finished=provenance.now(), backend="local",
                                                      play_seconds=tally["play_seconds"],
                                                      decide_seconds=tally["decide_seconds"],
                                                      capped_runs=tally["trapped"] + tally["win_reachable"]
                                                      + tally["undecided"]))
