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

from sim import provenance as _prov
from sim.deck import Deck
from sim.errors import UsageError
from sim.kernels.hand import play_iterations
from sim.variant import Variant

from exact.invariants import require
from exact.hand.limits import MAX_GRAPH_CARDS

#: Largest deck whose whole graph :func:`analyse_deck_reference` (plain Python) accepts: 9 cards take
#: seconds, 2x5 did not finish in 15 minutes.
REFERENCE_MAX_CARDS = 9
WIN = "win"
#: The start class: every deck order (a uniform shuffle of the whole deck).
START = "start"


def _check(deck: Deck, variant, *, limit: int) -> Variant:
    variant = Variant.coerce(variant, "hand")
    if deck.size > limit:
        raise UsageError(f"deck {deck} has {deck.size} cards; the whole graph is built for at most "
                         f"{limit} cards: use `solitaire poison` without --all for larger decks")
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
    require(graph.wins[start] + sum(counter.values()) == deck.orders, "start counts must add up to (S*R)!")
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
        require(pivot != 0, "singular system: a transient class cannot reach a win")
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
    #: {size: sorted leftover counts of the classes making such a set (the least list among sets of that size)}
    poison_set_leftovers: dict
    p_win: Fraction  #: eventual win from a uniformly random order
    p_trapped: Fraction  #: ending in a poison set from a uniformly random order
    expected_iterations_given_win: Fraction | None
    classes: int  #: canonical classes explored
    orders_played: int  #: iterations played to build the graph
    seconds: float
    #: versions, git commit, times, method (what the results store saves beside the result)
    provenance: dict = field(default_factory=dict, compare=False)
    kind = "hand-graph"

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


def _provenance(started: str, t0: float, method: str) -> dict:
    return _prov.collect(started=started, finished=_prov.now(), seconds=time.perf_counter() - t0, method=method)


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
    import networkx as nx

    variant = _check(deck, variant, limit=REFERENCE_MAX_CARDS)
    ordered = not variant.rules.reshuffle
    started, t0 = _prov.now(), time.perf_counter()
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
        require(states is not None, "a poison class reached a win")
        some_state = next(iter(states))
        stabiliser = sum(tuple(g[c] for c in some_state) in states for g in images)
        poison_sets[len(states)] += len(images) // stabiliser
        leftover_counts = sorted(deck.size if k == START else len(k[1]) for k in classes)
        poison_leftovers[len(states)] = min(poison_leftovers.get(len(states), leftover_counts), leftover_counts)
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
    require(p_win + p_trapped == 1, "every run ends won or trapped")
    unwinnable = sum(count for key, count in graph.transitions[start].items() if key not in can_win)
    require(graph.wins[start] + sum(graph.transitions[start].values()) == deck.orders,
            "start counts must add up to (S*R)!")
    return HandGraphResult(
        deck=deck, variant=variant, orders=deck.orders, winning_orders=graph.wins[start],
        unwinnable_orders=unwinnable, poison_sets=dict(poison_sets), poison_set_leftovers=poison_leftovers,
        p_win=p_win, p_trapped=p_trapped,
        expected_iterations_given_win=(m[start] / p_win) if p_win else None,
        classes=len(graph.transitions), orders_played=graph.orders_played, seconds=time.perf_counter() - t0,
        provenance=_provenance(started, t0, "plain-Python class graph, suit and rank relabelling"))


#: :data:`exact.hand.limits.MAX_GRAPH_CARDS` (imported above) is the largest deck :func:`analyse_deck` accepts.
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
    from numba import types
    from numba.typed import Dict

    import exact.hand.graph_kernel as kernel

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


def _leftovers_of_key(key: int, deck: Deck, ordered: bool) -> int:
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


def _dual_mul(x, y):
    return x[0] * y[0], x[0] * y[1] + x[1] * y[0]


