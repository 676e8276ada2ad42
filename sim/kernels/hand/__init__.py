"""Hand Solitaire kernels: one iteration of an order, and whole runs (iterations until a win or a cap).

Reference rules: :mod:`sim.rules.hand`. Two engines play them, in their own modules, with one
rotation phase:

* :mod:`sim.kernels.hand.plain`: one iteration at a time on a linear stack of card numbers (suit and
  rank tables); the whole-deck graph (:mod:`exact.hand.graph_kernel`) and :func:`play_iterations`
  play it;
* :mod:`sim.kernels.hand.lanes`: the Monte Carlo engine, card codes, four runs interleaved
  (:func:`chunk_runner`, :func:`play_runs`, :func:`run_decks`);
* :mod:`sim.kernels.hand.rotation`: the checks and the rotation phase both engines compile in;
* :mod:`sim.kernels.hand.tables`: the kernels' view of a deck and variant (:class:`Rules`).

Public wrappers (here): :func:`play_iterations`, :func:`play_runs`, :func:`chunk_runner` (the Monte
Carlo runner, see :attr:`sim.games.Game.runner`) and :func:`run_decks` (per-run records for
:mod:`exact.hand.poison`).
"""
from __future__ import annotations

import numpy as np

from ...checks import int_in_range
from ...deck import Deck
from ...errors import UsageError
from ...variant import Variant
from .lanes import _MAX_BUFFER, LANES, _layout, _play_lanes, lane_states
from .lanes import _shuffle_rows  # noqa: F401  (the tests check the kernel shuffle with it)
from .plain import _play_iterations, iteration_kernel
from .tables import Rules

__all__ = ["DEFAULT_CAP", "LANES", "MAX_CAP", "Rules", "check_cap", "chunk_runner", "iteration_kernel",
           "lane_states", "play_iterations", "play_runs", "run_decks"]

#: Default iteration cap of a run (the published simulator gives up after 1000 iterations).
DEFAULT_CAP = 1000
#: Largest cap accepted (the per-chunk histogram of iterations has ``cap + 1`` entries).
MAX_CAP = 10_000_000


def check_cap(cap) -> int:
    """Validate an iteration cap (a positive int up to :data:`MAX_CAP`)."""
    return int_in_range("cap", cap, 1, MAX_CAP, unit="iterations per run")


def _orders_array(orders, deck: Deck) -> np.ndarray:
    orders = np.ascontiguousarray(orders, dtype=np.int64)
    if orders.ndim != 2 or orders.shape[1] != deck.size:
        raise ValueError(f"orders must have shape (games, {deck.size})")
    return orders


def _engine_rules(deck: Deck, variant: Variant) -> Rules:
    rules = Rules(deck, variant)
    if _layout(rules.n)[3] >= _MAX_BUFFER:
        raise UsageError(f"deck {deck} is too large for the Hand Solitaire kernel ({rules.n} cards)")
    return rules


def _run_lanes(rules: Rules, state, games: int, cap: int, *, given=None, record: bool = False):
    given = np.zeros((0, rules.n), dtype=np.int64) if given is None else given
    return _play_lanes(int(games), cap, lane_states(state), given, rules.codes, rules.special, rules.rank_mask,
                       rules.suit_mask, rules.rotations_to_stop, rules.rank_resets, rules.reshuffle, record,
                       rules.rank_bits, rules.ranks)


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
    """Whole runs from the given start orders with the Monte Carlo kernel: row ``g`` is played on lane
    ``g % 4``, whose leftover shuffles draw from ``lane_states(state)[g % 4]`` (rows of a lane in order).

    Returns ``(iterations, cards_left, final_orders)`` as numpy arrays.
    """
    orders = _orders_array(orders, deck)
    rules = _engine_rules(deck, variant)
    cap = check_cap(cap)
    if orders.shape[0] == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), orders.copy()
    _, _, _, finals, iterations, cards_left = _run_lanes(rules, state, orders.shape[0], cap, given=orders,
                                                         record=True)
    return iterations, cards_left, finals.astype(np.int64)


def run_decks(state, games: int, deck: Deck, variant: Variant, *, cap: int = DEFAULT_CAP):
    """``games`` runs from shuffled decks (as :func:`chunk_runner` plays them) with per-run records:
    ``(start_orders, final_orders, iterations, cards_left)``."""
    rules = _engine_rules(deck, variant)
    _, _, starts, finals, iterations, cards_left = _run_lanes(rules, state, games, check_cap(cap), record=True)
    return starts, finals, iterations, cards_left


def chunk_runner(deck: Deck, variant: Variant, *, cap: int = DEFAULT_CAP):
    """The Monte Carlo chunk runner (see :attr:`sim.games.Game.runner`).

    Each chunk returns ``score_counts`` (runs per cards left at the end of the final iteration
    played; index 0 = won), ``wins``, ``iterations_to_win`` (won runs per iteration of the win, index
    0 unused) and ``capped`` (runs that reached ``cap`` iterations without a win); ``cap`` is constant.
    """
    rules = _engine_rules(deck, variant)
    cap = check_cap(cap)

    def run(state: np.ndarray, games: int) -> dict:
        counts, iterations_to_win, _, _, _, _ = _run_lanes(rules, state, games, cap)
        wins = int(counts[0])
        return {"score_counts": counts, "wins": wins, "iterations_to_win": iterations_to_win,
                "capped": int(games) - wins}

    return run
