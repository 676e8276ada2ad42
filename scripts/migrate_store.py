"""Bring a results store up to date, and prove nothing else changed.

Adds ``/index`` (see :mod:`sim.store`) where a store written before it lacks one, and, with
``--drop-superseded``, removes the simulations played by an older engine version of their game
(:attr:`sim.games.Game.engine_version`; :func:`sim.montecarlo.stored_engine_version`): a run of
an older engine is never served again (its identity differs), so ``solitaire report`` plays the
current one beside it and the old record only doubles a row. Every record is read before and after
the change and compared record by record (same names, same records, big integers included); the
runs under way must be the same. ``--compact`` rewrites the file with only its live objects (the
store compacts itself once it passes twice its last compacted size; this does it now, before a
store is committed). The file is replaced atomically; on any difference the script says
so and exits 1 (the store is then as the transaction left it: restore it from git or a copy).

Usage::

    .venv/bin/python scripts/migrate_store.py results/solitaire.h5
    .venv/bin/python scripts/migrate_store.py --drop-superseded results/solitaire.h5
    .venv/bin/python scripts/migrate_store.py --compact results/solitaire.h5
"""
from __future__ import annotations

import argparse
import json
import sys

import sim.store as store_module
from sim.games import get_game
from sim.montecarlo import stored_engine_version
from sim.store import ResultsStore


def snapshot(store: ResultsStore) -> tuple[list, list]:
    store_module._RECORD_CACHE.clear()  # read from the file, not from this process's cache
    records = [(name, json.dumps(store.load(name), sort_keys=True)) for name in store.names()]
    return records, store.checkpoints()


def superseded(store: ResultsStore) -> list[tuple[str, str]]:
    """``(name, why)`` of the stored simulations played by an older engine version of their game."""
    found = []
    for name, record in store.find(kind="simulation"):
        version = stored_engine_version(record)
        current = get_game(record["game"]).engine_version
        if version is not None and version < current:
            found.append((name, f"{record['game']} engine version {version} (now {current}): "
                                f"{record['variant']} {record['suits']}x{record['ranks']}, "
                                f"{record['games']:,} games, seed {record['seed']}"))
    return found


def _compact_at_next_write(store: ResultsStore) -> None:
    """Make the store's next transaction copy only its live objects into a fresh file (HDF5 does not
    give back the space of replaced or deleted objects)."""
    with store.transaction() as f:
        f.attrs["compacted_size"] = 0


def compact(store: ResultsStore) -> None:
    """Rewrite the store with only its live objects."""
    _compact_at_next_write(store)
    with store.transaction():
        pass


def drop(store: ResultsStore, names: list[str]) -> None:
    """Remove these results and rebuild the index from what remains, in a compacted file."""
    from sim.store.layout import _INDEX, _RESULTS

    _compact_at_next_write(store)
    with store.transaction() as f:
        for name in names:
            del f[_RESULTS][name]
        if _INDEX in f:
            del f[_INDEX]  # rebuilt from /results when the transaction ends


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("store", help="the results store to migrate (named explicitly: no default)")
    parser.add_argument("--drop-superseded", action="store_true",
                        help="remove the simulations of an older engine version of their game")
    parser.add_argument("--compact", action="store_true",
                        help="rewrite the file with only its live objects (dropping runs compacts it too)")
    args = parser.parse_args(argv)
    store = ResultsStore(args.store)
    if not store.path.exists():
        print(f"no results store at {store.path}", file=sys.stderr)
        return 2
    before = snapshot(store)
    dropped = superseded(store) if args.drop_superseded else []
    for name, why in dropped:
        print(f"dropping {name}: {why}")
    size = store.path.stat().st_size
    if dropped:
        drop(store, [name for name, _ in dropped])
    elif args.compact:
        compact(store)
    else:
        with store.transaction():
            pass  # a transaction brings the index up to date
    after = snapshot(store)
    gone = {name for name, _ in dropped}
    expected = ([(name, text) for name, text in before[0] if name not in gone], before[1])
    if after != expected:
        print(f"{store.path}: the records read back differ after the migration", file=sys.stderr)
        return 1
    print(f"{store.path}: {len(after[0])} results indexed, {len(gone)} superseded dropped, "
          f"{size:,} -> {store.path.stat().st_size:,} bytes; every other record reads back identical")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
