"""Benchmark of the exact odds from a position (One-Handed, ``exact.one_handed.odds``): the exact
engines side by side, one core, each run in a fresh process (so its peak memory is its own).

    .venv/bin/python benchmarks/bench_odds.py [--left 10,11,12,13,14,15,16] [--positions 2] [--seed 1]
        [--budget 120] [--max-gib 3.5] [--search-max-left 13] [--before DIR] [--workers N]
    .venv/bin/python benchmarks/bench_odds.py --estimate 20 --left 16 [--seed 1] [--before DIR]
    .venv/bin/python benchmarks/bench_odds.py --profile 0 --left 14 [--seed 1]

For each number ``k`` of cards left it deals the first ``52 - k`` cards of ``--positions`` random
52-card orders (numpy, from ``--seed``) and times, in CPU seconds (``time.process_time`` around the
call, after a warm-up that loads the compiled kernels) and peak resident memory (``ru_maxrss`` of the
process: Python, numpy and numba included, about 0.2 GiB before any table), on the same positions in
the same run:

* ``search``: the memoised search over the DP's reduced states finished by play-out
  (:func:`exact.one_handed.odds.position_counts`), up to ``--search-max-left`` cards left;
* ``phase``: the phase recursion from the row (:func:`exact.one_handed.odds_phase.position_phase_counts`),
  with its peak table bytes estimated before it runs (:func:`exact.one_handed.odds_phase.phase_table_bytes`);
  a position whose estimate exceeds ``--max-gib`` is not run ("needs X GiB");
* ``before`` (with ``--before DIR``, a source tree of an earlier version, e.g. from
  ``git archive 183945f | tar -x -C /tmp/before``): that tree's phase engine on the same positions,
  with that tree's own estimate, in a process whose imports resolve to ``DIR``;
* ``threads`` (with ``--workers N``, N > 1): this tree's phase engine with ``workers=N`` threads, timed
  in wall-clock seconds (its CPU seconds add up over the threads); the ratio ``phase / threads`` is the
  one-core engine's CPU seconds (its wall-clock seconds, within a few percent) over that.

With ``--estimate N`` nothing is run: for the first ``N`` positions of ``--seed`` it prints the phase
engine's estimated peak (``phase_table_bytes``, no table allocated) and how many are within
``exact.one_handed.odds.MAX_PHASE_TABLE_BYTES`` (with ``--before``, that tree's estimate too).

With ``--profile INDEX`` the phase engine runs once on that position (in this process) and the CPU
seconds are split by the kind of window group filled (told apart by their universe: ``m - 3`` cards
for the windows of three cards to come, ``m - 2`` for a depth's ``(r_i, a, b)``, ``m - 1`` for
``(r_{i-1}, r_i, a)``, ``m`` for ``R_i``), building the groups (their maps, in Python), and the rest
(the forward pass).

All give the same counts where they run (checked here too, column ``same``). An engine is skipped for
the next ``k`` once it took more than ``--budget`` CPU seconds (the search grows about ``k``-fold per
card, the phase engine about 3.5-fold). Prints a markdown table; ``search / phase`` and
``before / phase`` are ratios of CPU seconds on the same position.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve()
ROOT = HERE.parent.parent


def _position(k: int, seed: int, index: int):
    from exact.one_handed.odds import settled_position
    from sim import Deck, Variant

    deck = Deck(4, 13)
    rng = np.random.default_rng(seed)
    order = [rng.permutation(52).tolist() for _ in range(index + 1)][index]
    row, _ = settled_position(order[:52 - k], deck, Variant.make("one-handed"))
    labels = lambda cards: [(deck.suit(c), deck.rank(c)) for c in cards]  # noqa: E731
    return deck, row, order[52 - k:], labels


def _quiet(engine) -> dict:
    """``progress=False`` for an engine that draws a progress bar (an earlier tree's takes no such
    argument)."""
    import inspect

    return {"progress": False} if "progress" in inspect.signature(engine).parameters else {}


def _warm_up_phase(labels) -> None:
    """Compile the phase engine's kernels for every mix of table types a run may meet (uint32 or
    uint64 tables, children and kept B vectors, a row kept apart) outside the timing: a 7-card
    position with the narrow limit at its default and lowered, so that each group kind crosses it.
    (Before this, only the uint32 mix was compiled here, and the first run in a fresh tree paid the
    compilation of the others, several CPU seconds.)"""
    from exact.one_handed import odds_phase

    try:  # the module that holds the tables' types (one module in an earlier tree, --before)
        from exact.one_handed import odds_phase_groups as tables
    except ImportError:
        tables = odds_phase
    default = tables.NARROW_SET_CARDS
    quiet = _quiet(odds_phase.position_phase_counts)
    try:
        for narrow in (default, -1, 3, 4, 5, 6):
            tables.NARROW_SET_CARDS = narrow
            odds_phase.position_phase_counts(labels([0, 1, 2]), labels([3, 4, 5, 6, 7, 8, 9]), **quiet)
    finally:
        tables.NARROW_SET_CARDS = default


def _child(engine: str, k: int, seed: int, index: int, max_gib: float) -> None:
    """One engine on one position, in this process: prints one JSON line."""
    from exact.one_handed.odds import position_counts
    from exact.one_handed.odds_phase import phase_table_bytes, position_phase_counts
    from sim import Deck

    deck, row, undealt, labels = _position(k, seed, index)
    out: dict = {}
    workers = int(engine[len("threads"):]) if engine.startswith("threads") else 1
    if engine == "search":
        position_counts([], list(range(6)), Deck(2, 3))  # load the compiled kernels outside the timing
        t0 = time.process_time()
        counts, _ = position_counts(row, undealt, deck)
    else:
        _warm_up_phase(labels)
        need = phase_table_bytes(labels(row), labels(undealt)) / 2**30
        out["gib"] = need
        if need > max_gib:
            print(json.dumps(out))
            return
        stats: dict = {}
        # (an earlier tree, --before, may take neither workers nor progress)
        options = {**_quiet(position_phase_counts), **({"workers": workers} if workers > 1 else {})}
        t0, w0 = time.process_time(), time.perf_counter()
        counts, _ = position_phase_counts(labels(row), labels(undealt), stats=stats, **options)
        out["depths"] = stats["depths"]
        out["wall"] = time.perf_counter() - w0
    out["cpu"] = time.process_time() - t0
    out["rss"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / 2**30  # Linux: KiB
    out["counts"] = (list(counts) + [0] * 53)[:53]
    print(json.dumps(out))


def _estimates(k: int, seed: int, count: int) -> None:
    """The phase engine's estimated peak (GiB) on the first ``count`` positions: one JSON line."""
    from exact.one_handed.odds import MAX_PHASE_TABLE_BYTES
    from exact.one_handed.odds_phase import phase_table_bytes

    gib = []
    for index in range(count):
        _, row, undealt, labels = _position(k, seed, index)
        gib.append(phase_table_bytes(labels(row), labels(undealt)) / 2**30)
    print(json.dumps({"gib": gib, "limit": MAX_PHASE_TABLE_BYTES / 2**30}))


