"""Writing the store: every change is a transaction that writes a complete new file and replaces the
old one atomically.

Crash safety: every change is a *transaction* that writes a complete new file next to the store
(``<file>.tmp``: a copy of the old file, changed), closes and fsyncs it, and then
``os.replace``-s it over the store (atomic on POSIX and Windows). A process killed at any moment
leaves either the old file or the new one, never a half-written store; a stale ``.tmp`` is never
read and is removed by the next transaction. Writers take an advisory lock (``<file>.lock``, removed
with the lock) so two processes never lose each other's updates; readers need no lock. A file that cannot be read, is
not ours or has another schema version is refused with :class:`StoreError` and never overwritten.
A write that fails (disk full, no permission) leaves the old file (and the last checkpoint) as it
was and raises :class:`StoreWriteError`, one line; before a write the free space is checked against
what the write needs, so HDF5 is not left to meet a full disk half-way.
"""
from __future__ import annotations

import contextlib
import os
import shutil
from pathlib import Path

import numpy as np

from .. import provenance as _provenance
from .errors import StoreWriteError
from .files import _fsync, _fsync_dir, _locked, _short
from .identity import run_key
from .index import _update_index
from .layout import _CHECKPOINTS, _RESULTS, FORMAT, SCHEMA_VERSION, _write_result

#: A store is rewritten compactly once it exceeds twice its compacted size plus this (bytes).
_COMPACT_SLACK = 1 << 20
#: Free space kept beyond what a write needs: a quarter of the write, and at least this (bytes), so
#: that a small store fits on a small disk; below it, writes are refused up front.
_SPACE_MARGIN = 64 << 10


def _margin(size: int) -> int:
    return max(_SPACE_MARGIN, size // 4)


class Transactions:
    """The writing half of :class:`sim.store.ResultsStore` (uses its checked reader)."""

    def _write_failed(self, exc: BaseException, what: str = "the results store") -> StoreWriteError:
        return StoreWriteError(f"cannot write {what} {self.path} ({_short(exc)}); nothing was changed (a checkpoint "
                               "already written is kept): free space or fix permissions, then run the same command")

    def _need_space(self, folder: Path, size: int) -> None:
        """Refuse a write of about ``size`` bytes to a disk without room for it (with a margin)."""
        try:
            free = shutil.disk_usage(folder).free
        except OSError:
            return
        if free < size + _margin(size):
            raise StoreWriteError(f"cannot write the results store {self.path}: {free:,} bytes free on its disk, "
                                  f"a write needs about {size + _margin(size):,}; nothing was changed (a checkpoint "
                                  "already written is kept): free space, then run the same command")

    @contextlib.contextmanager
    def transaction(self):
        """A writable h5py file holding the store's current content; on a normal exit it atomically
        replaces the store, on an exception the store is left as it was.

        The new file is a byte copy of the old one, changed in place (a few ms). HDF5 does not
        reuse the space of deleted objects, so when the file has grown past twice its size at the
        last compaction, the transaction instead copies the live objects into a fresh file.
        A failed write (disk full, no permission) raises :class:`StoreWriteError`.
        """
        import h5py

        tmp = self.path.with_name(self.path.name + ".tmp")
        lock = self.path.with_name(self.path.name + ".lock")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            if not lock.exists():
                with open(lock, "a"):  # a place that takes no file is refused here, in one line
                    pass
        except OSError as exc:
            raise StoreWriteError(f"cannot write the results store {self.path} ({_short(exc)}): choose another --out") from None
        with _locked(lock):  # the lock file is removed with the lock
            with contextlib.suppress(FileNotFoundError):
                tmp.unlink()  # left by a writer that was killed: never part of the store
            self._need_space(self.path.parent, 2 * (self.path.stat().st_size if self.path.exists() else 0))
            try:
                with self._reader() as old:  # refuses a damaged or foreign file before anything is written
                    compact = old is not None and (self.path.stat().st_size >
                                                   2 * int(old.attrs.get("compacted_size", 0)) + _COMPACT_SLACK)
                    if old is not None and not compact:
                        old.close()
                        shutil.copyfile(self.path, tmp)
                        new = h5py.File(tmp, "r+")
                    else:
                        new = h5py.File(tmp, "w")
                        new.attrs["format"] = FORMAT
                        new.attrs["schema_version"] = SCHEMA_VERSION
                        new.attrs["created"] = str(old.attrs["created"]) if old is not None else _provenance.now()
                        new.attrs["next_seq"] = np.int64(old.attrs.get("next_seq", 0)) if old is not None else 0
                        new.attrs["compacted_size"] = np.int64(0)
                        if old is not None:
                            with self._damage_is_refused():
                                for name in old:
                                    if name != _CHECKPOINTS or len(old[name]):
                                        old.copy(old[name], new, name=name)
                with new:
                    new.attrs["package_version"] = _provenance.package_version()
                    new.require_group(_RESULTS)
                    yield new
                    _update_index(new)
                if compact or old is None:
                    with h5py.File(tmp, "r+") as new:
                        new.attrs["compacted_size"] = np.int64(tmp.stat().st_size)
                _fsync(tmp)
                os.replace(tmp, self.path)
            except BaseException as exc:
                with contextlib.suppress(FileNotFoundError):
                    tmp.unlink()
                if isinstance(exc, OSError):
                    raise self._write_failed(exc) from None
                raise
            _fsync_dir(self.path.parent)

    def save(self, result, *, name: str | None = None) -> str:
        """Store a finished result (any object with ``kind``, ``to_dict()`` and ``provenance``);
        returns its name in the store."""
        with self.transaction() as f:
            return _write_result(f, result, name)

    def save_many(self, results) -> list[str]:
        """Store several finished results in one transaction (one copy of the file, not one per
        result); returns their names."""
        with self.transaction() as f:
            return [_write_result(f, result, None) for result in results]

    def commit(self, result, identity: dict, *, name: str | None = None) -> str:
        """Store a finished run's result (atomically) and then forget its checkpoint."""
        key = run_key(identity)
        with self.transaction() as f:
            name = _write_result(f, result, name)
            if _CHECKPOINTS in f and key in f[_CHECKPOINTS]:
                del f[_CHECKPOINTS][key]
        for leftover in (self._journal_file(key), self.journal / f"{key}.json"):
            with contextlib.suppress(OSError):
                leftover.unlink()
        return name
