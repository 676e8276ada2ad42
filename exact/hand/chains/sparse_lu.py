"""The sparse part of the factorization modulo a prime: Markowitz elimination of the low-degree
states (a numba kernel and its plain reference), leaving a dense core."""
from __future__ import annotations

import heapq

import numpy as np

from exact.hand.chains.system import IntegerSystem
from sim._jit import jit


def _sparse_eliminate_reference(system: IntegerSystem, p: int, max_cost: int):
    """Markowitz elimination modulo ``p`` while the cheapest state costs at most ``max_cost``
    (predecessors x successors): the plain reference (Python dicts) of :func:`_markowitz_mod`."""
    n = system.size
    rows: list[dict] = [dict() for _ in range(n)]
    cols: list[set] = [set() for _ in range(n)]
    indptr, indices, data = system.indptr.tolist(), system.indices.tolist(), system.data.tolist()
    for i in range(n):
        row = rows[i]
        for e in range(indptr[i], indptr[i + 1]):
            v = data[e] % p
            if v:
                row[indices[e]] = v
                cols[indices[e]].add(i)
    heap = [((len(cols[u]) - 1) * (len(rows[u]) - 1), u) for u in range(n)]
    heapq.heapify(heap)
    eliminated = [False] * n
    order, inverse, l_ptr, l_idx, l_val, u_ptr, u_idx, u_val = [], [], [0], [], [], [0], [], []
    while heap:
        cost, k = heapq.heappop(heap)
        if eliminated[k]:
            continue
        row_k, col_k = rows[k], cols[k]
        current = (len(col_k) - (k in col_k)) * (len(row_k) - (k in row_k))
        if current > cost:
            heapq.heappush(heap, (current, k))
            continue
        if cost > max_cost:
            break
        pivot = row_k.get(k, 0)
        if not pivot:  # a zero pivot modulo p (rare): leave the state to the dense core
            continue
        eliminated[k] = True
        inv = pow(pivot, -1, p)
        del row_k[k]
        col_k.discard(k)
        for j in row_k:
            cols[j].discard(k)
        for i in col_k:
            row_i = rows[i]
            factor = row_i.pop(k) * inv % p
            l_idx.append(i)
            l_val.append(factor)
            for j, v in row_k.items():
                new = (row_i.get(j, 0) - factor * v) % p
                if new:
                    if j not in row_i:
                        cols[j].add(i)
                    row_i[j] = new
                elif j in row_i:
                    del row_i[j]
                    cols[j].discard(i)
            heapq.heappush(heap, ((len(cols[i]) - (i in cols[i])) * (len(row_i) - (i in row_i)), i))
        order.append(k)
        inverse.append(inv)
        l_ptr.append(len(l_idx))
        u_idx.extend(row_k.keys())
        u_val.extend(row_k.values())
        u_ptr.append(len(u_idx))
        rows[k], cols[k] = {}, set()
    core = [u for u in range(n) if not eliminated[u]]
    return order, inverse, l_ptr, l_idx, l_val, u_ptr, u_idx, u_val, core, rows


@jit
def inverse_mod(a, p):
    """``a**-1 mod p`` for a prime ``p`` and ``0 < a < p`` (Fermat: ``a**(p - 2)``, square and multiply)."""
    inv = np.int64(1)
    base = np.int64(a)
    e = p - 2
    while e > 0:
        if e & 1:
            inv = inv * base % p
        base = base * base % p
        e >>= 1
    return inv


@jit
def _grown(a, need):
    """``a`` (1-d) with room for at least ``need`` entries (doubled; the old entries copied)."""
    if need <= a.shape[0]:
        return a
    b = np.empty(max(need, 2 * a.shape[0]), dtype=a.dtype)
    b[:a.shape[0]] = a
    return b


@jit
def _heap_push(heap, size, key):
    heap = _grown(heap, size + 1)
    i = size
    while i > 0:
        parent = (i - 1) >> 1
        if heap[parent] <= key:
            break
        heap[i] = heap[parent]
        i = parent
    heap[i] = key
    return heap, size + 1


