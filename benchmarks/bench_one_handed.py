"""One-Handed Solitaire Monte Carlo: our engine against the published numba peer, per CPU core.

Runs the peer (the published numba simulator ``seed002_numba.py``: ``--peer PATH``, or the file of
that name in the folder named by the environment variable ``SOLITAIRE_PEERS``) in a subprocess with
``NUMBA_NUM_THREADS=1``: the child loads the peer's module unchanged and calls its own functions the
way its ``main()`` does (``create_deck``, a 1000-game warm-up call of ``simulation_loop`` to compile,
then the timed call), measuring CPU seconds (``time.process_time``) as well as the wall seconds the
peer itself prints. Our engine is timed in this process with ``simulate(..., workers=1)`` after a
warm-up run. Each measurement is repeated and the best is kept (the machine may be shared), and the
table shows games per CPU second and their ratio. Also shown: our throughput with two workers (wall
clock) and, for reference, per CPU second.

Usage::

    .venv/bin/python benchmarks/bench_one_handed.py                 # 4x13, 4x5, 8x13
    .venv/bin/python benchmarks/bench_one_handed.py --shapes 4x13 --games 8000000 --repeats 5
    .venv/bin/python benchmarks/bench_one_handed.py --shapes 4x13 --variant "one-handed(final=once)"

``--variant`` times our engine on another rule reading (the peer always plays the plain game).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

#: The peer's file name, looked up in the folder named by $SOLITAIRE_PEERS when --peer is not given.
PEER_NAME = "seed002_numba.py"


def find_peer(given: Path | None) -> Path | None:
    """``--peer``, else ``$SOLITAIRE_PEERS/seed002_numba.py``, else None."""
    if given is not None:
        return given
    folder = os.environ.get("SOLITAIRE_PEERS")
    return Path(folder) / PEER_NAME if folder else None

# Runs in the child: the peer's own functions, timed by CPU and wall clock, best of `repeats`.
_PEER_CHILD = r"""
import importlib.util, json, sys, time
path, games, suits, ranks, repeats = sys.argv[1], *map(int, sys.argv[2:6])
spec = importlib.util.spec_from_file_location("peer_under_test", path)
peer = importlib.util.module_from_spec(spec)
spec.loader.exec_module(peer)
deck = peer.create_deck(suits, ranks)
peer.simulation_loop(1000, deck)  # compile / load cache, as the peer's main() does
for _ in range(repeats):
    c, w = time.process_time(), time.perf_counter()
    out = peer.simulation_loop(games, deck)
    cpu, wall = time.process_time() - c, time.perf_counter() - w
    print(json.dumps({"cpu": cpu, "wall": wall, "wins": int((out == 0).sum()), "mean": float(out.mean())}))
