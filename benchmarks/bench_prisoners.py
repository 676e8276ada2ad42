"""Prisoner's Patience speed: games per CPU-second of each policy, and best play on 52-card decks.

    python benchmarks/bench_prisoners.py [--games 2000000] [--decks 100] [--seed 7] [--node-budget N]
        [--time-budget S] [--strategy beam|restarts|dfs|nrpa] [--engine numba|python] [--ordering K]
        [--before DIR] [--skip-kernel] [--rules R ...] [--profile [--curve] [--commute] [--commute-after N]]
        [--deck-list I,J,...] [--json FILE]

One thread. The kernel figure times the Monte Carlo ``chunk_runner`` (shuffle + play, one policy, unpaired) after
compilation. The best-play figure runs ``estimate_best_play`` on ``--decks`` random 52-card decks
(seed ``--seed``) under each rule and reports won / lost / undecided, the decided share, the lost
decks per proof and CPU seconds a deck (the searching thread's CPU time, so other processes on a
shared machine count little).

``--profile``: instead of the figures above, solve the decks one by one and print where the
searches that stay undecided spend their nodes: per depth (moves made from the dealt row, so
``52 - depth`` piles) the rows expanded, the rows found in the lost-row table and the mean number of
legal moves of an expanded row, summed over the undecided decks, and for each deck its verdict,
nodes, CPU seconds and the fewest piles its search reached.

``--curve`` (with ``--profile``): also print the decided share and the CPU seconds a deck at every
smaller budget (a tenth of ``--node-budget`` to all of it), from the one run: a search that decides a
deck within ``N`` nodes decides it within any budget of at least ``N`` (the restart schedule does not
depend on the budget, and the lost-row table is sized for the whole budget, never emptied), and an
undecided deck's CPU seconds at a smaller budget are scaled from its own rate.

``--deck-list 32,61,43`` (with ``--profile``) solves only those decks of the ``--decks`` (their rows
expanded a CPU second compare kernels on the same searches). ``--commute`` (with ``--profile``)
turns on the commuting-move reduction (``exact/prisoners/solver.py``) from the first node;
``--commute-after N`` from node ``N`` (the solver's default is its ``COMMUTE_AFTER`` of the rule;
``-1``: never, the search before that). ``--rules published`` runs (or profiles) one rule only.

``--before DIR``: also run the same decks, in a subprocess, through an earlier version of the
project whose source tree is ``DIR`` (for example ``git archive c866356 | tar -x -C DIR``), with its
own default search, and print both side by side with the ratio of CPU seconds a deck.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time

from exact.prisoners.best_play import estimate_best_play
from exact.prisoners.limits import DEFAULT_NODE_BUDGET
from sim import Deck, Variant
from sim.kernels.prisoners import chunk_runner
from sim.rng import chunk_states

RULES = ("published", "physical")

_BEFORE = r"""
import json, sys, time
args = json.loads(sys.argv[1])
try:
    from exact.prisoners.solver import estimate_best_play
except ImportError:
    from exact.prisoners.best_play import estimate_best_play
from sim import Deck, Variant
out = {}
for moves in args["rules"]:
    variant = Variant.make("prisoners", moves=moves)
    estimate_best_play(Deck(4, 13), variant, decks=1, seed=args["seed"], node_budget=1000)  # compile
    t0 = time.process_time()
    est = estimate_best_play(Deck(4, 13), variant, decks=args["decks"], seed=args["seed"],
                             node_budget=args["node_budget"])
    cpu = time.process_time() - t0
    out[moves] = {"won": est.won, "lost": est.lost, "undecided": est.undecided, "cpu_per_deck": cpu / est.decks}
    print(moves, json.dumps(out[moves]), file=sys.stderr, flush=True)
