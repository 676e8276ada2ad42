"""The index (``/index``): one JSON entry per stored result, so that finding a result or a run reads
one dataset instead of every record."""
from __future__ import annotations

import json
import os

from ..seeds import seeds_from_json, seeds_to_json
from .codec import _plain
from .layout import _INDEX, _RESULTS

#: Fields of each result kept in the index (``/index``), so that finding a result reads only the
#: records that match instead of every record.
INDEX_FIELDS = ("kind", "game", "suits", "ranks", "variant", "seed", "games", "decks", "method", "run_key")
#: The last index parsed (see :func:`_index`).
_INDEX_CACHE: dict = {}


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
