"""Hand Solitaire on a whole small deck: poison sets, unwinnable orders and exact odds.

The drivers of ``solitaire poison --all``: the class graph (:mod:`exact.hand.graph`, where the chain,
its classes and the suit and rank relabelling are explained) goes to networkx for the graph
questions (``attracting_components`` for the poison sets, ``ancestors`` of the win for the orders
that can still win) and to :mod:`exact.hand.chains` for the absorbing chain: ``P(win)`` and
``E[iterations 1_win]`` from a uniformly random order, exactly. ``P(trapped) = 1 - P(win)``: the chain
is finite, so a run that never wins ends in a closed set without a win.

:func:`analyse_deck` (numba exploration, verified lumping, modular solve with p-adic lifting) is
tested against :func:`analyse_deck_reference` (plain Python classes, Fraction elimination) and, up to
10 cards, against the same graph solved in Fractions (``method="fractions"``).
"""
from __future__ import annotations

import contextlib
import itertools
from collections import Counter, deque
from dataclasses import dataclass, field, fields
from typing import ClassVar
from fractions import Fraction

import networkx as nx
import numpy as np

from sim import interrupts
from sim import provenance as _prov
from sim.deck import Deck
from sim.checks import non_negative_int, positive_int
from sim.errors import UsageError
from sim.variant import Variant

from sim.fractions_text import fraction_from_text, fraction_text
from exact.hand.chains import (
    CountChain, absorb_fractions, absorb_modular, lump, steps_to_win, steps_to_win_tail)
from exact.hand.graph import (
    START, WIN, build_class_graph, explore_classes, count_chain, group_size, leftovers_of_key, members,
    successor_keys)
from exact.hand.limits import MAX_GRAPH_CARDS
from exact.invariants import require
from sim.tables import TableMixin
from sim import compiling as work_clock  # clocks that leave out kernel compilation

#: Largest deck whose whole graph :func:`analyse_deck_reference` (plain Python) accepts: 9 cards take
#: seconds, 2x5 did not finish in 15 minutes.
REFERENCE_MAX_CARDS = 9
#: Solvers of the absorbing chain (``method=``): the modular solver and the Fraction reference.
METHODS = ("modular", "fractions")
#: Part of the key of a whole-graph checkpoint (``analyse_deck(checkpoint_dir=...)``): raised when the
#: explored graph, its answers or the lumping change, so that a saved graph of older code is refused.
GRAPH_CHECKPOINT_VERSION = 1


def _check(deck: Deck, variant, *, limit: int) -> Variant:
    variant = Variant.coerce(variant, "hand")
    if deck.size > limit:
        raise UsageError(f"deck {deck} has {deck.size} cards; the whole graph is built for at most "
                         f"{limit} cards: use `solitaire poison` without --all for larger decks")
    return variant


