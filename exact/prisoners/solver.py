"""Prisoner's Patience best play: can some sequence of legal moves end with a single pile?

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
Depth-first search over rows, with a transposition table of rows already proven lost. A row is
reduced to what decides its future (each step is exact, i.e. it maps rows with equal futures onto
one key):

* **ranks only**: moves compare ranks, never suits (suit symmetry);
* **top and bottom only**: moving ``i`` onto ``j`` sets the top of ``j`` to the top of ``i``
  (physical) or to the bottom of ``i`` (published, reversed); the bottom of ``j`` is unchanged; the
  cards in between never come back. So a pile is its top rank (physical) or ``(bottom, top)`` ranks.

Pruning, provably safe (only rows that cannot be won are cut):

* **connectivity**: call two piles *linked* when some rank showing on one (its top; with
  ``moves=published`` also its bottom, which may surface) is adjacent to some rank showing on the
  other. When pile ``i`` goes onto ``j`` their current tops are adjacent, and the top of a merged pile
  is always a rank showing on one of the piles it was made from; so a merge only ever joins piles
  that are linked through the piles they are made of, and a row whose link graph is disconnected can
  never become a single pile.

Two engines run this search: :class:`Searcher` (Python, the reference) and :class:`KernelSearcher`
(numba, :mod:`exact.prisoners.solver_kernel`; 30-40 times faster, the default for decks of up to 62
cards). With the reference's move order the numba engine expands the same nodes and returns the same
winning line (tested); its lost-row table stores each row in full next to its hash, so a collision
can never make a winnable row look lost.

The outcome is ``won`` with a winning line (moves ``(source, target)`` by position in the current row,
to be made after all cards are dealt, replayable with :func:`replay`), ``lost`` with the number of
nodes that exhausted the search, or ``undecided`` when the node budget ran out first.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

from sim import provenance
from sim.checks import check_budget, check_decks, check_seed
from sim.deck import Deck
from sim.errors import UsageError
from sim.rules.prisoners import DISTANCES, adjacent_ranks, apply_move, legal_moves
from sim.variant import Variant

from exact.prisoners.limits import DEFAULT_NODE_BUDGET  # noqa: F401  (re-exported: nodes before 'undecided')


WON, LOST, UNDECIDED = "won", "lost", "undecided"


@dataclass(frozen=True)
class SolveResult:
    """The best-play verdict on one deck order."""

    deck: Deck
    variant: Variant
    order: tuple[int, ...]
    status: str  #: "won", "lost" or "undecided"
    line: tuple[tuple[int, int], ...] | None  #: winning moves (source, target), after dealing all
    nodes: int  #: rows expanded
    node_budget: int
    provenance: dict = field(default_factory=dict, compare=False)

    kind = "solve"

    @property
    def won(self) -> bool:
        return self.status == WON

    def to_dict(self) -> dict:
        return {"game": "prisoners", "suits": self.deck.suits, "ranks": self.deck.ranks,
                "variant": str(self.variant), "order": list(self.order), "status": self.status,
                "line": [list(m) for m in self.line] if self.line is not None else None,
                "nodes": self.nodes, "node_budget": self.node_budget}


class _OutOfBudget(Exception):
    pass


def _check_variant(variant) -> Variant:
    if variant is None:
        return Variant.make("prisoners", moves="physical")
    return Variant.coerce(variant, "prisoners")


class Searcher:
    """Depth-first best-play search on abstract rows, for one deck shape and variant.

    ``lost`` (the transposition table of rows proven lost) may be kept across searches: a row's
    verdict does not depend on the deck order it came from.
    """

    def __init__(self, ranks: int, *, wrap: bool, reverse: bool):
        self.ranks, self.reverse = ranks, reverse
        self.adjacent = [[adjacent_ranks(a, b, ranks, wrap) for b in range(ranks)] for a in range(ranks)]
        self.neighbours = [[b for b in range(ranks) if self.adjacent[a][b]] for a in range(ranks)]
        self.lost: set = set()

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
        """The connectivity condition of the module docstring (necessary for a win)."""
        if len(row) <= 1:
            return True
        holders: dict[int, list[int]] = {}
        for p, pile in enumerate(row):
            for r in ({pile[0], pile[1]} if self.reverse else (pile,)):
                holders.setdefault(r, []).append(p)
        parent = list(range(len(row)))

        def find(x):
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        components = len(row)
        for r, piles_r in holders.items():
            for s in self.neighbours[r]:
                if s > r or s not in holders:
                    continue  # each adjacent pair of ranks once (s < r)
                for p in itertools.chain(piles_r, holders[s]):
                    a, b = find(piles_r[0]), find(p)
                    if a != b:
                        parent[a] = b
                        components -= 1
        return components == 1

    def solve_ranks(self, rank_sequence, node_budget: int) -> tuple[str, tuple | None, int]:
        """``(status, line, nodes)`` for the row dealt from ``rank_sequence``."""
        return self.solve_row(self.start_row(rank_sequence), node_budget)

    def solve_row(self, row, node_budget: int) -> tuple[str, tuple | None, int]:
        """``(status, line, nodes)`` for a row (see :class:`SolveResult`)."""
        nodes = 0
        line: list = []

        def dfs(r) -> bool:
            nonlocal nodes
            if len(r) == 1:
                return True
            if r in self.lost:
                return False
            nodes += 1
            if nodes > node_budget:
                raise _OutOfBudget
            if self.linked(r):
                for move, child in self.children(r):
                    if dfs(child):
                        line.append(move)
                        return True
            self.lost.add(r)
            return False

        try:
            won = dfs(row)
        except _OutOfBudget:
            return UNDECIDED, None, nodes - 1
        return (WON, tuple(reversed(line)), nodes) if won else (LOST, None, nodes)


class KernelSearcher:
    """The numba twin of :class:`Searcher` (:mod:`exact.prisoners.solver_kernel`), same verdicts.

    ``ordering=0`` tries moves in the reference's order (so nodes and lines equal the reference's);
    ``ordering=1`` tries leftmost sources first. The lost-row table is emptied for every deck.
    """

    def __init__(self, cards: int, ranks: int, *, wrap: bool, reverse: bool, ordering: int = 0):
        import exact.prisoners.solver_kernel as kernel

        if not kernel.supports(cards, ranks):
            raise UsageError(f"the numba solver handles at most {kernel.MAX_KERNEL_CARDS} cards and "
                             f"{kernel.MAX_KERNEL_RANKS} ranks: use engine='python'")
        if ordering not in kernel.ORDERINGS:
            raise UsageError(f"ordering must be one of {sorted(kernel.ORDERINGS)}, got {ordering!r}")
        self.kernel, self.cards, self.ranks, self.reverse, self.ordering = kernel, cards, ranks, reverse, ordering
        self.neighbours = kernel.neighbour_masks(ranks, wrap)
        self._table = None

    def solve_ranks(self, rank_sequence, node_budget: int) -> tuple[str, tuple | None, int]:
        """``(status, line, nodes)`` for the row dealt from ``rank_sequence``."""
        import numpy as np

        if self._table is None or self._table[1] != node_budget:
            self._table = (self.kernel.new_table(self.cards, self.ranks, node_budget), node_budget)
        hashes, keys = self._table[0]
        hashes[:] = 0
        tops = np.array(list(rank_sequence), dtype=np.int64)
        line = np.zeros((max(len(tops) - 1, 1), 2), dtype=np.int64)
        verdict, nodes, length = self.kernel.search_row(tops, tops.copy(), self.neighbours, self.ranks,
                                                        self.reverse, node_budget, self.ordering, hashes,
                                                        keys, line)
        status = {self.kernel.LOST_CODE: LOST, self.kernel.WON_CODE: WON,
                  self.kernel.UNDECIDED_CODE: UNDECIDED}[verdict]
        moves = tuple((int(a), int(b)) for a, b in line[:length]) if status == WON else None
        return status, moves, int(nodes)


#: Search engines: "numba" (:class:`KernelSearcher`), "python" (:class:`Searcher`, the reference),
#: "auto" (numba when the deck fits the kernel).
ENGINES = ("auto", "numba", "python")


def make_searcher(deck: Deck, variant: Variant, *, engine: str = "auto", ordering: int = 0):
    """The searcher for ``deck`` and ``variant`` on ``engine`` (see :data:`ENGINES`)."""
    from exact.prisoners.solver_kernel import supports

    if engine not in ENGINES:
        raise UsageError(f"engine must be one of {', '.join(ENGINES)}, got {engine!r}")
    wrap, reverse = variant.rules.wrap, variant.rules.reverse_piles
    if engine == "numba" or (engine == "auto" and supports(deck.size, deck.ranks)):
        return KernelSearcher(deck.size, deck.ranks, wrap=wrap, reverse=reverse, ordering=ordering)
    if ordering != 0:
        raise UsageError("the python engine tries moves in one order only (ordering=0)")
    return Searcher(deck.ranks, wrap=wrap, reverse=reverse)


def _check_budget(node_budget) -> int:
    return check_budget("node budget", node_budget, unit="nodes expanded per deck")


def solve(order, deck: Deck, variant: Variant | str | None = None, *,
          node_budget: int = DEFAULT_NODE_BUDGET, engine: str = "auto", ordering: int = 0) -> SolveResult:
    """Decide whether ``order`` can be won by best play.

    Parameters
    ----------
    order : sequence of cards (a permutation of ``deck.cards()``), position 0 dealt first
    deck : Deck
    variant : prisoners Variant or string (default ``moves=physical``, ``wrap=on``); ``moves`` says
        how a pile moves (physical: as a unit; published: card by card, reversed)
    node_budget : rows expanded before giving up (outcome ``undecided``)
    engine : "auto" (numba when the deck fits), "numba" or "python" (the reference search)
    ordering : move order of the numba engine (0: the reference's, rightmost source first; 1:
        leftmost source first)

    Examples
    --------
    >>> solve([0, 2, 1], Deck(1, 3), "prisoners(moves=physical,wrap=off)").line
    ((2, 1), (1, 0))
    >>> solve([1, 0, 2], Deck(1, 3), "prisoners(moves=physical,wrap=off)").status
    'lost'
    """
    variant = _check_variant(variant)
    order = deck.check_order(order)
    node_budget = _check_budget(node_budget)
    searcher = make_searcher(deck, variant, engine=engine, ordering=ordering)
    status, line, nodes = searcher.solve_ranks([deck.rank(c) for c in order], node_budget)
    return SolveResult(deck=deck, variant=variant, order=order, status=status, line=line, nodes=nodes,
                       node_budget=node_budget, provenance=provenance.collect())


def replay(order, deck: Deck, variant: Variant | str | None, line) -> list[list[int]]:
    """Deal every card of ``order``, then make the moves of ``line`` with the reference rules.

    Raises ``ValueError`` on an illegal move; returns the final row of piles (cards, bottom to top).
    """
    variant = _check_variant(variant)
    wrap, reverse = variant.rules.wrap, variant.rules.reverse_piles
    piles = [[card] for card in order]
    for source, target in line:
        if (source, target) not in legal_moves(piles, deck, wrap):
            raise ValueError(f"illegal move {source}->{target} in row {piles}")
        piles = apply_move(piles, source, target, reverse)
    return piles


# --- many decks ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class BestPlayEstimate:
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
    seconds: float
    provenance: dict = field(default_factory=dict, compare=False)

    kind = "best_play"

    def to_dict(self) -> dict:
        return {"game": "prisoners", "suits": self.deck.suits, "ranks": self.deck.ranks,
                "variant": str(self.variant), "seed": self.seed, "decks": self.decks, "won": self.won,
                "lost": self.lost, "undecided": self.undecided, "node_budget": self.node_budget,
                "ci95": list(self.ci95), "nodes": self.nodes, "seconds": self.seconds,
                "decks_per_second": self.decks / self.seconds if self.seconds > 0 else None}


def random_orders(deck: Deck, decks: int, seed: int):
    """``decks`` uniformly shuffled orders from the project's streams (chunk 0 of ``seed``)."""
    import numpy as np

    from sim.kernels.prisoners import shuffled_orders

    return shuffled_orders(np.asarray(seed_state(seed)), decks, deck.size)


