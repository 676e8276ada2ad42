"""The forward DP of :mod:`exact.one_handed.dp` compiled with numba (the Python version there is its reference).

Same states, same reductions, same proofs (see :mod:`exact.one_handed.dp`); what changes is representation:

* a key is four int64 words: the row's card codes packed ``CODE_BITS`` apiece into words 0-2, and
  word 3 = undealt mask | row length << 34 | frozen offset << 41. The offset is part of the key here
  (the Python reference keeps a vector per key instead); both are exact.
* counts are exact unsigned integers held in three 40-bit limbs of int64 (no overflow: every count is
  at most ``n! < 2**120`` for ``n <= 32``, and a limb never exceeds ``2**41`` before it is
  normalised); they become Python ints when a layer is read out, never floats.
* relabelling: suits and ranks in order of first appearance along the (cut) row; then the side with
  fewer fresh labels is ordered by its incidence with the already-labelled other side (ties by the
  old label: sound, possibly incomplete), and the other side's fresh labels by their column over all
  labels of the first side (complete: equal columns are interchangeable).
"""
from __future__ import annotations

import math

import numpy as np
from numba import types
from numba.typed import Dict

from exact.one_handed.dp_codec import (KEY_TYPE, LEN_SHIFT, LIMB_BITS, LIMB_MASK, LIMBS, OFF_SHIFT,
                                      _decode, code_bits, max_row_cards)
from exact.one_handed.finish import MAX_FINISH_CARDS, _finish_layer
from exact.one_handed.settle import _settle_labels
from sim._jit import jit


@jit
def _frozen_cut(rs, rr, length, reverse):
    """Largest ``c`` such that row[:c] is never removed nor matched again (exact.one_handed.dp, reduction 3)."""
    for c in range(length, 0, -1):
        ok = True
        lo = c - 3
        if lo < 0:
            lo = 0
        for j in range(lo, c):
            if rs[j] >= 0 or rr[j] >= 0:
                ok = False
                break
        if ok and c >= 4:
            four = rs[c - 4] if reverse else rr[c - 4]
            if four >= 0:
                ok = False
        if ok:
            return c
    return 0


@jit
def _label_fresh_by(lmap, key):
    """Give the fresh labels of ``lmap`` (entries ``-2``: live, not yet labelled) the next labels
    after those already given, in order of ``(key, old label)`` (a stable insertion sort)."""
    n = lmap.shape[0]
    nxt = 0
    for a in range(n):
        if lmap[a] >= 0:
            nxt += 1
    fresh = np.empty(n, dtype=np.int64)
    nf = 0
    for a in range(n):
        if lmap[a] == -2:
            fresh[nf] = a
            nf += 1
    for i in range(1, nf):
        x = fresh[i]
        j = i - 1
        while j >= 0 and key[fresh[j]] > key[x]:
            fresh[j + 1] = fresh[j]
            j -= 1
        fresh[j + 1] = x
    for i in range(nf):
        lmap[fresh[i]] = nxt
        nxt += 1


@jit
def _order_fresh(a_of, b_of, k, amap, bmap, n_a, n_b):
    """Label the fresh a-labels by their incidence with labelled b's, then fresh b's by columns."""
    # fresh a-labels: signature = mask of labelled b's met, then number of fresh b's met
    sig = np.zeros(n_a, dtype=np.int64)
    for i in range(k):
        a = a_of[i]
        b = b_of[i]
        if amap[a] < 0:
            if bmap[b] >= 0:
                sig[a] += np.int64(1) << (bmap[b] + 8)
            else:
                sig[a] += 1
    _label_fresh_by(amap, sig)
    # fresh b-labels: column over all a labels (now complete)
    col = np.zeros(n_b, dtype=np.int64)
    for i in range(k):
        b = b_of[i]
        if bmap[b] < 0:
            col[b] += np.int64(1) << amap[a_of[i]]
    _label_fresh_by(bmap, col)


