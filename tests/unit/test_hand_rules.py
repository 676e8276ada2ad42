"""Hand Solitaire: the reference rules on hand-checked deals, and the kernel against the reference."""
import numba
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sim import Deck, UsageError, Variant
from sim.kernels.hand import (
    LANES,
    _shuffle_rows,
    check_cap,
    chunk_runner,
    lane_states,
    play_iterations,
    play_runs,
    run_decks,
)
from sim.rng import chunk_states, reference_stream, shuffle_short
from sim.rules.hand import next_order, play_iteration, play_run, replay

from ..strategies import deck_orders, decks, variants

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
    """Plain-Python twin of :func:`sim.rng.shuffle_short` on a xoshiro stream: Fisher-Yates from the
    last position down, four 16-bit draws per output (low bits first), Lemire with rejection (a
    rejected draw is replaced by the top 16 bits of a fresh output)."""

    def __init__(self, state, outputs=4096):
        self.outputs = iter(reference_stream(state, outputs))

    def _bounded16(self, bits, bound):
        m = bits * bound
        if (m & 0xFFFF) < bound:
            threshold = (0x10000 - bound) % bound
            while (m & 0xFFFF) < threshold:
                m = (next(self.outputs) >> 48) * bound
        return m >> 16

    def __call__(self, a):
        x, used = 0, 4
        for i in range(len(a) - 1, 0, -1):
            if used == 4:
                x, used = next(self.outputs), 0
            j = self._bounded16((x >> (16 * used)) & 0xFFFF, i + 1)
            used += 1
            a[i], a[j] = a[j], a[i]


@numba.njit
def _library_shuffled_rows(state, rows):
    s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    for g in range(rows.shape[0]):
        s0, s1, s2, s3 = shuffle_short(rows[g], s0, s1, s2, s3)
    return rows


@pytest.mark.parametrize("into", [False, True])
@pytest.mark.parametrize("n", [1, 2, 5, 37])
def test_stream_shuffle_twin_equals_the_kernel_shuffle(into, n):
    # the kernel shuffles positions of its buffer exactly as sim.rng.shuffle_short shuffles an array,
    # in place or (into=True, how it builds the next order) written elsewhere in one pass
    state = chunk_states(4, 0, 1)[0]
    rows = np.tile(np.arange(n, dtype=np.uint64), (50, 1)) + 100 * np.arange(50, dtype=np.uint64)[:, None]
    kernel = _shuffle_rows(state, rows, into)
    assert kernel.tolist() == _library_shuffled_rows(state, rows.copy()).tolist()
    twin = StreamShuffle(state)
    for g, row in enumerate(kernel):
        expected = list(range(100 * g, 100 * g + n))
        twin(expected)
        assert row.tolist() == expected


@given(data=st.data(), deck=decks(max_cards=24), variant=variants("hand"), cap=st.integers(1, 40),
       seed=st.integers(0, 2**32))
def test_kernel_runs_equal_reference_runs(data, deck, variant, cap, seed):
    # row g is played on lane g % LANES, whose leftover shuffles come from that lane's stream
    orders = [data.draw(deck_orders(deck)) for _ in range(data.draw(st.integers(1, 2 * LANES + 1)))]
    state = chunk_states(seed, 0, 1)[0]
    iterations, cards_left, finals = play_runs(np.array(orders), deck, variant, state=state, cap=cap)
    shuffles = [StreamShuffle(lane_state) for lane_state in lane_states(state)]
    for g, order in enumerate(orders):
        run = play_run(order, deck, variant, cap=cap, shuffle=shuffles[g % LANES])
        assert (run.iterations, run.cards_left, run.won) == (iterations[g], cards_left[g], cards_left[g] == 0)
        assert run.final_order == tuple(finals[g].tolist())
        assert replay(order, run.choices, deck, variant) == run.final_order
        assert run.won or run.iterations == cap


