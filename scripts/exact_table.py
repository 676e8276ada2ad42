"""Exact One-Handed table over every small deck: store each result, print a table, draw a heatmap.

    .venv/bin/python scripts/exact_table.py [--max-cards 20] [--skip SxR] [--also SxR,...] [--out results/solitaire.h5]
                                            [--table FILE] [--heatmap FILE] [--checkpoint-dir DIR]

Every deck with S*R <= --max-cards (minus --skip), and the decks of --also, is computed exactly
(method auto: the phase method for decks with at least 3 suits and 3 ranks up to 20 cards, the DP for
the others up to its limits, the zeta method beyond) for win=end|any and
reverse=off|on (first4=reversed is provably the same distribution: see exact.one_handed.parity). Each result is
saved through sim.store.ResultsStore; a deck and variant already in the store (an exact result of
the same game, deck and variant, by any method) is read back instead of computed again, so an
interrupted table resumes where it stopped and the store holds no duplicates. The whole table to 20
cards takes about 20 minutes on one core (4x5 and 5x4: about 2-2.5 minutes per variant). The table (markdown) goes to
results/exact_one_handed_table.md and the heatmap of p_win (plain rules) to
results/exact_p_win_heatmap.png.

Past 20 cards (``--also 2x11,11x2,2x12,12x2,3x7,7x3,3x8,8x3``) the zeta method runs one pass per
31-bit prime; ``--checkpoint-dir`` keeps finished passes, so the four variants of a deck share them
(win=any comes from the same passes, reverse=on is the transposed deck) and a stopped run resumes.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from exact.one_handed import exact_distribution
from exact.one_handed.parity import check_parity
from exact.result import ExactResult
from sim import Deck, Variant
from sim.errors import UsageError
from sim.store import DEFAULT_PATH

VARIANTS = ["one-handed", "one-handed(win=any)", "one-handed(reverse=on)", "one-handed(win=any,reverse=on)"]


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-cards", type=int, default=20)
    parser.add_argument("--skip", action="append", default=[], help="SxR decks to leave out (repeatable)")
    parser.add_argument("--out", default=str(DEFAULT_PATH))
    parser.add_argument("--no-store", action="store_true")
    parser.add_argument("--table", default="results/exact_one_handed_table.md", help="markdown table file")
    parser.add_argument("--heatmap", default="results/exact_p_win_heatmap.png", help="p_win heatmap (PNG)")
    parser.add_argument("--also", action="append", default=[], help="more SxR decks, comma separated (repeatable)")
    parser.add_argument("--checkpoint-dir", default=None, help="zeta: folder for finished residue passes")
    args = parser.parse_args(argv)
    skip = set(args.skip)
    decks = [Deck(s, r) for s in range(1, args.max_cards + 1) for r in range(1, args.max_cards // s + 1)
             if f"{s}x{r}" not in skip]
    for spec in ",".join(args.also).split(","):
        if spec:
            s, r = (int(x) for x in spec.lower().split("x"))
            if Deck(s, r) not in decks:
                decks.append(Deck(s, r))
    decks.sort(key=lambda d: (d.size, d.suits))
    rows, plain = [], {}
    store = None
    if not args.no_store:
        from sim.store import ResultsStore

        store = ResultsStore(args.out)
    done = stored_results(store)
    for deck in decks:
        for text in VARIANTS:
            variant = Variant.parse(text)
            result = stored_result(done, deck, variant)
            if result is None:
                extra = {"checkpoint_dir": args.checkpoint_dir} if args.checkpoint_dir else {}
                try:
                    result = exact_distribution(deck, variant, method="auto", **extra)
                except UsageError as refused:  # beyond every method here (e.g. memory): say so, go on
                    print(f"{deck} {variant}: refused: {refused}", file=sys.stderr, flush=True)
                    continue
                if store is not None:
                    store.save(result)
            if not check_parity(result.score_counts, deck.size):
                raise RuntimeError(f"{deck} {variant}: a score with the wrong parity")
            if text == "one-handed":
                plain[(deck.suits, deck.ranks)] = result.p_win
            odd_odd = deck.suits % 2 and deck.ranks % 2
            never = "never won (odd x odd)" if odd_odd and not result.variant.rules.win_any else ""
            rows.append(f"| {deck} | {deck.size} | {deck.size % 2} | {result.variant} | {result.p_win} | "
                        f"{float(result.p_win):.6%} | {float(result.mean_score):.4f} | {never} | "
                        f"{result.method} | {result.provenance['seconds']:.2f} | {work(result)} |")
            print(rows[-1], flush=True)
    header = ("| deck | cards | score parity | variant | p_win | p_win ~ | mean score | win=end theorem | "
              "method | seconds | work |\n|---|---|---|---|---|---|---|---|---|---|---|\n")
    Path(args.table).parent.mkdir(parents=True, exist_ok=True)
    Path(args.table).write_text(header + "\n".join(rows) + "\n")
    heatmap(plain, max(d.size for d in decks), args.heatmap)


def work(result) -> str:
    """What the method visited: DP states, or the phase method's (set, subset) pairs."""
    prov = result.provenance
    if "states" in prov:
        return f"{int(prov['states']):,} states"
    if "subset_pairs" in prov:
        return f"{int(prov['subset_pairs']):,} subset pairs"
    if "passes" in prov:
        reused = int(prov.get("passes_reused", 0))
        stored = f", {reused} stored" if reused else ""
        cpu = float(prov.get("pass_cpu_seconds", 0))
        cpu_text = f"{cpu:.0f} CPU s" if cpu > 0 else "CPU s not recorded"  # passes kept by an older build
        return f"{int(prov['orbits']):,} orbits, {int(prov['passes'])} passes ({cpu_text}{stored})"
    return ""


def stored_results(store) -> dict:
    """The exact results already in ``store``, by ``(game, suits, ranks, variant)`` (newest wins)."""
    if store is None:
        return {}
    return {(r["game"], r["suits"], r["ranks"], r["variant"]): r for _, r in store.find(kind="exact")}


def stored_result(done: dict, deck: Deck, variant: Variant):
    """The stored result of this deck and variant, rebuilt (and re-checked), or None."""
    record = done.get((variant.game, deck.suits, deck.ranks, str(variant)))
    return ExactResult.from_record(record) if record is not None else None


def heatmap(plain: dict, max_cards: int, path="results/exact_p_win_heatmap.png") -> None:
    """The p_win heatmap of the plain rules, drawn as ``solitaire report`` draws it (decks with S, R >= 2;
    1-suit and 1-rank decks, p_win 0 or 1, are in the table)."""
    from solitaire import figures

    cells = [{"suits": s, "ranks": r, "p_win": float(p), "source": "theorem" if s % 2 and r % 2 else "exact"}
             for (s, r), p in sorted(plain.items()) if s >= 2 and r >= 2]
    if cells:
        figures.p_win_heatmap(cells, Path(path), f"exact p_win (%), S and R >= 2, S*R <= {max_cards}\n"
                                                 f"{Variant.make('one-handed')}")


if __name__ == "__main__":
    main()
