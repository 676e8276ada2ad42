"""Games and their rule variants as data, with one canonical name each.

A :class:`Variant` is a game plus a value for every rule parameter of that game, and prints as a
canonical string such as ``one-handed(win=end,reverse=off,first4=kept)``; that string travels with
every result. Parameters are given as ``KEY=VALUE`` (``--variant win=any`` on the command line) and
every parameter left out takes its default, the rules as written in SPEC.md.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from types import MappingProxyType

from .errors import UsageError

#: For each game, its rule parameters in canonical order: name -> (default, *other values).
GAMES = MappingProxyType({
    "one-handed": MappingProxyType({
        # end: won when the row is empty after the last card; any: also when it empties mid-deal.
        "win": ("end", "any"),
        # on: same suit removes all four, same rank removes the two between.
        "reverse": ("off", "on"),
        # reversed: the first four cards are held in the opposite orientation (some published code).
        "first4": ("kept", "reversed"),
    }),
    "hand": MappingProxyType({
        "step7": ("on", "off"),
        "rank_resets": ("written", "published"),
        "reshuffle": ("on", "off"),
    }),
    "prisoners": MappingProxyType({
        "moves": ("published", "physical"),
        "wrap": ("on", "off"),
    }),
})

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
    """

    game: str
    params: tuple[tuple[str, str], ...]

    @classmethod
    def make(cls, game: str = "one-handed", **values: str) -> "Variant":
        if game not in GAMES:
            raise UsageError(f"unknown game {game!r}: choose one of {', '.join(GAMES)}")
        spec = GAMES[game]
        for key, value in values.items():
            if key not in spec:
                raise UsageError(
                    f"unknown variant key {key!r} for {game}: valid keys are {', '.join(spec)}")
            if value not in spec[key]:
                raise UsageError(
                    f"invalid value {value!r} for variant key {key!r}: choose one of {', '.join(spec[key])}")
        params = tuple((key, values.get(key, choices[0])) for key, choices in spec.items())
        return cls(game, params)

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
        return f"{self.game}(" + ",".join(f"{k}={v}" for k, v in self.params) + ")"
