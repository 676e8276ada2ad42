"""One job of the word method: its windows up to the alphabet's stabiliser, their pairs and slots.

The recursion (:mod:`exact.one_handed.word`) at an alphabet ``Y`` visits windows ``(w1, w2, w3)`` of
letters of ``Y`` (``-1`` a sentinel below the row), starting from the top window of three sentinels.
Window ``W`` needs ``B_W(a)`` for the letters ``a`` it deals (``a`` in ``Y``, not in ``W``) and for the
letters a child may hand back to it (those of ``w3``'s suit); each ``a`` that does not match ``w1``
leads to the child window ``(w2, w3, a)``.

**Windows up to the stabiliser.** A relabelling ``tau = (sigma, rho)`` (suits, ranks) that fixes ``Y``
maps the words over ``Y`` onto themselves, so window ``W``'s counts are those of ``tau W`` read
back: ``B_W(a)`` is ``B_tauW(tau a)`` and the ``S1``/``S2`` slots, indexed by the rank of their card
(the suit is the window card's), are renamed by ``rho``. Each window is replaced by its
*representative*: the least image (as a triple of card numbers ``suit * R + rank``) under the
stabiliser (:mod:`exact.one_handed.word_jobs`: every short-side permutation ``pi`` fixing the
alphabet's count vector, each long line then sent into the block of lines of its image type). For a
given ``pi`` the least image is found greedily: in the order of the window's cards, each long line
not yet placed goes to the first free line of its target block (the card number grows with the long
coordinate whichever side it is, so the greedy choice is the least at every step and never
restricts a later one but through the lines used); the least over the ``pi`` is an invariant of the
orbit. The relabelling is then completed on the other lines (in increasing order, each to the first
free line of its block), which gives a whole element of the stabiliser, and the pair keeps its rank
permutation ``rho`` inverted: the representative's slot of rank ``x`` is ours of rank ``rinv[x]``.

**Slots.** A vector holds the endings of one degree parity: the ``end`` slots (``n + 1`` of them, or
the five folded slots of the core mode), ``S1`` and ``S2`` by rank, ``R1, R2, R3``. Every slot of an
``A`` vector is nonzero at one parity of degree only (``end(j)`` at ``j``'s, ``S1, R1, R3`` odd,
``S2, R2`` even; a ``B`` vector the other, one letter having been dealt), so a table row is
``(half-degree, slot)`` and the slots are ordered even first, then odd: the slots one degree reads or
writes are one contiguous range.
"""
from __future__ import annotations

import itertools
from typing import NamedTuple

import numpy as np

from sim._jit import jit

from exact.invariants import require
from exact.one_handed.word_jobs import AlphabetJobs, type_permutations

#: the two kinds of tables: every score (``"all"``), or p_win, win=any and the mean (``"core"``)
MODES = ("all", "core")
#: the kernel's convolutions run over one parity's slots in vector blocks of this many (then one at a
#: time for the rest); a parity at least half a block short of a whole number of blocks is padded
#: with slots that stay zero (:func:`layout`)
SLOT_BLOCK = 8


class Layout(NamedTuple):
    """Where each ending lives in a vector (slot numbers); ``even`` slots come first.

    ``end_src``/``end_dst``: the linear map of a child's ``end`` slots into its parent's (every
    coefficient 1); ``end_par``: parity of each ``end`` slot; ``ends``: the ``end`` slots read at the
    top, in order (``j = 0 .. n``, or the core mode's ``e0, eo, ee, mo, me``)."""

    width: int
    even: int  # slots [0, even) have even parity in A
    ends: np.ndarray
    end_src: np.ndarray
    end_dst: np.ndarray
    s1: np.ndarray  # (R,) slot of S1 by rank
    s2: np.ndarray  # (R,) slot of S2 by rank
    r1: int
    r2: int
    r3: int
    counted: int  # the leading ``ends`` that count words (the core mode's score sums do not)


