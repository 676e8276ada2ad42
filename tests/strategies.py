"""Hypothesis strategies shared by the tests: deck shapes, deck orders, variants."""
from hypothesis import strategies as st

from sim import GAMES, Deck, Variant


@st.composite
def decks(draw, max_cards=60, max_suits=8, max_ranks=16):
    suits = draw(st.integers(1, max_suits))
    ranks = draw(st.integers(1, min(max_ranks, max_cards // suits)))
    return Deck(suits, ranks)


@st.composite
def deck_orders(draw, deck):
    """A permutation of the deck (shrinks toward sorted order, so failures are readable)."""
    return draw(st.permutations(list(deck.cards())))


def variants(game):
    spec = GAMES[game]
    return st.fixed_dictionaries({key: st.sampled_from(values) for key, values in spec.items()}).map(
        lambda values: Variant.make(game, **values))