print(json.dumps(out))
"""


def kernel_rate(deck: Deck, moves: str, games: int) -> float:
    run = chunk_runner(deck, Variant.make("prisoners", moves=moves), paired=False)
    state = chunk_states(1, 0, 1)[0]
    run(state, 1000)  # compile
    t0 = time.process_time()
    run(state, games)
    return games / (time.process_time() - t0)


def best_play(moves: str, args) -> dict:
    deck = Deck(4, 13)
    variant = Variant.make("prisoners", moves=moves)
    estimate_best_play(deck, variant, decks=1, seed=args.seed, node_budget=1000)  # compile
    est = estimate_best_play(deck, variant, decks=args.decks, seed=args.seed, node_budget=args.node_budget,
                             time_budget=args.time_budget, engine=args.engine, ordering=args.ordering,
                             strategy=args.strategy)
    return {"won": est.won, "lost": est.lost, "undecided": est.undecided,
            "decided_share": (est.won + est.lost) / est.decks, "lost_by": dict(est.lost_by),
            "cpu_per_deck": est.seconds / est.decks, "nodes_per_cpu_second": est.nodes / est.seconds,
            "ci95": list(est.ci95)}


def profile(moves: str, args) -> dict:
    """Where the undecided searches spend their nodes (see the module docstring)."""
    import numpy as np

    from exact.prisoners.best_play import random_orders
    from exact.prisoners.solver import make_searcher

    deck = Deck(4, 13)
    searcher = make_searcher(deck, Variant.make("prisoners", moves=moves), engine="numba", ordering=args.ordering,
                             strategy=args.strategy)
    if args.commute_after is not None:
        searcher.commute_after = None if args.commute_after < 0 else args.commute_after
    if args.commute:
        from exact.prisoners.solver_kernel import COMMUTE

        searcher.proofs |= COMMUTE  # the kernel applies it to moves=published only
    searcher.solve_ranks([r % 13 for r in range(52)], 1000)  # compile
    total = np.zeros((3, deck.size), dtype=np.int64)
    decks = []
    for index, order in enumerate(random_orders(deck, args.decks, args.seed)):
        if args.deck_list is not None and index not in args.deck_list:
            continue
        verdict = searcher.solve_ranks([deck.rank(c) for c in order], args.node_budget, args.time_budget)
        expanded, hits, generated = searcher.profile()
        deepest = int(np.nonzero(expanded)[0].max()) if expanded.any() else 0
        decks.append({"deck": index, "status": verdict.status, "nodes": verdict.nodes, "seconds": round(verdict.seconds, 3),
                      "fewest_piles_reached": deck.size - deepest, "proof": verdict.proof})
        if verdict.status == "undecided":
            total += np.array([expanded, hits, generated])
    undecided = [d for d in decks if d["status"] == "undecided"]
    tally = {status: sum(d["status"] == status for d in decks) for status in ("won", "lost", "undecided")}
    print(f"{moves}: won / lost / undecided {tally['won']} / {tally['lost']} / {tally['undecided']}, "
          f"{sum(d['nodes'] for d in decks):,} nodes, {sum(d['seconds'] for d in decks) / len(decks):.3f} CPU s a deck, "
          f"{sum(d['nodes'] for d in decks) / max(sum(d['seconds'] for d in decks), 1e-9):,.0f} rows a CPU second")
    print(f"{moves}: {len(undecided)} of {len(decks)} decks undecided; fewest piles their searches reached: "
          f"{sorted(d['fewest_piles_reached'] for d in undecided)}")
    print(f"{'depth':>5} {'piles':>5} {'expanded':>10} {'table hits':>10} {'moves/row':>9}")
    for depth in range(deck.size):
        if total[0, depth]:
            print(f"{depth:>5} {deck.size - depth:>5} {total[0, depth]:>10} {total[1, depth]:>10} "
                  f"{total[2, depth] / total[0, depth]:>9.2f}")
    if args.curve:
        print(f"{moves}: {'node budget':>12} {'decided':>8} {'won':>5} {'CPU s a deck':>13}")
        for budget in sorted({int(args.node_budget * f) for f in (0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.6, 0.8, 1.0)}):
            print(f"{moves}: {budget:>12,} {decided_share(decks, budget):>8.1%} "
                  f"{sum(d['status'] == 'won' and d['nodes'] <= budget for d in decks):>5} "
                  f"{cpu_per_deck(decks, budget):>13.3f}")
    return {"decks": decks, "expanded": total[0].tolist(), "table_hits": total[1].tolist(),
            "moves": total[2].tolist()}


def decided_share(decks: list[dict], budget: int) -> float:
    """The share of ``decks`` (``profile``'s per-deck results) decided within ``budget`` nodes."""
    return sum(d["status"] != "undecided" and d["nodes"] <= budget for d in decks) / len(decks)


def cpu_per_deck(decks: list[dict], budget: int) -> float:
    """CPU seconds a deck at ``budget`` nodes: a deck decided within it as measured, any other its own
    rate (seconds a node) times the budget."""
    return sum(d["seconds"] if d["status"] != "undecided" and d["nodes"] <= budget
               else d["seconds"] / max(d["nodes"], 1) * budget for d in decks) / len(decks)


def before(directory: str, args) -> dict:
    spec = json.dumps({"rules": list(args.rules), "decks": args.decks, "seed": args.seed,
                       "node_budget": args.node_budget})
    done = subprocess.run([sys.executable, "-c", _BEFORE, spec], cwd=directory, capture_output=True, text=True, check=False,
                          env={"PYTHONPATH": directory, "NUMBA_NUM_THREADS": "1", "PATH": "/usr/bin:/bin"})
    if done.returncode != 0:
        raise SystemExit(f"the earlier version in {directory} failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2_000_000)
    parser.add_argument("--decks", type=int, default=100)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--node-budget", type=int, default=DEFAULT_NODE_BUDGET)
    parser.add_argument("--time-budget", type=float, default=None)
    parser.add_argument("--engine", choices=["numba", "python"], default="numba")
    parser.add_argument("--ordering", type=int, default=0)
    parser.add_argument("--strategy", choices=["beam", "restarts", "dfs", "nrpa"], default="restarts")
    parser.add_argument("--profile", action="store_true", help="where the undecided searches spend their nodes")
    parser.add_argument("--curve", action="store_true",
                        help="with --profile: the decided share and CPU s a deck at every smaller budget")
    parser.add_argument("--commute", action="store_true",
                        help="with --profile: the commuting-move reduction from the first node")
    parser.add_argument("--commute-after", type=int, default=None, metavar="N",
                        help="with --profile: the restarts turn on the commuting-move reduction after N nodes "
                             "(default: the solver's COMMUTE_AFTER of the rule; -1: never)")
    parser.add_argument("--deck-list", type=lambda text: {int(x) for x in text.split(",")}, default=None,
                        metavar="I,J,...", help="with --profile: only these decks (indices among the --decks)")
    parser.add_argument("--rules", nargs="+", choices=RULES, default=list(RULES), help="these rules only")
    parser.add_argument("--before", metavar="DIR", default=None,
                        help="source tree of an earlier version to run the same decks through")
    parser.add_argument("--skip-kernel", action="store_true", help="best play only")
    parser.add_argument("--before-only", action="store_true", help="run the earlier version only (with --before)")
    parser.add_argument("--json", metavar="FILE", default=None)
    args = parser.parse_args(argv)
    report = {"decks": args.decks, "seed": args.seed, "node_budget": args.node_budget,
              "time_budget": args.time_budget, "rules": {}}
    if args.profile:
        report["profile"] = {moves: profile(moves, args) for moves in args.rules}
        if args.json:
            with open(args.json, "w") as f:
                json.dump(report, f, indent=1)
        return
    for moves in args.rules:
        if args.before_only:
            report["rules"][moves] = {}
            continue
        entry = report["rules"][moves] = {"best_play": best_play(moves, args)}
        print(moves, json.dumps(entry["best_play"]), file=sys.stderr, flush=True)
        if not args.skip_kernel:
            entry["games_per_cpu_second"] = round(kernel_rate(Deck(4, 13), moves, args.games))
    if args.before:
        old = before(args.before, args)
        for moves in args.rules:
            report["rules"][moves]["before"] = old[moves]
    print(f"{'rule':<10} {'version':<7} {'won':>4} {'lost':>4} {'undec':>5} {'decided':>8} {'CPU s/deck':>10}")
    for moves, entry in report["rules"].items():
        rows = ([("now", entry["best_play"])] if "best_play" in entry else []) + (
            [("before", entry["before"])] if "before" in entry else [])
        for name, r in rows:
            decided = (r["won"] + r["lost"]) / args.decks
            print(f"{moves:<10} {name:<7} {r['won']:>4} {r['lost']:>4} {r['undecided']:>5} {decided:>8.0%} "
                  f"{r['cpu_per_deck']:>10.3f}")
        if "before" in entry and "best_play" in entry:
            print(f"{moves:<10} ratio of CPU s/deck, before / now: "
                  f"{entry['before']['cpu_per_deck'] / entry['best_play']['cpu_per_deck']:.2f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)
    else:
        print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
