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

    def never_won(self, deck) -> bool:
        """Whether a theorem proves no deal of ``deck`` is won: the parity theorem, ``win=end`` with
        an odd number of suits and of ranks (see :mod:`exact.one_handed`)."""
        return not self.win_any and deck.suits % 2 == 1 and deck.ranks % 2 == 1

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

    def never_won(self, deck) -> bool:
        """No theorem rules out a win on any deck."""
        return False

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

    def never_won(self, deck) -> bool:
        """No theorem rules out a win on any deck."""
        return False

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
    trace : ``"module:function"`` of its step-by-step player (``solitaire play``, :func:`sim.trace.play`):
        ``f(order, deck, variant, **play options) -> Trace``
    play_options : the trace builder's keyword options, as ``(name, what it is)`` pairs; any other
        option given is refused (:meth:`check_options`)
    run_options : the runner factory's keyword options, as ``(name, what it is)`` pairs (``--cap``)
    trace_row : the key of what a trace's steps show after each event (the row, the stack, the piles)
    trace_row_label : what it holds, as a figure's axis says it
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
    trace: str = ""
    play_options: tuple[tuple[str, str], ...] = ()
    run_options: tuple[tuple[str, str], ...] = ()
    trace_row: str = "row"
    trace_row_label: str = "cards in the row"

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

    def load_runner(self, deck, variant, options: dict | None = None) -> Callable:
        """The Monte Carlo chunk runner of this deck, variant and game options (the factory named by
        :attr:`runner`, imported on first use). A runner ``run(state, games) -> counts`` returns at
        least ``score_counts`` (an int array indexed by score) and ``wins`` (an int); any other
        entries are summed too and reported in ``extra`` (see :mod:`sim.montecarlo`)."""
        return resolve(self.runner)(deck, variant, **(options or {}))

    def load_trace(self) -> Callable:
        """The step-by-step player named by :attr:`trace` (imported on first use)."""
        return resolve(self.trace)

    def options(self, kind: str = "play") -> dict[str, str]:
        """Its ``"play"`` options (:attr:`play_options`) or ``"run"`` options (:attr:`run_options`):
        name -> what it is."""
        return dict(self.play_options if kind == "play" else self.run_options)

    def check_options(self, given: Mapping[str, object], *, kind: str = "play") -> dict:
        """The options of ``given`` that are not None; one that this game does not take is refused in
        one line that names the games taking it."""
        chosen = {name: value for name, value in given.items() if value is not None}
        for name in chosen:
            if name not in self.options(kind):
                owners = [game for game in _REGISTRY.values() if name in game.options(kind)]
                what = f"{owners[0].options(kind)[name]} " if owners else ""
                games = " and ".join(game.title for game in owners) or "no game"
                raise UsageError(f"{what}(--{name}) is for {games} only, not {self.title}")
        return chosen


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
    view = game.rules_type.decode(game.defaults())  # the view decodes its own defaults
    missing = [name for name in ("win_mid_game", "never_won") if not hasattr(view, name)]
    if missing:
        raise ValueError(f"game {game.name!r}: its rules view lacks {', '.join(missing)}")
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
    exact_methods=("auto", "enumerate", "dp", "phase", "zeta", "word"),
    trace="sim.trace:trace_one_handed",
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
    trace="sim.trace:trace_hand",
    play_options=(("seed", "the seed of the leftover shuffles"), ("choices", "leftover orders"),
                  ("cap", "iterations played at most")),
    run_options=(("cap", "the iteration cap of a run"),),
    trace_row="stack", trace_row_label="cards in the stack",
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
    trace="sim.trace:trace_prisoners",
    play_options=(("line", "a line of moves"),),
    trace_row="piles", trace_row_label="piles",
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
