"""Exact Prisoner's Patience score distributions of the published policy, for small decks.

Two methods, checked against each other and against the reference rules (:mod:`sim.rules.prisoners`):

* ``enumerate``: play every one of the ``(S*R)!`` deck orders with the kernel (up to
  :data:`MAX_ENUMERATE_CARDS` cards).
* ``dp``: a forward dynamic programme over *policy states*, one dealt card at a time. A state is the
  row of piles after settling plus the multiset of ranks still to deal, and carries the number of
  dealt prefixes (card orders) that lead to it, as a Python int.

Why the DP state is exact (each reduction maps states with equal futures onto one key):

1. Only ranks matter: the policy compares ranks of top cards and nothing else, so a card is replaced
   by its rank; the ``S`` cards of a rank are interchangeable, so dealing "a card of rank r" next
   stands for ``remaining[r]`` card orders (the transition weight).
2. Only the top and the bottom of a pile matter: moving pile ``i`` onto ``j`` sets the top of ``j``
   to the top of ``i`` (``moves=physical``) or to the bottom of ``i`` (``moves=published``, the pile
   reversed), and leaves the bottom of ``j`` unchanged; the cards in between are never seen again.
   So a pile is ``top`` (physical) or ``(bottom, top)`` (published).
3. Rank symmetry: adjacency is preserved by the reflection ``r -> R-1-r`` and, with wrap, by the
   rotations ``r -> r+k mod R``; the relabelled state plays the relabelled game with the same score.
   The key is the smallest image of the state under that group.

The score (piles left) of a final state is its number of piles; counts sum to ``(S*R)!`` (asserted).
"""
from __future__ import annotations

import itertools
import math
import time
from collections import defaultdict
from fractions import Fraction

import numpy as np

from sim import provenance
from sim.deck import Deck
from sim.errors import UsageError
from sim.games import get_game
from sim.kernels.prisoners import play_orders
from sim.rules.prisoners import adjacent_ranks, policy_target
from sim.variant import Variant

from exact.invariants import require
from exact.result import ExactResult
from sim import compiling as work_clock  # clocks that leave out kernel compilation

#: Largest deck played order by order (10! = 3,628,800 orders).
MAX_ENUMERATE_CARDS = 10
#: Largest deck for the DP (4 x 5 with moves=published takes minutes: its states grow steeply).
MAX_DP_CARDS = 20

METHODS = get_game("prisoners").exact_methods
#: One pile left.
WIN_SCORE = get_game("prisoners").win_score


def variant_limit(deck: Deck, variant: Variant) -> int:
    """The most cards the exact engine takes (any shape, either policy): the DP's limit."""
    return MAX_DP_CARDS


def make_result(deck: Deck, variant: Variant, method: str, score_counts, extra: dict) -> ExactResult:
    """The result record; asserts that the counts sum to ``(S*R)!``."""
    score_counts = tuple(int(c) for c in score_counts)
    require(sum(score_counts) == deck.orders, "counts must sum to (S*R)!")
    return ExactResult(game="prisoners", deck=deck, variant=variant, method=method,
                       orders=deck.orders, score_counts=score_counts,
                       wins=score_counts[WIN_SCORE] if len(score_counts) > WIN_SCORE else 0,
                       provenance=provenance.collect(method=method, **extra))


# --- enumeration ---------------------------------------------------------------------------------

def enumerate_score_counts(deck: Deck, variant: Variant, *, batch: int = 1 << 16) -> list[int]:
    """Piles-left counts over every deck order, played by the kernel in batches."""
    counts = np.zeros(deck.size + 1, dtype=np.int64)
    orders = itertools.permutations(range(deck.size))
    while True:
        block = np.array(list(itertools.islice(orders, batch)), dtype=np.int64)
        if block.size == 0:
            break
        counts += np.bincount(play_orders(block, deck, variant), minlength=deck.size + 1)
    return [int(c) for c in counts]


# --- dynamic programme ---------------------------------------------------------------------------

def rank_maps(ranks: int, wrap: bool) -> list[tuple[int, ...]]:
    """The rank relabellings that preserve adjacency used for keys: reflection, and with wrap
    (``R >= 3``) the rotations (the dihedral group of the rank cycle)."""
    maps = {tuple(range(ranks)), tuple(ranks - 1 - r for r in range(ranks))}
    if wrap and ranks >= 3:
        for k in range(ranks):
            rot = tuple((r + k) % ranks for r in range(ranks))
            maps.add(rot)
            maps.add(tuple(ranks - 1 - x for x in rot))
    return sorted(maps)


def _settle_state(piles: list, top_of_moved, adjacent) -> None:
    """The published policy on a row of abstract piles (in place); see :mod:`sim.rules.prisoners`.

    ``piles[k]`` is ``(bottom, top)``; ``top_of_moved(pile)`` is the rank that lands on top.
    """
    def can_land(source, target):
        return adjacent[piles[source][1]][piles[target][1]]

    while len(piles) > 1:
        moved = False
        for i in range(len(piles) - 1, 0, -1):
            target = policy_target(i, can_land)
            if target is None:
                continue
            piles[target] = (piles[target][0], top_of_moved(piles[i]))
            del piles[i]  # same as dropping it at the next pass: the scan only goes left
            moved = True
        if not moved:
            return


def _tuples(value):
    """A key read back from JSON: its lists as tuples again."""
    return tuple(_tuples(v) for v in value) if isinstance(value, list) else value


