"""The integer system ``A = D - C`` of a chain on its transient states, the primes it is solved
modulo, and the record of one factorization modulo a prime."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from exact.hand.chains.chain import CountChain

#: Primes for the modular solves: below ``2**24``, so that centred residues (``|x| < 2**23``) are exact
#: in float32, a sum of 128 products of them (each below ``2**46 - 2**24``) plus a residue is exact in
#: float64 (below ``2**53``), and products of two residues fit int64. (The largest such primes: each
#: lifting step gains log10(p) = 7.22 digits; below ``2**23`` it was 6.92, 4.3% more steps.)
PRIMES = (16777213, 16777199, 16777183, 16777153, 16777141, 16777139, 16777127, 16777121)


@dataclass(frozen=True)
class IntegerSystem:
    """``A`` (CSR, int64) on the transient states renumbered ``0..n-1``, ``wins`` and ``total``
    (``D``), and where the start state went."""

    indptr: np.ndarray
    indices: np.ndarray
    data: np.ndarray
    wins: np.ndarray
    total: np.ndarray
    start: int

    @property
    def size(self) -> int:
        return len(self.total)


def integer_system(chain: CountChain, transient, start: int = 0) -> IntegerSystem:
    """The system ``A = D - C`` on the transient states (see the module docstring)."""
    transient = np.asarray(transient, dtype=bool)
    states = np.flatnonzero(transient)
    index = np.full(chain.states, -1, dtype=np.int64)
    index[states] = np.arange(len(states))
    src, dst = np.asarray(chain.src, dtype=np.int64), np.asarray(chain.dst, dtype=np.int64)
    keep = transient[src] & transient[dst]
    n = len(states)
    total = np.asarray(chain.total, dtype=np.int64)[states]
    rows = np.concatenate([index[src[keep]], np.arange(n)])
    cols = np.concatenate([index[dst[keep]], np.arange(n)])
    vals = np.concatenate([-np.asarray(chain.count, dtype=np.int64)[keep], total])
    a = sp.csr_matrix((vals, (rows, cols)), shape=(n, n), dtype=np.int64)
    a.sum_duplicates()
    a.eliminate_zeros()
    a.sort_indices()
    return IntegerSystem(indptr=a.indptr.astype(np.int64), indices=a.indices.astype(np.int64),
                         data=a.data.astype(np.int64), wins=np.asarray(chain.wins, dtype=np.int64)[states],
                         total=total, start=int(index[start]))


@dataclass
class ModularFactors:
    """``A`` factored modulo ``p``: sparse eliminations (in order), then a dense LU of the core."""

    p: int
    order: np.ndarray  #: eliminated states, in elimination order
    inverse: np.ndarray  #: inverse of each pivot mod p
    l_ptr: np.ndarray
    l_idx: np.ndarray
    l_val: np.ndarray
    u_ptr: np.ndarray
    u_idx: np.ndarray
    u_val: np.ndarray
    core: np.ndarray  #: states of the dense core
    #: the core's LU as centred residues (``|x| <= p/2``, exact in float32 since ``p < 2**24``): unit
    #: lower L below the diagonal, U on and above
    lu: np.ndarray
    perm: np.ndarray  #: row permutation of the core (row i of LU is core row perm[i])
    diagonal_inverse: np.ndarray  #: inverses of U's diagonal mod p
