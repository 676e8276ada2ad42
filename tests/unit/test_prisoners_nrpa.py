"""NRPA (Nested Rollout Policy Adaptation): the numba kernel against the plain reference, and the
solver's ``strategy="nrpa"`` against brute force (it must never win a lost deck)."""
import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import exact.prisoners.nrpa_kernel as nk
from exact.prisoners.best_play import random_orders
from exact.prisoners.nrpa import SplitMix64, nrpa_reference
from exact.prisoners.solver import LOST, NRPA_PLAN, UNDECIDED, WON, make_searcher, replay, solve
from exact.prisoners.solver_kernel import neighbour_masks
from sim import Deck, Variant

from ..naive import brute_force_fewest_piles

VARIANTS = [Variant.make("prisoners", moves=m, wrap=w) for m in ("physical", "published") for w in ("on", "off")]


def _kernel(order, deck, variant, level, iterations, seed, step_stop, policy=None):
    ranks = np.array([deck.rank(c) for c in order], dtype=np.int64)
    line = np.zeros((max(deck.size - 1, 1), 2), dtype=np.int64)
    start = np.zeros(deck.size ** 2) if policy is None else np.asarray(policy, dtype=np.float64)
    code, score, steps = nk._nrpa(ranks, neighbour_masks(deck.ranks, variant.rules.wrap), variant.rules.reverse_piles,
                                  level, iterations, 1.0, np.uint64(seed), step_stop, start, line)
    return code == nk.NRPA_WON, int(score), int(steps), [tuple(map(int, m)) for m in line[:deck.size - score]]


def test_random_stream_is_splitmix64():
    # The first output of splitmix64 from state 0 (Vigna's reference: 0xE220A8397B1DCDAF).
    rng = SplitMix64(0)
    assert rng.uniform() == (0xE220A8397B1DCDAF >> 11) / 2.0 ** 53


@settings(max_examples=60, deadline=None)
@given(shape=st.sampled_from([(1, 5), (2, 4), (3, 3), (2, 5), (1, 8), (4, 3), (2, 7)]),
       variant=st.sampled_from(VARIANTS), level=st.integers(1, 2), iterations=st.integers(1, 6),
       seed=st.integers(0, 2 ** 64 - 1), step_stop=st.sampled_from([1, 7, 40, 10 ** 9]), data=st.data())
def test_kernel_equals_reference(shape, variant, level, iterations, seed, step_stop, data):
    deck = Deck(*shape)
    order = data.draw(st.permutations(list(deck.cards())))
    policy = data.draw(st.lists(st.floats(-3, 3), min_size=deck.size ** 2, max_size=deck.size ** 2))
    ref = nrpa_reference(order, deck, variant, level=level, iterations=iterations, seed=seed, step_stop=step_stop,
                         start_policy=policy)
    assert _kernel(order, deck, variant, level, iterations, seed, step_stop, policy) == ref
    won, score, steps, line = ref
    piles = replay(order, deck, variant, line)  # the best game is legal and leaves `score` piles
    assert len(piles) == score and won == (score == 1)


