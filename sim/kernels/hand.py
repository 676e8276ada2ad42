"""Hand Solitaire kernels: whole games (iterations until a win or a cap), no per-game allocation.

The stack lives in a linear buffer ``buf[base:top]`` (bottom card at ``base``): dealing writes at
``top``; a rotation copies ``buf[base]`` to ``buf[top]`` and advances both ends, so no card moves.
Rotations per iteration are at most 3 per suit-match event plus 3, so a buffer of ``4 n + 16`` slots
is never overrun. Suits and ranks come from two small lookup tables indexed by card.

Reference rules: :mod:`sim.rules.hand`. Public wrappers: :func:`play_iterations`, :func:`play_runs`,
:func:`chunk_runner` (the Monte Carlo runner of :mod:`sim.montecarlo`) and :func:`run_decks` (per-run
records for the poison-set analysis in :mod:`exact.hand.poison`).
"""
from __future__ import annotations

import numpy as np

from .._jit import jit
from ..deck import Deck
from ..checks import int_in_range
from ..errors import UsageError
from ..rng import shuffle
from ..variant import Variant

#: Default iteration cap of a run (the published simulator gives up after 1000 iterations).
DEFAULT_CAP = 1000
#: Largest cap accepted (the per-chunk histogram of iterations has ``cap + 1`` entries).
MAX_CAP = 10_000_000


class Rules:
    """The kernel's view of a deck and variant: lookup tables and flags."""

    def __init__(self, deck: Deck, variant: Variant):
        if variant.game != "hand":
            raise UsageError(f"variant {variant} is not a Hand Solitaire variant")
        self.n = deck.size
        self.suit = deck.suit_array().astype(np.int32)
        self.rank = deck.rank_array().astype(np.int32)
        self.step7 = variant.rules.step7
        self.rank_resets = variant.rules.rank_resets
        self.reshuffle = variant.rules.reshuffle

    def buffers(self):
        return np.empty(4 * self.n + 16, dtype=np.int64), np.empty(self.n, dtype=np.int64)


@jit(inline="always")
def _settle(buf, base, top, disc, nd, suit, rank, recheck_after_rank):
    """Discard at the top of ``buf[base:top]`` while a check applies.

    Returns ``(top, nd, any_discard, any_suit_match)``; a rank match ends the checking when
    ``recheck_after_rank`` is false (the published loop; the result is the same, see the rules).
    """
    any_discard = False
    any_suit = False
    while top - base >= 4:
        a = buf[top - 1]
        b = buf[top - 4]
        if rank[a] == rank[b]:
            disc[nd] = b
            disc[nd + 1] = buf[top - 3]
            disc[nd + 2] = buf[top - 2]
            disc[nd + 3] = a
            nd += 4
            top -= 4
            any_discard = True
            if not recheck_after_rank:
                break
        elif suit[a] == suit[b]:
            disc[nd] = buf[top - 3]
            disc[nd + 1] = buf[top - 2]
            nd += 2
            buf[top - 3] = a
            top -= 2
            any_discard = True
            any_suit = True
        else:
            break
    return top, nd, any_discard, any_suit


@jit(inline="always")
def _iteration(order, n, buf, disc, suit, rank, step7, rank_resets):
    """Play one iteration of ``order[:n]``; returns ``(base, top, nd)``: leftovers ``buf[base:top]``
    (bottom first) and discards ``disc[:nd]`` in the order appended."""
    base = 0
    top = 0
    nd = 0
    for i in range(n):
        buf[top] = order[i]
        top += 1
        top, nd, _, _ = _settle(buf, base, top, disc, nd, suit, rank, rank_resets)
    if step7:
        quiet = 0
        while quiet < 3:
            if top > base:
                buf[top] = buf[base]
                base += 1
                top += 1
            quiet += 1
            top, nd, any_discard, any_suit = _settle(buf, base, top, disc, nd, suit, rank, rank_resets)
            if any_suit or (rank_resets and any_discard):
                quiet = 0
    return base, top, nd


