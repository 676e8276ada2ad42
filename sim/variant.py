"""Games and their rule variants as data, with one canonical name each.

A :class:`Variant` is a game plus a value for every rule parameter of that game, and prints as a
canonical string such as ``one-handed(win=end,reverse=off,first4=kept)``; that string travels with
every result. Parameters are given as ``KEY=VALUE`` (``--variant win=any`` on the command line) and
every parameter left out takes its default, the rules as written in docs/rules.md.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property

from .errors import UsageError
from .games import GAMES, get_game

__all__ = ["GAMES", "Variant"]

_CANONICAL = re.compile(r"^\s*([a-z-]+)\s*(?:\((.*)\))?\s*$")


@dataclass(frozen=True)
class Variant:
    """A game and a value for each of its rule parameters.

    Examples
    --------
    >>> v = Variant.make("one-handed", win="any")
    >>> str(v)
    'one-handed(win=any,reverse=off,first4=kept)'
    >>> Variant.parse(str(v)) == v, v["win"]
    (True, 'any')
    >>> v.rules.win_any, v.rules.reverse
    (True, False)
    """

    game: str
    params: tuple[tuple[str, str], ...]

    @classmethod
    def make(cls, game: str = "one-handed", **values: str) -> "Variant":
        record = get_game(game)
        for key, value in values.items():
            param = record.param(key)
            if value not in param.values:
                raise UsageError(
                    f"invalid value {value!r} for variant key {key!r}: choose one of {', '.join(param.values)}")
        params = tuple((param.name, values.get(param.name, param.default)) for param in record.params)
        return cls(game, params)

    @classmethod
    def coerce(cls, variant: "Variant | str | None", game: str) -> "Variant":
        """``variant`` as a :class:`Variant` of ``game``: None is the rules as written, a string is a
        canonical variant string; a variant of another game is refused with one line.

        >>> Variant.coerce(None, "hand") == Variant.make("hand")
        True
        """
        if variant is None:
            return cls.make(game)
        if isinstance(variant, str):
            variant = cls.parse(variant)
        if not isinstance(variant, Variant):
            raise UsageError(f"a variant must be a Variant or a canonical string such as {game}(), "
                             f"got {variant!r}")
        if variant.game != game:
            raise UsageError(f"this needs a {game} variant, not {variant}")
        return variant

    @cached_property
    def rules(self):
        """The parameters decoded once into the game's typed view (e.g.
        :class:`sim.games.OneHandedRules`): what engines read instead of comparing strings."""
        return get_game(self.game).decode(dict(self.params))

    @classmethod
    def from_options(cls, game: str, options=()) -> "Variant":
        """Build from ``KEY=VALUE`` strings (the CLI's repeatable ``--variant``)."""
        values: dict[str, str] = {}
        for option in options:
            key, sep, value = option.partition("=")
            key, value = key.strip(), value.strip()
            if not sep or not key or not value:
                raise UsageError(f"variant {option!r} is not of the form KEY=VALUE (e.g. win=any)")
            if key in values and values[key] != value:
                raise UsageError(f"variant key {key!r} given twice with different values")
            values[key] = value
        return cls.make(game, **values)

    @classmethod
    def parse(cls, text: str) -> "Variant":
        """Parse a canonical string such as ``one-handed(win=any)`` (missing keys take defaults)."""
        match = _CANONICAL.match(text)
        if not match:
            raise UsageError(f"cannot read variant {text!r}: expected e.g. one-handed(win=any,reverse=off)")
        inner = match.group(2) or ""
        options = [part for part in inner.split(",") if part.strip()]
        return cls.from_options(match.group(1), options)

    def __getitem__(self, key: str) -> str:
        for name, value in self.params:
            if name == key:
                return value
        raise KeyError(key)

    def as_dict(self) -> dict[str, str]:
        return dict(self.params)

    def __str__(self) -> str:
        """The canonical string: every parameter, except an ``implicit`` one at its default
        (:class:`sim.games.Param`), so strings stored before such a parameter existed stay valid.

        >>> str(Variant.make("one-handed", final="once"))
        'one-handed(win=end,reverse=off,first4=kept,final=once)'
        """
        record = get_game(self.game)
        shown = [(k, v) for k, v in self.params
                 if not (record.param(k).implicit and v == record.param(k).default)]
        return f"{self.game}(" + ",".join(f"{k}={v}" for k, v in shown) + ")"