@dataclass(frozen=True, repr=False)
class HandGraphResult(TableMixin):
    """Exact Hand Solitaire answers for a whole small deck (``solitaire poison --all``)."""

    deck: Deck
    variant: Variant
    orders: int  #: (S*R)!
    winning_orders: int  #: orders won on the first iteration
    unwinnable_orders: int  #: orders from which no win is reachable
    poison_sets: dict  #: {size in deck orders: number of poison sets of that size}
    #: {size: sorted leftover counts of the classes making such a set (the least list among sets of that size)}
    poison_set_leftovers: dict
    p_win: Fraction  #: eventual win from a uniformly random order
    p_trapped: Fraction  #: ending in a poison set from a uniformly random order
    expected_iterations_given_win: Fraction | None
    classes: int  #: canonical classes explored
    orders_played: int  #: iterations played to build the graph
    seconds: float
    #: P(won on iteration t) for t = 1..k, exact (``analyse_deck(..., iterations=k)``)
    iterations_to_win: tuple = ()
    #: the same for t = k+1..K in float64 (``tail=K``)
    iterations_to_win_tail: tuple = ()
    #: how the chain was solved: method, unknowns (and after lumping), core size, lifting steps, digits
    solver: dict = field(default_factory=dict, compare=False)
    #: versions, git commit, times, method and the solver's details (what the results store saves
    #: beside the result)
    provenance: dict = field(default_factory=dict, compare=False)
    kind: ClassVar[str] = "hand-graph"

    @classmethod
    def from_record(cls, record: dict) -> "HandGraphResult":
        """Rebuild from the stored ``to_dict()`` content (the solver's details are not stored)."""
        def frac(text):
            return None if text is None else fraction_from_text(text)

        return cls(deck=Deck(int(record["suits"]), int(record["ranks"])), variant=Variant.parse(record["variant"]),
                   orders=int(record["orders"]), winning_orders=int(record["winning_orders"]),
                   unwinnable_orders=int(record["unwinnable_orders"]),
                   poison_sets={int(k): int(v) for k, v in record["poison_sets"].items()},
                   poison_set_leftovers={int(k): v for k, v in record["poison_set_leftovers"].items()},
                   p_win=frac(record["p_win"]), p_trapped=frac(record["p_trapped"]),
                   expected_iterations_given_win=frac(record["expected_iterations_given_win"]),
                   classes=int(record["classes"]), orders_played=int(record["orders_played"]),
                   seconds=float(record["seconds"]),
                   iterations_to_win=tuple(frac(x) for x in record.get("iterations_to_win", ())),
                   iterations_to_win_tail=tuple(record.get("iterations_to_win_tail", ())),
                   provenance=dict(record.get("provenance", {})))

    def to_dict(self) -> dict:
        def frac(x):
            return None if x is None else fraction_text(x)

        return {"game": "hand", "suits": self.deck.suits, "ranks": self.deck.ranks, "variant": str(self.variant),
                "orders": self.orders, "winning_orders": self.winning_orders,
                "unwinnable_orders": self.unwinnable_orders,
                "poison_sets": {str(k): v for k, v in sorted(self.poison_sets.items())},
                "poison_set_leftovers": {str(k): v for k, v in sorted(self.poison_set_leftovers.items())},
                "p_win": frac(self.p_win), "p_trapped": frac(self.p_trapped),
                "expected_iterations_given_win": frac(self.expected_iterations_given_win),
                "classes": self.classes, "orders_played": self.orders_played, "seconds": self.seconds,
                **({"iterations_to_win": [frac(x) for x in self.iterations_to_win]} if self.iterations_to_win else {}),
                **({"iterations_to_win_tail": list(self.iterations_to_win_tail)} if self.iterations_to_win_tail
                   else {})}


def _provenance(started: str, t0: float, method: str) -> dict:
    return _prov.collect(started=started, finished=_prov.now(), seconds=work_clock.perf_counter() - t0, method=method)


def _real_closure(key, deck: Deck, variant: Variant, ordered: bool):
    """All deck orders reachable from the members of a (real, not canonical) class, and the
    classes met; ``None`` for the orders if a win is met."""
    states: set = set()
    classes = {key}
    queue = deque([key])
    while queue:
        current = queue.popleft()
        orders = members(current, ordered, deck)
        states.update(orders)
        for raw in successor_keys(orders, deck, variant, ordered):
            if raw is None:
                return None, classes
            if not ordered and not raw[0]:
                raw = START
            if raw not in classes:
                classes.add(raw)
                queue.append(raw)
    return states, classes


