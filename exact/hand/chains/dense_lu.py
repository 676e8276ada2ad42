"""The dense LU modulo a prime of the core left by the sparse elimination: panels in numba, the
trailing updates exactly in float64 BLAS on centred residues (see :data:`~exact.hand.chains.system.PRIMES`)."""
from __future__ import annotations

import numpy as np

from exact.hand.chains.sparse_lu import inverse_mod
from sim._jit import jit

#: Columns per panel of the dense LU (see :data:`~exact.hand.chains.system.PRIMES` for why at most 128).
PANEL = 128
#: Rows per block of the dense LU's trailing updates (the temporary product is this many rows).
UPDATE_ROWS = 1024


@jit
def _reduce(v, pf, pinv):
    """``v mod p`` for an integer-valued float64 ``|v| < 2**53`` (``pinv = 1 / p``): the near
    quotient's floor, then one correction either way (exact: every term is an integer below 2**53)."""
    r = v - pf * np.floor(v * pinv)
    if r < 0.0:
        r += pf
    elif r >= pf:
        r -= pf
    return r


@jit
def _reduce_block(block, p):
    """Every entry of ``block`` (integer-valued float64, below 2**53 in size) reduced modulo ``p``
    in place."""
    pf = np.float64(p)
    pinv = 1.0 / pf
    for i in range(block.shape[0]):
        row = block[i]
        for c in range(row.shape[0]):
            row[c] = _reduce(row[c], pf, pinv)


@jit
def _panel_lu(a, k0, k1, perm, p):
    """Unblocked LU of columns ``k0:k1`` (rows ``k0:``) of ``a`` (float64 residues), row swaps applied
    to whole rows; returns False if a column has no nonzero pivot (singular modulo p). The updates
    are float64 (``|a - f b| < 2**48``, exact) reduced by :func:`_reduce`."""
    n = a.shape[0]
    pf = np.float64(p)
    pinv = 1.0 / pf
    for j in range(k0, k1):
        r = j
        while r < n and a[r, j] == 0.0:
            r += 1
        if r == n:
            return False
        if r != j:
            for c in range(n):
                t = a[j, c]
                a[j, c] = a[r, c]
                a[r, c] = t
            t2 = perm[j]
            perm[j] = perm[r]
            perm[r] = t2
        inv = inverse_mod(np.int64(a[j, j]) % p, p)
        pivot_row = a[j, j + 1:k1]
        for i in range(j + 1, n):
            aij = np.int64(a[i, j])
            if aij == 0:
                continue
            factor = aij * inv % p
            a[i, j] = factor
            f = np.float64(factor)
            row = a[i, j + 1:k1]
            for c in range(row.shape[0]):
                row[c] = _reduce(row[c] - f * pivot_row[c], pf, pinv)
    return True


@jit
def _unit_lower_solve_rows(a, k0, k1, p):
    """``a[k0:k1, k1:] = L11^{-1} a[k0:k1, k1:]`` modulo p (L11 unit lower, stored in ``a``)."""
    n = a.shape[0]
    pf = np.float64(p)
    pinv = 1.0 / pf
    for i in range(k0 + 1, k1):
        row = a[i, k1:n]
        for j in range(k0, i):
            f = a[i, j]
            if f == 0.0:
                continue
            other = a[j, k1:n]
            for c in range(row.shape[0]):
                row[c] = _reduce(row[c] - f * other[c], pf, pinv)


def _dense_lu(a: np.ndarray, p: int):
    """LU modulo ``p`` of the float64 residue matrix ``a`` in place: panels in numba, the trailing
    updates in float64 BLAS on centred residues (exact: see :data:`~exact.hand.chains.system.PRIMES`)."""
    n = a.shape[0]
    perm = np.arange(n, dtype=np.int64)
    half = p // 2
    for k0 in range(0, n, PANEL):
        k1 = min(k0 + PANEL, n)
        if not _panel_lu(a, k0, k1, perm, p):
            return None
        if k1 < n:
            _unit_lower_solve_rows(a, k0, k1, p)
            left = a[k1:, k0:k1].copy()
            left[left > half] -= p
            top = a[k0:k1, k1:].copy()
            top[top > half] -= p
            for r0 in range(k1, n, UPDATE_ROWS):  # in row blocks: no temporary as large as the core
                r1 = min(r0 + UPDATE_ROWS, n)
                block = a[r0:r1, k1:]
                block -= left[r0 - k1:r1 - k1] @ top
                _reduce_block(block, p)
    return perm


def _centred(a: np.ndarray, p: int) -> np.ndarray:
    """Residues ``0 <= a < p`` as centred residues ``-p/2 <= a <= p/2`` (a copy)."""
    return np.where(a > p // 2, a - p, a)


def centred_float32(dense: np.ndarray, p: int) -> np.ndarray:
    """The LU of :func:`_dense_lu` as centred float32 residues (exact, since ``p < 2**24``), converted
    a block of :data:`UPDATE_ROWS` rows at a time."""
    m = dense.shape[0]
    lu = np.empty((m, m), dtype=np.float32)
    for r0 in range(0, m, UPDATE_ROWS):
        lu[r0:r0 + UPDATE_ROWS] = _centred(dense[r0:r0 + UPDATE_ROWS], p)
    return lu
