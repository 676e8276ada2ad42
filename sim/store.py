"""The results store: one HDF5 file (h5py) holding finished results and the checkpoints of runs
still under way. This is the one module that knows the file's layout.

Layout (schema 1)::

    /                                 attrs: format="solitaire-odds results store", schema_version=1,
                                             created (UTC ISO time), package_version, next_seq,
                                             compacted_size
    /results/<name>                   one group per finished computation (simulation, exact, sweep...)
        attrs: _kind, _saved, _seq, _json_keys  + one attribute per scalar or structured field of the
                                             result's ``to_dict()`` (game, suits, ranks, variant,
                                             method, seed, games, wins, p_win, ci95, ...)
        <field>                       one dataset per list-of-integers field (score_counts,
                                      iterations_to_win...): int64, or, when a value passes 64 bits
                                      (exact counts from 21 cards on), decimal strings with the
                                      attribute ``encoding="decimal"``
        provenance/                   group; attrs: the result's provenance (package_version,
                                      git_commit, libraries, started, finished, command_line, seed,
                                      games, chunk_games, n_chunks, backend...) + _json_keys
    /index                            JSON text: one entry per result in save order, its name, _seq
                                      and the fields of :data:`INDEX_FIELDS` (kind, game, deck,
                                      variant, seed, games, run_key...), rewritten by every
                                      transaction that adds results, so that finding a result or a
                                      run reads one dataset, not every record (absent in stores
                                      written before it: they are scanned, and indexed by their
                                      next write or by ``scripts/migrate_store.py``)
    /checkpoints/<run_key>            a run under way, as stores written before the journal kept it
                                      (read, never written now; see :class:`Checkpoint`)
        attrs: identity (canonical JSON), family (hash of the identity without the seed), game,
               variant, suits, ranks, seed, games, chunk_games, n_chunks, chunks_done, seconds,
               started, updated, sessions (JSON)
        done                          uint8, ``np.packbits`` of one flag per chunk (1 = counted)
        counts/<key>                  int64 sums over the done chunks (0-d for scalars)

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

Seeds are stored exactly, in one form wherever the store writes them (attributes, their JSON text,
the index, the journal) and as the CLI's ``--json`` prints them: an integer below 2^53, a decimal
string from 2^53 on (``"seed": "15802091393104518347"``, a sweep cell's derived seed), so that
readers that hold JSON numbers as doubles (jq 1.6, JavaScript) cannot round them
(:func:`sim.rng.seeds_to_json`). Reading turns them back into ints
(:func:`sim.rng.seeds_from_json`); stores written before this kept every seed as an integer (an int64
attribute, JSON text past 2^63) and read as they are. A run's key hashes its identity with the seed
as an integer, so old checkpoints keep their keys.

Attribute values are stored natively when they are a str, bool, float or an int that fits in int64;
anything else (a bigger int, a list, a dict, None) is stored as JSON text and its name listed in
the group's ``_json_keys``. Python's JSON keeps integers of any size exactly.

Crash safety: every change is a *transaction* that writes a complete new file next to the store
(``<file>.tmp``: a copy of the old file, changed), closes and fsyncs it, and then
``os.replace``-s it over the store (atomic on POSIX and Windows). A process killed at any moment
leaves either the old file or the new one, never a half-written store; a stale ``.tmp`` is never
read and is removed by the next transaction. Writers take an advisory lock (``<file>.lock``) so two
processes never lose each other's updates; readers need no lock. A file that cannot be read, is
not ours or has another schema version is refused with :class:`StoreError` and never overwritten.
A write that fails (disk full, no permission) leaves the old file (and the last checkpoint) as it
was and raises :class:`StoreWriteError`, one line; before a write the free space is checked against
what the write needs, so HDF5 is not left to meet a full disk half-way.

Reading: records never change once written (names are unique), so each process caches the records
it has read, per file; listing and finding read only the records it has not seen yet.
"""
from __future__ import annotations

