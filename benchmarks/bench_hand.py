"""Hand Solitaire benchmark (apart from the tests): our engine against the published Zig simulator.

Everything is timed in CPU seconds of one thread, so other processes on a shared machine count
against neither side; the peer and our engine run one after the other in the same invocation.

* **The peer** (``hand-solitaire-zig/`` in the folder given by ``--peers DIR`` or the environment
  variable ``SOLITAIRE_PEERS``) is built into a temporary folder with the Zig compiler that PyPI ships
  (``pip install --target TMP ziglang==0.15.2``, then ``python -m ziglang build -Doptimize=ReleaseFast``
  in a copy of the peer) and run as ``hand_solitaire RUNS SEED``: it plays RUNS runs of the published
  rules (our ``rank_resets=published``) on 52 cards, each until a win or about 1000 iterations, and
  classifies every run that reaches the cap by searching all the decks reachable from it. Its CPU time
  is read from the child's resource usage. Without a peer folder, or if the build fails, the peer
  columns are skipped with a message saying why.
* **Ours, simulate**: the Monte Carlo chunk runner (``sim.kernels.hand.chunk_runner``, what
  ``solitaire simulate --game hand --workers 1`` runs), the same number of runs, cap 1000, per variant;
  every variant is compared with the peer and with the published variant. Nanoseconds per iteration
  count every iteration up to the win or the cap; with ``reshuffle=off`` the kernel skips the
  repeated cycles of the runs that never win, so that figure is per iteration counted, not played.
* **Ours, poison**: ``exact.hand.poison.classify_runs`` (play every run, then decide each capped run
  exactly and the start deck of each trapped one): all decks per CPU second of the whole call, against
  the peer's runs per CPU second (the peer classifies its capped runs too).
* Optionally (``--graphs``) the whole deck-order graphs of every deck of ``--max-cards`` cards, each in
  a fresh process so that its peak memory is its own.

Each measurement is repeated ``--repeats`` times and the best kept. The figures of both sides are
printed too (won on the first iteration, within 10 and 25, capped), as a check that they play the same
game.

Usage::

    python benchmarks/bench_hand.py --peers DIR                       # 200,000 runs, best of 3
    SOLITAIRE_PEERS=DIR python benchmarks/bench_hand.py --runs 400000 --json bench.json
    python benchmarks/bench_hand.py --graphs --max-cards 10            # add the whole graphs
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from exact.hand.limits import MAX_GRAPH_CARDS
from sim import Deck, Variant

PEER_FOLDER = "hand-solitaire-zig"
ZIG_PACKAGE = "ziglang==0.15.2"
PUBLISHED = "hand(rank_resets=published)"
VARIANTS = (PUBLISHED, "hand()", "hand(step7=off)", "hand(reshuffle=off)")
GRAPH_VARIANTS = ("hand()", "hand(rank_resets=published)", "hand(step7=off)", "hand(reshuffle=off)")


# --- the peer ----------------------------------------------------------------------------------

class PeerUnavailable(Exception):
    """The peer cannot be built or run here (the message says why)."""


def build_peer(peers: str | None, workdir: Path) -> Path:
    """Build the Zig peer in ``workdir``; returns the binary. Raises :class:`PeerUnavailable`."""
    if not peers:
        raise PeerUnavailable("no peer folder: pass --peers DIR or set SOLITAIRE_PEERS")
    source = Path(peers) / PEER_FOLDER
    if not (source / "main.zig").is_file():
        raise PeerUnavailable(f"{source} has no main.zig")
    zig = workdir / "ziglang"
    pip = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--target", str(zig), ZIG_PACKAGE], check=False,
                         capture_output=True, text=True)
    if pip.returncode != 0:
        raise PeerUnavailable(f"pip install {ZIG_PACKAGE} failed: {pip.stderr.strip().splitlines()[-1:]}")
    build = workdir / "peer"
    shutil.copytree(source, build)
    for path in [build, *build.rglob("*")]:
        path.chmod(path.stat().st_mode | 0o200)  # the shared copy is read-only
    env = dict(os.environ, PYTHONPATH=str(zig))
    proc = subprocess.run([sys.executable, "-m", "ziglang", "build", "-Doptimize=ReleaseFast",
                           "--global-cache-dir", str(workdir / "zig-cache")], check=False, cwd=build, env=env,
                          capture_output=True, text=True)
    binary = build / "zig-out" / "bin" / "hand_solitaire"
    if proc.returncode != 0 or not binary.is_file():
        raise PeerUnavailable(f"zig build failed: {proc.stderr.strip()[-300:]}")
    return binary


def _one_cpu():
    """Pin the calling process to one CPU (the peer is single-threaded anyway)."""
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})


def run_peer(binary: Path, runs: int, seed: int) -> dict:
    """One run of the peer: CPU seconds (user + system of the child) and its figures."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = time.perf_counter()
    proc = subprocess.run([str(binary), str(runs), str(seed)], capture_output=True, text=True, check=True,
                          preexec_fn=_one_cpu)
    wall = time.perf_counter() - wall
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    histogram, trapped, reachable, late = {}, 0, 0, 0
    for line in proc.stdout.splitlines():
        if line.startswith("Found set of"):
            trapped += 1
        elif line.startswith("Found eventual solution"):
            reachable += 1
        elif line.startswith("Won after"):
            late += 1
        elif "\t" in line:
            i, count = line.split("\t")
            histogram[int(i)] = int(count)
    capped = histogram.pop(0, 0)
    return {"runs": runs, "cpu_seconds": cpu, "wall_seconds": wall, "runs_per_cpu_second": runs / cpu,
            "figures": _figures(histogram, runs, capped), "capped_trapped": trapped,
            "capped_win_reachable": reachable, "won_after_999": late}