@jit
def _canonical(rs, rr, length, us, ur, k, n_s, n_r, bits, per_word, reverse, offset):
    """Reduce + relabel the state (row rs/rr[:length], undealt us/ur[:k]); return (key, cut)."""
    live_s = np.zeros(n_s, dtype=np.bool_)
    live_r = np.zeros(n_r, dtype=np.bool_)
    for i in range(k):
        live_s[us[i]] = True
        live_r[ur[i]] = True
    for j in range(length):
        if rs[j] >= 0 and not live_s[rs[j]]:
            rs[j] = -1
        if rr[j] >= 0 and not live_r[rr[j]]:
            rr[j] = -1
    cut = _frozen_cut(rs, rr, length, reverse)
    # -1: dead, -2: live and not yet labelled, >= 0: new label
    smap = np.full(n_s, -1, dtype=np.int64)
    rmap = np.full(n_r, -1, dtype=np.int64)
    for s in range(n_s):
        if live_s[s]:
            smap[s] = -2
    for r in range(n_r):
        if live_r[r]:
            rmap[r] = -2
    ns = 0
    nr = 0
    for j in range(cut, length):
        s = rs[j]
        r = rr[j]
        if s >= 0 and smap[s] == -2:
            smap[s] = ns
            ns += 1
        if r >= 0 and rmap[r] == -2:
            rmap[r] = nr
            nr += 1
    fresh_s = 0
    fresh_r = 0
    for s in range(n_s):
        if smap[s] == -2:
            fresh_s += 1
    for r in range(n_r):
        if rmap[r] == -2:
            fresh_r += 1
    if fresh_s <= fresh_r:
        _order_fresh(us, ur, k, smap, rmap, n_s, n_r)
    else:
        _order_fresh(ur, us, k, rmap, smap, n_r, n_s)
    w0 = np.int64(0)
    w1 = np.int64(0)
    w2 = np.int64(0)
    width = n_r + 1
    for j in range(cut, length):
        s = rs[j]
        r = rr[j]
        code = np.int64((smap[s] + 1 if s >= 0 else 0) * width + (rmap[r] + 1 if r >= 0 else 0))
        pos = j - cut
        word = pos // per_word
        shift = (pos % per_word) * bits
        if word == 0:
            w0 |= code << shift
        elif word == 1:
            w1 |= code << shift
        else:
            w2 |= code << shift
    mask = np.int64(0)
    for i in range(k):
        mask |= np.int64(1) << (smap[us[i]] * n_r + rmap[ur[i]])
    w3 = mask | (np.int64(length - cut) << LEN_SHIFT) | (np.int64(offset + cut) << OFF_SHIFT)
    return (w0, w1, w2, w3), cut


@jit
def _add_limbs(dst, i, src, j, base_dst, base_src):
    c = np.int64(0)
    for q in range(LIMBS):
        x = dst[i, base_dst + q] + src[j, base_src + q] + c
        dst[i, base_dst + q] = x & LIMB_MASK
        c = x >> LIMB_BITS
    if c != 0:
        raise OverflowError("exact count beyond 120 bits")


