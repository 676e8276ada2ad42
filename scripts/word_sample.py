"""Run a stratified sample of the word method's jobs of a deck, to measure them and calibrate ``--plan``.

    .venv/bin/python scripts/word_sample.py --deck 4x13 --mode core --per-size 8 --dir results/word-4x13-sample
        [--seed 0] [--min-size 0] [--max-size 52] [--size-step 1] [--random-only] [--remeasure] [--part 0/1] [--hours 10]

Jobs are grouped by alphabet size; from each size between ``--min-size`` and ``--max-size`` up to
``--per-size`` jobs are drawn (seeded; the job with the smallest stabiliser, the heaviest of its
size, always among them unless ``--random-only``), smallest sizes first.
Each job runs through the same journal as a real run (:mod:`exact.one_handed.word_run`: a finished
job is on disk at once, Ctrl-C keeps it, the same command resumes), with its CPU seconds, tables and
cost-model work; ``solitaire exact --method word --plan --checkpoint-dir DIR`` then fits its seconds
per unit of work on these jobs. Prints one line per job. Stops starting jobs after ``--hours`` of CPU.
With ``--remeasure``, the jobs drawn are those an earlier kernel measured, run again by this one
(each new record keeps the earlier seconds); ``--plan`` then fits the current kernel on them alone.
"""
from __future__ import annotations

import argparse
import os
import random
import sys
import time


def _part(text: str):
    """``I/N`` with ``0 <= I < N``, for ``--part`` (the CLI's ``--shard`` parser)."""
    from sim.errors import UsageError
    from solitaire.options import parse_part

    try:
        return parse_part(text, "--part")
    except UsageError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _deck(text: str):
    """``SxR`` with positive S and R, for ``--deck``."""
    try:
        suits, ranks = (int(x) for x in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"takes SxR (e.g. 4x13), got {text!r}") from None
    if suits < 1 or ranks < 1:
        raise argparse.ArgumentTypeError(f"needs at least 1 suit and 1 rank, got {text!r}")
    return suits, ranks


def main(argv=None) -> int:
    from exact.one_handed.word_run import (WORD_KERNEL_VERSION, Journal, deck_jobs, journal_key, journal_name,
                                           read_journals, run_job, word_primes)

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--deck", type=_deck, default=(4, 13))
    ap.add_argument("--mode", choices=("all", "core"), default="core")
    ap.add_argument("--per-size", type=int, default=8)
    ap.add_argument("--min-size", type=int, default=0)
    ap.add_argument("--max-size", type=int, default=None)
    ap.add_argument("--random-only", action="store_true",
                    help="draw every job at random (not the heaviest of each size first)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--hours", type=float, default=10.0)
    ap.add_argument("--size-step", type=int, default=0,
                    help="only every STEP-th alphabet size from --min-size")
    ap.add_argument("--remeasure", action="store_true",
                    help="run again, per size, up to --per-size jobs that an earlier kernel measured "
                         "(--plan then fits the current kernel on them)")
    ap.add_argument("--part", type=_part, default=(0, 1),
                    help="I/N: run only the chosen jobs at positions i with i %% N == I, into their own journal "
                         "(N processes at once)")
    ap.add_argument("--dir", required=True)
    args = ap.parse_args(argv)
    suits, ranks = args.deck
    part, parts = args.part
    jobs = deck_jobs(suits, ranks)
    primes = word_primes(suits * ranks, ranks)
    key = journal_key(suits, ranks, args.mode, primes)
    os.makedirs(args.dir, exist_ok=True)
    done = read_journals(args.dir, suits, ranks, args.mode, key)
    journal = Journal(os.path.join(args.dir, journal_name(suits, ranks, args.mode, ("sample", part))), key)
    by_size: dict = {}
    for j in range(len(jobs)):
        by_size.setdefault(jobs.size(j), []).append(j)
    rng = random.Random(args.seed)
    chosen = []
    # jobs an earlier kernel measured, whether or not measured again since (so that every part of a
    # --remeasure draws the same jobs, whatever the other parts have done)
    older = {j for j, rec in done.items()
             if rec.get("kernel", 1) != WORD_KERNEL_VERSION or "earlier_cpu_seconds" in rec}
    for k, members in sorted(by_size.items()):
        if k < args.min_size or (args.max_size is not None and k > args.max_size):
            continue
        if args.size_step and (k - args.min_size) % args.size_step:
            continue
        if args.remeasure:  # jobs an earlier kernel measured, so that the two can be compared job by job
            mine = [j for j in members if j in older]
            chosen += rng.sample(mine, min(len(mine), args.per_size))
            continue
        if args.random_only:
            chosen += rng.sample(members, min(len(members), args.per_size))
            continue
        heaviest = min(members, key=lambda j: (jobs.stabiliser_order(j), j))
        rest = [j for j in members if j != heaviest]
        chosen += [heaviest] + rng.sample(rest, min(len(rest), args.per_size - 1))
    chosen = chosen[part::parts]
    done_before = done
    if args.remeasure:  # a job measured by an earlier kernel is not done
        done = {j: rec for j, rec in done.items() if rec.get("kernel", 1) == WORD_KERNEL_VERSION}
    spent = sum(done[j]["cpu_seconds"] for j in chosen if j in done)
    print(f"{suits}x{ranks} {args.mode}: {len(chosen)} jobs chosen, {sum(j in done for j in chosen)} done "
          f"({spent / 3600:.2f} CPU h)", flush=True)
    for j in chosen:
        if j in done:
            continue
        if spent > args.hours * 3600:
            print(f"stopping: {args.hours} CPU hours spent", flush=True)
            break
        rec = run_job(suits, ranks, j, args.mode, primes)
        rec["sample"] = True
        if j in older:
            rec["earlier_cpu_seconds"] = done_before[j]["cpu_seconds"]  # an earlier kernel's: not done
        journal.append([rec])
        spent += rec["cpu_seconds"]
        print(f"job {j} ({rec['label']}) size {jobs.size(j)} |Stab| {jobs.stabiliser_order(j)}: "
              f"{rec['cpu_seconds']:.2f} CPU s, tables {rec['table_bytes'] / 2**20:.1f} MiB, "
              f"work {rec['work']:.3g}, {time.strftime('%H:%M:%S')}"
              + (f" (earlier kernel {rec['earlier_cpu_seconds']:.2f} s)" if j in older else ""), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
