"""How well a word run's "CPU left" estimate follows a finished run: a finished deck's journal
replayed in the order a run takes its jobs, the estimate at a few points against the CPU the
journal says was still to come, priced by planned work (the estimate of runs of
``WORK_PRICED_FROM`` jobs or more) and by alphabet size alone (the smaller runs').

    .venv/bin/python benchmarks/word_progress_estimate.py JOURNAL.jsonl [--at 0.02,0.1,0.3,0.6]

The journal must hold every job of its deck (a finished run's, ``--checkpoint-dir``).
"""
from __future__ import annotations

import argparse

from exact.one_handed.word_run import CpuLeft, Journal, deck_jobs, run_order, size_work, word_primes


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("journal")
    parser.add_argument("--at", default="0.02,0.1,0.3,0.6", help="fractions of the jobs done")
    args = parser.parse_args(argv)
    journal = Journal.at(args.journal)
    key, recs = journal.key, journal.read()
    s, r, mode = key["suits"], key["ranks"], key["mode"]
    jobs = deck_jobs(s, r)
    if len(recs) < len(jobs):
        raise SystemExit(f"word_progress_estimate.py: {args.journal} holds {len(recs)} of {len(jobs)} jobs")
    order = run_order(jobs, list(range(len(jobs))))
    work = size_work(jobs, mode, word_primes(s * r, r))
    print(f"deck {s}x{r} {mode}: {len(jobs):,} jobs, {sum(x['cpu_seconds'] for x in recs.values()) / 3600:.2f} core-hours")
    for frac in (float(x) for x in args.at.split(",")):
        cut = int(frac * len(order))
        by_work = CpuLeft({j: jobs.size(j) for j in order[cut:]}, work)
        by_size = CpuLeft({j: jobs.size(j) for j in order[cut:]})
        for j in order[:cut]:
            by_work.measured(j, recs[j]["cpu_seconds"], jobs.size(j), recs[j].get("work"))
            by_size.measured(j, recs[j]["cpu_seconds"], jobs.size(j))
        real = sum(recs[j]["cpu_seconds"] for j in order[cut:])
        w, z = by_work.seconds(), by_size.seconds()
        print(f"after {frac:.0%} of the jobs: left {real / 3600:.2f} core-hours; by planned work {w / 3600:.2f} "
              f"({w / real:.2f}x), by alphabet size {z / 3600:.2f} ({z / real:.2f}x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
