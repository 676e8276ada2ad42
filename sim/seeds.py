"""Seeds as the toolkit writes them: fresh seeds below 2^53 and the JSON form of large seeds.

Kept apart from :mod:`sim.rng` (whose kernels import numba) so that the command line, the results
store's index and ``--json`` output use them without loading numba; :mod:`sim.rng` re-exports them.
"""
from __future__ import annotations

import numpy as np

#: Fresh seeds are drawn below 2^53, so that every JSON reader keeps them exact: tools that read
#: numbers as doubles (jq 1.6, JavaScript) round larger integers, and a rounded seed cannot be
#: replayed. Seeds given by the user may be any non-negative integer (printed exactly).
SEED_BITS = 53


def new_seed() -> int:
    """A fresh seed from the OS, below 2^53 (:data:`SEED_BITS`), to report with a run that was given none."""
    return int(np.random.SeedSequence().entropy) >> (128 - SEED_BITS)


#: Seeds from this value on are written to JSON as decimal strings (:func:`seeds_to_json`).
JSON_SAFE_SEED = 1 << SEED_BITS


def _is_seed_key(key) -> bool:
    return isinstance(key, str) and (key == "seed" or key.endswith("_seed"))


def _is_seeds_key(key) -> bool:
    return isinstance(key, str) and (key == "seeds" or key.endswith("_seeds"))


def seeds_to_json(obj):
    """``obj`` with every seed of 2^53 or more written as a decimal string, the one form seeds take
    in every JSON text the toolkit writes (``--json`` output, the results store's JSON attributes,
    index and journal): a value under a key named ``seed`` or ``..._seed``, or in a list under
    ``seeds`` or ``..._seeds``, at any depth. Readers that hold JSON numbers as doubles (jq 1.6,
    JavaScript) would round such a seed, and a rounded seed replays other games. Smaller seeds, fresh
    ones included (drawn below 2^53), stay integers; nothing else (counts) is touched.
    :func:`seeds_from_json` undoes it, and ``--seed`` takes the string back (quoted or not).

    >>> seeds_to_json({"seed": 2**64, "games": 2**64, "cells": [{"seed": 7}]})
    {'seed': '18446744073709551616', 'games': 18446744073709551616, 'cells': [{'seed': 7}]}
    >>> seeds_to_json({"seeds": [1, 2**60]})
    {'seeds': [1, '1152921504606846976']}
    """
    def big(value):
        return isinstance(value, int) and not isinstance(value, bool) and value >= JSON_SAFE_SEED

    if isinstance(obj, dict):
        out = {}
        for key, value in obj.items():
            if _is_seed_key(key) and big(value):
                out[key] = str(value)
            elif _is_seeds_key(key) and isinstance(value, (list, tuple)):
                out[key] = [str(v) if big(v) else seeds_to_json(v) for v in value]
            else:
                out[key] = seeds_to_json(value)
        return out
    if isinstance(obj, (list, tuple)):
        return [seeds_to_json(v) for v in obj]
    return obj


def seeds_from_json(obj):
    """The inverse of :func:`seeds_to_json`: every seed written as a decimal string is an int again
    (seeds written as JSON integers, as older stores hold them, stay as they are).

    >>> seeds_from_json({"seed": "18446744073709551616", "cells": [{"seed": 7}], "seeds": ["1152921504606846976"]})
    {'seed': 18446744073709551616, 'cells': [{'seed': 7}], 'seeds': [1152921504606846976]}
    """
    def number(value):
        return int(value) if isinstance(value, str) and value.isascii() and value.isdigit() else seeds_from_json(value)

    if isinstance(obj, dict):
        out = {}
        for key, value in obj.items():
            if _is_seed_key(key):
                out[key] = number(value)
            elif _is_seeds_key(key) and isinstance(value, list):
                out[key] = [number(v) for v in value]
            else:
                out[key] = seeds_from_json(value)
        return out
    if isinstance(obj, list):
        return [seeds_from_json(v) for v in obj]
    return obj