@jit
def _layer(keys, vals, m, n_s, n_r, bits, per_word, reverse, win_any, final_once):
    """Deal one more card from every state of a layer; return the next layer and what it emptied.

    ``vals[i, 0:3]``: prefixes reaching state i (limbs); ``vals[i, 3:6]``: those of them never
    emptied by a removal (win=any only, offset 0 only). Returns (keys, vals, size, emptied limbs,
    transitions).
    """
    n = n_s * n_r
    index = Dict.empty(key_type=KEY_TYPE, value_type=types.int64)
    cap = max(16, m)
    out_keys = np.zeros((cap, 4), dtype=np.int64)
    out_vals = np.zeros((cap, 2 * LIMBS), dtype=np.int64)
    size = 0
    emptied_now = np.zeros((1, LIMBS), dtype=np.int64)
    rs = np.empty(n + 1, dtype=np.int64)
    rr = np.empty(n + 1, dtype=np.int64)
    us = np.empty(n, dtype=np.int64)
    ur = np.empty(n, dtype=np.int64)
    rs2 = np.empty(n + 1, dtype=np.int64)
    rr2 = np.empty(n + 1, dtype=np.int64)
    us2 = np.empty(n, dtype=np.int64)
    ur2 = np.empty(n, dtype=np.int64)
    transitions = 0
    for i in range(m):
        key = (keys[i, 0], keys[i, 1], keys[i, 2], keys[i, 3])
        length, k, offset = _decode(key, rs, rr, us, ur, n_s, n_r, bits, per_word)
        for c in range(k):
            for j in range(length):
                rs2[j] = rs[j]
                rr2[j] = rr[j]
            rs2[length] = us[c]
            rr2[length] = ur[c]
            q = 0
            for d in range(k):
                if d != c:
                    us2[q] = us[d]
                    ur2[q] = ur[d]
                    q += 1
            # final=once: the last card (k == 1) gets a single check
            limit = 1 if final_once and k == 1 else n
            new_len, removed, removals = _settle_labels(rs2, rr2, length + 1, reverse, limit)
            # the parity invariant: every removal takes 2 or 4 cards
            if removed % 2 != 0 or removed < 2 * removals or removed > 4 * removals:
                raise AssertionError("a removal took neither 2 nor 4 cards")
            emptied = removals > 0 and new_len == 0 and offset == 0
            new_key, cut = _canonical(rs2, rr2, new_len, us2, ur2, k - 1, n_s, n_r, bits, per_word,
                                      reverse, offset)
            transitions += 1
            if new_key in index:
                t = index[new_key]
            else:
                if size == cap:
                    cap *= 2
                    grown_keys = np.zeros((cap, 4), dtype=np.int64)
                    grown_vals = np.zeros((cap, 2 * LIMBS), dtype=np.int64)
                    grown_keys[:size] = out_keys[:size]
                    grown_vals[:size] = out_vals[:size]
                    out_keys = grown_keys
                    out_vals = grown_vals
                t = size
                index[new_key] = t
                out_keys[t, 0] = new_key[0]
                out_keys[t, 1] = new_key[1]
                out_keys[t, 2] = new_key[2]
                out_keys[t, 3] = new_key[3]
                size += 1
            _add_limbs(out_vals, t, vals, i, 0, 0)
            if win_any and offset == 0:
                if emptied:
                    _add_limbs(emptied_now, 0, vals, i, 0, LIMBS)
                elif cut == 0:
                    _add_limbs(out_vals, t, vals, i, LIMBS, LIMBS)
    return out_keys[:size].copy(), out_vals[:size].copy(), size, emptied_now[0].copy(), transitions


@jit
def _initial_key(n_s, n_r, bits, per_word, reverse):
    n = n_s * n_r
    rs = np.empty(1, dtype=np.int64)
    rr = np.empty(1, dtype=np.int64)
    us = np.empty(n, dtype=np.int64)
    ur = np.empty(n, dtype=np.int64)
    for c in range(n):
        us[c] = c // n_r
        ur[c] = c % n_r
    key, cut = _canonical(rs, rr, 0, us, ur, n, n_s, n_r, bits, per_word, reverse, 0)
    return key


def limbs_to_int(limbs) -> int:
    return sum(int(x) << (LIMB_BITS * q) for q, x in enumerate(limbs))


def canonical_key_kernel(row, undealt, suits: int, ranks: int, reverse: bool):
    """The kernel's key of a state given as (suit, rank) pairs; returns (row pairs, undealt pairs,
    offset) decoded from it (for the tests' soundness check)."""
    n = suits * ranks
    bits = code_bits(suits, ranks)
    per_word = 63 // bits
    rs = np.array([s for s, _ in row] + [0], dtype=np.int64)
    rr = np.array([r for _, r in row] + [0], dtype=np.int64)
    us = np.array([s for s, _ in undealt] + [0], dtype=np.int64)
    ur = np.array([r for _, r in undealt] + [0], dtype=np.int64)
    key, cut = _canonical(rs, rr, len(row), us, ur, len(undealt), suits, ranks, bits, per_word, reverse, 0)
    rs2 = np.empty(n + 1, dtype=np.int64)
    rr2 = np.empty(n + 1, dtype=np.int64)
    us2 = np.empty(n, dtype=np.int64)
    ur2 = np.empty(n, dtype=np.int64)
    length, k, offset = _decode(key, rs2, rr2, us2, ur2, suits, ranks, bits, per_word)
    return (list(zip(rs2[:length].tolist(), rr2[:length].tolist())),
            list(zip(us2[:k].tolist(), ur2[:k].tolist())), int(offset))


