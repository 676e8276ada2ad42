"""Hypothesis strategies and fixed test data shared by the tests: deck shapes, deck orders, variants."""
import itertools

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


def all_variants(game) -> list:
    """Every variant of ``game``, in the registry's canonical order."""
    spec = GAMES[game]
    return [Variant.make(game, **dict(zip(spec, values))) for values in itertools.product(*spec.values())]


def shapes(max_cards, min_cards=1) -> list:
    """Every deck with ``min_cards <= S*R <= max_cards``."""
    return [Deck(s, r) for s in range(1, max_cards + 1) for r in range(1, max_cards // s + 1)
            if s * r >= min_cards]