def layout(n: int, ranks: int, mode: str = "all") -> Layout:
    """The slots of a deck of ``n`` cards and ``ranks`` ranks, ``mode`` ``"all"`` or ``"core"``.

    Each parity's slots (even first) are followed by padding slots, never written and so zero,
    where that parity is at least half of :data:`SLOT_BLOCK` short of a multiple of it: the
    kernel's convolutions sweep a parity's slots, and a whole number of blocks runs without the
    slot-by-slot remainder; a parity close to a multiple is left as it is, since its few remaining
    slots cost less than a block of zeros. Nothing reads a padding slot, so the residues do not
    depend on it.

    >>> lay = layout(4, 2)
    >>> lay.width, lay.even, lay.ends.tolist()
    (16, 8, [0, 8, 1, 9, 2])
    >>> layout(30, 6).width, layout(30, 6, "core").width  # 23 + 23 padded to 24 + 24; 10 + 10 kept
    (48, 20)
    """
    require(mode in MODES, f"mode is one of {MODES}")
    if mode == "all":
        end_par = [j & 1 for j in range(n + 1)]
        src = list(range(n))
        dst = list(range(1, n + 1))
    else:
        # e0, eo, ee, mo, me: end(0); count of odd j; count of even j >= 2; sum of j over odd j; over even j >= 2
        end_par = [0, 1, 0, 1, 0]
        e0, eo, ee, mo, me = range(5)
        pairs = [(e0, eo), (e0, mo), (eo, ee), (eo, me), (mo, me), (ee, eo), (ee, mo), (me, mo)]
        src = [a for a, _ in pairs]
        dst = [b for _, b in pairs]
    # parity of every logical slot: ends, S1 (odd), S2 (even), R1 (odd), R2 (even), R3 (odd)
    logical = [("end", j, p) for j, p in enumerate(end_par)]
    logical += [("s1", r, 1) for r in range(ranks)] + [("s2", r, 0) for r in range(ranks)]
    logical += [("r1", 0, 1), ("r2", 0, 0), ("r3", 0, 1)]
    order = []
    for parity in (0, 1):
        mine = [x for x in logical if x[2] == parity]
        short = -len(mine) % SLOT_BLOCK
        order += mine + ([("pad", k, parity) for k in range(short)] if 2 * short <= SLOT_BLOCK else [])
    where = {(kind, k): slot for slot, (kind, k, _) in enumerate(order)}
    ends = np.array([where[("end", j)] for j in range(len(end_par))], dtype=np.int64)
    return Layout(width=len(order), even=sum(1 for x in order if x[2] == 0), ends=ends,
                  end_src=ends[np.array(src, dtype=np.int64)], end_dst=ends[np.array(dst, dtype=np.int64)],
                  s1=np.array([where[("s1", r)] for r in range(ranks)], dtype=np.int64),
                  s2=np.array([where[("s2", r)] for r in range(ranks)], dtype=np.int64),
                  r1=where[("r1", 0)], r2=where[("r2", 0)], r3=where[("r3", 0)],
                  counted=len(end_par) if mode == "all" else 3)


class Group(NamedTuple):
    """The alphabet's stabiliser as the canonicalisation reads it (see the module docstring)."""

    suits: int
    ranks: int
    short_is_suits: int
    perms: np.ndarray  # (k, m) short-side permutations fixing the alphabet
    tperm: np.ndarray  # (k, 2^m) their action on types
    line_type: np.ndarray  # (L,) type of each long line
    block_start: np.ndarray  # (2^m,) first long line of each type


def job_group(jobs: AlphabetJobs, job: int) -> Group:
    """The stabiliser of job ``job``'s representative alphabet."""
    m = jobs.m
    c = jobs.counts[job].astype(np.int64)
    all_t = type_permutations(m)
    all_p = np.array(list(itertools.permutations(range(m))), dtype=np.int64).reshape(len(all_t), m)
    keep = [k for k in range(all_t.shape[0]) if all(c[all_t[k, t]] == c[t] for t in range(1 << m))]
    require(len(keep) == int(jobs.fixing[job]), "the stabiliser's short side was counted with the job list")
    types = np.array(jobs.long_types(job), dtype=np.int64)
    start = np.zeros(1 << m, dtype=np.int64)
    start[1:] = np.cumsum(c)[:-1]
    return Group(jobs.suits, jobs.ranks, int(jobs.short_is_suits), all_p[keep], all_t[keep], types, start)


