"""Card notation: the one parser and the one printer of deck orders as people write them.

The encoding is :mod:`sim.deck`'s (``card = suit * ranks + rank``, 0-based); this module only names
cards. Ranks are numbered as a player counts them, ace = 1 and king = 13 (SPEC §6; in Prisoner's
Patience adjacency follows that order), suits in the order spades, hearts, diamonds, clubs:

=========  ======================================================================
rank       ``A`` (also ``1``), ``2`` ... ``10`` (also ``T``), ``J`` (11), ``Q`` (12), ``K`` (13)
suit       ``S`` or ``♠`` (suit 0), ``H`` or ``♥`` (1), ``D`` or ``♦`` (2), ``C`` or ``♣`` (3)
fantasy    ``r<rank>s<suit>``, both counted from 1: ``r14s5`` is rank 14 of suit 5. Works for every
           deck; it is how cards of decks with more than 13 ranks or 4 suits are printed.
number     a bare integer is the card number itself (``0 .. S*R-1``, ``suit * R + rank``)
=========  ======================================================================

A card is written rank then suit (``10H``, ``qs``, ``A♠``, ``T♦``); case does not matter; cards are
separated by spaces and/or commas. A deck with ``R`` ranks has the ranks ``1 .. R``: in a 4x5 deck
the cards are ``A 2 3 4 5`` of each suit, and ``6S`` is not in it.

Examples
--------
>>> from sim.deck import Deck
>>> deck = Deck(4, 13)
>>> parse_cards("AS 2s,10H  k♣", deck, complete=False)
(0, 1, 22, 51)
>>> format_cards((0, 1, 22, 51), deck)
'AS 2S 10H KC'
>>> format_cards((0, 22), deck, symbols=True)
'A♠ 10♥'
>>> format_cards((0, 69), Deck(5, 14))
'r1s1 r14s5'
"""
from __future__ import annotations

import re

from .deck import Deck
from .errors import UsageError

#: suit letters and symbols, suit 0 first
SUIT_LETTERS = "SHDC"
SUIT_SYMBOLS = "♠♥♦♣"
#: rank names for ranks 1..13 (index = rank number - 1)
RANK_NAMES = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
_RANK_ALIASES = {"A": 1, "T": 10, "J": 11, "Q": 12, "K": 13}
_SUIT_OF = {ch: i for i, ch in enumerate(SUIT_LETTERS)} | {ch: i for i, ch in enumerate(SUIT_SYMBOLS)}
_FANTASY = re.compile(r"^R(\d+)S(\d+)$")
_SEPARATORS = re.compile(r"[\s,]+")
_HINT = "write a rank (A 2 ... 10 J Q K, or T for 10) then a suit (S H D C or ♠ ♥ ♦ ♣), e.g. 10H, or r<rank>s<suit>"


def standard_names(deck: Deck) -> bool:
    """Whether ``deck`` is printed with rank and suit names (at most 13 ranks and 4 suits)."""
    return deck.ranks <= len(RANK_NAMES) and deck.suits <= len(SUIT_LETTERS)


def card_name(card: int, deck: Deck, *, symbols: bool = False) -> str:
    """The name of one card: ``'10H'`` (``'10♥'`` with ``symbols``), or ``'r14s5'`` beyond 13 ranks
    or 4 suits.

    >>> card_name(22, Deck(4, 13)), card_name(22, Deck(4, 13), symbols=True)
    ('10H', '10♥')
    """
    suit, rank = deck.suit(card), deck.rank(card)
    if not standard_names(deck):
        return f"r{rank + 1}s{suit + 1}"
    return RANK_NAMES[rank] + (SUIT_SYMBOLS if symbols else SUIT_LETTERS)[suit]


def format_cards(order, deck: Deck, *, symbols: bool = False, sep: str = " ") -> str:
    """Print cards (a deck order or any sequence of cards) in card notation, ``sep`` between them.

    :func:`parse_cards` reads the result back to the same cards.
    """
    return sep.join(card_name(int(c), deck, symbols=symbols) for c in order)


def _read_token(token: str, deck: Deck) -> tuple[int | None, str | None]:
    """``(card, None)`` or ``(None, reason)`` for one token."""
    if token.isdigit():
        number = int(token)
        if number >= deck.size:
            return None, f"card number {number} is outside the deck {deck} (card numbers 0..{deck.size - 1})"
        return number, None
    upper = token.upper()
    fantasy = _FANTASY.match(upper)
    if fantasy:
        rank, suit = int(fantasy.group(1)), int(fantasy.group(2))
    else:
        if len(upper) < 2 or upper[-1] not in _SUIT_OF:
            return None, f"not a card: {_HINT}"
        suit = _SUIT_OF[upper[-1]] + 1
        rank_text = upper[:-1]
        if rank_text in _RANK_ALIASES:
            rank = _RANK_ALIASES[rank_text]
        elif rank_text.isdigit() and not rank_text.startswith("0"):
            rank = int(rank_text)
        else:
            return None, f"not a card: {_HINT}"
    if rank < 1 or suit < 1:
        return None, "ranks and suits are counted from 1 (r1s1 is the ace of the first suit)"
    if rank > deck.ranks or suit > deck.suits:
        return None, (f"not in the deck {deck} ({deck.suits} suits, ranks 1..{deck.ranks}"
                      + (f": {format_cards([0], deck)} .. {format_cards([deck.size - 1], deck)}" if deck.size > 1 else "")
                      + ")")
    return (suit - 1) * deck.ranks + (rank - 1), None


def parse_cards(text, deck: Deck, *, complete: bool = True, what: str = "order") -> tuple[int, ...]:
    """Read cards written in card notation (or as card numbers); return them as card numbers.

    Parameters
    ----------
    text : str, or a sequence of ints (checked the same way)
    deck : the deck the cards belong to
    complete : True: the cards must be a whole deck order (each card exactly once); False: any
        cards of the deck, each at most once (a prefix, e.g. the cards dealt so far)
    what : how the error messages name the input (``"order"``, ``"--dealt"``...)

    Raises
    ------
    UsageError
        one line naming the bad card and its position (counted from 1): not a card, not in the
        deck, given twice; or the cards missing from a complete order.

    Examples
    --------
    >>> parse_cards("AS 2S 3S AH 2H 3H", Deck(2, 3))
    (0, 1, 2, 3, 4, 5)
    >>> parse_cards("4S", Deck(2, 3))
    Traceback (most recent call last):
    ...
    sim.errors.UsageError: order, card 1 '4S': not in the deck 2x3 (2 suits, ranks 1..3: AS .. 3H)
    """
    if isinstance(text, str):
        tokens = [t for t in _SEPARATORS.split(text.strip()) if t]
    else:
        tokens = [str(int(c)) if not isinstance(c, str) else c for c in text]
    cards: list[int] = []
    seen: dict[int, int] = {}
    for position, token in enumerate(tokens, start=1):
        card, reason = _read_token(token, deck)
        if card is None:
            raise UsageError(f"{what}, card {position} {token!r}: {reason}")
        if card in seen:
            raise UsageError(f"{what}, card {position} {token!r}: {card_name(card, deck)} was already given "
                             f"as card {seen[card]}; each card appears once")
        seen[card] = position
        cards.append(card)
    if complete and len(cards) != deck.size:
        missing = [c for c in range(deck.size) if c not in seen]
        shown = format_cards(missing[:5], deck) + (" ..." if len(missing) > 5 else "")
        raise UsageError(f"{what} has {len(cards)} cards but the deck {deck} has {deck.size}: "
                         f"missing {len(missing)} ({shown}); give every card once")
    return tuple(cards)