@jit(inline="always")
def _next_order(order, n, buf, base, top, disc, nd, reshuffle, s0, s1, s2, s3):
    """Write the next deck order into ``order``: reversed discards, then the leftovers (shuffled from
    bottom-to-top order, or from the top of the stack down)."""
    for j in range(nd):
        order[j] = disc[nd - 1 - j]
    k = top - base
    if reshuffle:
        for j in range(k):
            order[nd + j] = buf[base + j]
        s0, s1, s2, s3 = shuffle(order[nd:n], s0, s1, s2, s3)
    else:
        for j in range(k):
            order[nd + j] = buf[top - 1 - j]
    return s0, s1, s2, s3


@jit(inline="always")
def _run(order, n, cap, buf, disc, suit, rank, step7, rank_resets, reshuffle, s0, s1, s2, s3):
    """Play a whole run from ``order`` (overwritten: it ends as the final order played).

    Returns ``(iterations, cards_left, s0, s1, s2, s3)``; ``cards_left == 0`` means won.
    """
    it = 1
    while True:
        base, top, nd = _iteration(order, n, buf, disc, suit, rank, step7, rank_resets)
        k = top - base
        if k == 0 or it == cap:
            return it, k, s0, s1, s2, s3
        s0, s1, s2, s3 = _next_order(order, n, buf, base, top, disc, nd, reshuffle, s0, s1, s2, s3)
        it += 1


@jit
def _play_iterations(orders, suit, rank, step7, rank_resets):
    """One iteration of each row: returns ``(discards, leftovers, n_leftovers)`` (rows padded)."""
    games, n = orders.shape
    buf = np.empty(4 * n + 16, dtype=np.int64)
    disc = np.empty(n, dtype=np.int64)
    discards = np.full((games, n), -1, dtype=np.int64)
    leftovers = np.full((games, n), -1, dtype=np.int64)
    n_left = np.empty(games, dtype=np.int64)
    for g in range(games):
        base, top, nd = _iteration(orders[g], n, buf, disc, suit, rank, step7, rank_resets)
        discards[g, :nd] = disc[:nd]
        leftovers[g, :top - base] = buf[base:top]
        n_left[g] = top - base
    return discards, leftovers, n_left


@jit
def _play_runs(state, orders, cap, suit, rank, step7, rank_resets, reshuffle):
    """Runs from the given start orders, one stream for all (in row order).

    Returns ``(iterations, cards_left, final_orders)``.
    """
    games, n = orders.shape
    s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    buf = np.empty(4 * n + 16, dtype=np.int64)
    disc = np.empty(n, dtype=np.int64)
    final = orders.copy()
    iterations = np.empty(games, dtype=np.int64)
    cards_left = np.empty(games, dtype=np.int64)
    for g in range(games):
        iterations[g], cards_left[g], s0, s1, s2, s3 = _run(final[g], n, cap, buf, disc, suit, rank, step7,
                                                           rank_resets, reshuffle, s0, s1, s2, s3)
    return iterations, cards_left, final


@jit
def _simulate_chunk(state, games, cap, suit, rank, step7, rank_resets, reshuffle):
    """Play ``games`` runs from uniformly shuffled decks.

    Returns ``(score_counts, iterations_to_win, wins, capped)``; the score is the number of cards left
    at the end of the final iteration played (0 for a win).
    """
    n = suit.shape[0]
    s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    buf = np.empty(4 * n + 16, dtype=np.int64)
    disc = np.empty(n, dtype=np.int64)
    order = np.arange(n)
    score_counts = np.zeros(n + 1, dtype=np.int64)
    iterations_to_win = np.zeros(cap + 1, dtype=np.int64)
    wins = 0
    capped = 0
    for _ in range(games):
        # the previous final order is a permutation: shuffling it again is uniform
        s0, s1, s2, s3 = shuffle(order, s0, s1, s2, s3)
        it, k, s0, s1, s2, s3 = _run(order, n, cap, buf, disc, suit, rank, step7, rank_resets, reshuffle,
                                     s0, s1, s2, s3)
        score_counts[k] += 1
        if k == 0:
            wins += 1
            iterations_to_win[it] += 1
        else:
            capped += 1
    return score_counts, iterations_to_win, wins, capped