"""


def run_peer(path: Path, games: int, suits: int, ranks: int, repeats: int) -> dict:
    """Best CPU and wall seconds of the peer on one thread (its JIT warm-up excluded).

    The peer's kernels use ``cache=True``. Left alone, numba writes its cache beside the peer (a
    shared, read-only reference) and a second run, loading that cache into a module with no importable
    name, fails with ``No module named '<dynamic>'``. So each child gets its own fresh cache folder,
    removed afterwards, and writes no bytecode; the JIT warm-up call still compiles before timing.
    """
    cache_dir = tempfile.mkdtemp(prefix="bench-peer-numba-")
    env = dict(os.environ, NUMBA_NUM_THREADS="1", NUMBA_CACHE_DIR=cache_dir,
               PYTHONDONTWRITEBYTECODE="1")
    try:
        proc = subprocess.run([sys.executable, "-c", _PEER_CHILD, str(path), str(games), str(suits),
                               str(ranks), str(repeats)], env=env, capture_output=True, text=True,
                              check=True)
    finally:
        shutil.rmtree(cache_dir, ignore_errors=True)
    runs = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    return {"cpu": min(r["cpu"] for r in runs), "wall": min(r["wall"] for r in runs),
            "p_win": runs[0]["wins"] / games, "mean_score": runs[0]["mean"]}


def run_ours(games: int, suits: int, ranks: int, repeats: int, workers: int, variant=None) -> dict:
    """Best CPU and wall seconds of ``simulate`` (after a warm-up run that compiles the kernel)."""
    from sim import Deck, simulate

    deck = Deck(suits, ranks)
    simulate(deck, variant, games=10_000, seed=1, workers=workers, progress=False)
    best = {"cpu": float("inf"), "wall": float("inf")}
    for k in range(repeats):
        c, w = time.process_time(), time.perf_counter()
        result = simulate(deck, variant, games=games, seed=1000 + k, workers=workers, progress=False)
        best["cpu"] = min(best["cpu"], time.process_time() - c)
        best["wall"] = min(best["wall"], time.perf_counter() - w)
        best["p_win"], best["mean_score"] = result.p_win, result.mean_score
    return best


def parse_shape(text: str) -> tuple[int, int]:
    suits, _, ranks = text.lower().partition("x")
    return int(suits), int(ranks)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shapes", default="4x13,4x5,8x13", help="comma-separated SUITSxRANKS")
    parser.add_argument("--games", type=int, default=4_000_000, help="games per timed run")
    parser.add_argument("--repeats", type=int, default=3, help="timed runs per measurement (best kept)")
    parser.add_argument("--peer", type=Path, default=None,
                        help=f"peer script to compare with [default: $SOLITAIRE_PEERS/{PEER_NAME}]")
    parser.add_argument("--json", type=Path, help="also write the measurements to this file")
    parser.add_argument("--variant", default=None,
                        help="our engine's variant, a canonical string (default: the rules as written)")
    args = parser.parse_args(argv)
    args.peer = find_peer(args.peer)
    if args.peer is None or not args.peer.is_file():
        print(f"no peer to compare with ({args.peer or 'none given'}): give --peer PATH to the published numba "
              f"simulator, or set SOLITAIRE_PEERS to the folder holding {PEER_NAME}; skipping the benchmark")
        return 0

    rows = []
    print(f"games per run: {args.games:,}; best of {args.repeats}; CPU: {os.cpu_count()} cores; "
          f"load average now: {os.getloadavg()[0]:.1f}; ours: {args.variant or 'the rules as written'}")
    header = (f"{'deck':>6} | {'peer M/cpu-s':>12} | {'ours M/cpu-s':>12} | {'ratio':>6} | "
              f"{'peer M/s wall':>13} | {'ours 2w M/s wall':>16} | {'ours 2w M/cpu-s':>15}")
    print(header)
    print("-" * len(header))
    for shape in args.shapes.split(","):
        suits, ranks = parse_shape(shape)
        peer = run_peer(args.peer, args.games, suits, ranks, args.repeats)
        ours = run_ours(args.games, suits, ranks, args.repeats, workers=1, variant=args.variant)
        ours2 = run_ours(args.games, suits, ranks, args.repeats, workers=2, variant=args.variant)
        row = {"suits": suits, "ranks": ranks, "games": args.games, "variant": args.variant,
               "peer_games_per_cpu_s": args.games / peer["cpu"],
               "ours_games_per_cpu_s": args.games / ours["cpu"],
               "ratio": peer["cpu"] / ours["cpu"],
               "peer_games_per_wall_s": args.games / peer["wall"],
               "ours_2workers_games_per_wall_s": args.games / ours2["wall"],
               "ours_2workers_games_per_cpu_s": args.games / ours2["cpu"],
               "peer_p_win": peer["p_win"], "ours_p_win": ours["p_win"]}
        rows.append(row)
        print(f"{suits}x{ranks:<4} | {row['peer_games_per_cpu_s'] / 1e6:12.3f} | "
              f"{row['ours_games_per_cpu_s'] / 1e6:12.3f} | {row['ratio']:6.2f} | "
              f"{row['peer_games_per_wall_s'] / 1e6:13.3f} | "
              f"{row['ours_2workers_games_per_wall_s'] / 1e6:16.3f} | "
              f"{row['ours_2workers_games_per_cpu_s'] / 1e6:15.3f}", flush=True)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
