"""Hand Solitaire on a whole small deck: the deck-order Markov chain, its poison sets, exact odds.

The chain (SPEC.md section 3): a deck order is a state; an iteration maps it deterministically to a
discard list and ``k`` leftovers, and the next state is one of the ``k!`` orders of the leftovers
behind the reversed discards, each with probability ``1/k!`` (with ``reshuffle=off`` the one order
"from the top of the stack down"). A winning order ends the run.

**Classes.** All successors of a state form a *class* ``(prefix, leftovers)``: the reversed
discards followed by any order of the leftover set. The whole chain is a chain on classes: from a
class pick a member uniformly; it wins, or moves to its successor class. A uniformly shuffled start
is the class ``((), all cards)``. (With ``reshuffle=off`` a class has one member: the order itself.)
A closed strongly connected set of classes without a win corresponds one to one to a poison set of
deck orders (the members of its classes), because every member of a class is a successor of the
state that led there.

**Symmetry.** Relabelling suits, and ranks, maps plays onto plays (only equality of suits and of
ranks matters), so the chain commutes with the group ``G = Sym(suits) x Sym(ranks)`` acting on
cards, and the chain on ``G``-orbits of classes is an exact lumping: transition probabilities and
absorption probabilities are those of the full chain. A class is represented by a canonical form
(relabel suits and ranks by first appearance in the prefix, then the least image of the leftovers
over the labels still free), which is the same for every class of an orbit. Poison sets are then
counted at full resolution: a poison orbit is expanded from one representative into one real
poison set, and the number of its ``G``-images is ``|G| / |stabiliser|``.

Results are exact: counts are Python ints, probabilities :class:`fractions.Fraction`, and the start
counts are asserted to add up to ``(S*R)!``.
"""
from __future__ import annotations

import itertools
import math
import time
from collections import Counter, deque
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from sim.deck import Deck
from sim.errors import UsageError
from sim.kernels.hand import play_iterations
from sim.variant import Variant

#: Largest deck whose whole graph :func:`analyse_deck` accepts (the number of member orders to play
#: grows like ``(S*R)!``: 9 cards take seconds, 2x5 did not finish in 15 minutes).
MAX_GRAPH_CARDS = 9
WIN = "win"
#: The start class: every deck order (a uniform shuffle of the whole deck).
START = "start"


def _check(deck: Deck, variant) -> Variant:
    variant = Variant.make("hand") if variant is None else (
        Variant.parse(variant) if isinstance(variant, str) else variant)
    if variant.game != "hand":
        raise UsageError(f"the deck-order graph is for Hand Solitaire, not {variant.game}")
    if deck.size > MAX_GRAPH_CARDS:
        raise UsageError(f"deck {deck} has {deck.size} cards; the whole graph is built for at most "
                         f"{MAX_GRAPH_CARDS} cards: use `solitaire poison` without --all for larger decks")
    return variant