def _estimate_table(args) -> None:
    trees = [("now", ROOT)] + ([("before", args.before)] if args.before else [])
    print(f"phase engine's estimated peak (GiB) over positions 0-{args.estimate - 1} of seed {args.seed}")
    print("| cards left | tree | min | median | max | within the limit | estimates |")
    print("|---|---|---|---|---|---|---|")
    for k in [int(x) for x in args.left.split(",")]:
        for name, tree in trees:
            env = {**os.environ, "PYTHONPATH": str(tree)}
            done = subprocess.run([sys.executable, str(HERE), "--estimate-child", str(k), str(args.seed),
                                   str(args.estimate)], env=env, cwd=tree, capture_output=True, text=True)
            r = json.loads(done.stdout.strip().splitlines()[-1])
            g = sorted(r["gib"])
            within = sum(x <= r["limit"] for x in g)
            print(f"| {k} | {name} | {g[0]:.2f} | {np.median(g):.2f} | {g[-1]:.2f} | {within} of {len(g)} "
                  f"({r['limit']:.0f} GiB) | {', '.join(f'{x:.2f}' for x in r['gib'])} |", flush=True)


def _profile(k: int, seed: int, index: int) -> None:
    from collections import defaultdict

    from exact.one_handed import odds_phase
    from exact.one_handed.odds_phase_groups import WindowGroup

    _, row, undealt, labels = _position(k, seed, index)
    _warm_up_phase(labels)  # every mix of table types compiled outside the timing
    spent: dict = defaultdict(float)
    kinds = {k - 3: "windows of three cards to come", k - 2: "(r_i, a, b)", k - 1: "(r_{i-1}, r_i, a)", k: "R_i"}
    fill, init = WindowGroup.fill, WindowGroup.__init__

    def timed_fill(group, *a, **kw):
        t0 = time.process_time()
        fill(group, *a, **kw)
        spent[kinds[int(group.usize[0])] if len(group.usize) else "empty"] += time.process_time() - t0

    def timed_init(group, *a, **kw):
        t0 = time.process_time()
        init(group, *a, **kw)
        spent["building the groups (maps)"] += time.process_time() - t0

    WindowGroup.fill, WindowGroup.__init__ = timed_fill, timed_init
    try:
        stats: dict = {}
        t0 = time.process_time()
        odds_phase.position_phase_counts(labels(row), labels(undealt), stats=stats, progress=False)
        total = time.process_time() - t0
    finally:
        WindowGroup.fill, WindowGroup.__init__ = fill, init
    spent["the rest (forward pass)"] = total - sum(spent.values())
    print(f"{k} cards left, position {index} of seed {seed}: {total:.1f} CPU s, {stats['depths']} row depths, "
          f"{stats['symmetry']} relabellings")
    print("| part | CPU s | share |")
    print("|---|---|---|")
    for part, sec in sorted(spent.items(), key=lambda x: -x[1]):
        print(f"| {part} | {sec:.1f} | {100 * sec / total:.0f}% |")