@jit
def _heap_pop(heap, size):
    """The least key and the new size (``size > 0``)."""
    top = heap[0]
    size -= 1
    last = heap[size]
    i = 0
    while True:
        child = 2 * i + 1
        if child >= size:
            break
        if child + 1 < size and heap[child + 1] < heap[child]:
            child += 1
        if last <= heap[child]:
            break
        heap[i] = heap[child]
        i = child
    if size > 0:
        heap[i] = last
    return top, size


@jit
def _find(rcols, hpool, start, hstart, hbits, i, j):
    """The pool slot of column ``j`` in row ``i`` (its hash table: linear probing), or -1."""
    mask = (1 << hbits[i]) - 1
    h = (j * 2654435761) & mask
    while True:
        e = hpool[hstart[i] + h]
        if e < 0:
            return -1
        if rcols[start[i] + e] == j:
            return start[i] + e
        h = (h + 1) & mask


@jit
def _place(rcols, hpool, start, hstart, hbits, i, j, e):
    """Enter slot ``e`` (relative to the row's start) of column ``j`` in row ``i``'s hash table."""
    mask = (1 << hbits[i]) - 1
    h = (j * 2654435761) & mask
    while hpool[hstart[i] + h] >= 0:
        h = (h + 1) & mask
    hpool[hstart[i] + h] = e


@jit
def _row_room(rows, rcols, rvals, hpool, used, hused, i, need):
    """Row ``i`` rebuilt at the end of the pools with room for ``need`` entries: its cancelled
    (zero) entries dropped, a fresh hash table twice its room. When a pool is full, every row is
    moved (as it is, with its table) into fresh pools twice the live size. ``rows`` holds per row
    its start, slots used, room, nonzeros, table start and table bits. Returns the pools and
    their used sizes."""
    start, length, capacity, hstart, hbits = rows[0], rows[1], rows[2], rows[4], rows[5]
    want = max(need, 2 * rows[3][i] + 4)
    bits = 2
    while (1 << bits) < 2 * want:
        bits += 1
    if used + want > rcols.shape[0] or hused + (1 << bits) > hpool.shape[0]:
        live = 0
        hlive = 0
        for u in range(start.shape[0]):
            live += capacity[u]
            hlive += 1 << hbits[u]
        new_cols = np.empty(2 * (live + want) + 1024, dtype=rcols.dtype)
        new_vals = np.empty(new_cols.shape[0], dtype=rvals.dtype)
        new_hash = np.empty(2 * (hlive + (1 << bits)) + 1024, dtype=hpool.dtype)
        at = 0
        hat = 0
        for u in range(start.shape[0]):
            s, m, c = start[u], length[u], capacity[u]
            new_cols[at:at + m] = rcols[s:s + m]
            new_vals[at:at + m] = rvals[s:s + m]
            start[u] = at
            at += c
            t = 1 << hbits[u]
            new_hash[hat:hat + t] = hpool[hstart[u]:hstart[u] + t]
            hstart[u] = hat
            hat += t
        rcols, rvals, hpool, used, hused = new_cols, new_vals, new_hash, at, hat
    s, m = start[i], length[i]
    kept = 0
    for e in range(s, s + m):
        if rvals[e] != 0:
            rcols[used + kept] = rcols[e]
            rvals[used + kept] = rvals[e]
            kept += 1
    start[i] = used
    length[i] = kept
    capacity[i] = want
    used += want
    hstart[i] = hused
    hbits[i] = bits
    hpool[hused:hused + (1 << bits)] = -1
    hused += 1 << bits
    for e in range(kept):
        _place(rcols, hpool, start, hstart, hbits, i, rcols[start[i] + e], e)
    return rcols, rvals, hpool, used, hused


@jit
def _column_append(cstart, clength, ccapacity, cpool, cused, eliminated, j, i):
    """Append row ``i`` to column ``j``'s list of rows (a superset of the rows holding an entry in
    column ``j``: eliminated rows are dropped when the list is full). Returns ``(cpool, cused)``."""
    if clength[j] == ccapacity[j]:
        s = cstart[j]
        kept = 0
        for e in range(s, s + clength[j]):
            if not eliminated[cpool[e]]:
                cpool[s + kept] = cpool[e]
                kept += 1
        clength[j] = kept
        if kept * 2 > ccapacity[j]:  # still more than half full: move it to the end, twice as large
            want = 2 * ccapacity[j] + 4
            if cused + want > cpool.shape[0]:
                live = 0
                for u in range(cstart.shape[0]):
                    live += clength[u] + 4
                new = np.empty(2 * (live + want) + 1024, dtype=cpool.dtype)
                at = 0
                for u in range(cstart.shape[0]):
                    m = clength[u]
                    new[at:at + m] = cpool[cstart[u]:cstart[u] + m]
                    cstart[u] = at
                    ccapacity[u] = m + 4
                    at += m + 4
                cpool, cused = new, at
            else:
                cpool[cused:cused + kept] = cpool[s:s + kept]
                cstart[j] = cused
                ccapacity[j] = want
                cused += want
    cpool[cstart[j] + clength[j]] = i
    clength[j] += 1
    return cpool, cused