def canonical_class(prefix, leftovers, deck: Deck, *, ordered: bool):
    """The canonical form of the class ``(prefix, leftovers)`` under relabelling suits and ranks.

    ``ordered`` (``reshuffle=off``): the leftovers are a sequence, not a set. Returns ``(prefix,
    leftovers)`` as tuples of relabelled cards, the leftovers sorted unless ``ordered``.
    """
    ranks = deck.ranks
    suit_of: dict[int, int] = {}
    rank_of: dict[int, int] = {}

    def relabel(card):
        s, r = divmod(card, ranks)
        if s not in suit_of:
            suit_of[s] = len(suit_of)
        if r not in rank_of:
            rank_of[r] = len(rank_of)
        return suit_of[s] * ranks + rank_of[r]

    new_prefix = tuple(relabel(c) for c in prefix)
    if ordered:
        return new_prefix, tuple(relabel(c) for c in leftovers)
    free_suits = [s for s in range(deck.suits) if s not in suit_of]
    free_ranks = [r for r in range(ranks) if r not in rank_of]
    best = None
    for suit_labels in itertools.permutations(range(len(suit_of), deck.suits)):
        suits = dict(suit_of)
        suits.update(zip(free_suits, suit_labels))
        for rank_labels in itertools.permutations(range(len(rank_of), ranks)):
            rank_map = dict(rank_of)
            rank_map.update(zip(free_ranks, rank_labels))
            image = tuple(sorted(suits[c // ranks] * ranks + rank_map[c % ranks] for c in leftovers))
            if best is None or image < best:
                best = image
    return new_prefix, best


def canonical_orders(deck: Deck):
    """One deck order from each ``G``-orbit of all orders: those whose suits, and ranks, appear in
    increasing order of first appearance. Every orbit of a whole order has exactly ``|G|`` orders
    (only the identity fixes a sequence holding every card)."""
    n, ranks = deck.size, deck.ranks
    order: list[int] = []
    used = [False] * n

    def extend(max_suit, max_rank):
        if len(order) == n:
            yield tuple(order)
            return
        for card in range(n):
            s, r = divmod(card, ranks)
            if used[card] or s > max_suit + 1 or r > max_rank + 1:
                continue
            used[card] = True
            order.append(card)
            yield from extend(max(max_suit, s), max(max_rank, r))
            order.pop()
            used[card] = False

    yield from extend(-1, -1)


def group_size(deck: Deck) -> int:
    return math.factorial(deck.suits) * math.factorial(deck.ranks)


def _members(key, ordered: bool, deck: Deck):
    if key == START:
        return list(itertools.permutations(deck.cards()))
    prefix, leftovers = key
    if ordered:
        return [prefix + leftovers]
    return [prefix + p for p in itertools.permutations(leftovers)]


def _successor_keys(orders, deck: Deck, variant: Variant, ordered: bool):
    """For each order: ``None`` if it wins, else its successor class (raw, not canonical)."""
    out = []
    for discards, leftovers in play_iterations(np.array(orders, dtype=np.int64), deck, variant):
        if not leftovers:
            out.append(None)
        elif ordered:
            out.append((discards[::-1], leftovers[::-1]))
        else:
            out.append((discards[::-1], tuple(sorted(leftovers))))
    return out


@dataclass
class ClassGraph:
    """The chain on canonical classes: ``transitions[key] = Counter(successor key -> members)``,
    ``wins[key]`` = winning members, ``members[key]`` = number of members."""

    deck: Deck
    variant: Variant
    start: tuple
    transitions: dict = field(default_factory=dict)
    wins: dict = field(default_factory=dict)
    members: dict = field(default_factory=dict)
    orders_played: int = 0

    def networkx(self):
        import networkx as nx

        graph = nx.DiGraph()
        graph.add_node(WIN)
        for key, successors in self.transitions.items():
            graph.add_node(key)
            graph.add_edges_from((key, s) for s in successors)
            if self.wins[key]:
                graph.add_edge(key, WIN)
        return graph


def build_class_graph(deck: Deck, variant: Variant, *, batch: int = 1 << 15) -> ClassGraph:
    """Explore every canonical class reachable from a uniformly shuffled deck."""
    ordered = variant["reshuffle"] == "off"
    start = START
    graph = ClassGraph(deck, variant, start)
    cache: dict = {}

    def canon(raw):
        key = cache.get(raw)
        if key is None:
            key = canonical_class(raw[0], raw[1], deck, ordered=ordered)
            if not ordered and not key[0]:  # no discards: any order of the whole deck follows
                key = START
            cache[raw] = key
        return key

    def tally(orders, weight, counter):
        wins = 0
        for i in range(0, len(orders), batch):
            for raw in _successor_keys(orders[i:i + batch], deck, variant, ordered):
                if raw is None:
                    wins += weight
                else:
                    counter[canon(raw)] += weight
        graph.orders_played += len(orders)
        return wins

    # The start class: every order, one per G-orbit, each standing for |G| orders.
    counter: Counter = Counter()
    graph.wins[start] = tally(list(canonical_orders(deck)), group_size(deck), counter)
    graph.transitions[start] = counter
    graph.members[start] = math.factorial(deck.size)
    assert graph.wins[start] + sum(counter.values()) == deck.orders, "start counts must add up to (S*R)!"
    queue = deque(k for k in counter if k not in graph.transitions)
    seen = set(queue) | {start}
    while queue:
        key = queue.popleft()
        members = _members(key, ordered, deck)
        counter = Counter()
        graph.wins[key] = tally(members, 1, counter)
        graph.transitions[key] = counter
        graph.members[key] = len(members)
        for successor in counter:
            if successor not in seen:
                seen.add(successor)
                queue.append(successor)
    return graph


def _solve(matrix: dict, rhs: dict, unknowns: list) -> dict:
    """Solve ``x = rhs + matrix x`` exactly on ``unknowns`` (sparse Gaussian elimination on Fractions).

    ``matrix[u]`` maps unknowns to coefficients (transition probabilities inside one strongly
    connected set of transient classes), ``rhs[u]`` is a list of right-hand sides. ``I - matrix`` is a
    nonsingular M-matrix (every class here can still reach a win), so elimination needs no pivoting.
    """
    index = {u: i for i, u in enumerate(unknowns)}
    size = len(unknowns)
    rows: list[dict] = []
    values: list[list] = []
    column_rows: list[set] = [set() for _ in range(size)]
    for i, u in enumerate(unknowns):
        row = {i: Fraction(1)}
        for v, coefficient in matrix[u].items():
            j = index[v]
            row[j] = row.get(j, 0) - coefficient
        row = {j: x for j, x in row.items() if x}
        rows.append(row)
        values.append([Fraction(x) for x in rhs[u]])
        for j in row:
            column_rows[j].add(i)
    for i in range(size):
        pivot_row = rows[i]
        pivot = pivot_row[i]
        assert pivot != 0, "singular system: a transient class cannot reach a win"
        for j in list(pivot_row):
            pivot_row[j] /= pivot
        values[i] = [x / pivot for x in values[i]]
        for r in column_rows[i] - {i}:
            if r < i:
                continue
            row = rows[r]
            factor = row.pop(i)
            column_rows[i].discard(r)
            for j, x in pivot_row.items():
                if j == i:
                    continue
                new = row.get(j, 0) - factor * x
                if new:
                    row[j] = new
                    column_rows[j].add(r)
                elif j in row:
                    del row[j]
                    column_rows[j].discard(r)
            values[r] = [a - factor * b for a, b in zip(values[r], values[i])]
    solution: list = [None] * size
    for i in reversed(range(size)):
        acc = list(values[i])
        for j, x in rows[i].items():
            if j != i:
                acc = [a - x * b for a, b in zip(acc, solution[j])]
        solution[i] = acc
    return {u: solution[index[u]] for u in unknowns}


@dataclass(frozen=True)
class HandGraphResult:
    """Exact Hand Solitaire answers for a whole small deck (``solitaire poison --all``)."""

    deck: Deck
    variant: Variant
    orders: int  #: (S*R)!
    winning_orders: int  #: orders won on the first iteration
    unwinnable_orders: int  #: orders from which no win is reachable
    poison_sets: dict  #: {size in deck orders: number of poison sets of that size}
    poison_set_leftovers: dict  #: {size: sorted leftover counts of the classes making such a set}
    p_win: Fraction  #: eventual win from a uniformly random order
    p_trapped: Fraction  #: ending in a poison set from a uniformly random order
    expected_iterations_given_win: Fraction | None
    classes: int  #: canonical classes explored
    orders_played: int  #: iterations played to build the graph
    seconds: float
    kind = "hand-graph"

    @property
    def provenance(self) -> dict:
        return {"method": "class graph, suit and rank relabelling", "seconds": self.seconds}

    def to_dict(self) -> dict:
        def frac(x):
            return None if x is None else f"{x.numerator}/{x.denominator}"

        return {"game": "hand", "suits": self.deck.suits, "ranks": self.deck.ranks, "variant": str(self.variant),
                "orders": self.orders, "winning_orders": self.winning_orders,
                "unwinnable_orders": self.unwinnable_orders,
                "poison_sets": {str(k): v for k, v in sorted(self.poison_sets.items())},
                "poison_set_leftovers": {str(k): v for k, v in sorted(self.poison_set_leftovers.items())},
                "p_win": frac(self.p_win), "p_trapped": frac(self.p_trapped),
                "expected_iterations_given_win": frac(self.expected_iterations_given_win),
                "classes": self.classes, "orders_played": self.orders_played, "seconds": self.seconds}


def _real_closure(key, deck: Deck, variant: Variant, ordered: bool):
    """All deck orders reachable from the members of a (real, not canonical) class, and the
    classes met; ``None`` for the orders if a win is met."""
    states: set = set()
    classes = {key}
    queue = deque([key])
    while queue:
        current = queue.popleft()
        members = _members(current, ordered, deck)
        states.update(members)
        for raw in _successor_keys(members, deck, variant, ordered):
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


def analyse_deck(deck: Deck, variant: Variant | str | None = None) -> HandGraphResult:
    """Build the whole deck-order graph of a small deck and answer exactly.

    Returns the poison sets (closed strongly connected sets without a win, found with
    :func:`networkx.attracting_components`), the number of unwinnable orders, and, from a uniformly
    random order, the probability of an eventual win and of ending trapped, and the expected number
    of iterations of a won run (absorbing Markov chain, solved in exact rational arithmetic).

    Examples
    --------
    >>> r = analyse_deck(Deck(1, 4))
    >>> r.orders, r.p_win, r.p_trapped
    (24, Fraction(0, 1), Fraction(1, 1))
    """
    import networkx as nx

    variant = _check(deck, variant)
    ordered = variant["reshuffle"] == "off"
    t0 = time.perf_counter()
    graph = build_class_graph(deck, variant)
    nxg = graph.networkx()
    attracting = [c for c in nx.attracting_components(nxg) if WIN not in c]
    poison_keys = set().union(*attracting) if attracting else set()
    can_win = nx.ancestors(nxg, WIN)
    # Poison sets at full resolution.
    images = list(_group_images(deck))
    poison_sets: Counter = Counter()
    poison_leftovers: dict = {}
    for component in attracting:
        key = min(component, key=repr)
        states, classes = _real_closure(key, deck, variant, ordered)
        assert states is not None, "a poison class reached a win"
        some_state = next(iter(states))
        stabiliser = sum(tuple(g[c] for c in some_state) in states for g in images)
        poison_sets[len(states)] += len(images) // stabiliser
        poison_leftovers[len(states)] = sorted(deck.size if k == START else len(k[1]) for k in classes)
    # Absorption: h = P(win), trapped = P(poison), m = E[T 1_win], per class (member chosen uniformly).
    h: dict = {WIN: Fraction(1)}
    trapped: dict = {WIN: Fraction(0)}
    m: dict = {WIN: Fraction(0)}
    for key in graph.transitions:
        if key not in can_win:
            h[key], trapped[key], m[key] = Fraction(0), Fraction(1), Fraction(0)
    transient = nx.DiGraph(nxg.subgraph(k for k in nxg if k in can_win))
    condensation = nx.condensation(transient)
    for scc in reversed(list(nx.topological_sort(condensation))):
        unknowns = sorted(condensation.nodes[scc]["members"], key=repr)
        matrix, rhs = {}, {}
        for key in unknowns:
            size = graph.members[key]
            inside, known = {}, [Fraction(graph.wins[key], size), Fraction(0)]
            for successor, count in graph.transitions[key].items():
                p = Fraction(count, size)
                if successor in h and successor not in condensation.nodes[scc]["members"]:
                    known[0] += p * h[successor]
                    known[1] += p * trapped[successor]
                else:
                    inside[successor] = inside.get(successor, 0) + p
            matrix[key], rhs[key] = inside, known
        solved = _solve(matrix, rhs, unknowns)
        for key in unknowns:
            h[key], trapped[key] = solved[key]
        # m = h + sum p m(successor): same matrix, right-hand side from the now known h
        rhs_m = {}
        for key in unknowns:
            size = graph.members[key]
            value = h[key]
            for successor, count in graph.transitions[key].items():
                if successor not in condensation.nodes[scc]["members"]:
                    value += Fraction(count, size) * m[successor]
            rhs_m[key] = [value]
        solved_m = _solve(matrix, rhs_m, unknowns)
        for key in unknowns:
            m[key] = solved_m[key][0]
    start = graph.start
    p_win, p_trapped = h[start], trapped[start]
    assert p_win + p_trapped == 1, "every run ends won or trapped"
    unwinnable = sum(count for key, count in graph.transitions[start].items() if key not in can_win)
    assert graph.wins[start] + sum(graph.transitions[start].values()) == deck.orders
    return HandGraphResult(
        deck=deck, variant=variant, orders=deck.orders, winning_orders=graph.wins[start],
        unwinnable_orders=unwinnable, poison_sets=dict(poison_sets), poison_set_leftovers=poison_leftovers,
        p_win=p_win, p_trapped=p_trapped,
        expected_iterations_given_win=(m[start] / p_win) if p_win else None,
        classes=len(graph.transitions), orders_played=graph.orders_played, seconds=time.perf_counter() - t0)
