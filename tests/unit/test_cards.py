"""Card notation (sim.cards): the parser and the printer agree, and every mistake gets one line."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.cards import card_name, format_cards, parse_cards
from sim.deck import Deck
from sim.errors import UsageError

from ..strategies import deck_orders, decks

STANDARD = Deck(4, 13)


@settings(max_examples=150, deadline=None)
@given(data=st.data(), deck=decks(max_cards=80, max_suits=7, max_ranks=16), symbols=st.booleans(),
       sep=st.sampled_from([" ", ",", ", ", "  ,\t"]))
def test_round_trip(data, deck, symbols, sep):
    order = data.draw(deck_orders(deck))
    text = format_cards(order, deck, symbols=symbols, sep=sep)
    assert parse_cards(text, deck) == tuple(order)
    assert parse_cards(text.lower(), deck) == tuple(order)
    # card numbers keep working, as text and as a sequence
    assert parse_cards(",".join(map(str, order)), deck) == tuple(order)
    assert parse_cards(list(order), deck) == tuple(order)


@settings(max_examples=60, deadline=None)
@given(deck=decks(max_cards=80, max_suits=7, max_ranks=16), data=st.data())
def test_fantasy_notation_always_works(deck, data):
    card = data.draw(st.integers(0, deck.size - 1))
    text = f"r{deck.rank(card) + 1}s{deck.suit(card) + 1}"
    assert parse_cards(text, deck, complete=False) == (card,)


def test_standard_names():
    assert format_cards(range(13), STANDARD) == "AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS"
    assert format_cards([13, 26, 39], STANDARD, symbols=True) == "A♥ A♦ A♣"
    assert parse_cards("1s ts jD qc Kh", STANDARD, complete=False) == (0, 9, 36, 50, 25)
    assert parse_cards("A♠,10♥ ♦2".replace("♦2", "2♦"), STANDARD, complete=False) == (0, 22, 27)
    assert card_name(69, Deck(5, 14)) == "r14s5"
    assert format_cards([0, 4], Deck(1, 5)) == "AS 5S"


@pytest.mark.parametrize("text, deck, message", [
    ("AS 2S XS", Deck(1, 3), "order, card 3 'XS': not a card"),
    ("AS 4S", Deck(1, 3), "order, card 2 '4S': not in the deck 1x3"),
    ("AS AH", Deck(1, 3), "order, card 2 'AH': not in the deck 1x3 (1 suits"),
    ("AS 2S as", Deck(1, 3), "order, card 3 'as': AS was already given as card 1"),
    ("0 1 0", Deck(1, 3), "order, card 3 '0': AS was already given as card 1"),
    ("0 1 7", Deck(1, 3), "order, card 3 '7': card number 7 is outside the deck 1x3"),
    ("AS 3S", Deck(1, 3), "order has 2 cards but the deck 1x3 has 3: missing 1 (2S)"),
    ("r0s1", Deck(1, 3), "ranks and suits are counted from 1"),
    ("05S", Deck(1, 13), "not a card"),
    ("S", Deck(1, 13), "not a card"),
    ("", Deck(1, 2), "order has 0 cards"),
])
def test_errors_are_one_line_naming_card_and_position(text, deck, message):
    with pytest.raises(UsageError) as info:
        parse_cards(text, deck)
    assert message in str(info.value)
    assert "\n" not in str(info.value)


def test_partial_orders_and_custom_name():
    assert parse_cards("", STANDARD, complete=False) == ()
    with pytest.raises(UsageError, match=r"^--dealt, card 2 'AS'"):
        parse_cards("AS AS", STANDARD, complete=False, what="--dealt")
