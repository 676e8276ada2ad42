"""The results store: what a checkpoint, a commit and opening a store cost, as the store grows.

Builds a store of ``--results`` finished results (10,000 by default, small simulations, written in
one transaction), then times, best of ``--repeats``:

* ``checkpoint (journal)``: :meth:`sim.store.ResultsStore.write_checkpoint`, which writes the run's
  own journal file, whatever the store holds;
* ``checkpoint (in the file)``: the way checkpoints were kept before the journal, a transaction
  that copies the whole store file with the checkpoint added (reproduced here for comparison);
* ``commit``: storing a finished run (a transaction: one copy of the store file);
* ``check``: what every command does before it starts (reads the header only), against
  ``list`` (reads every record, what the check did before), and ``find_run`` cold (a fresh
  process reads every record once) and warm (records cached: only new ones are read).

Each is also timed on a store of ``--small`` results, so the table shows how each cost grows.
Nothing under the repository is written (the stores live in a temporary folder).

Usage::

    .venv/bin/python benchmarks/bench_store.py                     # 10,000 and 100 results
    .venv/bin/python benchmarks/bench_store.py --results 2000 --repeats 3
"""
from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

import numpy as np

import sim.store as store_module
from sim import Deck, simulate
from sim.store import Checkpoint, ResultsStore, run_key

IDENTITY = {"game": "one-handed", "variant": "one-handed(win=end,reverse=off,first4=kept)", "suits": 4,
            "ranks": 13, "seed": 1, "games": 10**9, "chunk_games": 1 << 18, "options": {},
            "package_version": "bench", "engine_version": 1}


def checkpoint() -> Checkpoint:
    n_chunks = -(-IDENTITY["games"] // IDENTITY["chunk_games"])  # 3,815 chunks
    done = np.zeros(n_chunks, dtype=bool)
    done[: n_chunks // 3] = True
    return Checkpoint(identity=IDENTITY, n_chunks=n_chunks, done=done,
                      counts={"score_counts": np.arange(53, dtype=np.int64), "wins": 12345},
                      seconds=12.5, started="2026-01-01T00:00:00+00:00", sessions=[])


def in_file_checkpoint(store: ResultsStore, cp: Checkpoint) -> None:
    """The checkpoint written inside the store file, as before the journal: one whole-file transaction."""
    with store.transaction() as f:
        groups = f.require_group("checkpoints")
        key = run_key(cp.identity)
        if key in groups:
            del groups[key]
        store_module._write_checkpoint(groups.create_group(key), cp)


def best(repeats: int, fn) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def measure(folder: Path, n_results: int, repeats: int) -> dict:
    path = folder / f"store-{n_results}.h5"
    template = simulate(Deck(2, 3), games=1000, seed=1, progress=False)
    store = ResultsStore(path)
    t0 = time.perf_counter()
    store.save_many([template] * n_results)
    built = time.perf_counter() - t0
    cp = checkpoint()
    out = {"results": n_results, "file_mb": path.stat().st_size / 2**20, "build_s": built}
    out["checkpoint_journal_s"] = best(repeats, lambda: store.write_checkpoint(cp))
    store.discard_checkpoint(IDENTITY)
    out["checkpoint_in_file_s"] = best(repeats, lambda: in_file_checkpoint(store, cp))
    with store.transaction() as f:  # leave no in-file checkpoint behind
        del f["checkpoints"]
    out["commit_s"] = best(repeats, lambda: store.save(template))
    out["check_s"] = best(repeats, lambda: ResultsStore(path).check())

    def cold_list():
        store_module._RECORD_CACHE.clear()
        ResultsStore(path).list()

    out["list_cold_s"] = best(1, cold_list)  # minutes on a large store: once
    store_module._RECORD_CACHE.clear()
    out["find_run_cold_s"] = best(1, lambda: ResultsStore(path).find_run(IDENTITY))
    out["find_run_warm_s"] = best(repeats, lambda: ResultsStore(path).find_run(IDENTITY))
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--results", type=int, default=10_000, help="results in the large store")
    parser.add_argument("--small", type=int, default=100, help="results in the small store")
    parser.add_argument("--repeats", type=int, default=5, help="timed runs per measurement (best kept)")
    args = parser.parse_args(argv)
    print(f"CPU: {os.cpu_count()} cores; load average now: {os.getloadavg()[0]:.1f}; best of {args.repeats}")
    with tempfile.TemporaryDirectory() as tmp:
        rows = [measure(Path(tmp), n, args.repeats) for n in (args.small, args.results)]
    keys = [("file_mb", "store file (MB)", "{:.1f}"), ("checkpoint_journal_s", "checkpoint, journal (ms)", "ms"),
            ("checkpoint_in_file_s", "checkpoint, in the file (ms)", "ms"), ("commit_s", "commit (ms)", "ms"),
            ("check_s", "check: header (ms)", "ms"), ("list_cold_s", "list: every record, cold (ms)", "ms"),
            ("find_run_cold_s", "find_run, cold (ms)", "ms"), ("find_run_warm_s", "find_run, warm (ms)", "ms")]
    print(f"{'':32}" + "".join(f"{r['results']:>12,} results" for r in rows) + "   ratio")
    for key, label, fmt in keys:
        values = [r[key] * 1000 if fmt == "ms" else r[key] for r in rows]
        text = "".join(f"{v:>20.2f}" for v in values)
        ratio = values[1] / values[0] if values[0] else float("nan")
        print(f"{label:32}{text}   {ratio:5.1f}x")
    journal, in_file = rows[1]["checkpoint_journal_s"], rows[1]["checkpoint_in_file_s"]
    print(f"with {rows[1]['results']:,} results a journal checkpoint is {in_file / journal:.0f}x cheaper than one "
          "written into the store file")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
