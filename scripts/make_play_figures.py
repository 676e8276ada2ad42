"""The stored figures the browser page (docs/play/) shows beside a deal, read from the results store.

    .venv/bin/python scripts/make_play_figures.py [--store results/solitaire.h5] [--out docs/play/figures.js] [--check]

Writes ``docs/play/figures.js``: one line that sets ``window.SOLITAIRE_FIGURES`` to a JSON object (a
script rather than a .json file, so that the page also works opened straight from disk):

* ``standard``: for every game and variant with a stored simulation of the standard deck (4x13),
  the run with the most games: games (or runs), wins, p_win, its 95% interval, seed, and the run's
  name, commit and date in the store;
* ``best_play``: Prisoner's Patience best play on the standard deck (the newest run of each move
  rule): decks won, lost and undecided, with the interval of the best-play rate;
* ``exact``: One-Handed exact win probabilities of small decks, by variant and deck (``"4x5"``): the
  reduced fraction and its value.

Every number is read from the store; ``--check`` exits 1 if the file differs from what the store
gives now (tests/browser/test_figures_file.py checks the same).
"""
from __future__ import annotations

import argparse
import json
import sys
from fractions import Fraction
from pathlib import Path

from sim.fractions_text import fraction_from_text, fraction_text
from sim.store import ResultsStore

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "play" / "figures.js"
STORE = ROOT / "results" / "solitaire.h5"
PREFIX = "window.SOLITAIRE_FIGURES = "
#: exact fractions with more digits than this are given by their value alone (the page prints both)
MAX_FRACTION_CHARS = 48


def _provenance(name: str, record: dict) -> dict:
    prov = record.get("provenance", {})
    return {"name": name, "commit": str(prov.get("git_commit", ""))[:10],
            "date": str(prov.get("finished", record.get("saved", "")))[:10]}


def figures(store_path: Path | str = STORE) -> dict:
    store = ResultsStore(store_path)
    standard: dict[str, dict] = {}
    for name, record in store.find(kind="simulation", suits=4, ranks=13):
        best = standard.get(record["variant"])
        if best is not None and best["games"] >= record["games"]:
            continue
        entry = {"game": record["game"], "games": record["games"], "wins": record["wins"],
                 "p_win": record["p_win"], "ci95": list(record["ci95"]), "seed": record["seed"],
                 **_provenance(name, record)}
        cap = record.get("provenance", {}).get("options", {}).get("cap")
        if cap is not None:
            entry["cap"] = cap
        standard[record["variant"]] = entry
    best_play: dict[str, dict] = {}
    for name, record in store.find(kind="best_play", game="prisoners", suits=4, ranks=13):
        best_play[record["variant"]] = {  # oldest first: the newest run of each variant stays
            "decks": record["decks"], "won": record["won"], "lost": record["lost"],
            "undecided": record["undecided"], "ci95": list(record["ci95"]),
            "node_budget": record.get("node_budget"), **_provenance(name, record)}
    exact: dict[str, dict] = {}
    for name, record in store.find(kind="exact", game="one-handed"):
        p = fraction_from_text(str(record["p_win"]))
        text = fraction_text(p) if p.denominator > 1 else str(p.numerator)
        entry = {"value": float(p)}
        if len(text) <= MAX_FRACTION_CHARS:
            entry["p_win"] = text
        exact.setdefault(record["variant"], {})[f"{record['suits']}x{record['ranks']}"] = entry
    exact = {v: dict(sorted(decks.items(), key=lambda kv: tuple(map(int, kv[0].split("x")))))
             for v, decks in sorted(exact.items())}
    return {"about": "read from the results store by scripts/make_play_figures.py; do not edit",
            "store": "results/solitaire.h5", "standard": dict(sorted(standard.items())),
            "best_play": dict(sorted(best_play.items())), "exact": exact}


def render(data: dict) -> str:
    return PREFIX + json.dumps(data, ensure_ascii=False, sort_keys=False, separators=(",", ":")) + ";\n"


def parse(text: str) -> dict:
    """The object a figures.js file sets (what the tests compare)."""
    if not text.startswith(PREFIX) or not text.rstrip().endswith(";"):
        raise ValueError("not a figures.js written by scripts/make_play_figures.py")
    return json.loads(text[len(PREFIX):].rstrip().rstrip(";"))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", type=Path, default=STORE)
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--check", action="store_true", help="exit 1 if --out differs from what the store gives")
    args = parser.parse_args(argv)
    text = render(figures(args.store))
    if args.check:
        same = args.out.exists() and args.out.read_text(encoding="utf-8") == text
        print(f"{args.out}: {'up to date' if same else 'STALE: run scripts/make_play_figures.py'}")
        return 0 if same else 1
    args.out.write_text(text, encoding="utf-8")
    print(f"{args.out}: {len(text.encode()) / 1e3:.1f} kB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
