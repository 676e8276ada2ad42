"""The results store: one HDF5 file (h5py) holding finished results, and a journal beside it holding
the runs still under way. :class:`ResultsStore` is its one face; the modules behind it, one job each:

* :mod:`sim.store.layout`: the file's layout (header, a result, a checkpoint as HDF5 groups), and
  the names of new results; the one module that knows where things lie in the file;
* :mod:`sim.store.codec`: values as written (attributes, JSON text, integer datasets, seeds);
* :mod:`sim.store.identity`: a run's identity, its key and family key, :class:`Checkpoint`;
* :mod:`sim.store.index`: ``/index``, one entry per result, so that finding reads one dataset;
* :mod:`sim.store.reads`: opening the file checked, listing, finding and loading (cached);
* :mod:`sim.store.journal`: runs under way (one file per run) and the run locks;
* :mod:`sim.store.parts`: computations made of parts (a validation's cases, a poison tally);
* :mod:`sim.store.transactions`: every write, as an atomic replacement of the file;
* :mod:`sim.store.files`: locks, fsync, writable folders; :mod:`sim.store.errors`: the two errors.

Crash safety in one line: a process killed at any moment leaves either the old store or the new
one, never a half-written file (:mod:`sim.store.transactions`).
"""
from __future__ import annotations

import os
from pathlib import Path

from .errors import StoreError, StoreWriteError
from .identity import IMPLICIT_ENGINE_VERSION, Checkpoint, family_key, run_key
from .index import INDEX_FIELDS
from .journal import Journal
from .layout import DEFAULT_PATH, FORMAT, RUNS_PATH, SCHEMA_VERSION, new_name
from .layout import _write_checkpoint  # noqa: F401  (for benchmarks/bench_store.py)
from .parts import Parts
from .reads import _RECORD_CACHE  # noqa: F401  (cleared by scripts/migrate_store.py and the benchmark)
from .reads import Reading
from .transactions import Transactions

__all__ = ["DEFAULT_PATH", "FORMAT", "IMPLICIT_ENGINE_VERSION", "INDEX_FIELDS", "RUNS_PATH", "SCHEMA_VERSION",
           "Checkpoint", "ResultsStore", "StoreError", "StoreWriteError", "family_key", "new_name", "run_key"]


class ResultsStore(Reading, Journal, Parts, Transactions):
    """The HDF5 results store at ``path`` (default ``results/solitaire.h5``).

    Nothing is written until something is saved; the file and its folder are created then. Every
    write is atomic (see :mod:`sim.store.transactions`), so the object holds no open file and can be
    kept for as long as wanted.

    Examples
    --------
    >>> with ResultsStore("results/solitaire.h5") as store:      # doctest: +SKIP
    ...     name = store.save(result)
    ...     store.load(name)["score_counts"]
    """

    def __init__(self, path: str | os.PathLike | None = None):
        self.path = Path(path) if path is not None else DEFAULT_PATH
        if self.path.exists() and self.path.is_dir():
            raise StoreError(f"{self.path} is a folder: give --out a file name such as {self.path / 'solitaire.h5'}")

    def __enter__(self) -> "ResultsStore":
        if self.path.exists():
            with self._reader():
                pass
        return self

    def __exit__(self, *exc) -> None:
        return None

    def __repr__(self) -> str:
        return f"ResultsStore({str(self.path)!r})"
