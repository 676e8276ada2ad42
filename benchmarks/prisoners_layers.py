"""A layered search for Prisoner's Patience best play, against the depth-first search at equal CPU.

    python benchmarks/prisoners_layers.py --rule physical [--decks 40] [--first 0] [--seed 2026]
        [--seconds 30] [--node-budget 60000000] [--journal FILE] [--report]

Dealing first loses nothing (:mod:`exact.prisoners.solver`), and every move removes one pile, so
the rows reachable from a dealt row of ``n`` piles fall into layers by pile count: layer ``k`` holds
the distinct rows of ``n - k`` piles, each one move from some row of layer ``k - 1``. This search
builds the layers one after the other, each with its duplicates removed (a hash set holding the
whole row, compared in full, so a collision never drops a row), and never forgets a row of the
layer it is building; the deck is won when the layer of one pile is not empty and lost when a
layer comes out empty. It is the breadth-first design asked of a search that "never forgets"; a
row here is what the solver's lost-row table stores (top ranks, or ``(bottom, top)`` ranks with
``moves=published``), and a child's hash follows from its parent's prefix sums as in the solver.

For each deck of the journal's range the script runs this search (stopped at ``--seconds`` of CPU)
and the solver's default search (``solve_decks`` at ``--node-budget``), one deck at a time,
appending one JSON line a deck and method to ``--journal`` (rerun to continue; ``--methods`` runs
one of them); ``--report`` prints the decided decks of each method against CPU seconds a deck, and
those of a hybrid read from the same records: layers for ``--first-phase`` CPU seconds, then the
depth-first search from scratch. The layered search only stops
at a layer's end or a slice of 65,536 rows, so its verdict at a time limit depends on the machine;
the depth-first figures are its nodes' verdicts (the same on every machine) with their CPU time.
``tests/unit/test_prisoners_layers.py`` checks its verdicts against the reference search.
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from exact.prisoners.solver_kernel import neighbour_masks
from sim._jit import jit

_BASE = 0x9E3779B97F4A7C15
_POWERS = np.array([pow(_BASE, p, 1 << 64) for p in range(64)], dtype=np.uint64)
_BASE_INVERSE = np.uint64(pow(_BASE, -1, 1 << 64))
SLICE = 65_536


@jit(inline="always")
def _mix(h):
    h ^= h >> np.uint64(31)
    h *= np.uint64(0xBF58476D1CE4E5B9)
    h ^= h >> np.uint64(29)
    return h


@jit
def _expand(layer, sums, start, stop, n, neighbours, reverse, table, mask, out, out_sums, count, powers, inverse):
    """The children of ``layer[start:stop]`` (rows of ``n`` pile codes, ``sums`` their polynomial
    sums) added to ``out`` (rows of ``n - 1``) unless there already: ``(row reached, count)``; stops
    early, before a row whose children might not fit in ``out``. A code is the top rank (physical)
    or ``16 * bottom + top`` (published); pile ``i`` goes onto ``j = i - 1`` or ``i - 3`` when the
    tops are adjacent, ``j`` taking the code ``i``'s top (physical) or ``16 * bottom_j + bottom_i``."""
    prefix = np.empty(n + 1, np.uint64)
    for r in range(start, stop):
        if count + 2 * n > out.shape[0]:
            return r, count
        row = layer[r]
        total = sums[r]
        prefix[0] = 0
        for k in range(n):
            prefix[k + 1] = prefix[k] + np.uint64(row[k] + 1) * powers[k]
        for i in range(n - 1, 0, -1):
            mover = row[i]
            for d in (1, 3):
                j = i - d
                if j < 0:
                    break
                if not (neighbours[mover & 15] >> (row[j] & 15)) & 1:
                    continue
                code = ((row[j] >> 4) << 4) | (mover >> 4) if reverse else mover
                h = (prefix[i] + np.uint64(code + 1) * powers[j] - np.uint64(row[j] + 1) * powers[j]
                     + (total - prefix[i + 1]) * inverse)
                slot = np.int64(_mix(h) & mask)
                while True:
                    e = table[slot]
                    if e < 0:
                        m = 0
                        for k in range(n):
                            if k != i:
                                out[count, m] = code if k == j else row[k]
                                m += 1
                        out_sums[count] = h
                        table[slot] = count
                        count += 1
                        break
                    if out_sums[e] == h:
                        same = True
                        m = 0
                        for k in range(n):
                            if k != i:
                                if out[e, m] != (code if k == j else row[k]):
                                    same = False
                                    break
                                m += 1
                        if same:
                            break
                    slot = (slot + 1) & np.int64(mask)
    return stop, count


