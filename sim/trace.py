"""A game replayed step by step, as a person would follow it: :func:`play` returns a :class:`Trace`.

Each game's trace is built by the reference rules' own steps (:mod:`sim.rules`), each step recorded
as an *event*, a dict of plain values whose cards are card numbers (:mod:`sim.deck`); ``to_dict()``
writes them in card notation (:mod:`sim.cards`). ``tests/test_play.py`` checks every trace against
the reference rules (the score, and the row after every card).

Events
------
One-Handed (``row``: the row after the event, first card dealt first):

* ``{"event": "deal", "card", "row"}``
* ``{"event": "remove", "match": "suit"|"rank", "top", "fourth", "removed", "row"}``: the top card
  and the 4th from the end matched; ``removed`` lists the cards taken away (2 or 4).

Hand Solitaire (``stack``: bottom card first):

* ``{"event": "iteration", "iteration", "order"}``: an iteration starts with this deck order;
* ``{"event": "deal", "card", "stack"}``, ``{"event": "rotate", "card", "stack"}`` (bottom card moved
  to the top, the rotation phase);
* ``{"event": "discard", "match": "rank"|"suit", "top", "fourth", "removed", "stack"}``;
* ``{"event": "end", "iteration", "discards", "leftovers", "won", "next_order"}``: the iteration's
  discards in the order they were appended, the cards left, and the next deck order (absent when
  the run ends).

Prisoner's Patience (``piles``: each pile bottom card first, left pile first):

* ``{"event": "deal", "card", "piles"}``
* ``{"event": "move", "card", "onto", "distance", "moved", "piles"}``: the pile whose top is
  ``card`` goes onto the pile ``distance`` places to its left, whose top is ``onto``; ``moved``
  lists its cards as they now lie, bottom first.

Examples
--------
>>> from sim.deck import Deck
>>> t = play([0, 1, 2, 3], Deck(1, 4))
>>> t.score, t.won, [e["event"] for e in t.steps]
(2, False, ['deal', 'deal', 'deal', 'deal', 'remove'])
>>> print(t.text()[-2])
     4♠ matches A♠ by suit: remove 2♠ 3♠  ->  A♠ 4♠
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field

from .cards import card_name, format_cards, parse_cards
from .checks import positive_int
from .deck import Deck
from .errors import UsageError
from .games import get_game
from .rules import hand as hand_rules
from .rules import one_handed as one_handed_rules
from .rules import prisoners as prisoners_rules
from .variant import Variant

#: event keys that hold one card, and those that hold a list of cards
_CARD_KEYS = ("card", "top", "fourth", "onto")
_LIST_KEYS = ("row", "removed", "stack", "order", "discards", "leftovers", "next_order", "moved")


@dataclass(frozen=True)
class Trace:
    """A game played step by step.

    ``sizes`` is what a figure of the game draws: the row's length (One-Handed), the stack's size
    (Hand Solitaire, all iterations one after the other) or the number of piles (Prisoner's
    Patience) after every event.
    """

    game: str
    deck: Deck
    variant: Variant
    order: tuple[int, ...]
    steps: tuple[dict, ...]
    score: int  #: cards left (One-Handed; Hand Solitaire: at the end of the last iteration) or piles left
    won: bool
    extra: dict = field(default_factory=dict)  #: game-specific facts (iterations, choices, line)

    @property
    def sizes(self) -> list[int]:
        key = get_game(self.game).trace_row
        return [len(e[key]) for e in self.steps if key in e]

    def _cards(self, value, symbols=False):
        if isinstance(value, int):
            return card_name(value, self.deck, symbols=symbols)
        if value and isinstance(value[0], (list, tuple)):
            return [self._cards(v, symbols) for v in value]
        return [card_name(c, self.deck, symbols=symbols) for c in value]

    def to_dict(self) -> dict:
        """SPEC §6 ``play`` keys, cards in card notation."""
        steps = []
        for event in self.steps:
            out = {}
            for key, value in event.items():
                out[key] = self._cards(value) if key in _CARD_KEYS + _LIST_KEYS + ("piles",) else value
            steps.append(out)
        extra = {k: (self._cards(v) if k in ("choices",) else v) for k, v in self.extra.items()}
        return {"game": self.game, "suits": self.deck.suits, "ranks": self.deck.ranks,
                "variant": str(self.variant), "order": format_cards(self.order, self.deck),
                "score": self.score, "won": self.won, "steps": steps, **extra}

    def text(self, *, symbols: bool = True) -> list[str]:
        """The game as lines of text, one per event."""
        name = lambda c: card_name(c, self.deck, symbols=symbols)
        cards = lambda cs: " ".join(map(name, cs)) if cs else "(empty)"
        lines = []
        dealt = 0
        for e in self.steps:
            kind = e["event"]
            if kind == "deal":
                dealt += 1
                where = e.get("row", e.get("stack"))
                shown = cards(where) if where is not None else " ".join("[" + cards(p) + "]" for p in e["piles"])
                lines.append(f"{dealt:3d}. deal {name(e['card'])}: {shown}")
            elif kind in ("remove", "discard"):
                where = e.get("row", e.get("stack"))
                lines.append(f"     {name(e['top'])} matches {name(e['fourth'])} by {e['match']}: "
                             f"remove {cards(e['removed'])}  ->  {cards(where)}")
            elif kind == "rotate":
                lines.append(f"     rotate {name(e['card'])} from the bottom to the top: {cards(e['stack'])}")
            elif kind == "iteration":
                dealt = 0
                lines.append(f"iteration {e['iteration']}: deck {format_cards(e['order'], self.deck, symbols=symbols)}")
            elif kind == "end":
                lines.append(f"end of iteration {e['iteration']}: discards {cards(e['discards'])}; "
                             f"left {cards(e['leftovers'])}" + ("  WON" if e["won"] else ""))
                if "next_order" in e:
                    lines.append(f"     next deck: {format_cards(e['next_order'], self.deck, symbols=symbols)}")
            elif kind == "move":
                lines.append(f"     {name(e['card'])} onto {name(e['onto'])} ({_places(e['distance'])}): "
                             + " ".join("[" + cards(p) + "]" for p in e["piles"]))
        lines.append(f"score {self.score} ({get_game(self.game).score_unit}): " + ("won" if self.won else "lost"))
        return lines


def _check(order, deck: Deck, variant, game: str) -> tuple[Deck, Variant, tuple[int, ...]]:
    variant = Variant.coerce(variant, game)
    return deck, variant, parse_cards(order, deck) if isinstance(order, str) else deck.check_order(order)


# --- One-Handed -----------------------------------------------------------------------------------

def trace_one_handed(order, deck: Deck, variant: Variant) -> Trace:
    reverse = variant.rules.reverse
    row: list[int] = []
    steps: list[dict] = []
    emptied = False
    cards = one_handed_rules.dealing_order(order, variant)
    for i, card in enumerate(cards):
        row.append(card)
        steps.append({"event": "deal", "card": card, "row": tuple(row)})
        # the loop of sim.rules.one_handed.settle, one event per removal (final=once: the last card
        # gets a single check)
        once = variant.rules.final_once and i == len(cards) - 1
        while len(row) >= one_handed_rules.CHECK_DEPTH:
            a, b = row[-1], row[-one_handed_rules.CHECK_DEPTH]
            same_suit = deck.suit(a) == deck.suit(b)
            removal = one_handed_rules.removal(same_suit, deck.rank(a) == deck.rank(b), reverse)
            if removal == one_handed_rules.REMOVE_BETWEEN:
                removed = row[-3:-1]
                del row[-3:-1]
            elif removal == one_handed_rules.REMOVE_FOUR:
                removed = row[-4:]
                del row[-4:]
            else:
                break
            steps.append({"event": "remove", "match": "suit" if same_suit else "rank", "top": a, "fourth": b,
                          "removed": tuple(removed), "row": tuple(row)})
            emptied = emptied or not row
            if once:
                break
    score = len(row)
    won = score == 0 or (variant.rules.win_any and emptied)
    return Trace("one-handed", deck, variant, tuple(order), tuple(steps), score, won)


# --- Hand Solitaire -------------------------------------------------------------------------------

def _hand_settle(stack, steps, deck: Deck) -> tuple[bool, bool]:
    """sim.rules.hand._settle (checking again after a rank match), one event per discard."""
    any_discard = any_suit = False
    while len(stack) >= 4:
        a, b = stack[-1], stack[-4]
        if deck.rank(a) == deck.rank(b):
            removed = stack[-4:]
            del stack[-4:]
            match = "rank"
        elif deck.suit(a) == deck.suit(b):
            removed = stack[-3:-1]
            del stack[-3:-1]
            match = "suit"
            any_suit = True
        else:
            break
        any_discard = True
        steps.append({"event": "discard", "match": match, "top": a, "fourth": b, "removed": tuple(removed),
                      "stack": tuple(stack)})
    return any_discard, any_suit


def _hand_iteration(order, deck: Deck, variant: Variant, steps: list) -> hand_rules.Iteration:
    stack: list[int] = []
    discards_before = len(steps)
    for card in order:
        stack.append(card)
        steps.append({"event": "deal", "card": card, "stack": tuple(stack)})
        _hand_settle(stack, steps, deck)
    if variant.rules.step7:
        rank_resets = variant.rules.rank_resets
        quiet = 0
        while quiet < hand_rules.ROTATIONS_TO_STOP:
            if stack:
                stack.append(stack.pop(0))
                steps.append({"event": "rotate", "card": stack[-1], "stack": tuple(stack)})
            quiet += 1
            any_discard, any_suit = _hand_settle(stack, steps, deck)
            if any_suit or (rank_resets and any_discard):
                quiet = 0
    discards = tuple(c for e in steps[discards_before:] if e["event"] == "discard" for c in e["removed"])
    return hand_rules.Iteration(discards=discards, leftovers=tuple(stack))


def trace_hand(order, deck: Deck, variant: Variant, *, seed=None, choices=None, cap: int = 100) -> Trace:
    cap = positive_int("cap", cap)
    if choices is not None:
        choices = [parse_cards(c, deck, complete=False, what=f"leftover order {i}") if isinstance(c, str)
                   else tuple(int(x) for x in c) for i, c in enumerate(choices, start=1)]
    rng = random.Random(seed)
    steps: list[dict] = []
    current = tuple(order)
    used: list[tuple[int, ...]] = []
    for number in range(1, cap + 1):
        steps.append({"event": "iteration", "iteration": number, "order": current})
        it = _hand_iteration(current, deck, variant, steps)
        end = {"event": "end", "iteration": number, "discards": it.discards, "leftovers": it.leftovers,
               "won": it.won}
        steps.append(end)
        if it.won or number == cap:
            break
        if not variant.rules.reshuffle:
            following = hand_rules.next_order(it, variant)
        elif choices is not None and len(used) < len(choices):
            chosen = choices[len(used)]
            if sorted(chosen) != sorted(it.leftovers):
                raise UsageError(f"leftover order {len(used) + 1} ({format_cards(chosen, deck)}) is not an order of "
                                 f"iteration {number}'s leftovers ({format_cards(it.leftovers, deck)})")
            following = it.prefix + tuple(chosen)
        else:
            following = hand_rules.next_order(it, variant, shuffle=rng.shuffle)
        used.append(following[len(it.discards):])
        end["next_order"] = following
        current = following
    last = steps[-1]
    return Trace("hand", deck, variant, tuple(order), tuple(steps), len(last["leftovers"]), last["won"],
                 extra={"iterations": last["iteration"], "choices": [list(c) for c in used]})


# --- Prisoner's Patience --------------------------------------------------------------------------

def _snapshot(piles) -> tuple:
    return tuple(tuple(p) for p in piles if p)


def _prisoners_settle(piles, steps, deck: Deck, variant: Variant) -> None:
    """sim.rules.prisoners.settle, one event per move."""
    wrap = variant.rules.wrap
    reverse = variant.rules.reverse_piles

    def can_land(source, target):
        return prisoners_rules.playable(piles[source][-1], piles[target][-1], deck, wrap)

    while True:
        piles[:] = [pile for pile in piles if pile]
        if len(piles) == 1:
            return
        moved = False
        for i in range(len(piles) - 1, 0, -1):
            target = prisoners_rules.policy_target(i, can_land)
            if target is None:
                continue
            card, onto, size = piles[i][-1], piles[target][-1], len(piles[i])
            prisoners_rules.move_pile(piles, i, target, reverse)
            steps.append({"event": "move", "card": card, "onto": onto, "distance": i - target,
                          "moved": tuple(piles[target][-size:]), "piles": _snapshot(piles)})
            moved = True
        if not moved:
            return


def parse_line(text, deck: Deck) -> list[tuple[int, int]]:
    """A best-play line written as moves ``CARD>CARD`` (the top card of the moved pile, then the top
    card of the pile it goes onto), separated by spaces or commas, e.g. ``"7C>8D 5S>6H"``."""
    moves = []
    for position, token in enumerate([t for t in text.replace(",", " ").split() if t], start=1):
        source, sep, target = token.partition(">")
        if not sep:
            raise UsageError(f"--line, move {position} {token!r}: write a move as CARD>CARD, e.g. 7C>8D")
        a = parse_cards(source, deck, complete=False, what=f"--line, move {position}")
        b = parse_cards(target, deck, complete=False, what=f"--line, move {position}")
        if len(a) != 1 or len(b) != 1:
            raise UsageError(f"--line, move {position} {token!r}: write a move as CARD>CARD, e.g. 7C>8D")
        moves.append((a[0], b[0]))
    return moves


def trace_prisoners(order, deck: Deck, variant: Variant, *, line=None) -> Trace:
    piles: list[list[int]] = []
    steps: list[dict] = []
    for card in order:
        piles.append([card])
        steps.append({"event": "deal", "card": card, "piles": _snapshot(piles)})
        if line is None:
            _prisoners_settle(piles, steps, deck, variant)
    if line is not None:
        if isinstance(line, str):
            line = parse_line(line, deck)
        wrap, reverse = variant.rules.wrap, variant.rules.reverse_piles
        # a line replays only under the move rule it was solved with (solve's default: physical)
        rule = (f"; this replay uses moves={'published' if reverse else 'physical'}: if the line was solved "
                "under the other rule, give it with --variant moves=")
        for number, (card, onto) in enumerate(line, start=1):
            tops = [p[-1] for p in piles]
            if card not in tops or onto not in tops:
                missing = card if card not in tops else onto
                raise UsageError(f"--line, move {number}: {card_name(missing, deck)} is not the top card of a pile "
                                 f"now (tops: {format_cards(tops, deck)}){rule}")
            source, target = tops.index(card), tops.index(onto)
            if (source, target) not in prisoners_rules.legal_moves(piles, deck, wrap):
                raise UsageError(f"--line, move {number}: {card_name(card, deck)} cannot go onto "
                                 f"{card_name(onto, deck)} (a pile goes 1 or 3 places left onto an adjacent rank)"
                                 f"{rule}")
            size = len(piles[source])
            piles = prisoners_rules.apply_move(piles, source, target, reverse)
            steps.append({"event": "move", "card": card, "onto": onto, "distance": source - target,
                          "moved": tuple(piles[target][-size:]), "piles": _snapshot(piles)})
    extra = {"line": [[card_name(a, deck), card_name(b, deck)] for a, b in line]} if line is not None else {}
    return Trace("prisoners", deck, variant, tuple(order), tuple(steps), len(piles), len(piles) == 1, extra=extra)


def _places(distance: int) -> str:
    return f"{distance} place{'s' if distance > 1 else ''} left"


def describe_line(order, deck: Deck, variant, line, *, symbols: bool = True) -> list[str]:
    """A best-play line of pile positions ``(source, target)`` (as :func:`exact.prisoners.solver.solve`
    returns it, moves after dealing every card) as moves between cards: ``'7♣ onto 8♦ (3 left)'``."""
    variant = Variant.coerce(variant, "prisoners")
    piles = [[c] for c in order]
    out = []
    for source, target in line:
        out.append(f"{card_name(piles[source][-1], deck, symbols=symbols)} onto "
                   f"{card_name(piles[target][-1], deck, symbols=symbols)} ({_places(source - target)})")
        piles = prisoners_rules.apply_move(piles, source, target, variant.rules.reverse_piles)
    return out


def line_tokens(order, deck: Deck, variant, line) -> str:
    """The same line as :func:`describe_line`, written for ``solitaire play --line``: ``7C>8D ...``."""
    variant = Variant.coerce(variant, "prisoners")
    piles = [[c] for c in order]
    out = []
    for source, target in line:
        out.append(f"{card_name(piles[source][-1], deck)}>{card_name(piles[target][-1], deck)}")
        piles = prisoners_rules.apply_move(piles, source, target, variant.rules.reverse_piles)
    return " ".join(out)


# --- the public function --------------------------------------------------------------------------

def play(order, deck: Deck | None = None, variant: Variant | str | None = None, *, game: str | None = None,
         seed: int | None = None, choices=None, cap: int | None = None, line=None) -> Trace:
    """Play one deck order step by step with the reference rules; return its :class:`Trace`.

    Parameters
    ----------
    order : a deck order, as card numbers or as text in card notation (:mod:`sim.cards`)
    deck : default ``Deck(4, 13)``
    variant : a :class:`Variant` or canonical string; default the game's rules as written
    game : ``"one-handed"`` (default), ``"hand"`` or ``"prisoners"``; taken from ``variant`` if given
    seed : Hand Solitaire: seed of the leftover shuffles (``random.Random(seed)``)
    choices : Hand Solitaire: the leftover orders to follow, iteration by iteration (e.g. a witness
        from :func:`exact.hand.poison.explore`); once used up, shuffles from ``seed`` follow
    cap : Hand Solitaire: iterations played at most (default 100)
    line : Prisoner's Patience: moves to make after dealing every card, as ``(card, onto)`` pairs
        or text ``"7C>8D 5S>6H"`` (a best-play line); without it the published policy of
        ``moves=...`` plays

    Examples
    --------
    >>> t = play("AS 2S 2H AH", Deck(2, 2), game="hand")
    >>> t.won, t.extra["iterations"]
    (True, 1)
    """
    deck = deck if deck is not None else Deck()
    if isinstance(variant, str):
        variant = Variant.parse(variant)
    game = game or (variant.game if variant is not None else "one-handed")
    deck, variant, order = _check(order, deck, variant, game)
    record = get_game(game)
    options = record.check_options({"seed": seed, "choices": choices, "cap": cap, "line": line})
    return record.load_trace()(order, deck, variant, **options)
