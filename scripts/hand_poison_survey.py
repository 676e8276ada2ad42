"""Which small deck shapes have Hand Solitaire poison sets, and how many: the whole deck-order graph
of every S x R deck up to a number of cards, for each variant, as a markdown table with a summary.

Usage: python scripts/hand_poison_survey.py [MAX_CARDS] [--min-cards N] [--decks SxR,...]
                                             [--store FILE [--stored-only-from CARDS]] [--out FILE] [--json]

MAX_CARDS defaults to 8 and may be at most exact.hand.limits.MAX_GRAPH_CARDS (12). --decks 3x4,2x6
analyses only those decks (of any size up to the limit). The table rows are printed
as they are computed; the table, preceded by a summary generated from it (which shapes have poison
sets, and how their number grows), is written to --out FILE when it is given (nothing is written
otherwise; the project's table is ``--out results/hand_poison_survey.md``, a tracked file).
--json prints the rows as one JSON list instead and writes no file.

--store FILE keeps the exact results in a results store: a deck and variant already there is read,
not recomputed (its row says so), and each new one is saved as soon as it is computed, with its
provenance and the solver's details (the 12-card decks take minutes each). The project's store of
these results is ``results/hand_graphs.h5``, which ``solitaire report`` reads for its table of whole
decks. Long fractions are shortened in the table (value, digits of the denominator, SHA-256 of the
full ``n/d`` text); --json and the store hold them in full.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from sim.errors import UsageError

from sim.fractions_text import fraction_digest, fraction_from_text
from exact.hand.whole_deck import HandGraphResult, analyse_deck
from exact.hand.limits import MAX_GRAPH_CARDS
from sim import Deck, Variant

VARIANTS = ["hand()", "hand(rank_resets=published)", "hand(step7=off)", "hand(reshuffle=off)"]
HEADER = ("| deck | variant | poison sets {size: count} | orders in poison sets | unwinnable orders | "
          "p_win | p_trapped | E[iterations given win] | classes | unknowns (lumped) | digits of p_win's "
          "denominator | CPU s |\n|---|---|---|---|---|---|---|---|---|---|---|---|")


def _row(record: dict, solver: dict, cpu_seconds: float, stored: bool) -> dict:
    p_win = record["p_win"]
    return dict(record, seconds=cpu_seconds, unknowns=solver.get("unknowns"), lumped=solver.get("lumped_unknowns"),
                digits=len(p_win) - p_win.index("/") - 1, stored=stored)


def survey(max_cards: int, min_cards: int = 1, decks=None, store=None, stored_only_from: int | None = None):
    """One row per deck and variant; with ``store`` (a :class:`sim.store.ResultsStore`), a result
    found there is read instead of computed, and a computed one is saved there at once. Decks of at
    least ``stored_only_from`` cards are only read: one the store lacks gives a row
    ``{"missing": True, ...}`` instead of minutes of computing."""
    shapes = decks or [(s, c // s) for c in range(min_cards, max_cards + 1) for s in range(1, c + 1) if c % s == 0]
    for suits, ranks in shapes:
        deck = Deck(suits, ranks)
        for text in VARIANTS:
            variant = Variant.parse(text)
            found = store.find(kind=HandGraphResult.kind, suits=suits, ranks=ranks, variant=variant) if store else []
            if found:
                record = found[-1][1]
                solver = record.get("provenance", {}).get("solver", {})
                yield _row(record, solver, solver.get("cpu_seconds", float("nan")), stored=True)
                continue
            if stored_only_from is not None and deck.size >= stored_only_from:
                yield {"missing": True, "suits": suits, "ranks": ranks, "variant": str(variant)}
                continue
            result = analyse_deck(deck, variant)
            if store is not None:
                store.save(result)
            yield _row(result.to_dict(), result.solver, result.solver["cpu_seconds"], stored=False)


def _short(fraction_text: str) -> str:
    return fraction_digest(fraction_from_text(fraction_text))


def _share(row: dict) -> str:
    in_sets = sum(int(size) * count for size, count in row["poison_sets"].items())
    return f"{in_sets / row['orders']:.3g}" if in_sets < row["orders"] else "all"


def table_row(row: dict) -> str:
    in_sets = sum(int(size) * count for size, count in row["poison_sets"].items())
    e = row["expected_iterations_given_win"]
    e_text = "-" if e is None else f"{float(fraction_from_text(e)):.4f}"
    return (f"| {row['suits']}x{row['ranks']} | {row['variant']} | {row['poison_sets'] or '-'} | {in_sets} | "
            f"{row['unwinnable_orders']} | {_short(row['p_win'])} | {_short(row['p_trapped'])} | {e_text} | "
            f"{row['classes']} | {row.get('unknowns', '-')} ({row.get('lumped', '-')}) | {row.get('digits', '-')} | "
            f"{row['seconds']:.1f} |")


def _sets_text(row: dict) -> str:
    sets = ", ".join(f"{n:,} set{'s' * (n > 1)} of {s}"
                     for s, n in sorted(row["poison_sets"].items(), key=lambda kv: int(kv[0])))
    return f"{row['suits']}x{row['ranks']}: {sets} ({_share(row)} of its orders" + (
        ", never won)" if row["p_win"] == "0/1" else ")")


SHAPES = [("one suit (1xR)", lambda r: r["suits"] == 1), ("one rank (Sx1)", lambda r: r["suits"] > 1 and r["ranks"] == 1),
          ("at least 2 suits and 2 ranks", lambda r: r["suits"] > 1 and r["ranks"] > 1)]


def summary(rows: list[dict], max_cards: int, min_cards: int, decks=None, missing=(), options: str = "") -> str:
    """Paragraphs generated from the rows: which shapes have poison sets, how many, what share of the
    orders they hold; variants with the same poison sets on every deck share a paragraph. ``missing``:
    the (deck, variant) rows the store lacked (``--stored-only-from``), listed as not computed."""
    command = f"python scripts/hand_poison_survey.py {max_cards}" + (
        f" --decks {','.join(f'{s}x{r}' for s, r in decks)}" if decks else "") + options + " --out FILE"
    title = (f"the decks {', '.join(f'{s}x{r}' for s, r in decks)}" if decks
             else f"every deck of {min_cards} to {max_cards} cards")
    lines = [f"# Hand Solitaire poison sets on {title}", "",
             f"Generated by `{command}` (whole deck-order graph, "
             "`exact.hand.whole_deck.analyse_deck`: exact counts over every deck order). A poison set is a closed set "
             "of deck orders without a winning order (docs/rules.md); its size is counted in deck orders. "
             "Below, \"N sets of k\" means N poison sets of k deck orders each, followed by the share of all "
             "the deck's orders that lie inside poison sets (\"never won\": p_win = 0, every run ends trapped). "
             "Long fractions are shortened to their value, the digits of the denominator and the start of the "
             "SHA-256 of the full `n/d` text (in full: `solitaire poison --all --json`).",
             ""]
    if missing:
        lines += ["**Not in the store** (not computed, or stopped by a limit: see `benchmarks/README.md`): "
                  + ", ".join(f"{r['suits']}x{r['ranks']} `{r['variant']}`" for r in missing) + ".", ""]
    groups: dict = {}
    for variant in VARIANTS:
        name = str(Variant.parse(variant))
        mine = [r for r in rows if r["variant"] == name]
        signature = tuple((r["suits"], r["ranks"], tuple(sorted(r["poison_sets"].items()))) for r in mine)
        groups.setdefault(signature, ([], mine))[0].append(name)
    for names, mine in groups.values():
        lines.append(f"**{' = '.join(names)}**" + (" (the same poison sets on every deck)" if len(names) > 1 else "")
                     + f": poison sets on {sum(bool(r['poison_sets']) for r in mine)} of {len(mine)} decks.")
        lines.append("")
        for label, shape in SHAPES:
            decks = [r for r in mine if shape(r)]
            with_sets = [_sets_text(r) for r in decks if r["poison_sets"]]
            without = [f"{r['suits']}x{r['ranks']}" for r in decks if not r["poison_sets"]]
            lines.append(f"- {label}: " + ("; ".join(with_sets) or "no poison sets")
                         + (f". No poison set: {', '.join(without)}." if without and with_sets else
                            (f" ({', '.join(without)})." if without else ".")))
        lines.append("")
    lines += [HEADER]
    lines += [table_row(r) for r in rows]
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("max_cards", nargs="?", type=int, default=8)
    parser.add_argument("--min-cards", type=int, default=1)
    parser.add_argument("--out", default=None, metavar="FILE",
                        help="write the table and its summary to FILE (default: write nothing; the project's "
                             "table is results/hand_poison_survey.md)")
    parser.add_argument("--no-out", action="store_true", help="write no markdown file (the default; kept for scripts)")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON (and write no file)")
    parser.add_argument("--decks", help="comma-separated SxR decks to analyse instead of every deck")
    parser.add_argument("--store", metavar="FILE", default=None,
                        help="results store: read the decks it holds, save the ones computed (the project's: "
                             "results/hand_graphs.h5)")
    parser.add_argument("--stored-only-from", type=int, default=None, metavar="CARDS",
                        help="with --store: decks of at least CARDS cards are only read from the store, never "
                             "computed (those it lacks are listed as not computed)")
    args = parser.parse_args(argv)
    if args.stored_only_from is not None and args.store is None:
        parser.error("--stored-only-from needs --store")
    decks = [tuple(map(int, d.split("x"))) for d in args.decks.split(",")] if args.decks else None
    if not 1 <= args.min_cards <= args.max_cards <= MAX_GRAPH_CARDS:
        parser.error(f"need 1 <= --min-cards <= MAX_CARDS <= {MAX_GRAPH_CARDS}")
    store = None
    if args.store is not None:
        from sim.store import ResultsStore, StoreError

        try:
            store = ResultsStore(args.store)
            store.find(kind=HandGraphResult.kind)  # a damaged or foreign file is refused before any work
        except (StoreError, UsageError) as exc:
            parser.error(str(exc))
    rows, missing = [], []
    if not args.json:
        print(HEADER, flush=True)
    for row in survey(args.max_cards, args.min_cards, decks, store, args.stored_only_from):
        if row.get("missing"):
            missing.append(row)
            print(f"not in the store, not computed: {row['suits']}x{row['ranks']} {row['variant']}", file=sys.stderr)
            continue
        rows.append(row)
        if not args.json:
            print(table_row(row), flush=True)
    if args.json:
        print(json.dumps(rows))
        return
    if args.out is not None and not args.no_out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        options = (f" --min-cards {args.min_cards}" if args.min_cards > 1 else "") + (
            f" --store {args.store}" if args.store else "") + (
            f" --stored-only-from {args.stored_only_from}" if args.stored_only_from is not None else "")
        Path(args.out).write_text(summary(rows, args.max_cards, args.min_cards, decks, missing, options))
        print(f"written to {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
