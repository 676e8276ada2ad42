"""Benchmark of the exact engines: states visited, seconds, peak memory, per deck (one core).

    .venv/bin/python benchmarks/bench_exact.py [--method dp|enumerate] [--decks 3x4,3x5,4x4] [--timeout 900]

Each deck runs in its own process (so peak memory, ru_maxrss, is that deck's alone; it includes the
interpreter and numba, about 200 MB) and under a time limit. Prints a markdown table.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys

CHILD = r"""
import json, resource, sys, time
from exact import exact_distribution
from sim import Deck
s, r, method = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
exact_distribution(Deck(2, 2), method=method)  # compile outside the timing
t0 = time.perf_counter()
res = exact_distribution(Deck(s, r), method=method)
seconds = time.perf_counter() - t0
print(json.dumps({"seconds": seconds, "states": res.provenance.get("states"),
                  "max_layer_states": res.provenance.get("max_layer_states"),
                  "p_win": str(res.p_win), "maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--method", default="dp", choices=["dp", "enumerate"])
    parser.add_argument("--decks", default="3x4,4x3,2x7,2x8,8x2,3x5,5x3")
    parser.add_argument("--timeout", type=int, default=900)
    args = parser.parse_args(argv)
    print("| deck | cards | method | states | largest layer | seconds | peak RSS (MB) | p_win |")
    print("|---|---|---|---|---|---|---|---|")
    for spec in args.decks.split(","):
        s, r = spec.split("x")
        try:
            out = subprocess.run([sys.executable, "-c", CHILD, s, r, args.method], capture_output=True,
                                 text=True, timeout=args.timeout)
        except subprocess.TimeoutExpired:
            print(f"| {spec} | {int(s) * int(r)} | {args.method} | | | > {args.timeout} (stopped) | | |")
            continue
        if out.returncode != 0:
            print(f"| {spec} | {int(s) * int(r)} | {args.method} | failed: {out.stderr.strip().splitlines()[-1]} |")
            continue
        m = json.loads(out.stdout.strip().splitlines()[-1])
        print(f"| {spec} | {int(s) * int(r)} | {args.method} | {m['states'] or ''} | {m['max_layer_states'] or ''} "
              f"| {m['seconds']:.2f} | {m['maxrss_mb']:.0f} | {m['p_win']} |", flush=True)


if __name__ == "__main__":
    main()
