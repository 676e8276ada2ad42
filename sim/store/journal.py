"""The journal: runs under way, one small file per run beside the store, and the lock that lets one
process at a time play a run.

The journal (``<file>.journal/``, a folder beside the store) holds the runs under way, one small
HDF5 file per run, ``<run_key>.h5``, with the layout of a ``/checkpoints/<run_key>`` group at its
root; a checkpoint rewrites only its run's file (written to ``.tmp`` and ``os.replace``-d), so its
cost does not grow with the results the store holds. ``<run_key>.lock`` is the run's lock: one
process at a time plays a run, and a second one asking for it waits (and is then served the stored
result); the process that created a lock file (and the journal folder) removes it when done. A computation made of parts instead of chunks of games (a validation's cases, a ``poison``
classification's tally of its chunks of decks) keeps them in ``<run_key>.json``: ``identity``,
``family`` (as above), ``updated``, ``done`` of ``total`` ``unit`` and ``parts`` (:meth:`write_parts`).
A finished run is committed to the store first and its journal file removed after, so a
journal file whose run is already stored is stale and is ignored and removed.
"""
from __future__ import annotations

import contextlib
import os
from pathlib import Path

from .codec import _load_identity
from .errors import StoreError
from .files import _fsync, _locked, _short, _writable_dir
from .identity import Checkpoint, family_key, run_key
from .layout import _CHECKPOINTS, _read_checkpoint, _write_checkpoint


class Journal:
    """The runs under way of :class:`sim.store.ResultsStore`: checkpoints and run locks (uses its
    reading, parts and transaction methods)."""

    @property
    def journal(self) -> Path:
        """The folder of the runs under way (one file per run; see the module docstring)."""
        return self.path.with_name(self.path.name + ".journal")

    def _journal_file(self, key: str) -> Path:
        return self.journal / f"{key}.h5"

    def _journal_groups(self):
        """``(key, h5py group)`` of every run under way: journal files, then checkpoints kept
        inside stores written before the journal. Stale journal files (their run is stored) are
        skipped."""
        import h5py

        finished = None
        files = sorted(self.journal.glob("run-*.h5")) if self.journal.is_dir() else []
        for path in files:
            if finished is None:
                finished = {r.get("provenance", {}).get("run_key") for _, r in self._records()}
            if path.stem in finished:
                continue
            try:
                with h5py.File(path, "r") as f:
                    yield path.stem, f
            except OSError as exc:
                raise StoreError(f"{path}: unreadable journal file ({_short(exc)}): remove it to "
                                 "start that run again") from None
        with self._reader() as f, self._damage_is_refused():
            if f is not None and _CHECKPOINTS in f:
                for key in f[_CHECKPOINTS]:
                    yield key, f[_CHECKPOINTS][key]

    def checkpoints(self) -> list[dict]:
        """Runs under way (a checkpoint and no result yet): identity, chunks done, last update."""
        rows = []
        for key, group in self._journal_groups():
            a = group.attrs
            identity = _load_identity(a["identity"])
            rows.append({"run": key, **identity, "chunks_done": int(a["chunks_done"]),
                         "n_chunks": int(a["n_chunks"]), "seconds": float(a["seconds"]),
                         "updated": str(a["updated"])})
        return sorted(rows, key=lambda r: r["updated"])

    def load_checkpoint(self, identity: dict) -> Checkpoint | None:
        """The checkpoint of the run with this identity, or None (also when the run is stored
        already: its journal file is then stale and removed)."""
        import h5py

        key = run_key(identity)
        path = self._journal_file(key)
        if path.exists():
            if self.find_run(identity) is not None:
                with contextlib.suppress(OSError):
                    path.unlink()
                return None
            try:
                with h5py.File(path, "r") as f:
                    return _read_checkpoint(f)
            except (OSError, KeyError, ValueError) as exc:
                raise StoreError(f"{path}: unreadable journal file ({_short(exc)}): remove it to start that run "
                                 "again") from None
        with self._reader() as f, self._damage_is_refused():
            if f is None or _CHECKPOINTS not in f or key not in f[_CHECKPOINTS]:
                return None
            return _read_checkpoint(f[_CHECKPOINTS][key])

    def latest_checkpoint_seed(self, identity: dict):
        """Seed of the most recently updated unfinished run that matches ``identity`` but for its
        seed (None if there is none): how a run given no seed finds the run it should resume."""
        family = family_key(identity)
        found = [(str(g.attrs["updated"]), _load_identity(g.attrs["identity"])["seed"])
                 for _, g in self._journal_groups() if g.attrs.get("family") == family]
        found += [(str(c.get("updated", "")), c["identity"]["seed"]) for _, c in self._parts_files()
                  if c.get("family") == family and "seed" in c["identity"]]
        return max(found)[1] if found else None

    @contextlib.contextmanager
    def run_lock(self, identity: dict, on_wait=None):
        """Hold the lock of the run with this identity while the block runs: a second process
        asking for the same run waits here (``on_wait(message)`` is called once if it has to), and
        then finds the run stored or its checkpoint.

        The lock file is removed with the lock, and the journal folder once it is empty (no run
        under way), so a run refused inside the block (a deck too large for a method) leaves no file
        behind, and a finished one, resumed or not, leaves the store alone."""
        if _writable_dir(self.journal):
            try:
                self.journal.mkdir(parents=True, exist_ok=True)
            except OSError as exc:  # a place that passes the access check but takes no folder (/proc)
                raise StoreError(f"cannot write the results store {self.path} ({_short(exc)}): choose another "
                                 "--out") from None
        if not self.journal.is_dir():  # a read-only location: nothing will be written there either
            yield
            return
        lock = self.journal / f"{run_key(identity)}.lock"
        try:
            with _locked(lock, on_wait=lambda: on_wait and on_wait(
                    f"this run is under way in another process (lock {lock}): waiting for it to finish")):
                yield  # the lock file goes with the lock
        finally:
            with contextlib.suppress(OSError):
                self.journal.rmdir()  # only when empty: a checkpoint left for a resume stays

    def write_checkpoint(self, checkpoint: Checkpoint) -> None:
        """Record a run's progress in its journal file (replacing its previous checkpoint): the
        cost does not depend on what the store holds."""
        import h5py

        path = self._journal_file(run_key(checkpoint.identity))
        tmp = path.with_name(path.name + ".tmp")
        try:
            self.journal.mkdir(parents=True, exist_ok=True)
            self._need_space(self.journal, checkpoint.n_chunks // 8 + (1 << 16))
            with h5py.File(tmp, "w") as f:
                _write_checkpoint(f, checkpoint)
            _fsync(tmp)
            os.replace(tmp, path)
        except BaseException as exc:
            with contextlib.suppress(OSError):
                tmp.unlink()
            if isinstance(exc, OSError):
                raise self._write_failed(exc, "the checkpoint of") from None
            raise

    def discard_checkpoint(self, identity: dict) -> bool:
        """Forget a run's progress; True if there was any."""
        key = run_key(identity)
        found = False
        with contextlib.suppress(FileNotFoundError):
            self._journal_file(key).unlink()
            found = True
        with self._reader() as f, self._damage_is_refused():
            legacy = f is not None and _CHECKPOINTS in f and key in f[_CHECKPOINTS]
        if legacy:
            with self.transaction() as f:
                del f[_CHECKPOINTS][key]
        return found or legacy
