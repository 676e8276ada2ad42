"""The chain type: an absorbing Markov chain given by integer counts (see :mod:`exact.hand.chains`)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from exact.invariants import require


@dataclass(frozen=True)
class CountChain:
    """A chain given by integer counts (see the module docstring). ``total[u] = wins[u] + sum of
    count over the edges out of u``; edges out of a state may repeat a destination."""

    src: np.ndarray
    dst: np.ndarray
    count: np.ndarray
    wins: np.ndarray
    total: np.ndarray

    @property
    def states(self) -> int:
        return len(self.total)

    def check(self) -> None:
        """The counts of every state add up to its total (an invariant, not a user check)."""
        sums = np.asarray(self.wins, dtype=np.int64).copy()
        np.add.at(sums, np.asarray(self.src, dtype=np.int64), np.asarray(self.count, dtype=np.int64))
        require(bool(np.all(sums == self.total)), "every outcome of a state wins or moves along an edge")