import contextlib
import datetime as _dt
import hashlib
import json
import os
import secrets
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from . import provenance as _provenance
from .errors import UsageError, WriteError
from .rng import seeds_from_json, seeds_to_json

FORMAT = "solitaire-odds results store"
SCHEMA_VERSION = 1
#: The project's results store (tracked: every number in results/README.md is read from it): what
#: ``ResultsStore()``, ``solitaire report`` and ``solitaire runs`` use when none is named.
DEFAULT_PATH = Path("results") / "solitaire.h5"
#: Where ad-hoc runs are stored when none is named (``solitaire simulate`` of 10^7 games or more,
#: without ``--out``): an untracked file, so examples never write into the project's store.
RUNS_PATH = Path("results") / "runs.h5"

_RESULTS = "results"
_CHECKPOINTS = "checkpoints"
_INDEX = "index"
_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1
#: A store is rewritten compactly once it exceeds twice its compacted size plus this (bytes).
_COMPACT_SLACK = 1 << 20
#: Free space kept beyond what a write needs (bytes): below it, writes are refused up front.
_SPACE_MARGIN = 16 << 20
#: Records read so far, per store file (records never change once written).
_RECORD_CACHE: dict = {}
#: The last index parsed (see :func:`_index`).
_INDEX_CACHE: dict = {}


class StoreError(UsageError):
    """The store file cannot be used (damaged, not ours, other schema, unknown name)."""


class StoreWriteError(StoreError, WriteError):
    """The store could not be written (disk full, no permission): nothing was changed, the last
    checkpoint is kept. Not a user mistake, so the CLI exits with status 1."""

    exit_status = 1


# --- value encoding ----------------------------------------------------------------------------

def _plain(value):
    """numpy scalars and arrays -> Python ints, floats, bools and lists (JSON-compatible)."""
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_int_list(value) -> bool:
    return isinstance(value, list) and len(value) > 0 and all(_is_int(v) for v in value)


def _write_attrs(obj, record: dict) -> None:
    """Write ``record``'s entries as attributes of ``obj``, natively where lossless, else as JSON
    (seeds of 2^53 or more as decimal strings, natively and in JSON: :func:`sim.rng.seeds_to_json`)."""
    json_keys = []
    for key, value in seeds_to_json(_plain(dict(record))).items():
        if isinstance(value, str):
            obj.attrs[key] = value
        elif isinstance(value, bool):
            obj.attrs[key] = np.bool_(value)
        elif _is_int(value) and _INT64_MIN <= value <= _INT64_MAX:
            obj.attrs[key] = np.int64(value)
        elif isinstance(value, float):
            obj.attrs[key] = np.float64(value)
        else:
            obj.attrs[key] = json.dumps(value)
            json_keys.append(key)
    obj.attrs["_json_keys"] = json.dumps(json_keys)


def _read_attrs(obj) -> dict:
    json_keys = set(json.loads(obj.attrs.get("_json_keys", "[]")))
    record = {}
    for key, value in obj.attrs.items():
        if key.startswith("_"):
            continue
        if key in json_keys:
            record[key] = json.loads(value)
        elif isinstance(value, bytes):
            record[key] = value.decode()
        else:
            record[key] = _plain(value)
    return seeds_from_json(record)


def _write_int_list(group, key: str, values: list[int]) -> None:
    if all(_INT64_MIN <= v <= _INT64_MAX for v in values):
        group.create_dataset(key, data=np.array(values, dtype=np.int64))
    else:
        import h5py

        ds = group.create_dataset(key, data=[str(v) for v in values], dtype=h5py.string_dtype())
        ds.attrs["encoding"] = "decimal"


def _read_int_list(dataset) -> list[int]:
    if dataset.attrs.get("encoding") == "decimal":
        return [int(v) for v in dataset.asstr()[()]]
    return [int(v) for v in dataset[()]]


def _load_identity(text) -> dict:
    """A run's identity from its JSON text (seeds back to ints: :func:`sim.rng.seeds_from_json`)."""
    return seeds_from_json(json.loads(text))


def _canonical_json(obj) -> str:
    return json.dumps(_plain(obj), sort_keys=True, separators=(",", ":"))


