"""``final=once``: a single check after the last card (the published loop that ends with the deck).

The kernel is compared with the reference for this variant by the general tests of
tests/test_one_handed_rules.py (every order of every deck up to 6 cards, random decks up to 4096
cards, the chunk kernel on its own decks), which run over every variant of the registry.
"""
import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exact import exact_distribution, exact_limit
from exact.one_handed.dp import dp_distribution, dp_distribution_reference
from exact.one_handed.enumerate import enumerate_distribution
from exact.one_handed.finish import play_out_distribution
from exact.one_handed.limits import choose_method
from sim import Deck, Variant, simulate
from sim.errors import UsageError
from sim.kernels.one_handed import play_orders
from sim.rules.one_handed import play, settle

from ..naive import brute_force_one_handed, published_loop_score
from ..strategies import all_variants, deck_orders, decks, shapes

ONCE = [v for v in all_variants("one-handed") if v.rules.final_once]


def test_the_last_card_gets_one_check():
    deck = Deck(3, 2)  # cards 2s+r: the last card 2 = (s1, r0) matches 3 = (s1, r1) by suit, then 0 by rank
    order = [0, 1, 3, 5, 4, 2]
    assert play(order, deck).score == 0
    assert play(order, deck, Variant.make(final="once")).score == 4
    # the same cascade before the last card is followed in full: put a card after it
    longer = Deck(4, 2)
    assert play([0, 1, 3, 5, 4, 2, 6, 7], longer, Variant.make(final="once")).score == \
        play([0, 1, 3, 5, 4, 2, 6, 7], longer).score


@given(data=st.data(), deck=decks(max_cards=60), reverse=st.booleans())
def test_reference_equals_the_published_loop(data, deck, reverse):
    order = data.draw(deck_orders(deck))
    variant = Variant.make(reverse="on" if reverse else "off", final="once")
    assert play(order, deck, variant).score == published_loop_score(order, deck, reverse=reverse)


def test_reference_equals_the_published_loop_on_every_order_of_small_decks():
    for deck in shapes(7):
        for reverse in (False, True):
            variant = Variant.make(reverse="on" if reverse else "off", final="once")
            for order in itertools.permutations(deck.cards()):
                assert play(order, deck, variant).score == published_loop_score(order, deck, reverse=reverse)


@given(data=st.data(), deck=decks(max_cards=60), variant=st.sampled_from(ONCE))
def test_once_leaves_at_least_the_cards_the_rules_as_written_leave(data, deck, variant):
    # Per deck, final=once makes the removals of the rules as written up to the last card's first one.
    order = data.draw(deck_orders(deck))
    cascade = Variant.make(**{**variant.as_dict(), "final": "cascade"})
    once, full = play(order, deck, variant), play(order, deck, cascade)
    assert once.score >= full.score and (once.score - full.score) % 2 == 0
    assert not once.won or full.won


@given(data=st.data(), shape=st.sampled_from([(1, 1), (1, 3), (2, 2), (1, 5), (4, 13), (600, 1), (37, 29)]),
       variant=st.sampled_from(ONCE))
def test_kernel_equals_reference(data, shape, variant):
    # Decks of 1 to 5 cards put the last card's check on the pads; wide decks on long rows.
    deck = Deck(*shape)
    orders = np.array([data.draw(deck_orders(deck)) for _ in range(data.draw(st.integers(1, 9)))])
    scores, won = play_orders(orders, deck, variant)
    expected = [play(order, deck, variant) for order in orders.tolist()]
    assert scores.tolist() == [e.score for e in expected]
    assert won.tolist() == [e.won for e in expected]


def test_the_random_stream_is_shared_with_the_rules_as_written():
    # Same seed, same decks: per deck once >= cascade and wins only where cascade wins, so the summed
    # score and the wins are ordered; the counts differ (the once reading loses some wins).
    deck = Deck(3, 4)
    full = simulate(deck, Variant.make(), games=20_000, seed=7, progress=False)
    once = simulate(deck, Variant.make(final="once"), games=20_000, seed=7, progress=False)
    assert once.wins < full.wins and once.mean_score > full.mean_score


# --- exact -------------------------------------------------------------------------------------