def _run(engine: str, k: int, seed: int, index: int, max_gib: float, tree: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run([sys.executable, str(HERE), "--child", engine, str(k), str(seed), str(index),
                           str(max_gib)], env=env, cwd=tree, capture_output=True, text=True)
    if done.returncode != 0:
        return {"error": (done.stderr.strip().splitlines() or ["failed"])[-1]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--left", default="10,11,12,13,14,15,16")
    parser.add_argument("--positions", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--budget", type=float, default=120.0)
    parser.add_argument("--max-gib", type=float, default=3.5)
    parser.add_argument("--search-max-left", type=int, default=13)
    parser.add_argument("--before", type=Path, default=None, help="source tree of an earlier version")
    parser.add_argument("--workers", type=int, default=1,
                        help="also time this tree's phase engine with this many threads (wall-clock seconds)")
    parser.add_argument("--estimate", type=int, default=0, metavar="N",
                        help="print the phase engine's estimated peak on N positions, run nothing")
    parser.add_argument("--child", nargs=5, metavar=("ENGINE", "K", "SEED", "INDEX", "MAX_GIB"),
                        help=argparse.SUPPRESS)
    parser.add_argument("--profile", type=int, default=None, metavar="INDEX",
                        help="split the phase engine's CPU seconds on one position by the kind of group")
    parser.add_argument("--estimate-child", nargs=3, type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.profile is not None:
        _profile(int(args.left.split(",")[0]), args.seed, args.profile)
        return
    if args.estimate_child:
        _estimates(*args.estimate_child)
        return
    if args.estimate:
        _estimate_table(args)
        return
    if args.child:
        engine, k, seed, index, max_gib = args.child
        _child(engine, int(k), int(seed), int(index), float(max_gib))
        return

    engines = ["search", "phase"] + (["before"] if args.before else []) + (["threads"] if args.workers > 1 else [])
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"machine load average at the start: {load:.1f} on {os.cpu_count()} CPUs")
    print("| cards left | orders | "
          + " | ".join(f"{e} ({'wall' if e == 'threads' else 'CPU'} s; peak GiB)" for e in engines)
          + " | search / phase | " + ("before / phase | " if args.before else "")
          + (f"phase / threads ({args.workers}, wall s) | " if args.workers > 1 else "")
          + "phase tables (GiB, estimated) | row depths reached | same counts |")
    print("|---|---|" + "---|" * (len(engines) + 4 + bool(args.before) + (args.workers > 1)))
    over = dict.fromkeys(engines, False)
    for k in [int(x) for x in args.left.split(",")]:
        cells = {e: [] for e in engines}
        found = {e: [] for e in engines}
        gib, depths, ratios, ratios_before, ratios_threads, same = [], [], [], [], [], True
        for index in range(args.positions):
            got = {}
            for e in engines:
                if over[e] or (e == "search" and k > args.search_max_left):
                    continue
                tree = args.before if e == "before" else ROOT
                kind = {"search": "search", "threads": f"threads{args.workers}"}.get(e, "phase")
                r = _run(kind, k, args.seed, index, args.max_gib, tree)
                if "error" in r:
                    cells[e].append(f"error: {r['error'][:60]}")
                elif "cpu" not in r:
                    cells[e].append(f"needs {r['gib']:.1f} GiB")
                else:
                    got[e] = r
                    cells[e].append(f"{r['wall' if e == 'threads' else 'cpu']:.2f}; {r['rss']:.2f}")
                    found[e].append(r["cpu"])
                if e == "phase" and "gib" in r:
                    gib.append(f"{r['gib']:.2f}")
                    if "depths" in r:
                        depths.append(str(r["depths"]))
            counts = [r["counts"] for r in got.values()]
            same = same and all(c == counts[0] for c in counts)
            if "phase" in got and "search" in got:
                ratios.append(f"{got['search']['cpu'] / got['phase']['cpu']:.1f}x")
            if "phase" in got and "before" in got:
                ratios_before.append(f"{got['before']['cpu'] / got['phase']['cpu']:.2f}x")
            if "phase" in got and "threads" in got:
                ratios_threads.append(f"{got['phase']['cpu'] / got['threads']['wall']:.2f}x")
        for e in engines:
            over[e] = over[e] or (bool(found[e]) and max(found[e]) > args.budget)
        row = [str(k), f"{math.factorial(k):,}"] + [", ".join(cells[e]) or "skipped" for e in engines]
        row += [", ".join(ratios) or "-"] + ([", ".join(ratios_before) or "-"] if args.before else [])
        row += [", ".join(ratios_threads) or "-"] if args.workers > 1 else []
        row += [", ".join(gib) or "-", ", ".join(depths) or "-", str(same)]
        print("| " + " | ".join(row) + " |", flush=True)


if __name__ == "__main__":
    main()