def _digest(obj) -> str:
    return hashlib.sha256(_canonical_json(obj).encode()).hexdigest()[:20]


# --- checkpoints -------------------------------------------------------------------------------

@dataclass
class Checkpoint:
    """The state of a run under way: which chunks are counted, and their summed counts.

    ``identity`` is what makes two runs the same run (game, variant, deck, seed, games,
    chunk_games, game options, package version, engine version); :func:`run_key` hashes it.
    """

    identity: dict
    n_chunks: int
    done: np.ndarray  #: bool per chunk
    counts: dict  #: key -> int or int64 array, summed over the done chunks
    seconds: float = 0.0  #: compute time spent so far, over all sessions
    started: str = ""
    sessions: list = field(default_factory=list)

    @property
    def chunks_done(self) -> int:
        return int(self.done.sum())


#: The engine version of identities recorded before ``engine_version`` was part of them.
IMPLICIT_ENGINE_VERSION = 1


def _hashed_identity(identity: dict) -> dict:
    """The identity as hashed: ``engine_version`` 1 is left out, so runs checkpointed or stored
    before the field existed (all version 1) keep their keys and are still resumed and found,
    while any other version hashes differently and never matches them."""
    if identity.get("engine_version", IMPLICIT_ENGINE_VERSION) == IMPLICIT_ENGINE_VERSION:
        return {k: v for k, v in identity.items() if k != "engine_version"}
    return identity


def run_key(identity: dict) -> str:
    """Name of a run's checkpoint group: a hash of its identity."""
    return "run-" + _digest(_hashed_identity(identity))


def family_key(identity: dict) -> str:
    """Hash of a run's identity without its seed: runs that differ only by seed share it."""
    return _digest({k: v for k, v in _hashed_identity(identity).items() if k != "seed"})


# --- the store -----------------------------------------------------------------------------------