def _figures(histogram: dict, runs: int, capped: int) -> dict:
    def within(last):
        return sum(c for i, c in histogram.items() if 1 <= i <= last) / runs

    return {"first": within(1), "within_10": within(10), "within_25": within(25), "capped": capped / runs}


# --- ours --------------------------------------------------------------------------------------

def run_ours(runs: int, variant: str, seed: int) -> dict:
    """One chunk of ``runs`` runs of 52 cards, cap 1000 (compiled beforehand)."""
    from sim.kernels.hand import chunk_runner
    from sim.rng import chunk_states

    run = chunk_runner(Deck(4, 13), Variant.parse(variant))
    run(chunk_states(0, 0, 1)[0], 100)  # compile / load the cache
    cpu, wall = time.process_time(), time.perf_counter()
    counts = run(chunk_states(seed, 0, 1)[0], runs)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    histogram = dict(enumerate(counts["iterations_to_win"].tolist()))
    iterations = sum(i * c for i, c in histogram.items()) + 1000 * counts["capped"]
    return {"variant": variant, "runs": runs, "cpu_seconds": cpu, "wall_seconds": wall,
            "runs_per_cpu_second": runs / cpu, "iterations_per_cpu_second": iterations / cpu,
            "ns_per_iteration": 1e9 * cpu / iterations, "figures": _figures(histogram, runs, counts["capped"])}


def run_poison(decks: int, seed: int) -> dict:
    """``classify_runs`` (published rules): every run played, every capped run decided."""
    from exact.hand.poison import classify_runs

    classify_runs(Deck(4, 13), PUBLISHED, decks=200, seed=0)  # compile
    cpu = time.process_time()
    r = classify_runs(Deck(4, 13), PUBLISHED, decks=decks, seed=seed)
    cpu = time.process_time() - cpu
    play, decide = r.provenance["play_seconds"], r.provenance["decide_seconds"]
    capped = r.trapped + r.win_reachable + r.undecided
    return {"decks": decks, "cpu_seconds": cpu, "decks_per_cpu_second": decks / cpu, "play_seconds": play,
            "exploration_seconds": decide, "capped_runs": capped, "trapped": r.trapped,
            "win_reachable": r.win_reachable, "undecided": r.undecided, "poison_set_sizes": r.poison_set_sizes}


def best(measure, repeats: int, key: str):
    rows = [measure(k) for k in range(repeats)]
    return max(rows, key=lambda row: row[key])


# --- whole graphs (optional) -------------------------------------------------------------------

def whole_graph(deck: Deck, variant: Variant) -> dict:
    """One graph in this process (a fresh one: see :func:`whole_graph_in_child`)."""
    from exact.hand.whole_deck import analyse_deck

    analyse_deck(Deck(2, 2), variant)  # compile the kernels / load the cache
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    t0 = time.perf_counter()
    r = analyse_deck(deck, variant)
    seconds = time.perf_counter() - t0
    return {"deck": str(deck), "variant": str(variant), "seconds": seconds,
            "max_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            "rss_before_mib": rss_before, "classes": r.classes, "orders_played": r.orders_played,
            "poison_sets": r.poison_sets, "p_win": float(r.p_win)}  # the exact fraction can run to 1,000 digits


def whole_graph_in_child(deck: Deck, variant: str) -> dict:
    proc = subprocess.run([sys.executable, __file__, "--graph", str(deck), variant], capture_output=True,
                          text=True, check=True)
    return json.loads(proc.stdout)


