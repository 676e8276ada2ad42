"""What the whole score distribution costs over the core mode, job by job: jobs a journal measured in
the core mode (``--only p_win``) run again for the whole distribution, in this process.

    .venv/bin/python benchmarks/word_mode_ratio.py --dir results/word-jobs/4x13-sample [--jobs 10]
        [--max-core-seconds 40]

The jobs are those of the current kernel in the core-mode journals of ``--dir`` (one deck), sorted by
their measured CPU seconds, ``--jobs`` of them evenly spread over those of at most
``--max-core-seconds``. Each runs once with the whole distribution (``thread_time``, its tables); the
line gives both CPU seconds and tables and their ratios, the last line the ratio of the sums (the
jobs weighted by their cost), which turns the core mode's ``--plan`` of the deck into an estimate
for the whole distribution. Note that the core figures were measured when the journal was written,
possibly under another load.
"""
from __future__ import annotations

import argparse
import glob
import os

from exact.one_handed.word_run import WORD_KERNEL_VERSION, Journal, run_job, word_primes


def core_jobs(folder: str):
    key, out = None, {}
    for path in sorted(glob.glob(os.path.join(folder, "*.jsonl"))):
        journal = Journal.at(path)
        head = journal.key
        if head["mode"] != "core":
            continue
        if key is not None and (head["suits"], head["ranks"]) != (key["suits"], key["ranks"]):
            raise SystemExit(f"word_mode_ratio.py: {folder} holds journals of two decks")
        key = head
        for job, rec in journal.read().items():
            if rec.get("kernel", 1) == WORD_KERNEL_VERSION:
                out[job] = rec
    if key is None:
        raise SystemExit(f"word_mode_ratio.py: no core-mode journal in {folder}")
    return key, sorted(out.values(), key=lambda r: r["cpu_seconds"])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", required=True)
    parser.add_argument("--jobs", type=int, default=10)
    parser.add_argument("--max-core-seconds", type=float, default=40)
    args = parser.parse_args(argv)
    key, recs = core_jobs(args.dir)
    recs = [r for r in recs if r["cpu_seconds"] <= args.max_core_seconds]
    pick = [recs[round(i * (len(recs) - 1) / max(args.jobs - 1, 1))] for i in range(min(args.jobs, len(recs)))]
    s, r = key["suits"], key["ranks"]
    primes = word_primes(s * r, r)
    run_job(2, 2, 0, "all", word_primes(4, 2))  # compile first
    core = full = 0.0
    print(f"deck {s}x{r}: {len(pick)} of {len(recs)} core-mode jobs of the current kernel, run for the whole distribution")
    for rec in pick:
        out = run_job(s, r, rec["job"], "all", primes)
        core += rec["cpu_seconds"]
        full += out["cpu_seconds"]
        print(f"job {rec['job']:>8} {rec['label'][:44]:<44} core {rec['cpu_seconds']:7.2f} s {rec['table_bytes'] / 2**30:5.2f} GiB, "
              f"whole {out['cpu_seconds']:7.2f} s {out['table_bytes'] / 2**30:5.2f} GiB: CPU x{out['cpu_seconds'] / rec['cpu_seconds']:.2f}, "
              f"tables x{out['table_bytes'] / rec['table_bytes']:.2f}", flush=True)
    print(f"the whole distribution over the core mode, CPU of the {len(pick)} jobs: {full:.1f} / {core:.1f} s = {full / core:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
