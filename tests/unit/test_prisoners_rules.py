"""Prisoner's Patience: the reference rules on hand-checked deals, and the kernel against them."""
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sim import Deck, Variant, simulate
from sim.kernels.prisoners import play_orders
from sim.rules.prisoners import adjacent_ranks, apply_move, deal_and_settle, legal_moves, play

from ..strategies import deck_orders, decks, variants

PUBLISHED = Variant.make("prisoners", moves="published")
PHYSICAL = Variant.make("prisoners", moves="physical")


def test_adjacency_and_wrap():
    assert adjacent_ranks(3, 4, 13, True) and adjacent_ranks(4, 3, 13, False)
    assert adjacent_ranks(0, 12, 13, True) and not adjacent_ranks(0, 12, 13, False)
    assert not adjacent_ranks(0, 0, 1, True)  # one rank: nothing is adjacent
    assert adjacent_ranks(0, 1, 2, False) and not adjacent_ranks(1, 1, 2, True)
    deck = Deck(1, 13)
    assert play([0, 12], deck).won
    assert not play([0, 12], deck, Variant.make("prisoners", wrap="off")).won


def test_published_reverses_a_moved_pile_physical_keeps_it():
    # ranks 0..5, no wrap. Deal 2, 0, 1: the 1 goes onto the 0 (pile [0, 1]), and in the same pass
    # that pile (top 1) goes onto the 2. Card by card it arrives reversed, so its old bottom 0 is on top.
    deck = Deck(1, 6)
    for wrap in ("on", "off"):
        assert deal_and_settle([2, 0, 1], deck, Variant.make("prisoners", moves="physical", wrap=wrap)) == [[2, 0, 1]]
        assert deal_and_settle([2, 0, 1], deck, Variant.make("prisoners", moves="published", wrap=wrap)) == [[2, 1, 0]]
    # the new top decides what follows: with wrap a 5 fits the reversed pile's top 0, not the kept top 1
    assert play([2, 0, 1, 5], deck, Variant.make("prisoners", moves="published")).won
    assert play([2, 0, 1, 5], deck, Variant.make("prisoners", moves="physical")).score == 2


def test_distance_three_and_priority_of_distance_one():
    deck = Deck(1, 13)
    # 1 at index 3: not adjacent to 7 at index 2, adjacent to 0 at index 0 -> moves three to the left
    assert deal_and_settle([0, 5, 7, 1], deck, PUBLISHED) == [[0, 1], [5], [7]]
    # 6 at index 3 fits both 7 (distance 1) and 5 (distance 3): distance 1 is tried first
    assert deal_and_settle([5, 9, 7, 6], deck, PUBLISHED) == [[5], [9], [7, 6]]


def test_moves_within_a_pass_see_earlier_moves():
    # 0 3 1 2 (ranks of 1x13, no wrap): the 2 goes onto the 1 and the new top 2 (index 2) then fits
    # the 3 (index 1) in the same pass; the pile then has top 2 (physical) or 1 (published, reversed)
    deck = Deck(1, 13)
    off = dict(wrap="off")
    assert deal_and_settle([0, 3, 1, 2], deck, Variant.make("prisoners", moves="physical", **off)) == [[0], [3, 1, 2]]
    # published: [1,2] reversed onto [3] -> [3, 2, 1], top 1, which fits the 0 still in the same pass
    assert deal_and_settle([0, 3, 1, 2], deck, Variant.make("prisoners", moves="published", **off)) == [[0, 1, 2, 3]]


def test_legal_moves_and_apply_move():
    deck = Deck(1, 13)
    piles = [[0], [5], [7], [1], [6]]
    assert legal_moves(piles, deck, True) == [(3, 0), (4, 1)]
    assert apply_move(piles, 4, 1, False) == [[0], [5, 6], [7], [1]]
    assert apply_move([[0], [3, 2]], 1, 0, True) == [[0, 2, 3]]
    assert piles == [[0], [5], [7], [1], [6]]  # not mutated


@given(data=st.data(), deck=decks(max_cards=60), variant=variants("prisoners"))
def test_kernel_equals_reference(data, deck, variant):
    orders = [data.draw(deck_orders(deck)) for _ in range(data.draw(st.integers(1, 9)))]
    scores = play_orders(np.array(orders), deck, variant)
    assert scores.tolist() == [play(order, deck, variant).score for order in orders]


@given(deck=decks(max_cards=60), variant=variants("prisoners"), seed=st.integers(0, 2**32))
def test_kernel_equals_reference_on_random_decks(deck, variant, seed):
    rng = np.random.default_rng(seed)
    orders = np.array([rng.permutation(deck.size) for _ in range(200)])
    assert play_orders(orders, deck, variant).tolist() == [play(o, deck, variant).score for o in orders]


def test_standard_deck_rare_wins_are_reference_wins():
    # Rare outcomes (wins: about 1 deck in 24,000) are where a kernel bug would hide from the random
    # tests above: find them with the kernel among many decks and replay them with the reference.
    rng = np.random.default_rng(7)
    orders = np.array([rng.permutation(52) for _ in range(300_000)])
    deck = Deck(4, 13)
    for variant in (PUBLISHED, PHYSICAL, Variant.make("prisoners", moves="published", wrap="off")):
        scores = play_orders(orders, deck, variant)
        rare = orders[np.argsort(scores, kind="stable")[:40]]  # the 40 lowest scores
        assert [play(o, deck, variant).score for o in rare] == play_orders(rare, deck, variant).tolist()
    assert (play_orders(orders, deck, PUBLISHED) == 1).sum() >= 1  # about 12 expected


def test_simulation_same_seed_any_workers_and_paired_counts():
    runs = [simulate(Deck(4, 5), PUBLISHED, games=120_000, seed=5, workers=w, chunk_games=30_000,
                     progress=False) for w in (1, 2)]
    assert runs[0].score_counts == runs[1].score_counts and runs[0].extra == runs[1].extra
    other = simulate(Deck(4, 5), PHYSICAL, games=120_000, seed=5, workers=1, chunk_games=30_000, progress=False)
    # the same seed deals the same decks to both policies, and each run reports both
    assert other.extra["wins_moves_published"] == runs[0].wins
    assert runs[0].extra["wins_moves_physical"] == other.wins
    assert runs[0].score_counts[0] == 0 and runs[0].score_counts[1] == runs[0].wins


@pytest.mark.slow
def test_published_figure_reproduced_at_full_size():
    # SPEC: 661 wins in 16,000,000 games (0.00413%). scripts/prisoners_published.py records a run.
    r = simulate(Deck(4, 13), PUBLISHED, games=16_000_000, seed=20240413, progress=False)
    low, high = r.ci95
    assert low <= 661 / 16_000_000 <= high
