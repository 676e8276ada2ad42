"""The exact result record: counts over all deck orders, exact fractions, provenance."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import ClassVar

from sim.fractions_text import fraction_text
from sim.deck import Deck
from sim.games import get_game
from sim.variant import Variant
from sim.tables import TableMixin


@dataclass(frozen=True, repr=False)
class ExactResult(TableMixin):
    """Exact score distribution of a game over all ``(S*R)!`` deck orders.

    Attributes
    ----------
    game, deck, variant : what was computed
    method : the exact method that computed it (``"enumerate"``, ``"dp"``, ``"phase"``, ...)
    orders : ``(S*R)!``, the number of deck orders (a Python int)
    score_counts : orders per final score (index = score, in the game's score unit), Python ints
        summing to ``orders``
    wins : orders won: ``score_counts[win_score]`` of the game (One-Handed's ``win=any`` may add
        orders whose row emptied mid-deal)
    provenance : versions, commit, times, states visited...
    """

    kind: ClassVar[str] = "exact"

    game: str
    deck: Deck
    variant: Variant
    method: str
    orders: int
    score_counts: tuple[int, ...]
    wins: int
    provenance: dict = field(default_factory=dict, compare=False)

    def __post_init__(self):
        counts = tuple(int(c) for c in self.score_counts)
        object.__setattr__(self, "score_counts", counts)
        if self.orders != math.factorial(self.deck.size):
            raise ValueError(f"orders must be ({self.deck.size})!, got {self.orders}")
        if sum(counts) != self.orders or min(counts, default=0) < 0:
            raise ValueError("score counts do not add up to the number of deck orders")
        if self.game != self.variant.game:
            raise ValueError(f"game {self.game!r} does not match the variant {self.variant}")
        win_score = get_game(self.game).win_score
        at_win_score = counts[win_score] if win_score < len(counts) else 0
        if not at_win_score <= self.wins <= self.orders:
            raise ValueError(f"wins must lie between the count of score {win_score} and the number of orders")
        if not self.variant.rules.win_mid_game and self.wins != at_win_score:
            raise ValueError(f"a won game ends on score {win_score}: wins must equal that score's count")

    @property
    def p_win(self) -> Fraction:
        return Fraction(self.wins, self.orders)

    @property
    def mean_score(self) -> Fraction:
        return Fraction(sum(score * count for score, count in enumerate(self.score_counts)), self.orders)

    def to_dict(self) -> dict:
        """The ``solitaire exact --json`` object (SPEC section 6); ints stay Python ints."""
        return {
            "game": self.game, "suits": self.deck.suits, "ranks": self.deck.ranks,
            "variant": str(self.variant), "method": self.method, "orders": self.orders,
            "score_counts": list(self.score_counts), "wins": self.wins,
            "p_win": fraction_text(self.p_win), "mean_score": fraction_text(self.mean_score),
        }

    @classmethod
    def from_record(cls, record: dict) -> "ExactResult":
        """Rebuild a result from its stored ``to_dict()`` content (:meth:`sim.store.ResultsStore.load`);
        the checks of ``__post_init__`` run again, so a damaged record is refused."""
        variant = Variant.parse(record["variant"])
        return cls(game=variant.game, deck=Deck(int(record["suits"]), int(record["ranks"])), variant=variant,
                   method=str(record["method"]), orders=int(record["orders"]),
                   score_counts=tuple(int(c) for c in record["score_counts"]), wins=int(record["wins"]),
                   provenance=dict(record.get("provenance", {})))
