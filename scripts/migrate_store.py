"""Bring a results store written before the index up to date, and prove nothing changed.

Adds ``/index`` (see :mod:`sim.store`) in one transaction, then reads every record back and checks
that it is identical to what was read before (same names, same records, big integers included), and
that the runs under way are the same. The file is replaced atomically; on any difference the script
says so and exits 1 (the store is then as the transaction left it: restore it from git or a copy).

Usage::

    .venv/bin/python scripts/migrate_store.py results/solitaire.h5
"""
from __future__ import annotations

import argparse
import json
import sys

import sim.store as store_module
from sim.store import ResultsStore


def snapshot(store: ResultsStore) -> tuple[list, list]:
    store_module._RECORD_CACHE.clear()  # read from the file, not from this process's cache
    records = [(name, json.dumps(store.load(name), sort_keys=True)) for name in store.names()]
    return records, store.checkpoints()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("store", help="the results store to migrate (named explicitly: no default)")
    args = parser.parse_args(argv)
    store = ResultsStore(args.store)
    if not store.path.exists():
        print(f"no results store at {store.path}", file=sys.stderr)
        return 2
    before = snapshot(store)
    with store.transaction():
        pass  # a transaction brings the index up to date
    after = snapshot(store)
    if after != before:
        print(f"{store.path}: the records read back differ after the migration", file=sys.stderr)
        return 1
    print(f"{store.path}: indexed {len(after[0])} results; every record reads back identical")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
