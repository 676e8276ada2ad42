"""Hand Solitaire: the reference rules on hand-checked deals, and the kernel against the reference."""
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sim import Deck, UsageError, Variant
from sim.kernels.hand import check_cap, play_iterations, play_runs
from sim.rng import chunk_states, reference_stream
from sim.rules.hand import next_order, play_iteration, play_run, replay

from .strategies import deck_orders, decks, variants

HAND = Variant.make("hand")
NO_STEP7 = Variant.make("hand", step7="off")
NO_RESHUFFLE = Variant.make("hand", reshuffle="off")


def test_hand_checked_iterations():
    small = Deck(2, 2)  # 0=(s0,r0) 1=(s0,r1) 2=(s1,r0) 3=(s1,r1)
    # rank match: 2 on top, 0 fourth from top -> all four discarded, bottom to top
    assert play_iteration([0, 1, 3, 2], small).discards == (0, 1, 3, 2)
    # suit match: 1 on top, 0 fourth -> the two between (2, 3) discarded, bottom to top
    it = play_iteration([0, 2, 3, 1], small, NO_STEP7)
    assert it.discards == (2, 3) and it.leftovers == (0, 1) and not it.won
    assert it.prefix == (3, 2)
    no_step7_no_reshuffle = Variant.make("hand", step7="off", reshuffle="off")
    assert next_order(it, no_step7_no_reshuffle) == (3, 2, 1, 0)  # leftovers from the top down
    # with step 7 the two leftovers are rotated three times: 0 1 -> 1 0 -> 0 1 -> 1 0
    assert play_iteration([0, 2, 3, 1], small).leftovers == (1, 0)


def test_rotation_phase_finds_wrap_around_matches():
    deck = Deck(2, 3)  # suits of 3 ranks: 0,1,2 | 3,4,5
    # Deal 0 4 2 5: no match (5 vs 0: suit 1 vs 0, rank 2 vs 0). Rotating 0 to the top: 0 vs 4 no;
    # rotating 4: 4 vs 2 no; rotating 2: 2 vs 5 same rank -> the four discarded.
    order = [0, 4, 2, 5]
    assert play_iteration(order, deck, NO_STEP7).leftovers == (0, 4, 2, 5)
    with_step7 = play_iteration(order, deck, HAND)
    assert with_step7.won and with_step7.discards == (5, 0, 4, 2)


def test_published_rank_match_does_not_reset_the_rotation_count():
    # The two readings do the same until the published loop stops early (a rank match on a count
    # that was not reset); the rules as written then go on, so they never leave more cards.
    deck = Deck(4, 13)
    found = 0
    rng = np.random.default_rng(5)
    for _ in range(4000):
        order = rng.permutation(52).tolist()
        written = play_iteration(order, deck, HAND)
        published = play_iteration(order, deck, Variant.make("hand", rank_resets="published"))
        assert len(written.leftovers) <= len(published.leftovers)
        found += written != published
    assert found > 0


@given(data=st.data(), deck=decks(max_cards=60), variant=variants("hand"))
def test_kernel_iteration_equals_reference(data, deck, variant):
    orders = [data.draw(deck_orders(deck)) for _ in range(data.draw(st.integers(1, 6)))]
    got = play_iterations(np.array(orders), deck, variant)
    expected = [play_iteration(order, deck, variant) for order in orders]
    assert got == [(e.discards, e.leftovers) for e in expected]
    for order, e in zip(orders, expected):
        assert sorted(e.discards + e.leftovers) == sorted(order)
        assert len(e.discards) % 2 == 0


@given(data=st.data(), deck=decks(max_cards=60), variant=variants("hand"))
def test_checking_again_after_a_rank_match_changes_nothing(data, deck, variant):
    order = data.draw(deck_orders(deck))
    assert play_iteration(order, deck, variant) == play_iteration(order, deck, variant, recheck_after_rank=False)


class StreamShuffle:
    """Plain-Python twin of :func:`sim.rng.shuffle` on a xoshiro stream (Lemire with rejection)."""

    def __init__(self, state, outputs=4096):
        self.outputs = iter(reference_stream(state, outputs))

    def _bounded(self, low32, bound):
        threshold = ((1 << 32) - bound) % bound
        m = low32 * bound
        while (m & 0xFFFFFFFF) < threshold:
            m = (next(self.outputs) >> 32) * bound
        return m >> 32

    def _pair(self, hi, lo):
        x = next(self.outputs)
        draws = []
        for part, bound in ((x >> 32, hi), (x & 0xFFFFFFFF, lo)):
            m = part * bound
            draws.append(self._bounded(part, bound) if (m & 0xFFFFFFFF) < bound else m >> 32)
        return draws

    def __call__(self, a):
        i = len(a) - 1
        while i >= 2:
            j1, j2 = self._pair(i + 1, i)
            a[i], a[j1] = a[j1], a[i]
            a[i - 1], a[j2] = a[j2], a[i - 1]
            i -= 2
        if i == 1:
            j1, _ = self._pair(2, 1)
            a[1], a[j1] = a[j1], a[1]


@given(data=st.data(), deck=decks(max_cards=24), variant=variants("hand"), cap=st.integers(1, 40),
       seed=st.integers(0, 2**32))
def test_kernel_runs_equal_reference_runs(data, deck, variant, cap, seed):
    orders = [data.draw(deck_orders(deck)) for _ in range(data.draw(st.integers(1, 3)))]
    state = chunk_states(seed, 0, 1)[0]
    iterations, cards_left, finals = play_runs(np.array(orders), deck, variant, state=state, cap=cap)
    shuffle = StreamShuffle(state)
    for g, order in enumerate(orders):
        run = play_run(order, deck, variant, cap=cap, shuffle=shuffle)
        assert (run.iterations, run.cards_left, run.won) == (iterations[g], cards_left[g], cards_left[g] == 0)
        assert run.final_order == tuple(finals[g].tolist())
        assert replay(order, run.choices, deck, variant) == run.final_order
        assert run.won or run.iterations == cap


def test_replay_refuses_a_choice_that_is_not_the_leftovers():
    deck = Deck(2, 2)
    with pytest.raises(ValueError):
        replay([0, 2, 3, 1], [(0, 3)], deck)


@pytest.mark.parametrize("cap", [0, -1, 2.5, True, 10**9])
def test_bad_caps_are_refused(cap):
    with pytest.raises(UsageError):
        check_cap(cap)


def test_kernel_refuses_other_games():
    with pytest.raises(UsageError):
        play_iterations(np.zeros((1, 4), dtype=int), Deck(2, 2), Variant.make("one-handed"))
