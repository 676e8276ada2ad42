"""Options shared by the subcommands, with the same names everywhere (SPEC section 6)."""
from __future__ import annotations

import json
import math
import sys

import click

from sim import GAMES, Deck, Variant
from sim.store import DEFAULT_PATH


def game_option(default="one-handed"):
    return click.option("--game", type=click.Choice(list(GAMES)), default=default, show_default=True,
                        help="Which game.")


def deck_options(f):
    f = click.option("--ranks", type=int, default=13, show_default=True, help="Ranks per suit (R).")(f)
    f = click.option("--suits", type=int, default=4, show_default=True, help="Number of suits (S).")(f)
    return f


def variant_option(f):
    return click.option("--variant", "variants", multiple=True, metavar="KEY=VALUE",
                        help="Rule variant, repeatable (e.g. --variant win=any --variant reverse=on). "
                             "Keys: " + "; ".join(f"{g}: " + ", ".join(f"{k}={'|'.join(v)}" for k, v in p.items())
                                                  for g, p in GAMES.items()) + ".")(f)


def json_option(f):
    return click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout, nothing else.")(f)


def seed_option(f):
    return click.option("--seed", type=int, default=None,
                        help="Non-negative seed (default: fresh, reported in the output).")(f)


def workers_option(f):
    return click.option("--workers", type=int, default=None, help="Parallel workers (default: all cores).")(f)


def make_deck_variant(game: str, suits: int, ranks: int, variants) -> tuple[Deck, Variant]:
    return Deck(suits, ranks), Variant.from_options(game, variants)


def _finite(obj):
    """``obj`` with every NaN or infinite float replaced by None (e.g. a standard error of one game)."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: _finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_finite(v) for v in obj]
    return obj


def emit_json(obj) -> None:
    """Print ``obj`` as one line of strict JSON: a value that is not a finite number (NaN, inf) is
    ``null``, since ``NaN`` and ``Infinity`` are not JSON and break strict readers (jq, JSON.parse)."""
    sys.stdout.write(json.dumps(_finite(obj), allow_nan=False) + "\n")


#: Where results go when --out is not given: the store's own default (defined once, in sim.store),
#: as the text click shows and passes on.
DEFAULT_STORE = str(DEFAULT_PATH)
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
                          f"and for runs of at least {LONG_RUN_GAMES:,} games (to {DEFAULT_STORE}).")(f)
    f = click.option("--out", type=click.Path(dir_okay=False), default=None, metavar="FILE",
                     help=f"Results store (HDF5) to write to [default: {DEFAULT_STORE}].")(f)
    return f


def store_path(out, store, games: int):
    """The store file a run writes to, or None: ``--out`` or long runs, unless ``--no-store``."""
    if store is False:
        if out is not None:
            raise click.UsageError("--out and --no-store contradict each other: give one")
        return None
    if out is not None:
        return out
    return DEFAULT_STORE if (store or games >= LONG_RUN_GAMES) else None


def backend_options(f):
    f = click.option("--scheduler", default=None, metavar="ADDRESS",
                     help="Dask scheduler address (e.g. tcp://10.0.0.5:8786), with --backend dask; "
                          "without it a local Dask cluster of --workers processes is started.")(f)
    f = click.option("--backend", type=click.Choice(["local", "dask"]), default="local", show_default=True,
                     help="Where chunks run: local threads (joblib) or a Dask cluster. Same seed, same counts.")(f)
    return f


def open_store(out):
    """The results store named by ``--out`` (None if not given), checked before any work starts:
    a damaged, foreign or other-schema file is refused at once with a one-line error."""
    if out is None:
        return None
    from sim.store import ResultsStore

    store = ResultsStore(out)
    store.list()
    return store