def dp_score_counts(deck: Deck, variant: Variant, *, stats: dict | None = None, progress=None,
                    checkpoint=None) -> list[int]:
    """Piles-left counts over every deck order by the forward DP described in the module docstring.

    ``checkpoint``: an :class:`exact.checkpoint.StepCheckpoint`; the layer of states is saved there
    after each card dealt, and a saved layer is resumed from the next card."""
    ranks, n = deck.ranks, deck.size
    wrap = variant.rules.wrap
    reverse = variant.rules.reverse_piles
    adjacent = [[adjacent_ranks(a, b, ranks, wrap) for b in range(ranks)] for a in range(ranks)]
    maps = rank_maps(ranks, wrap)

    def top_of_moved(pile):
        return pile[0] if reverse else pile[1]

    def key(piles, remaining):
        # physical: bottoms are never read, so they are left out of the key
        best = None
        for m in maps:
            image = (tuple((m[b], m[t]) if reverse else m[t] for b, t in piles),
                     tuple(remaining[m.index(r)] for r in range(ranks)))
            if best is None or image < best:
                best = image
        return best

    def unpack(k):
        piles, remaining = k
        piles = [p if reverse else (0, p) for p in piles]
        return piles, list(remaining)

    layer = {key([], [deck.suits] * ranks): 1}
    layer_sizes = [1]
    start = 0
    saved = checkpoint.load() if checkpoint is not None else None
    if saved is not None:
        state, _ = saved
        start, layer_sizes = int(state["dealt"]), [int(x) for x in state["layer_sizes"]]
        layer = {_tuples(k): int(c) for k, c in state["layer"]}
        if progress is not None:
            progress(start, n, len(layer))
    for dealt in range(start, n):
        nxt: dict = defaultdict(int)
        for k, count in layer.items():
            piles0, remaining = unpack(k)
            for r in range(ranks):
                if remaining[r] == 0:
                    continue
                piles = piles0 + [(r, r)]
                _settle_state(piles, top_of_moved, adjacent)
                remaining[r] -= 1
                nxt[key(piles, remaining)] += count * (remaining[r] + 1)
                remaining[r] += 1
        layer = nxt
        layer_sizes.append(len(layer))
        if progress is not None:
            progress(dealt + 1, n, len(layer))
        if checkpoint is not None:
            checkpoint.step(dealt + 1, n, lambda dealt=dealt, layer=layer: (
                {"dealt": dealt + 1, "layer_sizes": layer_sizes, "layer": [[k, c] for k, c in layer.items()]}, {}))
    counts = [0] * (n + 1)
    for (piles, _), count in layer.items():
        counts[len(piles)] += count
    if stats is not None:
        stats.update(layer_states=tuple(layer_sizes), max_layer_states=max(layer_sizes))
    return counts


def exact_distribution(deck: Deck, variant: Variant | str | None = None, *, method: str = "auto",
                       progress=None, checkpoint_dir=None, checkpoint_seconds: float | None = None):
    """Exact distribution of piles left under the published policy, over all ``(S*R)!`` orders.

    Parameters
    ----------
    deck : Deck
    variant : prisoners Variant (``moves``, ``wrap``) or its canonical string
    method : ``"enumerate"`` (every order, up to :data:`MAX_ENUMERATE_CARDS` cards), ``"dp"`` (up to
        :data:`MAX_DP_CARDS`), or ``"auto"`` (the DP)
    progress : optional callable ``progress(done, total, states)`` after each dealt card (DP only)
    checkpoint_dir : DP only: a folder where the layer of states is kept between two cards (a file per
        deck and variant, :mod:`exact.checkpoint`, at most every ``checkpoint_seconds``); a run given it
        again resumes from the next card. Enumeration is not checkpointed (at most 12 cards: seconds).

    Returns
    -------
    exact.ExactResult
        ``score_counts[k]`` = orders ending with ``k`` piles; ``wins`` = ``score_counts[1]``.

    Examples
    --------
    >>> r = exact_distribution(Deck(1, 3), "prisoners(moves=physical,wrap=off)")
    >>> r.score_counts, r.p_win
    ((0, 4, 2, 0), Fraction(2, 3))
    """
    variant = Variant.coerce(variant, "prisoners")
    if method not in METHODS:
        raise UsageError(f"unknown method {method!r}: choose one of {', '.join(METHODS)}")
    if method == "auto":
        method = "dp"
    limit = MAX_ENUMERATE_CARDS if method == "enumerate" else MAX_DP_CARDS
    if deck.size > limit:
        raise UsageError(f"deck {deck} has {deck.size} cards; exact method {method} for prisoners handles "
                         f"at most {limit}: use simulate for larger decks")
    stats: dict = {"started": provenance.now()}
    t0 = work_clock.perf_counter()
    if method == "enumerate":
        counts = enumerate_score_counts(deck, variant)
    else:
        checkpoint = None
        if checkpoint_dir is not None:
            from exact.checkpoint import in_folder

            checkpoint = in_folder(checkpoint_dir, {"engine": "prisoners-dp", "suits": deck.suits, "ranks": deck.ranks,
                                                    "variant": str(variant)}, seconds=checkpoint_seconds, what="cards")
        counts = dp_score_counts(deck, variant, stats=stats, progress=progress, checkpoint=checkpoint)
        if checkpoint is not None:
            checkpoint.discard()
    stats.update(finished=provenance.now(), seconds=work_clock.perf_counter() - t0)
    return make_result(deck, variant, method, counts, stats)


def p_win(deck: Deck, variant: Variant | str | None = None, *, method: str = "auto") -> Fraction:
    """The exact win probability (one pile left) under the published policy."""
    return exact_distribution(deck, variant, method=method).p_win


require(math.factorial(MAX_ENUMERATE_CARDS) < 2**63, "enumerated counts fit in int64")