def _group_images(deck: Deck):
    """Every element of G as a card map (tuple: card -> image)."""
    for suits in itertools.permutations(range(deck.suits)):
        for ranks in itertools.permutations(range(deck.ranks)):
            yield tuple(suits[c // deck.ranks] * deck.ranks + ranks[c % deck.ranks] for c in deck.cards())


def analyse_deck_reference(deck: Deck, variant: Variant | str | None = None) -> HandGraphResult:
    """The whole deck-order graph in plain Python (classes as tuples, :mod:`networkx`): the oracle
    that :func:`analyse_deck` is tested against, for decks of at most :data:`REFERENCE_MAX_CARDS`.

    Returns the poison sets (closed strongly connected sets without a win, found with
    :func:`networkx.attracting_components`), the number of unwinnable orders, and, from a uniformly
    random order, the probability of an eventual win and of ending trapped, and the expected number
    of iterations of a won run (absorbing Markov chain, solved in exact rational arithmetic).

    Examples
    --------
    >>> r = analyse_deck_reference(Deck(1, 4))
    >>> r.orders, r.p_win, r.p_trapped
    (24, Fraction(0, 1), Fraction(1, 1))
    """
    variant = _check(deck, variant, limit=REFERENCE_MAX_CARDS)
    ordered = not variant.rules.reshuffle
    started, t0 = _prov.now(), work_clock.perf_counter()
    graph = build_class_graph(deck, variant)
    nxg = graph.networkx()
    attracting = [c for c in nx.attracting_components(nxg) if WIN not in c]
    can_win = nx.ancestors(nxg, WIN)
    # Poison sets at full resolution.
    images = list(_group_images(deck))
    poison_sets: Counter = Counter()
    poison_leftovers: dict = {}
    for component in attracting:
        key = min(component, key=repr)
        states, classes = _real_closure(key, deck, variant, ordered)
        require(states is not None, "a poison class reached a win")
        some_state = next(iter(states))
        stabiliser = sum(tuple(g[c] for c in some_state) in states for g in images)
        poison_sets[len(states)] += len(images) // stabiliser
        leftover_counts = sorted(deck.size if k == START else len(k[1]) for k in classes)
        poison_leftovers[len(states)] = min(poison_leftovers.get(len(states), leftover_counts), leftover_counts)
    # Absorption: h = P(win), m = E[T 1_win] from the start class (a member chosen uniformly), in
    # Fractions, on the chain of the classes (counts in deck orders)
    keys = list(graph.transitions)
    index = {key: i for i, key in enumerate(keys)}
    src, dst, count = [], [], []
    for key, successors in graph.transitions.items():
        for successor, c in successors.items():
            src.append(index[key])
            dst.append(index[successor])
            count.append(c)
    chain = CountChain(src=np.array(src, dtype=np.int64), dst=np.array(dst, dtype=np.int64),
                       count=np.array(count, dtype=np.int64),
                       wins=np.array([graph.wins[k] for k in keys], dtype=np.int64),
                       total=np.array([graph.members[k] for k in keys], dtype=np.int64))
    chain.check()
    transient = np.array([k in can_win for k in keys], dtype=bool)
    p_win, m_start = absorb_fractions(chain, transient, index[graph.start])
    p_trapped = 1 - p_win
    start = graph.start
    unwinnable = sum(count for key, count in graph.transitions[start].items() if key not in can_win)
    require(graph.wins[start] + sum(graph.transitions[start].values()) == deck.orders,
            "start counts must add up to (S*R)!")
    return HandGraphResult(
        deck=deck, variant=variant, orders=deck.orders, winning_orders=graph.wins[start],
        unwinnable_orders=unwinnable, poison_sets=dict(poison_sets), poison_set_leftovers=poison_leftovers,
        p_win=p_win, p_trapped=p_trapped,
        expected_iterations_given_win=(m_start / p_win) if p_win else None,
        classes=len(graph.transitions), orders_played=graph.orders_played, seconds=work_clock.perf_counter() - t0,
        provenance=_provenance(started, t0, "plain-Python class graph, suit and rank relabelling"))


_METHOD_TEXT = {
    "modular": "class graph (numba kernels), suit and rank relabelling, verified lumping, modular solve with "
               "p-adic lifting checked modulo a second prime",
    "fractions": "class graph (numba kernels), suit and rank relabelling, Fraction state elimination"}


def analyse_deck(deck: Deck, variant: Variant | str | None = None, *, method: str = "modular",
                 prove: bool = False, iterations: int = 0, tail: int = 0, progress=None,
                 max_cards: int = MAX_GRAPH_CARDS, checkpoint_dir=None,
                 checkpoint_seconds: float | None = None, discard: bool = True) -> HandGraphResult:
    """Build the whole deck-order graph of a small deck and answer exactly.

    Returns the poison sets (closed strongly connected sets without a win), the number of unwinnable
    orders, and, from a uniformly random order, the probability of an eventual win and of ending
    trapped, and the expected number of iterations of a won run (absorbing Markov chain, solved
    exactly). The classes are explored by the numba kernels of :mod:`exact.hand.graph_kernel`;
    :func:`analyse_deck_reference` is the plain-Python oracle.

    ``method="modular"`` (default) lumps the classes by verified bisimulation and solves the integer
    system modulo a prime with p-adic lifting (:func:`exact.hand.chains.absorb_modular`);
    ``method="fractions"`` eliminates the unlumped classes in Fractions (the reference, slow beyond
    10 cards). ``prove=True`` also checks the whole solution over the integers (slow).
    ``iterations=k`` adds the exact probabilities of a win on iteration ``1..k``
    (:func:`exact.hand.chains.steps_to_win`), ``tail=K`` their float values for ``k+1..K``.
    ``progress`` (a callable) is called with a dict of the solver's details as each phase ends
    (classes explored, unknowns after lumping, the factorization, the lifting): what a run cut short
    by a time limit got to. ``max_cards`` raises the size limit (:data:`MAX_GRAPH_CARDS`) for
    experiments beyond it (``benchmarks/bench_hand_graph.py --beyond``: 14 and 16 cards).
    ``checkpoint_dir`` (a folder; the modular method without ``prove``) keeps the work in two files
    of :mod:`exact.checkpoint`: the lumped chain with the graph's answers once the graph is explored,
    and the lifting's state every ``checkpoint_seconds`` and when SIGINT or SIGTERM arrives (the
    lifting, most of a 12-card deck's time, stops at the end of a step). Given the same folder
    again, the analysis starts from what is there and ends with the answers of an uninterrupted
    run; the files are removed once the result is returned (``discard=False``: left to the caller,
    who removes the folder once the result is kept).

    Examples
    --------
    >>> r = analyse_deck(Deck(1, 4))
    >>> r.orders, r.p_win, r.p_trapped
    (24, Fraction(0, 1), Fraction(1, 1))
    """
    variant = _check(deck, variant, limit=positive_int("max_cards", max_cards))
    if method not in METHODS:
        raise UsageError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
    iterations, tail = non_negative_int("iterations", iterations), non_negative_int("tail", tail)
    started, t0 = _prov.now(), work_clock.perf_counter()
    cpu = [work_clock.process_time()]

    def lap():  # CPU seconds since the last lap
        cpu.append(work_clock.process_time())
        return cpu[-1] - cpu[-2]

    kept = lifting = None
    if checkpoint_dir is not None and method == "modular" and not prove:
        from exact.checkpoint import in_folder

        key = {"engine": "hand-graph", "suits": deck.suits, "ranks": deck.ranks, "variant": str(variant),
               "version": GRAPH_CHECKPOINT_VERSION}
        kept = in_folder(checkpoint_dir, dict(key, part="graph"), what="phases")
        lifting = in_folder(checkpoint_dir, dict(key, part="lifting"), seconds=checkpoint_seconds,
                            what="lifting steps")
    saved = kept.load() if kept is not None else None
    if saved is not None:
        graph = _GraphAnswers.from_state(*saved)
        graph.solver["resumed"] = True
    else:
        graph = _explore_graph(deck, variant, method, progress, lap)
        if kept is not None:
            kept.save(1, 2, *graph.state())
    solver = graph.solver
    if method == "fractions":
        p_win, m_start = absorb_fractions(graph.chain, graph.transient, 0)
    else:
        note = f": the explored graph and the lifting done so far are kept in {checkpoint_dir}; run the same command to resume"
        with (interrupts.keeping(note) if kept is not None else contextlib.nullcontext()):
            p_win, m_start = absorb_modular(graph.chain, graph.transient, graph.start, prove=prove, stats=solver,
                                            progress=progress, checkpoint=lifting)
    solver["solve_cpu_seconds"] = lap()
    steps_exact: tuple = ()
    steps_tail: tuple = ()
    if iterations or tail:
        lumped, lumped_transient, lumped_start = graph.chain, graph.transient, graph.start
        if method == "fractions":
            lumped, lumped_transient, lumped_start, _ = lump(graph.chain, graph.transient, 0)
        steps_exact = tuple(steps_to_win(lumped, lumped_transient, lumped_start, steps=iterations))
        steps_tail = tuple(steps_to_win_tail(lumped, lumped_transient, lumped_start, first=iterations + 1,
                                             last=tail).tolist())
        solver["iterations_cpu_seconds"] = lap()
    solver["cpu_seconds"] = cpu[-1] - cpu[0]
    p_trapped = 1 - p_win  # a finite chain: a run that never wins ends in a closed set without a win
    result = HandGraphResult(
        deck=deck, variant=variant, orders=deck.orders, winning_orders=graph.winning_orders,
        unwinnable_orders=graph.unwinnable_orders, poison_sets=graph.poison_sets,
        poison_set_leftovers=graph.poison_leftovers, p_win=p_win, p_trapped=p_trapped,
        expected_iterations_given_win=(m_start / p_win) if p_win else None,
        classes=graph.classes, orders_played=graph.orders_played, seconds=work_clock.perf_counter() - t0,
        iterations_to_win=steps_exact, iterations_to_win_tail=steps_tail,
        solver=solver, provenance=dict(_provenance(started, t0, _METHOD_TEXT[method] + (", proved" if prove else "")),
                                       solver=solver))
    for checkpoint in (kept, lifting):
        if checkpoint is not None and discard:
            checkpoint.discard()
    return result


#: the arrays of a :class:`CountChain`, as a whole-graph checkpoint keeps them
_CHAIN_ARRAYS = tuple(f.name for f in fields(CountChain))


@dataclass
class _GraphAnswers:
    """What :func:`analyse_deck` learns from the class graph before solving the chain: the graph's
    answers (poison sets, unwinnable and first-iteration winning orders) and the chain to solve
    (lumped for the modular method, as explored for the Fraction one), with the solver's details so
    far. :meth:`state` and :meth:`from_state` are its checkpoint (plain JSON and arrays)."""

    classes: int
    orders_played: int
    winning_orders: int
    unwinnable_orders: int
    poison_sets: dict
    poison_leftovers: dict
    chain: CountChain
    transient: np.ndarray
    start: int
    solver: dict

    def state(self):
        state = {"classes": self.classes, "orders_played": self.orders_played,
                 "winning_orders": str(self.winning_orders), "unwinnable_orders": str(self.unwinnable_orders),
                 "poison_sets": {str(k): v for k, v in self.poison_sets.items()},
                 "poison_leftovers": {str(k): v for k, v in self.poison_leftovers.items()},
                 "start": self.start, "solver": self.solver}
        arrays = {name: np.asarray(getattr(self.chain, name)) for name in _CHAIN_ARRAYS}
        return state, dict(arrays, transient=np.asarray(self.transient, dtype=bool))

    @classmethod
    def from_state(cls, state: dict, arrays: dict) -> "_GraphAnswers":
        chain = CountChain(**{name: arrays[name] for name in _CHAIN_ARRAYS})
        return cls(classes=int(state["classes"]), orders_played=int(state["orders_played"]),
                   winning_orders=int(state["winning_orders"]), unwinnable_orders=int(state["unwinnable_orders"]),
                   poison_sets={int(k): int(v) for k, v in state["poison_sets"].items()},
                   poison_leftovers={int(k): list(v) for k, v in state["poison_leftovers"].items()},
                   chain=chain, transient=arrays["transient"], start=int(state["start"]), solver=dict(state["solver"]))


def _explore_graph(deck: Deck, variant: Variant, method: str, progress, lap) -> _GraphAnswers:
    """Explore the class graph of ``deck`` and answer the graph's questions (see :func:`analyse_deck`)."""
    ordered = not variant.rules.reshuffle
    graph = explore_classes(deck, variant)
    explore_cpu = lap()
    classes = len(graph.keys)
    if progress is not None:
        progress({"phase": "explored", "classes": classes, "explore_cpu_seconds": explore_cpu})
    weight = graph.weight.astype(object)
    src, dst = graph.edge_src, graph.edge_dst
    # deck orders per edge and per class, exact (Python ints), and the check that they add up
    edge_orders = [c * weight[s] for s, c in zip(src.tolist(), graph.edge_count.tolist())]
    wins = [int(w) * weight[i] for i, w in enumerate(graph.wins.tolist())]
    totals = list(wins)
    for s, c in zip(src.tolist(), edge_orders):
        totals[s] += c
    require(totals == graph.members, "every member of a class wins or moves to a class")
    require(graph.members[0] == deck.orders, "start counts must add up to (S*R)!")
    # the class graph in networkx, with a node ``classes`` for the win (about 2,000 classes at 10
    # cards, 268,807 for 3x4, where networkx takes seconds: ``solver["graph_cpu_seconds"]``)
    win_node = classes
    class_graph = nx.DiGraph()
    class_graph.add_nodes_from(range(classes + 1))
    class_graph.add_edges_from(zip(src.tolist(), dst.tolist()))
    class_graph.add_edges_from((int(i), win_node) for i in np.flatnonzero(graph.wins > 0))
    can_win = np.zeros(classes + 1, dtype=bool)
    can_win[sorted(nx.ancestors(class_graph, win_node) | {win_node})] = True
    # poison sets: the attracting components (closed strongly connected sets) other than the win,
    # counted at full resolution
    group = group_size(deck)
    poison_sets: Counter = Counter()
    poison_leftovers: dict = {}
    for closed in nx.attracting_components(class_graph):
        if win_node in closed:
            continue
        ids = sorted(closed)
        # all deck orders in the classes of the orbits of this component: N real poison sets alike
        orbit_orders = sum(group // int(graph.weight[i]) * graph.members[i] for i in ids)
        if 0 in ids:  # the start class holds every order: one poison set, the whole deck
            set_orders, real_classes = deck.orders, [group // int(graph.weight[i]) for i in ids]
            leftover_counts = sorted(leftovers_of_key(int(graph.keys[i]), deck, ordered)
                                     for i, copies in zip(ids, real_classes) for _ in range(copies))
        else:
            real = explore_classes(deck, variant, canonical=False, start_key=int(graph.keys[ids[0]]))
            require(not real.wins.any(), "a poison class reached a win")
            set_orders = sum(real.members)
            leftover_counts = sorted(leftovers_of_key(k, deck, ordered) for k in real.keys.tolist())
        copies, remainder = divmod(orbit_orders, set_orders)
        require(remainder == 0 and group % copies == 0, "the images of a poison set partition its orbits")
        poison_sets[set_orders] += copies
        poison_leftovers[set_orders] = min(poison_leftovers.get(set_orders, leftover_counts), leftover_counts)
    graph_cpu = lap()
    # absorption from the start class over the classes that can reach a win
    chain, transient = count_chain(graph), can_win[:classes]
    solver: dict = {"method": method, "unknowns": int(transient.sum()), "explore_cpu_seconds": explore_cpu,
                    "graph_cpu_seconds": graph_cpu}
    unwinnable = sum(c for s, d, c in zip(src.tolist(), dst.tolist(), edge_orders) if s == 0 and not can_win[d])
    if method == "fractions":
        return _GraphAnswers(classes, graph.orders_played, wins[0], unwinnable, dict(poison_sets), poison_leftovers,
                             chain, transient, 0, solver)
    lumped, lumped_transient, lumped_start, _ = lump(chain, transient, 0)
    solver["lumped_unknowns"] = int(lumped_transient.sum())
    solver["lump_cpu_seconds"] = lap()
    if progress is not None:
        progress(dict(solver, phase="lumped"))
    return _GraphAnswers(classes, graph.orders_played, wins[0], unwinnable, dict(poison_sets), poison_leftovers,
                         lumped, lumped_transient, lumped_start, solver)
