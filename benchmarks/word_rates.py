"""The word method's CPU seconds per unit of ``job_work``, measured on finished jobs: one line per
job journal (deck, mode, jobs of the current kernel, their CPU core-hours, their seconds per work
unit: total CPU over total work), the figures behind ``WORD_MEASURED_RATES``.

    .venv/bin/python benchmarks/word_rates.py JOURNAL.jsonl [JOURNAL.jsonl ...]

A journal is what ``solitaire exact --method word --checkpoint-dir DIR`` (or
``scripts/word_sample.py``) writes in ``DIR``; the rate is that of the machine and the load the jobs
ran under.
"""
from __future__ import annotations

import argparse

from exact.one_handed.word_run import WORD_KERNEL_VERSION, Journal


def rate(path: str) -> dict:
    journal = Journal.at(path)
    head = journal.key
    work = cpu = 0.0
    jobs = 0
    for rec in journal.read().values():
        if rec.get("kernel", 1) != WORD_KERNEL_VERSION or not rec.get("work"):
            continue
        work += rec["work"]
        cpu += rec["cpu_seconds"]
        jobs += 1
    return {"deck": f"{head['suits']}x{head['ranks']}", "mode": head["mode"], "jobs": jobs,
            "cpu_hours": cpu / 3600, "seconds_per_work": cpu / work if work else None}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("journals", nargs="+")
    args = parser.parse_args(argv)
    print(f"{'deck':>6} {'mode':>5} {'jobs':>7} {'core-h':>8} {'s/work':>9}")
    for path in args.journals:
        r = rate(path)
        shown = f"{r['seconds_per_work']:.3g}" if r["seconds_per_work"] else "-"
        print(f"{r['deck']:>6} {r['mode']:>5} {r['jobs']:>7,} {r['cpu_hours']:>8.3f} {shown:>9}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
