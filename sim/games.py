"""The game registry: one :class:`Game` record per game, registered once, read everywhere.

A game's facts live in its record and nowhere else: its rule parameters (names, values, the
default first), the typed view that decodes a variant's parameters once (so no engine compares
``variant["..."]`` strings), the module of its plain reference rules, its Monte Carlo chunk runner
and engine version, what its score counts and which score wins, and where its exact engines are.
Dispatch everywhere (the Monte Carlo engine, ``exact``, ``sweep``, ``validate``, the CLI) reads the
record, so adding a game is one :func:`register_game` call plus its rules, kernel and tests (see
"Adding a game" in the README).

Engines are named by ``"module:attribute"`` strings and imported when first used: :mod:`sim` never
imports :mod:`exact` (the exact engines are resolved by :mod:`exact` itself, :func:`exact.engine`).

Examples
--------
>>> game = get_game("one-handed")
>>> game.defaults()
{'win': 'end', 'reverse': 'off', 'first4': 'kept', 'final': 'cascade'}
>>> game.decode({"win": "any", "reverse": "off", "first4": "kept", "final": "cascade"})
OneHandedRules(win_any=True, reverse=False, first4_reversed=False, final_once=False)
>>> get_game("prisoners").win_score, get_game("prisoners").score_unit
(1, 'piles left')
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from types import MappingProxyType
from collections.abc import Mapping
from typing import Callable

from .errors import UsageError


@dataclass(frozen=True)
class Param:
    """One rule parameter: its name, its values (the default, the rules as written, first) and what
    each value means."""

    name: str
    values: tuple[str, ...]
    help: str
    #: left out of the canonical variant string while at its default: set for a parameter added after
    #: results were stored, so that their variant strings (and the run identities hashed from them)
    #: stay what they were and stored runs are still found and resumed
    implicit: bool = False

    @property
    def default(self) -> str:
        return self.values[0]


@dataclass(frozen=True)
class OneHandedRules:
    """One-Handed Solitaire's parameters, decoded (see :mod:`sim.rules.one_handed`)."""

    win_any: bool = False  #: win=any: also won if the row is ever empty after a removal
    reverse: bool = False  #: reverse=on: same suit removes four, same rank the two between
    first4_reversed: bool = False  #: first4=reversed: the first four cards held the other way round
    final_once: bool = False  #: final=once: a single check after the last card, no cascade

    @property
    def win_mid_game(self) -> bool:
        """Whether a game can be won without ending on the win score (``win=any``)."""
        return self.win_any

    @classmethod
    def decode(cls, values: Mapping[str, str]) -> "OneHandedRules":
        return cls(win_any=values["win"] == "any", reverse=values["reverse"] == "on",
                   first4_reversed=values["first4"] == "reversed", final_once=values["final"] == "once")


@dataclass(frozen=True)
class HandRules:
    """Hand Solitaire's parameters, decoded (see :mod:`sim.rules.hand`)."""

    step7: bool = True  #: the rotation phase is played
    rank_resets: bool = True  #: rank_resets=written: a rank match in the rotation phase resets the count
    reshuffle: bool = True  #: the leftovers are shuffled before the next iteration

    win_mid_game = False  #: a game is won exactly when it ends on the win score

    @classmethod
    def decode(cls, values: Mapping[str, str]) -> "HandRules":
        return cls(step7=values["step7"] == "on", rank_resets=values["rank_resets"] == "written",
                   reshuffle=values["reshuffle"] == "on")


@dataclass(frozen=True)
class PrisonersRules:
    """Prisoner's Patience's parameters, decoded (see :mod:`sim.rules.prisoners`)."""

    reverse_piles: bool = True  #: moves=published: a pile is moved card by card, so it is reversed
    wrap: bool = True  #: ace and king (1 and R) are adjacent

    win_mid_game = False  #: a game is won exactly when it ends on the win score

    @classmethod
    def decode(cls, values: Mapping[str, str]) -> "PrisonersRules":
        return cls(reverse_piles=values["moves"] == "published", wrap=values["wrap"] == "on")


@dataclass(frozen=True)
class Game:
    """Everything the toolkit knows about one game.

    Attributes
    ----------
    name : the game's name on the command line and in canonical variant strings
    title : its name in prose
    params : its rule parameters, in canonical order
    rules_type : the typed view of a variant's parameters (``decode(values) -> view``; the view's
        ``win_mid_game`` says whether a game can be won without ending on ``win_score``)
    reference : the module of its plain, obviously correct reference rules
    runner : ``"module:factory"``; ``factory(deck, variant, **options)`` returns a Monte Carlo chunk
        runner ``run(state, games) -> counts`` (see :mod:`sim.montecarlo`)
    engine_version : part of a simulated run's identity; bump it whenever the kernel's counts for a
        given seed and chunk plan change (a rule fix, another way of drawing the shuffle), never for
        changes that keep every count (speed, refactoring). Records made before the field existed
        are version 1.
    win_score : the score of a won game
    score_unit : what the score counts
    exact : ``"module:function"`` of its exact score distribution
        ``f(deck, variant, *, method, progress) -> ExactResult``, resolved by :mod:`exact`; None when it has none
    exact_limit : ``"module:function"`` ``f(deck, variant) -> int``, the most cards the exact engine
        takes for that deck's shape
    exact_methods : the exact engine's methods (``auto`` first)
    no_exact : with ``exact=None``, the one-line advice given instead
    """

    name: str
    title: str
    params: tuple[Param, ...]
    rules_type: type
    reference: str
    runner: str
    engine_version: int
    win_score: int
    score_unit: str
    exact: str | None = None
    exact_limit: str | None = None
    exact_methods: tuple[str, ...] = ()
    no_exact: str = ""

    def param(self, name: str) -> Param:
        for param in self.params:
            if param.name == name:
                return param
        raise UsageError(f"unknown variant key {name!r} for {self.name}: valid keys are "
                         f"{', '.join(p.name for p in self.params)}")

    def defaults(self) -> dict[str, str]:
        return {param.name: param.default for param in self.params}

    def decode(self, values: Mapping[str, str]):
        """The typed view of a full set of parameter values."""
        return self.rules_type.decode(values)

    def load_runner(self) -> Callable:
        """The chunk runner factory (imported on first use)."""
        return resolve(self.runner)