def dp_kernel_distribution(suits: int, ranks: int, *, reverse: bool, win_any: bool, final_once: bool = False,
                           progress=None, stats=None, finish_cards: int | None = None, checkpoint=None):
    """Score counts and wins over all orders (see :func:`exact.one_handed.dp.dp_distribution`).

    ``finish_cards``: build layers until this many cards are left, then play out every state's
    remaining orders (:mod:`exact.one_handed.finish`); ``None`` chooses it layer by layer (:func:`_finish_now`),
    ``0`` builds every layer.

    ``checkpoint``: an :class:`exact.checkpoint.StepCheckpoint`; the layer of states is saved there
    after each card dealt (its :meth:`~exact.checkpoint.StepCheckpoint.step`), and a saved layer is
    resumed from the next card. The play-out of the last cards is one step: it is not saved part way.
    """
    n = suits * ranks
    if n > max_row_cards(suits, ranks) or n > 32:
        raise ValueError(f"deck of {n} cards is beyond the DP kernel's key layout")
    auto = finish_cards is None
    if not auto and not 0 <= finish_cards <= MAX_FINISH_CARDS:
        raise ValueError(f"finish_cards must be in 0..{MAX_FINISH_CARDS}")
    bits = code_bits(suits, ranks)
    per_word = 63 // bits
    key = _initial_key(suits, ranks, bits, per_word, reverse)
    keys = np.array([key], dtype=np.int64)
    vals = np.zeros((1, 2 * LIMBS), dtype=np.int64)
    vals[0, 0] = 1
    vals[0, LIMBS] = 1
    wins = 0
    layer_sizes = [1]
    start = 0
    saved = checkpoint.load() if checkpoint is not None else None
    if saved is not None:
        state, arrays = saved
        keys, vals = arrays["keys"], arrays["vals"]
        start, wins, layer_sizes = int(state["t"]), int(state["wins"]), [int(x) for x in state["layer_sizes"]]
        if stats is not None:
            stats.transitions += int(state["transitions"])
        if progress is not None:
            progress(start, n, len(keys))
    transitions_here = 0
    for t in range(start, n):
        left = n - t
        if (left <= finish_cards) if not auto else _finish_now(left, len(keys)):
            break
        keys, vals, size, emptied_now, transitions = _layer(keys, vals, len(keys), suits, ranks, bits,
                                                             per_word, reverse, win_any, final_once)
        wins += limbs_to_int(emptied_now) * math.factorial(n - t - 1)
        layer_sizes.append(int(size))
        transitions_here += int(transitions)
        if stats is not None:
            stats.transitions += int(transitions)
        if progress is not None:
            progress(t + 1, n, int(size))
        if checkpoint is not None:
            before = int(saved[0]["transitions"]) if saved is not None else 0
            checkpoint.step(t + 1, n, lambda t=t, keys=keys, vals=vals, size=size, wins=wins, before=before: (
                {"t": t + 1, "wins": wins, "layer_sizes": layer_sizes, "transitions": before + transitions_here},
                {"keys": keys[:size], "vals": vals[:size]}))
    finish_cards = n - (len(layer_sizes) - 1)
    score_limbs, win_limbs, played = _finish_layer(keys, vals, len(keys), suits, ranks, bits, per_word,
                                                   reverse, win_any, final_once)
    if progress is not None and finish_cards:
        progress(n, n, 0)
    score_counts = [limbs_to_int(limbs) for limbs in score_limbs]
    wins += limbs_to_int(win_limbs[0])
    if stats is not None:
        stats.states = sum(layer_sizes)
        stats.max_layer_states = max(layer_sizes)
        stats.layer_states = tuple(layer_sizes)
        stats.finish_cards = finish_cards
        stats.finish_orders = int(played)
    if not win_any:
        wins = score_counts[0]
    return score_counts, wins


#: the automatic split (measured in ``benchmarks/bench_exact.py``): stop building layers at the first
#: layer with at most AUTO_FINISH_MAX cards left that holds AUTO_FINISH_STATES states or more, and
#: with AUTO_FINISH_MIN cards left at the latest. Layers grow fastest near the end (4x4: 3.0e6
#: states with 6 left, 5.2e7 with 3), while playing out costs about ``e * k!`` deals per state.
AUTO_FINISH_MAX = 6
AUTO_FINISH_MIN = 4
AUTO_FINISH_STATES = 500_000


def _finish_now(cards_left: int, layer_states: int) -> bool:
    if cards_left <= AUTO_FINISH_MIN:
        return True
    return cards_left <= AUTO_FINISH_MAX and layer_states >= AUTO_FINISH_STATES