@jit
def _run_decks(state, games, cap, suit, rank, step7, rank_resets, reshuffle):
    """Like :func:`_simulate_chunk` but per run: ``(start_orders, final_orders, iterations, cards_left)``."""
    n = suit.shape[0]
    s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    buf = np.empty(4 * n + 16, dtype=np.int64)
    disc = np.empty(n, dtype=np.int64)
    order = np.arange(n)
    starts = np.empty((games, n), dtype=np.int16)
    finals = np.empty((games, n), dtype=np.int16)
    iterations = np.empty(games, dtype=np.int64)
    cards_left = np.empty(games, dtype=np.int64)
    for g in range(games):
        s0, s1, s2, s3 = shuffle(order, s0, s1, s2, s3)
        for j in range(n):
            starts[g, j] = order[j]
        iterations[g], cards_left[g], s0, s1, s2, s3 = _run(order, n, cap, buf, disc, suit, rank, step7,
                                                           rank_resets, reshuffle, s0, s1, s2, s3)
        for j in range(n):
            finals[g, j] = order[j]
    return starts, finals, iterations, cards_left


def check_cap(cap) -> int:
    """Validate an iteration cap (a positive int up to :data:`MAX_CAP`)."""
    return int_in_range("cap", cap, 1, MAX_CAP, unit="iterations per run")


def _orders_array(orders, deck: Deck) -> np.ndarray:
    orders = np.ascontiguousarray(orders, dtype=np.int64)
    if orders.ndim != 2 or orders.shape[1] != deck.size:
        raise ValueError(f"orders must have shape (games, {deck.size})")
    return orders


def play_iterations(orders, deck: Deck, variant: Variant):
    """One iteration of each row of ``orders``; the kernel twin of :func:`sim.rules.hand.play_iteration`.

    Returns a list of ``(discards, leftovers)`` tuples of card tuples.
    """
    orders = _orders_array(orders, deck)
    rules = Rules(deck, variant)
    if orders.shape[0] == 0:
        return []
    discards, leftovers, n_left = _play_iterations(orders, rules.suit, rules.rank, rules.step7, rules.rank_resets)
    n = deck.size
    return [(tuple(discards[g, :n - k].tolist()), tuple(leftovers[g, :k].tolist()))
            for g, k in enumerate(n_left.tolist())]


def play_runs(orders, deck: Deck, variant: Variant, *, state, cap: int = DEFAULT_CAP):
    """Whole runs from the given start orders, drawing shuffles from the xoshiro ``state`` (4 uint64).

    Returns ``(iterations, cards_left, final_orders)`` as numpy arrays.
    """
    orders = _orders_array(orders, deck)
    rules = Rules(deck, variant)
    state = np.asarray(state, dtype=np.uint64)
    return _play_runs(state, orders, check_cap(cap), rules.suit, rules.rank, rules.step7, rules.rank_resets,
                      rules.reshuffle)


def run_decks(state, games: int, deck: Deck, variant: Variant, *, cap: int = DEFAULT_CAP):
    """``games`` runs from shuffled decks with per-run records (see :func:`_run_decks`)."""
    rules = Rules(deck, variant)
    return _run_decks(np.asarray(state, dtype=np.uint64), int(games), check_cap(cap), rules.suit, rules.rank,
                      rules.step7, rules.rank_resets, rules.reshuffle)


def chunk_runner(deck: Deck, variant: Variant, *, cap: int = DEFAULT_CAP):
    """The Monte Carlo chunk runner (see :attr:`sim.games.Game.runner`).

    Each chunk returns ``score_counts`` (runs per cards left at the end of the final iteration
    played; index 0 = won), ``wins``, ``iterations_to_win`` (won runs per iteration of the win, index
    0 unused) and ``capped`` (runs that reached ``cap`` iterations without a win); ``cap`` is constant.
    """
    rules = Rules(deck, variant)
    cap = check_cap(cap)

    def run(state: np.ndarray, games: int) -> dict:
        counts, iterations_to_win, wins, capped = _simulate_chunk(
            state, games, cap, rules.suit, rules.rank, rules.step7, rules.rank_resets, rules.reshuffle)
        return {"score_counts": counts, "wins": int(wins), "iterations_to_win": iterations_to_win,
                "capped": int(capped)}

    return run


