"""Reading the store: opening it checked (ours, this schema, undamaged), and listing, finding and
loading results. Records never change once written (names are unique), so each process caches the
records it has read, per file; listing and finding read only the records it has not seen yet."""
from __future__ import annotations

import contextlib
from pathlib import Path

from ..checks import writable_file
from .codec import _plain
from .errors import StoreError
from .files import _short
from .identity import run_key
from .index import INDEX_FIELDS, _index, _names
from .layout import _RESULTS, FORMAT, SCHEMA_VERSION, _read_result

#: Records read so far, per store file (records never change once written).
_RECORD_CACHE: dict = {}


def _file_id(path: Path, f) -> tuple:
    """What identifies one store file's content for the record cache: its resolved path and the
    file's creation time (a file replaced by a transaction keeps its records and adds some)."""
    return (str(Path(path).resolve()), str(f.attrs.get("created", "")) if f is not None else "")



class Reading:
    """The reading half of :class:`sim.store.ResultsStore` (which sets ``self.path``)."""

    def _refuse(self, why: str) -> StoreError:
        return StoreError(f"{self.path}: {why}; nothing was changed: use another --out or move the file away")

    @contextlib.contextmanager
    def _reader(self):
        """The store opened read-only and checked to be ours (None when there is no file yet).

        Errors while reading inside the block (a damaged file) become :class:`StoreError`.
        """
        import h5py

        if not self.path.exists():
            yield None
            return
        try:
            f = h5py.File(self.path, "r")
        except OSError as exc:
            raise self._refuse(f"not a readable HDF5 file ({_short(exc)})") from None
        try:
            with self._damage_is_refused():
                fmt = f.attrs.get("format")
                fmt = fmt.decode() if isinstance(fmt, bytes) else fmt
                if fmt != FORMAT:
                    raise self._refuse("an HDF5 file that is not a solitaire-odds results store")
                version = f.attrs.get("schema_version")
                if version is None or int(version) != SCHEMA_VERSION:
                    raise self._refuse(
                        f"results store schema {version}, but this version reads schema {SCHEMA_VERSION}")
            yield f
        finally:
            f.close()

    @contextlib.contextmanager
    def _damage_is_refused(self):
        try:
            yield
        except StoreError:
            raise
        except (OSError, KeyError, ValueError, TypeError, RuntimeError) as exc:
            raise self._refuse(f"damaged results store ({_short(exc)})") from None

    def exists(self) -> bool:
        """Whether anything was written here yet: finished results, or runs under way (the journal)."""
        return self.path.exists() or self.journal.is_dir()

    def check(self) -> "Reading":
        """Refuse at once a file that is damaged, not ours or of another schema (reads the header
        only, whatever the store holds); returns the store. A missing file passes."""
        with self._reader():
            pass
        return self

    def check_writable(self, *, missing_folder_ok: bool = True) -> "Reading":
        """:meth:`check`, and refuse a location where the store could not be written (its folder
        is a file, or not writable; with ``missing_folder_ok=False``, the command line's rule, also a
        missing folder); nothing is created."""
        writable_file(self.path, missing_folder_ok=missing_folder_ok)
        return self.check()

    def _records(self, kind: str | None = None, wanted: dict | None = None) -> list[tuple[str, dict]]:
        """Stored ``(name, record)`` pairs (oldest first), reading only records not cached yet; with
        ``wanted`` (fields of :data:`INDEX_FIELDS`), only the records whose index entry matches."""
        with self._reader() as f, self._damage_is_refused():
            index = _index(f)
            if index is not None and wanted is not None:
                names = [e["name"] for e in index if (kind is None or e["kind"] == kind)
                         and all(e.get(k) == v for k, v in wanted.items())]
            else:
                names = _names(f, kind)
            cache = _RECORD_CACHE.setdefault(_file_id(self.path, f), {})
            for name in names:
                if name not in cache:
                    cache[name] = _read_result(f[_RESULTS][name])
            return [(name, dict(cache[name])) for name in names]

    def names(self, kind: str | None = None) -> list[str]:
        """Names of the stored results (oldest first), optionally of one kind only."""
        with self._reader() as f, self._damage_is_refused():
            return _names(f, kind)

    def load(self, name: str) -> dict:
        """The stored ``to_dict()`` content of result ``name``, big ints intact, plus ``kind`` and
        ``provenance``.

        Values come back in their JSON form (lists for tuples, string keys in mappings).
        """
        with self._reader() as f, self._damage_is_refused():
            if f is None or _RESULTS not in f or name not in f[_RESULTS]:
                raise StoreError(f"no result named {name!r} in {self.path}: `solitaire runs --out {self.path}` lists them")
            return _read_result(f[_RESULTS][name])

    def find(self, *, kind: str | None = None, game: str | None = None, suits: int | None = None,
             ranks: int | None = None, variant=None, **fields) -> list[tuple[str, dict]]:
        """Stored results matching every given field (oldest first), as ``(name, record)`` pairs."""
        wanted = {"game": game, "suits": suits, "ranks": ranks,
                  "variant": None if variant is None else str(variant), **fields}
        wanted = {k: _plain(v) for k, v in wanted.items() if v is not None}
        indexed = {k: v for k, v in wanted.items() if k in INDEX_FIELDS}
        return [(name, record) for name, record in self._records(kind, indexed)
                if all(record.get(k) == v for k, v in wanted.items())]

    def find_run(self, identity: dict) -> str | None:
        """Name of the newest finished run with this identity (see :class:`Checkpoint`), or None."""
        key = run_key(identity)
        with self._reader() as f, self._damage_is_refused():
            index = _index(f)
        if index is not None:
            found = [e["name"] for e in index if e.get("run_key") == key]
        else:
            found = [n for n, r in self._records() if r.get("provenance", {}).get("run_key") == key]
        return found[-1] if found else None

    def list(self) -> list[dict]:
        """One dict per stored result (oldest first): its record (as :meth:`load`) and ``name``."""
        return [{"name": name, **record} for name, record in self._records()]
