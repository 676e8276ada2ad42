"""Golden traces for the browser page's rules: what the Python reference does, step by step.

    .venv/bin/python scripts/make_golden_traces.py [--out tests/browser/golden_traces.json] [--check]

Writes one JSON file (compact, about 3.5 MB) that the conformance test (tests/browser/test_conformance.py)
replays with the page's JavaScript rules (docs/play/rules.js) in a real browser, event for event:

* ``traces``: random deck orders of several shapes (1 to 70 cards, the standard deck and a
  fantasy 5x14 deck among them) played under every variant of every game by :func:`sim.trace.play`,
  each as ``Trace.to_dict()`` (cards in card notation) with the Hand Solitaire seed and cap used;
  Hand Solitaire's leftover shuffles come from ``random.Random(seed)``, which the page reproduces,
  so the trace's ``choices`` are the leftover orders both sides must draw;
* ``deals``: ``numpy.random.default_rng(seed).permutation(S*R)`` for a few seeds (small and past
  2^64): the deal that ``solitaire play --seed`` plays and the page's ``seed`` parameter shuffles;
* ``refusals``: bad deals, deck shapes and variants with the one-line message the command line
  gives, which the page must give word for word.

Everything is drawn from fixed seeds, so running the script again writes the same file;
``--check`` exits 1 if the file on disk differs (tests/browser/test_golden_file.py checks it too).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from sim.cards import parse_cards
from sim.deck import Deck
from sim.errors import UsageError
from sim.games import GAMES
from sim.trace import play
from sim.variant import Variant

OUT = Path(__file__).resolve().parents[1] / "tests" / "browser" / "golden_traces.json"
#: the seed every random choice of this script comes from
SEED = 20261128
#: deck shapes (suits, ranks) and how many random decks of each every variant gets
SHAPES = [(1, 1), (1, 3), (2, 1), (1, 4), (2, 2), (4, 1), (1, 6), (2, 3), (3, 2), (2, 4), (3, 3), (2, 5),
          (5, 2), (3, 4), (4, 3), (4, 4), (2, 8), (4, 5), (5, 4), (4, 13), (5, 14)]
DECKS_PER_SHAPE = {"one-handed": 1, "hand": 1, "prisoners": 2}
#: extra standard decks per variant (the deck people play)
STANDARD_DECKS = {"one-handed": 2, "hand": 1, "prisoners": 2}
#: Hand Solitaire: iterations played at most on decks of more than 20 cards (keeps the file small;
#: the page plays up to solitaire play's default, 100)
BIG_HAND_CAP = 4
SMALL_HAND_CAP = 12


def variants(game: str) -> list[Variant]:
    """Every variant of ``game``: each combination of its parameters' values."""
    combos = [{}]
    for key, values in GAMES[game].items():
        combos = [{**c, key: v} for c in combos for v in values]
    return [Variant.make(game, **c) for c in combos]


def traces(rng: np.random.Generator) -> list[dict]:
    out = []
    for game in GAMES:
        for variant in variants(game):
            decks = [(s, r) for s, r in SHAPES for _ in range(DECKS_PER_SHAPE[game])]
            decks += [(4, 13)] * STANDARD_DECKS[game]
            for suits, ranks in decks:
                deck = Deck(suits, ranks)
                if game == "hand" and deck.size > 52:
                    continue  # a 70-card Hand Solitaire trace is large and adds no rule
                order = rng.permutation(deck.size).tolist()
                entry = {"game": game, "suits": suits, "ranks": ranks, "variant": str(variant)}
                kwargs = {}
                if game == "hand":
                    seed = int(rng.integers(0, 2**53)) if rng.random() < 0.8 \
                        else int(rng.integers(0, 2**62)) * 2**40 + 7  # seeds past 2^64 too
                    kwargs["seed"] = seed
                    entry["seed"] = str(seed)  # a string: JSON readers hold numbers as doubles
                    entry["cap"] = kwargs["cap"] = BIG_HAND_CAP if deck.size > 20 else SMALL_HAND_CAP
                entry["trace"] = play(order, deck, variant, **kwargs).to_dict()
                out.append(entry)
    return out


def deals() -> list[dict]:
    out = []
    for seed, size in [(0, 52), (1, 52), (5, 10), (20261123, 52), (2**53 - 1, 52), (2**64 + 12345, 52),
                       (2**130 + 99, 70), (7, 1), (42, 13)]:
        out.append({"seed": str(seed), "size": size,
                    "order": np.random.default_rng(seed).permutation(size).tolist()})
    return out


#: inputs the command line refuses: (suits, ranks, deal text, complete)
BAD_DEALS = [
    (4, 13, "AS 2S ZZ", True), (4, 13, "AS 2S AS", True), (4, 13, "AS 2S 3S", True), (2, 3, "4S", False),
    (2, 3, "AS 2S 3S AH 2H 3D", True), (4, 13, "r14s1", False), (4, 13, "r0s1", False), (4, 13, "52", False),
    (4, 13, "0S", False), (4, 13, "1", True), (5, 14, "AS", True), (1, 1, "r1s2", False),
    (4, 13, "10♠ 10S", False), (4, 13, "AS, 2S,, X'", False), (4, 13, "", True), (1, 2, "0 1 1", True),
]
BAD_VARIANTS = [
    ("one-handed", ["win=sometimes"]), ("one-handed", ["colour=red"]), ("hand", ["step7"]),
    ("hand", ["step7=on", "step7=off"]), ("prisoners", ["=on"]), ("prisoners", ["wrap=on", "moves=physical"]),
    ("one-handed", ["final=once", "reverse=on"]),
]
BAD_DECKS = [(0, 13), (4, 0), (-1, 3)]


def refusals() -> dict:
    def message(call):
        try:
            result = call()
        except UsageError as exc:
            return str(exc)
        return {"accepted": str(result) if isinstance(result, (Deck, Variant)) else list(result)}

    return {
        "deals": [{"suits": s, "ranks": r, "text": text, "complete": complete,
                   "message": message(lambda: parse_cards(text, Deck(s, r), complete=complete, what="deck"))}
                  for s, r, text, complete in BAD_DEALS],
        "variants": [{"game": g, "options": opts, "message": message(lambda: Variant.from_options(g, opts))}
                     for g, opts in BAD_VARIANTS],
        "decks": [{"suits": s, "ranks": r, "message": message(lambda: Deck(s, r))} for s, r in BAD_DECKS],
    }


def golden() -> dict:
    rng = np.random.Generator(np.random.PCG64(SEED))
    return {"about": "made by scripts/make_golden_traces.py from sim.trace; do not edit",
            "seed": SEED, "traces": traces(rng), "deals": deals(), "refusals": refusals()}


def dumps(obj) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--check", action="store_true", help="exit 1 if --out differs from what would be written")
    args = parser.parse_args(argv)
    text = dumps(golden())
    if args.check:
        same = args.out.exists() and args.out.read_text(encoding="utf-8") == text
        print(f"{args.out}: {'up to date' if same else 'STALE: run scripts/make_golden_traces.py'}")
        return 0 if same else 1
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text, encoding="utf-8")
    data = json.loads(text)
    print(f"{args.out}: {len(data['traces'])} traces, {len(text.encode()) / 1e6:.2f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
