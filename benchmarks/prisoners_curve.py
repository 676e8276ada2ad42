"""Prisoner's Patience best play: proved won / proved lost / open against CPU seconds a deck.

    python benchmarks/prisoners_curve.py --rule physical --decks 100 --node-budget 25000000 \
        --journal curve-physical.jsonl [--seed 2026] [--label now] [--strategy restarts] [--workers 2]
        [--used-partners]
    python benchmarks/prisoners_curve.py --rule physical --decks 100 --journal curve-physical.jsonl --report

Solves the first ``--decks`` random 52-card decks of ``--seed`` (the decks of
``solitaire solve --decks N --seed S``, so the first 100 of seed 2026 are a fixed random sample of
the 1,000 stored ones) one by one at the node budget, and appends each deck's verdict, nodes and CPU
seconds (the searching thread's) to the journal, one JSON line a deck. A run that stops (Ctrl-C, a
killed job) resumes where it stopped: decks already in the journal under the same label, rule,
seed, node budget and strategy are not solved again. So ``--decks 1000`` later continues a
100-deck run.

``--report`` prints the curve from the journal without solving: at each budget (from a hundredth of
the node budget up to all of it) the decks proved won, proved lost and open, and the CPU seconds a
deck, and the same at the CPU seconds a deck of 0.1, 0.2, 0.5, 1, 2, 5, 10, 20 and 30 (the largest
node budget whose CPU seconds a deck stay within them). One run gives the whole curve: a search that
decides a deck within ``N`` nodes decides it within every budget of at least ``N`` (the restart
schedule does not depend on the budget, and the lost-row table is sized for the whole budget, so
never emptied), and an open deck's seconds at a smaller budget are scaled from its own rate.

``--workers N`` solves the decks in ``N`` processes (each a deck at a time; a deck's verdict depends
on that deck alone, so the journal is the same, in another line order).
"""
from __future__ import annotations

import argparse
import json
import os
import sys

from sim import Deck, Variant

CPU_POINTS = (0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 30.0)


def _key(args) -> dict:
    key = {"label": args.label, "rule": args.rule, "seed": args.seed, "node_budget": args.node_budget,
           "strategy": args.strategy or "restarts"}
    if args.used_partners:
        key["used_partners"] = True
    return key


def read_journal(path: str, key: dict) -> dict[int, dict]:
    """The decks of the journal at ``path`` solved under ``key``: {deck index: record}."""
    done = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                line = line.strip()
                if not line:
                    continue
                try:
                    record = json.loads(line)
                except json.JSONDecodeError:  # a line cut short by a killed run
                    continue
                if all(record.get(k) == v for k, v in key.items()):
                    done[int(record["deck"])] = record
    return done


def _solve_some(job):
    """Solve the decks ``indices`` of the run ``key`` (in a worker process): their records."""
    from exact.prisoners.best_play import solve_decks

    key, decks, indices = job
    from exact.prisoners.solver_kernel import USED_PROOF

    records = solve_decks(Deck(4, 13), Variant.make("prisoners", moves=key["rule"]), decks=decks, seed=key["seed"],
                          indices=indices, node_budget=key["node_budget"], strategy=key["strategy"],
                          extra_proofs=USED_PROOF if key.get("used_partners") else 0)
    return [{**key, **record} for record in records]


def _warm(key) -> None:
    """Compile the kernel (numba compiles on first use) outside the measured searches."""
    _solve_some(({**key, "node_budget": 1000}, 1, [0]))


def run(args) -> None:
    key = _key(args)
    done = read_journal(args.journal, key)
    todo = [k for k in range(args.decks) if k not in done]
    print(f"{len(done)} decks in the journal, {len(todo)} to solve", file=sys.stderr, flush=True)
    if not todo:
        return
    with open(args.journal, "a") as journal:
        if args.workers <= 1:
            _warm(key)
            for index in todo:
                for record in _solve_some((key, args.decks, [index])):
                    journal.write(json.dumps(record) + "\n")
                    journal.flush()
                    print(f"deck {index}: {record['status']} {record['nodes']:,} nodes {record['seconds']:.2f} s",
                          file=sys.stderr, flush=True)
        else:
            from concurrent.futures import ProcessPoolExecutor

            with ProcessPoolExecutor(args.workers) as pool:
                list(pool.map(_warm, [key] * args.workers))  # compile in each worker
                for records in pool.map(_solve_some, [(key, args.decks, [k]) for k in todo]):
                    for record in records:
                        journal.write(json.dumps(record) + "\n")
                        journal.flush()