class ResultsStore:
    """The HDF5 results store at ``path`` (default ``results/solitaire.h5``).

    Nothing is written until something is saved; the file and its folder are created then. Every
    write is atomic (see the module docstring), so the object holds no open file and can be kept
    for as long as wanted.

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

    # -- reading --------------------------------------------------------------------------------

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

    def check(self) -> "ResultsStore":
        """Refuse at once a file that is damaged, not ours or of another schema (reads the header
        only, whatever the store holds); returns the store. A missing file passes."""
        with self._reader():
            pass
        return self

    def check_writable(self) -> "ResultsStore":
        """:meth:`check`, and refuse a location where the store could not be written (its folder
        is a file, or not writable); nothing is created."""
        from .checks import writable_file

        writable_file(self.path)
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

    # -- the journal: runs under way --------------------------------------------------------------

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

        The lock file (and the journal folder) that this call created are removed afterwards, so a
        run refused inside the block (a deck too large for a method) leaves no file behind, and a
        finished one leaves the store alone. (A process that was waiting on the removed file holds
        its lock all the same, and finds the run stored.)"""
        journal_created = not self.journal.exists()
        if _writable_dir(self.journal):
            self.journal.mkdir(parents=True, exist_ok=True)
        if not self.journal.is_dir():  # a read-only location: nothing will be written there either
            yield
            return
        lock = self.journal / f"{run_key(identity)}.lock"
        lock_created = not lock.exists()
        try:
            with _locked(lock, on_wait=lambda: on_wait and on_wait(
                    f"this run is under way in another process (lock {lock}): waiting for it to finish")):
                yield
        finally:
            if lock_created:
                with contextlib.suppress(OSError):
                    lock.unlink()
            if journal_created:
                with contextlib.suppress(OSError):
                    self.journal.rmdir()  # only when empty: a checkpoint left for a resume stays

    # -- writing --------------------------------------------------------------------------------

    def _write_failed(self, exc: BaseException, what: str = "the results store") -> StoreWriteError:
        return StoreWriteError(f"cannot write {what} {self.path} ({_short(exc)}); nothing was changed, the last "
                               "checkpoint is kept: free space or fix permissions, then run the same command")

    def _need_space(self, folder: Path, size: int) -> None:
        """Refuse a write of about ``size`` bytes to a disk without room for it (with a margin)."""
        try:
            free = shutil.disk_usage(folder).free
        except OSError:
            return
        if free < size + _SPACE_MARGIN:
            raise StoreWriteError(f"cannot write the results store {self.path}: {free:,} bytes free on its disk, "
                                  f"a write needs about {size + _SPACE_MARGIN:,}; nothing was changed, the last "
                                  "checkpoint is kept: free space, then run the same command")

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
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with open(self.path.with_name(self.path.name + ".lock"), "a"):
                pass
        except OSError as exc:
            raise StoreWriteError(f"cannot write the results store {self.path} ({_short(exc)}): choose another --out") from None
        with _locked(self.path.with_name(self.path.name + ".lock")):
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

    def load_parts(self, identity: dict) -> dict:
        """The parts saved so far by an unfinished computation made of parts (a validation's cases):
        ``{key: JSON value}``, empty when there are none (or the computation is stored already)."""
        path = self.journal / f"{run_key(identity)}.json"
        if not path.exists() or self.find_run(identity) is not None:
            return {}
        try:
            return seeds_from_json(json.loads(path.read_text()))["parts"]
        except (OSError, ValueError, KeyError) as exc:
            raise StoreError(f"{path}: unreadable journal file ({_short(exc)}): remove it to start again") from None

    def write_parts(self, identity: dict, parts: dict, *, done: int | None = None, total: int | None = None,
                    unit: str = "parts") -> None:
        """Save the finished parts of a computation (replacing what was saved before), atomically,
        in its journal file; the cost does not depend on what the store holds. ``done`` of ``total``
        ``unit`` (e.g. 3 of 7 chunks) is what :meth:`unfinished_parts` and ``solitaire runs`` show."""
        path = self.journal / f"{run_key(identity)}.json"
        tmp = path.with_name(path.name + ".tmp")
        text = json.dumps(seeds_to_json({"identity": _plain(identity), "family": family_key(identity),
                                         "updated": _provenance.now(), "done": done if done is not None else len(parts),
                                         "total": total, "unit": unit, "parts": _plain(parts)}))
        try:
            self.journal.mkdir(parents=True, exist_ok=True)
            self._need_space(self.journal, len(text))
            tmp.write_text(text)
            _fsync(tmp)
            os.replace(tmp, path)
        except OSError as exc:
            with contextlib.suppress(OSError):
                tmp.unlink()
            raise self._write_failed(exc, "the journal of") from None

    def _parts_files(self):
        """``(key, content)`` of every unfinished computation made of parts (journal ``run-*.json``
        files whose computation is not stored yet; unreadable ones are skipped here and refused when
        that computation asks for them)."""
        files = sorted(self.journal.glob("run-*.json")) if self.journal.is_dir() else []
        finished = {r.get("provenance", {}).get("run_key") for _, r in self._records()} if files else set()
        for path in files:
            if path.stem in finished:
                continue
            try:
                content = seeds_from_json(json.loads(path.read_text()))
                content["identity"]
            except (OSError, ValueError, KeyError, TypeError):
                continue
            yield path.stem, content

    def unfinished_parts(self) -> list[dict]:
        """Computations made of parts under way (a ``poison`` classification's chunks, a validation's
        cases): identity, ``done`` of ``total`` ``unit``, last update."""
        rows = [{"run": key, **c["identity"], "done": c.get("done", len(c.get("parts", {}))), "total": c.get("total"),
                 "unit": c.get("unit", "parts"), "updated": c.get("updated", "")} for key, c in self._parts_files()]
        return sorted(rows, key=lambda r: r["updated"])

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


#: Fields of each result kept in the index (``/index``), so that finding a result reads only the
#: records that match instead of every record.
INDEX_FIELDS = ("kind", "game", "suits", "ranks", "variant", "seed", "games", "decks", "method", "run_key")