@jit
def _markowitz_mod(indptr, indices, data, p, max_cost):
    """The sparse elimination of :func:`_sparse_eliminate_reference` in numba. Each row is a run of
    (column, residue) slots in a pool with room to grow and a hash table of its columns (so an
    update costs the pivot row's length, not the updated row's); a cancelled entry stays as a zero
    slot until its row is rebuilt. Each column's count of nonzeros is exact, its list of rows lazy
    (an eliminated row, or one whose entry cancelled, is skipped when met)."""
    n = indptr.shape[0] - 1
    rows = np.zeros((6, n), dtype=np.int64)  # start, slots used, room, nonzeros, table start, table bits
    start, length, capacity, count, hstart, hbits = rows[0], rows[1], rows[2], rows[3], rows[4], rows[5]
    ccount = np.zeros(n, dtype=np.int64)
    for i in range(n):
        for e in range(indptr[i], indptr[i + 1]):
            if data[e] % p:
                count[i] += 1
                ccount[indices[e]] += 1
    used = 0
    hused = 0
    for i in range(n):
        start[i] = used
        capacity[i] = count[i] + 2
        used += capacity[i]
        bits = 2
        while (1 << bits) < 2 * capacity[i]:
            bits += 1
        hstart[i] = hused
        hbits[i] = bits
        hused += 1 << bits
    rcols = np.empty(used + 16, dtype=np.int32)  # grown (and compacted) as the fill needs
    rvals = np.empty(rcols.shape[0], dtype=np.int32)
    hpool = np.full(hused + 16, -1, dtype=np.int32)
    for i in range(n):
        for e in range(indptr[i], indptr[i + 1]):
            v = data[e] % p
            if v:
                rcols[start[i] + length[i]] = indices[e]
                rvals[start[i] + length[i]] = v
                _place(rcols, hpool, start, hstart, hbits, i, indices[e], length[i])
                length[i] += 1
    cstart = np.empty(n, dtype=np.int64)
    clength = np.zeros(n, dtype=np.int64)
    ccapacity = np.empty(n, dtype=np.int64)
    cused = 0
    for j in range(n):
        cstart[j] = cused
        ccapacity[j] = ccount[j] + 2
        cused += ccapacity[j]
    cpool = np.empty(cused + 16, dtype=np.int32)
    for i in range(n):
        for e in range(start[i], start[i] + length[i]):
            j = rcols[e]
            cpool[cstart[j] + clength[j]] = i
            clength[j] += 1
    eliminated = np.zeros(n, dtype=np.bool_)
    big = np.int64(n + 1)
    heap = np.empty(n + 16, dtype=np.int64)
    size = 0
    for u in range(n):
        heap, size = _heap_push(heap, size, max(ccount[u] - 1, 0) * max(count[u] - 1, 0) * big + u)
    order = np.empty(n, dtype=np.int64)
    inverse = np.empty(n, dtype=np.int64)
    l_ptr = np.zeros(n + 1, dtype=np.int64)
    u_ptr = np.zeros(n + 1, dtype=np.int64)
    l_idx = np.empty(16 + indptr[n], dtype=np.int64)
    l_val = np.empty(16 + indptr[n], dtype=np.int64)
    u_idx = np.empty(16 + indptr[n], dtype=np.int64)
    u_val = np.empty(16 + indptr[n], dtype=np.int64)
    steps = 0
    nl = 0
    nu = 0
    while size:
        key, size = _heap_pop(heap, size)
        cost, k = key // big, key % big
        if eliminated[k]:
            continue
        at = _find(rcols, hpool, start, hstart, hbits, k, k)
        pivot = np.int64(rvals[at]) if at >= 0 else np.int64(0)
        diagonal = 1 if pivot else 0
        current = (ccount[k] - diagonal) * (count[k] - diagonal)
        if current > cost:
            heap, size = _heap_push(heap, size, current * big + k)
            continue
        if cost > max_cost:
            break
        if pivot == 0:  # a zero pivot modulo p (rare): leave the state to the dense core
            continue
        eliminated[k] = True
        inv = inverse_mod(pivot, p)
        # the pivot leaves its row (a zero slot); the row's other entries leave their columns' counts
        rvals[at] = 0
        count[k] -= 1
        ccount[k] -= 1
        for e in range(start[k], start[k] + length[k]):
            if rvals[e]:
                ccount[rcols[e]] -= 1
        mk = count[k]
        for c in range(clength[k]):
            i = cpool[cstart[k] + c]
            if eliminated[i]:
                continue
            at = _find(rcols, hpool, start, hstart, hbits, i, k)
            if at < 0 or rvals[at] == 0:  # a stale entry of the list (cancelled, or met twice)
                continue
            factor = np.int64(rvals[at]) * inv % p
            rvals[at] = 0
            count[i] -= 1
            l_idx = _grown(l_idx, nl + 1)
            l_val = _grown(l_val, nl + 1)
            l_idx[nl] = i
            l_val[nl] = factor
            nl += 1
            if length[i] + mk > capacity[i]:
                rcols, rvals, hpool, used, hused = _row_room(rows, rcols, rvals, hpool, used, hused, i,
                                                             count[i] + mk)
            sk = start[k]
            for e in range(sk, sk + length[k]):
                if rvals[e] == 0:
                    continue
                j = rcols[e]
                v = factor * np.int64(rvals[e]) % p
                f = _find(rcols, hpool, start, hstart, hbits, i, j)
                if f >= 0:
                    old = np.int64(rvals[f])
                    new = (old - v) % p
                    rvals[f] = new
                    if old == 0:  # a cancelled slot filled again
                        count[i] += 1
                        ccount[j] += 1
                        cpool, cused = _column_append(cstart, clength, ccapacity, cpool, cused, eliminated, j, i)
                    elif new == 0:
                        count[i] -= 1
                        ccount[j] -= 1
                else:
                    slot = length[i]
                    rcols[start[i] + slot] = j
                    rvals[start[i] + slot] = (p - v) % p
                    _place(rcols, hpool, start, hstart, hbits, i, j, slot)
                    length[i] = slot + 1
                    count[i] += 1
                    ccount[j] += 1
                    cpool, cused = _column_append(cstart, clength, ccapacity, cpool, cused, eliminated, j, i)
            d = _find(rcols, hpool, start, hstart, hbits, i, i)
            diagonal = 1 if d >= 0 and rvals[d] != 0 else 0
            heap, size = _heap_push(heap, size, (ccount[i] - diagonal) * (count[i] - diagonal) * big + i)
        order[steps] = k
        inverse[steps] = inv
        l_ptr[steps + 1] = nl
        u_idx = _grown(u_idx, nu + mk)
        u_val = _grown(u_val, nu + mk)
        for e in range(start[k], start[k] + length[k]):
            if rvals[e]:
                u_idx[nu] = rcols[e]
                u_val[nu] = rvals[e]
                nu += 1
        u_ptr[steps + 1] = nu
        steps += 1
        length[k] = 0
        count[k] = 0
    return (order[:steps].copy(), inverse[:steps].copy(), l_ptr[:steps + 1].copy(), l_idx[:nl].copy(),
            l_val[:nl].copy(), u_ptr[:steps + 1].copy(), u_idx[:nu].copy(), u_val[:nu].copy(), eliminated,
            start, length, rcols, rvals)


@jit
def _core_matrix(core, start, length, rcols, rvals, n):
    """The core's rows as a dense float64 matrix of residues (core states in the given order)."""
    m = core.shape[0]
    place = np.full(n, -1, dtype=np.int64)
    for i in range(m):
        place[core[i]] = i
    dense = np.zeros((m, m), dtype=np.float64)
    for i in range(m):
        u = core[i]
        for e in range(start[u], start[u] + length[u]):
            if rvals[e]:
                dense[i, place[rcols[e]]] = rvals[e]
    return dense
