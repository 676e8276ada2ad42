"""One factorization of ``A`` modulo a prime: the sparse eliminations, then the dense LU of the core."""
from __future__ import annotations

import numpy as np

from exact.hand.chains.dense_lu import _dense_lu, centred_float32
from exact.hand.chains.modular_solve import MAX_DENSE_CORE
from exact.hand.chains.sparse_lu import _core_matrix, _markowitz_mod, _sparse_eliminate_reference
from exact.hand.chains.system import IntegerSystem, ModularFactors
from exact.invariants import require

#: States whose elimination costs at most this many (predecessors x successors) are eliminated
#: sparsely; the rest form the dense core. 3x4 ``step7=off`` (131,536 unknowns): 1024 leaves a core
#: of 20,168, 16384 one of 11,453, 65536 one of 9,651 (7.2 M + 2.7 M sparse factor entries, the
#: sparse part 36 CPU-s in numba), 262144 one of 8,764 (8.3 M + 4.2 M entries).
SPARSE_COST = 65536


def factor_modular(system: IntegerSystem, p: int, *, max_cost: int | None = None,
                   progress=None, reference: bool = False) -> ModularFactors | None:
    """Factor ``A`` modulo ``p``; ``None`` if ``A`` is singular modulo ``p`` (then try another prime).
    ``progress`` (a callable), if given, hears the core's size before the dense LU (``8 core**2``
    bytes: what limits the size of a system)."""
    require(system.size < 2**31, "state numbers fit the int32 of the sparse factors")
    max_cost = SPARSE_COST if max_cost is None else max_cost
    if reference:
        order, inverse, l_ptr, l_idx, l_val, u_ptr, u_idx, u_val, core, rows = _sparse_eliminate_reference(
            system, p, max_cost)
    else:
        (order, inverse, l_ptr, l_idx, l_val, u_ptr, u_idx, u_val, eliminated, start, length, rcols,
         rvals) = _markowitz_mod(system.indptr, system.indices, system.data, p, max_cost)
        core = np.flatnonzero(~eliminated)
    if progress is not None:  # the core's nonzeros are counted only for whoever listens
        if reference:
            core_entries = sum(len(rows[u]) for u in core)
        else:
            core_entries = sum(int(np.count_nonzero(rvals[start[u]:start[u] + length[u]])) for u in core)
        progress({"phase": "sparse part eliminated", "system_size": system.size, "core": len(core),
                  "eliminated": len(order), "l_entries": len(l_idx), "core_entries": core_entries})
    require(len(core) <= MAX_DENSE_CORE, "the dense core is small enough for exact float64 sums")
    m = len(core)
    if reference:
        position = {u: i for i, u in enumerate(core)}
        dense = np.zeros((m, m), dtype=np.float64)
        for i, u in enumerate(core):
            for j, v in rows[u].items():
                dense[i, position[j]] = v
            rows[u] = None  # the dicts of the core go as the dense matrix fills
        del rows
    else:
        dense = _core_matrix(np.asarray(core, dtype=np.int64), start, length, rcols, rvals, system.size)
        del start, length, rcols, rvals
    perm = _dense_lu(dense, p) if m else np.zeros(0, dtype=np.int64)
    if perm is None:
        return None
    diagonal = np.diagonal(dense).tolist()
    lu = centred_float32(dense, p)
    del dense
    as_array = lambda x: np.asarray(x, dtype=np.int64)  # noqa: E731
    # the sparse factors' indices and residues (below 2**24) as int32: half the bytes a lifting step reads
    as_int32 = lambda x: np.asarray(x, dtype=np.int32)  # noqa: E731
    return ModularFactors(p=p, order=as_array(order), inverse=as_array(inverse), l_ptr=as_array(l_ptr),
                          l_idx=as_int32(l_idx), l_val=as_int32(l_val), u_ptr=as_array(u_ptr),
                          u_idx=as_int32(u_idx), u_val=as_int32(u_val), core=as_array(core),
                          lu=lu, perm=perm, diagonal_inverse=as_array([pow(int(d), -1, p) for d in diagonal]))