def layered_verdict(ranks_dealt, ranks: int, wrap: bool, reverse: bool, row_budget: int = 10**12,
                    seconds: float | None = None) -> dict:
    """``{"status": "won" | "lost" | "open", "rows": rows expanded, "widths": rows of each layer}``."""
    if ranks > 16:
        raise ValueError("four bits a rank")
    neighbours = neighbour_masks(ranks, wrap)
    start = time.thread_time()
    codes = [17 * int(r) if reverse else int(r) for r in ranks_dealt]
    n = len(codes)
    layer = np.array([codes], dtype=np.uint8)
    sums = np.array([sum((c + 1) * int(_POWERS[k]) for k, c in enumerate(codes)) % (1 << 64)], dtype=np.uint64)
    rows, widths = 0, []
    while n > 1:
        widths.append(len(layer))
        rows += len(layer)
        if rows > row_budget:
            return {"status": "open", "rows": rows, "widths": widths}
        room = max(1024, 3 * len(layer))
        while True:
            out = np.empty((room, n - 1), dtype=np.uint8)
            out_sums = np.empty(room, dtype=np.uint64)
            size = 1 << int(2 * room).bit_length()
            table = np.full(size, -1, dtype=np.int64)
            reached = count = 0
            while reached < len(layer):
                stop = min(len(layer), reached + SLICE)
                reached, count = _expand(layer, sums, reached, stop, n, neighbours, reverse, table,
                                         np.uint64(size - 1), out, out_sums, count, _POWERS, _BASE_INVERSE)
                if seconds is not None and time.thread_time() - start > seconds:
                    return {"status": "open", "rows": rows, "widths": widths}
                if reached < stop:
                    break
            if reached == len(layer):
                break
            room *= 3
        layer, sums, n = out[:count], out_sums[:count], n - 1
        if count == 0:
            return {"status": "lost", "rows": rows, "widths": widths}
    return {"status": "won", "rows": rows, "widths": widths}


def _report(path: Path, first_phase: float = 2.0) -> None:
    """The decided decks of each method against CPU seconds a deck, and of the hybrid the records
    imply: the layered search for at most ``first_phase`` seconds, then (if it left the deck open)
    the depth-first search from scratch, its seconds added to the ``first_phase`` spent."""
    records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
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
    parser.add_argument("--methods", choices=["both", "layers", "dfs"], default="both")
    parser.add_argument("--report", action="store_true")
    parser.add_argument("--first-phase", type=float, default=2.0,
                        help="--report: the hybrid's layered phase, CPU s a deck (then the depth-first search)")
    args = parser.parse_args(argv)
    path = Path(args.journal)
    if args.report:
        _report(path, args.first_phase)
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
            if ("layers", index) not in done and args.methods != "dfs":
                t = time.thread_time()
                verdict = layered_verdict([deck.rank(c) for c in orders[index]], deck.ranks, True,
                                          args.rule == "published", seconds=args.seconds)
                record = {"method": "layers", "deck": index, "status": verdict["status"], "rows": verdict["rows"],
                          "peak_layer": max(verdict["widths"]), "seconds": round(time.thread_time() - t, 3)}
                print(json.dumps(record), file=journal, flush=True)
            if ("dfs", index) not in done and args.methods != "layers":
                (record,) = solve_decks(deck, variant, decks=1000, seed=args.seed, indices=[index],
                                        node_budget=args.node_budget)
                status = {"won": "won", "lost": "lost"}.get(record["status"], "open")
                print(json.dumps({"method": "dfs", "deck": index, "status": status, "nodes": record["nodes"],
                                  "seconds": record["seconds"]}), file=journal, flush=True)
            print(f"deck {index} done", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
