"""Hand Solitaire on a whole small deck: the deck-order Markov chain and its class graph (the builders).

The drivers that answer from it (poison sets, exact odds) are in :mod:`exact.hand.whole_deck`; the
chain algebra is in :mod:`exact.hand.chains`.

The chain (docs/rules.md, "Hand Solitaire"): a deck order is a state; an iteration maps it deterministically to a
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
from collections import Counter, deque
from dataclasses import dataclass, field

import networkx as nx
import numpy as np
from numba import types
from numba.typed import Dict

import exact.hand.graph_kernel as kernel
from sim.deck import Deck
from sim.errors import UsageError
from sim.kernels.hand import play_iterations
from sim.variant import Variant

from exact.hand.chains import CountChain
from exact.invariants import require

WIN = "win"
#: The start class: every deck order (a uniform shuffle of the whole deck).
START = "start"


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


def members(key, ordered: bool, deck: Deck):
    """Every deck order of the class ``key`` (the start class: every order).

    Examples
    --------
    >>> members(((0,), (1, 2)), False, Deck(1, 3))
    [(0, 1, 2), (0, 2, 1)]
    """
    if key == START:
        return list(itertools.permutations(deck.cards()))
    prefix, leftovers = key
    if ordered:
        return [prefix + leftovers]
    return [prefix + p for p in itertools.permutations(leftovers)]


def successor_keys(orders, deck: Deck, variant: Variant, ordered: bool):
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
    ordered = not variant.rules.reshuffle
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
            for raw in successor_keys(orders[i:i + batch], deck, variant, ordered):
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
    require(graph.wins[start] + sum(counter.values()) == deck.orders, "start counts must add up to (S*R)!")
    queue = deque(k for k in counter if k not in graph.transitions)
    seen = set(queue) | {start}
    while queue:
        key = queue.popleft()
        orders = members(key, ordered, deck)
        counter = Counter()
        graph.wins[key] = tally(orders, 1, counter)
        graph.transitions[key] = counter
        graph.members[key] = len(orders)
        for successor in counter:
            if successor not in seen:
                seen.add(successor)
                queue.append(successor)
    return graph


#: Members played per kernel call while exploring classes (bounds the batch's memory).
BATCH_MEMBERS = 1 << 21


@dataclass(frozen=True)
class ClassArrays:
    """The class graph as arrays (see :mod:`exact.hand.graph_kernel` for the keys).

    Class ``i`` has key ``keys[i]`` (class 0 is the start class in canonical mode). Edges go from
    ``edge_src`` to ``edge_dst`` for ``edge_count`` members; ``wins`` are winning members; both in units
    of ``weight`` deck orders (the stabiliser of the class in canonical mode, else 1). ``members`` is the
    number of deck orders of each class (a Python int list).
    """

    keys: np.ndarray
    edge_src: np.ndarray
    edge_dst: np.ndarray
    edge_count: np.ndarray
    wins: np.ndarray
    weight: np.ndarray
    members: list
    orders_played: int


def explore_classes(deck: Deck, variant: Variant, *, canonical: bool = True, start_key: int = 0,
                    batch_members: int = BATCH_MEMBERS, max_orders: int | None = None) -> ClassArrays:
    """Every class reachable from the class ``start_key`` (default: a uniformly shuffled deck).

    ``canonical``: classes are orbits under relabelling suits and ranks (else real classes, every
    member played). Raises :class:`RuntimeError` when more than ``max_orders`` members would be played.
    """
    if deck.size > kernel.MAX_KEY_CARDS:
        raise UsageError(f"deck {deck} has {deck.size} cards; class keys fit at most {kernel.MAX_KEY_CARDS}")
    n, ordered = deck.size, not variant.rules.reshuffle
    suit = deck.suit_array().astype(np.int64)
    rank = deck.rank_array().astype(np.int64)
    step7, rank_resets = variant.rules.step7, variant.rules.rank_resets
    table = Dict.empty(key_type=types.int64, value_type=types.int64)
    table[start_key] = 0
    keys = np.empty(1024, dtype=np.int64)
    keys[0], known, done, played = start_key, 1, 0, 0
    src, dst, count, wins, weight = [], [], [], [], []
    while done < known:
        counts = kernel.member_counts(keys[done:known], n, deck.suits, deck.ranks, suit, rank, ordered, canonical)
        cumulative = np.cumsum(counts)
        stop = max(1, int(np.searchsorted(cumulative, batch_members, side="right")))
        capacity = int(cumulative[stop - 1])
        played += capacity
        if max_orders is not None and played > max_orders:
            raise RuntimeError(f"more than {max_orders} member orders to play")
        s, d, c, w, wt, new_keys = kernel.expand_classes(
            keys[done:done + stop], table, known, n, deck.suits, deck.ranks, suit, rank, step7, rank_resets,
            ordered, canonical, capacity)
        src.append(s + done)
        dst.append(d)
        count.append(c)
        wins.append(w)
        weight.append(wt)
        done += stop
        if known + len(new_keys) > len(keys):
            keys = np.concatenate([keys, np.empty(max(len(keys), len(new_keys)), dtype=np.int64)])
        keys[known:known + len(new_keys)] = new_keys
        known += len(new_keys)
    keys = keys[:known].copy()
    members = []
    for key in keys.tolist():
        if key == 0:
            members.append(math.factorial(n))
        elif ordered:
            members.append(1)
        else:
            length = 0
            while key:
                key //= n + 1
                length += 1
            members.append(math.factorial(n - length))
    return ClassArrays(keys=keys, edge_src=np.concatenate(src), edge_dst=np.concatenate(dst),
                       edge_count=np.concatenate(count), wins=np.concatenate(wins), weight=np.concatenate(weight),
                       members=members, orders_played=played)


def leftovers_of_key(key: int, deck: Deck, ordered: bool) -> int:
    base = deck.size + 1
    if key == 0:
        return deck.size
    if ordered:
        return deck.size - key % base
    length = 0
    while key:
        key //= base
        length += 1
    return deck.size - length


def count_chain(graph: ClassArrays) -> CountChain:
    """The class graph as a :class:`exact.hand.chains.CountChain`: counts in units of each class's
    stabiliser orbit (``weight``), so every class's counts add up to ``members / weight``."""
    total = np.array([m // int(w) for m, w in zip(graph.members, graph.weight.tolist())], dtype=np.int64)
    require([int(t) * int(w) for t, w in zip(total.tolist(), graph.weight.tolist())] == graph.members,
            "a class's stabiliser divides its members")
    chain = CountChain(src=graph.edge_src, dst=graph.edge_dst, count=graph.edge_count, wins=graph.wins, total=total)
    chain.check()
    return chain
