"""Options shared by the subcommands, with the same names everywhere (SPEC section 6)."""
from __future__ import annotations

import json
import sys

import click

from sim import GAMES, Deck, Variant


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


def emit_json(obj) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