class Plan(NamedTuple):
    """A job's windows and pairs, the arrays the kernel reads.

    Windows ``0`` and ``1`` are the top (three sentinels), with and without its ``R3'`` hand-backs.
    Pairs of window ``i`` are ``p_off[i]:p_off[i + 1]``; pair ``p`` deals letter ``p_card[p]``:
    ``p_match[p]`` 0 (no match: child window ``p_child[p]``, rank renaming ``p_rinv[p]``), 1 (suit of
    ``w1``: ``S1`` at rank ``p_rank[p]``) or 2 (rank of ``w1``: ``R1``); ``p_deal[p]`` 1 if the letter
    is dealt from ``A`` (not a letter of the window), ``p_store[p]`` its row of kept ``B`` vectors or
    -1. ``w_brow[i, r]``: the kept row of ``B_W`` of the letter of ``w3``'s suit and rank ``r`` (-1: not
    in the alphabet)."""

    windows: np.ndarray  # (nw, 3)
    returns: np.ndarray  # (nw,)
    p_off: np.ndarray
    p_card: np.ndarray
    p_match: np.ndarray
    p_rank: np.ndarray
    p_child: np.ndarray
    p_rinv: np.ndarray  # (np, R) int8
    p_deal: np.ndarray
    p_store: np.ndarray
    w_brow: np.ndarray  # (nw, R)
    kept: int  # rows of kept B vectors


@jit
def _canonical(w1, w2, w3, g_suits, g_ranks, short_is_suits, perms, tperm, line_type, block_start, rho, work):
    """The representative of window ``(w1, w2, w3)`` under the stabiliser (a triple packed in one
    int), and in ``rho`` the rank permutation of the element that gives it."""
    nlong = line_type.shape[0]
    nt = block_start.shape[0]
    m = perms.shape[1]
    best = np.int64(-1)
    best_k = 0
    win = np.empty(3, dtype=np.int64)
    win[0], win[1], win[2] = w1, w2, w3
    n1 = g_suits * g_ranks + 1
    used = work[:nt]
    placed = work[nt:nt + nlong]
    for k in range(perms.shape[0]):
        for t in range(nt):
            used[t] = 0
        for x in range(nlong):
            placed[x] = -1
        code = np.int64(0)
        for q in range(3):
            c = win[q]
            img = -1
            if c >= 0:
                s, r = c // g_ranks, c % g_ranks
                sh, lo = (s, r) if short_is_suits else (r, s)
                if placed[lo] < 0:
                    tt = tperm[k, line_type[lo]]
                    placed[lo] = block_start[tt] + used[tt]
                    used[tt] += 1
                sh2, lo2 = perms[k, sh], placed[lo]
                img = sh2 * g_ranks + lo2 if short_is_suits else lo2 * g_ranks + sh2
            code = code * n1 + (img + 1)
        if best < 0 or code < best:
            best = code
            best_k = k
    # the whole element for the best permutation: placed lines first, the others in order
    for t in range(nt):
        used[t] = 0
    for x in range(nlong):
        placed[x] = -1
    for q in range(3):
        c = win[q]
        if c >= 0:
            lo = c % g_ranks if short_is_suits else c // g_ranks
            if placed[lo] < 0:
                tt = tperm[best_k, line_type[lo]]
                placed[lo] = block_start[tt] + used[tt]
                used[tt] += 1
    for lo in range(nlong):
        if placed[lo] < 0:
            tt = tperm[best_k, line_type[lo]]
            placed[lo] = block_start[tt] + used[tt]
            used[tt] += 1
    if short_is_suits:
        for r in range(g_ranks):
            rho[r] = placed[r]
    else:
        for r in range(m):
            rho[r] = perms[best_k, r]
    return best


@jit
def _grow(arr, size):
    out = np.empty((max(size, 2 * arr.shape[0]),) + arr.shape[1:], dtype=arr.dtype)
    out[:arr.shape[0]] = arr
    return out


