"""Options shared by the subcommands, with the same names everywhere."""
from __future__ import annotations

import json
import math
import sys

import click

from sim import GAMES, Deck, Variant
from sim.cards import parse_cards
from sim.checks import check_games, writable_file
from sim.errors import UsageError
from sim.defaults import DEFAULT_CHECKPOINT_SECONDS
from sim.fractions_text import text_int
from sim.seeds import seeds_to_json
from sim.store import DEFAULT_PATH, RUNS_PATH, ResultsStore


class _AsciiDigits:
    """Click's number types, but for ASCII text only: Python's int() also reads other scripts' digits
    (a full-width "５" as 5), which a typo should not pass as."""

    def convert(self, value, param, ctx):
        if isinstance(value, str) and not value.isascii():
            self.fail(f"{value!r} is not a number written with the digits 0-9", param, ctx)
        return super().convert(value, param, ctx)


class AsciiInt(_AsciiDigits, click.types.IntParamType):
    pass


class AsciiFloat(_AsciiDigits, click.types.FloatParamType):
    pass


class int_range(_AsciiDigits, click.IntRange):  # noqa: N801  (used as click.IntRange is)
    """``click.IntRange``, ASCII digits only."""


#: The integer and number types of every option.
INT, FLOAT = AsciiInt(), AsciiFloat()


def game_option(default="one-handed"):
    return click.option("--game", type=click.Choice(list(GAMES)), default=default, show_default=True,
                        help="Which game.")


def deck_options(f):
    f = click.option("--ranks", type=INT, default=13, show_default=True, help="Ranks per suit (R).")(f)
    f = click.option("--suits", type=INT, default=4, show_default=True, help="Number of suits (S).")(f)
    return f


def variant_option(f=None, *, games=None):
    """``--variant KEY=VALUE`` (repeatable); its help lists the keys of ``games`` (default: all).
    Use as ``@variant_option`` or ``@variant_option(games=("hand",))``."""
    if f is None:
        return lambda g: variant_option(g, games=games)
    shown = {g: GAMES[g] for g in (games or GAMES)}
    example = "--variant win=any --variant reverse=on" if "one-handed" in shown else "--variant " + next(
        f"{k}={v[-1]}" for p in shown.values() for k, v in p.items())
    return click.option("--variant", "variants", multiple=True, metavar="KEY=VALUE",
                        help=f"Rule variant, repeatable (e.g. {example}). "
                             "Keys: " + "; ".join(f"{g}: " + ", ".join(f"{k}={'|'.join(v)}" for k, v in p.items())
                                                  for g, p in shown.items()) + ".")(f)


def json_option(f):
    return click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout, nothing else.")(f)


class SeedType(click.ParamType):
    """A seed: a non-negative integer, also as a JSON string (``"184467440737095516170"``, quotes
    included), the form ``--json`` writes seeds of 2^53 or more in (see :func:`sim.seeds.seeds_to_json`)."""

    name = "seed"

    def convert(self, value, param, ctx):
        if isinstance(value, int) and not isinstance(value, bool):
            seed = value
        else:
            text = str(value).strip()
            if len(text) >= 2 and text[0] == text[-1] == '"':
                text = text[1:-1].strip()
            if not text.isdigit() or not text.isascii():
                self.fail(f"{value!r} is not a non-negative integer (a seed is digits, e.g. 42, or the quoted "
                          "string --json prints for a large one)", param, ctx)
            seed = text_int(text)  # any size: int() refuses more than 4,300 digits
        if seed < 0:
            self.fail(f"{seed} is negative: a seed is a non-negative integer", param, ctx)
        return seed


#: The ``--seed`` type of every subcommand.
SEED = SeedType()


def seed_option(f):
    return click.option("--seed", type=SEED, default=None,
                        help="Non-negative seed (default: fresh, reported in the output); a large seed may be given "
                             "as the quoted string --json prints.")(f)


def workers_option(f):
    return click.option("--workers", type=INT, default=None, help="Parallel workers (default: all cores).")(f)


def make_deck_variant(game: str, suits: int, ranks: int, variants) -> tuple[Deck, Variant]:
    return Deck(suits, ranks), Variant.from_options(game, variants)


def parse_order(text: str, deck: Deck) -> list[int]:
    """The deck order of ``--order``, in card notation or card numbers (:mod:`sim.cards`); a bad card,
    a duplicate or a missing one is one line naming ``--order``."""
    return list(parse_cards(text, deck, what="--order"))


def parse_part(text: str, option: str) -> tuple[int, int]:
    """``"I/N"`` -> ``(I, N)`` with ``0 <= I < N``: one part of N, for ``option`` (``--shard``, and the
    scripts' ``--part``); a :class:`UsageError` naming ``option`` otherwise."""
    try:
        i, n = (int(x) for x in text.split("/"))
    except ValueError:
        raise UsageError(f"{option} takes I/N (e.g. 3/100), got {text!r}") from None
    if not 0 <= i < n:
        raise UsageError(f"{option} I/N needs 0 <= I < N, got {text!r}")
    return i, n