def curve(records: list[dict], budget: int) -> dict:
    """Proved won, proved lost, open and CPU seconds a deck at ``budget`` nodes, from the deck records
    of one run at a budget of at least ``budget``."""
    decided = [r for r in records if r["status"] != "undecided" and r["nodes"] <= budget]
    won = sum(r["status"] == "won" for r in decided)
    seconds = sum(r["seconds"] if r in decided else r["seconds"] / max(r["nodes"], 1) * budget for r in records)
    return {"node_budget": budget, "won": won, "lost": len(decided) - won, "open": len(records) - len(decided),
            "cpu_per_deck": seconds / len(records)}


def report(args) -> dict:
    records = list(read_journal(args.journal, _key(args)).values())
    records = [r for r in records if r["deck"] < args.decks]
    if not records:
        raise SystemExit(f"no decks of this run in {args.journal}")
    n = len(records)
    budgets = sorted({max(1, int(args.node_budget * f)) for f in
                      (0.01, 0.02, 0.04, 0.06, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.6, 0.8, 1.0)}
                     | {r["nodes"] for r in records if r["status"] != "undecided"})
    rows = [curve(records, b) for b in budgets]
    print(f"{args.rule}, {n} decks of seed {args.seed}, run at {args.node_budget:,} nodes ({args.label})")
    print(f"{'node budget':>12} {'proved won':>10} {'proved lost':>11} {'open':>5} {'CPU s a deck':>12}")
    for row in rows:
        if row["node_budget"] in {max(1, int(args.node_budget * f)) for f in
                                  (0.01, 0.02, 0.04, 0.06, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.6, 0.8, 1.0)}:
            print(f"{row['node_budget']:>12,} {row['won']:>10} {row['lost']:>11} {row['open']:>5} "
                  f"{row['cpu_per_deck']:>12.3f}")
    print(f"{'CPU s a deck':>12} {'node budget':>12} {'proved won':>10} {'proved lost':>11} {'open':>5} {'decided':>8}")
    points = []
    for cpu in CPU_POINTS:
        within = [row for row in rows if row["cpu_per_deck"] <= cpu]
        if not within or (cpu > rows[-1]["cpu_per_deck"] and rows[-1]["open"] > 0 and cpu > 1.05 * rows[-1]["cpu_per_deck"]):
            continue  # beyond this run's budget (an open deck might close there)
        best = within[-1]
        points.append({"cpu_per_deck": cpu, **best})
        print(f"{cpu:>12g} {best['node_budget']:>12,} {best['won']:>10} {best['lost']:>11} {best['open']:>5} "
              f"{(best['won'] + best['lost']) / n:>8.1%}")
    return {"decks": n, "rows": rows, "points": points}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rule", choices=["published", "physical"], required=True)
    parser.add_argument("--decks", type=int, default=100)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--node-budget", type=int, required=True)
    parser.add_argument("--strategy", choices=["beam", "restarts", "dfs", "nrpa"], default=None)
    parser.add_argument("--label", default="now", help="names the solver version in the journal")
    parser.add_argument("--journal", required=True, metavar="FILE")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--used-partners", action="store_true",
                        help="the search also cuts rows by used_partners (kernel bit USED_PROOF, every row size)")
    parser.add_argument("--report", action="store_true", help="print the curve from the journal; solve nothing")
    parser.add_argument("--json", metavar="FILE", default=None, help="with --report: write the curve there")
    args = parser.parse_args(argv)
    if args.report:
        out = report(args)
        if args.json:
            with open(args.json, "w") as f:
                json.dump(out, f, indent=1)
    else:
        run(args)


if __name__ == "__main__":
    main()
