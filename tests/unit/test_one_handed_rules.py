"""The reference rules on hand-checked deals, and the kernel against the reference."""
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sim import Deck, Variant
from sim.kernels.one_handed import play_orders
from sim.rules.one_handed import play

from ..strategies import deck_orders, decks, variants


def test_hand_checked_deals():
    deck = Deck(4, 13)
    c = deck.card
    small = Deck(2, 2)  # cards: (s0,r0)=0 (s0,r1)=1 (s1,r0)=2 (s1,r1)=3
    # 0,1,3,2: last 2 vs first 0: same rank -> all four removed -> win
    assert play([0, 1, 3, 2], small).score == 0
    # 0,2,3,1: last 1 vs first 0: same suit -> remove 2 and 3 -> row [0,1]
    assert play([0, 2, 3, 1], small).score == 2
    # reverse: same suit removes four, same rank removes the two between
    rev = Variant.make("one-handed", reverse="on")
    assert play([0, 2, 3, 1], small, rev).score == 0
    assert play([0, 1, 3, 2], small, rev).score == 2


def test_win_any_counts_a_mid_deal_empty_row():
    deck = Deck(2, 3)  # suits of 3 ranks: 0,1,2 | 3,4,5
    order = [0, 1, 2, 3, 4, 5]  # 0 vs 3: rank match -> empty after 4 cards; then 4, 5 stay
    assert play(order, deck).score == 2 and not play(order, deck).won
    assert play(order, deck, Variant.make("one-handed", win="any")).won


@given(data=st.data(), deck=decks(max_cards=60), variant=variants("one-handed"))
def test_kernel_equals_reference(data, deck, variant):
    orders = [data.draw(deck_orders(deck)) for _ in range(data.draw(st.integers(1, 9)))]
    scores, won = play_orders(np.array(orders), deck, variant)
    expected = [play(order, deck, variant) for order in orders]
    assert scores.tolist() == [e.score for e in expected]
    assert won.tolist() == [e.won for e in expected]


@given(deck=decks(max_cards=40), variant=variants("one-handed"), seed=st.integers(0, 2**32))
def test_score_has_the_parity_of_the_deck(deck, variant, seed):
    rng = np.random.default_rng(seed)
    orders = np.array([rng.permutation(deck.size) for _ in range(16)])
    scores, _ = play_orders(orders, deck, variant)
    assert (scores % 2 == deck.size % 2).all()


def _all_variants():
    from itertools import product

    from sim import GAMES

    spec = GAMES["one-handed"]
    return [Variant.make("one-handed", **dict(zip(spec, values))) for values in product(*spec.values())]


def test_kernel_equals_reference_on_every_order_of_small_decks():
    # Every deck order of every deck of at most 6 cards, every variant: this reaches the pads and
    # sentinels in every position a row can have (empty rows, rows of 1-3 cards, end of deck).
    from itertools import permutations

    for suits in range(1, 7):
        for ranks in range(1, 7 // suits + 1):
            deck = Deck(suits, ranks)
            if deck.size > 6:
                continue
            orders = np.array(list(permutations(range(deck.size))))
            for variant in _all_variants():
                scores, won = play_orders(orders, deck, variant)
                expected = [play(order, deck, variant) for order in orders.tolist()]
                assert scores.tolist() == [e.score for e in expected], (deck, variant)
                assert won.tolist() == [e.won for e in expected], (deck, variant)


@given(data=st.data(), shape=st.sampled_from([(1, 600), (600, 1), (64, 64), (3, 700), (37, 29)]),
       variant=variants("one-handed"))
def test_kernel_equals_reference_on_large_decks(data, shape, variant):
    # Wide card codes (up to 16 bits), long rows, and many sentinels dealt while other games finish.
    deck = Deck(*shape)
    seed = data.draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    orders = np.array([rng.permutation(deck.size) for _ in range(5)])
    scores, won = play_orders(orders, deck, variant)
    expected = [play(order, deck, variant) for order in orders.tolist()]
    assert scores.tolist() == [e.score for e in expected]
    assert won.tolist() == [e.won for e in expected]


def _shuffled_orders(state, n, games, first4_reversed):
    """The deck orders the chunk kernel plays from ``state``, rebuilt with the same shuffle calls:
    four decks shuffled together per group of four games, each shuffle starting from the previous
    group's (dealt) order."""
    from sim import rng
    from sim._jit import jit

    @jit
    def groups(state, n, n_groups, first4_reversed):
        s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
        decks = np.empty((4, n), dtype=np.int64)
        for lane in range(4):
            decks[lane] = np.arange(n)
        out = np.empty((n_groups, 4, n), dtype=np.int64)
        for g in range(n_groups):
            s0, s1, s2, s3 = rng.shuffle_short4(decks[0], decks[1], decks[2], decks[3], s0, s1, s2, s3)
            out[g] = decks
            if first4_reversed:
                for lane in range(4):
                    decks[lane, :min(4, n)] = decks[lane, :min(4, n)][::-1].copy()
        return out

    return groups(state, n, -(-games // 4), first4_reversed).reshape(-1, n)[:games]


@pytest.mark.parametrize("shape", [(2, 3), (4, 5), (1, 7), (3, 1), (2, 2)])
def test_chunk_kernel_counts_equal_the_reference_on_its_own_decks(shape):
    # The whole Monte Carlo path (shuffle, first-four reversal, play, score and win counting) against
    # the reference rules on the very decks the kernel dealt, for every variant; 103 games leave a
    # partial last group of four.
    from sim.kernels.one_handed import chunk_runner
    from sim.rng import chunk_states

    deck = Deck(*shape)
    games = 103
    for variant in _all_variants():
        state = chunk_states(31, 4, 1)[0]
        counts = chunk_runner(deck, variant)(state, games)
        orders = _shuffled_orders(state, deck.size, games, variant.rules.first4_reversed)
        outcomes = [play(order, deck, variant) for order in orders.tolist()]
        expected = np.bincount([o.score for o in outcomes], minlength=deck.size + 1)
        assert counts["score_counts"].tolist() == expected.tolist(), variant
        assert counts["wins"] == sum(o.won for o in outcomes), variant
