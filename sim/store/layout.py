"""The layout of the store file: its header, a finished result as an HDF5 group, a run's checkpoint
as an HDF5 group. This is the one module that knows where things lie in the file (the index:
:mod:`sim.store.index`).

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
"""
from __future__ import annotations

import datetime as _dt
import secrets
from pathlib import Path

import numpy as np

from .. import provenance as _provenance
from ..seeds import seeds_to_json
from .codec import (_canonical_json, _is_int_list, _load_identity, _plain, _read_attrs, _read_int_list,
                    _write_attrs, _write_int_list)
from .errors import StoreError
from .identity import Checkpoint, family_key

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
