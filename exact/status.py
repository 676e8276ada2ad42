"""The typed statuses of the exact verdicts: one enum per kind of verdict, shared by the engines, the
kernels, the results store and the command line.

A status *is* its stored text (a ``str`` enum: ``BestPlayStatus.WON == "won"``, ``json.dumps`` and
the results store write ``"won"`` as they always have, and :meth:`~_Status.parse` reads it back),
and it has a small integer ``code``, the one a numba kernel returns for it
(:meth:`~_Status.from_code` reads that back).

>>> BestPlayStatus.parse("lost") is BestPlayStatus.LOST, BestPlayStatus.LOST.code
(True, 0)
>>> BestPlayStatus.from_code(1), f"{BestPlayStatus.WON}", str(PoisonStatus.WIN_REACHABLE)
(<BestPlayStatus.WON: 'won'>, 'won', 'win-reachable')
>>> BestPlayStatus.UNDECIDED.shown
'open'
"""
from __future__ import annotations

from enum import Enum


class _Status(str, Enum):
    """A status stored as its text, with the integer ``code`` a kernel returns for it."""

    def __new__(cls, text: str, code: int):
        member = str.__new__(cls, text)
        member._value_ = text
        member.code = code
        return member

    # the text itself, as before (an Enum would print "BestPlayStatus.WON")
    __str__ = str.__str__
    __format__ = str.__format__

    @classmethod
    def parse(cls, text) -> "_Status":
        """The status of a stored text (or a status); ``ValueError`` for any other value."""
        return cls(str(text))

    @classmethod
    def from_code(cls, code: int) -> "_Status":
        """The status of a kernel's integer code; ``ValueError`` for any other code."""
        for member in cls:
            if member.code == int(code):
                return member
        raise ValueError(f"no {cls.__name__} has code {code!r}")


class BestPlayStatus(_Status):
    """Prisoner's Patience best play on one deck order (:mod:`exact.prisoners.solver`)."""

    LOST = ("lost", 0)  #: no line of moves wins (a proof or an exhaustive search)
    WON = ("won", 1)  #: a winning line was found (and replayed)
    UNDECIDED = ("undecided", 2)  #: the search stopped first (a budget or a cap: ``SolveResult.stop``)

    @property
    def shown(self) -> str:
        """How the command line names it, saying what was proved: *proved won*, *proved lost*, *open*."""
        return {"won": "proved won", "lost": "proved lost", "undecided": "open"}[self.value]


class PoisonStatus(_Status):
    """A Hand Solitaire deck order explored to the end of what it can reach (:mod:`exact.hand.poison`)."""

    TRAPPED = ("trapped", 0)  #: no win is reachable: a closed set of classes without one
    WIN_REACHABLE = ("win-reachable", 1)  #: a witness of a win was found
    UNDECIDED = ("undecided", 2)  #: the budget of member plays ran out first
