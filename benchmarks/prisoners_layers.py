"""A layered search for Prisoner's Patience best play, against the depth-first search at equal CPU.

    python benchmarks/prisoners_layers.py --rule physical [--decks 40] [--first 0] [--seed 2026]
        [--seconds 30] [--node-budget 60000000] [--journal FILE] [--report]

The layered search (:mod:`exact.prisoners.layers`, ``solitaire solve --strategy layers``) builds
the rows reachable from the dealt row layer by layer, by pile count, each layer with its duplicates
removed, and never forgets a row of the layer it is building.

For each deck of the journal's range the script runs this search (stopped at ``--seconds`` of CPU)
and the solver's depth-first search (``solve_decks``, the restarts at ``--node-budget``), one deck
at a time, appending one JSON line a deck and method to ``--journal`` (rerun to continue;
``--methods`` runs one of them, ``--methods default`` the solver's default strategy and budget);
``--report`` prints the decided decks of each method against CPU seconds a deck, and those of a
hybrid read from the same records: layers for ``--first-phase`` CPU seconds, then the depth-first
search from scratch. ``--methods profile`` runs the layered search alone (no width cap, stopped at
``--seconds``) and records each layer built: its rows, the bytes held while building it, the rows
expanded so far and the CPU seconds; ``--report-caps`` reads from those records, for node budgets
and width caps (a layer of at most ``budget / share`` rows, as the solver's
``LAYER_WIDTH_SHARE``), the decks each would settle and the CPU seconds a deck it would spend. The layered search only stops
at a layer's end or a slice of 65,536 rows, so its verdict at a time limit depends on the machine;
the depth-first figures are its nodes' verdicts (the same on every machine) with their CPU time.
``tests/unit/test_prisoners_layers.py`` checks its verdicts against the reference search.
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from exact.prisoners.layers import MAX_LAYER_RANKS, layered_search
from exact.prisoners.solver_kernel import neighbour_masks


def layered_verdict(ranks_dealt, ranks: int, wrap: bool, reverse: bool, row_budget: int = 10**12,
                    seconds: float | None = None, commute: bool = True) -> dict:
    """``{"status": "won" | "lost" | "open", "rows": rows expanded, "widths": rows of each layer}``
    (:func:`exact.prisoners.layers.layered_search`, stopped after ``seconds`` of CPU)."""
    if ranks > MAX_LAYER_RANKS:
        raise ValueError("four bits a rank")
    start = time.thread_time()

    def clock() -> bool:
        return seconds is not None and time.thread_time() - start > seconds

    status, _, rows, widths, _ = layered_search(ranks_dealt, neighbour_masks(ranks, wrap), reverse, row_budget,
                                                clock, commute)
    return {"status": status, "rows": rows, "widths": widths}


def layer_profile(ranks_dealt, ranks: int, wrap: bool, reverse: bool, seconds: float) -> dict:
    """``{"status", "layers": [[rows of the layer, bytes held building it, rows expanded, CPU s], ...]}``:
    the layered search without a width cap, stopped after ``seconds`` of CPU."""
    start = time.thread_time()
    built = []

    def on_layer(width, held, rows):
        built.append([int(width), int(held), int(rows), round(time.thread_time() - start, 4)])

    status, _, _, _, _ = layered_search(ranks_dealt, neighbour_masks(ranks, wrap), reverse, 10**12,
                                        lambda: time.thread_time() - start > seconds, on_layer=on_layer)
    return {"status": status, "layers": built}


def capped(layers, status: str, budget: float, width_cap: float):
    """``(settled, CPU seconds)`` of the search a profile records, run under a node ``budget`` and a
    ``width_cap``: stopped within the first layer that passes either, at the share of that layer's
    time its cap allows (or at the profile's end when it is open: ``None`` seconds, unknown)."""
    before_rows, before_t = 0, 0.0
    for width, _, rows, t in layers:
        stops = []
        if rows > budget:
            stops.append((budget - before_rows) / max(rows - before_rows, 1))
        if width > width_cap:
            stops.append(width_cap / width)
        if stops:
            return False, before_t + min(stops) * (t - before_t)
        before_rows, before_t = rows, t
    return (True, before_t) if status != "open" else (False, None)


def _report_caps(path: Path) -> None:
    """The decks settled and the mean CPU seconds a deck, by node budget and width share, from the
    ``profile`` records (an open profile that a policy would run past counts at its own seconds)."""
    records = [r for r in map(json.loads, path.read_text().splitlines()) if r.get("method") == "profile"]
    print(f"{len(records)} decks profiled")
    print("| node budget | width cap | settled | CPU s a deck | settled within 10 s |")
    print("|---:|---:|---:|---:|---:|")
    for budget in (40e6, 80e6, 120e6, 150e6, 200e6):
        for share in (None, 8, 10, 12, 15):
            cap = budget / share if share else float("inf")
            settled = quick = 0
            spent = 0.0
            for rec in records:
                ok, t = capped(rec["layers"], rec["status"], budget, cap)
                t = rec["layers"][-1][3] if t is None else t
                spent += t
                settled += ok
                quick += ok and t <= 10
            label = f"budget / {share}" if share else "none"
            print(f"| {budget:,.0f} | {label} | {settled} | {spent / len(records):.2f} | {quick} |")


def _report(path: Path, first_phase: float = 2.0) -> None:
    """The decided decks of each method against CPU seconds a deck, and of the hybrid the records
    imply: the layered search for at most ``first_phase`` seconds, then (if it left the deck open)
    the depth-first search from scratch, its seconds added to the ``first_phase`` spent."""
    records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    records = [r for r in records if r["method"] != "profile"]
    by = {}
    for rec in records:
        by.setdefault(rec["method"], {})[rec["deck"]] = rec
    decks = sorted(set.intersection(*(set(v) for v in by.values()))) if by else []
    methods = sorted(by)
    print(f"{len(decks)} decks in {' and '.join(methods)}")

    def decided(rec):
        return rec["status"] in ("won", "lost")

    def hybrid(d):  # the CPU seconds at which the hybrid decides deck d, or None
        layers, dfs = by["layers"][d], by["dfs"][d]
        if decided(layers) and layers["seconds"] <= first_phase:
            return layers["seconds"]
        return first_phase + dfs["seconds"] if decided(dfs) else None

    both = {"layers", "dfs"} <= set(by)
    head = [f"{m} decided" for m in methods] + ([f"layers {first_phase:g} s, then dfs"] if both else [])
    print("| CPU s a deck at most | " + " | ".join(head) + " |")
    print("|---:|" + "---:|" * len(head))
    for limit in (0.5, 1, 2, 5, 10, 20, 30):
        cells = [sum(1 for d in decks if decided(by[m][d]) and by[m][d]["seconds"] <= limit) for m in methods]
        if both:
            cells.append(sum(1 for d in decks if (t := hybrid(d)) is not None and t <= limit))
        print(f"| {limit} | " + " | ".join(str(c) for c in cells) + " |")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rule", choices=["published", "physical"], default="physical")
    parser.add_argument("--decks", type=int, default=40)
    parser.add_argument("--first", type=int, default=0)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--seconds", type=float, default=30.0, help="the layered search's CPU limit a deck")
    parser.add_argument("--node-budget", type=int, default=60_000_000, help="the depth-first search's budget")
    parser.add_argument("--journal", default="prisoners-layers.jsonl")
    parser.add_argument("--methods", choices=["both", "layers", "dfs", "default", "profile"], default="both",
                        help="both: the layers and the depth-first search; default: the solver's default "
                             "strategy and budget for the rule (the hybrid under physical); profile: the "
                             "layers' rows, memory and time layer by layer")
    parser.add_argument("--report", action="store_true")
    parser.add_argument("--report-caps", action="store_true",
                        help="from the profile records: decks settled and CPU a deck by budget and width cap")
    parser.add_argument("--first-phase", type=float, default=2.0,
                        help="--report: the hybrid's layered phase, CPU s a deck (then the depth-first search)")
    args = parser.parse_args(argv)
    path = Path(args.journal)
    if args.report:
        _report(path, args.first_phase)
        return 0
    if args.report_caps:
        _report_caps(path)
        return 0
    from exact.prisoners.best_play import random_orders, solve_decks
    from sim import Deck

    deck = Deck(4, 13)
    variant = f"prisoners(moves={args.rule})"
    orders = random_orders(deck, 1000, args.seed)
    done = set()
    if path.exists():
        done = {(r["method"], r["deck"]) for r in map(json.loads, path.read_text().splitlines()) if r}
    layered_verdict([0, 1, 2, 1], 13, True, args.rule == "published")  # compile
    with path.open("a") as journal:
        for index in range(args.first, args.first + args.decks):
            if ("layers", index) not in done and args.methods in ("both", "layers"):
                t = time.thread_time()
                verdict = layered_verdict([deck.rank(c) for c in orders[index]], deck.ranks, True,
                                          args.rule == "published", seconds=args.seconds)
                record = {"method": "layers", "deck": index, "status": verdict["status"], "rows": verdict["rows"],
                          "peak_layer": max(verdict["widths"]), "seconds": round(time.thread_time() - t, 3)}
                print(json.dumps(record), file=journal, flush=True)
            if ("profile", index) not in done and args.methods == "profile":
                profile = layer_profile([deck.rank(c) for c in orders[index]], deck.ranks, True,
                                        args.rule == "published", args.seconds)
                print(json.dumps({"method": "profile", "deck": index, **profile}), file=journal, flush=True)
            for method, wanted, kwargs in (("dfs", ("both", "dfs"), {"node_budget": args.node_budget,
                                                                      "strategy": "restarts"}),
                                           ("default", ("default",), {})):  # the solver's own defaults
                if (method, index) not in done and args.methods in wanted:
                    (record,) = solve_decks(deck, variant, decks=1000, seed=args.seed, indices=[index], **kwargs)
                    status = {"won": "won", "lost": "lost"}.get(record["status"], "open")
                    print(json.dumps({"method": method, "deck": index, "status": status, "nodes": record["nodes"],
                                      "seconds": record["seconds"]}), file=journal, flush=True)
            print(f"deck {index} done", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