def _median_with_interval(counts, confidence_z: float = 1.959963984540054):
    """Median of a distribution given as counts per value, with a distribution-free 95% interval
    (the order statistics at ranks ``n/2 -+ z sqrt(n)/2``)."""
    n = int(sum(counts))
    if n == 0:
        return None, [None, None]
    cumulative = np.cumsum(np.asarray(counts, dtype=np.int64))

    def value_at(rank):  # rank in 1..n
        rank = min(max(int(rank), 1), n)
        return int(np.searchsorted(cumulative, rank))

    half = confidence_z * np.sqrt(n) / 2
    median = value_at((n + 1) // 2)
    return median, [value_at(np.floor(n / 2 - half)), value_at(np.ceil(n / 2 + 1 + half))]


def iteration_statistics(iterations_to_win, games: int, capped: int) -> dict:
    """The figures of the published Hand Solitaire histogram, each with a 95% interval.

    ``iterations_to_win[i]`` is the number of runs won on iteration ``i`` (index 0 unused). Returns
    ``p_win_within`` ({"1"/"10"/"25": [p, low, high]}, runs won on or before that iteration; absent
    when the cap is smaller), the mean iterations to win among runs won within the cap (with its
    standard error), the median (with a distribution-free 95% interval), and ``p_capped`` (the share
    of runs that reached the cap, [p, low, high]).
    """
    from ..stats import binomial_interval, mean_and_se

    counts = [int(c) for c in iterations_to_win]
    out: dict = {"p_win_within": {}}
    for last in (1, 10, 25):
        if last < len(counts):
            won = sum(counts[1:last + 1])
            (low, high), _ = binomial_interval(won, games)
            out["p_win_within"][str(last)] = [won / games, low, high]
    if sum(counts):
        mean, se = mean_and_se(counts)
        out["mean_iterations_to_win"], out["mean_iterations_to_win_se"] = mean, se
    median, interval = _median_with_interval(counts)
    out["median_iterations_to_win"], out["median_iterations_to_win_ci95"] = median, interval
    (low, high), _ = binomial_interval(capped, games)
    out["p_capped"] = [capped / games, low, high]
    return out


def with_iteration_statistics(result, cap: int):
    """A copy of a Hand Solitaire :class:`~sim.montecarlo.SimulationResult` whose ``extra`` also
    holds ``cap`` and ``iteration_stats`` (:func:`iteration_statistics`)."""
    import dataclasses

    stats = iteration_statistics(result.extra["iterations_to_win"], result.games, result.extra["capped"])
    return dataclasses.replace(result, extra={**result.extra, "cap": int(cap), "iteration_stats": stats})


def describe_iteration_statistics(extra: dict) -> str:
    """Human-readable lines for ``extra`` of :func:`with_iteration_statistics`."""
    stats = extra["iteration_stats"]
    lines = [f"cap {extra['cap']:,} iterations; score = cards left at the end of the final iteration played"]
    for last, (p, low, high) in stats["p_win_within"].items():
        label = "first iteration" if last == "1" else f"within {last}"
        lines.append(f"won {label}: {p:.4%}  95% CI [{low:.4%}, {high:.4%}]")
    if "mean_iterations_to_win" in stats:
        low, high = stats["median_iterations_to_win_ci95"]
        lines.append(f"iterations to win (runs won within the cap): mean {stats['mean_iterations_to_win']:.3f}"
                     f" +- {stats['mean_iterations_to_win_se']:.3f} (s.e.), median {stats['median_iterations_to_win']}"
                     f" 95% CI [{low}, {high}]")
    p, low, high = stats["p_capped"]
    lines.append(f"reached the cap: {extra['capped']:,} runs, {p:.4%}  95% CI [{low:.4%}, {high:.4%}]"
                 " (`solitaire poison` decides them)")
    return "\n".join(lines)