def _index(f) -> list[dict] | None:
    """The index of the stored results in save order (``{"name", "seq", field: value...}``), or None
    for a store written before the index (read by scanning every result). Parsed once per version of
    the file (its path, inode, size and modification time: every write replaces the file)."""
    if f is None or _INDEX not in f:
        return None
    try:
        st = os.stat(f.filename)
        key = (os.path.realpath(f.filename), st.st_ino, st.st_size, st.st_mtime_ns)
    except OSError:
        key = None
    if key is not None and _INDEX_CACHE.get("key") == key:
        return _INDEX_CACHE["index"]
    raw = f[_INDEX][()]
    index = seeds_from_json(json.loads(raw.decode() if isinstance(raw, bytes) else raw))
    if key is not None:
        _INDEX_CACHE.update(key=key, index=index)
    return index


def _index_entry(name: str, group) -> dict:
    a = group.attrs
    entry = {"name": name, "seq": int(a.get("_seq", -1)), "kind": str(a["_kind"])}
    json_keys = set(json.loads(a.get("_json_keys", "[]")))
    for key in INDEX_FIELDS[1:-1]:
        if key in a:
            value = a[key]
            entry[key] = json.loads(value) if key in json_keys else _plain(value.decode() if isinstance(value, bytes) else value)
    if "provenance" in group and "run_key" in group["provenance"].attrs:
        entry["run_key"] = str(group["provenance"].attrs["run_key"])
    return seeds_from_json(entry)


def _update_index(f) -> None:
    """Bring ``/index`` up to date with ``/results`` (inside a transaction): entries for the results
    not indexed yet are added (all of them, once, in a store written before the index)."""
    import h5py

    entries = _index(f) or []
    known = {e["name"] for e in entries}
    group = f[_RESULTS]
    new = [_index_entry(n, group[n]) for n in group if n not in known]
    if not new and _INDEX in f:
        return
    entries = sorted(entries + new, key=lambda e: e["seq"])
    if _INDEX in f:
        del f[_INDEX]
    f.create_dataset(_INDEX, data=json.dumps(seeds_to_json(entries), separators=(",", ":")),
                     dtype=h5py.string_dtype())


def _names(f, kind: str | None = None) -> list[str]:
    if f is None or _RESULTS not in f:
        return []
    index = _index(f)
    if index is not None:
        return [e["name"] for e in index if kind is None or e["kind"] == kind]
    group = f[_RESULTS]
    rows = [(int(group[n].attrs.get("_seq", -1)), n) for n in group
            if kind is None or group[n].attrs.get("_kind") == kind]
    return [n for _, n in sorted(rows)]


def new_name(kind: str, game: str | None = None, suits: int | None = None, ranks: int | None = None) -> str:
    """A fresh result name: kind, game, deck, UTC time and a random suffix; the game and the deck
    are left out when the result has none (a validation over many decks, a sweep over a grid)."""
    stamp = _dt.datetime.now(_dt.timezone.utc).strftime("%Y%m%dT%H%M%S")
    parts = [kind, game.replace(",", "+") if game else None,
             f"{suits}x{ranks}" if suits is not None and ranks is not None else None]
    return "-".join([p for p in parts if p] + [stamp, secrets.token_hex(3)])


def _result_fields(result) -> tuple[str, dict, dict]:
    kind = getattr(result, "kind", None)
    if not isinstance(kind, str) or not hasattr(result, "to_dict"):
        raise TypeError(f"cannot store {type(result).__name__}: a result needs `kind`, `to_dict()` and `provenance`")
    return kind, _plain(dict(result.to_dict())), _plain(dict(getattr(result, "provenance", {}) or {}))