def resolve(target: str):
    """The attribute named by ``"module:attribute"``."""
    module_name, _, attribute = target.partition(":")
    return getattr(importlib.import_module(module_name), attribute)


_REGISTRY: dict[str, Game] = {}
#: name -> Game, read-only, in registration order.
REGISTRY: Mapping[str, Game] = MappingProxyType(_REGISTRY)


def register_game(game: Game) -> Game:
    """Add ``game`` to the registry (once: a second game of the same name is a bug)."""
    if game.name in _REGISTRY:
        raise ValueError(f"game {game.name!r} is registered already")
    names = [param.name for param in game.params]
    if len(set(names)) != len(names) or any(len(param.values) < 1 for param in game.params):
        raise ValueError(f"game {game.name!r}: parameter names must be unique and have values")
    game.rules_type.decode(game.defaults())  # the view decodes its own defaults
    _REGISTRY[game.name] = game
    return game


def get_game(name: str) -> Game:
    """The registered game called ``name``, or a one-line error listing the games."""
    try:
        return _REGISTRY[name]
    except KeyError:
        raise UsageError(f"unknown game {name!r}: choose one of {', '.join(_REGISTRY)}") from None


register_game(Game(
    name="one-handed", title="One-Handed Solitaire",
    params=(
        Param("win", ("end", "any"),
              "end: won when the row is empty after the last card; any: also when it empties mid-deal"),
        Param("reverse", ("off", "on"), "on: same suit removes all four, same rank the two between"),
        Param("first4", ("kept", "reversed"),
              "reversed: the first four cards are held in the opposite orientation (some published code)"),
        Param("final", ("cascade", "once"),
              "cascade: after the last card, check again until nothing matches; once: a single check after "
              "the last card (a published simulator's loop ends when the deck is empty)", implicit=True),
    ),
    rules_type=OneHandedRules, reference="sim.rules.one_handed",
    runner="sim.kernels.one_handed:chunk_runner", engine_version=1,
    win_score=0, score_unit="cards left",
    exact="exact.one_handed:exact_distribution", exact_limit="exact.one_handed.limits:variant_limit",
    exact_methods=("auto", "enumerate", "dp", "phase", "zeta"),
))

register_game(Game(
    name="hand", title="Hand Solitaire",
    params=(
        Param("step7", ("on", "off"), "off: no rotation phase after the deal"),
        Param("rank_resets", ("written", "published"),
              "published: a rank match in the rotation phase does not reset the count of 3 (published code)"),
        Param("reshuffle", ("on", "off"), "off: the leftovers follow the discards unshuffled"),
    ),
    rules_type=HandRules, reference="sim.rules.hand",
    # engine 2: four lanes, each drawing from its own stream (sim.kernels.hand.lane_states)
    runner="sim.kernels.hand:chunk_runner", engine_version=2,
    win_score=0, score_unit="cards left",
    no_exact="Hand Solitaire has no exact score distribution (a run reshuffles until it wins or reaches "
             "the iteration cap); its exact small-deck results come from `solitaire poison --all` (the "
             "whole deck-order graph)",
))

register_game(Game(
    name="prisoners", title="Prisoner's Patience",
    params=(
        Param("moves", ("published", "physical"),
              "published: piles moved card by card (reversed), as the published simulator; physical: "
              "a pile moves as a unit"),
        Param("wrap", ("on", "off"), "on: ace and king are adjacent"),
    ),
    rules_type=PrisonersRules, reference="sim.rules.prisoners",
    runner="sim.kernels.prisoners:chunk_runner", engine_version=1,
    win_score=1, score_unit="piles left",
    exact="exact.prisoners.distribution:exact_distribution",
    exact_limit="exact.prisoners.distribution:variant_limit",
    exact_methods=("auto", "enumerate", "dp"),
))



class _ParamTable(Mapping):
    """game name -> ``{parameter: (default, *other values)}``, read live from the registry."""

    def __getitem__(self, name):
        return MappingProxyType({param.name: param.values for param in _REGISTRY[name].params})

    def __iter__(self):
        return iter(_REGISTRY)

    def __len__(self):
        return len(_REGISTRY)


#: For each game, its rule parameters in canonical order: name -> ``(default, *other values)``.
GAMES: Mapping[str, Mapping[str, tuple[str, ...]]] = _ParamTable()