def reference_lanes(state, games, deck, variant, cap):
    """The runs of a Monte Carlo chunk played with the reference rules: lane l plays runs l, l + 4, ...
    from its own stream, each start deck the previous run's final order shuffled (the first one the
    sorted deck shuffled). Returns the runs in run order."""
    runs = [None] * games
    # outputs a lane can use: a start shuffle and at most cap - 1 leftover shuffles per run, with room
    # for rejections (rare)
    outputs = (games // LANES + 1) * (cap + 1) * (deck.size // 4 + 2) + 100
    for lane, lane_state in enumerate(lane_states(state)):
        shuffle = StreamShuffle(lane_state, outputs=outputs)
        order = list(deck.cards())
        for g in range(lane, games, LANES):
            shuffle(order)
            start = tuple(order)
            run = play_run(start, deck, variant, cap=cap, shuffle=shuffle)
            runs[g] = (start, run)
            order = list(run.final_order)
    return runs


@given(deck=decks(max_cards=20), variant=variants("hand"), cap=st.integers(1, 30), seed=st.integers(0, 2**32),
       games=st.integers(1, 3 * LANES + 2))
def test_monte_carlo_chunks_equal_reference_runs(deck, variant, cap, seed, games):
    state = chunk_states(seed, 3, 1)[0]
    runs = reference_lanes(state, games, deck, variant, cap)
    starts, finals, iterations, cards_left = run_decks(state, games, deck, variant, cap=cap)
    for g, (start, run) in enumerate(runs):
        assert tuple(starts[g].tolist()) == start and tuple(finals[g].tolist()) == run.final_order
        assert (iterations[g], cards_left[g]) == (run.iterations, run.cards_left)
    counts = chunk_runner(deck, variant, cap=cap)(state, games)
    expected_scores = np.bincount([run.cards_left for _, run in runs], minlength=deck.size + 1)
    expected_wins = np.bincount([run.iterations for _, run in runs if run.won], minlength=cap + 1)
    assert counts["score_counts"].tolist() == expected_scores.tolist()
    assert counts["iterations_to_win"].tolist() == expected_wins.tolist()
    assert counts["wins"] == sum(run.won for _, run in runs) and counts["capped"] == games - counts["wins"]


def test_monte_carlo_chunk_of_the_standard_deck_equals_reference_runs():
    # long runs on 52 cards (cap 60: about a third of the runs reach it), every lane busy
    deck, variant = Deck(4, 13), Variant.make("hand", rank_resets="published")
    state = chunk_states(11, 0, 1)[0]
    runs = reference_lanes(state, 12, deck, variant, 60)
    starts, finals, iterations, cards_left = run_decks(state, 12, deck, variant, cap=60)
    assert [tuple(s) for s in starts.tolist()] == [start for start, _ in runs]
    assert [(it, k) for it, k in zip(iterations.tolist(), cards_left.tolist())] == \
        [(run.iterations, run.cards_left) for _, run in runs]
    assert [tuple(f) for f in finals.tolist()] == [run.final_order for _, run in runs]


@pytest.mark.parametrize("deck,step7,cap", [(Deck(2, 5), "on", 1000), (Deck(2, 7), "on", 997), (Deck(3, 6), "on", 500),
                                             (Deck(4, 4), "off", 333), (Deck(2, 13), "on", 61), (Deck(1, 9), "on", 64)])
def test_reshuffle_off_runs_skip_whole_cycles_and_end_as_played_out(deck, step7, cap):
    # Without the reshuffle a run is deterministic: once an order repeats, the kernel skips whole
    # cycles up to the cap; it must end on the order and cards left that playing every iteration
    # gives (caps of different residues modulo the cycle lengths).
    variant = Variant.make("hand", reshuffle="off", step7=step7)
    rng = np.random.default_rng(cap + deck.size)
    orders = [rng.permutation(deck.size).tolist() for _ in range(2 * LANES + 3)]
    iterations, cards_left, finals = play_runs(np.array(orders), deck, variant, state=chunk_states(1, 0, 1)[0],
                                               cap=cap)
    capped = 0
    for g, order in enumerate(orders):
        run = play_run(order, deck, variant, cap=cap)
        assert (run.iterations, run.cards_left) == (iterations[g], cards_left[g])
        assert run.final_order == tuple(finals[g].tolist())
        capped += not run.won
    assert capped > 0  # runs that cycle are what the skipping is for


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
