"""The word method's padded slot layout against the unpadded one, job by job, in the same process.

    .venv/bin/python benchmarks/bench_word_padding.py [--deck 5x6] [--mode all] [--jobs 6] [--seed 1]
        [--max-mib 400] [--repeats 3]

:func:`exact.one_handed.word_plan.layout` pads a parity's slots to a multiple of ``SLOT_BLOCK`` where
it is at least half a block short. This runs ``--jobs`` seeded random jobs of the deck (those whose
tables stay under ``--max-mib``) with the layout as built and with no padding (``SLOT_BLOCK = 1``),
``--repeats`` times each, alternating, and prints each job's least CPU seconds (``thread_time``) of
both, their ratio (unpadded over padded: above 1, the padding is faster) and the residues' equality.
On a deck whose layout is not padded both are the same layout.
"""
from __future__ import annotations

import argparse
import random
import time
from unittest import mock

from exact.one_handed import word_plan
from exact.one_handed.word_kernel import solve_job, table_bytes
from exact.one_handed.word_run import deck_jobs, word_primes


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deck", default="5x6")
    parser.add_argument("--mode", default="all", choices=word_plan.MODES)
    parser.add_argument("--jobs", type=int, default=6)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--max-mib", type=float, default=400)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    s, r = (int(x) for x in args.deck.lower().split("x"))
    n = s * r
    jobs, primes = deck_jobs(s, r), word_primes(n, r)
    padded = word_plan.layout(n, r, args.mode)
    with mock.patch.object(word_plan, "SLOT_BLOCK", 1):
        plain = word_plan.layout(n, r, args.mode)
    print(f"deck {args.deck} {args.mode}: slots a parity {plain.even} and {plain.width - plain.even} unpadded, "
          f"{padded.even} and {padded.width - padded.even} padded; {len(primes)} primes")
    solve_job(word_plan.job_plan(deck_jobs(2, 2), 3), word_plan.layout(4, 2, args.mode), 4, word_primes(4, 2))
    rng = random.Random(args.seed)
    order = list(range(len(jobs)))
    rng.shuffle(order)
    total = {"plain": 0.0, "padded": 0.0}
    done = 0
    for j in order:
        if done == args.jobs:
            break
        plan = word_plan.job_plan(jobs, j)
        if table_bytes(plan, padded, n, len(primes)) > args.max_mib * 2**20:
            continue
        best, out = {}, {}
        for _ in range(args.repeats):
            for name, lay in (("plain", plain), ("padded", padded)):
                t0 = time.thread_time()
                out[name] = solve_job(plan, lay, n, primes)
                best[name] = min(best.get(name, float("inf")), time.thread_time() - t0)
        for name in total:
            total[name] += best[name]
        done += 1
        print(f"job {j:>6} {jobs.label(j):<40} unpadded {best['plain']:.3f} s, padded {best['padded']:.3f} s, "
              f"ratio {best['plain'] / best['padded']:.2f}, residues {'equal' if out['plain'] == out['padded'] else 'DIFFER'}",
              flush=True)
    print(f"{done} jobs: unpadded {total['plain']:.2f} s, padded {total['padded']:.2f} s, "
          f"ratio {total['plain'] / max(total['padded'], 1e-9):.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