def graphs(cards: int, variants: str) -> list:
    rows = []
    for suits in range(1, cards + 1):
        if cards % suits:
            continue
        for text in variants.split(";"):
            rows.append(whole_graph_in_child(Deck(suits, cards // suits), text))
            print(json.dumps(rows[-1]), flush=True)
    if rows:
        worst = max(rows, key=lambda row: row["seconds"])
        print(f"largest whole graph ({cards} cards): {worst['deck']} {worst['variant']}: {worst['seconds']:.1f} s, "
              f"peak RSS {worst['max_rss_mib']:.0f} MiB ({worst['rss_before_mib']:.0f} MiB before the analysis), "
              f"{worst['classes']:,} classes; largest peak RSS of any: "
              f"{max(row['max_rss_mib'] for row in rows):.0f} MiB", flush=True)
    return rows


# --- main --------------------------------------------------------------------------------------

def _load() -> str:
    try:
        return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg()) + f" on {os.cpu_count()} CPUs"
    except OSError:
        return "load average unknown"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--peers", default=os.environ.get("SOLITAIRE_PEERS"),
                        help="folder holding hand-solitaire-zig/ (default: $SOLITAIRE_PEERS)")
    parser.add_argument("--runs", type=int, default=200_000, help="runs per measurement, both sides")
    parser.add_argument("--repeats", type=int, default=3, help="measurements per figure; the best is kept")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--variants", default=";".join(VARIANTS), help="';'-separated variants of ours")
    parser.add_argument("--no-poison", action="store_true", help="skip the poison (play + decide) comparison")
    parser.add_argument("--graphs", action="store_true", help="also time the whole deck-order graphs")
    parser.add_argument("--max-cards", type=int, default=MAX_GRAPH_CARDS)
    parser.add_argument("--graph-variants", default=";".join(GRAPH_VARIANTS),
                        help="';'-separated variants for the whole graphs")
    parser.add_argument("--json", help="also write the measurements to this file")
    parser.add_argument("--graph", nargs=2, metavar=("DECK", "VARIANT"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.graph:
        suits, ranks = map(int, args.graph[0].split("x"))
        print(json.dumps(whole_graph(Deck(suits, ranks), Variant.parse(args.graph[1]))))
        return
    _one_cpu()
    out = {"runs": args.runs, "repeats": args.repeats, "load_before": _load()}
    print(f"Hand Solitaire, 52 cards, {args.runs:,} runs per measurement, best of {args.repeats}; {out['load_before']}",
          flush=True)
    with tempfile.TemporaryDirectory(prefix="bench-hand-peer-") as workdir:
        try:
            binary = build_peer(args.peers, Path(workdir))
        except PeerUnavailable as why:
            print(f"peer skipped: {why}", flush=True)
            binary = None
        peer = None
        if binary is not None:
            peer = best(lambda k: run_peer(binary, args.runs, args.seed + k), args.repeats, "runs_per_cpu_second")
            out["peer"] = peer
            print("peer " + json.dumps(peer), flush=True)
    ours = []
    for variant in args.variants.split(";"):
        row = best(lambda k, v=variant: run_ours(args.runs, v, args.seed + k), args.repeats, "runs_per_cpu_second")
        ours.append(row)
        print("ours " + json.dumps(row), flush=True)
    out["ours"] = ours
    if not args.no_poison:
        out["poison"] = best(lambda k: run_poison(args.runs, args.seed + k), args.repeats, "decks_per_cpu_second")
        print("poison " + json.dumps(out["poison"]), flush=True)
    out["load_after"] = _load()

    published = next((row for row in ours if row["variant"] == PUBLISHED), None)
    print(f"\nruns per CPU-second (one core), {out['load_after']}")
    print(f"{'what':<44} {'runs/CPU-s':>12} {'ns/iteration':>13} {'vs peer':>8} {'vs ours published':>18}")
    if peer:
        print(f"{'peer (Zig), published rules + classification':<44} {peer['runs_per_cpu_second']:>12,.0f} "
              f"{'':>13} {1:>8.2f}")
    for row in ours:
        vs_peer = f"{row['runs_per_cpu_second'] / peer['runs_per_cpu_second']:>8.2f}" if peer else f"{'-':>8}"
        vs_pub = row["runs_per_cpu_second"] / published["runs_per_cpu_second"] if published else float("nan")
        print(f"{'ours simulate ' + row['variant']:<44} {row['runs_per_cpu_second']:>12,.0f} "
              f"{row['ns_per_iteration']:>13.0f} {vs_peer} {vs_pub:>18.2f}")
    if any("reshuffle=off" in row["variant"] for row in ours):
        print("(reshuffle=off: ns per iteration counted up to the cap; repeated cycles are skipped, not played)")
    if "poison" in out:
        p = out["poison"]
        vs_peer = f"{p['decks_per_cpu_second'] / peer['runs_per_cpu_second']:>8.2f}" if peer else f"{'-':>8}"
        print(f"{'ours poison (play + decide), published':<44} {p['decks_per_cpu_second']:>12,.0f} {'':>13} {vs_peer}")
    print("\nfigures (won on the first iteration, within 10, within 25, capped):")
    for name, row in ([("peer", peer)] if peer else []) + [(f"ours {r['variant']}", r) for r in ours]:
        f = row["figures"]
        print(f"  {name:<42} {f['first']:.4f} {f['within_10']:.4f} {f['within_25']:.4f} {f['capped']:.5f}")
    if peer and "poison" in out:
        print(f"  capped runs decided: peer {peer['capped_trapped']} trapped + {peer['capped_win_reachable']} "
              f"win-reachable; ours {out['poison']['trapped']} trapped + {out['poison']['win_reachable']} "
              f"win-reachable + {out['poison']['undecided']} undecided")
    if args.graphs:
        out["graph"] = graphs(args.max_cards, args.graph_variants)
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
