"""What makes two runs the same run: a run's identity, its key (the hash naming its checkpoint and
found in the provenance of its stored result), the key of its family (all seeds), and the state of
a run under way (:class:`Checkpoint`)."""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

import numpy as np

from .codec import _canonical_json


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