def _finite(obj):
    """``obj`` with every NaN or infinite float replaced by None (e.g. a standard error of one game)."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: _finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_finite(v) for v in obj]
    return obj


def json_versions(games=(), engines=None) -> dict:
    """What every ``--json`` record says produced it: ``{"package": release, "engines": {...}}``.

    ``engines`` maps each game of ``games`` to its engine version (:attr:`sim.games.Game.engine_version`,
    part of a stored run's identity), then adds the named ``engines`` (``{"name": version}``: the
    best-play solver, an exact method's passes or jobs) that produced the numbers.

    >>> json_versions(["one-handed"], {"exact word": 1})["engines"]
    {'one-handed': 1, 'exact word': 1}
    """
    from sim import provenance
    from sim.games import get_game

    versions = {game: get_game(game).engine_version for game in sorted(set(games))}
    versions.update(engines or {})
    return {"package": provenance.package_version(), "engines": versions}


def emit_json(obj: dict, *, games=(), engines=None) -> None:
    """Print the record ``obj`` as one line of strict JSON, with ``"versions"``: the package's release
    and the engine versions of ``games`` and of the named ``engines`` (:func:`json_versions`); every
    command's ``--json`` goes through here. A value that is not a finite number (NaN, inf) is
    ``null``, since ``NaN`` and ``Infinity`` are not JSON and break strict readers (jq, JSON.parse);
    seeds of 2^53 or more are decimal strings (:func:`sim.seeds.seeds_to_json`)."""
    record = {**obj, "versions": json_versions(games, engines)}
    sys.stdout.write(json.dumps(seeds_to_json(_finite(record)), allow_nan=False) + "\n")


#: The project's results store (defined once, in sim.store), as the text click shows and passes on:
#: what `report` and `runs` read when --out is not given.
DEFAULT_STORE = str(DEFAULT_PATH)
#: Where long ad-hoc runs are stored when --out is not given (untracked; see sim.store.RUNS_PATH).
RUNS_STORE = str(RUNS_PATH)
#: Runs of at least this many games are stored (and resumable) even without --out.
LONG_RUN_GAMES = 10_000_000


def store_options(f):
    """``--out``, ``--store/--no-store`` and ``--resume/--no-resume`` (see :func:`store_path`)."""
    f = click.option("--resume/--no-resume", default=True, show_default=True,
                     help="Continue the unfinished run with the same parameters (and seed; without --seed, "
                          "the latest such run's seed) from its checkpoint, or show a finished one with the "
                          "same seed from the store; --no-resume plays it again.")(f)
    f = click.option("--store/--no-store", "store", default=None,
                     help=f"Write the result (and checkpoints) to the results store. Default: yes with --out, "
                          f"and for runs of at least {LONG_RUN_GAMES:,} games (to {RUNS_STORE}).")(f)
    f = click.option("--out", type=click.Path(dir_okay=False), default=None, metavar="FILE",
                     help=f"Results store (HDF5) to write to [default: {RUNS_STORE}, relative to the current "
                          f"folder; the project's store {DEFAULT_STORE} only when named]. Its folder must exist: "
                          "a missing one is refused (exit 2), never created.")(f)
    return f


def store_path(out, store, games: int):
    """The store file a run writes to, or None: ``--out`` or long runs, unless ``--no-store``."""
    if store is False:
        if out is not None:
            raise click.UsageError("--out and --no-store contradict each other: give one")
        return None
    check_games(games)  # a bad --games is named first
    path = out if out is not None else RUNS_STORE if (store or games >= LONG_RUN_GAMES) else None
    if path is not None:
        writable_file(path)  # its folder must exist: a misspelt path never creates folders
    return path


def resume_option(when: str, what: str):
    """``--resume/--no-resume`` for a command whose ``what`` (a run, a classification) checkpoints in
    its store ``when`` (e.g. "With --out")."""
    return click.option("--resume/--no-resume", default=True, show_default=True,
                        help=f"{when}: continue the unfinished {what} with the same parameters (and seed; "
                             f"without --seed, the latest such {what}'s seed); --no-resume starts it again.")


def checkpoint_seconds_option(when: str):
    """``--checkpoint-seconds`` (the least time between two checkpoints ``when`` there is a store)."""
    return click.option("--checkpoint-seconds", type=FLOAT, default=DEFAULT_CHECKPOINT_SECONDS, show_default=True,
                        help=f"{when}: least time between two checkpoints.")


def backend_options(f):
    f = click.option("--scheduler", default=None, metavar="ADDRESS",
                     help="Dask scheduler address (e.g. tcp://10.0.0.5:8786), with --backend dask; "
                          "without it a local Dask cluster of --workers processes is started.")(f)
    f = click.option("--backend", type=click.Choice(["local", "dask"]), default="local", show_default=True,
                     help="Where chunks run: local threads (joblib) or a Dask cluster. Same seed, same counts.")(f)
    return f


def open_store(out, *, must_exist: bool = False, write: bool = True):
    """The results store named by ``--out`` (None if not given), checked before any work starts:
    a damaged, foreign or other-schema file, or (``write``) a place where it could not be written,
    is refused at once with a one-line error; so is a missing file with ``must_exist`` (a store
    to read from: a misspelt name must not pass as an empty store). Only the header is read."""
    if out is None:
        return None

    store = ResultsStore(out)
    if must_exist and not store.exists():
        raise UsageError(f"no results store at {store.path}: check the name (`solitaire runs --out FILE` lists one)")
    return store.check_writable(missing_folder_ok=False) if write else store.check()


def yes_option(f):
    return click.option("--yes", is_flag=True,
                        help="Start a run estimated to take more than a day (runs of 10^9 games or more are "
                             "timed on a sample first and refused beyond that without --yes).")(f)
