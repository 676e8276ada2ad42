import math

import pytest

from sim import Deck, UsageError, Variant


def test_card_encoding_round_trips():
    deck = Deck(3, 7)
    for card in deck.cards():
        assert deck.card(deck.suit(card), deck.rank(card)) == card
    assert deck.orders == math.factorial(21) > 2**63


@pytest.mark.parametrize("suits, ranks", [(0, 13), (4, 0), (-1, 3), (1.5, 2), (True, 3), ("4", 13)])
def test_bad_decks_are_refused(suits, ranks):
    with pytest.raises(UsageError):
        Deck(suits, ranks)


def test_variant_canonical_string_round_trips():
    v = Variant.from_options("one-handed", ["reverse=on", "win=any"])
    assert str(v) == "one-handed(win=any,reverse=on,first4=kept)"
    assert Variant.parse(str(v)) == v
    assert Variant.parse("one-handed") == Variant.make("one-handed")
    assert Variant.parse("hand(step7=off)")["step7"] == "off"


@pytest.mark.parametrize("options", [["win"], ["nope=1"], ["win=sometimes"], ["win=any", "win=end"]])
def test_bad_variants_are_refused(options):
    with pytest.raises(UsageError):
        Variant.from_options("one-handed", options)


def test_unknown_game_is_refused():
    with pytest.raises(UsageError):
        Variant.make("klondike")