def _absorb(graph: ClassArrays, wins: list, edge_orders: list, can_win: np.ndarray, transient: list):
    """``(P(win), P(trapped), E[iterations 1_win])`` from the start class (class 0), exactly.

    State elimination (Gaussian elimination of ``x = b + Q x`` one class at a time, the class with
    the fewest predecessor x successor pairs first, which keeps the fill-in small) over the classes
    that can reach a win. The win probabilities carry the dual number ``z = 1 + eps`` per iteration,
    so that one elimination gives both ``h = P(win)`` (the value) and ``E[T 1_win]`` (the ``eps``
    part, the derivative of the generating function ``E[z^T 1_win]`` at ``z = 1``).
    """
    import heapq

    one = Fraction(1)
    out: dict = {u: {} for u in transient}
    pred: dict = {u: set() for u in transient}
    rhs_win: dict = {}
    rhs_trap: dict = {}
    inside = set(transient)
    for u in transient:
        rhs_win[u] = (Fraction(wins[u], graph.members[u]),) * 2
        rhs_trap[u] = Fraction(0)
    for s, d, c in zip(graph.edge_src.tolist(), graph.edge_dst.tolist(), edge_orders):
        if s not in inside:
            continue
        p = Fraction(c, graph.members[s])
        if d in inside:
            old = out[s].get(d, (0, 0))
            out[s][d] = (old[0] + p, old[1] + p)
            pred[d].add(s)
        else:
            rhs_trap[s] += p
    heap = [(len(pred[u]) * len(out[u]), u) for u in transient if u != 0]
    heapq.heapify(heap)
    eliminated = set()
    while heap:
        cost, k = heapq.heappop(heap)
        if k in eliminated:
            continue
        current = (len(pred[k]) - (k in pred[k])) * (len(out[k]) - (k in out[k]))
        if current > cost:
            heapq.heappush(heap, (current, k))
            continue
        eliminated.add(k)
        loop = out[k].pop(k, (0, 0))
        pred[k].discard(k)
        a, b = one - loop[0], -loop[1]
        scale = (one / a, -b / (a * a))  # 1 / (1 - loop) as a dual number
        for i in pred[k]:
            factor = _dual_mul(out[i].pop(k), scale)
            for j, x in out[k].items():
                y = _dual_mul(factor, x)
                old = out[i].get(j)
                out[i][j] = y if old is None else (old[0] + y[0], old[1] + y[1])
                pred[j].add(i)
            w = _dual_mul(factor, rhs_win[k])
            rhs_win[i] = (rhs_win[i][0] + w[0], rhs_win[i][1] + w[1])
            rhs_trap[i] += factor[0] * rhs_trap[k]
            if i != 0:
                heapq.heappush(heap, ((len(pred[i]) - (i in pred[i])) * (len(out[i]) - (i in out[i])), i))
        for j in out[k]:
            pred[j].discard(k)
        del out[k], pred[k]
    loop = out[0].get(0, (0, 0))
    a, b = one - loop[0], -loop[1]
    scale = (one / a, -b / (a * a))
    p_win, m_start = _dual_mul(rhs_win[0], scale)
    return p_win, rhs_trap[0] * scale[0], m_start


def analyse_deck(deck: Deck, variant: Variant | str | None = None) -> HandGraphResult:
    """Build the whole deck-order graph of a small deck and answer exactly.

    Returns the poison sets (closed strongly connected sets without a win), the number of unwinnable
    orders, and, from a uniformly random order, the probability of an eventual win and of ending
    trapped, and the expected number of iterations of a won run (absorbing Markov chain, solved in
    exact rational arithmetic). The classes are explored by the numba kernels of
    :mod:`exact.hand.graph_kernel`; :func:`analyse_deck_reference` is the plain-Python oracle.

    Examples
    --------
    >>> r = analyse_deck(Deck(1, 4))
    >>> r.orders, r.p_win, r.p_trapped
    (24, Fraction(0, 1), Fraction(1, 1))
    """
    import networkx as nx

    variant = _check(deck, variant, limit=MAX_GRAPH_CARDS)
    ordered = not variant.rules.reshuffle
    started, t0 = _prov.now(), time.perf_counter()
    graph = explore_classes(deck, variant)
    classes = len(graph.keys)
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
    # the class graph in networkx, with a node ``classes`` for the win (the class graph is small:
    # about 2,000 classes for the 10-card decks, so networkx costs milliseconds here)
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
            leftover_counts = sorted(_leftovers_of_key(int(graph.keys[i]), deck, ordered)
                                     for i, copies in zip(ids, real_classes) for _ in range(copies))
        else:
            real = explore_classes(deck, variant, canonical=False, start_key=int(graph.keys[ids[0]]))
            require(not real.wins.any(), "a poison class reached a win")
            set_orders = sum(real.members)
            leftover_counts = sorted(_leftovers_of_key(k, deck, ordered) for k in real.keys.tolist())
        copies, remainder = divmod(orbit_orders, set_orders)
        require(remainder == 0 and group % copies == 0, "the images of a poison set partition its orbits")
        poison_sets[set_orders] += copies
        poison_leftovers[set_orders] = min(poison_leftovers.get(set_orders, leftover_counts), leftover_counts)
    # absorption: eliminate every class that can reach a win except the start class
    transient = np.flatnonzero(can_win[:classes]).tolist()
    if can_win[0]:
        p_win, p_trapped, m_start = _absorb(graph, wins, edge_orders, can_win, transient)
    else:
        p_win, p_trapped, m_start = Fraction(0), Fraction(1), Fraction(0)
    require(p_win + p_trapped == 1, "every run ends won or trapped")
    unwinnable = sum(c for s, d, c in zip(src.tolist(), dst.tolist(), edge_orders) if s == 0 and not can_win[d])
    return HandGraphResult(
        deck=deck, variant=variant, orders=deck.orders, winning_orders=wins[0],
        unwinnable_orders=unwinnable, poison_sets=dict(poison_sets), poison_set_leftovers=poison_leftovers,
        p_win=p_win, p_trapped=p_trapped,
        expected_iterations_given_win=(m_start / p_win) if p_win else None,
        classes=classes, orders_played=graph.orders_played, seconds=time.perf_counter() - t0,
        provenance=_provenance(started, t0, "class graph (numba kernels), suit and rank relabelling"))