def _write_result(f, result, name: str | None) -> str:
    kind, record, prov = _result_fields(result)
    if name is None:
        name = new_name(kind, record.get("game"), record.get("suits"), record.get("ranks"))
    if "/" in name or not name:
        raise StoreError(f"result name {name!r} must be non-empty and contain no '/'")
    results = f[_RESULTS]
    if name in results:
        raise StoreError(f"{f.filename}: a result named {name!r} exists already: choose another name")
    group = results.create_group(name)
    scalars = {k: v for k, v in record.items() if not _is_int_list(v)}
    _write_attrs(group, scalars)
    group.attrs["_kind"] = kind
    group.attrs["_saved"] = _provenance.now()
    group.attrs["_seq"] = np.int64(f.attrs["next_seq"])  # save order, for listing
    f.attrs["next_seq"] = np.int64(f.attrs["next_seq"] + 1)
    for key, value in record.items():
        if _is_int_list(value):
            _write_int_list(group, key, value)
    _write_attrs(group.create_group("provenance"), prov)
    return name


def _read_result(group) -> dict:
    record = _read_attrs(group)
    for key, obj in group.items():
        if key != "provenance":
            record[key] = _read_int_list(obj)
    record.setdefault("kind", str(group.attrs["_kind"]))
    record["provenance"] = _read_attrs(group["provenance"]) if "provenance" in group else {}
    record.setdefault("saved", str(group.attrs.get("_saved", "")))
    return record


def _write_checkpoint(group, cp: Checkpoint) -> None:
    """Write a checkpoint into an empty group (the root of its journal file)."""
    ident = cp.identity
    _write_attrs(group, {"game": ident["game"], "variant": ident["variant"], "suits": ident["suits"],
                         "ranks": ident["ranks"], "seed": str(ident["seed"]), "games": ident["games"],
                         "chunk_games": ident["chunk_games"], "n_chunks": cp.n_chunks,
                         "chunks_done": cp.chunks_done, "seconds": float(cp.seconds),
                         "started": cp.started, "updated": _provenance.now(),
                         "sessions": cp.sessions})
    group.attrs["identity"] = _canonical_json(seeds_to_json(_plain(ident)))
    group.attrs["family"] = family_key(ident)
    group.create_dataset("done", data=np.packbits(cp.done.astype(bool)))
    counts = group.create_group("counts")
    for k, value in cp.counts.items():
        counts.create_dataset(k, data=np.asarray(value, dtype=np.int64))


def _read_checkpoint(group) -> Checkpoint:
    a = group.attrs
    n_chunks = int(a["n_chunks"])
    done = np.unpackbits(group["done"][()], count=n_chunks).astype(bool)
    counts = {}
    for k, ds in group["counts"].items():
        value = ds[()]
        counts[k] = int(value) if np.ndim(value) == 0 else np.asarray(value, dtype=np.int64)
    if int(done.sum()) != int(a["chunks_done"]):
        raise StoreError(f"checkpoint {group.name} is inconsistent: remove it with --no-resume")
    attrs = _read_attrs(group)
    return Checkpoint(identity=_load_identity(a["identity"]), n_chunks=n_chunks, done=done, counts=counts,
                      seconds=float(a["seconds"]), started=str(a["started"]),
                      sessions=list(attrs.get("sessions", [])))


# --- files ---------------------------------------------------------------------------------------

def _short(exc: BaseException) -> str:
    return " ".join(str(exc).split())[:160]


def _file_id(path: Path, f) -> tuple:
    """What identifies one store file's content for the record cache: its resolved path and the
    file's creation time (a file replaced by a transaction keeps its records and adds some)."""
    return (str(Path(path).resolve()), str(f.attrs.get("created", "")) if f is not None else "")


def _writable_dir(folder: Path) -> bool:
    try:
        from .checks import writable_folder

        writable_folder(folder)
        return True
    except UsageError:
        return False


@contextlib.contextmanager
def _locked(lock_path: Path, on_wait=None):
    """An exclusive advisory lock on ``lock_path`` (POSIX ``flock``; no-op where unavailable);
    ``on_wait()`` is called once if another process holds it."""
    try:
        import fcntl
    except ImportError:  # Windows: one writer is the documented rule
        yield
        return
    with open(lock_path, "a") as handle:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if on_wait is not None:
                on_wait()
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_dir(path: Path) -> None:
    """Make the rename durable (POSIX); harmless to skip where directories can't be opened."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