@jit
def _build(in_y, g_suits, g_ranks, short_is_suits, perms, tperm, line_type, block_start):
    """Breadth-first over the representative windows from the top; see :class:`Plan`."""
    n = g_suits * g_ranks
    R = g_ranks
    n1 = n + 1
    index = np.full(n1 * n1 * n1, -1, dtype=np.int64)
    windows = np.full((64, 3), -1, dtype=np.int64)
    nw = 2  # the top, twice
    index[0] = 0
    cap = 256
    p_win = np.zeros(cap, dtype=np.int64)
    p_card = np.zeros(cap, dtype=np.int64)
    p_match = np.zeros(cap, dtype=np.int64)
    p_rank = np.zeros(cap, dtype=np.int64)
    p_child = np.full(cap, -1, dtype=np.int64)
    p_rinv = np.zeros((cap, R), dtype=np.int8)
    p_deal = np.zeros(cap, dtype=np.int64)
    p_store = np.full(cap, -1, dtype=np.int64)
    brow = np.full((64, R), -1, dtype=np.int64)
    rho = np.zeros(R, dtype=np.int64)
    work = np.zeros(block_start.shape[0] + line_type.shape[0], dtype=np.int64)
    npairs = 0
    kept = 0
    i = 0
    while i < nw:
        if i == 1:  # the top without returns: the top's pairs again
            i += 1
            continue
        w1, w2, w3 = windows[i, 0], windows[i, 1], windows[i, 2]
        for a in range(n):
            if not in_y[a]:
                continue
            deal = a != w1 and a != w2 and a != w3
            back = w3 >= 0 and a // R == w3 // R
            if not (deal or back):
                continue
            if npairs == p_win.shape[0]:
                p_win = _grow(p_win, 0)
                p_card = _grow(p_card, 0)
                p_match = _grow(p_match, 0)
                p_rank = _grow(p_rank, 0)
                p_child = _grow(p_child, 0)
                p_rinv = _grow(p_rinv, 0)
                p_deal = _grow(p_deal, 0)
                p_store = _grow(p_store, 0)
            p = npairs
            npairs += 1
            p_win[p], p_card[p], p_deal[p], p_rank[p] = i, a, 1 if deal else 0, a % R
            p_child[p] = -1
            p_store[p] = -1
            if back:
                p_store[p] = kept
                brow[i, a % R] = kept
                kept += 1
            if w1 >= 0 and a // R == w1 // R:
                p_match[p] = 1
            elif w1 >= 0 and a % R == w1 % R:
                p_match[p] = 2
            else:
                p_match[p] = 0
                code = _canonical(w2, w3, a, g_suits, g_ranks, short_is_suits, perms, tperm, line_type,
                                  block_start, rho, work)
                j = index[code]
                if j < 0:
                    j = nw
                    nw += 1
                    index[code] = j
                    if j == windows.shape[0]:
                        windows = _grow(windows, 0)
                        brow2 = np.full((windows.shape[0], R), -1, dtype=np.int64)
                        brow2[:brow.shape[0]] = brow
                        brow = brow2
                    c3 = code % n1 - 1
                    c2 = (code // n1) % n1 - 1
                    c1 = code // (n1 * n1) - 1
                    windows[j, 0], windows[j, 1], windows[j, 2] = c1, c2, c3
                p_child[p] = j
                for r in range(R):
                    p_rinv[p, rho[r]] = r
        if i == 0:
            i = 2
        else:
            i += 1
    return (windows[:nw].copy(), brow[:nw].copy(), npairs, kept, p_win[:npairs].copy(), p_card[:npairs].copy(),
            p_match[:npairs].copy(), p_rank[:npairs].copy(), p_child[:npairs].copy(), p_rinv[:npairs].copy(),
            p_deal[:npairs].copy(), p_store[:npairs].copy())


def job_plan(jobs: AlphabetJobs, job: int) -> Plan:
    """The windows and pairs of job ``job`` (see :class:`Plan`)."""
    g = job_group(jobs, job)
    n = jobs.suits * jobs.ranks
    in_y = np.zeros(n, dtype=np.bool_)
    in_y[jobs.alphabet(job)] = True
    (windows, brow, npairs, kept, p_win, p_card, p_match, p_rank, p_child, p_rinv, p_deal,
     p_store) = _build(in_y, *g)
    nw = windows.shape[0]
    top_pairs = np.flatnonzero(p_win == 0)
    # the top without returns (window 1) deals the top's letters to the same children
    order = np.concatenate([top_pairs, top_pairs, np.flatnonzero(p_win >= 2)])
    win_of = np.concatenate([p_win[top_pairs], np.ones(len(top_pairs), dtype=np.int64), p_win[p_win >= 2]])
    counts = np.bincount(win_of, minlength=nw)
    p_off = np.zeros(nw + 1, dtype=np.int64)
    p_off[1:] = np.cumsum(counts)
    require(np.all(np.diff(win_of) >= 0), "pairs are listed window by window")
    returns = np.ones(nw, dtype=np.int64)
    returns[1] = 0
    return Plan(windows=windows, returns=returns, p_off=p_off, p_card=p_card[order], p_match=p_match[order],
                p_rank=p_rank[order], p_child=p_child[order], p_rinv=p_rinv[order], p_deal=p_deal[order],
                p_store=p_store[order], w_brow=brow, kept=int(kept))