@pytest.mark.parametrize("variant", VARIANTS, ids=str)
@pytest.mark.parametrize("shape", [(2, 4), (1, 7), (2, 3)])
def test_kernel_never_wins_a_lost_order(shape, variant):
    # A spread sample of every order of a small deck: the best game is legal, never better than
    # brute force, and a win (a replayed single pile) only on winnable orders.
    deck = Deck(*shape)
    orders = list(itertools.permutations(deck.cards()))
    won = winnable = 0
    for order in orders[:: max(1, len(orders) // 80)]:
        best = brute_force_fewest_piles(order, deck, variant)
        found, score, _, line = _kernel(order, deck, variant, 2, 10, 7, 10 ** 9)
        assert score >= best and len(replay(order, deck, variant, line)) == score
        assert found == (score == 1) and (not found or best == 1)
        won += found
        winnable += best == 1
    assert won >= winnable / 3  # a level-2 search of 100 playouts finds many of the wins


def test_steps_are_counted_and_the_budget_stops_the_search():
    deck = Deck(4, 13)
    variant = Variant.make("prisoners", moves="published")
    order = random_orders(deck, 1, seed=5)[0].tolist()
    won, score, steps, _ = _kernel(order, deck, variant, 2, 100, 3, 1000)
    assert not won and 1000 <= steps < 1000 + 2 * deck.size
    # a level-1 search of 4 iterations: 4 playouts and 4 adaptations, each of the best game so far
    _, _, steps, _ = _kernel(order, deck, variant, 1, 4, 3, 10 ** 9)
    assert steps >= 8 and steps == nrpa_reference(order, deck, variant, level=1, iterations=4, seed=3,
                                                  step_stop=10 ** 9)[2]


@pytest.mark.parametrize("variant", VARIANTS, ids=str)
@pytest.mark.parametrize("shape", [(2, 4), (2, 3), (1, 7)])
def test_strategy_nrpa_equals_brute_force(shape, variant, monkeypatch):
    # A budget so small (8 nodes: 4 for the restarts, 32 NRPA steps) that the restarts leave many
    # orders undecided and the NRPA searches run (their wins are replayed by solve): a decided
    # verdict equals brute force, the same call gives the same result, and a full budget decides.
    monkeypatch.setitem(NRPA_PLAN, "restart_share", 0.5)
    deck = Deck(*shape)
    orders = list(itertools.permutations(deck.cards()))
    searcher = make_searcher(deck, variant, strategy="nrpa")
    restart_nodes = int(NRPA_PLAN["restart_share"] * 8)
    by_nrpa = 0
    for order in orders[:: max(1, len(orders) // 60)]:
        won = brute_force_fewest_piles(order, deck, variant) == 1
        result = solve(list(order), deck, variant, node_budget=8, strategy="nrpa")
        assert result.status in ((WON, UNDECIDED) if won else (LOST, UNDECIDED)), order
        if result.status == WON:
            assert len(replay(order, deck, variant, result.line)) == 1
            by_nrpa += result.nodes > restart_nodes
        again = searcher.solve_ranks([deck.rank(c) for c in order], 8)
        assert (again.status, again.line, again.nodes) == (result.status, result.line, result.nodes)
        full = searcher.solve_ranks([deck.rank(c) for c in order], 10 ** 6)
        assert full.status == (WON if won else LOST)
    if shape == (2, 4) and variant.rules.wrap:
        assert by_nrpa >= 1  # some wins came from the NRPA searches, not the restarts


def test_strategy_nrpa_wins_a_deck_the_restarts_leave_undecided(monkeypatch):
    # Deck 99 of seed 1 (published): the restarts leave it undecided at 3,000,000 nodes (the
    # benchmark); here at 40,000 nodes, while the NRPA searches win it after 20,000 nodes of restarts.
    monkeypatch.setitem(NRPA_PLAN, "restart_share", 0.5)
    deck = Deck(4, 13)
    variant = Variant.make("prisoners", moves="published")
    order = random_orders(deck, 100, seed=1)[99].tolist()
    assert solve(order, deck, variant, node_budget=40_000).status == UNDECIDED
    first = solve(order, deck, variant, node_budget=40_000, strategy="nrpa")
    again = solve(order, deck, variant, node_budget=40_000, strategy="nrpa")
    assert first.status == WON and first.nodes > 20_000
    assert len(replay(order, deck, variant, first.line)) == 1
    assert (first.status, first.line, first.nodes) == (again.status, again.line, again.nodes)
    for other in random_orders(deck, 8, seed=11):  # never a loss from NRPA: lost only by the restarts
        result = solve(other.tolist(), deck, variant, node_budget=4_000, strategy="nrpa")
        assert result.status != LOST or result.nodes <= 2_000


def test_strategy_nrpa_stops_on_the_time_budget():
    deck = Deck(4, 13)
    order = random_orders(deck, 1, seed=1)[0].tolist()  # undecided at this budget
    result = solve(order, deck, "prisoners(moves=published)", node_budget=10 ** 7, time_budget=1e-6,
                   strategy="nrpa")
    assert result.status == UNDECIDED and result.nodes < 10 ** 7