def seed_state(seed: int):
    from sim.rng import chunk_states

    return chunk_states(seed, 0, 1)[0]


def estimate_best_play(deck: Deck, variant: Variant | str | None = None, *, decks: int, seed: int,
                       node_budget: int = DEFAULT_NODE_BUDGET, engine: str = "auto", ordering: int = 0,
                       progress=None) -> BestPlayEstimate:
    """Solve ``decks`` random deck orders (reproducible from ``seed``) and bracket the win rate.

    The interval is :func:`sim.stats.bracket_interval`: the low end counts undecided decks as lost,
    the high end as won.
    """
    import time

    from sim.stats import bracket_interval


    variant = _check_variant(variant)
    decks, seed = check_decks(decks), check_seed(seed)
    node_budget = _check_budget(node_budget)
    searcher = make_searcher(deck, variant, engine=engine, ordering=ordering)
    counts = {WON: 0, LOST: 0, UNDECIDED: 0}
    nodes = 0
    started, t0 = provenance.now(), time.perf_counter()
    for k, order in enumerate(random_orders(deck, decks, seed)):
        if isinstance(searcher, Searcher):
            searcher.lost.clear()  # bounded memory; rows of different decks rarely coincide
        status, _, used = searcher.solve_ranks([int(c) % deck.ranks for c in order], node_budget)
        counts[status] += 1
        nodes += used
        if progress is not None:
            progress(k + 1, counts)
    seconds = time.perf_counter() - t0
    return BestPlayEstimate(deck=deck, variant=variant, seed=seed, decks=decks, won=counts[WON],
                            lost=counts[LOST], undecided=counts[UNDECIDED], node_budget=node_budget,
                            ci95=bracket_interval(counts[WON], counts[UNDECIDED], decks), nodes=nodes,
                            seconds=seconds, provenance=provenance.collect(
                                started=started, finished=provenance.now(), seed=seed, engine=type(searcher).__name__))


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
    by exhaustive search with memo (no budget: small decks only).
    """
    from exact.prisoners.distribution import make_result

    variant = _check_variant(variant)
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
    for seq in rank_sequences(s, deck.ranks):
        counts[fewest_piles(searcher.start_row(seq))] += weight
    return make_result(deck, variant, "best-play", counts, {"rank_sequences": sequences, "rows": len(fewest)})
