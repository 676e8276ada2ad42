"""Values as the store writes them: attributes natively where lossless, else JSON text; lists of
integers as datasets (int64, or decimal strings past 64 bits); seeds in one exact form.

Seeds are stored exactly, in one form wherever the store writes them (attributes, their JSON text,
the index, the journal) and as the CLI's ``--json`` prints them: an integer below 2^53, a decimal
string from 2^53 on (``"seed": "15802091393104518347"``, a sweep cell's derived seed), so that
readers that hold JSON numbers as doubles (jq 1.6, JavaScript) cannot round them
(:func:`sim.seeds.seeds_to_json`). Reading turns them back into ints
(:func:`sim.seeds.seeds_from_json`); stores written before this kept every seed as an integer (an int64
attribute, JSON text past 2^63) and read as they are. A run's key hashes its identity with the seed
as an integer, so old checkpoints keep their keys.

Attribute values are stored natively when they are a str, bool, float or an int that fits in int64;
anything else (a bigger int, a list, a dict, None) is stored as JSON text and its name listed in
the group's ``_json_keys``. Python's JSON keeps integers of any size exactly.
"""
from __future__ import annotations

import json

import numpy as np

from ..seeds import seeds_from_json, seeds_to_json

_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1


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
    (seeds of 2^53 or more as decimal strings, natively and in JSON: :func:`sim.seeds.seeds_to_json`)."""
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
    """A run's identity from its JSON text (seeds back to ints: :func:`sim.seeds.seeds_from_json`)."""
    return seeds_from_json(json.loads(text))


def _canonical_json(obj) -> str:
    return json.dumps(_plain(obj), sort_keys=True, separators=(",", ":"))