@pytest.mark.parametrize("deck", shapes(7), ids=str)
def test_enumeration_and_dp_equal_brute_force(deck):
    for variant in ONCE:
        brute = brute_force_one_handed(deck, variant)
        for method in ("enumerate", "dp"):
            result = exact_distribution(deck, variant, method=method)
            assert list(result.score_counts) == list(brute.score_counts), (method, variant)
            assert result.wins == brute.wins, (method, variant)
        assert dp_distribution_reference(deck, variant) == (list(brute.score_counts), brute.wins)


@pytest.mark.parametrize("deck", [Deck(2, 4), Deck(4, 2), Deck(3, 3), Deck(2, 5)], ids=str)
def test_enumeration_equals_dp_at_every_split(deck):
    for variant in ONCE[::2]:  # first4=kept (the DP plays first4=reversed as kept)
        expected = enumerate_distribution(deck, variant)
        for k in (0, 2, 4, deck.size):
            assert dp_distribution(deck, variant, finish_cards=k) == expected, (variant, k)


@settings(max_examples=80)
@given(deck=decks(max_cards=20), reverse=st.booleans(), data=st.data())
def test_play_out_equals_the_reference_rules(deck, reverse, data):
    variant = Variant.make(win="any", reverse="on" if reverse else "off", final="once")
    order = data.draw(st.permutations(list(deck.cards())))
    left = data.draw(st.integers(0, min(6, deck.size)))
    dealt, undealt = order[:deck.size - left], order[deck.size - left:]
    scores, emptied = {}, 0
    for rest in itertools.permutations(undealt):
        outcome = play(list(dealt) + list(rest), deck, variant)
        scores[outcome.score] = scores.get(outcome.score, 0) + 1
        # the row emptied by a removal after the dealt part (the play-out's count, win=any)
        row, ever = [], False
        for i, card in enumerate(list(dealt) + list(rest)):
            row.append(card)
            n = settle(row, deck, variant, max_removals=1 if i == deck.size - 1 else None)
            ever |= i >= len(dealt) and n > 0 and not row
        emptied += ever
    row = []
    for i, card in enumerate(dealt):  # (with nothing left, the last card was dealt with its one check)
        row.append(card)
        settle(row, deck, variant, max_removals=1 if i == deck.size - 1 else None)
    got, got_emptied = play_out_distribution(
        [(deck.suit(c), deck.rank(c)) for c in row], [(deck.suit(c), deck.rank(c)) for c in undealt],
        reverse=reverse, track_empty=True, offset=3, final_once=True)
    assert got == [scores.get(s - 3, 0) for s in range(len(got))]
    assert got_emptied == emptied


def test_monte_carlo_interval_covers_exact():
    deck = Deck(2, 5)
    for variant in (Variant.make(final="once"), Variant.make(reverse="on", final="once")):
        exact = exact_distribution(deck, variant)
        sim = simulate(deck, variant, games=200_000, seed=3, progress=False)
        low, high = sim.ci95
        assert low <= float(exact.p_win) <= high


def test_phase_refuses_final_once_and_auto_takes_the_dp():
    variant = Variant.make(final="once")
    with pytest.raises(UsageError, match="phase method cannot count final=once.*dp.*enumerate"):
        exact_distribution(Deck(3, 3), variant, method="phase")
    assert exact_distribution(Deck(3, 3), variant).method == "dp"
    assert choose_method(Deck(3, 3), "auto", Variant.make()) == "phase"
    assert exact_limit(Deck(4, 5), variant) == 18 < exact_limit(Deck(4, 5), Variant.make())
    with pytest.raises(UsageError, match="dp method's limit"):
        exact_distribution(Deck(4, 5), variant)


def test_cli_refusal_is_one_line(cli_run):
    code, out, err = cli_run("exact", "--suits", "3", "--ranks", "3", "--variant", "final=once", "--method", "phase")
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and "final=once" in err


def test_variant_strings_stored_before_final_existed_still_name_the_same_variant():
    assert str(Variant.make()) == "one-handed(win=end,reverse=off,first4=kept)"
    assert Variant.parse("one-handed(win=end,reverse=off,first4=kept)") == Variant.make(final="cascade")
    once = Variant.make(final="once")
    assert str(once) == "one-handed(win=end,reverse=off,first4=kept,final=once)"
    assert Variant.parse(str(once)) == once and once.rules.final_once
    with pytest.raises(UsageError, match="cascade, once"):
        Variant.make(final="twice")
