"""Benchmark of the word method against the zeta method, deck by deck, in the same run (one core).

    .venv/bin/python benchmarks/bench_word.py [--decks 4x4,4x5] [--methods word,word-core,zeta]
        [--timeout 3600]

Each (deck, method) runs in its own process (peak memory, ``ru_maxrss``, is that run's alone and
includes the interpreter and numba, about 300 MB), after a warm-up on a tiny deck so that numba's
compilation is not timed. Times are CPU seconds of the child (``time.process_time``: other processes
on a shared machine do not count) and wall seconds. The ratio column is the CPU seconds of each
method over the zeta method's on the same deck. ``word-core`` is the word method keeping only
``p_win``, ``win=any`` and the mean (``mode="core"``). The word and zeta counts are compared (they
must be equal) and the result printed.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys

CHILD = r"""
import json, resource, sys, time
s, r, method = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
if method == "zeta":
    from exact.one_handed.zeta_passes import zeta_counts as run
    run(2, 2)
    c0, t0 = time.process_time(), time.perf_counter()
    counts, never = run(s, r)
    out = {"p_win_num": counts[0], "never": never, "counts": counts}
else:
    from exact.one_handed.word_run import word_counts
    mode = "core" if method == "word-core" else "all"
    word_counts(2, 2, mode=mode)
    c0, t0 = time.process_time(), time.perf_counter()
    res = word_counts(s, r, mode=mode)
    out = {"p_win_num": res.ends[0], "never": res.never, "counts": res.ends if mode == "all" else None,
           "jobs": res.stats["jobs"], "largest_job_table_bytes": res.stats["largest_job_table_bytes"]}
out.update(cpu=time.process_time() - c0, wall=time.perf_counter() - t0,
           peak=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)
print(json.dumps(out))
"""


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--decks", default="4x4,4x5")
    ap.add_argument("--methods", default="word,word-core,zeta")
    ap.add_argument("--timeout", type=float, default=3600)
    args = ap.parse_args(argv)
    methods = args.methods.split(",")
    print("| deck | method | CPU s | wall s | peak GiB | CPU / zeta | p_win numerator |")
    print("|---|---|---:|---:|---:|---:|---|")
    for deck in args.decks.split(","):
        s, r = deck.split("x")
        rows = {}
        for method in methods:
            try:
                proc = subprocess.run([sys.executable, "-c", CHILD, s, r, method], capture_output=True, text=True,
                                      timeout=args.timeout)
                rows[method] = json.loads(proc.stdout.strip().splitlines()[-1]) if proc.returncode == 0 else None
            except (subprocess.TimeoutExpired, IndexError, ValueError):
                rows[method] = None
        zeta = rows.get("zeta")
        for method, row in rows.items():
            if row is None:
                print(f"| {deck} | {method} | failed or timed out | | | | |")
                continue
            ratio = f"{row['cpu'] / zeta['cpu']:.2f}" if zeta else ""
            print(f"| {deck} | {method} | {row['cpu']:.1f} | {row['wall']:.1f} | {row['peak'] / 2**30:.2f} | {ratio} | "
                  f"{row['p_win_num']} |")
        if zeta and rows.get("word"):
            agree = rows["word"]["counts"] == zeta["counts"] and rows["word"]["never"] == zeta["never"]
            print(f"|  | word == zeta | {agree} | | | | |")
            if not agree:
                return 1
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
